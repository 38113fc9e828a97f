"""What follows the graph engine's mapping search: bounded sets, the witness's replay, the
output's liveness in reverse, and whether a failure holds for every mapping that could work."""

from __future__ import annotations

from dataclasses import replace

from tlc_harness.behavior.graph_engine import any_mapping, transfer
from tlc_harness.behavior.graph_engine.bounds import Bounds, bounds_for
from tlc_harness.behavior.graph_engine.completeness import named_class
from tlc_harness.behavior.graph_engine.constant_maps import ConstantPlan
from tlc_harness.behavior.graph_engine.describe import (
    counterexample_details,
    describe,
    trace,
)
from tlc_harness.behavior.graph_engine.grade_base import GradeBase
from tlc_harness.behavior.graph_engine.named_model import named_model
from tlc_harness.behavior.graph_engine.output_graph import (
    OutputModel,
)
from tlc_harness.behavior.graph_engine.renamings import renaming_class
from tlc_harness.behavior.graph_engine.replay import replay
from tlc_harness.behavior.graph_engine.search_state import Inferred
from tlc_harness.behavior.graphs import StateGraph
from tlc_harness.behavior.policy import StepAside
from tlc_harness.behavior.reverse_liveness import (
    LivenessStatus,
    check_reverse_liveness,
    checked_as_itself,
    temporal_output,
    the_reference_itself,
)
from tlc_harness.behavior.search import Candidate
from tlc_harness.behavior.staging import (
    CfgValues,
    Staged,
)
from tlc_harness.behavior.verdicts import (
    FAILURES,
    BehaviorResult,
    BehaviorVerdict,
    Reason,
    limit_reason,
)
from tlc_harness.source.monotone import bound_adds_behaviors
from tlc_harness.tools.spec import SpecSource

NAMED_MEMBER = "a member of the named class"


