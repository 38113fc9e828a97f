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
stays in the denominator of every pass rate and is never a pass. One whose ``infra_kind`` is
``"wall_clock"`` (a wall-clock limit ended one of its grades twice: a verdict of the machine's
speed, not of the output) is in no rate: it has no row, and the frame lists it in
``frame.attrs["clock_limited"]`` (:func:`clock_limited`). A case whose ``cheats`` list is
not empty (a cheat rule fired on its output) never passes either: ``cheat`` is true and every
``*_pass`` false. A grade absent from a record (or null) did not pass and has no verdict.

A record of the feedback track (``--alias-turns N``, N >= 2) adds ``turns_max``,
``feedback_levels``, ``cheats``, ``cost_usd`` and ``turns`` (one entry per turn); its own grades
are those of its last turn. The column ``feedback`` names its arm: ``""`` for a one-shot record,
else the levels joined by commas, or ``"none"``. A case record without those keys inherits the
arm of the run header before it in the same file (``"turns"``, ``"feedback_levels"``), so a
feedback run's case that never reached a turn stays in its arm. Per-turn entries are read by
:mod:`reports.turns`.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from reports.schema import CONDITIONS, GRADES, PROBE_KINDS, UNDECIDED_VERDICTS, WALL_CLOCK
from reports.schema import RECORD_SCHEMA_VERSION as SCHEMA_VERSION
from tlc_harness.behavior.verdicts import BehaviorVerdict

_BEHAVIOR_VERDICTS = frozenset(v.value for v in BehaviorVerdict)
CASE_KEY = ("model", "feedback", "task", "condition", "sample")
_CLOCK = "_clock_limited"  # a row's mark, not a column
NO_FEEDBACK = "none"
"""The ``feedback`` of a multi-turn arm whose feedback was switched off."""
_TRACK_KEYS = ("turns_max", "feedback_levels", "turns")
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
    "published": "boolean",  # nullable: a record that does not say
    "missing_hidden": "bool",
    "parse_verdict": "object",
    "name_verdict": "object",
    "behavior_verdict": "object",
    "behavior_undecided": "bool",
    "cheat": "bool",
    "feedback": "object",
    "turns": "int64",
    "turns_max": "int64",
}
COLUMNS: tuple[str, ...] = tuple(_DTYPES)
"""Columns of a records frame. ``missing_hidden``: the name grade failed only on names the
description never stated (every ``missing_names`` entry is a hidden name). ``cheat``: a cheat
rule fired on the (last) output. ``published``: whether the task's reference was public
before the run (a public benchmark's spec) or written for ALIAS and never published (``<NA>``:
the record does not say). ``behavior_undecided``: the behavior verdict decides nothing
(:data:`UNDECIDED_VERDICTS`) on a case without an infrastructure failure or a cheat (those
fail whatever the grader says). ``feedback``: the arm (``""`` one-shot, else the feedback
levels or ``"none"``). ``turns``: turns recorded (1 for a one-shot record); ``turns_max``: the
run's N (1 for one-shot)."""

Rows = Iterable[tuple[str, Any]]
"""``(where, value)`` pairs: one results file's lines, or a list of records numbered."""


class StatsError(ValueError):
    """Input from which a statistic cannot be computed; the message says which and why."""


@dataclass(frozen=True)
class Track:
    """A case's place on the feedback track: the run's turns per case and its arm."""

    turns_max: int = 1
    feedback: str = ""


ONE_SHOT = Track()


def records_to_frame(records: Iterable[Mapping[str, Any]], *, source: str = "record"
                     ) -> pd.DataFrame:
    """Validate case records (header records are skipped) and return one row per case.

    ``source`` prefixes error messages (``load_records`` passes ``file:line``). Raises
    :class:`StatsError` on an unknown kind or schema version, a malformed field, a pass on a
    task the behavior grade does not cover, or the same (model, feedback, task, condition,
    sample) twice.
    """
    return _frame(row for _, _, row in read_cases([numbered(records, source)]))


def load_records(paths: str | os.PathLike[str] | Iterable[str | os.PathLike[str]]
                 ) -> pd.DataFrame:
    """Read JSONL results files (one path or several) into one records frame.

    Blank lines are ignored; a line that is not a JSON object raises :class:`StatsError` naming
    ``file:line``. Cases repeated across files are an error too (merge runs deliberately).
    """
    return _frame(row for _, _, row in read_cases(file_rows(paths)))


def numbered(records: Iterable[Any], source: str = "record") -> Rows:
    """``(f"{source} {n}", record)`` for records numbered from 1."""
    return ((f"{source} {number}", record) for number, record in enumerate(records, start=1))


def file_rows(paths: str | os.PathLike[str] | Iterable[str | os.PathLike[str]]
              ) -> Iterator[Rows]:
    """One :func:`jsonl_values` stream per results file."""
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    for path in map(Path, paths):
        yield jsonl_values(path)


