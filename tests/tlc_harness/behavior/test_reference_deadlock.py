"""Freedom from deadlock is asked of an output only where the reference's model has it
(`tlc_harness/behavior/deadlock.py`): TLC checks deadlock by default, but `[][Next]_v` lets a
behavior halt, so a reference whose own model reaches a stuck state claims no freedom from
deadlock, and an output stuck where it is (the reference itself) differs from it in nothing.
Where the reference's model is free of deadlock, an output that gets stuck still fails."""

from __future__ import annotations

import pytest

from tlc_harness.behavior.engine import grade_behavior
from tlc_harness.behavior.options import BehaviorOptions
from tlc_harness.behavior.staging import Reference
from tlc_harness.behavior.verdicts import BehaviorVerdict
from tlc_harness.source.cfg import parse_cfg
from tlc_harness.tools.runner import Harness

#: counts to three and stops there: TLC's default deadlock check fails on it
HALTING = """---- MODULE Halting ----
EXTENDS Naturals
VARIABLE x
Init == x = 0
Next == x < 3 /\\ x' = x + 1
Spec == Init /\\ [][Next]_x
Low == x < 10
====
"""
#: the same count, which stays at three by a step of its own: no deadlock
STAYING = HALTING.replace("Halting", "Staying").replace(
    "Next == x < 3 /\\ x' = x + 1", "Next == (x < 3 /\\ x' = x + 1) \\/ (x = 3 /\\ x' = x)")


@pytest.mark.parametrize("engine", ["graphs", "wrappers"])
@pytest.mark.parametrize("cfg", ["SPECIFICATION Spec\n",
                                 "SPECIFICATION Spec\nCONSTRAINT Low\n"])
def test_a_reference_that_deadlocks_passes_against_itself(harness: Harness, engine: str,
                                                          cfg: str) -> None:
    ref = Reference("Halting", {"Halting.tla": HALTING}, parse_cfg(cfg))
    graded = grade_behavior(harness, ref, {"Halting.tla": HALTING}, "Halting",
                            BehaviorOptions(engine=engine, timeout=120))
    assert graded.verdict is BehaviorVerdict.OK, graded.reason
    assert "no property of its model" in graded.details["reference_deadlock"]


def test_a_deadlock_the_reference_lacks_still_fails(harness: Harness) -> None:
    # the reference stays at three: its model is free of deadlock, the halting output is not
    ref = Reference("Staying", {"Staying.tla": STAYING}, parse_cfg("SPECIFICATION Spec\n"))
    graded = grade_behavior(harness, ref, {"Halting.tla": HALTING}, "Halting",
                            BehaviorOptions(engine="graphs", timeout=120))
    assert graded.verdict is BehaviorVerdict.FORWARD_FAIL, graded.reason
    assert "deadlocks" in graded.reason
    assert "reference_deadlock" not in graded.details
    # and the reference, unchecked for deadlock by its own cfg, asks nothing of the output
    unchecked = Reference("Staying", {"Staying.tla": STAYING},
                          parse_cfg("SPECIFICATION Spec\nCHECK_DEADLOCK FALSE\n"))
    graded = grade_behavior(harness, unchecked, {"Halting.tla": HALTING}, "Halting",
                            BehaviorOptions(engine="graphs", timeout=120))
    assert graded.verdict is BehaviorVerdict.OK, graded.reason
