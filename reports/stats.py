"""Statistics over case records.

Units: per-task pass rates are fractions (0–1); tables, differences and intervals are percent
and percentage points. Every interval comes from resampling **tasks** (the samples of one task
are correlated) with a seeded generator whose seed is part of the result, so the same records
and seed give the same numbers. Behavior statistics use only the tasks the behavior grade covers
(:func:`reports.records.covered_tasks`); their rate has a lower and an upper bound, the cases
whose behavior verdict decides nothing counted as failures or as passes (:mod:`reports.bounds`).
Infrastructure failures stay in every denominator as non-passes. Input a statistic cannot be
computed from raises :class:`StatsError` with the reason; results that are computable but
degenerate carry ``notes``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from typing import Any, Literal

import numpy as np
import numpy.typing as npt
import pandas as pd
from scipy.stats import binomtest

from reports.records import (
    StatsError,
    condition_order,
    covered_tasks,
    hidden_tasks,
    published_tasks,
    require_rows,
    select_model,
    unknown_coverage_tasks,
)
from reports.schema import GRADES, Grade

__all__ = [
    "BOOTSTRAP_SEED", "BOUNDS", "LEVEL", "Bound", "MARGIN", "N_BOOT", "Estimate", "HiddenSplit",
    "PairedDifference", "StatsError", "bootstrap_means", "condition_table",
    "difference_table", "grade_disagreements", "infra_counts", "paired_difference",
    "pass_at_k", "pass_at_k_rates", "pass_rates", "percentile_interval", "split_by_hidden",
    "split_by_published", "TaskSplit", "upper_bound",
]

N_BOOT = 10_000
BOOTSTRAP_SEED = 2026
LEVEL = 0.95
MARGIN = 5.0
_CHUNK = 2_000_000  # resampled values drawn per step; depends on nothing but the task count
FloatArray = npt.NDArray[np.float64]
Bound = Literal["lower", "upper"]
"""How a behavior rate counts the cases whose verdict decides nothing (``no_mapping``,
``undecided``): as failures (``lower``, the rate every table has always shown) or as passes
(``upper``). The other grades decide every case, so their bounds coincide."""
BOUNDS: tuple[Bound, ...] = ("lower", "upper")


@dataclass(frozen=True)
class Estimate:
    """A mean over tasks (percentage points) and its bootstrap percentile interval."""

    mean: float
    low: float
    high: float
    level: float


@dataclass(frozen=True)
class PairedDifference:
    """``cond_a`` minus ``cond_b`` over the tasks graded under both, for one model and grade.

    ``mean_a``/``mean_b`` are mean per-task pass rates (percent); ``mean`` their difference
    (points) with the ``level`` bootstrap interval ``ci_low``–``ci_high``. Sign test: ``wins``
    tasks where a > b, ``losses`` where a < b, two-sided ``sign_p`` over wins + losses (1.0 when
    no task differs). TOST: ``equivalent`` iff the ``tost_level`` interval (= 2·level − 1, 90%
    by default) lies strictly inside ±``margin`` points.
    """

    model: str
    grade: str
    cond_a: str
    cond_b: str
    n_tasks: int
    mean_a: float
    mean_b: float
    mean: float
    ci_low: float
    ci_high: float
    level: float
    wins: int
    losses: int
    ties: int
    sign_p: float
    margin: float
    tost_level: float
    tost_low: float
    tost_high: float
    equivalent: bool
    n_boot: int
    seed: int
    notes: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """A JSON-able dict of every field."""
        return {**asdict(self), "notes": list(self.notes)}


@dataclass(frozen=True)
class HiddenSplit:
    """Paired differences on tasks with hidden required names and on tasks with none.

    A side is ``None`` when it has fewer than two tasks (the reason is in ``notes``).
    """

    hidden: PairedDifference | None
    stated: PairedDifference | None
    n_hidden_tasks: int
    n_stated_tasks: int
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class TaskSplit:
    """Paired differences on named groups of tasks (``sides``: label, difference or ``None``
    when the group has fewer than two tasks, and its task count), in a fixed order."""

    sides: tuple[tuple[str, PairedDifference | None, int], ...]
    notes: tuple[str, ...] = ()


# -- bootstrap --------------------------------------------------------------------------------

def bootstrap_means(values: npt.ArrayLike, *, n_boot: int = N_BOOT,
                    seed: int = BOOTSTRAP_SEED) -> FloatArray:
    """Means of ``n_boot`` resamples (with replacement) of the rows of ``values``.

    ``values`` is one value per task (1-D) or tasks × statistics (2-D; every statistic is
    resampled with the same tasks). Returns shape ``(n_boot,)`` or ``(n_boot, statistics)``.
    """
    data = np.asarray(values, dtype=np.float64)
    if data.ndim not in (1, 2) or data.shape[0] == 0:
        raise StatsError(f"bootstrap needs one or more tasks in a 1-D or 2-D array, "
                         f"got shape {data.shape}")
    if not np.isfinite(data).all():
        raise StatsError("bootstrap input contains NaN or infinite values")
    if n_boot < 1:
        raise StatsError(f"n_boot must be at least 1, got {n_boot}")
    n = data.shape[0]
    rng = np.random.default_rng(seed)
    out = np.empty((n_boot, *data.shape[1:]), dtype=np.float64)
    step = max(1, _CHUNK // n)
    for start in range(0, n_boot, step):
        stop = min(n_boot, start + step)
        rows = rng.integers(0, n, size=(stop - start, n))
        out[start:stop] = data[rows].mean(axis=1)
    return out


def percentile_interval(means: npt.ArrayLike, values: npt.ArrayLike, level: float
                        ) -> tuple[float, float]:
    """The ``level`` percentile interval of bootstrap ``means`` of 1-D ``values``.

    Clipped to [min(values), max(values)], where every resampled mean lies anyway; this only
    removes rounding, so a constant difference gives an interval exactly at that constant.
    """
    _check_level(level)
    boot = np.asarray(means, dtype=np.float64)
    data = np.asarray(values, dtype=np.float64)
    tail = (1.0 - level) / 2.0
    low, high = np.quantile(boot, [tail, 1.0 - tail])
    lo, hi = float(data.min()), float(data.max())
    return min(max(float(low), lo), hi), min(max(float(high), lo), hi)


def _check_level(level: float) -> None:
    if not 0.0 < level < 1.0:
        raise StatsError(f"a confidence level must lie strictly between 0 and 1, got {level}")


# -- pass rates -------------------------------------------------------------------------------

def pass_rates(frame: pd.DataFrame, grade: Grade, bound: Bound = "lower") -> pd.DataFrame:
    """Per (model, task, condition): ``samples``, ``passes``, ``infra``, ``undecided`` and
    ``rate``.

    ``rate`` = passes / samples estimates pass@1; infrastructure failures count as samples that
    did not pass. For ``behavior`` only covered tasks appear; ``undecided`` counts the samples
    whose verdict decides nothing, which ``bound="upper"`` counts among the passes (0 for the
    other grades, whose bounds coincide).
    """
    if grade not in GRADES:
        raise StatsError(f"unknown grade {grade!r} (one of {', '.join(GRADES)})")
    if bound not in BOUNDS:
        raise StatsError(f"unknown bound {bound!r} (one of {', '.join(BOUNDS)})")
    behavior = grade == "behavior"
    undecided = frame["behavior_undecided"] if behavior else pd.Series(False, index=frame.index)
    passed = frame[f"{grade}_pass"] | (undecided if bound == "upper" else False)
    return _task_rates(frame.assign(_pass=passed, _undecided=undecided), "_pass",
                       covered_only=behavior)


def _task_rates(frame: pd.DataFrame, column: str, *, covered_only: bool) -> pd.DataFrame:
    require_rows(frame)
    if covered_only:
        covered = covered_tasks(frame)
        if not covered:
            raise StatsError("no task is covered by the behavior grade, so there are no "
                             "behavior statistics")
        frame = frame[frame["task"].isin(covered)]
    grouped = frame.groupby(["model", "task", "condition"], sort=True)
    extra = {"undecided": ("_undecided", "sum")} if "_undecided" in frame else {}
    rates = grouped.agg(samples=("sample", "size"), passes=(column, "sum"),
                        infra=("infra", "sum"), **extra).reset_index()
    for count in ("passes", "infra", *extra):
        rates[count] = rates[count].astype("int64")
    rates["rate"] = rates["passes"] / rates["samples"]
    return rates


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased pass@k from ``n`` samples of which ``c`` passed: 1 − C(n−c, k) / C(n, k).

    Computed as a product (Chen et al., 2021) so large ``n`` does not overflow.
    """
    if not 1 <= k <= n or not 0 <= c <= n:
        raise StatsError(f"pass@k needs 1 <= k <= n and 0 <= c <= n, got n={n}, c={c}, k={k}")
    if n - c < k:
        return 1.0
    return 1.0 - math.prod(1.0 - k / i for i in range(n - c + 1, n + 1))


