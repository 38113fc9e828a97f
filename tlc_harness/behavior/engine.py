"""One entry for the behavior grade, `grade_behavior`: the policy's engines, in order.

The engines (`policy.Engine`) are registered here by name: `graphs` (`graph_engine`: explore
both state graphs, infer a mapping in memory, confirm with one TLC run) and `wrappers`
(`wrapper_engine`: search variable bijections, two TLC runs each). `policy.POLICIES` says which
are tried, in which order, for each engine choice.

The output's time budget (`BehaviorOptions.output_budget`, `deadline`) starts with the grade;
when it runs out, in any stage, the verdict is `undecided` (`output_budget`): no stage's
answer stands before the engine has returned (a later constant map, value, mapping or engine
may give another verdict, a replay may refute a witness), so none is kept.

A TLC run stopped by a limit of the machine (its own wall-clock limit,
`BehaviorOptions.timeout`; memory; the tools failing) decides nothing, and what the grade does
next (the next candidate, class or engine) would give a verdict that depends on the machine.
So a grade that saw such a run and decided nothing is `undecided` with that limit's code
(`time_budget`, `resource_limit`, `infra_error`) whatever its engines said
(`machine_limited`; their verdict is kept in `instead_of`); the executor grades a
`time_budget` once more. A decided verdict stands: an `ok` is confirmed by runs that
finished, and a failure is a proof only where every member of its class was refuted by a run
that finished (or it needs no mapping).
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import replace

from tlc_harness.behavior.deadline import BudgetedHarness, Clock, Deadline, OutputBudgetExhausted
from tlc_harness.behavior.graph_engine import GraphEngine
from tlc_harness.behavior.graph_engine.initial_states import fewer_initial_states
from tlc_harness.behavior.graph_engine.stored_constants import smaller_whatever_stored
from tlc_harness.behavior.graph_engine.symbol_check import opaque_tokens, symbols_to_withdraw
from tlc_harness.behavior.options import BehaviorOptions
from tlc_harness.behavior.own_model_run import OwnModelRun
from tlc_harness.behavior.policy import POLICIES, Engine, Job, StepAside
from tlc_harness.behavior.reverse_liveness import require_liveness_checked
from tlc_harness.behavior.soundness import classify
from tlc_harness.behavior.stage_clock import StageClock, add_stage_seconds
from tlc_harness.behavior.staging import Reference, system_model
from tlc_harness.behavior.subscripts import justify_ok
from tlc_harness.behavior.verdicts import (
    CLOCK_REASONS,
    BehaviorResult,
    BehaviorVerdict,
    Reason,
    instead_of,
    limit_reason,
)
from tlc_harness.behavior.wrapper_engine import WrapperEngine
from tlc_harness.source.identifiers import analyze_module
from tlc_harness.source.rename import RenameError
from tlc_harness.source.tokens import blank_comments
from tlc_harness.tools.results import Verdict
from tlc_harness.tools.runner import Harness
from tlc_harness.tools.spec import SpecInputError

#: the checks that need no mapping, tried in order on what no engine decided, by stage name
MAPPING_FREE_STAGES = (("initial_states", fewer_initial_states),
                       ("stored_constants", smaller_whatever_stored))
#: the engines by name (a policy's steps name them)
ENGINES: dict[str, Engine] = {"graphs": GraphEngine(), "wrappers": WrapperEngine()}


def grade_behavior(harness: Harness, ref: Reference, out_files: Mapping[str, str],
                   out_main: str, options: BehaviorOptions | None = None, *,
                   clock: Clock = time.monotonic,
                   own_run: OwnModelRun | None = None) -> BehaviorResult:
    """The behavior verdict of the output against `ref`, by the engine `options` chooses,
    within its `output_budget` (read on `clock`; see `deadline`). `own_run`: the output's
    passed run under the task's model (the name grade's), whose graph the graph engine reads
    where it would explore the same model.

    An output whose main module tree-sitter cannot read, even with its comments blanked (both
    engines take its variables and constants from it), or that cannot be staged for TLC (its
    module names cannot be given fresh names), is `undecided`, with the reason: the grader's
    limit, not the output's failure.
    """
    options = options or BehaviorOptions()
    deadline = Deadline(options.output_budget, clock)
    budgeted = BudgetedHarness(harness, deadline)
    try:
        result = _graded(budgeted, ref, out_files, out_main, options, deadline, own_run)
    except OutputBudgetExhausted as exc:
        result = BehaviorResult(BehaviorVerdict.UNDECIDED, None, f"{exc} (budget "
                                f"{options.output_budget:g} s); nothing before it decides",
                                deadline.used(), tlc_runs=budgeted.runs, engine=options.engine,
                                code=Reason.OUTPUT_BUDGET)
    else:
        # the grade reached its own verdict: a run it never took (a sweep's, started ahead
        # and waited for) may have been cut by the deadline, which is not this verdict's
        deadline.exhausted = None
        result = machine_limited(result, budgeted.limited)
    budget = deadline.details()
    return replace(result, details={**result.details, **budget}) if budget else result


def machine_limited(result: BehaviorResult, limited: Sequence[Verdict]) -> BehaviorResult:
    """`result`, or `undecided` with the first limit's code where it decides nothing and some
    of its TLC runs were stopped by a limit of the machine (`limited`, their verdicts). The
    reference's coverage is not the output's grade: `not_covered` stays."""
    if not limited or result.verdict.decided or result.code in CLOCK_REASONS or \
            result.verdict is BehaviorVerdict.NOT_COVERED:
        return result
    return replace(result, verdict=BehaviorVerdict.UNDECIDED, code=limit_reason(limited[0]),
                   soundness=None, reason=(
                       f"{len(limited)} of its TLC runs stopped at a limit of the machine "
                       f"({', '.join(sorted(set(limited)))}), so what the grade tried after "
                       f"them depends on the machine (without them: {result.verdict}, "
                       f"{result.reason})"),
                   details={**result.details, "instead_of": instead_of(result),
                            "limited_runs": len(limited)})


def _graded(harness: Harness, ref: Reference, out_files: Mapping[str, str], out_main: str,
            options: BehaviorOptions, deadline: Deadline,
            own_run: OwnModelRun | None = None) -> BehaviorResult:
    """`grade_behavior`'s verdict, on a harness bounded by `deadline`."""
    start = time.monotonic()
    source = out_files.get(f"{out_main}.tla")
    if source is not None and not analyze_module(source).module:
        # comments mean nothing to TLC; tree-sitter may fail on one (a PlusCal algorithm
        # that mixes the two syntaxes) and read the module without them
        out_files = {name: blank_comments(text) if name.endswith(".tla") else text
                     for name, text in out_files.items()}
        if not analyze_module(out_files[f"{out_main}.tla"]).module:
            return BehaviorResult(BehaviorVerdict.UNDECIDED, None, "tree-sitter cannot read the output's "
                                  "module, so its variables and constants are unknown to the "
                                  "grader", time.monotonic() - start, engine=options.engine,
                                  code=Reason.UNREADABLE_OUTPUT)
    ref, system = system_model(ref)
    try:
        job = Job(harness, ref, out_files, out_main, options, deadline, own_run=own_run)
        result = _decided(job, start)
        withdrawn: dict[str, str] = {}
        while result.verdict.decided and opaque_tokens(result):
            # a constant taken as a symbol stands for every value only where it meets
            # symbols alone; the ones that meet another sort are graded as values
            mixed = symbols_to_withdraw(job, result)
            if mixed is None:
                result = replace(result, verdict=BehaviorVerdict.UNDECIDED,
                                 code=Reason.SYMBOL_UNCHECKED, soundness=None, reason=(
                                     f"the output's graph, which would show whether "
                                     f"{', '.join(sorted(opaque_tokens(result)))} meet only "
                                     f"symbols, cannot be explored ({result.verdict}: "
                                     f"{result.reason})"))
                break
            if not mixed:
                break
            withdrawn.update(mixed)
            job = replace(job, not_symbols=frozenset(withdrawn))
            result = _decided(job, start)
        if withdrawn:
            result = replace(result, details={**result.details, "not_symbols": withdrawn})
    except (RenameError, SpecInputError) as exc:
        return BehaviorResult(BehaviorVerdict.UNDECIDED, None, f"the output cannot be staged for TLC: {exc}",
                              time.monotonic() - start, engine=options.engine,
                              code=Reason.UNSTAGEABLE_OUTPUT)
    return replace(result, details={**result.details, "reference_model": system}) \
        if system else result


