"""Named observables: an output variable named like a reference variable is the one the
mapping reads for it. A mapping that computes the reference's variable from the output's
other variables while the output's own of that name behaves otherwise shows nothing about
that observable, however the output reads its own (here only in UNCHANGED and TypeOK)."""

from __future__ import annotations

from tlc_harness.behavior.engine import grade_behavior
from tlc_harness.behavior.observables import bypassed
from tlc_harness.behavior.options import BehaviorOptions
from tlc_harness.behavior.staging import Reference
from tlc_harness.behavior.verdicts import BehaviorVerdict, Reason
from tlc_harness.source.cfg import parse_cfg
from tlc_harness.tools.runner import Harness

LOCK = """---- MODULE Lock ----
VARIABLES locked, holder
Init == locked = FALSE /\\ holder = "none"
Acquire(p) == ~locked /\\ locked' = TRUE /\\ holder' = p
Release == locked /\\ locked' = FALSE /\\ holder' = "none"
Next == (\\E p \\in {"a", "b"} : Acquire(p)) \\/ Release
Spec == Init /\\ [][Next]_<<locked, holder>>
====
"""
REF = Reference("Lock", {"Lock.tla": LOCK}, parse_cfg("SPECIFICATION Spec\n"))
#: `mode` holds the lock's state; the output's own `locked` is set wrongly (TRUE after the
#: first release, never again FALSE) and read only in UNCHANGED and TypeOK
CRAFTED = """---- MODULE Crafted ----
VARIABLES mode, holder, locked
TypeOK == locked \\in BOOLEAN /\\ mode \\in {"free", "busy"}
Init == mode = "free" /\\ holder = "none" /\\ locked = FALSE
Acquire(p) == mode = "free" /\\ mode' = "busy" /\\ holder' = p /\\ UNCHANGED locked
Release == mode = "busy" /\\ mode' = "free" /\\ holder' = "none" /\\ locked' = TRUE
Next == (\\E p \\in {"a", "b"} : Acquire(p)) \\/ Release
Spec == Init /\\ [][Next]_<<mode, holder, locked>>
====
"""
GRAPHS = BehaviorOptions(engine="graphs")


def test_a_named_observable_routed_around_is_no_ok(harness: Harness) -> None:
    graded = grade_behavior(harness, REF, {"Crafted.tla": CRAFTED}, "Crafted", GRAPHS)
    assert graded.verdict is BehaviorVerdict.UNDECIDED, graded.reason
    assert graded.code is Reason.OBSERVABLE_RECOMPUTED


def test_the_same_output_with_its_own_variable_right_passes(harness: Harness) -> None:
    right = CRAFTED.replace("UNCHANGED locked", "locked' = TRUE") \
        .replace("locked' = TRUE\nNext", "locked' = FALSE\nNext")
    graded = grade_behavior(harness, REF, {"Crafted.tla": right}, "Crafted", GRAPHS)
    assert graded.verdict is BehaviorVerdict.OK, graded.reason
    assert "locked" in graded.mapping["variables"]["locked"]


def test_bypassed_reads_the_mapping_not_the_strings() -> None:
    assert bypassed({"locked": 'AliasT1(mode)'}, ("mode", "locked")) == ("locked",)
    assert bypassed({"locked": '(mode = "locked")'}, ("mode", "locked")) == ("locked",)
    assert bypassed({"locked": "Locked"}, ("Locked",)) == ()
    assert bypassed({"locked": "AliasT1(mode)"}, ("mode",)) == ()


SWAPPED = """---- MODULE Swapped ----
EXTENDS Naturals
VARIABLES a, b
Init == a = 0 /\\ b = 0
Next == a < 2 /\\ a' = a + 1 /\\ b' = b
Spec == Init /\\ [][Next]_<<a, b>>
====
"""


def test_the_wrapper_engine_gives_no_ok_under_a_named_variable_swapped(
        harness: Harness) -> None:
    # the output counts in `b` where the reference counts in `a`: only the bijection that
    # swaps the two names passes, and it reads the output's `b` for the reference's `a`
    ref = Reference("Swapped", {"Swapped.tla": SWAPPED},
                    parse_cfg("SPECIFICATION Spec\nCHECK_DEADLOCK FALSE\n"))
    out = SWAPPED.replace("Swapped", "Out").replace("a < 2", "b < 2") \
        .replace("a' = a + 1", "b' = b + 1").replace("b' = b\n", "a' = a\n")
    assert "b' = b + 1" in out
    graded = grade_behavior(harness, ref, {"Out.tla": out}, "Out",
                            BehaviorOptions(engine="wrappers"))
    assert graded.verdict is BehaviorVerdict.UNDECIDED, graded.reason
    assert graded.code is Reason.OBSERVABLE_RECOMPUTED