def pass_at_k_rates(frame: pd.DataFrame, grade: Grade, k: int, bound: Bound = "lower"
                    ) -> pd.DataFrame:
    """:func:`pass_rates` with a ``pass_at_k`` column; every group needs at least k samples."""
    rates = pass_rates(frame, grade, bound)
    short = rates[rates["samples"] < k]
    if not short.empty:
        first = short.iloc[0]
        raise StatsError(f"pass@{k} needs {k} samples per task, but {len(short)} group(s) have "
                         f"fewer (e.g. {first['model']}/{first['task']}/{first['condition']}: "
                         f"{first['samples']})")
    rates["pass_at_k"] = [pass_at_k(int(n), int(c), k)
                          for n, c in zip(rates["samples"], rates["passes"], strict=True)]
    return rates


def infra_counts(frame: pd.DataFrame) -> pd.DataFrame:
    """Per model and condition: ``cases``, ``infra`` failures and their ``infra_share`` (%)."""
    require_rows(frame)
    counts = frame.groupby(["model", "condition"], sort=True).agg(
        cases=("sample", "size"), infra=("infra", "sum")).reset_index()
    counts["infra"] = counts["infra"].astype("int64")
    counts["infra_share"] = 100.0 * counts["infra"] / counts["cases"]
    return counts


