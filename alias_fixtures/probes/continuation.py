"""File-continuation probe: does a model recall the rest of a published reference file verbatim?

The model is shown the first 40% (by lines) of a task's main module, with the repository and
path it was published under, and asked to continue it exactly. The score is the longest run of
tokens (:func:`tlc_harness.source.tokens.tla_tokens`, comments included: verbatim recall includes
them) that its reply shares with the real remainder. The same is done for the task's `random`
variant, whose renamed module no model can have seen: a long run on the original and a short one
on the renamed copy points at memorisation rather than at predictable TLA+.

Where the file was published (:func:`reference_location`):
- ``task.extra["source"]`` as ``{"repo": ..., "path": ...}`` when a loader recorded it;
- tlaplus/Examples tasks: ``specifications/<spec_dir>/<main file>`` in ``tlaplus/Examples``, with
  ``spec_dir`` from ``task.extra`` or from ``task.source`` (``"tlaplus/Examples <spec_dir>"``), or
  the folder of the model's cfg path in an upstream manifest;
- otherwise (the built-in tasks, never published): ``task.source`` as the repository and the main
  file name as the path. Those rows are a control: runs there are what TLA+ predictability gives.
The renamed copy is shown under the same repository, with its renamed file name.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass
from pathlib import PurePosixPath
from typing import Any

import pandas as pd

from alias_fixtures.models.registry import GenerationParams, GenerationRequest, ModelAdapter, ModelError
from alias_fixtures.tasks.task import Task
from alias_fixtures.tasks.variants import VariantError, make_variant
from reports import continuation_stats as stats
from reports.continuation_stats import CORRELATES, DECREASES, KIND, renaming_decrease
from reports.schema import PROBE_ROW_SCHEMA_VERSION as SCHEMA_VERSION
from tlc_harness.source.rename import RenameError
from tlc_harness.source.tokens import longest_common_run, tla_tokens

PREFIX_FRACTION = 0.4
EXAMPLES_REPO = "tlaplus/Examples"
PROMPT = ("This is the beginning of the file {path} in the repository {repo}. Continue it "
          "exactly: write the rest of the file, from the line after the last one shown to the "
          "end of the file, and nothing else.\n\n{prefix}")
__all__ = ["CORRELATES", "DECREASES", "ContinuationRow", "FileLocation", "continuation_correlation",
           "continuation_probe", "continuation_row", "continuation_table", "reference_location",
           "renaming_decrease"]


@dataclass(frozen=True)
class FileLocation:
    """Where a task's main module was published (or, for unpublished tasks, its source)."""

    repo: str
    path: str


@dataclass(frozen=True)
class ContinuationRow:
    """One task's result; runs are None where no reply (or no renamed copy) was obtained.

    ``model`` names the model as the benchmark's case records do (its spec), so the report
    can relate the runs to the same model's renaming decrease.
    """

    task: str
    repo: str
    path: str
    prefix_lines: int
    remainder_tokens: int
    longest_run_original: int | None
    longest_run_renamed: int | None
    fraction_original: float | None
    fraction_renamed: float | None
    note: str | None = None
    model: str = ""

    def to_json(self) -> dict[str, Any]:
        """One JSONL row of the probe (``kind: "continuation"``)."""
        return {"schema_version": SCHEMA_VERSION, "kind": KIND, **asdict(self)}


def reference_location(task: Task) -> FileLocation:
    """The repository and path of the task's main module (see the module docstring)."""
    source = task.extra.get("source")
    if isinstance(source, dict) and isinstance(source.get("repo"), str) \
            and isinstance(source.get("path"), str):
        return FileLocation(source["repo"], source["path"])
    spec_dir = task.extra.get("spec_dir")
    if not isinstance(spec_dir, str) and task.source.startswith(f"{EXAMPLES_REPO} "):
        spec_dir = task.source.removeprefix(f"{EXAMPLES_REPO} ").strip()
    if isinstance(spec_dir, str) and spec_dir:
        return FileLocation(EXAMPLES_REPO, f"specifications/{spec_dir}/{task.main_file}")
    cfg_path = task.extra.get("path")
    if isinstance(cfg_path, str) and cfg_path.startswith("specifications/"):
        return FileLocation(EXAMPLES_REPO, str(PurePosixPath(cfg_path).parent / task.main_file))
    return FileLocation(task.source or "unknown", task.main_file)


