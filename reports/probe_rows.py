"""Probe files: JSONL rows of the memorization probes, read and checked for the report.

Each row carries ``schema_version`` 1, a ``kind``, the ``model`` (as the benchmark names it)
and the ``task``:

- ``likelihood``: one task and condition under a local model (``alias_fixtures.probes.likelihood``);
- ``continuation``: one task's longest verbatim runs (``alias_fixtures.probes.continuation``);
- ``similarity``: ROUGE-L and BLEU of one sample's output (``reports.similarity``);
- ``proposed_names``: one task's model-proposed name map (``alias_fixtures.models.propose_names``).

Case records and run headers belong in results files, not here; the error says so.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from reports.records import StatsError, jsonl_values
from reports.schema import PROBE_KINDS
from reports.schema import PROBE_ROW_SCHEMA_VERSION as SCHEMA_VERSION

KEYS: dict[str, tuple[str, ...]] = {
    "likelihood": ("model", "task", "condition"),
    "continuation": ("model", "task"),
    "similarity": ("model", "task", "condition", "sample"),
    "proposed_names": ("model", "task"),
}
"""Each kind and the fields that identify one row (a second row with them is an error)."""
KINDS = PROBE_KINDS


@dataclass(frozen=True)
class ProbeInput:
    """One probe file: its path and how many rows of each kind it holds."""

    path: str
    rows: dict[str, int]


@dataclass(frozen=True)
class ProbeRows:
    """Every probe row of the report's probe files, by kind, in file order."""

    inputs: tuple[ProbeInput, ...] = ()
    by_kind: dict[str, tuple[dict[str, Any], ...]] = field(default_factory=dict)

    def of(self, kind: str) -> tuple[dict[str, Any], ...]:
        """The rows of ``kind`` (none when no file holds it)."""
        return self.by_kind.get(kind, ())


def read_probe_files(paths: Iterable[Path]) -> ProbeRows:
    """Read probe files; raises :class:`StatsError` naming ``file:line`` for a bad row."""
    inputs: list[ProbeInput] = []
    rows: dict[str, list[dict[str, Any]]] = {kind: [] for kind in KINDS}
    seen: dict[tuple[Any, ...], str] = {}
    for path in paths:
        if not path.is_file():
            raise StatsError(f"{path}: no such probe file")
        counts = dict.fromkeys(KINDS, 0)
        for where, row in jsonl_values(path):
            kind = check_row(row, where)
            key = (kind, *(row.get(k) for k in KEYS[kind]))
            if key in seen:
                raise StatsError(f"{where}: {kind} row for {'/'.join(map(str, key[1:]))} "
                                 f"already read at {seen[key]}")
            seen[key] = where
            rows[kind].append(row)
            counts[kind] += 1
        inputs.append(ProbeInput(str(path), {k: n for k, n in counts.items() if n}))
    return ProbeRows(tuple(inputs), {k: tuple(v) for k, v in rows.items() if v})


def check_row(row: Any, where: str) -> str:
    """The row's kind, after checking its kind, schema version, model and task."""
    if not isinstance(row, Mapping):
        raise StatsError(f"{where}: a probe row must be a JSON object")
    kind = row.get("kind")
    if kind in ("case", "header"):
        raise StatsError(f"{where}: a {kind} record belongs to a results file (give results "
                         f"files as positional arguments, probe files with --probe)")
    if kind not in KEYS:
        raise StatsError(f"{where}: unknown probe row kind {kind!r} (one of {', '.join(KINDS)})")
    if row.get("schema_version") != SCHEMA_VERSION:
        raise StatsError(f"{where}: {kind} schema_version {row.get('schema_version')!r} is not "
                         f"supported (this reader knows {SCHEMA_VERSION})")
    for name in ("model", "task"):
        if not isinstance(row.get(name), str) or not row[name]:
            raise StatsError(f"{where}: {name!r} must be a non-empty string, got "
                             f"{row.get(name)!r}")
    return str(kind)