# -- tables -----------------------------------------------------------------------------------

def condition_table(frame: pd.DataFrame) -> pd.DataFrame:
    """Table 1: mean over tasks of per-task pass rates (percent), per model and grade.

    Rows are (model, grade) for grades parse, name, behavior; columns the conditions present
    (``Original``, ``Random``, ``Meaningful``, then others) and ``tasks``, the number of tasks
    averaged. Each row averages the tasks graded under every condition of that model
    (behavior: covered tasks only), so the columns compare the same tasks. A cell is NaN only
    when a model has no records for that condition; that, and tasks left out, are listed in
    ``table.attrs["notes"]``. A grade without any task to average is left out, with a note.
    """
    require_rows(frame)
    conditions = condition_order(frame["condition"])
    cells: dict[tuple[str, str], dict[str, float]] = {}
    notes: list[str] = []
    for grade in GRADES:
        try:
            rates = pass_rates(frame, grade)
        except StatsError as exc:
            notes.append(f"{grade}: {exc}")
            continue
        cells.update(_condition_means(rates, conditions, grade, notes))
    notes.extend(_coverage_notes(frame))
    if not cells:
        raise StatsError("no grade has a task to average: " + "; ".join(notes))
    return _table(cells, conditions, ["model", "grade"], notes)


def upper_bound(frame: pd.DataFrame) -> pd.DataFrame:
    """Upper bound of behavior correctness: a case counts when it passes behavior *or* name.

    Every name-only pass is counted as correct. Shaped like :func:`condition_table` with one
    row per model, over covered tasks graded under every condition of that model.
    """
    require_rows(frame)
    either = frame.assign(upper_pass=frame["name_pass"] | frame["behavior_pass"])
    rates = _task_rates(either, "upper_pass", covered_only=True)
    conditions = condition_order(frame["condition"])
    notes = _coverage_notes(frame)
    cells = _condition_means(rates, conditions, "upper", notes)
    table = _table(cells, conditions, ["model", "grade"], notes)
    table.index = table.index.droplevel("grade")
    return table