class LateChecks(GradeBase):
    """What follows the mapping search: bounded sets, replay, reverse liveness, the class."""

    def bounded(self, staged: Staged, plan: ConstantPlan, values: CfgValues,
                const_map: dict[str, str], ref_graph: StateGraph, model: OutputModel,
                sets: frozenset[str]) -> BehaviorResult | StepAside:
        """The grade of an output whose run TLC stops while enumerating an infinite set: under
        bounds for those `sets`, or undecided where they cannot be bounded."""
        bounds = None
        if not (self.job.ref.cfg.constraints or self.job.ref.cfg.action_constraints):
            carried = {name for name, _ in model.cfg.overrides}
            bounds = bounds_for(sets, ref_graph, [t for _, t in model.cfg.constants], carried)
        if bounds is None:
            return self.result(BehaviorVerdict.UNDECIDED, f"the output's run stops at an evaluation "
                               f"error and its specification reads {', '.join(sorted(sets))}, "
                               f"which TLC cannot enumerate and the grade cannot bound here",
                               Reason.INFINITE_SET)
        roots = tuple(r for r in (staged.out_init, staged.out_next) if r)
        widens = bound_adds_behaviors(staged.out_files, roots, sets)
        if widens:  # a bounded graph may then hold behaviors the output does not have
            return self.result(BehaviorVerdict.UNDECIDED, f"the output's run stops at an evaluation "
                               f"error and its specification reads {', '.join(sorted(sets))}, "
                               f"which a bound would not only restrict: {widens}",
                               Reason.INFINITE_SET)
        self.retried("bounded_sets")
        return self.under(staged, plan, values, const_map, ref_graph, bounds=bounds)

    def under_bounds(self, bounds: Bounds, inferred: Inferred, staged: Staged,
                     model: OutputModel, out_graph: StateGraph, ref_graph: StateGraph
                     ) -> BehaviorResult:
        """Under bounds only a forward failure that is a behavior of G decides: a step or
        state outside R (a deadlock may be the bound's, as may an `ok` or a reverse failure)."""
        witness = inferred.counterexample
        if inferred.verdict is BehaviorVerdict.FORWARD_FAIL and witness is not None and \
                witness.out_path and not witness.stuck:
            failed = self.with_class(self.result(
                inferred.verdict, f"{inferred.reason}, with {bounds.describe()}",
                Reason.GRAPH_FORWARD, trace=trace(inferred, out_graph, ref_graph),
                details=counterexample_details(inferred, out_graph, ref_graph)),
                out_graph, ref_graph, forward_only=True)
            return self.replayed(failed, inferred, staged, model, out_graph)
        return self.result(BehaviorVerdict.UNDECIDED, f"with {bounds.describe()}, the graphs find "
                           f"{inferred.verdict} ({inferred.reason}), which the bound may cause",
                           Reason.INFINITE_SET)

    def replayed(self, failed: BehaviorResult, inferred: Inferred, staged: Staged,
                 model: OutputModel, out_graph: StateGraph) -> BehaviorResult:
        """A forward failure with its witness replayed by TLC on the output alone, under the
        same values (`witness_replayed` in the record: True, or None where TLC could not
        tell); a witness TLC cannot follow is no behavior of the output: `undecided`."""
        witness = inferred.counterexample
        if witness is None or not witness.out_path or staged.out_init is None or \
                staged.out_next is None:
            return failed
        with self.timed("replay"):
            done = replay(self.job.harness, SpecSource(staged.out_main, staged.out_files),
                          model.cfg, out_graph.variables,
                          [out_graph.states[g] for g in witness.out_path], staged.out_init,
                          staged.out_next, definitions=model.definitions,
                          timeout=self.job.options.timeout)
        self.runs += 1
        details = {**failed.details, "witness_replayed": done.replayed, "replay": done.detail,
                   "stage_seconds": dict(self.timings)}
        if done.replayed is False:
            return replace(failed, verdict=BehaviorVerdict.UNDECIDED,
                           code=Reason.WITNESS_NOT_REPLAYED, details=details,
                           reason=f"the graphs' witness of a forward failure is no behavior of "
                           f"the output ({done.detail}): {failed.reason}", tlc_runs=self.runs)
        return replace(failed, details=details, tlc_runs=self.runs)

    def reverse_liveness(self, staged: Staged, values: CfgValues, cand: Candidate,
                         image: list[int]) -> dict[str, str] | BehaviorResult:
        """An `ok`'s last check, for an output whose formula adds fairness or liveness (see
        `reverse_liveness`): its facts for the `ok`, or the verdict it gives instead."""
        if not temporal_output(staged):
            return {}
        if the_reference_itself(self.job.ref, staged, self.job.out_files, self.job.out_main,
                                cand):
            return checked_as_itself()
        with self.timed("reverse_liveness"):
            live = check_reverse_liveness(self.job.harness, self.job.ref, staged, cand, values,
                                          one_to_one=bool(image) and len(set(image)) == len(image),
                                          timeout=self.job.options.timeout)
        self.runs += live.runs
        if live.status is LivenessStatus.VIOLATED and live.check is not None:
            return self.result(BehaviorVerdict.REVERSE_FAIL, f"the safety parts refine both ways "
                               f"under {describe(cand)}, but {live.reason}",
                               Reason.REVERSE_LIVENESS, trace=live.check.trace,
                               details={"trace_of": "output"})
        if live.status is LivenessStatus.LIMIT and live.check is not None:
            return self.result(BehaviorVerdict.UNDECIDED, live.reason,
                               limit_reason(live.check.verdict))
        return {"reverse_liveness": live.status, "reverse_liveness_reason": live.reason}

    def with_class(self, result: BehaviorResult, out_graph: StateGraph, ref_graph: StateGraph,
                   *, found: list[int] | None = None, forward_only: bool = False,
                   deadlock: bool = False, whole: bool = False,
                   every_bijection: str = "") -> BehaviorResult:
        """A failure with whether it holds for every mapping that could work: for every state
        mapping where both graphs are whole (`any_mapping`), else for every mapping of the
        named class (`completeness.named_class`; `soundness.classify` reads `mapping_class`).
        `every_bijection` says why the failure, found under one mapping, holds under every
        one-to-one mapping that keeps the graphs' steps (`transfer`): where the graphs are
        isomorphic, those are all the mappings that could work."""
        self.class_candidates, self.class_rest, self.class_every = [], None, None
        if result.verdict not in FAILURES:
            return result
        anything = None
        if whole:
            anything = self.any_mapping(out_graph, ref_graph)
            if anything.outcome is any_mapping.Outcome.FAILS:
                return replace(result, details={
                    **result.details, **anything.facts(), "mapping_class": "any_mapping",
                    "mapping_class_reason": anything.why, "mapping_class_members": 0})
            result = replace(result, details={**result.details, **anything.facts()})
            if every_bijection and anything.kind == any_mapping.ISOMORPHISM:
                return replace(result, details={
                    **result.details, "mapping_class": "any_mapping",
                    "mapping_class_reason": transfer.every_mapping(anything.why,
                                                                   every_bijection)})
        check = named_class(out_graph, ref_graph, found=found or None,
                            forward_only=forward_only, deadlock=deadlock)
        if whole and not check.complete and not check.rest_for_tlc:
            # past the enumeration's budgets: the same class as a constraint model
            with self.timed("any_mapping"):
                solved = named_model(out_graph, ref_graph, found=found or None,
                                     deadlock=deadlock)
            if solved is not None:
                check = replace(solved, why=f"{solved.why} (enumerated: {check.why})")
        if whole and not check.complete and not check.rest_for_tlc:
            # too large, or no namesake's values to map: the smaller class of renamings,
            # which proves less (natural mappings only) and says so
            renamed = renaming_class(out_graph, ref_graph, found=found or None,
                                     deadlock=deadlock)
            if renamed.complete or renamed.rest_for_tlc:
                check = replace(renamed, why=f"{renamed.why} (every mapping of the named "
                                f"class: {check.why})")
        if whole:
            self.class_candidates += [(NAMED_MEMBER, h) for h in check.holders]
            self.class_rest = check if check.rest_for_tlc else None
        if anything is not None and anything.outcome is any_mapping.Outcome.CANDIDATE:
            every = anything.every_image or (anything.image,)
            self.class_candidates += [
                (f"the graphs' {anything.kind}" if len(every) == 1 else
                 f"the graphs' isomorphism {k} of {len(every)}", image)
                for k, image in enumerate(every, 1)]
            self.class_every = anything if anything.every_image else None
        return replace(result, details={**result.details, **check.facts()})

    def any_mapping(self, out_graph: StateGraph, ref_graph: StateGraph) -> any_mapping.AnyMapping:
        """The class of every state mapping on two whole graphs, decided once per pair."""
        for out, ref, decided in self.decisions:
            if out is out_graph and ref is ref_graph:
                return decided
        with self.timed("any_mapping"):
            decided = any_mapping.decide(out_graph, ref_graph)
        self.decisions.append((out_graph, ref_graph, decided))
        return decided
