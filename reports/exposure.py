"""The exposure experiment (DESIGN.md §9): seen/unseen halves, exposure effect, DiD, unseen cost.

Tasks are split at random into halves A and B. One model is trained on A, one on B, so every
task is *seen* by one model and *unseen* by the other. Per task t (rates in points):

- exposure effect  = original(seen) − original(unseen)
- DiD              = [original − renamed](seen) − [original − renamed](unseen)
- unseen cost      = original(unseen) − renamed(unseen)

Each is averaged over tasks, with a bootstrap interval from resampling tasks (the three share
the same resamples).
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import pandas as pd

from reports.records import Grade, StatsError, condition_order, require_rows
from reports.stats import (
    BOOTSTRAP_SEED,
    LEVEL,
    N_BOOT,
    Estimate,
    bootstrap_means,
    pass_rates,
    percentile_interval,
)

EXPOSURE_SEED = 20260926
_MEASURES = ("exposure", "did", "unseen_cost")


@dataclass(frozen=True)
class ExposureStats:
    """Table 2 for one pair of models: means (percent) and the three estimates (points).

    ``n_tasks_a``/``n_tasks_b``: tasks of halves A and B that entered the estimates.
    ``split_seed`` is recorded when the caller passes it.
    """

    grade: str
    model_a: str
    model_b: str
    original: str
    renamed: str
    n_tasks: int
    n_tasks_a: int
    n_tasks_b: int
    original_seen: float
    original_unseen: float
    renamed_seen: float
    renamed_unseen: float
    exposure: Estimate
    did: Estimate
    unseen_cost: Estimate
    n_boot: int
    seed: int
    split_seed: int | None = None
    notes: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """A JSON-able dict of every field."""
        return {**asdict(self), "notes": list(self.notes)}


def exposure_split(task_ids: Iterable[str], seed: int = EXPOSURE_SEED
                   ) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Halves (A, B) of the distinct task ids, deterministic for a seed.

    The distinct ids are sorted, shuffled with ``random.Random(seed).shuffle``; A is the first
    ⌊n/2⌋ of the shuffled list and B the rest (111 tasks: A 55, B 56). Each half is returned
    sorted. The result depends only on the set of ids and the seed, not on their order.
    """
    ids = sorted(set(task_ids))
    if len(ids) < 2:
        raise StatsError(f"an exposure split needs at least two tasks, got {len(ids)}")
    random.Random(seed).shuffle(ids)
    half = len(ids) // 2
    return tuple(sorted(ids[:half])), tuple(sorted(ids[half:]))


def exposure_stats(frame_a: pd.DataFrame, frame_b: pd.DataFrame,
                   split: tuple[Sequence[str], Sequence[str]], grade: Grade, *,
                   original: str = "original", renamed: str = "random",
                   n_boot: int = N_BOOT, seed: int = BOOTSTRAP_SEED, level: float = LEVEL,
                   split_seed: int | None = None) -> ExposureStats:
    """Exposure effect, DiD and unseen renaming cost of the models trained on A and on B.

    ``frame_a`` holds the records of the model trained on half ``split[0]``, ``frame_b`` those
    of the model trained on ``split[1]``; each frame holds one model. Tasks enter when both
    models have rates under both conditions (behavior: covered tasks); others are left out
    with a note. Raises :class:`StatsError` when the halves overlap or fewer than two tasks
    remain.
    """
    half_a, half_b = set(split[0]), set(split[1])
    if half_a & half_b:
        raise StatsError(f"the halves share {len(half_a & half_b)} task(s), e.g. "
                         f"{sorted(half_a & half_b)[0]!r}")
    model_a, model_b = _only_model(frame_a, "frame_a"), _only_model(frame_b, "frame_b")
    wide_a = _conditions(frame_a, grade, original, renamed, model_a)
    wide_b = _conditions(frame_b, grade, original, renamed, model_b)
    notes: list[str] = []
    outside = (set(wide_a.index) | set(wide_b.index)) - half_a - half_b
    if outside:
        notes.append(f"{len(outside)} task(s) in the records belong to neither half and are "
                     f"left out")
    tasks = sorted(t for t in half_a | half_b if t in wide_a.index and t in wide_b.index)
    missing = len(half_a | half_b) - len(tasks)
    if missing:
        notes.append(f"{missing} task(s) of the split lack rates under both conditions for "
                     f"both models and are left out")
    if len(tasks) < 2:
        raise StatsError(f"exposure statistics need at least two tasks with rates for both "
                         f"models under {original!r} and {renamed!r}, got {len(tasks)}")
    # rates[t] = (original seen, renamed seen, original unseen, renamed unseen), fractions
    rows = []
    for task in tasks:
        seen, unseen = (wide_a, wide_b) if task in half_a else (wide_b, wide_a)
        rows.append([*seen.loc[task], *unseen.loc[task]])
    rates = np.array(rows, dtype=np.float64)
    o_s, r_s, o_u, r_u = (100.0 * rates[:, j] for j in range(4))
    values = np.column_stack([o_s - o_u, (o_s - r_s) - (o_u - r_u), o_u - r_u])
    means = bootstrap_means(values, n_boot=n_boot, seed=seed)
    estimates = [Estimate(float(values[:, j].mean()),
                          *percentile_interval(means[:, j], values[:, j], level), level)
                 for j in range(len(_MEASURES))]
    return ExposureStats(
        grade=grade, model_a=model_a, model_b=model_b, original=original, renamed=renamed,
        n_tasks=len(tasks), n_tasks_a=sum(t in half_a for t in tasks),
        n_tasks_b=sum(t in half_b for t in tasks), original_seen=float(o_s.mean()),
        original_unseen=float(o_u.mean()), renamed_seen=float(r_s.mean()),
        renamed_unseen=float(r_u.mean()), exposure=estimates[0], did=estimates[1],
        unseen_cost=estimates[2], n_boot=n_boot, seed=seed, split_seed=split_seed,
        notes=tuple(notes))


def exposure_table(results: Mapping[str, ExposureStats]) -> pd.DataFrame:
    """Table 2: one row per label (e.g. a model family) with the estimates and intervals."""
    if not results:
        raise StatsError("no exposure results to tabulate")
    rows = []
    for label, stats in results.items():
        row: dict[str, Any] = {"label": label, "grade": stats.grade, "tasks": stats.n_tasks}
        for measure in _MEASURES:
            estimate: Estimate = getattr(stats, measure)
            row.update({measure: estimate.mean, f"{measure}_low": estimate.low,
                        f"{measure}_high": estimate.high})
        row["seed"] = stats.seed
        rows.append(row)
    return pd.DataFrame(rows).set_index("label")


def _conditions(frame: pd.DataFrame, grade: Grade, original: str, renamed: str,
                model: str) -> pd.DataFrame:
    """Per task, the rates under ``original`` and ``renamed`` (tasks lacking one dropped)."""
    wide = pass_rates(frame, grade).pivot(index="task", columns="condition", values="rate")
    for cond in (original, renamed):
        if cond not in wide.columns:
            present = ", ".join(condition_order(wide.columns)) or "none"
            raise StatsError(f"model {model}: no {grade} rates under condition {cond!r} "
                             f"(present: {present})")
    return wide[[original, renamed]].dropna()


def _only_model(frame: pd.DataFrame, label: str) -> str:
    require_rows(frame)
    models = sorted(str(m) for m in frame["model"].unique())
    if len(models) != 1:
        raise StatsError(f"{label} must hold one model's records, it holds {len(models)} "
                         f"({', '.join(models)})")
    return models[0]
