"""Statistics of the feedback track by turn, per model × feedback arm and grade.

From the by-turn frame (:func:`reports.turns.turn_frame`), per task: the pass rate at turn k
under each condition, the renaming gap at turn k (original − renamed, points) and its change
since turn 1, the difference-in-differences DiD(k) = gap(k) − gap(1) (negative: feedback closes
the gap). Means over tasks with percentile intervals from resampling tasks, as in
:mod:`reports.stats` (:func:`bootstrap_means`, same seed handling; every statistic of an arm
shares one set of resamples). An arm's tasks are those graded under every condition of the arm
(behavior: covered tasks only). Turn 1 of a multi-turn arm is a one-shot run.
:func:`names_effects` compares, for one model, the DiD at the last turn of an arm whose
feedback includes ``names`` with that of an arm whose feedback does not.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from reports.records import StatsError, condition_order, covered_tasks, require_rows
from reports.schema import GRADES
from reports.stats import (
    BOOTSTRAP_SEED,
    LEVEL,
    N_BOOT,
    Estimate,
    FloatArray,
    bootstrap_means,
    percentile_interval,
)

ORIGINAL = "original"
NAMES = "names"
PASS, GAP, DID = "pass", "gap", "did"
BEHAVIOR_UPPER = "behavior_upper"
"""The behavior grade's upper bound as a grade of its own: a case whose behavior verdict decides
nothing counts as a pass (:mod:`reports.bounds`)."""


@dataclass(frozen=True)
class TurnEstimate:
    """One statistic of an arm at turn ``turn``: ``pass`` (percent, under ``condition``),
    ``gap`` (original − ``condition``, points) or ``did`` (gap at ``turn`` − gap at turn 1)."""

    measure: str
    condition: str
    turn: int
    estimate: Estimate


@dataclass(frozen=True)
class ArmTurns:
    """The by-turn statistics of one model × feedback arm and grade over ``tasks``."""

    model: str
    feedback: str
    grade: str
    turns: int
    conditions: tuple[str, ...]
    tasks: tuple[str, ...]
    estimates: tuple[TurnEstimate, ...]
    n_boot: int
    seed: int
    notes: tuple[str, ...] = ()

    def get(self, measure: str, condition: str, turn: int) -> Estimate | None:
        """The estimate of ``measure`` under ``condition`` at ``turn`` (None: not computed)."""
        return next((e.estimate for e in self.estimates if (e.measure, e.condition, e.turn)
                     == (measure, condition, turn)), None)

    def to_rows(self) -> list[dict[str, Any]]:
        """One flat dict per estimate (for CSV and ``stats.json``)."""
        return [{"model": self.model, "feedback": self.feedback, "grade": self.grade,
                 "measure": e.measure, "condition": e.condition, "turn": e.turn,
                 "tasks": len(self.tasks), "mean": e.estimate.mean, "low": e.estimate.low,
                 "high": e.estimate.high, "level": e.estimate.level, "n_boot": self.n_boot,
                 "seed": self.seed} for e in self.estimates]


@dataclass(frozen=True)
class NamesEffect:
    """DiD at the last turn of an arm with the ``names`` feedback level minus that of an arm
    without it, same model, grade and renamed condition, paired over their common tasks."""

    model: str
    grade: str
    renamed: str
    with_names: str
    without_names: str
    turn_with: int
    turn_without: int
    n_tasks: int
    did_with: Estimate
    did_without: Estimate
    difference: Estimate
    n_boot: int
    seed: int
    notes: tuple[str, ...] = ()


def arms(frame: pd.DataFrame) -> list[tuple[str, str]]:
    """The (model, feedback) arms of a by-turn frame; one-shot before feedback arms."""
    require_rows(frame)
    pairs = {(str(m), str(f)) for m, f in zip(frame["model"], frame["feedback"], strict=True)}
    return sorted(pairs, key=lambda p: (p[0], p[1] != "", p[1]))


def arm_rates(frame: pd.DataFrame, grade: str, model: str, feedback: str
              ) -> tuple[dict[tuple[str, int], pd.Series], int, list[str], list[str]]:
    """Per-task pass rates (fractions) of one arm: ``{(condition, turn): rates by task}``, the
    arm's last turn K, its conditions, and notes. Tasks lacking a condition are left out."""
    if grade not in (*GRADES, BEHAVIOR_UPPER):
        raise StatsError(f"unknown grade {grade!r} (one of {', '.join(GRADES)}, "
                         f"{BEHAVIOR_UPPER})")
    require_rows(frame)
    part = frame[(frame["model"] == model) & (frame["feedback"] == feedback)]
    if part.empty:
        raise StatsError(f"no records for model {model!r} with feedback {feedback!r}")
    if grade.startswith("behavior"):
        covered = covered_tasks(frame)
        part = part[part["task"].isin(covered)]
        if part.empty:
            raise StatsError("no task of this arm is covered by the behavior grade")
    last = int(part["turns_max"].max())
    part = part[part["turn"] <= last]
    rates = part.groupby(["task", "condition", "turn"], sort=True)[f"{grade}_pass"].mean()
    wide = rates.unstack(["condition", "turn"])
    complete = wide.dropna()
    notes = []
    if len(complete) < len(wide):
        notes.append(f"{len(wide) - len(complete)} task(s) lack a condition and are left out")
    conditions = condition_order(part["condition"])
    return ({(c, k): complete[(c, k)].astype("float64") for c in conditions
             for k in range(1, last + 1)}, last, conditions, notes)


