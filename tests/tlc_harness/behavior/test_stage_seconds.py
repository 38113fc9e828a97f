"""Every behavior verdict records the seconds of the stages it went through (`stage_seconds`):
the wrapper engine's forward, reverse and own runs, the mapping-free checks' counting runs,
and, when one stage's verdict replaces another's, the seconds spent before it."""

from __future__ import annotations

from tests.tlc_harness.behavior.graph_engine.test_initial_states import FREE
from tests.tlc_harness.behavior.graph_engine.test_initial_states import REF as LAMP_REF
from tests.tlc_harness.behavior.test_soundness import COUNTER
from tests.tlc_harness.behavior.test_soundness import REF as COUNTER_REF
from tests.tlc_harness.behavior.test_wrapper_eval_errors import COUNTERS
from tests.tlc_harness.behavior.test_wrapper_eval_errors import REF as COUNTERS_REF
from tlc_harness.behavior.engine import grade_behavior
from tlc_harness.behavior.options import BehaviorOptions
from tlc_harness.behavior.stage_clock import StageClock, add_stage_seconds
from tlc_harness.behavior.verdicts import BehaviorResult, BehaviorVerdict, Reason
from tlc_harness.tools.runner import Harness

WRAPPERS = BehaviorOptions(engine="wrappers", timeout=120)


def _stages(result: BehaviorResult) -> dict[str, float]:
    stages: dict[str, float] = result.details["stage_seconds"]
    assert all(s >= 0 for s in stages.values()), stages
    assert sum(stages.values()) <= result.seconds + 0.5, (stages, result.seconds)
    return stages


def test_added_seconds_sum_stage_by_stage() -> None:
    result = BehaviorResult(BehaviorVerdict.OK, None, "", 3.0,
                            details={"stage_seconds": {"confirm": 1.0}, "other": 1})
    added = add_stage_seconds(result, {"confirm": 0.5, "initial_states": 0.25})
    assert added.details == {"stage_seconds": {"confirm": 1.5, "initial_states": 0.25},
                             "other": 1}
    assert add_stage_seconds(result, {}) is result
    clock = StageClock()
    for _ in range(2):
        with clock.timed("forward"):
            pass
    assert set(clock.seconds) == {"forward"}


def test_a_wrapper_ok_records_its_forward_and_reverse_runs(harness: Harness) -> None:
    graded = grade_behavior(harness, COUNTER_REF, {"Other.tla": COUNTER.replace(
        "Counter", "Other")}, "Other", WRAPPERS)
    assert graded.verdict is BehaviorVerdict.OK, graded.reason
    assert set(_stages(graded)) == {"forward", "reverse"}


def test_a_wrapper_failure_of_the_output_own_run_records_that_run(harness: Harness) -> None:
    files = {"Out.tla": COUNTERS.format(name="Out", ids="1..N", guard="x[i - 1] = 0")}
    graded = grade_behavior(harness, COUNTERS_REF, files, "Out", WRAPPERS)
    assert graded.code is Reason.OUTPUT_RUN_FAILS, graded.reason
    assert set(_stages(graded)) == {"forward", "own_run"}


def test_a_mapping_free_failure_keeps_the_engines_seconds(harness: Harness) -> None:
    graded = grade_behavior(harness, LAMP_REF, {"Other.tla": FREE.replace(
        "on \\in BOOLEAN", "on = TRUE")}, "Other", BehaviorOptions(engine="auto", timeout=120))
    assert graded.code is Reason.TOO_FEW_STATES, graded.reason
    stages = _stages(graded)
    assert "initial_states" in stages, stages
    assert set(stages) - {"initial_states"}, stages  # the engines' stages before it
