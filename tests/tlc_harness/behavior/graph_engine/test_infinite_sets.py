"""Outputs whose behavior reads `Nat`, `Int` or `Seq(S)`: TLC cannot enumerate them, which is a
limit of the tool and no verdict. The graph engine explores such an output again with the sets
bounded; a forward failure found there is a behavior of the output and decides, an `ok` or any
other finding under the bound does not."""

from __future__ import annotations

import pytest

from tlc_harness.behavior.engine import grade_behavior
from tlc_harness.behavior.graph_engine.bounds import BOUND_FLOOR, bounds_for
from tlc_harness.behavior.graphs import StateGraph
from tlc_harness.behavior.options import BehaviorOptions
from tlc_harness.behavior.staging import Reference
from tlc_harness.behavior.verdicts import BehaviorResult, BehaviorVerdict, Reason, Soundness
from tlc_harness.source.cfg import ModelConfig
from tlc_harness.source.formulas import infinite_sets
from tlc_harness.tools.runner import Harness

V, R = BehaviorVerdict, Reason
COUNTER = """---- MODULE Counter ----
EXTENDS Naturals
CONSTANT Max
VARIABLE x
Init == x = 0
Next == x < Max /\\ x' = x + 1
Spec == Init /\\ [][Next]_x
====
"""
REF = Reference("Counter", {"Counter.tla": COUNTER},
                ModelConfig(constants=(("Max", "4"),), specification="Spec", check_deadlock=False))


def _out(next_: str, extends: str = "Naturals") -> str:
    return COUNTER.replace("Counter", "Other").replace("EXTENDS Naturals", f"EXTENDS {extends}") \
        .replace("Next == x < Max /\\ x' = x + 1", f"Next == {next_}")


def _grade(harness: Harness, out: str, engine: str = "graphs") -> BehaviorResult:
    return grade_behavior(harness, REF, {"Other.tla": out}, "Other",
                          BehaviorOptions(engine=engine, timeout=120))


def test_the_sets_a_specification_reads_are_followed_through_its_definitions() -> None:
    module = _out("Step /\\ q' = q", "Naturals, Sequences").replace(
        "VARIABLE x", "VARIABLE x, q\nStep == \\E v \\in Nat : x' = v\nTypeOK == x \\in Int") \
        .replace("Init == x = 0", "Init == x = 0 /\\ q \\in Seq({1})")
    files = {"Other.tla": module}
    assert infinite_sets(files, ("Spec",)) == {"Nat", "Seq"}   # TypeOK's Int is not read
    assert infinite_sets(files, ("TypeOK",)) == {"Int"}
    # a module that defines its own Seq reads no infinite set by it
    own = module.replace("Step ==", "Seq(S) == {<<>>}\nStep ==")
    assert infinite_sets({"Other.tla": own}, ("Spec",)) == {"Nat"}


def test_bounds_cover_the_references_numbers_and_the_constants_values() -> None:
    ref = StateGraph(("x",), [(0,), (7,)], [0], [(0, 1)])
    found = bounds_for({"Nat", "Seq"}, ref, ["5", "{a, b}"], ())
    assert found is not None and found.bound == 7 and found.sets == ("Nat", "Seq")
    assert found.overrides == (("Nat", "AliasBoundNat"), ("Seq", "AliasBoundSeq"))
    assert "AliasBoundNat == 0..7" in found.definitions
    small = bounds_for({"Int"}, StateGraph(("x",), [(1,)], [0], []), [], ())
    assert small is not None and small.bound == BOUND_FLOOR
    assert bounds_for({"Nat", "STRING"}, ref, [], ()) is None   # no finite stand-in for STRING
    assert bounds_for({"Nat"}, ref, [], {"Nat"}) is None        # the reference's cfg bounds it


def test_an_output_right_under_a_bound_is_not_decided(harness: Harness) -> None:
    graded = _grade(harness, _out("x < Max /\\ \\E v \\in Nat : v = x + 1 /\\ x' = v"))
    assert graded.verdict is V.UNDECIDED and graded.code is R.INFINITE_SET, graded.reason
    assert graded.details["bounded"]["sets"] == ["Nat"]
    assert "bounded_sets" in graded.details["retries"]


@pytest.mark.parametrize("next_", [
    "x < Max /\\ \\E v \\in Nat : v > x /\\ x' = v",           # jumps ahead
])
def test_a_forward_failure_under_a_bound_is_the_outputs(harness: Harness, next_: str) -> None:
    graded = _grade(harness, _out(next_, "Integers"))
    assert graded.verdict is V.FORWARD_FAIL and graded.code is R.GRAPH_FORWARD, graded.reason
    assert graded.soundness is Soundness.JUSTIFIED and "bounded" in graded.details
    assert graded.trace, "the witness is a behavior of the output"


def test_a_forward_failure_under_a_bound_with_other_numbers_is_no_proof(
        harness: Harness) -> None:
    # below zero too: the output's x holds numbers the reference's never does, so a mapping
    # outside the class (an offset, numbers merged) is not ruled out
    graded = _grade(harness, _out("\\E v \\in Int : v # x /\\ v < Max /\\ x' = v",
                                  "Integers"))
    assert (graded.verdict, graded.code) == (V.NO_MAPPING, R.MAPPING_CLASS_INCOMPLETE), \
        graded.reason


def test_a_set_that_cannot_be_bounded_leaves_the_grade_undecided(harness: Harness) -> None:
    out = _out("x < Max /\\ \\E s \\in STRING : s = \"a\" /\\ x' = x + 1")
    for engine in ("graphs", "wrappers"):
        graded = _grade(harness, out, engine)
        assert graded.verdict is V.UNDECIDED and graded.code is R.INFINITE_SET, \
            (engine, graded.reason)


def test_an_evaluation_error_of_an_output_without_infinite_sets_still_fails(
        harness: Harness) -> None:
    graded = _grade(harness, _out("x < Max /\\ x' = <<1, 2>>[x + 1]"))
    assert graded.verdict is V.FORWARD_FAIL and graded.code is R.OUTPUT_RUN_FAILS, graded.reason


#: right without a bound (x' + 10 is a natural for every natural x'), wrong under one: with
#: Nat as 0..B, `~(x' + 10 \in Nat)` holds for x' > B - 10 and adds steps the output never takes
WIDENED = "\\/ x < Max /\\ x' = x + 1\n        \\/ x' \\in Nat /\\ x' # x /\\ ~(x' + 10 \\in Nat)"


def test_a_bound_that_would_add_behaviors_decides_nothing(harness: Harness) -> None:
    graded = _grade(harness, _out(WIDENED))
    assert graded.verdict is V.UNDECIDED and graded.code is R.INFINITE_SET, graded.reason
    assert "smaller set allows more" in graded.reason
    assert "bounded_sets" not in graded.details.get("retries", ())   # not explored bounded


def test_the_same_output_bounded_would_fail_spuriously(harness: Harness,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """Without the monotonicity check the bounded graph shows a step the output never takes."""
    from tlc_harness.behavior.graph_engine import late_checks as graph_grade

    monkeypatch.setattr(graph_grade, "bound_adds_behaviors", lambda *_: None)
    graded = _grade(harness, _out(WIDENED))
    assert graded.verdict is V.FORWARD_FAIL, graded.reason