def read_cases(sources: Iterable[Rows]
               ) -> Iterator[tuple[str, Mapping[str, Any], dict[str, Any]]]:
    """``(where, record, row)`` of each case record of each source, validated.

    A source is one results file: a run header sets the track of the cases after it in the
    same source. ``row`` holds the frame's columns. Raises :class:`StatsError` on a malformed
    record or a case seen before in any source.
    """
    seen: dict[tuple[Any, ...], str] = {}
    for rows in sources:
        track = ONE_SHOT
        for where, record in rows:
            if isinstance(record, Mapping) and record.get("kind") == "header":
                track = header_track(record, where)
                continue
            row = case_row(record, where, track)
            key = tuple(row[k] for k in CASE_KEY)
            if key in seen:
                raise StatsError(f"{where}: case {'/'.join(map(str, key[:1] + key[2:]))}"
                                 f"{arm_suffix(row['feedback'])} already recorded at "
                                 f"{seen[key]}")
            seen[key] = where
            yield where, record, row


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


def arm_suffix(feedback: str) -> str:
    """`` (feedback LEVELS)`` for a multi-turn arm, ``""`` for one-shot."""
    return f" (feedback {feedback})" if feedback else ""


def _frame(rows: Iterable[dict[str, Any]]) -> pd.DataFrame:
    columns: dict[str, list[Any]] = {column: [] for column in COLUMNS}
    left_out: list[dict[str, Any]] = []
    for row in rows:
        if row.pop(_CLOCK, False):
            left_out.append({k: row[k] for k in (*CASE_KEY, "infra_error")})
            continue
        for column in COLUMNS:
            columns[column].append(row[column])
    frame = pd.DataFrame({column: pd.Series(values, dtype=_DTYPES[column])
                          for column, values in columns.items()})
    frame.attrs["clock_limited"] = tuple(left_out)
    return frame


def clock_limited(frame: pd.DataFrame) -> tuple[dict[str, Any], ...]:
    """The cases a wall-clock limit ended (each its case key and ``infra_error``), which the
    frame leaves out of every rate."""
    found: tuple[dict[str, Any], ...] = frame.attrs.get("clock_limited", ())
    return found


# -- one case ---------------------------------------------------------------------------------

def case_row(record: Any, where: str, track: Track = ONE_SHOT) -> dict[str, Any]:
    """The frame row of one case record (``track``: its run header's); raises
    :class:`StatsError` for anything but a well-formed case record."""
    if not isinstance(record, Mapping):
        raise StatsError(f"{where}: a record must be a JSON object, got {type(record).__name__}")
    kind = record.get("kind")
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
    hidden = record.get("hidden_names") or []
    if not isinstance(hidden, list) or not all(isinstance(n, str) for n in hidden):
        raise StatsError(f"{where}: 'hidden_names' must be a list of names")
    published = record.get("published")
    if published is not None and not isinstance(published, bool):
        raise StatsError(f"{where}: 'published' must be true, false or null")
    grades = record.get("grades") or {}
    if not isinstance(grades, Mapping):
        raise StatsError(f"{where}: 'grades' must be an object")
    own = record_track(record, track, where)
    turns = record.get("turns")
    cheat = bool(cheats_of(record.get("cheats"), where))
    infra_error = record.get("infra_error")
    infra = infra_error is not None
    row: dict[str, Any] = {
        _CLOCK: infra and record.get("infra_kind") == WALL_CLOCK,
        "run_id": record.get("run_id"), **case, "sample": sample, "infra": infra,
        "infra_error": None if not infra else (
            infra_error if isinstance(infra_error, str) else json.dumps(infra_error)),
        "has_hidden": bool(hidden), "n_hidden": len(hidden), "published": published,
        "cheat": cheat,
        "feedback": own.feedback, "turns_max": own.turns_max,
        "turns": len(turns) if isinstance(turns, list) else 1,
    }
    for grade in GRADES:
        verdict, passed = grade_of(grades.get(grade), grade, where)
        row[f"{grade}_verdict"] = verdict
        row[f"{grade}_pass"] = passed and not infra and not cheat
    covered = coverage_of(grades.get("behavior"), where) if not infra else None
    if covered is False and grades_pass(grades, "behavior"):
        raise StatsError(f"{where}: behavior passed on a task the grade does not cover")
    row["behavior_covered"] = covered
    row["behavior_undecided"] = (row["behavior_verdict"] in UNDECIDED_VERDICTS
                                 and not infra and not cheat)
    name = grades.get("name")
    missing = name.get("missing_names") if isinstance(name, Mapping) else None
    row["missing_hidden"] = (not row["name_pass"] and isinstance(missing, list)
                             and bool(missing) and set(missing) <= set(hidden))
    return row


def grades_pass(grades: Mapping[str, Any], grade: str) -> bool:
    """Whether ``grades[grade]`` says passed (already validated)."""
    detail = grades.get(grade)
    return isinstance(detail, Mapping) and detail.get("passed") is True


