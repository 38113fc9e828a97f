"""Statistics of the likelihood probe (rows of ``kind: "likelihood"``, see alias_fixtures.probes.likelihood).

Values are mean token log-probabilities in nats per token; differences are in nats per token,
``original − renamed``, so a positive difference means the model finds the original text more
likely. ``measure`` is ``mean_logprob`` (all reference tokens) or ``mean_outside`` (reference
tokens outside renamed identifiers). Intervals resample **tasks** with a seeded generator
(:func:`reports.stats.bootstrap_means`), as for pass rates. The exposure effect, DiD and
unseen cost come from :func:`reports.exposure.seen_unseen`, the implementation pass rates use.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from reports.exposure import check_halves, seen_unseen
from reports.exposure import exposure_estimates as exposure_estimates  # re-exported
from reports.records import StatsError, condition_order
from reports.schema import PROBE_ROW_SCHEMA_VERSION as SCHEMA_VERSION
from reports.stats import BOOTSTRAP_SEED, LEVEL, N_BOOT, Estimate, bootstrap_means, percentile_interval

KIND = "likelihood"
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

def exposure_effects(rows: Sequence[Row], model_a: str, model_b: str,
                     split: tuple[Sequence[str], Sequence[str]], *, measure: str = "mean_logprob",
                     original: str = "original", renamed: str = "random", n_boot: int = N_BOOT,
                     seed: int = BOOTSTRAP_SEED, level: float = LEVEL,
                     split_seed: int | None = None) -> LikelihoodExposure:
    """Exposure statistics: ``model_a`` was trained on half ``split[0]``, ``model_b`` on ``split[1]``.

    A task enters when both models scored it under both conditions. Raises
    :class:`StatsError` when the halves overlap, a model has no rows or fewer than two tasks
    remain. The estimates are :func:`reports.exposure.seen_unseen`'s, as for pass rates.
    """
    check_halves(split)
    if model_a == model_b:
        raise StatsError(f"the two halves need two different models, got {model_a!r} twice")
    for name in (model_a, model_b):
        _select_model(rows, name)
    values = {(m, c): task_values(rows, m, c, measure)
              for m in (model_a, model_b) for c in (original, renamed)}
    x = seen_unseen(values, model_a, model_b, split, original=original, renamed=renamed,
                    n_boot=n_boot, seed=seed, level=level)
    return LikelihoodExposure(
        measure=measure, model_a=model_a, model_b=model_b, original=original, renamed=renamed,
        n_tasks=len(x.tasks), n_tasks_a=x.n_tasks_a, n_tasks_b=x.n_tasks_b,
        original_seen=x.original_seen, original_unseen=x.original_unseen,
        renamed_seen=x.renamed_seen, renamed_unseen=x.renamed_unseen, exposure=x.exposure,
        did=x.did, unseen_cost=x.unseen_cost, n_boot=n_boot, seed=seed, split_seed=split_seed,
        notes=x.notes)


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