def _condition_means(rates: pd.DataFrame, conditions: list[str], grade: str,
                     notes: list[str]) -> dict[tuple[str, str], dict[str, float]]:
    cells: dict[tuple[str, str], dict[str, float]] = {}
    for model, part in rates.groupby("model", sort=True):
        wide = part.pivot(index="task", columns="condition", values="rate")
        complete = wide.dropna()
        if len(complete) < len(wide):
            notes.append(f"{model}, {grade}: {len(wide) - len(complete)} task(s) lack a "
                         f"condition and are left out")
        if complete.empty:
            notes.append(f"{model}, {grade}: no task is graded under every condition")
            continue
        row = {c: 100.0 * float(complete[c].mean()) for c in conditions if c in wide.columns}
        for c in conditions:
            if c not in wide.columns:
                notes.append(f"{model}, {grade}: no records for condition {c!r}")
        cells[(str(model), grade)] = {**row, "tasks": float(len(complete))}
    return cells


def _table(cells: dict[tuple[str, str], dict[str, float]], conditions: list[str],
           names: list[str], notes: list[str]) -> pd.DataFrame:
    keys = sorted(cells, key=lambda key: (key[0], _grade_rank(key[1])))
    index = pd.MultiIndex.from_tuples(keys, names=names)
    table = pd.DataFrame([[cells[key].get(c, math.nan) for c in conditions] for key in keys],
                         index=index, columns=[c.capitalize() for c in conditions])
    table["tasks"] = [int(cells[key]["tasks"]) for key in keys]
    table.attrs["notes"] = list(notes)
    return table


def _coverage_notes(frame: pd.DataFrame) -> list[str]:
    unknown = unknown_coverage_tasks(frame)
    if not unknown:
        return []
    shown = ", ".join(unknown[:5]) + (", ..." if len(unknown) > 5 else "")
    return [f"behavior: {len(unknown)} task(s) without coverage information (no record says "
            f"whether the behavior grade covers them) are left out: {shown}"]


def _grade_rank(grade: str) -> int:
    return GRADES.index(grade) if grade in GRADES else len(GRADES)


# -- paired differences -----------------------------------------------------------------------

