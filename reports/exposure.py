"""The exposure experiment: seen/unseen halves, exposure effect, DiD, unseen cost.

Tasks are split at random into halves A and B. One model is trained on A, one on B, so every
task is *seen* by one model and *unseen* by the other. Per task t (rates in points):

- exposure effect  = original(seen) − original(unseen)
- DiD              = [original − renamed](seen) − [original − renamed](unseen)
- unseen cost      = original(unseen) − renamed(unseen)

Each is averaged over tasks, with a bootstrap interval from resampling tasks (the three share
the same resamples). :func:`seen_unseen` is the one implementation, for any per-task measure:
pass rates here (:func:`exposure_stats`), the likelihood probe's log-probabilities in
``reports.likelihood_stats``.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from reports.records import StatsError, condition_order, require_rows
from reports.schema import Grade
from reports.stats import (
    BOOTSTRAP_SEED,
    LEVEL,
    N_BOOT,
    Bound,
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


@dataclass(frozen=True)
class SeenUnseen:
    """The seen/unseen comparison of one measure: per-condition means and the three estimates.

    The unit is the caller's (points for pass rates, nats per token for the likelihood).
    """

    tasks: tuple[str, ...]
    n_tasks_a: int
    n_tasks_b: int
    original_seen: float
    original_unseen: float
    renamed_seen: float
    renamed_unseen: float
    exposure: Estimate
    did: Estimate
    unseen_cost: Estimate
    notes: tuple[str, ...] = ()


def exposure_estimates(original_seen: npt.ArrayLike, renamed_seen: npt.ArrayLike,
                       original_unseen: npt.ArrayLike, renamed_unseen: npt.ArrayLike, *,
                       n_boot: int = N_BOOT, seed: int = BOOTSTRAP_SEED, level: float = LEVEL
                       ) -> tuple[Estimate, Estimate, Estimate]:
    """(exposure effect, DiD, unseen cost) from per-task values; one shared set of resamples."""
    o_s, r_s, o_u, r_u = (np.asarray(v, dtype=np.float64)
                          for v in (original_seen, renamed_seen, original_unseen, renamed_unseen))
    values = np.column_stack([o_s - o_u, (o_s - r_s) - (o_u - r_u), o_u - r_u])
    means = bootstrap_means(values, n_boot=n_boot, seed=seed)
    e, d, u = (Estimate(float(values[:, j].mean()),
                        *percentile_interval(means[:, j], values[:, j], level), level)
               for j in range(len(_MEASURES)))
    return e, d, u


def check_halves(split: tuple[Sequence[str], Sequence[str]]) -> tuple[set[str], set[str]]:
    """The halves as sets; :class:`StatsError` when they share a task."""
    half_a, half_b = set(split[0]), set(split[1])
    if half_a & half_b:
        raise StatsError(f"the halves share {len(half_a & half_b)} task(s), e.g. "
                         f"{sorted(half_a & half_b)[0]!r}")
    return half_a, half_b


def seen_unseen(values: Mapping[tuple[str, str], Mapping[str, float]], model_a: str,
                model_b: str, split: tuple[Sequence[str], Sequence[str]], *,
                original: str = "original", renamed: str = "random", what: str = "values",
                n_boot: int = N_BOOT, seed: int = BOOTSTRAP_SEED, level: float = LEVEL
                ) -> SeenUnseen:
    """Exposure effect, DiD and unseen cost of any per-task measure: the one implementation.

    ``values[(model, condition)]`` maps task -> value; ``model_a`` was trained on half
    ``split[0]``, ``model_b`` on ``split[1]``. A task enters when both models have values under
    both conditions; the others are left out with a note (``what`` names the values in it).
    Raises :class:`StatsError` when the halves overlap or fewer than two tasks remain.
    """
    half_a, half_b = check_halves(split)
    tables = [values.get((m, c), {}) for m in (model_a, model_b) for c in (original, renamed)]
    present = set().union(*(set(t) for t in tables))
    complete = set.intersection(*(set(t) for t in tables))
    notes: list[str] = []
    outside = present - half_a - half_b
    if outside:
        notes.append(f"{len(outside)} task(s) in the records belong to neither half and are "
                     f"left out")
    tasks = sorted(t for t in half_a | half_b if t in complete)
    missing = len(half_a | half_b) - len(tasks)
    if missing:
        notes.append(f"{missing} task(s) of the split lack {what} under both conditions for "
                     f"both models and are left out")
    if len(tasks) < 2:
        raise StatsError(f"exposure statistics need at least two tasks with {what} for both "
                         f"models under {original!r} and {renamed!r}, got {len(tasks)}")
    seen = [model_a if t in half_a else model_b for t in tasks]
    unseen = [model_b if t in half_a else model_a for t in tasks]

    def column(models: list[str], condition: str) -> npt.NDArray[np.float64]:
        return np.array([values[(m, condition)][t] for m, t in zip(models, tasks, strict=True)],
                        dtype=np.float64)

    o_s, r_s = column(seen, original), column(seen, renamed)
    o_u, r_u = column(unseen, original), column(unseen, renamed)
    exposure, did, cost = exposure_estimates(o_s, r_s, o_u, r_u, n_boot=n_boot, seed=seed,
                                             level=level)
    return SeenUnseen(tuple(tasks), sum(t in half_a for t in tasks),
                      sum(t in half_b for t in tasks), float(o_s.mean()), float(o_u.mean()),
                      float(r_s.mean()), float(r_u.mean()), exposure, did, cost, tuple(notes))


def exposure_stats(frame_a: pd.DataFrame, frame_b: pd.DataFrame,
                   split: tuple[Sequence[str], Sequence[str]], grade: Grade, *,
                   original: str = "original", renamed: str = "random",
                   n_boot: int = N_BOOT, seed: int = BOOTSTRAP_SEED, level: float = LEVEL,
                   split_seed: int | None = None, bound: Bound = "lower") -> ExposureStats:
    """Exposure effect, DiD and unseen renaming cost of the models trained on A and on B.

    ``frame_a`` holds the records of the model trained on half ``split[0]``, ``frame_b`` those
    of the model trained on ``split[1]``; each frame holds one model. Tasks enter when both
    models have rates under both conditions (behavior: covered tasks); others are left out
    with a note. ``bound``: how behavior rates count a case whose verdict decides nothing
    (:data:`reports.stats.Bound`). Raises :class:`StatsError` when the halves overlap or fewer
    than two tasks remain.
    """
    check_halves(split)
    model_a, model_b = _only_model(frame_a, "frame_a"), _only_model(frame_b, "frame_b")
    values: dict[tuple[str, str], dict[str, float]] = {}
    for model, frame in ((model_a, frame_a), (model_b, frame_b)):
        wide = _conditions(frame, grade, original, renamed, model, bound)
        for cond in (original, renamed):
            values[(model, cond)] = {str(t): 100.0 * float(v) for t, v in wide[cond].items()}
    result = seen_unseen(values, model_a, model_b, split, original=original, renamed=renamed,
                         what="rates", n_boot=n_boot, seed=seed, level=level)
    return ExposureStats(
        grade=grade, model_a=model_a, model_b=model_b, original=original, renamed=renamed,
        n_tasks=len(result.tasks), n_tasks_a=result.n_tasks_a, n_tasks_b=result.n_tasks_b,
        original_seen=result.original_seen, original_unseen=result.original_unseen,
        renamed_seen=result.renamed_seen, renamed_unseen=result.renamed_unseen,
        exposure=result.exposure, did=result.did, unseen_cost=result.unseen_cost,
        n_boot=n_boot, seed=seed, split_seed=split_seed, notes=result.notes)


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
                model: str, bound: Bound = "lower") -> pd.DataFrame:
    """Per task, the rates under ``original`` and ``renamed`` (tasks lacking one dropped)."""
    wide = pass_rates(frame, grade, bound).pivot(index="task", columns="condition", values="rate")
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
