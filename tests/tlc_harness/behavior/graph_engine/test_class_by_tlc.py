"""A named class whose only members the graphs cannot refute are left to TLC: graphs carry no
fairness, so a member may hold both ways on them and still fail; TLC refuting every such
member (the reference's fairness forward, the output's liveness in reverse) decides the class,
and the failure stands for every mapping of it. One TLC confirms is an `ok`."""

from __future__ import annotations

import pytest

from tlc_harness.behavior.engine import grade_behavior
from tlc_harness.behavior.options import BehaviorOptions
from tlc_harness.behavior.staging import Reference
from tlc_harness.behavior.verdicts import BehaviorVerdict
from tlc_harness.source.cfg import parse_cfg
from tlc_harness.tools.runner import Harness

#: a light that must keep toggling, from either state: the swap of its two values is an
#: automorphism of the graph, so two bijections of the values hold both ways on the graphs
TOGGLE = """---- MODULE {name} ----
VARIABLE light
Init == light \\in {{"{a}", "{b}"}}
Next == light' = IF light = "{a}" THEN "{b}" ELSE "{a}"
Spec == Init /\\ [][Next]_light{fair}
====
"""
REF = Reference("Toggle", {"Toggle.tla": TOGGLE.format(name="Toggle", a="on", b="off",
                                                        fair=" /\\ WF_light(Next)")},
                parse_cfg("SPECIFICATION Spec\n"))


def _grade(harness: Harness, fair: str, a: str = "up", b: str = "down"
           ) -> tuple[BehaviorVerdict, dict[str, object]]:
    out = {"Out.tla": TOGGLE.format(name="Out", a=a, b=b, fair=fair)}
    graded = grade_behavior(harness, REF, out, "Out", BehaviorOptions(engine="graphs",
                                                                      timeout=120))
    return graded.verdict, {**graded.details, "soundness": graded.soundness}


def test_every_member_tlc_refutes_decides_the_class(harness: Harness) -> None:
    verdict, details = _grade(harness, fair="")  # may stop toggling: not the reference
    assert verdict is BehaviorVerdict.FORWARD_FAIL, details
    # the graphs are isomorphic and the output has no fairness: the failure TLC found under
    # one member holds under every one-to-one mapping (`transfer`), a stronger class than
    # the named one both members of which TLC refuted before
    assert details["mapping_class"] == "any_mapping"
    assert "the output's formula has no fairness" in str(details["mapping_class_reason"])
    assert details["soundness"] is not None


@pytest.mark.parametrize(("a", "b"), [("up", "down"), ("off", "on")])
def test_a_member_tlc_confirms_is_an_ok(harness: Harness, a: str, b: str) -> None:
    verdict, details = _grade(harness, fair=" /\\ WF_light(Next)", a=a, b=b)
    assert verdict is BehaviorVerdict.OK, details
