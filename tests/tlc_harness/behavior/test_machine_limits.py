"""A TLC run stopped by a limit of the machine (its wall clock, memory, the tools) decides
nothing: a behavior grade that saw one and decided nothing is `undecided` with that limit's
code, never the verdict another candidate, class or engine gave after it."""

from __future__ import annotations

from dataclasses import replace

from tlc_harness.behavior.engine import machine_limited
from tlc_harness.behavior.verdicts import BehaviorResult, BehaviorVerdict, Reason
from tlc_harness.tools.results import Verdict

NO_MAPPING = BehaviorResult(BehaviorVerdict.NO_MAPPING, None, "forward_fail under the mappings "
                            "tried", 1.0, code=Reason.MAPPING_CLASS_INCOMPLETE)
FAILED = BehaviorResult(BehaviorVerdict.FORWARD_FAIL, None, "fewer states", 1.0,
                        code=Reason.GRAPH_FORWARD)
OK = BehaviorResult(BehaviorVerdict.OK, {"x": "y"}, "refines both ways", 1.0)
NOT_COVERED = BehaviorResult(BehaviorVerdict.NOT_COVERED, None, "the reference fails", 1.0,
                             code=Reason.REFERENCE_FAILS)


def test_a_grade_that_decided_nothing_after_a_limit_is_that_limits_outcome() -> None:
    found = machine_limited(NO_MAPPING, [Verdict.TIMEOUT])
    assert (found.verdict, found.code) == (BehaviorVerdict.UNDECIDED, Reason.TIME_BUDGET)
    assert found.details["instead_of"]["verdict"] == "no_mapping"
    assert found.details["limited_runs"] == 1
    memory = machine_limited(NO_MAPPING, [Verdict.RESOURCE_LIMIT, Verdict.TIMEOUT])
    assert memory.code is Reason.RESOURCE_LIMIT


def test_decided_verdicts_and_the_references_coverage_stand() -> None:
    for result in (FAILED, OK, NOT_COVERED):
        assert machine_limited(result, [Verdict.TIMEOUT]) is result
    assert machine_limited(NO_MAPPING, []) is NO_MAPPING
    timed = replace(NO_MAPPING, verdict=BehaviorVerdict.UNDECIDED, code=Reason.OUTPUT_BUDGET)
    assert machine_limited(timed, [Verdict.TIMEOUT]) is timed
