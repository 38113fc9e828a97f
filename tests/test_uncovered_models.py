"""References no output can be graded against by behavior, told from the model alone and at
once, by both engines: a constant model, and a model that starts from one of its own
INVARIANTs where the module has an `Init` of its own (it checks that the invariant is
inductive, from every state of it: an output starting where the system starts cannot follow
that in reverse). A system whose initial predicate is also an invariant is graded as usual."""

from __future__ import annotations

import pytest

from tlc_harness.behavior.engine import grade_behavior
from tlc_harness.behavior.options import ENGINES, BehaviorOptions
from tlc_harness.behavior.wrappers import Reference
from tlc_harness.source.cfg import parse_cfg
from tlc_harness.tools.runner import Harness

TICK = """---- MODULE Tick ----
EXTENDS Naturals
VARIABLE x
Init == x = 0
Next == x' = (x + 1) % 3
Inv == x \\in 0..2
ISpec == Inv /\\ [][Next]_x
Spec == Init /\\ [][Next]_x
====
"""
#: the same clock whose initial predicate is its invariant, as an hour clock's `HCini`
CLOCK = """---- MODULE Tick ----
EXTENDS Naturals
VARIABLE x
Ini == x \\in 0..2
Next == x' = (x + 1) % 3
Clock == Ini /\\ [][Next]_x
====
"""


@pytest.mark.parametrize("engine", ENGINES)
def test_a_model_of_an_inductive_invariant_is_not_covered(harness: Harness,
                                                           engine: str) -> None:
    ref = Reference("Tick", {"Tick.tla": TICK},
                    parse_cfg("SPECIFICATION ISpec\nINVARIANT Inv\n"))
    result = grade_behavior(harness, ref, {"Tick.tla": TICK}, "Tick",
                            BehaviorOptions(engine=engine))
    assert result.verdict == "not_covered", result.reason
    assert "Inv is inductive" in result.reason
    assert result.tlc_runs == 0


@pytest.mark.parametrize("engine", ENGINES)
def test_a_system_whose_initial_predicate_is_invariant_is_graded(harness: Harness,
                                                                 engine: str) -> None:
    ref = Reference("Tick", {"Tick.tla": CLOCK},
                    parse_cfg("SPECIFICATION Clock\nINVARIANT Ini\n"))
    result = grade_behavior(harness, ref, {"Tick.tla": CLOCK}, "Tick",
                            BehaviorOptions(engine=engine))
    assert result.verdict == "ok", result.reason
