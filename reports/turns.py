"""The feedback track by turn: each case's turns, and a frame with one row per case and turn.

A multi-turn record (``--alias-turns N``) lists its turns in ``turns``; they stop at the first
turn that passes, so a case may record fewer than N. A one-shot record is one turn (its own
grades, ``generation`` and ``cheats``). The by-turn frame (:func:`turn_frame`) has one row per
(model, feedback, task, condition, sample, turn k) for k = 1..K, K the largest ``turns_max``
present: at turn k a case shows its turn min(k, last recorded), so a case that passed on turn 1
stays passed. A turn whose cheat list is not empty passes no grade; an infrastructure failure
passes nothing at any turn. ``cost_usd`` is the cost of turns 1..k (NaN when a call among them
has no known cost, see :mod:`reports.turn_cost`).
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from reports.records import (
    Rows,
    StatsError,
    cheats_of,
    coverage_of,
    file_rows,
    grade_of,
    numbered,
    read_cases,
)
from reports.schema import GRADES, UNDECIDED_VERDICTS
from reports.turn_cost import CallCost, PriceTable, call_cost

_DTYPES: dict[str, str] = {
    "model": "object",
    "feedback": "object",
    "task": "object",
    "condition": "object",
    "sample": "int64",
    "turn": "int64",
    "turns": "int64",
    "turns_max": "int64",
    "parse_pass": "bool",
    "name_pass": "bool",
    "behavior_pass": "bool",
    "behavior_covered": "boolean",
    "behavior_upper_pass": "bool",
    "cheat": "bool",
    "infra": "bool",
    "cost_usd": "float64",
}
TURN_COLUMNS: tuple[str, ...] = tuple(_DTYPES)
"""Columns of the by-turn frame. ``turns``: turns the case recorded; ``turns_max``: its run's
N (1 one-shot); ``cheat``: the turn shown at k had a cheat finding; ``cost_usd``: cumulative;
``behavior_upper_pass``: the behavior grade passed or decided nothing (the rate's upper bound,
:mod:`reports.bounds`)."""


@dataclass(frozen=True)
class Turn:
    """One recorded turn: which grades passed (false on a cheat), coverage, and its call."""

    passes: tuple[bool, ...]  # in GRADES order
    covered: bool | None
    cheat: bool
    call: CallCost
    undecided: bool = False
    """The behavior verdict decides nothing (``no_mapping``, ``undecided``) and no cheat fired."""


@dataclass(frozen=True)
class CaseTurns:
    """One case's recorded turns (none when an infrastructure failure came first)."""

    model: str
    feedback: str
    task: str
    condition: str
    sample: int
    turns_max: int
    infra: bool
    turns: tuple[Turn, ...]

    def at(self, k: int) -> Turn | None:
        """The turn shown at turn ``k``: turn min(k, last); None when the case has none."""
        return self.turns[min(k, len(self.turns)) - 1] if self.turns else None

    def passed(self, grade: str, k: int) -> bool:
        """Whether the case passes ``grade`` at turn ``k``."""
        turn = self.at(k)
        return not self.infra and turn is not None and turn.passes[GRADES.index(grade)]

    def undecided(self, k: int) -> bool:
        """Whether the behavior grade decided nothing at turn ``k``."""
        turn = self.at(k)
        return not self.infra and turn is not None and turn.undecided

    def cost(self, k: int) -> float:
        """The cost of turns 1..k (NaN when one of them has no known cost)."""
        costs = [t.call.usd for t in self.turns[:k]]
        return math.nan if None in costs else math.fsum(c for c in costs if c is not None)


def case_turns(records: Iterable[Any], *, source: str = "record",
               prices: PriceTable | None = None) -> list[CaseTurns]:
    """Validate case records (headers set the track of the cases after them) and return each
    case's turns; costs from ``prices``, or the stored ``cost_usd`` without."""
    return _read([numbered(records, source)], prices)


def load_case_turns(paths: str | os.PathLike[str] | Iterable[str | os.PathLike[str]],
                    prices: PriceTable | None = None) -> list[CaseTurns]:
    """:func:`case_turns` of JSONL results files (errors name ``file:line``)."""
    return _read(file_rows(paths), prices)


def has_turns(cases: Iterable[Mapping[str, Any]]) -> bool:
    """Whether any case record is a multi-turn one (has ``turns``)."""
    return any(isinstance(c, Mapping) and "turns" in c for c in cases)


def turn_frame(cases: Sequence[CaseTurns]) -> pd.DataFrame:
    """One row per case and turn k = 1..K (K: the largest ``turns_max`` or turns recorded)."""
    last = max((max(c.turns_max, len(c.turns)) for c in cases), default=0)
    columns: dict[str, list[Any]] = {column: [] for column in TURN_COLUMNS}
    for case in cases:
        for k in range(1, last + 1):
            turn = case.at(k)
            row: dict[str, Any] = {
                "model": case.model, "feedback": case.feedback, "task": case.task,
                "condition": case.condition, "sample": case.sample, "turn": k,
                "turns": len(case.turns), "turns_max": case.turns_max,
                "cheat": turn is not None and turn.cheat, "infra": case.infra,
                "behavior_covered": None if case.infra or turn is None else turn.covered,
                "cost_usd": case.cost(k),
            }
            for grade in GRADES:
                row[f"{grade}_pass"] = case.passed(grade, k)
            row["behavior_upper_pass"] = row["behavior_pass"] or case.undecided(k)
            for column in TURN_COLUMNS:
                columns[column].append(row[column])
    return pd.DataFrame({column: pd.Series(values, dtype=_DTYPES[column])
                         for column, values in columns.items()})