def _decided(job: Job, start: float) -> BehaviorResult:
    """The policy's verdict with the rules an `ok` must pass, classified, or else what a
    check that needs no mapping decides."""
    result = spec_unread(job, start) or run_policy(job)
    for rule in (justify_ok, require_liveness_checked):  # what an `ok` must also show
        result = rule(result, job.ref, job.staged)
    result = classify(result)  # every decided verdict has a class, or is not decided
    if result.verdict in (BehaviorVerdict.NO_MAPPING, BehaviorVerdict.UNDECIDED):
        # what no engine decided, a check that needs no mapping may (it holds for any)
        clock = StageClock()  # timing only: each check meets the deadline in its runs
        for stage, check in MAPPING_FREE_STAGES:
            with clock.timed(stage):
                found = check(job, result)
            if found is not None:  # the seconds spent before it stay on the record
                result = add_stage_seconds(classify(found),
                                           result.details.get("stage_seconds") or {})
                break
        result = add_stage_seconds(result, clock.seconds)
    return result


def spec_unread(job: Job, start: float) -> BehaviorResult | None:
    """`undecided` for an output whose formula the cfg names has no Init and Next the grader
    can read (`Staged.spec_unread`): the stages that need them would otherwise have none, or
    (before) operators named `Init` and `Next` that need not be the formula's."""
    staged = job.staged
    if not staged.spec_unread:
        return None
    return BehaviorResult(BehaviorVerdict.UNDECIDED, None, f"the output's {staged.out_spec} "
                          f"(the formula the cfg names) has no initial predicate and next-state "
                          f"action the grader can read (`I /\\ [][N]_v /\\ ...`, through "
                          f"definitions)", time.monotonic() - start,
                          engine=job.options.engine, code=Reason.SPEC_UNREAD)


def run_policy(job: Job) -> BehaviorResult:
    """The first verdict of the policy's steps; a step that steps aside hands over to the next
    (its TLC runs count, its reason is kept as `fallback`); the last one's step-aside is
    `undecided`."""
    start = time.monotonic()
    steps = POLICIES[job.options.engine]
    aside: StepAside | None = None
    runs = 0
    for n, step in enumerate(steps):
        job.deadline.enter(step.engine)
        answer = ENGINES[step.engine].grade(job)
        if isinstance(answer, BehaviorResult):
            if aside is None:
                return answer
            answer = add_stage_seconds(answer, aside.details.get("stage_seconds") or {})
            return replace(answer, seconds=time.monotonic() - start,
                           tlc_runs=answer.tlc_runs + runs,
                           details={**answer.details, "fallback": aside.why})
        aside, runs = answer, runs + answer.tlc_runs
        if n == len(steps) - 1:
            return BehaviorResult(BehaviorVerdict.UNDECIDED, None, f"{step.label} cannot grade this: "
                                  f"{answer.why}", time.monotonic() - start,
                                  engine=step.engine, tlc_runs=runs, details=answer.details,
                                  code=answer.code)
    raise AssertionError(f"the policy {job.options.engine!r} has no step")