def paired_difference(frame: pd.DataFrame, grade: Grade, cond_a: str = "original",
                      cond_b: str = "random", *, model: str | None = None,
                      n_boot: int = N_BOOT, seed: int = BOOTSTRAP_SEED, level: float = LEVEL,
                      margin: float = MARGIN, bound: Bound = "lower") -> PairedDifference:
    """Mean over tasks of (rate under ``cond_a`` − rate under ``cond_b``), in points.

    Only tasks graded under both conditions count (behavior: covered tasks). ``model`` may be
    omitted when the frame holds one model. The interval resamples tasks ``n_boot`` times with
    ``seed`` (so both ``bound``s of one comparison resample the same tasks). Raises
    :class:`StatsError` for a missing condition or fewer than two tasks.
    """
    _check_level(level)
    if margin <= 0:
        raise StatsError(f"the equivalence margin must be positive, got {margin}")
    if cond_a == cond_b:
        raise StatsError(f"compare two different conditions, got {cond_a!r} twice")
    name = select_model(frame, model)
    rates = pass_rates(frame, grade, bound)
    wide = rates[rates["model"] == name].pivot(index="task", columns="condition",
                                               values="rate")
    for cond in (cond_a, cond_b):
        if cond not in wide.columns:
            present = ", ".join(condition_order(wide.columns)) or "none"
            raise StatsError(f"model {name}: no {grade} rates under condition {cond!r} "
                             f"(present: {present})")
    pair = wide[[cond_a, cond_b]].dropna()
    notes = _coverage_notes(frame) if grade == "behavior" else []
    if len(pair) < len(wide):
        notes.append(f"{len(wide) - len(pair)} task(s) graded under only one of the two "
                     f"conditions are left out")
    if len(pair) < 2:
        raise StatsError(f"model {name}, {grade}: a paired difference needs at least two tasks "
                         f"graded under both {cond_a!r} and {cond_b!r}, got {len(pair)}")
    a = pair[cond_a].to_numpy(dtype=np.float64)
    b = pair[cond_b].to_numpy(dtype=np.float64)
    diff = 100.0 * (a - b)
    wins, losses = int((a > b).sum()), int((a < b).sum())
    if wins + losses == 0:
        notes.append("no task differs between the conditions: sign test p = 1")
        sign_p = 1.0
    else:
        sign_p = float(binomtest(wins, wins + losses, 0.5, alternative="two-sided").pvalue)
    means = bootstrap_means(diff, n_boot=n_boot, seed=seed)
    low, high = percentile_interval(means, diff, level)
    tost_level = round(2.0 * level - 1.0, 12)
    tost_low, tost_high = percentile_interval(means, diff, tost_level)
    return PairedDifference(
        model=name, grade=grade, cond_a=cond_a, cond_b=cond_b, n_tasks=len(pair),
        mean_a=100.0 * float(a.mean()), mean_b=100.0 * float(b.mean()),
        mean=float(diff.mean()), ci_low=low, ci_high=high, level=level, wins=wins,
        losses=losses, ties=len(pair) - wins - losses, sign_p=sign_p, margin=margin,
        tost_level=tost_level, tost_low=tost_low, tost_high=tost_high,
        equivalent=-margin < tost_low and tost_high < margin, n_boot=n_boot, seed=seed,
        notes=tuple(notes))


def difference_table(differences: Iterable[PairedDifference]) -> pd.DataFrame:
    """One row per paired difference (every field but ``notes``), for rendering."""
    rows = [{k: v for k, v in d.to_dict().items() if k != "notes"} for d in differences]
    if not rows:
        raise StatsError("no paired differences to tabulate")
    return pd.DataFrame(rows)


def _split(frame: pd.DataFrame, groups: Sequence[tuple[str, pd.Series]], grade: Grade,
           cond_a: str, cond_b: str, *, model: str | None, n_boot: int, seed: int,
           level: float, margin: float, bound: Bound = "lower") -> TaskSplit:
    """:func:`paired_difference` on each group of rows (label, row mask)."""
    name = select_model(frame, model)
    sides: list[tuple[str, PairedDifference | None, int]] = []
    notes: list[str] = []
    for label, mask in groups:
        part = frame[mask]
        count = int(part.loc[part["model"] == name, "task"].nunique())
        try:
            difference: PairedDifference | None = paired_difference(
                part, grade, cond_a, cond_b, model=name, n_boot=n_boot, seed=seed,
                level=level, margin=margin, bound=bound)
        except StatsError as exc:
            difference = None
            notes.append(f"{label} tasks: {exc}")
        sides.append((label, difference, count))
    return TaskSplit(tuple(sides), tuple(notes))


def split_by_hidden(frame: pd.DataFrame, grade: Grade, cond_a: str = "original",
                    cond_b: str = "random", *, model: str | None = None,
                    n_boot: int = N_BOOT, seed: int = BOOTSTRAP_SEED, level: float = LEVEL,
                    margin: float = MARGIN, bound: Bound = "lower") -> HiddenSplit:
    """:func:`paired_difference` on tasks with hidden required names and on the others."""
    hidden = frame["task"].isin(set(hidden_tasks(frame)))
    split = _split(frame, (("hidden-name", hidden), ("stated-name", ~hidden)), grade, cond_a,
                   cond_b, model=model, n_boot=n_boot, seed=seed, level=level, margin=margin,
                   bound=bound)
    (_, on_hidden, n_hidden), (_, on_stated, n_stated) = split.sides
    return HiddenSplit(hidden=on_hidden, stated=on_stated, n_hidden_tasks=n_hidden,
                       n_stated_tasks=n_stated, notes=split.notes)