# -- reading ----------------------------------------------------------------------------------

def _read(sources: Iterable[Rows], prices: PriceTable | None) -> list[CaseTurns]:
    out = []
    for where, record, row in read_cases(sources):
        turns = (_recorded(record, where, prices, bool(row["infra"]))
                 if isinstance(record.get("turns"), list)
                 else (_turn(record, where, str(row["model"]), prices),))  # one-shot: one turn
        out.append(CaseTurns(str(row["model"]), str(row["feedback"]), str(row["task"]),
                             str(row["condition"]), int(row["sample"]), int(row["turns_max"]),
                             bool(row["infra"]), turns))
    return out


def _recorded(record: Mapping[str, Any], where: str, prices: PriceTable | None, infra: bool
              ) -> tuple[Turn, ...]:
    entries: list[Any] = record["turns"]
    if not entries and not infra:
        raise StatsError(f"{where}: 'turns' is empty but the case has no infra_error")
    turns = []
    for number, entry in enumerate(entries, start=1):
        at = f"{where}: turn {number}"
        if not isinstance(entry, Mapping):
            raise StatsError(f"{at}: a turn must be an object, got {type(entry).__name__}")
        if entry.get("turn") != number or isinstance(entry.get("turn"), bool):
            raise StatsError(f"{at}: 'turn' must be {number}, got {entry.get('turn')!r}")
        passed = entry.get("passed")
        if passed is not None and not isinstance(passed, bool):
            raise StatsError(f"{at}: 'passed' must be true or false, got {passed!r}")
        if passed and number < len(entries):
            raise StatsError(f"{at}: it passed, yet turn {number + 1} follows (turns stop at "
                             f"the first that passes)")
        turns.append(_turn(entry, at, str(record["model"]), prices))
    if turns and isinstance(entries[-1].get("grades"), Mapping) and isinstance(
            record.get("grades"), Mapping) and record["grades"]:
        _same_as_last(record, entries[-1], where)
    return tuple(turns)


def _turn(entry: Mapping[str, Any], where: str, model: str, prices: PriceTable | None
          ) -> Turn:
    """One turn (or a one-shot record) read and validated; ``where`` prefixes errors."""
    grades = entry.get("grades") or {}
    if not isinstance(grades, Mapping):
        raise StatsError(f"{where}: 'grades' must be an object")
    cheat = bool(cheats_of(entry.get("cheats"), where))
    raw = {g: grade_of(grades.get(g), g, where)[1] for g in GRADES}
    passes = tuple(raw[g] and not cheat for g in GRADES)
    covered = coverage_of(grades.get("behavior"), where)
    if covered is False and raw["behavior"]:
        raise StatsError(f"{where}: behavior passed on a task the grade does not cover")
    generation = entry.get("generation")
    if generation is not None:
        _check_generation(generation, where)
    stored = entry.get("cost_usd")
    if stored is not None and (isinstance(stored, bool) or not isinstance(stored, (int, float))
                               or not math.isfinite(stored) or stored < 0):
        raise StatsError(f"{where}: 'cost_usd' must be null or a number >= 0, got {stored!r}")
    call = call_cost(generation, model, prices, stored, "cost_usd" in entry)
    behavior = grades.get("behavior")
    verdict = behavior.get("verdict") if isinstance(behavior, Mapping) else None
    return Turn(passes, covered, cheat, call, verdict in UNDECIDED_VERDICTS and not cheat)


def _check_generation(generation: Any, where: str) -> None:
    if not isinstance(generation, Mapping):
        raise StatsError(f"{where}: 'generation' must be an object")
    for key in ("input_tokens", "output_tokens"):
        value = generation.get(key)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int)
                                  or value < 0):
            raise StatsError(f"{where}: 'generation.{key}' must be null or a non-negative "
                             f"integer, got {value!r}")
    source = generation.get("token_source")
    if source is not None and not isinstance(source, str):
        raise StatsError(f"{where}: 'generation.token_source' must be a string when given, "
                         f"got {source!r}")


def _same_as_last(record: Mapping[str, Any], last: Mapping[str, Any], where: str) -> None:
    """The record's own grades are its last turn's: their ``passed`` flags must agree."""
    for grade in GRADES:
        own, theirs = record["grades"].get(grade), last["grades"].get(grade)
        flags = [g.get("passed") if isinstance(g, Mapping) else None for g in (own, theirs)]
        if flags[0] != flags[1]:
            raise StatsError(f"{where}: 'grades.{grade}.passed' is {flags[0]!r} but the last "
                             f"turn's is {flags[1]!r} (a record's grades are its last turn's)")


__all__ = ["TURN_COLUMNS", "CaseTurns", "Turn", "case_turns", "has_turns", "load_case_turns",
           "turn_frame"]
