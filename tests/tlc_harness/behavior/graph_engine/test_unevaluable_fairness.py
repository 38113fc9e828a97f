"""A reference whose fairness TLC cannot evaluate as a property (its fair action reads a primed
variable that only the next-state action sets, as in a published consensus model): the graph
engine decides safety on the graphs and checks the rest with TLC without that fairness, saying
so; a failure of the safety part still fails, and a pass is no `ok`: nothing checked the
fairness, so it is `undecided` (`liveness_unchecked`)."""

from __future__ import annotations

import pytest

from tlc_harness.behavior.engine import grade_behavior
from tlc_harness.behavior.options import BehaviorOptions
from tlc_harness.behavior.staging import Reference
from tlc_harness.behavior.verdicts import Reason
from tlc_harness.source.cfg import parse_cfg
from tlc_harness.tools.runner import Harness

REF_TEXT = """---- MODULE Flip ----
EXTENDS Integers
VARIABLES x, y
vars == <<x, y>>
Init == x = 0 /\\ y = 0
Turn == /\\ y' = 1 - y
        /\\ x' # 5
Next == x' \\in {0, 1} /\\ Turn
Spec == Init /\\ [][Next]_vars /\\ WF_vars(Turn)
====
"""
REF = Reference("Flip", {"Flip.tla": REF_TEXT}, parse_cfg("SPECIFICATION Spec\n"))
OUT = """---- MODULE Out ----
EXTENDS Integers
VARIABLES a, b
Init == a = 0 /\\ b = 0
Next == {step}
Spec == Init /\\ [][Next]_<<a, b>> /\\ WF_<<a, b>>(Next)
====
"""


def test_the_reference_s_fairness_is_one_tlc_cannot_evaluate(harness: Harness) -> None:
    # the full forward check of the reference against itself stops at an evaluation error
    result = grade_behavior(harness, REF, {"Flip.tla": REF_TEXT}, "Flip",
                            BehaviorOptions(engine="wrappers"))
    assert result.verdict != "ok", result.reason  # else this file tests nothing


FLIP = "a' \\in {0, 1} /\\ b' = 1 - b"


@pytest.mark.parametrize(("step", "expected"), [
    (FLIP, "undecided"),
    ("a' \\in {0, 1} /\\ b' = b", "fail"),  # y never moves
    (f"({FLIP}) \\/ (a' = 1 - a /\\ b' = b)", "fail"),  # x moves alone
])
def test_graded_without_that_fairness(harness: Harness, step: str, expected: str) -> None:
    result = grade_behavior(harness, REF, {"Out.tla": OUT.format(step=step)}, "Out",
                            BehaviorOptions(engine="auto"))
    if expected == "fail":
        # the output's `a`, `b` for R's `x`, `y`: the named class says nothing, but no state
        # mapping at all makes the output's graph the reference's
        assert result.verdict in ("forward_fail", "reverse_fail"), result.reason
        assert result.details["mapping_basis"] == "any_mapping", result.reason
    else:
        assert (result.verdict, result.code) == ("undecided", Reason.LIVENESS_UNCHECKED), \
            result.reason
        assert "without the reference's fairness" in result.reason
        assert result.details.get("fairness_checked") is False


def test_the_reference_against_itself_is_no_ok(harness: Harness) -> None:
    result = grade_behavior(harness, REF, {"Flip.tla": REF_TEXT}, "Flip",
                            BehaviorOptions(engine="auto"))
    assert (result.verdict, result.code) == ("undecided", Reason.LIVENESS_UNCHECKED), \
        result.reason