def arm_turns(frame: pd.DataFrame, grade: str, model: str, feedback: str, *,
              n_boot: int = N_BOOT, seed: int = BOOTSTRAP_SEED, level: float = LEVEL
              ) -> ArmTurns:
    """Pass rate per condition and turn, gap and DiD per renamed condition and turn, for one
    arm and grade, with intervals from one shared set of task resamples.

    Raises :class:`StatsError` when the arm has fewer than two tasks graded under every one of
    its conditions.
    """
    rates, last, conditions, notes = arm_rates(frame, grade, model, feedback)
    tasks = tuple(str(t) for t in next(iter(rates.values())).index)
    if len(tasks) < 2:
        raise StatsError(f"{model}{f' (feedback {feedback})' if feedback else ''}, {grade}: "
                         f"by-turn statistics need at least two tasks graded under every "
                         f"condition, got {len(tasks)}")
    renamed = [c for c in conditions if c != ORIGINAL] if ORIGINAL in conditions else []
    if not renamed:
        notes.append(f"no gap: the arm needs {ORIGINAL!r} and a renamed condition")
    keys: list[tuple[str, str, int]] = []
    columns: list[FloatArray] = []
    for cond in conditions:
        for k in range(1, last + 1):
            keys.append((PASS, cond, k))
            columns.append(100.0 * rates[(cond, k)].to_numpy(dtype=np.float64))
    for cond in renamed:
        gaps = {k: 100.0 * (rates[(ORIGINAL, k)] - rates[(cond, k)]).to_numpy(dtype=np.float64)
                for k in range(1, last + 1)}
        for k in range(1, last + 1):
            keys.append((GAP, cond, k))
            columns.append(gaps[k])
        for k in range(2, last + 1):
            keys.append((DID, cond, k))
            columns.append(gaps[k] - gaps[1])
    found = _estimates(np.column_stack(columns), n_boot=n_boot, seed=seed, level=level)
    estimates = tuple(TurnEstimate(measure, cond, k, e)
                      for (measure, cond, k), e in zip(keys, found, strict=True))
    return ArmTurns(model, feedback, grade, last, tuple(conditions), tasks, estimates, n_boot,
                    seed, tuple(notes))


def _estimates(values: FloatArray, *, n_boot: int, seed: int, level: float) -> list[Estimate]:
    """Mean and percentile interval of each column of tasks × statistics. Every column is
    resampled with the same seed, so all draw the same task resamples (as one 2-D
    :func:`bootstrap_means` call would) with the memory of one column."""
    out = []
    for column in values.T:
        means = bootstrap_means(column, n_boot=n_boot, seed=seed)
        out.append(Estimate(float(column.mean()), *percentile_interval(means, column, level),
                            level))
    return out


def task_dids(frame: pd.DataFrame, grade: str, model: str, feedback: str, renamed: str
              ) -> tuple[pd.Series, int]:
    """Per task, DiD at the arm's last turn K (points), and K."""
    rates, last, conditions, _ = arm_rates(frame, grade, model, feedback)
    if last < 2:
        raise StatsError(f"{model} (feedback {feedback}) records one turn only: no DiD")
    for cond in (ORIGINAL, renamed):
        if cond not in conditions:
            raise StatsError(f"{model} (feedback {feedback}) has no {cond!r} condition")
    gap_last = rates[(ORIGINAL, last)] - rates[(renamed, last)]
    gap_first = rates[(ORIGINAL, 1)] - rates[(renamed, 1)]
    return 100.0 * (gap_last - gap_first), last


