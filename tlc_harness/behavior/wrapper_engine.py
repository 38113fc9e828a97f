"""The wrapper engine: search variable bijections and ask TLC, two runs per mapping.

For each candidate mapping (same names first, then up to `limit` type-compatible bijections of
variables and constants), TLC runs the forward wrapper and, where it passes, the reverse one
(`wrapper_modules`). The output passes when both pass under one mapping (and, for an output
whose formula adds fairness or liveness, a third run of that whole formula on R's behaviors).
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

from tlc_harness.behavior.deadlock import DETAIL as DEADLOCK_DETAIL
from tlc_harness.behavior.deadlock import (
    checks_deadlock,
    reference_deadlocks,
    stuck_reason,
    without_deadlock,
)
from tlc_harness.behavior.observables import bypassed
from tlc_harness.behavior.options import DEFAULT_LIMIT
from tlc_harness.behavior.own_run import own_run_error
from tlc_harness.behavior.policy import Job
from tlc_harness.behavior.reverse_liveness import (
    ITSELF,
    LivenessStatus,
    check_reverse_liveness,
    checked_as_itself,
    temporal_output,
    the_reference_itself,
)
from tlc_harness.behavior.search import (
    Candidate,
    candidate_mappings,
    constant_maps,
    paired_by_meaning,
    shape_mismatch,
)
from tlc_harness.behavior.stage_clock import StageClock, add_stage_seconds
from tlc_harness.behavior.staging import (
    CfgValues,
    Reference,
    Staged,
    constant_values,
    stage_output,
    uncovered,
)
from tlc_harness.behavior.sweeps import Sweep
from tlc_harness.behavior.verdicts import (
    Attempt,
    BehaviorResult,
    BehaviorVerdict,
    Reason,
    ValueSource,
    limit_reason,
)
from tlc_harness.behavior.wrapper_modules import check_label, forward_wrapper, reverse_wrapper
from tlc_harness.tools.results import LIMIT_VERDICTS, CheckResult, TraceState, Verdict
from tlc_harness.tools.runner import Harness


def behavior_grade(harness: Harness, ref: Reference, out_files: Mapping[str, str],
                   out_main: str, *, limit: int = DEFAULT_LIMIT,
                   timeout: float | None = None, sweep_jobs: int = 1,
                   staged: Staged | None = None) -> BehaviorResult:
    """Search mappings and run the forward and reverse checks (R must pass its own check);
    `sweep_jobs` forward checks run at once, ahead of their turn (`sweeps`)."""
    clock = StageClock()
    noted: dict[str, str] = {}  # what the grade learnt of the reference (`deadlock.DETAIL`)
    with Sweep[CheckResult](sweep_jobs) as sweep:
        result = _graded(harness, ref, out_files, out_main, limit, timeout, sweep, clock,
                         staged, noted)
    more = {**sweep.details(), **noted}
    result = replace(result, details={**result.details, **more}) if more else result
    return add_stage_seconds(result, clock.seconds)


def _graded(harness: Harness, ref: Reference, out_files: Mapping[str, str], out_main: str,
            limit: int, timeout: float | None, sweep: Sweep[CheckResult],
            clock: StageClock, staged: Staged | None = None,
            noted: dict[str, str] | None = None) -> BehaviorResult:
    start = time.monotonic()
    noted = {} if noted is None else noted
    outside = uncovered(ref)
    if outside:
        return BehaviorResult(BehaviorVerdict.NOT_COVERED, None, outside[1], 0.0, code=outside[0])
    values, unsupported = constant_values(ref)
    if unsupported:
        return BehaviorResult(BehaviorVerdict.NOT_COVERED, None, unsupported, time.monotonic() - start,
                              code=Reason.REFERENCE_CFG)
    st = staged or stage_output(out_files, out_main, ref)
    if st.out_init is None or st.out_next is None:
        missing = [d for d, v in (("Init", st.out_init), ("Next", st.out_next)) if v is None]
        return BehaviorResult(BehaviorVerdict.NO_MAPPING, None,
                              f"the output defines no {' or '.join(missing)}",
                              time.monotonic() - start, code=Reason.NO_ENTRY_POINTS)
    why = shape_mismatch(st.ref_shape, st.out_shape)
    if why:
        return BehaviorResult(BehaviorVerdict.NO_MAPPING, None, why, time.monotonic() - start,
                              code=Reason.SHAPE_MISMATCH)
    const_maps = constant_maps(st.ref_shape, st.out_shape)
    pairings = len(const_maps) or 1
    alike = paired_by_meaning(st.ref_shape, st.out_shape)
    attempts: list[Attempt] = []
    runs = 0
    first_trace: tuple[TraceState, ...] = ()
    passed_forward = False
    undecided = ""
    undecided_code = Reason.TIME_BUDGET
    failed: Counter[bool] = Counter()  # forward failures: at an evaluation error, or not
    rejected = 0  # forward checks whose run the output's ASSUME stopped
    unparsed = 0  # forward wrappers SANY rejected (the output parses alone: the grader's fault)
    first_cand: Candidate | None = None
    temporal = temporal_output(st)
    liveness_failures = 0  # candidates that failed only on the output's fairness or liveness
    safety_failures = 0  # candidates whose reverse run of the safety part failed
    too_big = _LimitedSpaces(ref)
    stuck: str | None = None  # why the reference's own model deadlocks ("": it does not)

    def reference_stuck() -> bool:
        """After a run of the output stopped at a deadlock: whether the reference's own model
        deadlocks too (asked once), and then `ref` is graded with deadlock unchecked."""
        nonlocal ref, stuck, runs
        if stuck is not None or not checks_deadlock(ref):
            return False
        stuck = reference_deadlocks(harness, ref, timeout) or ""
        runs += 1
        if stuck:
            noted[DEADLOCK_DETAIL] = stuck
            ref = without_deadlock(ref)
        return bool(stuck)

    def passed(cand: Candidate, details: dict[str, Any]) -> BehaviorResult:
        """The `ok` under `cand`, once both directions passed."""
        details.update(_constant_facts(cand.to_json(), attempts, values, pairings, alike,
                                       passed=True))
        routed = bypassed(cand.variables, st.out_shape.variables)
        if routed:  # a named observable given another output variable: nothing shown of it
            return BehaviorResult(BehaviorVerdict.UNDECIDED, cand.to_json(), f"refines both "
                                  f"ways only under {cand.describe()}, which reads another "
                                  f"output variable for {', '.join(routed)} than the output's "
                                  f"own of that name", time.monotonic() - start,
                                  tuple(attempts), (), runs, details=details,
                                  code=Reason.OBSERVABLE_RECOMPUTED)
        return BehaviorResult(BehaviorVerdict.OK, cand.to_json(), f"refines both ways under "
                              f"{cand.describe()}", time.monotonic() - start,
                              tuple(attempts), (), runs, details=details)

    def forward(cand: Candidate) -> Callable[[], CheckResult]:
        def run() -> CheckResult:  # the wrapper is written only when the run is made
            src, cfg = forward_wrapper(ref, st, cand, values)
            return harness.check(src, cfg, tlc_args=ref.tlc_args, timeout=timeout,
                                 compat=True)
        return run

    cands = list(candidate_mappings(st.ref_shape, st.out_shape, limit=limit,
                                    const_maps=const_maps))
    for n, cand in enumerate(cands):
        first_cand = first_cand or cand
        if too_big.skips(cand):
            continue
        t0 = time.monotonic()
        for k, later in enumerate(cands[n:n + sweep.jobs], n):  # this run and the next ones
            if not too_big.limits(later):
                sweep.ahead(k, forward(later))
        with clock.timed("forward"):
            fwd = sweep.take(n, forward(cand))
            runs += 1
            if fwd.verdict is Verdict.DEADLOCK:  # counts only where the reference has none
                reference_stuck()
            if fwd.verdict is Verdict.DEADLOCK and not checks_deadlock(ref):
                fwd = forward(cand)()  # (a run started before deadlock was unchecked)
                runs += 1
        too_big.saw(cand, fwd.verdict)
        if fwd.verdict is Verdict.OK and fwd.vacuous:  # no initial state: nothing refines R
            attempts.append(Attempt(cand.to_json(), "vacuous (the output has no initial state)",
                                    None, time.monotonic() - t0))
            continue
        if fwd.verdict is not Verdict.OK:
            failed[fwd.verdict is Verdict.EVAL_ERROR] += 1
            rejected += fwd.verdict is Verdict.ASSUMPTION_FAILED
            unparsed += fwd.verdict is Verdict.PARSE_ERROR
            if fwd.verdict in LIMIT_VERDICTS and not undecided:
                undecided = f"forward check under {cand.describe()}: {check_label(fwd)}"
                undecided_code = limit_reason(fwd.verdict)
            if not first_trace and fwd.trace:
                first_trace = fwd.trace
            attempts.append(Attempt(cand.to_json(), check_label(fwd), None,
                                    time.monotonic() - t0, fwd.detail[:300]))
            continue
        passed_forward = True
        if the_reference_itself(ref, st, out_files, out_main, cand):
            # every reverse check is F => F: valid, so no run is made for it
            attempts.append(Attempt(cand.to_json(), check_label(fwd), ITSELF,
                                    time.monotonic() - t0))
            return passed(cand, checked_as_itself() if temporal else {})
        with clock.timed("reverse"):
            src, cfg = reverse_wrapper(ref, st, cand)
            rev = harness.check(src, cfg, tlc_args=ref.tlc_args, timeout=timeout, compat=True)
            runs += 1
            if rev.verdict is Verdict.DEADLOCK and checks_deadlock(ref):
                # the reverse run explores the reference's own model: it deadlocks
                stuck = stuck_reason("TLC's run of the reference's own model (the reverse "
                                     "check) stops at a deadlock")
                noted[DEADLOCK_DETAIL] = stuck
                ref = without_deadlock(ref)
                src, cfg = reverse_wrapper(ref, st, cand)
                rev = harness.check(src, cfg, tlc_args=ref.tlc_args, timeout=timeout,
                                    compat=True)
                runs += 1
        attempts.append(Attempt(cand.to_json(), check_label(fwd), check_label(rev),
                                time.monotonic() - t0, rev.detail[:300]))
        live = None
        if rev.verdict is Verdict.OK and temporal:
            # the output's fairness and liveness, on R's behaviors (`reverse_liveness`)
            with clock.timed("reverse_liveness"):
                live = check_reverse_liveness(harness, ref, st, cand, values, one_to_one=True,
                                              timeout=timeout)  # a renaming
            runs += live.runs
            if live.status is LivenessStatus.VIOLATED and live.check is not None:
                liveness_failures += 1
                first_trace = live.check.trace or first_trace
                attempts[-1] = replace(attempts[-1], reverse=live.reason[:200])
                continue
            if live.status is LivenessStatus.LIMIT:
                undecided = undecided or live.reason
                undecided_code = limit_reason(live.check.verdict) if live.check else undecided_code
                continue
        if rev.verdict is Verdict.OK:
            return passed(cand, {} if live is None else {"reverse_liveness": live.status,
                                                         "reverse_liveness_reason": live.reason})
        if rev.verdict in LIMIT_VERDICTS:
            if not undecided:
                undecided = f"reverse check under {cand.describe()}: {check_label(rev)}"
                undecided_code = limit_reason(rev.verdict)
        else:
            safety_failures += 1
            first_trace = rev.trace or first_trace
    seconds = time.monotonic() - start
    last = attempts[-1].mapping if attempts else None
    if not attempts:
        return BehaviorResult(BehaviorVerdict.NO_MAPPING, None, "no candidate mapping", seconds,
                              code=Reason.NO_CANDIDATE)
    if undecided:
        return BehaviorResult(BehaviorVerdict.UNDECIDED, last, undecided, seconds, tuple(attempts),
                              first_trace, runs, code=undecided_code, details=too_big.details())
    facts = _constant_facts(last, attempts, values, pairings, alike)
    if passed_forward:
        only_liveness = liveness_failures and not safety_failures
        return BehaviorResult(BehaviorVerdict.REVERSE_FAIL, last, "the output allows too few behaviors "
                              "(reverse check failed under every mapping that passed forward"
                              + (", on its fairness or liveness)" if only_liveness else ")"),
                              seconds, tuple(attempts), first_trace, runs,
                              code=Reason.REVERSE_LIVENESS if only_liveness
                              else Reason.TLC_REVERSE, details=facts)
    every_mapping = {  # a forward check that stopped alike under every mapping: no verdict
        Reason.TLC_ERROR_WRAPPER: (unparsed, BehaviorVerdict.UNDECIDED, "SANY rejects the "
                                   "grader's forward wrapper, though the output parses alone: "
                                   "no TLC run compared the two"),
        Reason.ASSUME_REJECTS: (rejected, BehaviorVerdict.NO_MAPPING, "the output's ASSUME "
                                "rejects the reference's values for its constants")}
    for code, (count, verdict, why) in every_mapping.items():
        if count == len(attempts):
            first = f" ({attempts[0].reason[:200]})" if attempts[0].reason else ""
            return BehaviorResult(verdict, last, f"{why}, under all {len(attempts)} "
                                  f"mapping(s){first}", seconds, tuple(attempts), first_trace,
                                  runs, code=code)
    if failed[True] and not failed[False] and len(attempts) == failed[True] and first_cand:
        # An evaluation error under every mapping may be the mappings' fault (a reference
        # function applied outside its domain) or the output's own: its run alone tells.
        with clock.timed("own_run"):
            src, cfg = forward_wrapper(ref, st, first_cand, values)
            own = harness.check(src, replace(cfg, invariants=(), properties=(), constraints=(),
                                             action_constraints=()),
                                tlc_args=ref.tlc_args, timeout=timeout, compat=True)
            runs += 1
            if own.verdict is Verdict.DEADLOCK and reference_stuck():
                # the reference deadlocks too: no failure of the output's
                src, cfg = forward_wrapper(ref, st, first_cand, values)
                own = harness.check(src, replace(cfg, invariants=(), properties=(),
                                                 constraints=(), action_constraints=()),
                                    tlc_args=ref.tlc_args, timeout=timeout, compat=True)
                runs += 1
        seconds = time.monotonic() - start
        if own.verdict is Verdict.OK:
            return BehaviorResult(BehaviorVerdict.NO_MAPPING, last,
                                  f"every mapping's forward check stopped at "
                                  f"an evaluation error (first: {attempts[0].forward}), and the "
                                  f"output runs on its own: no mapping fits it",
                                  seconds, tuple(attempts), first_trace, runs,
                                  code=Reason.MAPPINGS_EVAL_ERROR)
        if own.verdict in LIMIT_VERDICTS:
            return BehaviorResult(BehaviorVerdict.UNDECIDED, last,
                                  f"every mapping's forward check stopped at "
                                  f"an evaluation error; the output's own run: {check_label(own)}",
                                  seconds, tuple(attempts), first_trace, runs,
                                  code=limit_reason(own.verdict))
        sets = st.infinite_sets() if own.verdict is Verdict.EVAL_ERROR else None
        if sets:
            return BehaviorResult(BehaviorVerdict.UNDECIDED, last,
                                  f"the output's own run stops at an evaluation error and its "
                                  f"specification reads {', '.join(sorted(sets))}, "
                                  f"which TLC cannot enumerate", seconds, tuple(attempts),
                                  first_trace, runs, code=Reason.INFINITE_SET)
        return BehaviorResult(BehaviorVerdict.FORWARD_FAIL, last, f"the output's own run fails under the "
                              f"reference's constants ({check_label(own)})", seconds,
                              tuple(attempts), own.trace or first_trace, runs,
                              code=Reason.OUTPUT_RUN_FAILS, details={
                                  **facts, "own_run_error": own_run_error(
                                      own.verdict.value, own.message_codes).value})
    return BehaviorResult(BehaviorVerdict.FORWARD_FAIL, last, f"forward check failed under all "
                          f"{len(attempts)} mapping(s); first: {attempts[0].forward}",
                          seconds, tuple(attempts), first_trace, runs, code=Reason.TLC_FORWARD,
                          details=facts)


class _LimitedSpaces:
    """The constant maps whose forward run stopped at TLC's time or memory limit.

    A forward run explores the output's states under its constants' values, and checks the
    mapping on them: without reference constraints (which TLC evaluates on the mapped
    state), another mapping under the same constants explores the same states, so its run
    either fails (which cannot decide once a run was stopped: a failure needs every mapping
    to fail) or is stopped too; it can never pass. Such candidates are skipped, counted in
    `skipped_after_limit`. A run stopped by an infrastructure error is not such a limit."""

    STOPS = frozenset({Verdict.TIMEOUT, Verdict.RESOURCE_LIMIT})

    def __init__(self, ref: Reference) -> None:
        self.applies = not ref.cfg.constraints and not ref.cfg.action_constraints
        self.limited: set[frozenset[tuple[str, str]]] = set()
        self.skipped = 0

    def saw(self, cand: Candidate, verdict: Verdict) -> None:
        if self.applies and verdict in self.STOPS:
            self.limited.add(frozenset(cand.constants.items()))

    def limits(self, cand: Candidate) -> bool:
        """Whether `cand` is to be skipped (nothing counted)."""
        return frozenset(cand.constants.items()) in self.limited

    def skips(self, cand: Candidate) -> bool:
        skip = self.limits(cand)
        self.skipped += skip
        return skip

    def details(self) -> dict[str, int]:
        return {"skipped_after_limit": self.skipped} if self.skipped else {}


def _constant_facts(mapping: dict[str, Any] | None, attempts: list[Attempt], values: CfgValues,
                    pairings: int, alike: tuple[set[tuple[str, str]], set[tuple[str, str]]],
                    *, passed: bool = False
                    ) -> dict[str, Any]:
    """The verdict's constants (each the cfg value of the reference constant it is paired
    with) and the pairings of constants: how many exist, how many were tried, and for a
    failure how many failed (all tried: a failure is reported once every candidate is)."""
    pairs = (mapping or {}).get("constants", {})
    tried = len({tuple(sorted(a.mapping.get("constants", {}).items())) for a in attempts})
    return {"constants": {g: {"value": values.literals.get(r, r).strip(), "from": r,
                              "source": ValueSource.REFERENCE_CONSTANT.value,
                              **({"named_alike": True} if (g, r) in alike[0] else {}),
                              **({"used_alike": True} if (g, r) in alike[1] else {})}
                          for g, r in pairs.items()},
            "pairings": {"total": pairings, "graded": tried,
                         **({} if passed else {"failed": tried})},
            # a failure under every bijection of variables with values as they are: a value
            # translation (BOOLEAN's complement, strings for model values) is never tried
            **({} if passed else {"mapping_class": "incomplete", "mapping_class_reason":
                                  "variable bijections with values as they are: no value "
                                  "translation is tried"})}


class WrapperEngine:
    """Search variable bijections and ask TLC through the wrapper modules (never steps aside)."""

    name = "wrappers"

    def grade(self, job: Job) -> BehaviorResult:
        return behavior_grade(job.harness, job.ref, job.out_files, job.out_main,
                              limit=1 if job.options.self_check else job.options.limit,
                              timeout=job.options.timeout, sweep_jobs=job.options.sweep_jobs,
                              staged=job.staged)
