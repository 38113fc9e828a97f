"""Values for the output's own constants in the graph engine. A constant the reference lacks may
take the value of the reference's literal definition of the same name, once the reference's
constants are put in (`Node == 0 .. N-1`): that value is the reference's, and a failure under
it is the output's. Any other value is a guess: only an `ok` under it counts, a failure under
it is `no_mapping`, never a `forward_fail` the grader made up."""

from __future__ import annotations

import pytest

from tlc_harness.behavior.engine import grade_behavior
from tlc_harness.behavior.options import BehaviorOptions
from tlc_harness.behavior.wrappers import Reference
from tlc_harness.source.cfg import parse_cfg
from tlc_harness.tools.runner import Harness

RING = """---- MODULE Ring ----
EXTENDS Integers
CONSTANT N
Node == 0 .. N-1
Max == 2
VARIABLE tok
Init == tok = 0
Next == tok' = (tok + 1) % N
Spec == Init /\\ [][Next]_tok
====
"""
REF = Reference("Ring", {"Ring.tla": RING}, parse_cfg("CONSTANT N = 3\nSPECIFICATION Spec\n"))
OUT = """---- MODULE Out ----
EXTENDS Integers, FiniteSets
CONSTANTS {constants}
VARIABLE tok
Init == tok = 0
Next == tok' = (tok + {step}) % Cardinality(Node)
Spec == Init /\\ [][Next]_tok
====
"""
GRAPHS = BehaviorOptions(engine="graphs")


def _grade(harness: Harness, constants: str, step: str) -> tuple[str, str]:
    files = {"Out.tla": OUT.format(constants=constants, step=step)}
    result = grade_behavior(harness, REF, files, "Out", GRAPHS)
    return result.verdict, result.reason


def test_a_same_name_definition_gives_the_reference_value(harness: Harness) -> None:
    assert _grade(harness, "Node", "1")[0] == "ok"


def test_a_failure_under_the_reference_value_is_the_output_s(harness: Harness) -> None:
    assert _grade(harness, "Node", "2")[0] == "forward_fail"


FIXED_RING = RING.replace("CONSTANT N\n", "").replace("0 .. N-1", "{0, 1, 2}").replace(
    "% N", "% 3")
FIXED_REF = Reference("Ring", {"Ring.tla": FIXED_RING}, parse_cfg("SPECIFICATION Spec\n"))


def _grade_fixed(harness: Harness, step: str) -> tuple[str, str]:
    # `Node` takes the reference's Node; `Step` can only take `Max == 2`, which the reference
    # defines for no constant of the output's
    files = {"Out.tla": OUT.format(constants="Node, Step", step=step)}
    result = grade_behavior(harness, FIXED_REF, files, "Out", GRAPHS)
    return result.verdict, result.reason


@pytest.mark.parametrize("step", ["Step", "Step + 1"])
def test_a_failure_under_a_guessed_value_is_no_mapping(harness: Harness, step: str) -> None:
    verdict, reason = _grade_fixed(harness, step)
    assert verdict == "no_mapping", reason
    assert "does not fix for Step" in reason


def test_an_ok_under_a_guessed_value_counts(harness: Harness) -> None:
    assert _grade_fixed(harness, "Step - 1")[0] == "ok"


def test_a_reference_constant_given_to_two_output_constants_is_a_guess(harness: Harness) -> None:
    # `Step` can take N only as `N` does too (or `Max == 2`): whatever it takes is a guess
    verdict, reason = _grade(harness, "N, Node, Step", "Step")
    assert verdict == "no_mapping", reason
    assert "does not fix for" in reason
