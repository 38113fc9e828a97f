"""The graph engine's stages, in order, for one output.

plan constants (`constant_maps.plan_constants`) -> the reference's graph (explored once, cached
on disk by content) -> the output's graph under each constant map (`output_graph`; cut at a
reference CONSTRAINT, `cuts`) -> infer a mapping on the two graphs (`inference`) -> TLC
confirms it (`confirm`) -> for an output whose formula adds fairness or liveness, TLC runs
the output against that whole formula (`reverse_liveness`).
Where the engine cannot model the spec it steps aside (`StepAside`) and the policy's next
engine grades.

The stages' retries are named in `RETRIES`; each one that fires is recorded in the verdict's
details (`retries`), in order.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace

from tlc_harness.behavior.checks import halts_sooner, too_small
from tlc_harness.behavior.deadlock import DETAIL as DEADLOCK_DETAIL
from tlc_harness.behavior.deadlock import (
    checks_deadlock,
    stuck_reason,
    without_deadlock,
)
from tlc_harness.behavior.graph_engine import transfer
from tlc_harness.behavior.graph_engine.any_mapping import Outcome
from tlc_harness.behavior.graph_engine.bounds import Bounds
from tlc_harness.behavior.graph_engine.candidates import REFUTED, TableCandidates
from tlc_harness.behavior.graph_engine.completeness import MAX_HOLDERS
from tlc_harness.behavior.graph_engine.constant_maps import ConstantPlan, plan_constants
from tlc_harness.behavior.graph_engine.constant_values import as_model_values
from tlc_harness.behavior.graph_engine.cuts import cut_seed, failing_mapping, same_mapping
from tlc_harness.behavior.graph_engine.describe import (
    counterexample_details,
    describe,
    given_text,
    substitutions,
    trace,
)
from tlc_harness.behavior.graph_engine.forward_on_graphs import (
    DECIDED_ON_GRAPHS,
    forward_on_graphs,
)
from tlc_harness.behavior.graph_engine.grade_base import LIMITS, RETRIES, STAGES, GradeBase, run_key
from tlc_harness.behavior.graph_engine.inference import infer, plain_failure
from tlc_harness.behavior.graph_engine.named_model import named_model
from tlc_harness.behavior.graph_engine.output_graph import (
    OUTPUT_CAP,
    OUTPUT_FACTOR,
    OutputModel,
    output_budget,
    output_model,
    uncarried_overrides,
)
from tlc_harness.behavior.graph_engine.search_state import GUARD_SECONDS, Work
from tlc_harness.behavior.graph_engine.value_sweeps import (
    ValueSweeps,
    exhaustive,
    further,
)
from tlc_harness.behavior.graphs import Exploration, Explored, StateGraph
from tlc_harness.behavior.own_run import own_run_error
from tlc_harness.behavior.policy import Job, StepAside
from tlc_harness.behavior.search import Candidate
from tlc_harness.behavior.staging import (
    CfgValues,
    Staged,
    constant_values,
    uncovered,
)
from tlc_harness.behavior.sweeps import Sweep
from tlc_harness.behavior.verdicts import (
    FAILURES,
    BehaviorResult,
    BehaviorVerdict,
    Reason,
    limit_reason,
)
from tlc_harness.behavior.wrapper_modules import check_label, forward_wrapper
from tlc_harness.tools.results import LIMIT_VERDICTS, Verdict
from tlc_harness.tools.spec import SpecSource

__all__ = ["RETRIES", "STAGES", "GradeBase", "GraphEngine", "GraphGrade", "run_key"]

#: TLC verdicts of the confirming run that mean the wrapper itself is wrong, not the output
_WRAPPER_TROUBLE = frozenset({Verdict.PARSE_ERROR, Verdict.CONFIG_BIND_FAIL,
                              Verdict.EVAL_ERROR})
#: codes of the failures the in-memory search reports, by verdict
_INFERRED = {BehaviorVerdict.FORWARD_FAIL: Reason.GRAPH_FORWARD,
             BehaviorVerdict.REVERSE_FAIL: Reason.GRAPH_REVERSE,
             BehaviorVerdict.NO_MAPPING: Reason.NO_CANDIDATE,
             BehaviorVerdict.UNDECIDED: Reason.SEARCH_BUDGET}


class GraphEngine:
    """Explore both state graphs once, infer a refinement mapping in memory, confirm with TLC."""

    name = "graphs"

    def grade(self, job: Job) -> BehaviorResult | StepAside:
        with Sweep[Exploration](job.options.sweep_jobs) as sweep:
            graded = GraphGrade(job, sweep=sweep).run()
        more = sweep.details()
        return replace(graded, details={**graded.details, **more}) if more else graded


@dataclass
class GraphGrade(ValueSweeps, TableCandidates):
    """One output's grade on the graphs: the stages' hand-offs, and the runs and facts kept
    (`GradeBase`); the sweep of free values (`ValueSweeps`) and what follows the mapping
    search (`LateChecks`) are its other parts."""

    def run(self) -> BehaviorResult | StepAside:
        ref = self.job.ref
        outside = uncovered(ref)
        if outside:
            return self.result(BehaviorVerdict.NOT_COVERED, outside[1], outside[0])
        values, unsupported = constant_values(ref)
        if unsupported:
            return self.result(BehaviorVerdict.NOT_COVERED, unsupported, Reason.REFERENCE_CFG)
        staged = self.job.staged
        if staged.out_init is None or staged.out_next is None:
            missing = [d for d, v in (("Init", staged.out_init), ("Next", staged.out_next))
                       if v is None]
            return self.result(BehaviorVerdict.NO_MAPPING, f"the output defines no {' or '.join(missing)}",
                               Reason.NO_ENTRY_POINTS)
        if ref.states is not None and ref.states >= self.job.options.budget:
            # its own run counted them: exploring would stop at the budget, to the same end
            return self.step_aside(f"the reference's model has {ref.states} distinct states "
                                   f"(its own TLC run), over the graph budget of "
                                   f"{self.job.options.budget}", Reason.STATE_BUDGET)
        ref_graph = self.explore(SpecSource(ref.main, dict(ref.files)), ref.cfg, ref.tlc_args,
                                 cached=True, own_checks=True)
        if ref_graph.graph is None:
            if ref_graph.verdict == Explored.OVER_BUDGET:
                return self.step_aside(f"the reference's graph has {ref_graph.detail}",
                                       Reason.STATE_BUDGET)
            if ref_graph.verdict in LIMITS:
                return self.result(BehaviorVerdict.UNDECIDED, f"exploring the reference: {ref_graph.detail}",
                                   limit_reason(Verdict(ref_graph.verdict)))
            return self.result(BehaviorVerdict.NOT_COVERED, f"the reference's graph cannot be explored "
                               f"({ref_graph.verdict}: {ref_graph.detail[:200]})",
                               Reason.REFERENCE_FAILS)
        self.facts["reference_states"] = len(ref_graph.graph)
        self.ref_checked = ref_graph.checked
        overrides = uncarried_overrides(ref, staged, values)
        plan = plan_constants(ref, staged, values)
        first = None if plan.groups else self.no_constants(staged)
        guessed_ok: BehaviorResult | None = None
        pairings = {"total": plan.pairings, "graded": 0, "failed": 0}
        self.facts["pairings"] = pairings
        # a reference graded against itself: its own names, paired as they are, alone
        groups = plan.groups[:1] if self.job.options.self_check else plan.groups
        for n, group in enumerate(groups):
            if n:
                self.retried("next_constant_map")
            graded = self.under_every_value(staged, plan, group, ref_graph.graph)
            pairings["graded"] += 1
            if isinstance(graded, StepAside) and first is not None and \
                    first.verdict in FAILURES and graded.details.get("cut_under"):
                # a likelier map failed; a less likely one whose cut TLC cannot run (the
                # mapping's fault, not the output's) leaves that failure standing
                continue
            if isinstance(graded, StepAside):
                return graded
            if graded.passed:
                guessed = [g for g in plan.guessed(group[0])
                           if g not in exhaustive(plan, group)]
                if not guessed:
                    return graded
                # an `ok` under values the reference does not fix says nothing; a likelier or
                # a later map under the reference's own values may decide
                guessed_ok = guessed_ok or replace(
                    graded, verdict=BehaviorVerdict.UNDECIDED, code=Reason.VALUE_GUESSED,
                    reason=f"the output refines the reference only under values the reference "
                    f"does not fix for {', '.join(guessed)} "
                    f"({given_text({g: group[0][g] for g in guessed})}): {graded.reason}")
                continue
            # a forward failure under every number tried is the output's, not the numbers'
            swept = set(graded.details.get("failed_under_every_value", ()))
            guessed = [g for g in plan.guessed(group[0]) if g not in swept]
            if guessed and graded.verdict in FAILURES:
                # a failure under values the reference does not fix may be the values' fault
                graded = replace(graded, verdict=BehaviorVerdict.NO_MAPPING,
                                 code=Reason.CONSTANT_UNJUSTIFIED, reason=(
                                     f"under values the reference does not fix for "
                                     f"{', '.join(guessed)} "
                                     f"({given_text({g: group[0][g] for g in guessed})}): "
                                     f"{graded.verdict}: {graded.reason}"))
            pairings["failed"] += graded.verdict in FAILURES
            if first is None or further(graded, first):  # a map that got further wins
                first = graded
        if guessed_ok is not None and (first is None or first.verdict not in FAILURES):
            first = guessed_ok  # no map under the reference's own values decides
        assert first is not None
        if overrides and self.job.options.engine == "auto":
            # the output's own run cannot carry these; TLC's wrappers can (an `ok` is
            # confirmed through them, a failure is theirs to decide)
            return self.step_aside(f"the reference's cfg gives {', '.join(overrides)} by "
                                   f"definition, which the output's graph run does not carry "
                                   f"(graphs said {first.verdict})", Reason.OVERRIDE_NOT_CARRIED)
        return first

    def both_ways(self, staged: Staged, values: CfgValues, cand: Candidate,
                  image: list[int], out_graph: StateGraph, ref_graph: StateGraph,
                  const_map: dict[str, str], *, deadlock: bool, whole: bool,
                  note: str) -> BehaviorResult:
        """The forward direction confirmed under `cand`: `ok` once the output's own fairness
        and liveness hold in reverse, else the reverse check's verdict (or a table the
        classes find)."""
        mapping = cand.to_json()
        live = self.reverse_liveness(staged, values, cand, image)
        if isinstance(live, BehaviorResult):
            return self.or_table(self.with_class(
                replace(live, mapping=mapping), out_graph, ref_graph, found=image,
                deadlock=deadlock, whole=whole,
                every_bijection=transfer.reverse(self.job.ref)
                if live.code is Reason.REVERSE_LIVENESS else ""),
                out_graph, ref_graph, staged, values, const_map, deadlock=deadlock,
                found=image)
        ref_constants = frozenset(staged.ref_shape.constants)
        return self.result(BehaviorVerdict.OK, f"refines both ways under "
                           f"{describe(cand, ref_constants)}{note}", mapping=mapping,
                           details=live)

    def no_constants(self, staged: Staged) -> BehaviorResult:
        return self.result(BehaviorVerdict.NO_MAPPING, "the output declares more constants ("
                           f"{', '.join(staged.out_shape.constants)}) than the reference has "
                           "constants or literal definitions to give them values (of the "
                           "reference: " + (", ".join(staged.ref_shape.constants) or "none")
                           + ")", Reason.CONSTANTS_UNPAIRED)

    def under(self, staged: Staged, plan: ConstantPlan, values: CfgValues,
              const_map: dict[str, str], ref_graph: StateGraph,
              cut: Candidate | None = None, bounds: Bounds | None = None
              ) -> BehaviorResult | StepAside:
        """Explore G with R's values for its constants, infer, and confirm with TLC (`cut`:
        the mapping G's graph is cut under, for a reference bounded by a CONSTRAINT; `bounds`:
        the finite sets that stand for the infinite ones G's run cannot enumerate)."""
        ref, options = self.job.ref, self.job.options
        model = output_model(ref, staged, values, const_map)
        self.facts.pop("bounded", None)
        if bounds is not None:
            self.facts["bounded"] = bounds.to_json()
            model = OutputModel(replace(model.cfg, overrides=(*model.cfg.overrides,
                                                              *bounds.overrides)),
                                (*model.definitions, *bounds.definitions))
        budget = output_budget(len(ref_graph), options.budget)
        # R's graph stops where its CONSTRAINT fails; G's is cut where its image does, under
        # a seed mapping (or, when none fits, explored whole): an `ok` found there holds, a
        # failure only under the mapping the graph was cut under (see below)
        bounded = bool(ref.cfg.constraints or ref.cfg.action_constraints)
        seeded = cut is None
        if bounded and cut is None:
            cut = cut_seed(staged, const_map)
        own_spec = SpecSource(staged.out_main, staged.out_files)
        whole = cut is None and bounds is None  # the output's graph is its whole state space
        if cut is not None:
            self.facts["cut_under"] = describe(cut)
            src, wcfg = forward_wrapper(ref, staged, cut, values)
            found = self.explore(src, wcfg, (), cached=False, budget=budget)
        elif whole and self.reference_copy(model, (*staged.ref_shape.constants,
                                                    *staged.ref_shape.definitions)):
            # the reference's own text under its own model: TLC's graph is the reference's
            self.facts["output_graph_reused"] = True
            found = Exploration(ref_graph, Verdict.OK)
        else:
            found = self.own_model_graph(staged, model, budget) or self.explore(
                own_spec, model.cfg, (), cached=False, definitions=model.definitions,
                budget=budget, ahead=run_key(model, budget) if bounds is None else None)
        if found.graph is None and bounds is not None:
            return self.result(BehaviorVerdict.UNDECIDED, f"the output's run with {bounds.describe()} "
                               f"stops ({found.verdict}: {found.detail[:200]}), which the bound may "
                               f"cause", Reason.INFINITE_SET)
        if found.graph is None:
            if found.verdict == Explored.OVER_BUDGET:
                why = (f"cut at the reference's CONSTRAINT under {describe(cut)}" if cut
                       else "the reference is bounded by a CONSTRAINT the output's run lacks"
                       if bounded else f"{OUTPUT_FACTOR} times the reference's"
                       if budget < OUTPUT_CAP * options.budget else
                       f"{OUTPUT_CAP} times the graph budget")
                return self.step_aside(f"the output's graph has {found.detail} ({why})",
                                       Reason.STATE_BUDGET)
            if found.verdict in LIMITS:
                return self.result(BehaviorVerdict.UNDECIDED, f"exploring the output: {found.detail}",
                                   limit_reason(Verdict(found.verdict)))
            if found.verdict == Verdict.ASSUMPTION_FAILED:  # these values do not fit its constants
                return self.result(BehaviorVerdict.NO_MAPPING, "the output's ASSUME rejects the reference's "
                                   f"values for its constants ({given_text(const_map)})",
                                   Reason.ASSUME_REJECTS, details={"assume_rejected": True})
            if cut is not None:  # the cut's mapping, or the output: its own run tells
                own = self.explore(own_spec, model.cfg, (), cached=False,
                                   definitions=model.definitions, budget=budget)
                if own.graph is not None or own.verdict == Explored.OVER_BUDGET or \
                        own.verdict in LIMITS:
                    return self.step_aside(f"the output's run cut at the reference's "
                                           f"CONSTRAINT under {describe(cut)} stops "
                                           f"({found.verdict}: {found.detail[:200]})",
                                           Reason.CONSTRAINT_CUT)
                found = own
            sets = staged.infinite_sets() if found.verdict == Verdict.EVAL_ERROR else None
            if sets:
                return self.bounded(staged, plan, values, const_map, ref_graph, model, sets)
            why = ("the output has no initial state" if found.verdict == Explored.VACUOUS else
                   f"the output's own run fails under the reference's constants "
                   f"({found.verdict}: {found.detail[:200]})")
            chosen = sorted(g for g, r in const_map.items()
                            if plan.typed_values.get(r) == "set")
            if found.verdict == Verdict.EVAL_ERROR and chosen:
                # TLC compares an integer with a string only by stopping: a set of processes
                # written as numbers may break an output that works with any other elements,
                # such as model values (the translation pairs them with the numbers)
                other = as_model_values(const_map, chosen, values)
                if other is not None:
                    self.facts["model_values_for"] = chosen
                    self.retried("model_values_for_numbers")
                    return self.under(staged, plan, other[1], other[0], ref_graph)
                return self.result(BehaviorVerdict.NO_MAPPING, f"{why}, with elements the grader chose for "
                                   f"{', '.join(chosen)} ({given_text(const_map)})",
                                   Reason.GRADER_ELEMENTS)
            return self.result(BehaviorVerdict.FORWARD_FAIL, why, Reason.OUTPUT_RUN_FAILS,
                               details={"own_run_error": own_run_error(found.verdict,
                                                                       found.codes).value})
        out_graph = found.graph
        self.facts["output_states"] = len(out_graph)
        t0 = time.monotonic()
        if checks_deadlock(ref) and not bounded and ref_graph.terminal:
            # the reference's own model deadlocks: freedom from it is not the reference's
            self.facts[DEADLOCK_DETAIL] = stuck_reason(
                f"{len(ref_graph.terminal)} of the {len(ref_graph)} reachable states of the "
                f"reference's own model have no successor")
            ref = without_deadlock(ref)
        # a state whose successors a CONSTRAINT drops has no edge in either graph: TLC's
        # confirming run, not the graphs, checks deadlock then
        deadlock = checks_deadlock(ref) and not bounded
        with self.timed("inference"):
            work = Work(guard_seconds=self.job.deadline.limit(GUARD_SECONDS))
            inferred = infer(out_graph, ref_graph, deadlock=deadlock, work=work)
            # a search the deadline stopped may have stopped at a first failure: none stands
            self.job.deadline.check()
        self.facts["inference_seconds"] = round(time.monotonic() - t0, 3)
        self.facts["mappings_checked"] = inferred.tried
        self.facts["search_steps"] = work.steps
        # both graphs whole: the class of every state mapping is decided on them
        exact = whole and not bounded
        if whole and inferred.verdict in (BehaviorVerdict.NO_MAPPING, BehaviorVerdict.UNDECIDED):
            # what the grammar's search could not decide, counting does, for any mapping
            small = too_small(out_graph, ref_graph)
            if small:
                return self.result(BehaviorVerdict.REVERSE_FAIL, small, Reason.TOO_FEW_STATES)
            sooner = halts_sooner(out_graph, ref_graph)
            if sooner:
                return self.result(BehaviorVerdict.REVERSE_FAIL, sooner, Reason.HALTS_SOONER)
            if exact:
                anything = self.any_mapping(out_graph, ref_graph)
                if anything.outcome is Outcome.FAILS:
                    return self.result(BehaviorVerdict.REVERSE_FAIL, anything.why,
                                       Reason.NO_STATE_MAPPING, details=anything.facts())
                self.facts.update(anything.facts())
                if anything.outcome is Outcome.CANDIDATE:
                    # the grammar has no expression for it; TLC confirms it as a table
                    found_ok = self.or_table(self.result(inferred.verdict, inferred.reason,
                                                         inferred.code or _INFERRED[inferred.verdict]),
                                             out_graph, ref_graph, staged, values, const_map,
                                             deadlock=deadlock, images=[(
                                                 f"the graphs' {anything.kind}",
                                                 anything.image)])
                    if found_ok.passed:
                        return found_ok
        if bounded and inferred.verdict != BehaviorVerdict.OK:
            # an `ok` holds however G's graph was cut (its states are reachable, and TLC's
            # confirming run cuts under the mapping found); a failure holds under the mapping
            # G's graph was cut under, so it counts when found under that very mapping (G is
            # cut again under the one it was found under, once)
            failing = failing_mapping(inferred, const_map)
            settled = failing is not None and cut is not None and same_mapping(failing, cut)
            if not settled and failing is not None and seeded:
                self.retried("recut_under_failing_mapping")
                recut = self.under(staged, plan, values, const_map, ref_graph, cut=failing)
                if not isinstance(recut, StepAside) or cut is None:
                    return recut
                # TLC cannot run the cut of the mapping the failure was found under; the
                # seed's own failure on its own cut is one, and no mapping passed there
                seed_failure = plain_failure(out_graph, ref_graph, dict(cut.variables))
                if seed_failure is None:
                    return recut
                self.facts["cut_under"] = describe(cut)
                inferred, settled = seed_failure, True
            if not settled:
                where = f"cut under {describe(cut)}" if cut else "not cut"
                return self.step_aside(f"the reference is bounded by a CONSTRAINT; on the "
                                       f"output's graph ({where}) graphs found "
                                       f"{inferred.verdict} under another mapping than the "
                                       f"cut's: {inferred.reason}", Reason.CONSTRAINT_CUT)
        if bounds is not None:
            return self.under_bounds(bounds, inferred, staged, model, out_graph, ref_graph)
        failed = None
        if inferred.verdict != BehaviorVerdict.OK:
            failed = self.with_class(self.result(
                inferred.verdict, inferred.reason, inferred.code or _INFERRED[inferred.verdict],
                trace=trace(inferred, out_graph, ref_graph),
                details=counterexample_details(inferred, out_graph, ref_graph)),
                out_graph, ref_graph, deadlock=deadlock, whole=exact)
            failed = self.or_table(failed, out_graph, ref_graph, staged, values, const_map,
                                   deadlock=deadlock)
            if failed.passed:
                return failed
            if inferred.verdict != BehaviorVerdict.REVERSE_FAIL or not inferred.variables:
                return self.replayed(failed, inferred, staged, model, out_graph) if whole \
                    else failed
        cand = Candidate(inferred.variables, const_map, tuple(inferred.definitions),
                         labels=False, model_values=tuple(inferred.model_values))
        mapping = cand.to_json()
        self.facts["hidden"] = list(inferred.hidden)
        if failed is None and inferred.recomputed:
            names = ", ".join(inferred.recomputed)
            recomputed = self.result(BehaviorVerdict.UNDECIDED, f"the graphs find a mapping "
                                     f"only by computing {names} from the output's other "
                                     f"variables, while the output's own {names} goes unread: "
                                     f"the observable the description names is not shown to "
                                     f"behave", Reason.OBSERVABLE_RECOMPUTED, mapping=mapping)
            # the named class's members read it: one TLC confirms is the `ok`
            named = named_model(out_graph, ref_graph, found=None, deadlock=deadlock,
                                first=MAX_HOLDERS) if exact else None
            if named is None or not named.holders:
                return recomputed
            return self.or_table(recomputed, out_graph, ref_graph, staged, values, const_map,
                                 deadlock=deadlock, images=[
                                     ("a member of the named class", h) for h in named.holders])
        ref_constants = frozenset(staged.ref_shape.constants)
        self.facts["mapping_tla"] = substitutions(cand, ref_constants, plan.symbols)
        if failed is None and forward_on_graphs(ref, exact, self.ref_checked):
            # TLC's confirming run would check nothing the graphs have not
            self.facts["forward_decided"] = DECIDED_ON_GRAPHS
            return self.both_ways(staged, values, cand, inferred.image, out_graph, ref_graph,
                                  const_map, deadlock=deadlock, whole=exact, note="")
        confirmed, ref = self.confirmed(ref, staged, cand, values)
        if not confirmed.fairness_checked:
            self.retried("confirm_without_fairness")
            self.facts["fairness_checked"] = False
        check, note = confirmed.check, confirmed.note
        if failed is not None:  # reverse fails on the graphs; TLC's forward run may fail too
            if check.verdict in LIMIT_VERDICTS or check.verdict in _WRAPPER_TROUBLE or \
                    check.passed:
                return replace(failed, mapping=mapping, tlc_runs=self.runs,
                               seconds=time.monotonic() - self.started)
        elif check.verdict is Verdict.OK and not check.vacuous:
            return self.both_ways(staged, values, cand, inferred.image, out_graph, ref_graph,
                                  const_map, deadlock=deadlock, whole=exact, note=note)
        if check.verdict in LIMIT_VERDICTS:
            return self.result(BehaviorVerdict.UNDECIDED, f"confirming run: {check_label(check)}",
                               limit_reason(check.verdict), mapping=mapping)
        if check.verdict in _WRAPPER_TROUBLE:
            return self.step_aside(f"TLC could not run the inferred mapping "
                                   f"({check_label(check)}: {check.detail[:200]})",
                                   Reason.TLC_ERROR_WRAPPER)
        return self.or_table(self.with_class(self.result(
            BehaviorVerdict.FORWARD_FAIL, f"under {describe(cand, ref_constants)}, TLC's "
            f"forward run finds {check_label(check)} (the reference's specification with its "
            f"fairness, a temporal property or an invariant){note}", Reason.TLC_FORWARD,
            mapping=mapping, trace=check.trace, details={"trace_of": "output"}),
            out_graph, ref_graph, found=inferred.image, deadlock=deadlock, whole=exact,
            every_bijection=transfer.forward(staged)
            if failed is None and check.verdict in REFUTED else ""),
            out_graph, ref_graph, staged, values, const_map, deadlock=deadlock,
            found=inferred.image)
