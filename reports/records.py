"""Case records: the JSONL lines written per graded case, read into one pandas frame.

A results file holds one JSON object per line. Lines with ``"kind": "header"`` carry a run's
provenance and are skipped here; every other line must be a case record (``"kind": "case"``,
``schema_version`` 1)::

    {"schema_version": 1, "kind": "case", "run_id": "r1", "model": "demo",
     "task": "hour_clock", "condition": "random", "sample": 3, "hidden_names": ["TypeOK"],
     "grades": {"parse": {"verdict": "ok", "passed": true, ...},
                "name": {"verdict": "config_bind_fail", "passed": false,
                         "missing_names": ["TypeOK"], ...},
                "behavior": {"verdict": "ok", "passed": true, "covered": true, ...}},
     "infra_error": null}

The frame has one row per case and the columns in :data:`COLUMNS`. A case whose ``infra_error``
is not null is an infrastructure failure: ``infra`` is true and every ``*_pass`` is false, so it
stays in the denominator of every pass rate and is never a pass.
A grade absent from a record (or null) did not pass and has no verdict.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from reports.schema import CONDITIONS, GRADES, PROBE_KINDS
from reports.schema import RECORD_SCHEMA_VERSION as SCHEMA_VERSION
from tlc_harness.behavior.verdicts import BehaviorVerdict

CASE_KEY = ("model", "task", "condition", "sample")
_DTYPES: dict[str, str] = {
    "run_id": "object",
    "model": "object",
    "task": "object",
    "condition": "object",
    "sample": "int64",
    "parse_pass": "bool",
    "name_pass": "bool",
    "behavior_pass": "bool",
    "behavior_covered": "boolean",  # nullable: unknown for infrastructure failures
    "infra": "bool",
    "infra_error": "object",
    "has_hidden": "bool",
    "n_hidden": "int64",
    "missing_hidden": "bool",
    "parse_verdict": "object",
    "name_verdict": "object",
    "behavior_verdict": "object",
}
COLUMNS: tuple[str, ...] = tuple(_DTYPES)
"""Columns of a records frame. ``missing_hidden``: the name grade failed only on names the
description never stated (every ``missing_names`` entry is a hidden name)."""


class StatsError(ValueError):
    """Input from which a statistic cannot be computed; the message says which and why."""


def records_to_frame(records: Iterable[Mapping[str, Any]], *, source: str = "record"
                     ) -> pd.DataFrame:
    """Validate case records (header records are skipped) and return one row per case.

    ``source`` prefixes error messages (``load_records`` passes ``file:line``). Raises
    :class:`StatsError` on an unknown kind or schema version, a malformed field, a pass on a
    task the behavior grade does not cover, or the same (model, task, condition, sample) twice.
    """
    rows: dict[str, list[Any]] = {column: [] for column in COLUMNS}
    seen: dict[tuple[Any, ...], str] = {}
    for number, record in enumerate(records, start=1):
        _append_case(rows, record, f"{source} {number}", seen)
    return _frame(rows)


def load_records(paths: str | os.PathLike[str] | Iterable[str | os.PathLike[str]]
                 ) -> pd.DataFrame:
    """Read JSONL results files (one path or several) into one records frame.

    Blank lines are ignored; a line that is not a JSON object raises :class:`StatsError` naming
    ``file:line``. Cases repeated across files are an error too (merge runs deliberately).
    """
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    rows: dict[str, list[Any]] = {column: [] for column in COLUMNS}
    seen: dict[tuple[Any, ...], str] = {}
    for path in map(Path, paths):
        for where, record in jsonl_values(path):
            _append_case(rows, record, where, seen)
    return _frame(rows)


def jsonl_values(path: Path) -> Iterator[tuple[str, Any]]:
    """``(file:line, value)`` of each non-blank line; :class:`StatsError` for one not JSON."""
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            where = f"{path}:{number}"
            try:
                yield where, json.loads(line)
            except json.JSONDecodeError as exc:
                raise StatsError(f"{where}: not JSON ({exc.msg})") from exc


def _frame(rows: dict[str, list[Any]]) -> pd.DataFrame:
    return pd.DataFrame({column: pd.Series(values, dtype=_DTYPES[column])
                         for column, values in rows.items()})


def _append_case(rows: dict[str, list[Any]], record: Any, where: str,
                 seen: dict[tuple[Any, ...], str]) -> None:
    if not isinstance(record, Mapping):
        raise StatsError(f"{where}: a record must be a JSON object, got {type(record).__name__}")
    kind = record.get("kind")
    if kind == "header":
        return
    if kind != "case":
        hint = (" (a probe row: give probe files with `alias-bench report --probe FILE`)"
                if kind in PROBE_KINDS else "")
        raise StatsError(f"{where}: unknown record kind {kind!r} (expected 'case' or "
                         f"'header'){hint}")
    if record.get("schema_version") != SCHEMA_VERSION:
        raise StatsError(f"{where}: schema_version {record.get('schema_version')!r} is not "
                         f"supported (this reader knows {SCHEMA_VERSION})")
    case = {key: _text(record, key, where) for key in ("model", "task", "condition")}
    sample = record.get("sample")
    if not isinstance(sample, int) or isinstance(sample, bool) or sample < 0:
        raise StatsError(f"{where}: 'sample' must be a non-negative integer, got {sample!r}")
    key = (case["model"], case["task"], case["condition"], sample)
    if key in seen:
        raise StatsError(f"{where}: case {'/'.join(map(str, key))} already recorded at "
                         f"{seen[key]}")
    seen[key] = where
    hidden = record.get("hidden_names") or []
    if not isinstance(hidden, list) or not all(isinstance(n, str) for n in hidden):
        raise StatsError(f"{where}: 'hidden_names' must be a list of names")
    grades = record.get("grades") or {}
    if not isinstance(grades, Mapping):
        raise StatsError(f"{where}: 'grades' must be an object")
    infra_error = record.get("infra_error")
    infra = infra_error is not None
    row: dict[str, Any] = {
        "run_id": record.get("run_id"), **case, "sample": sample, "infra": infra,
        "infra_error": None if not infra else (
            infra_error if isinstance(infra_error, str) else json.dumps(infra_error)),
        "has_hidden": bool(hidden), "n_hidden": len(hidden),
    }
    for grade in GRADES:
        verdict, passed = _grade(grades.get(grade), grade, where)
        row[f"{grade}_verdict"] = verdict
        row[f"{grade}_pass"] = passed and not infra
    behavior = grades.get("behavior")
    covered: bool | None = None
    if not infra and isinstance(behavior, Mapping):
        flag = behavior.get("covered")
        if flag is not None and not isinstance(flag, bool):
            raise StatsError(f"{where}: 'grades.behavior.covered' must be true or false")
        covered = flag if flag is not None else behavior.get("verdict") != BehaviorVerdict.NOT_COVERED
    if covered is False and row["behavior_pass"]:
        raise StatsError(f"{where}: behavior passed on a task the grade does not cover")
    row["behavior_covered"] = covered
    name = grades.get("name")
    missing = name.get("missing_names") if isinstance(name, Mapping) else None
    row["missing_hidden"] = (not row["name_pass"] and isinstance(missing, list)
                             and bool(missing) and set(missing) <= set(hidden))
    for column in COLUMNS:
        rows[column].append(row[column])


def _text(record: Mapping[str, Any], key: str, where: str) -> str:
    value = record.get(key)
    if not isinstance(value, str) or not value:
        raise StatsError(f"{where}: {key!r} must be a non-empty string, got {value!r}")
    return value


def _grade(grade: Any, name: str, where: str) -> tuple[str | None, bool]:
    if grade is None:
        return None, False
    if not isinstance(grade, Mapping):
        raise StatsError(f"{where}: 'grades.{name}' must be an object")
    verdict, passed = grade.get("verdict"), grade.get("passed")
    if not isinstance(verdict, str) or not isinstance(passed, bool):
        raise StatsError(f"{where}: 'grades.{name}' needs a string 'verdict' and a boolean "
                         f"'passed', got {verdict!r} and {passed!r}")
    return verdict, passed


def condition_order(conditions: Iterable[str]) -> list[str]:
    """The conditions present, known ones first in :data:`CONDITIONS` order, others sorted."""
    present = set(conditions)
    return [c for c in CONDITIONS if c in present] + sorted(present - set(CONDITIONS))


def covered_tasks(frame: pd.DataFrame) -> list[str]:
    """Tasks the behavior grade covers: some record says covered and none says not covered.

    Coverage is a property of a task's references, so it is decided over every
    model and condition in the frame; a task not covered under any condition is left out of
    all behavior statistics, which keeps the conditions compared on the same tasks.
    """
    known = frame.dropna(subset=["behavior_covered"])
    by_task = known.groupby("task", sort=True)["behavior_covered"].all()
    return [str(task) for task in by_task.index[by_task.to_numpy(dtype=bool)]]


def unknown_coverage_tasks(frame: pd.DataFrame) -> list[str]:
    """Tasks no record gives coverage for (each an infrastructure failure or without a behavior
    grade); behavior statistics leave them out, and the tables say so in a note."""
    known = set(frame.dropna(subset=["behavior_covered"])["task"])
    return sorted(str(task) for task in set(frame["task"]) - known)


def hidden_tasks(frame: pd.DataFrame) -> list[str]:
    """Tasks with at least one hidden required name in some record."""
    flags = frame.groupby("task", sort=True)["has_hidden"].any()
    return [str(task) for task in flags.index[flags.to_numpy(dtype=bool)]]


def require_rows(frame: pd.DataFrame) -> None:
    """Raise :class:`StatsError` for a frame without case records."""
    if frame.empty:
        raise StatsError("no case records: the frame is empty")


def select_model(frame: pd.DataFrame, model: str | None) -> str:
    """``model`` if the frame has records for it; with ``None``, the frame's only model."""
    require_rows(frame)
    models = sorted(str(m) for m in frame["model"].unique())
    if model is None:
        if len(models) != 1:
            raise StatsError(f"the records hold {len(models)} models ({', '.join(models)}); "
                             f"name one (model=...)")
        return models[0]
    if model not in models:
        raise StatsError(f"no records for model {model!r} (present: {', '.join(models)})")
    return model