def names_effects(frame: pd.DataFrame, grade: str, model: str, *, n_boot: int = N_BOOT,
                  seed: int = BOOTSTRAP_SEED, level: float = LEVEL
                  ) -> tuple[list[NamesEffect], list[str]]:
    """For each pair of ``model``'s multi-turn arms, one with the ``names`` level and one
    without, and each renamed condition: the DiD difference (with − without) and notes.

    Tasks enter when both arms grade them under both conditions; pairs with fewer than two
    such tasks become notes.
    """
    feedbacks = [f for m, f in arms(frame) if m == model and f]
    with_names = [f for f in feedbacks if NAMES in f.split(",")]
    without = [f for f in feedbacks if NAMES not in f.split(",")]
    effects: list[NamesEffect] = []
    notes: list[str] = []
    renamed = [c for c in condition_order(frame.loc[frame["model"] == model, "condition"])
               if c != ORIGINAL]
    for a in with_names:
        for b in without:
            for cond in renamed:
                try:
                    effects.append(_names_effect(frame, grade, model, a, b, cond, n_boot=n_boot,
                                                 seed=seed, level=level))
                except StatsError as exc:
                    notes.append(f"{model}, {grade}, {a} vs {b}, {ORIGINAL} − {cond}: {exc}")
    return effects, notes


def _names_effect(frame: pd.DataFrame, grade: str, model: str, a: str, b: str, renamed: str,
                  *, n_boot: int, seed: int, level: float) -> NamesEffect:
    (did_a, turn_a), (did_b, turn_b) = (task_dids(frame, grade, model, f, renamed)
                                        for f in (a, b))
    common = sorted(set(did_a.index) & set(did_b.index))
    if len(common) < 2:
        raise StatsError(f"a paired comparison of the arms needs at least two common tasks, "
                         f"got {len(common)}")
    x = did_a.loc[common].to_numpy(dtype=np.float64)
    y = did_b.loc[common].to_numpy(dtype=np.float64)
    with_, without, diff = _estimates(np.column_stack([x, y, x - y]), n_boot=n_boot, seed=seed,
                                      level=level)
    notes = []
    if set(a.split(",")) - {NAMES} != set(b.split(",")) - {NAMES, "none"}:
        notes.append(f"the arms differ in more than the {NAMES!r} level ({a} vs {b})")
    if turn_a != turn_b:
        notes.append(f"the arms have different last turns ({turn_a} vs {turn_b})")
    return NamesEffect(model, grade, renamed, a, b, turn_a, turn_b, len(common), with_, without,
                       diff, n_boot, seed, tuple(notes))


def names_row(effect: NamesEffect) -> dict[str, Any]:
    """A flat dict of a :class:`NamesEffect` (for CSV and ``stats.json``)."""
    out: dict[str, Any] = {k: getattr(effect, k) for k in (
        "model", "grade", "renamed", "with_names", "without_names", "turn_with",
        "turn_without", "n_tasks")}
    for key in ("did_with", "did_without", "difference"):
        estimate: Estimate = getattr(effect, key)
        out.update({key: estimate.mean, f"{key}_low": estimate.low,
                    f"{key}_high": estimate.high})
    return {**out, "n_boot": effect.n_boot, "seed": effect.seed}


def pass_at_turns(frame: pd.DataFrame, grades: tuple[str, ...] = ("name", "behavior")
                  ) -> Mapping[tuple[str, str], dict[str, tuple[float, float, int]]]:
    """Per arm and grade: (share of cases passing at turn 1, at the arm's last turn K, K), in
    percent over all cases (no task averaging; for a one-line summary)."""
    out: dict[tuple[str, str], dict[str, tuple[float, float, int]]] = {}
    for model, feedback in arms(frame):
        part = frame[(frame["model"] == model) & (frame["feedback"] == feedback)]
        last = int(part["turns_max"].max())
        first, final = part[part["turn"] == 1], part[part["turn"] == last]
        out[(model, feedback)] = {
            g: (100.0 * float(first[f"{g}_pass"].mean()), 100.0 * float(final[f"{g}_pass"].mean()),
                last) for g in grades}
    return out
