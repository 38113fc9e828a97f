"""Bounds of the behavior grade's rates, and the share of cases it decided.

A behavior verdict is *decided* (``ok``, ``forward_fail``, ``reverse_fail``, or a failure before
the grader ran: no parse, an infrastructure failure, a cheat) or decides nothing (``no_mapping``,
``undecided``: :data:`reports.records.UNDECIDED_VERDICTS`). The *lower* bound of a rate counts
the cases deciding nothing as failures (the rate the tables always showed), the *upper* bound as
passes; the *decided share* is the share of graded cases that were decided. All three are means
over the same tasks of per-task shares (covered tasks only: ``not_covered`` cases are in no
behavior rate), so per model and condition ``upper − lower = 100 − decided share`` exactly.
Paired differences are computed under both bounds with the same seed, so both resample the same
tasks; a difference whose sign differs between the bounds is flagged (:attr:`BoundedDifference.
sign_differs`): what the grader left undecided could turn it either way.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import pandas as pd

from reports.records import StatsError, condition_order, require_rows, select_model
from reports.stats import (
    BOOTSTRAP_SEED,
    LEVEL,
    MARGIN,
    N_BOOT,
    PairedDifference,
    paired_difference,
    pass_rates,
)

MEASURES = ("lower", "upper", "decided_share")
"""The rows of :func:`behavior_bounds` per model."""
_UPPER_FIELDS = ("mean_a", "mean_b", "mean", "ci_low", "ci_high", "wins", "losses", "ties",
                 "sign_p", "tost_low", "tost_high", "equivalent")


def behavior_bounds(frame: pd.DataFrame) -> pd.DataFrame:
    """Per model: the behavior rate's ``lower`` and ``upper`` bound and the ``decided_share``,
    each in percent under every condition, over the covered tasks graded under every condition
    of that model (the tasks of Table 1's behavior row, whose value is the lower bound).

    Indexed by (model, measure); columns the conditions as :func:`reports.stats.condition_table`
    names them, then ``tasks``. Raises :class:`StatsError` when no task is covered.
    """
    require_rows(frame)
    rates = pass_rates(frame, "behavior")
    rates["upper"] = (rates["passes"] + rates["undecided"]) / rates["samples"]
    rates["decided_share"] = 1.0 - rates["undecided"] / rates["samples"]
    rates = rates.rename(columns={"rate": "lower"})
    conditions = condition_order(frame["condition"])
    rows: dict[tuple[str, str], list[float]] = {}
    for model, part in rates.groupby("model", sort=True):
        complete = {m: part.pivot(index="task", columns="condition", values=m).dropna()
                    for m in MEASURES}
        if complete["lower"].empty:
            continue
        for measure, wide in complete.items():
            rows[(str(model), measure)] = [
                100.0 * float(wide[c].mean()) if c in wide.columns else math.nan
                for c in conditions] + [float(len(wide))]
    if not rows:
        raise StatsError("no model has a covered task graded under every condition")
    table = pd.DataFrame(list(rows.values()),
                         index=pd.MultiIndex.from_tuples(list(rows), names=["model", "measure"]),
                         columns=[*(c.capitalize() for c in conditions), "tasks"])
    table["tasks"] = table["tasks"].astype("int64")
    return table


@dataclass(frozen=True)
class BoundedDifference:
    """A behavior paired difference under both bounds, and the decided share of each condition
    (percent, mean over the same tasks)."""

    lower: PairedDifference
    upper: PairedDifference
    decided_a: float
    decided_b: float

    @property
    def all_decided(self) -> bool:
        """Every case of both conditions was decided, so the bounds coincide."""
        return self.decided_a >= 100.0 and self.decided_b >= 100.0

    @property
    def sign_differs(self) -> bool:
        """The mean difference is positive, zero or negative under one bound and not under the
        other (rounded to 1e-9 points, so summation noise never flips a zero)."""
        return direction(self.lower.mean) != direction(self.upper.mean)

    def to_dict(self) -> dict[str, Any]:
        """The lower bound's fields (as :meth:`PairedDifference.to_dict`, without ``notes``)
        and ``upper_*`` for the upper bound's, ``decided_share_a``/``_b`` and
        ``sign_differs``."""
        lower = {k: v for k, v in self.lower.to_dict().items() if k != "notes"}
        return {**lower, **{f"upper_{k}": getattr(self.upper, k) for k in _UPPER_FIELDS},
                "decided_share_a": self.decided_a, "decided_share_b": self.decided_b,
                "sign_differs": self.sign_differs}


def direction(value: float) -> int:
    """1, 0 or −1: the sign of a difference in points, rounded to 1e-9 first."""
    rounded = round(value, 9)
    return (rounded > 0) - (rounded < 0)


def bounded_difference(frame: pd.DataFrame, cond_a: str = "original", cond_b: str = "random",
                       *, model: str | None = None, n_boot: int = N_BOOT,
                       seed: int = BOOTSTRAP_SEED, level: float = LEVEL,
                       margin: float = MARGIN) -> BoundedDifference:
    """:func:`reports.stats.paired_difference` of the behavior grade under both bounds (same
    tasks, same seed) with the decided share of each condition over those tasks."""
    kwargs: dict[str, Any] = {"model": model, "n_boot": n_boot, "seed": seed, "level": level,
                              "margin": margin}
    lower = paired_difference(frame, "behavior", cond_a, cond_b, bound="lower", **kwargs)
    upper = paired_difference(frame, "behavior", cond_a, cond_b, bound="upper", **kwargs)
    rates = pass_rates(frame, "behavior")
    mine = rates[rates["model"] == select_model(frame, model)]
    shares = (1.0 - mine["undecided"] / mine["samples"]).rename("share")
    wide = mine.assign(share=shares).pivot(index="task", columns="condition",
                                           values="share")[[cond_a, cond_b]].dropna()
    return BoundedDifference(lower, upper, 100.0 * float(wide[cond_a].mean()),
                             100.0 * float(wide[cond_b].mean()))