def split_by_published(frame: pd.DataFrame, grade: Grade, cond_a: str = "original",
                       cond_b: str = "random", *, model: str | None = None,
                       n_boot: int = N_BOOT, seed: int = BOOTSTRAP_SEED, level: float = LEVEL,
                       margin: float = MARGIN, bound: Bound = "lower") -> TaskSplit:
    """:func:`paired_difference` on tasks whose reference was published and on tasks whose
    reference never was (sides ``published``, ``never published``); tasks whose records do
    not say are left out, with a note."""
    public, private = published_tasks(frame)
    split = _split(frame, (("published", frame["task"].isin(set(public))),
                           ("never published", frame["task"].isin(set(private)))),
                   grade, cond_a, cond_b, model=model, n_boot=n_boot, seed=seed, level=level,
                   margin=margin, bound=bound)
    unknown = set(frame["task"]) - set(public) - set(private)
    if unknown:
        return TaskSplit(split.sides, (*split.notes, f"{len(unknown)} task(s) whose records "
                                       f"do not say whether the reference was published "
                                       f"are left out"))
    return split


# -- grades disagreeing -----------------------------------------------------------------------

def grade_disagreements(frame: pd.DataFrame) -> pd.DataFrame:
    """Cases where the name and behavior grades disagree, counted by cause.

    Over covered tasks and cases without an infrastructure failure. Columns: ``model``,
    ``condition``, ``kind`` (``name_only``: passes the name grade, fails behavior;
    ``behavior_only``: the reverse), ``cause`` (the failing grade's verdict; a name failure
    caused only by names the description never stated reads ``config_bind_fail (hidden
    name)``), ``count``, and ``cases`` (covered cases of that model and condition). No rows
    means the grades always agree.
    """
    require_rows(frame)
    covered = covered_tasks(frame)
    if not covered:
        raise StatsError("no task is covered by the behavior grade, so the grades cannot be "
                         "compared")
    part = frame[frame["task"].isin(covered) & ~frame["infra"]]
    cases = part.groupby(["model", "condition"]).size()
    name_only = part[part["name_pass"] & ~part["behavior_pass"]]
    behavior_only = part[part["behavior_pass"] & ~part["name_pass"]]
    counts: dict[tuple[str, str, str, str], int] = {}
    for kind, rows, column in (("name_only", name_only, "behavior_verdict"),
                               ("behavior_only", behavior_only, "name_verdict")):
        for model, cond, verdict, hidden in zip(rows["model"], rows["condition"], rows[column],
                                                rows["missing_hidden"], strict=True):
            cause = verdict if isinstance(verdict, str) else "absent"
            if kind == "behavior_only" and hidden:
                cause += " (hidden name)"
            key = (str(model), str(cond), kind, cause)
            counts[key] = counts.get(key, 0) + 1
    order = {c: i for i, c in enumerate(condition_order(frame["condition"]))}
    keys = sorted(counts, key=lambda k: (k[0], order[k[1]], k[2] != "name_only",
                                         -counts[k], k[3]))
    return pd.DataFrame({
        "model": pd.Series([k[0] for k in keys], dtype="object"),
        "condition": pd.Series([k[1] for k in keys], dtype="object"),
        "kind": pd.Series([k[2] for k in keys], dtype="object"),
        "cause": pd.Series([k[3] for k in keys], dtype="object"),
        "count": pd.Series([counts[k] for k in keys], dtype="int64"),
        "cases": pd.Series([int(cases[(k[0], k[1])]) for k in keys], dtype="int64"),
    })
