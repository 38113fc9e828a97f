"""A failure TLC finds under one mapping of two isomorphic graphs holds under every mapping
that could work when the side whose behaviors are taken has no fairness (`transfer`); where
both sides have fairness, it does not carry over, and another mapping may pass."""

from __future__ import annotations

import pytest

from tlc_harness.behavior.engine import grade_behavior
from tlc_harness.behavior.options import BehaviorOptions
from tlc_harness.behavior.staging import Reference
from tlc_harness.behavior.verdicts import Reason
from tlc_harness.source.cfg import parse_cfg
from tlc_harness.tools.runner import Harness

GRAPHS = BehaviorOptions(engine="graphs")

#: a ring of three names (the reference steps `x` round it)
RING = """---- MODULE Ring ----
VARIABLE x
Init == x = "a"
Next == x' = CASE x = "a" -> "b" [] x = "b" -> "c" [] OTHER -> "a"
Spec == Init /\\ [][Next]_x{fair}
====
"""
#: the same ring under other names and another variable: every mapping that could work is
#: one-to-one
NAMES = """---- MODULE Out ----
VARIABLE light
Init == light = "red"
Next == light' = CASE light = "red" -> "green" [] light = "green" -> "amber"
                      [] OTHER -> "red"
Spec == Init /\\ [][Next]_light{fair}
====
"""


def _ring(fair: str) -> Reference:
    return Reference("Ring", {"Ring.tla": RING.format(fair=fair)},
                     parse_cfg("SPECIFICATION Spec\n"))


def _names(fair: str) -> dict[str, str]:
    return {"Out.tla": NAMES.format(fair=fair)}


@pytest.mark.parametrize(("ref_fair", "out_fair", "verdict", "code"), [
    # R may stop anywhere; G may not: R's behavior that stops has no fair one of G above it
    ("", " /\\ WF_light(Next)", "reverse_fail", Reason.REVERSE_LIVENESS),
    ("", " /\\ []<>(light = \"amber\")", "reverse_fail", Reason.REVERSE_LIVENESS),
    # G may stop anywhere; R may not: G's behavior that stops maps onto no behavior of R
    (" /\\ WF_x(Next)", "", "forward_fail", Reason.TLC_FORWARD),
])
def test_a_failure_found_under_one_rotation_holds_under_every_mapping(
        harness: Harness, ref_fair: str, out_fair: str, verdict: str, code: Reason) -> None:
    result = grade_behavior(harness, _ring(ref_fair), _names(out_fair), "Out", GRAPHS)
    assert (result.verdict, result.code) == (verdict, code), result.reason
    assert result.details["mapping_basis"] == "any_mapping"
    assert result.details["any_mapping_kind"] == "isomorphism"
    assert "every mapping that could work is one-to-one" in \
        result.details["mapping_class_reason"]


def test_fairness_on_both_sides_is_equivalent_under_the_right_mapping(harness: Harness) -> None:
    # the control: with fairness on both sides, nothing is transferred, and the two agree
    result = grade_behavior(harness, _ring(" /\\ WF_x(Next)"), _names(" /\\ WF_light(Next)"),
                            "Out", GRAPHS)
    assert result.verdict == "ok", result.reason


#: two switches, `{a}` fair: the reference is fair to its first, the output to its second
SWITCHES = """---- MODULE {module} ----
EXTENDS Integers
VARIABLES {p}, {q}
Init == {p} = 0 /\\ {q} = 0
A == {p}' = 1 - {p} /\\ {q}' = {q}
B == {q}' = 1 - {q} /\\ {p}' = {p}
Next == A \\/ B
Spec == Init /\\ [][Next]_<<{p}, {q}>> /\\ {fair}
====
"""
TWO = Reference("Two", {"Two.tla": SWITCHES.format(module="Two", p="p", q="q",
                                                    fair="WF_<<p, q>>(A)")},
                parse_cfg("SPECIFICATION Spec\n"))


def _switches(fair: str) -> dict[str, str]:
    return {"Out.tla": SWITCHES.format(module="Out", p="u", q="v", fair=fair)}


def test_a_failure_that_rests_on_which_action_is_fair_does_not_carry_over(
        harness: Harness) -> None:
    # under p <- u, q <- v the forward run fails (G's fair behaviors may flip v only, R's
    # must flip p); under p <- v, q <- u (the graph's automorphism composed with the first)
    # both directions hold: the failure under the first is no proof, and the second isomorphism,
    # confirmed by TLC, is the `ok`
    result = grade_behavior(harness, TWO, _switches("WF_<<u, v>>(B)"), "Out", GRAPHS)
    assert result.verdict == "ok", result.reason
    assert "isomorphism 2 of 2" in result.reason


def test_every_isomorphism_refuted_by_tlc_is_a_failure_under_any_mapping(
        harness: Harness) -> None:
    # G is fair to both switches, R to the first only: R's fair behavior that flips p alone
    # has no fair behavior of G above it, under either of the two isomorphisms; neither side
    # is free of fairness, so each is TLC's to refute
    result = grade_behavior(harness, TWO, _switches("WF_<<u, v>>(A) /\\ WF_<<u, v>>(B)"),
                            "Out", GRAPHS)
    assert result.verdict == "reverse_fail", result.reason
    assert result.details["mapping_basis"] == "any_mapping"
    assert "TLC refutes each" in result.details["mapping_class_reason"]
    assert len(result.details["table_candidates"]) == 1  # the other is the failure's own
