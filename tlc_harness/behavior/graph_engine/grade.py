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
from collections.abc import Callable, Hashable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field, replace
from functools import partial
from typing import Any

from tlc_harness.behavior.checks import halts_sooner, too_small
from tlc_harness.behavior.graph_engine.bounds import Bounds, bounds_for
from tlc_harness.behavior.graph_engine.completeness import named_class
from tlc_harness.behavior.graph_engine.confirm import confirm
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
from tlc_harness.behavior.graph_engine.inference import infer, plain_failure
from tlc_harness.behavior.graph_engine.output_graph import (
    OUTPUT_CAP,
    OUTPUT_FACTOR,
    OutputModel,
    output_budget,
    output_model,
    uncarried_overrides,
)
from tlc_harness.behavior.graph_engine.replay import replay
from tlc_harness.behavior.graph_engine.search_state import Inferred
from tlc_harness.behavior.graphs import Exploration, StateGraph, explore, graph_cache
from tlc_harness.behavior.own_run import own_run_error
from tlc_harness.behavior.policy import Job, StepAside
from tlc_harness.behavior.reverse_liveness import (
    check_reverse_liveness,
    checked_as_itself,
    temporal_output,
    the_reference_itself,
)
from tlc_harness.behavior.search import Candidate
from tlc_harness.behavior.stage_clock import StageClock
from tlc_harness.behavior.staging import (
    CfgValues,
    Staged,
    constant_values,
    stage_output,
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
from tlc_harness.source.cfg import ModelConfig
from tlc_harness.source.monotone import bound_adds_behaviors
from tlc_harness.tools.results import LIMIT_VERDICTS, Verdict
from tlc_harness.tools.spec import SpecSource

#: the retries of the graph engine, in the order they can fire, and what each one does
RETRIES: dict[str, str] = {
    "values_swept": "an output constant the reference gives no value (a BOOLEAN, a guessed "
                    "number) takes each value in turn; a failure needs every admissible value "
                    "to fail, an `ok` every admissible value to pass",
    "model_values_for_numbers": "the output's run stops at an evaluation error under a set of "
                                "numbers the grader chose (`1..N`): the same sizes as model "
                                "values",
    "recut_under_failing_mapping": "a failure on a graph cut at R's CONSTRAINT under another "
                                   "mapping than the cut's: the output's graph is cut again "
                                   "under the failing mapping, once",
    "confirm_without_fairness": "TLC cannot evaluate R's fairness as a property: the "
                                "confirming run checks R's safety part, the graphs decided both "
                                "directions",
    "next_constant_map": "a map of the output's constants that gives no mapping: the next "
                         "likeliest map (at most three)",
    "bounded_sets": "the output's run stops at an evaluation error and its specification reads "
                    "`Nat`, `Int` or `Seq`: explored again with those sets bounded, where only "
                    "a forward failure decides",
}
#: the stages a grade times (`stage_seconds` in its details), in the order they run
STAGES = ("reference_graph", "output_graph", "inference", "replay", "confirm",
          "reverse_liveness")
#: TLC verdicts of the confirming run that mean the wrapper itself is wrong, not the output
_WRAPPER_TROUBLE = frozenset({Verdict.PARSE_ERROR, Verdict.CONFIG_BIND_FAIL,
                              Verdict.EVAL_ERROR})
#: codes of the failures the in-memory search reports, by verdict
_INFERRED = {BehaviorVerdict.FORWARD_FAIL: Reason.GRAPH_FORWARD,
             BehaviorVerdict.REVERSE_FAIL: Reason.GRAPH_REVERSE,
             BehaviorVerdict.NO_MAPPING: Reason.NO_CANDIDATE,
             BehaviorVerdict.UNDECIDED: Reason.SEARCH_BUDGET}
_LIMITS = frozenset(v.value for v in LIMIT_VERDICTS)


class GraphEngine:
    """Explore both state graphs once, infer a refinement mapping in memory, confirm with TLC."""

    name = "graphs"

    def grade(self, job: Job) -> BehaviorResult | StepAside:
        with Sweep[Exploration](job.options.sweep_jobs) as sweep:
            graded = GraphGrade(job, sweep=sweep).run()
        more = sweep.details()
        return replace(graded, details={**graded.details, **more}) if more else graded


@dataclass
class GraphGrade:
    """One output's grade on the graphs: the stages' hand-offs, and the runs and facts kept."""

    job: Job
    runs: int = 0
    started: float = field(default_factory=time.monotonic)
    facts: dict[str, Any] = field(default_factory=dict)
    #: seconds spent in each stage (`STAGES`), summed over the constant maps graded
    clock: StageClock = field(init=False)
    #: the output's own runs under the values of a sweep, started ahead (`sweeps`)
    sweep: Sweep[Exploration] = field(default_factory=lambda: Sweep(1))

    def __post_init__(self) -> None:
        self.clock = StageClock(self.job.deadline)

    def result(self, verdict: BehaviorVerdict, reason: str, code: Reason | None = None,
               **kw: Any) -> BehaviorResult:
        return BehaviorResult(verdict, kw.pop("mapping", None), reason,
                              time.monotonic() - self.started, tlc_runs=self.runs,
                              engine="graphs", details={**self.facts, **kw.pop("details", {}),
                                                        "stage_seconds": dict(self.timings)},
                              code=code, **kw)

    def step_aside(self, why: str, code: Reason) -> StepAside:
        return StepAside(why, code, self.runs, {**self.facts,
                                                "stage_seconds": dict(self.timings)})

    @property
    def timings(self) -> dict[str, float]:
        return self.clock.seconds

    def timed(self, stage: str) -> AbstractContextManager[None]:
        """Add the seconds the block takes to `stage`'s; the stage starts only while the
        output's budget lasts (`deadline`)."""
        assert stage in STAGES, stage
        return self.clock.timed(stage)

    def retried(self, name: str) -> None:
        assert name in RETRIES, name
        self.facts["retries"] = (*self.facts.get("retries", ()), name)

    def run(self) -> BehaviorResult | StepAside:
        ref = self.job.ref
        outside = uncovered(ref)
        if outside:
            return self.result(BehaviorVerdict.NOT_COVERED, outside[1], outside[0])
        values, unsupported = constant_values(ref)
        if unsupported:
            return self.result(BehaviorVerdict.NOT_COVERED, unsupported, Reason.REFERENCE_CFG)
        staged = stage_output(self.job.out_files, self.job.out_main, ref)
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
                                 cached=True)
        if ref_graph.graph is None:
            if ref_graph.verdict == "over_budget":
                return self.step_aside(f"the reference's graph has {ref_graph.detail}",
                                       Reason.STATE_BUDGET)
            if ref_graph.verdict in _LIMITS:
                return self.result(BehaviorVerdict.UNDECIDED, f"exploring the reference: {ref_graph.detail}",
                                   limit_reason(Verdict(ref_graph.verdict)))
            return self.result(BehaviorVerdict.NOT_COVERED, f"the reference's graph cannot be explored "
                               f"({ref_graph.verdict}: {ref_graph.detail[:200]})",
                               Reason.REFERENCE_FAILS)
        self.facts["reference_states"] = len(ref_graph.graph)
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
                           if g not in _exhaustive(plan, group)]
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
            if first is None or _further(graded, first):  # a map that got further wins
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

    def explore(self, spec: SpecSource, cfg: ModelConfig, tlc_args: tuple[str, ...], *,
                cached: bool, definitions: tuple[str, ...] = (),
                budget: int | None = None, ahead: Hashable | None = None) -> Exploration:
        """TLC's graph of `spec` under `cfg`; `ahead`: the key of a run the sweep may have
        started already (`start_ahead`)."""
        run = self.exploration(spec, cfg, tlc_args, cached=cached, definitions=definitions,
                               budget=budget)
        with self.timed("reference_graph" if cached else "output_graph"):
            found = run() if ahead is None else self.sweep.take(ahead, run)
        self.runs += found.tlc_runs
        return found

    def exploration(self, spec: SpecSource, cfg: ModelConfig, tlc_args: tuple[str, ...], *,
                    cached: bool, definitions: tuple[str, ...] = (),
                    budget: int | None = None) -> Callable[[], Exploration]:
        """The run `explore` makes, not made yet."""
        options = self.job.options
        return partial(explore, self.job.harness, spec, cfg, tlc_args=tlc_args,
                       budget=budget or options.budget, timeout=options.timeout,
                       cache=graph_cache(options.cache) if cached else None,
                       definitions=definitions)

    def start_ahead(self, staged: Staged, values: CfgValues,
                    maps: Sequence[dict[str, str]], ref_graph: StateGraph) -> None:
        """Start the output's runs under the next `maps` of a sweep, as many as it runs at
        once (nothing with one job)."""
        ref = self.job.ref
        if self.sweep.jobs < 2 or ref.cfg.constraints or ref.cfg.action_constraints:
            return  # (a graph cut at the reference's CONSTRAINT is explored under a mapping)
        own_spec = SpecSource(staged.out_main, staged.out_files)
        budget = output_budget(len(ref_graph), self.job.options.budget)
        named = (*staged.ref_shape.constants, *staged.ref_shape.definitions)
        for const_map in maps[:self.sweep.jobs]:
            model = output_model(ref, staged, values, const_map)
            if self.reference_copy(model, named):
                return  # the reference's own graph is reused
            self.sweep.ahead(_run_key(model, budget), self.exploration(
                own_spec, model.cfg, (), cached=False, definitions=model.definitions,
                budget=budget))

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
            graded = _with_sources(graded, plan, const_map)
            if len(group) == 1:
                return graded
            if graded.passed:
                return self.passed_under_every_value(staged, plan, group, n, graded, results,
                                                     ref_graph)
            results.append(graded)
        varying = _varying(group)
        tried = "; ".join(f"{g} in {{{', '.join(dict.fromkeys(m[g] for m in group))}}}"
                          for g in varying)
        failed = [r for r in results if r.verdict in FAILURES]
        rejected = [r for r in results if r.details.get("assume_rejected")]
        forward = [r for r in results if r.verdict == BehaviorVerdict.FORWARD_FAIL]
        if failed and len(failed) + len(rejected) == len(results):
            shown = (forward or failed)[0]
            # a BOOLEAN's two values, or a number standing for a reference model value, are
            # every value there is; a few numbers tried for a free number are not
            every = _exhaustive(plan, group)
            shown_map = group[results.index(shown)]
            return replace(shown, reason=f"under every value of {', '.join(varying)} "
                           f"({tried}: {len(failed)} tried, {len(rejected)} rejected by the "
                           f"output's ASSUME): {shown.reason}",
                           details={**shown.details, "failed_under_every_value": every,
                                    "constants": plan.sources(shown_map, every, tried=[
                                        g for g in varying if g not in every])},
                           **self.totals())
        best = max(results, key=_progress)
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
        varying = _varying(group)
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
            every = [g for g in varying if g in _exhaustive(plan, group)]
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
        if live.status == "violated" and live.check is not None:
            return self.result(BehaviorVerdict.REVERSE_FAIL, f"the safety parts refine both ways "
                               f"under {describe(cand)}, but {live.reason}",
                               Reason.REVERSE_LIVENESS, trace=live.check.trace,
                               details={"trace_of": "output"})
        if live.status == "limit" and live.check is not None:
            return self.result(BehaviorVerdict.UNDECIDED, live.reason,
                               limit_reason(live.check.verdict))
        return {"reverse_liveness": live.status, "reverse_liveness_reason": live.reason}

    def reference_copy(self, model: OutputModel, named: Sequence[str]) -> bool:
        """Whether the output is the reference's own modules, run under the reference's own
        model (the same constants, formula and flags, no overrides, definitions or
        constraints): a reference graded against itself, whose graph is then the reference's
        (TLC explores the same module under the same model to the same states). A cfg entry
        `r1 = r1` for a name the modules neither declare nor define (`named`) only names a
        model value, which TLC makes of `r1` in `Replicas = {r1, r2}` as well: such entries
        do not count."""
        ref, cfg = self.job.ref, model.cfg

        def given(entries: Sequence[tuple[str, str]]) -> list[tuple[str, str]]:
            return sorted((n, v) for n, v in entries if n in named or v.strip() != n)

        return (dict(self.job.out_files) == dict(ref.files) and self.job.out_main == ref.main
                and not model.definitions and not cfg.overrides and not ref.cfg.overrides
                and not ref.cfg.constraints and not ref.cfg.action_constraints
                and all(a == "-deadlock" for a in ref.tlc_args)
                and given(cfg.constants) == given(ref.cfg.constants)
                and (cfg.specification, cfg.init, cfg.next)
                == (ref.cfg.specification, ref.cfg.init, ref.cfg.next))

    def totals(self) -> dict[str, Any]:
        """The grade's TLC runs and seconds so far (a grade over several values sums them)."""
        return {"tlc_runs": self.runs, "seconds": time.monotonic() - self.started}

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
            found = Exploration(ref_graph, "ok")
        else:
            found = self.explore(own_spec, model.cfg, (), cached=False,
                                 definitions=model.definitions, budget=budget,
                                 ahead=_run_key(model, budget) if bounds is None else None)
        if found.graph is None and bounds is not None:
            return self.result(BehaviorVerdict.UNDECIDED, f"the output's run with {bounds.describe()} "
                               f"stops ({found.verdict}: {found.detail[:200]}), which the bound may "
                               f"cause", Reason.INFINITE_SET)
        if found.graph is None:
            if found.verdict == "over_budget":
                why = (f"cut at the reference's CONSTRAINT under {describe(cut)}" if cut
                       else "the reference is bounded by a CONSTRAINT the output's run lacks"
                       if bounded else f"{OUTPUT_FACTOR} times the reference's"
                       if budget < OUTPUT_CAP * options.budget else
                       f"{OUTPUT_CAP} times the graph budget")
                return self.step_aside(f"the output's graph has {found.detail} ({why})",
                                       Reason.STATE_BUDGET)
            if found.verdict in _LIMITS:
                return self.result(BehaviorVerdict.UNDECIDED, f"exploring the output: {found.detail}",
                                   limit_reason(Verdict(found.verdict)))
            if found.verdict == "assumption_failed":  # these values do not fit its constants
                return self.result(BehaviorVerdict.NO_MAPPING, "the output's ASSUME rejects the reference's "
                                   f"values for its constants ({given_text(const_map)})",
                                   Reason.ASSUME_REJECTS, details={"assume_rejected": True})
            if cut is not None:  # the cut's mapping, or the output: its own run tells
                own = self.explore(own_spec, model.cfg, (), cached=False,
                                   definitions=model.definitions, budget=budget)
                if own.graph is not None or own.verdict == "over_budget" or \
                        own.verdict in _LIMITS:
                    return self.step_aside(f"the output's run cut at the reference's "
                                           f"CONSTRAINT under {describe(cut)} stops "
                                           f"({found.verdict}: {found.detail[:200]})",
                                           Reason.CONSTRAINT_CUT)
                found = own
            sets = staged.infinite_sets() if found.verdict == Verdict.EVAL_ERROR.value else None
            if sets:
                return self.bounded(staged, plan, values, const_map, ref_graph, model, sets)
            why = ("the output has no initial state" if found.verdict == "vacuous" else
                   f"the output's own run fails under the reference's constants "
                   f"({found.verdict}: {found.detail[:200]})")
            chosen = sorted(g for g, r in const_map.items()
                            if plan.typed_values.get(r) == "set")
            if found.verdict == Verdict.EVAL_ERROR.value and chosen:
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
        # a state whose successors a CONSTRAINT drops has no edge in either graph: TLC's
        # confirming run, not the graphs, checks deadlock then
        deadlock = (ref.cfg.check_deadlock is not False and not bounded
                    and "-deadlock" not in ref.tlc_args)
        with self.timed("inference"):
            inferred = infer(out_graph, ref_graph, deadlock=deadlock,
                             seconds=self.job.deadline.limit(max(10.0, options.timeout or 300)))
            # a search the deadline stopped may have stopped at a first failure: none stands
            self.job.deadline.check()
        self.facts["inference_seconds"] = round(time.monotonic() - t0, 3)
        self.facts["mappings_checked"] = inferred.tried
        if whole and inferred.verdict in (BehaviorVerdict.NO_MAPPING, BehaviorVerdict.UNDECIDED):
            # what the grammar's search could not decide, counting does, for any mapping
            small = too_small(out_graph, ref_graph)
            if small:
                return self.result(BehaviorVerdict.REVERSE_FAIL, small, Reason.TOO_FEW_STATES)
            sooner = halts_sooner(out_graph, ref_graph)
            if sooner:
                return self.result(BehaviorVerdict.REVERSE_FAIL, sooner, Reason.HALTS_SOONER)
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
                inferred.verdict, inferred.reason, _INFERRED[inferred.verdict],
                trace=trace(inferred, out_graph, ref_graph),
                details=counterexample_details(inferred, out_graph, ref_graph)),
                out_graph, ref_graph, deadlock=deadlock)
            if inferred.verdict != BehaviorVerdict.REVERSE_FAIL or not inferred.variables:
                return self.replayed(failed, inferred, staged, model, out_graph) if whole \
                    else failed
        cand = Candidate(inferred.variables, const_map, tuple(inferred.definitions),
                         labels=False, model_values=tuple(inferred.model_values))
        mapping = cand.to_json()
        self.facts["hidden"] = list(inferred.hidden)
        if failed is None and inferred.recomputed:
            names = ", ".join(inferred.recomputed)
            return self.result(BehaviorVerdict.UNDECIDED, f"the graphs find a mapping only by "
                               f"computing {names} from the output's other variables, while "
                               f"the output's own {names} goes unread: the observable the "
                               f"description names is not shown to behave",
                               Reason.OBSERVABLE_RECOMPUTED, mapping=mapping)
        ref_constants = frozenset(staged.ref_shape.constants)
        self.facts["mapping_tla"] = substitutions(cand, ref_constants, plan.symbols)
        with self.timed("confirm"):
            confirmed = confirm(self.job.harness, ref, staged, cand, values, options.timeout)
        self.runs += confirmed.tlc_runs
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
            live = self.reverse_liveness(staged, values, cand, inferred.image)
            if isinstance(live, BehaviorResult):
                return self.with_class(replace(live, mapping=mapping), out_graph, ref_graph,
                                       found=inferred.image, deadlock=deadlock)
            return self.result(BehaviorVerdict.OK, f"refines both ways under "
                               f"{describe(cand, ref_constants)}{note}", mapping=mapping,
                               details=live)
        if check.verdict in LIMIT_VERDICTS:
            return self.result(BehaviorVerdict.UNDECIDED, f"confirming run: {check_label(check)}",
                               limit_reason(check.verdict), mapping=mapping)
        if check.verdict in _WRAPPER_TROUBLE:
            return self.step_aside(f"TLC could not run the inferred mapping "
                                   f"({check_label(check)}: {check.detail[:200]})",
                                   Reason.TLC_ERROR_WRAPPER)
        return self.with_class(self.result(
            BehaviorVerdict.FORWARD_FAIL, f"under {describe(cand, ref_constants)}, TLC's "
            f"forward run finds {check_label(check)} (the reference's specification with its "
            f"fairness, a temporal property or an invariant){note}", Reason.TLC_FORWARD,
            mapping=mapping, trace=check.trace, details={"trace_of": "output"}),
            out_graph, ref_graph, found=inferred.image, deadlock=deadlock)

    def with_class(self, result: BehaviorResult, out_graph: StateGraph, ref_graph: StateGraph,
                   *, found: list[int] | None = None, forward_only: bool = False,
                   deadlock: bool = False) -> BehaviorResult:
        """A failure with whether it holds for every mapping of the named class
        (`completeness.named_class`; `soundness.classify` reads `mapping_class`)."""
        if result.verdict not in FAILURES:
            return result
        check = named_class(out_graph, ref_graph, found=found or None,
                            forward_only=forward_only, deadlock=deadlock)
        return replace(result, details={**result.details, **check.facts()})


