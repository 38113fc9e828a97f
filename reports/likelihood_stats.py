"""Statistics of the likelihood probe (rows of ``kind: "likelihood"``, see alias_fixtures.likelihood).

Values are mean token log-probabilities in nats per token; differences are in nats per token,
``original − renamed``, so a positive difference means the model finds the original text more
likely. ``measure`` is ``mean_logprob`` (all reference tokens) or ``mean_outside`` (reference
tokens outside renamed identifiers). Intervals resample **tasks** with a seeded generator
(:func:`reports.stats.bootstrap_means`), as for pass rates. The exposure estimates follow
``reports.exposure`` (DESIGN.md §9), per task t:

- exposure effect  = original(seen) − original(unseen)
- DiD              = [original − renamed](seen) − [original − renamed](unseen)
- unseen cost      = original(unseen) − renamed(unseen)
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from reports.records import StatsError, condition_order
from reports.stats import BOOTSTRAP_SEED, LEVEL, N_BOOT, Estimate, bootstrap_means, percentile_interval

KIND = "likelihood"
SCHEMA_VERSION = 1
MEASURES = ("mean_logprob", "mean_outside")
Row = Mapping[str, Any]


@dataclass(frozen=True)
class ConditionMean:
    """Mean of ``measure`` over the tasks scored under one condition by one model."""

    model: str
    condition: str
    measure: str
    mean: float
    n_tasks: int


@dataclass(frozen=True)
class LikelihoodDifference:
    """``cond_a`` − ``cond_b`` over tasks scored under both, with its bootstrap interval."""

    model: str
    measure: str
    cond_a: str
    cond_b: str
    n_tasks: int
    mean_a: float
    mean_b: float
    mean: float
    ci_low: float
    ci_high: float
    level: float
    n_boot: int
    seed: int
    notes: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """A JSON-able dict of every field."""
        return {**asdict(self), "notes": list(self.notes)}


@dataclass(frozen=True)
class LikelihoodExposure:
    """Exposure effect, DiD and unseen cost (nats/token) for the models trained on A and B."""

    measure: str
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


# -- rows -----------------------------------------------------------------------------------

def read_likelihood_rows(path: str | Path) -> list[dict[str, Any]]:
    """The ``kind: "likelihood"`` rows of a JSONL file (other kinds are skipped)."""
    rows: list[dict[str, Any]] = []
    for number, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise StatsError(f"{path}:{number}: not JSON: {exc}") from exc
        if isinstance(row, dict) and row.get("kind") == KIND:
            if row.get("schema_version") != SCHEMA_VERSION:
                raise StatsError(f"{path}:{number}: unknown likelihood schema_version "
                                 f"{row.get('schema_version')!r}")
            rows.append(row)
    return rows


def task_values(rows: Iterable[Row], model: str, condition: str, measure: str = "mean_logprob"
                ) -> dict[str, float]:
    """Task -> value of ``measure`` for one model and condition (rows without a value skipped).

    Raises :class:`StatsError` for an unknown measure or a task scored twice.
    """
    _check_measure(measure)
    out: dict[str, float] = {}
    for row in rows:
        if row.get("model") != model or row.get("condition") != condition:
            continue
        task = str(row["task"])
        if task in out:
            raise StatsError(f"model {model}, {condition}: task {task!r} is scored twice")
        value = row.get(measure)
        if isinstance(value, int | float) and np.isfinite(value):
            out[task] = float(value)
    return out


def models_of(rows: Iterable[Row]) -> list[str]:
    return sorted({str(r["model"]) for r in rows})


def condition_means(rows: Sequence[Row], measure: str = "mean_logprob") -> list[ConditionMean]:
    """Per model and condition, the mean of ``measure`` over the tasks that have a value."""
    out: list[ConditionMean] = []
    for model in models_of(rows):
        conditions = condition_order(str(r["condition"]) for r in rows if r["model"] == model)
        for condition in conditions:
            values = task_values(rows, model, condition, measure)
            if values:
                out.append(ConditionMean(model, condition, measure,
                                         float(np.mean(list(values.values()))), len(values)))
    return out


def _check_measure(measure: str) -> None:
    if measure not in MEASURES:
        raise StatsError(f"unknown measure {measure!r} (one of {', '.join(MEASURES)})")


# -- paired difference ----------------------------------------------------------------------

def interval(values: npt.ArrayLike, *, n_boot: int = N_BOOT, seed: int = BOOTSTRAP_SEED,
             level: float = LEVEL) -> Estimate:
    """Mean of per-task ``values`` with the percentile interval of its task bootstrap."""
    data = np.asarray(values, dtype=np.float64)
    means = bootstrap_means(data, n_boot=n_boot, seed=seed)
    low, high = percentile_interval(means, data, level)
    return Estimate(float(data.mean()), low, high, level)


def paired_difference(rows: Sequence[Row], model: str | None = None, cond_a: str = "original",
                      cond_b: str = "random", *, measure: str = "mean_logprob",
                      n_boot: int = N_BOOT, seed: int = BOOTSTRAP_SEED, level: float = LEVEL
                      ) -> LikelihoodDifference:
    """Mean over tasks of ``measure`` under ``cond_a`` minus under ``cond_b``, with a CI.

    ``model`` may be omitted when the rows hold one model. Raises :class:`StatsError` when
    fewer than two tasks have values under both conditions.
    """
    name = _select_model(rows, model)
    a = task_values(rows, name, cond_a, measure)
    b = task_values(rows, name, cond_b, measure)
    tasks = sorted(set(a) & set(b))
    notes = []
    if len(tasks) < len(set(a) | set(b)):
        notes.append(f"{len(set(a) | set(b)) - len(tasks)} task(s) scored under only one of the "
                     f"two conditions are left out")
    if len(tasks) < 2:
        raise StatsError(f"model {name}, {measure}: a paired difference needs at least two "
                         f"tasks scored under both {cond_a!r} and {cond_b!r}, got {len(tasks)}")
    va = np.array([a[t] for t in tasks])
    vb = np.array([b[t] for t in tasks])
    est = interval(va - vb, n_boot=n_boot, seed=seed, level=level)
    return LikelihoodDifference(
        model=name, measure=measure, cond_a=cond_a, cond_b=cond_b, n_tasks=len(tasks),
        mean_a=float(va.mean()), mean_b=float(vb.mean()), mean=est.mean, ci_low=est.low,
        ci_high=est.high, level=level, n_boot=n_boot, seed=seed, notes=tuple(notes))


def _select_model(rows: Sequence[Row], model: str | None) -> str:
    models = models_of(rows)
    if not models:
        raise StatsError("no likelihood rows")
    if model is None:
        if len(models) != 1:
            raise StatsError(f"the rows hold {len(models)} models ({', '.join(models)}); name one")
        return models[0]
    if model not in models:
        raise StatsError(f"no likelihood rows for model {model!r} (present: {', '.join(models)})")
    return model


# -- exposure -------------------------------------------------------------------------------

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
               for j in range(3))
    return e, d, u


def exposure_effects(rows: Sequence[Row], model_a: str, model_b: str,
                     split: tuple[Sequence[str], Sequence[str]], *, measure: str = "mean_logprob",
                     original: str = "original", renamed: str = "random", n_boot: int = N_BOOT,
                     seed: int = BOOTSTRAP_SEED, level: float = LEVEL,
                     split_seed: int | None = None) -> LikelihoodExposure:
    """Exposure statistics: ``model_a`` was trained on half ``split[0]``, ``model_b`` on ``split[1]``.

    A task enters when both models scored it under both conditions. Raises
    :class:`StatsError` when the halves overlap, a model has no rows or fewer than two tasks
    remain.
    """
    half_a, half_b = set(split[0]), set(split[1])
    if half_a & half_b:
        raise StatsError(f"the halves share {len(half_a & half_b)} task(s), e.g. "
                         f"{sorted(half_a & half_b)[0]!r}")
    if model_a == model_b:
        raise StatsError(f"the two halves need two different models, got {model_a!r} twice")
    for name in (model_a, model_b):
        _select_model(rows, name)
    values = {(m, c): task_values(rows, m, c, measure)
              for m in (model_a, model_b) for c in (original, renamed)}
    scored = set.intersection(*(set(v) for v in values.values()))
    tasks = sorted(t for t in half_a | half_b if t in scored)
    notes = []
    if len(tasks) < len(half_a | half_b):
        notes.append(f"{len(half_a | half_b) - len(tasks)} task(s) of the split lack values under "
                     f"both conditions for both models and are left out")
    outside = scored - half_a - half_b
    if outside:
        notes.append(f"{len(outside)} scored task(s) belong to neither half and are left out")
    if len(tasks) < 2:
        raise StatsError(f"exposure statistics need at least two tasks scored by both models "
                         f"under {original!r} and {renamed!r}, got {len(tasks)}")
    seen = [model_a if t in half_a else model_b for t in tasks]
    unseen = [model_b if t in half_a else model_a for t in tasks]
    o_s = np.array([values[(m, original)][t] for m, t in zip(seen, tasks, strict=True)])
    r_s = np.array([values[(m, renamed)][t] for m, t in zip(seen, tasks, strict=True)])
    o_u = np.array([values[(m, original)][t] for m, t in zip(unseen, tasks, strict=True)])
    r_u = np.array([values[(m, renamed)][t] for m, t in zip(unseen, tasks, strict=True)])
    exposure, did, unseen_cost = exposure_estimates(o_s, r_s, o_u, r_u, n_boot=n_boot,
                                                    seed=seed, level=level)
    return LikelihoodExposure(
        measure=measure, model_a=model_a, model_b=model_b, original=original, renamed=renamed,
        n_tasks=len(tasks), n_tasks_a=sum(t in half_a for t in tasks),
        n_tasks_b=sum(t in half_b for t in tasks), original_seen=float(o_s.mean()),
        original_unseen=float(o_u.mean()), renamed_seen=float(r_s.mean()),
        renamed_unseen=float(r_u.mean()), exposure=exposure, did=did, unseen_cost=unseen_cost,
        n_boot=n_boot, seed=seed, split_seed=split_seed, notes=tuple(notes))


# -- Markdown -------------------------------------------------------------------------------

def _ci(low: float, high: float) -> str:
    return f"{low:+.3f} to {high:+.3f}"


def markdown_tables(means: Sequence[ConditionMean] = (),
                    differences: Sequence[LikelihoodDifference] = (),
                    exposures: Mapping[str, LikelihoodExposure] | None = None) -> str:
    """Markdown tables: condition means, paired differences, and exposure (labelled rows)."""
    parts: list[str] = []
    if means:
        lines = ["| model | measure | condition | mean log-prob (nats/token) | tasks |",
                 "|---|---|---|---:|---:|"]
        lines += [f"| {m.model} | {m.measure} | {m.condition} | {m.mean:.4f} | {m.n_tasks} |"
                  for m in means]
        parts.append("\n".join(lines))
    if differences:
        lines = ["| model | measure | difference | mean (nats/token) | CI | tasks | seed |",
                 "|---|---|---|---:|---|---:|---:|"]
        lines += [f"| {d.model} | {d.measure} | {d.cond_a} − {d.cond_b} | {d.mean:+.4f} | "
                  f"{100 * d.level:.0f}%: {_ci(d.ci_low, d.ci_high)} | {d.n_tasks} | {d.seed} |"
                  for d in differences]
        parts.append("\n".join(lines))
    if exposures:
        lines = ["| label | measure | models (A / B) | exposure effect | DiD | unseen cost | "
                 "tasks | seed |", "|---|---|---|---|---|---|---:|---:|"]
        for label, x in exposures.items():
            cells = [f"{e.mean:+.4f} ({_ci(e.low, e.high)})"
                     for e in (x.exposure, x.did, x.unseen_cost)]
            lines.append(f"| {label} | {x.measure} | {x.model_a} / {x.model_b} | "
                         f"{' | '.join(cells)} | {x.n_tasks} | {x.seed} |")
        parts.append("\n".join(lines))
    if not parts:
        raise StatsError("nothing to tabulate")
    return "\n\n".join(parts) + "\n"