def coverage_of(behavior: Any, where: str) -> bool | None:
    """Whether a behavior grade covers its task (None: unknown: no behavior grade, one the run
    did not request, or one that stopped before the behavior check without saying, as a
    name-only run's records of outputs that do not parse)."""
    if not isinstance(behavior, Mapping):
        return None
    flag = behavior.get("covered")
    if flag is not None and not isinstance(flag, bool):
        raise StatsError(f"{where}: 'grades.behavior.covered' must be true or false")
    if flag is None and behavior.get("verdict") not in _BEHAVIOR_VERDICTS:
        return None  # not requested, or stopped before it (no module, no parse): unknown
    return flag if flag is not None else behavior.get("verdict") != BehaviorVerdict.NOT_COVERED


def header_track(header: Mapping[str, Any], where: str) -> Track:
    """The track a run header declares (one-shot when it has no ``turns`` or ``turns`` is 1)."""
    turns = header.get("turns", 1)
    if not _count(turns, 1):
        raise StatsError(f"{where}: the header's 'turns' must be a positive integer, "
                         f"got {turns!r}")
    if turns == 1:
        return ONE_SHOT
    return Track(turns, feedback_label(header.get("feedback_levels"), where, "header"))


def record_track(record: Mapping[str, Any], default: Track, where: str) -> Track:
    """A case's track: its own ``turns_max``/``feedback_levels``, or ``default`` (its run
    header's) when it has none of the feedback track's keys."""
    present = [k for k in _TRACK_KEYS if k in record]
    if not present:
        return default
    missing = [k for k in _TRACK_KEYS if k not in record]
    if missing:
        raise StatsError(f"{where}: a multi-turn record needs {', '.join(map(repr, _TRACK_KEYS))}"
                         f"; it lacks {', '.join(map(repr, missing))}")
    turns_max, turns = record["turns_max"], record["turns"]
    if not _count(turns_max, 1):
        raise StatsError(f"{where}: 'turns_max' must be a positive integer, got {turns_max!r}")
    if not isinstance(turns, list):
        raise StatsError(f"{where}: 'turns' must be a list of turn objects")
    if len(turns) > turns_max:
        raise StatsError(f"{where}: {len(turns)} turns recorded but 'turns_max' is {turns_max}")
    return Track(turns_max, feedback_label(record["feedback_levels"], where, "record"))


def feedback_label(levels: Any, where: str, what: str) -> str:
    """``"a,b"`` for feedback levels ``["a", "b"]``; ``"none"`` for ``[]``."""
    if not isinstance(levels, list) or not all(isinstance(x, str) and x for x in levels):
        raise StatsError(f"{where}: the {what}'s 'feedback_levels' must be a list of level "
                         f"names, got {levels!r}")
    return ",".join(levels) or NO_FEEDBACK


def cheats_of(value: Any, where: str) -> list[Mapping[str, Any]]:
    """A validated cheat list (``[]`` for null or absent): objects with a string ``rule``."""
    if value is None:
        return []
    if not isinstance(value, list) or not all(
            isinstance(c, Mapping) and isinstance(c.get("rule"), str) and c["rule"]
            for c in value):
        raise StatsError(f"{where}: 'cheats' must be a list of objects with a string 'rule', "
                         f"got {value!r}")
    return value


def _count(value: Any, least: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= least


def _text(record: Mapping[str, Any], key: str, where: str) -> str:
    value = record.get(key)
    if not isinstance(value, str) or not value:
        raise StatsError(f"{where}: {key!r} must be a non-empty string, got {value!r}")
    return value


def grade_of(grade: Any, name: str, where: str) -> tuple[str | None, bool]:
    """``(verdict, passed)`` of one grade object (``(None, False)`` when absent)."""
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


def published_tasks(frame: pd.DataFrame) -> tuple[list[str], list[str]]:
    """Tasks whose reference was published and tasks whose reference never was; a task whose
    records do not say, or disagree, is in neither."""
    known = frame.dropna(subset=["published"]).groupby("task", sort=True)["published"]
    agreed = known.nunique() == 1
    flags = known.first()[agreed]
    return ([str(t) for t in flags.index[flags.to_numpy(dtype=bool)]],
            [str(t) for t in flags.index[~flags.to_numpy(dtype=bool)]])


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


def arm_label(model: str, feedback: str) -> str:
    """The name of a model × feedback arm in tables: the model for a one-shot arm, else
    ``MODEL [feedback LEVELS]``."""
    return f"{model} [feedback {feedback}]" if feedback else model


def by_arm(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with ``model`` replaced by :func:`arm_label` of each row (the frame itself when
    every record is one-shot), so statistics per model never mix a model's arms."""
    if frame.empty or not frame["feedback"].astype(bool).any():
        return frame
    labels = [arm_label(str(m), str(f)) for m, f in zip(frame["model"], frame["feedback"], strict=True)]
    return frame.assign(model=pd.Series(labels, index=frame.index, dtype="object"))