def _with_sources(graded: BehaviorResult, plan: ConstantPlan, const_map: dict[str, str]
                  ) -> BehaviorResult:
    """The grade with its constants' values and their sources (`ConstantPlan.sources`; none
    recorded as none: a decided verdict without the fact is not decided)."""
    return replace(graded, details={**graded.details, "constants": plan.sources(const_map)})


def _run_key(model: OutputModel, budget: int) -> Hashable:
    """What names the output's own run in a sweep: its model and state budget."""
    return model.cfg, model.definitions, budget


def _exhaustive(plan: ConstantPlan, group: tuple[dict[str, str], ...]) -> list[str]:
    """The swept constants whose values in the group are all their values: BOOLEANs, numbers
    standing for a reference model value (the translation pairs each with it), and numbers
    whose own ASSUME bounds them to a small set, every number of which was swept."""
    return [g for g in _varying(group) if g in plan.standing or g in plan.enumerated
            or group[0][g] in ("TRUE", "FALSE")]


def _varying(group: tuple[dict[str, str], ...]) -> list[str]:
    """The output constants whose values the maps of a group sweep."""
    return [g for g in group[0] if len({m[g] for m in group}) > 1]


def _progress(result: BehaviorResult) -> int:
    """How far a grade got: a failure > no mapping found > values rejected by an ASSUME."""
    if result.verdict in FAILURES:
        return 2
    return 0 if result.details.get("assume_rejected") else 1


def _further(graded: BehaviorResult, first: BehaviorResult) -> bool:
    """Whether `graded` replaces `first` as the grade to report: the first failure stays;
    among the rest the one that got further (an ASSUME's rejection says least)."""
    if first.verdict != BehaviorVerdict.NO_MAPPING:
        return False
    return graded.verdict != BehaviorVerdict.NO_MAPPING or _progress(graded) > _progress(first)