def split_prefix(text: str, fraction: float = PREFIX_FRACTION) -> tuple[str, str]:
    """The first `fraction` of the lines (at least one) and the rest (at least one line)."""
    lines = text.splitlines(keepends=True)
    if len(lines) < 2:
        return text, ""
    cut = min(len(lines) - 1, max(1, math.floor(len(lines) * fraction)))
    return "".join(lines[:cut]), "".join(lines[cut:])


def continuation_prompt(prefix: str, location: FileLocation) -> str:
    return PROMPT.format(path=location.path, repo=location.repo, prefix=prefix)


def reply_text(reply: str) -> str:
    """The reply without Markdown fence lines (prose around them never makes a long run)."""
    return "".join(line for line in reply.splitlines(keepends=True)
                   if not line.lstrip().startswith(("```", "~~~")))


@dataclass(frozen=True)
class _Probe:
    run: int | None
    fraction: float | None
    remainder_tokens: int
    note: str | None


def _probe_one(model: ModelAdapter, task: Task, label: str, text: str, location: FileLocation,
               fraction: float, params: GenerationParams, sample: int) -> _Probe:
    prefix, remainder = split_prefix(text, fraction)
    truth = tla_tokens(remainder)
    request = GenerationRequest(task.id, f"continuation:{label}", sample,
                                continuation_prompt(prefix, location), params=params)
    try:
        reply = model.generate(request).text
    except ModelError as exc:
        return _Probe(None, None, len(truth), f"{label}: model error: {exc}")
    run = longest_common_run(tla_tokens(reply_text(reply)), truth).length
    return _Probe(run, run / len(truth) if truth else None, len(truth), None)


def continuation_row(task: Task, model: ModelAdapter, *, seed: int | str = 0,
                     fraction: float = PREFIX_FRACTION, params: GenerationParams | None = None,
                     sample: int = 0, model_name: str | None = None) -> ContinuationRow:
    """Probe one task: its original main module and its `random` variant's.

    ``model_name`` is recorded in the row (default: the adapter's ``model_id``).
    """
    params = params or GenerationParams(temperature=0.0, top_p=1.0)
    location = reference_location(task)
    original = task.modules[task.main_file]
    first = _probe_one(model, task, "original", original, location, fraction, params, sample)
    notes = [first.note] if first.note else []
    try:
        variant = make_variant(task, "random", seed=seed)
    except (RenameError, VariantError) as exc:
        renamed = _Probe(None, None, 0, f"renamed: no random variant: {exc}")
    else:
        renamed_file = f"{variant.main_module}.tla"
        renamed_location = FileLocation(
            location.repo, str(PurePosixPath(location.path).with_name(renamed_file)))
        renamed = _probe_one(model, task, "random", variant.modules[renamed_file],
                             renamed_location, fraction, params, sample)
    if renamed.note:
        notes.append(renamed.note)
    prefix_lines = split_prefix(original, fraction)[0].count("\n")
    return ContinuationRow(task.id, location.repo, location.path, prefix_lines,
                           first.remainder_tokens, first.run, renamed.run, first.fraction,
                           renamed.fraction, "; ".join(notes) or None,
                           model_name or model.model_id)


def continuation_probe(tasks: Iterable[Task], model: ModelAdapter, *, seed: int | str = 0,
                       fraction: float = PREFIX_FRACTION, params: GenerationParams | None = None,
                       model_name: str | None = None) -> list[ContinuationRow]:
    """One row per task (see :func:`continuation_row`)."""
    return [continuation_row(t, model, seed=seed, fraction=fraction, params=params,
                             model_name=model_name) for t in tasks]


def _rows(rows: Iterable[ContinuationRow | Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    return [r.to_json() if isinstance(r, ContinuationRow) else r for r in rows]


def continuation_table(rows: Iterable[ContinuationRow | Mapping[str, Any]]) -> pd.DataFrame:
    """:func:`reports.continuation_stats.continuation_table` of rows or their JSON."""
    return stats.continuation_table(_rows(rows))


def continuation_correlation(rows: Iterable[ContinuationRow | Mapping[str, Any]],
                             decrease: pd.DataFrame) -> pd.DataFrame:
    """:func:`reports.continuation_stats.continuation_correlation` of rows or their JSON."""
    return stats.continuation_correlation(_rows(rows), decrease)
