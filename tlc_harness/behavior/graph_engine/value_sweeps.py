"""The graph engine's grade under every value of the free constants of one constant map."""

from __future__ import annotations

from dataclasses import replace

from tlc_harness.behavior.graph_engine.constant_maps import ConstantPlan
from tlc_harness.behavior.graph_engine.grade_base import GradeBase
from tlc_harness.behavior.graphs import StateGraph
from tlc_harness.behavior.policy import StepAside
from tlc_harness.behavior.staging import (
    Staged,
)
from tlc_harness.behavior.verdicts import (
    FAILURES,
    BehaviorResult,
    BehaviorVerdict,
    Reason,
)


class ValueSweeps(GradeBase):
    """The grade under every value of a constant map's free constants."""

    def under_every_value(self, staged: Staged, plan: ConstantPlan,
                          group: tuple[dict[str, str], ...], ref_graph: StateGraph
                          ) -> BehaviorResult | StepAside:
        """The grade under one constant map, whichever values its BOOLEAN constants and its
        guessed numbers take (each is tried): `ok` under one of them (see
        `passed_under_every_value`); a failure only when every value the output's ASSUMEs
        allow fails. Only a BOOLEAN's values and the numbers standing for a reference model
        value (the translation pairs each with that value) are every value there is
        (`failed_under_every_value`); a failure under the few numbers tried for a free number
        is recorded with their source `values_tried`, and `run` makes it `no_mapping`.
        When the values disagree, the grade is `no_mapping`."""
        results: list[BehaviorResult] = []
        for n, const_map in enumerate(group):
            if n:
                self.retried("values_swept")
            if len(group) > 1:
                self.start_ahead(staged, plan.values, group[n:], ref_graph)
            graded = self.under(staged, plan, plan.values, const_map, ref_graph)
            if isinstance(graded, StepAside):
                return graded
            graded = with_sources(graded, plan, const_map)
            if len(group) == 1:
                return graded
            if graded.passed:
                return self.passed_under_every_value(staged, plan, group, n, graded, results,
                                                     ref_graph)
            results.append(graded)
        varying = swept_names(group)
        tried = "; ".join(f"{g} in {{{', '.join(dict.fromkeys(m[g] for m in group))}}}"
                          for g in varying)
        failed = [r for r in results if r.verdict in FAILURES]
        rejected = [r for r in results if r.details.get("assume_rejected")]
        forward = [r for r in results if r.verdict == BehaviorVerdict.FORWARD_FAIL]
        if failed and len(failed) + len(rejected) == len(results):
            shown = (forward or failed)[0]
            # a BOOLEAN's two values, or a number standing for a reference model value, are
            # every value there is; a few numbers tried for a free number are not
            every = exhaustive(plan, group)
            shown_map = group[results.index(shown)]
            return replace(shown, reason=f"under every value of {', '.join(varying)} "
                           f"({tried}: {len(failed)} tried, {len(rejected)} rejected by the "
                           f"output's ASSUME): {shown.reason}",
                           details={**shown.details, "failed_under_every_value": every,
                                    "constants": plan.sources(shown_map, every, tried=[
                                        g for g in varying if g not in every])},
                           **self.totals())
        best = max(results, key=progress_of)
        if best.verdict in FAILURES:  # another value gave no mapping: nothing is decided
            return replace(best, verdict=BehaviorVerdict.NO_MAPPING, code=Reason.VALUES_DISAGREE, reason=(
                f"{best.verdict} under some values of {', '.join(varying)} ({tried}), no "
                f"mapping under others: {best.reason}"), **self.totals())
        return replace(best, **self.totals())

    def passed_under_every_value(self, staged: Staged, plan: ConstantPlan,
                                 group: tuple[dict[str, str], ...], n: int,
                                 graded: BehaviorResult, before: list[BehaviorResult],
                                 ref_graph: StateGraph) -> BehaviorResult | StepAside:
        """An `ok` under the `n`-th value of the group's free constants stands only when every
        value the output's ASSUME admits passes (the output is then right whichever value a
        user gives it); an `ok` under some values only was found by trying, and says nothing:
        `undecided` (`value_by_trying`)."""
        varying = swept_names(group)
        if plan.plays_roles(group[n]):
            # BOOLEAN values of the reference constants whose roles they play: they stand,
            # and only the other constants' values must pass whichever they are
            same = [m for m in group if all(m[b] == group[n][b] for b in plan.booleans)]
            varying = [g for g in varying if g not in plan.booleans]
            if not varying:
                return graded  # its sources say so (`boolean_role`)
        else:
            same = list(group)
        before = [r for m, r in zip(group[:n], before, strict=True) if m in same]
        other = next((r for r in before if not r.details.get("assume_rejected")), None)
        rest = [m for m in group[n + 1:] if m in same] if other is None else []
        for k, const_map in enumerate(rest):
            self.retried("values_swept")
            self.start_ahead(staged, plan.values, rest[k:], ref_graph)
            more = self.under(staged, plan, plan.values, const_map, ref_graph)
            if isinstance(more, StepAside):
                return more
            if not more.passed and not more.details.get("assume_rejected"):
                other = more
                break
        tried = "; ".join(f"{g} in {{{', '.join(dict.fromkeys(m[g] for m in same))}}}"
                          for g in varying)
        if other is None:
            every = [g for g in varying if g in exhaustive(plan, group)]
            return replace(graded, reason=f"{graded.reason}, under every value of "
                           f"{', '.join(varying)} ({tried})",
                           details={**graded.details, "constants": plan.sources(
                               group[n], every, tried=[g for g in varying if g not in every])},
                           **self.totals())
        return replace(graded, verdict=BehaviorVerdict.UNDECIDED, code=Reason.VALUE_BY_TRYING,
                       reason=f"the output refines the reference under some values of "
                       f"{', '.join(varying)} only ({tried}; another gives {other.verdict}): "
                       f"neither the task nor the reference gives the value, so the pass was "
                       f"found by trying ({graded.reason})", **self.totals())


def with_sources(graded: BehaviorResult, plan: ConstantPlan, const_map: dict[str, str]
                  ) -> BehaviorResult:
    """The grade with its constants' values and their sources (`ConstantPlan.sources`; none
    recorded as none: a decided verdict without the fact is not decided)."""
    return replace(graded, details={**graded.details, "constants": plan.sources(const_map)})


def exhaustive(plan: ConstantPlan, group: tuple[dict[str, str], ...]) -> list[str]:
    """The swept constants whose values in the group are all their values: BOOLEANs, numbers
    standing for a reference model value (the translation pairs each with it), and numbers
    whose own ASSUME bounds them to a small set, every number of which was swept."""
    return [g for g in swept_names(group) if g in plan.standing or g in plan.enumerated
            or group[0][g] in ("TRUE", "FALSE")]


def swept_names(group: tuple[dict[str, str], ...]) -> list[str]:
    """The output constants whose values the maps of a group sweep."""
    return [g for g in group[0] if len({m[g] for m in group}) > 1]


def progress_of(result: BehaviorResult) -> int:
    """How far a grade got: a failure > no mapping found > values rejected by an ASSUME."""
    if result.verdict in FAILURES:
        return 2
    return 0 if result.details.get("assume_rejected") else 1


def further(graded: BehaviorResult, first: BehaviorResult) -> bool:
    """Whether `graded` replaces `first` as the grade to report: the first failure stays;
    among the rest the one that got further (an ASSUME's rejection says least)."""
    if first.verdict != BehaviorVerdict.NO_MAPPING:
        return False
    return graded.verdict != BehaviorVerdict.NO_MAPPING or progress_of(graded) > progress_of(first)
