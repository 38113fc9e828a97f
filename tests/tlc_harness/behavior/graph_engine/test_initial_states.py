"""The mapping-free check on initial states: an output with fewer initial states than the
reference cannot refine it in reverse under any mapping, whatever the values of the constants
its Init does not read; it decides only where the engines left the verdict undecided."""

from __future__ import annotations

import pytest

from tlc_harness.behavior.engine import grade_behavior
from tlc_harness.behavior.options import BehaviorOptions
from tlc_harness.behavior.staging import Reference
from tlc_harness.behavior.verdicts import BehaviorResult, BehaviorVerdict, Reason, Soundness
from tlc_harness.source.cfg import ModelConfig
from tlc_harness.source.formulas import instantiates, names_read
from tlc_harness.tools.runner import Harness

V, R, S = BehaviorVerdict, Reason, Soundness
LAMP = """---- MODULE Lamp ----
EXTENDS Naturals
CONSTANT N
VARIABLES on, level
Init == on \\in BOOLEAN /\\ level = N
Next == level > 0 /\\ level' = level - 1 /\\ on' = on
Spec == Init /\\ [][Next]_<<on, level>>
====
"""
REF = Reference("Lamp", {"Lamp.tla": LAMP},
                ModelConfig(constants=(("N", "3"),), specification="Spec", check_deadlock=False))
#: the reference's behaviors, but stepping by a constant `Speed` nothing gives a value: its
#: Init does not read it
FREE = LAMP.replace("Lamp", "Other").replace("CONSTANT N", "CONSTANTS N, Speed").replace(
    "level > 0 /\\ level' = level - 1", "level >= Speed /\\ level' = level - Speed")


def _grade(harness: Harness, out: str, ref: Reference = REF) -> BehaviorResult:
    return grade_behavior(harness, ref, {"Other.tla": out}, "Other",
                          BehaviorOptions(engine="auto", timeout=120))


def test_the_names_an_init_reads_are_followed_through_definitions() -> None:
    files = {"M.tla": "---- MODULE M ----\nCONSTANTS A, B, C\nVARIABLE x\nStart == A + 1\n"
                      "Init == x = Start\nNext == x' = x + B\n===="}
    assert {"A", "Start", "x"} <= names_read(files, ("Init",))
    assert not {"B", "C"} & names_read(files, ("Init",))
    assert "B" in names_read(files, ("Next",))


def test_an_instance_of_an_own_module_counts_but_a_standard_one_does_not() -> None:
    assert instantiates({"M.tla": "---- MODULE M ----\nI == INSTANCE N WITH c <- 1\n====",
                         "N.tla": "---- MODULE N ----\nCONSTANT c\n===="})
    assert not instantiates({"M.tla": "---- MODULE M ----\nLOCAL INSTANCE TLC\n====",
                             "N.tla": "---- MODULE N ----\n\\* INSTANCE M\n===="})


def test_fewer_initial_states_under_a_free_parameter_is_a_mapping_free_failure(
        harness: Harness) -> None:
    out = FREE.replace("on \\in BOOLEAN", "on = TRUE")    # the lamp starts on only
    graded = _grade(harness, out)
    assert graded.verdict is V.REVERSE_FAIL and graded.code is R.TOO_FEW_STATES, graded.reason
    assert graded.soundness is S.MAPPING_FREE
    assert graded.details["initial_states"] == {"output": 1, "reference": 2}
    assert graded.details["mapping_free_check"] == "initial_states"
    constants = graded.details["constants"]
    assert constants["N"]["source"] == "reference_constant"
    assert constants["Speed"]["source"] == "not_read"
    # what the engines said is kept
    assert graded.details["instead_of"]["verdict"] in ("no_mapping", "undecided")
    assert "Speed" in graded.reason


def test_a_value_the_assume_rejects_is_replaced_by_one_it_admits(harness: Harness) -> None:
    out = FREE.replace("on \\in BOOLEAN", "on = TRUE").replace(
        "CONSTANTS N, Speed", "CONSTANTS N, Speed\nASSUME Speed \\in Nat /\\ Speed >= 2")
    graded = _grade(harness, out)
    assert graded.verdict is V.REVERSE_FAIL and graded.code is R.TOO_FEW_STATES, graded.reason
    assert int(graded.details["constants"]["Speed"]["value"]) >= 2


@pytest.mark.parametrize("out", [
    # as many initial states: the check says nothing, the engines' verdict stands
    FREE,
    # fewer initial states, but Init reads the free constant: its count may be the value's
    FREE.replace("CONSTANTS N, Speed", "CONSTANTS N, Speed, Start").replace(
        "on \\in BOOLEAN /\\ level = N", "on = TRUE /\\ level = N + Start"),
], ids=["as_many", "init_reads_the_free_constant"])
def test_the_check_decides_nothing_it_cannot_justify(harness: Harness, out: str) -> None:
    graded = _grade(harness, out)
    assert not graded.verdict.decided, graded.reason
    assert graded.code is not R.TOO_FEW_STATES
    assert "initial_states" not in graded.details


def test_a_decided_verdict_is_left_alone(harness: Harness) -> None:
    # the engines decide a plain output with one initial state too few themselves
    out = LAMP.replace("Lamp", "Other").replace("on \\in BOOLEAN", "on = TRUE")
    graded = _grade(harness, out)
    assert graded.verdict is V.REVERSE_FAIL and graded.code is R.GRAPH_REVERSE, graded.reason
    assert "instead_of" not in graded.details


def test_the_reference_is_counted_under_its_constraint(harness: Harness) -> None:
    # a CONSTRAINT that no initial state fails leaves every initial state in the model
    bounded = Reference("Lamp", {"Lamp.tla": LAMP.replace("====", "Small == level >= 1\n====")},
                        ModelConfig(constants=(("N", "3"),), specification="Spec",
                                    constraints=("Small",), check_deadlock=False))
    graded = _grade(harness, FREE.replace("on \\in BOOLEAN", "on = TRUE"), bounded)
    assert graded.verdict is V.REVERSE_FAIL and graded.code is R.TOO_FEW_STATES, graded.reason
    assert graded.details["initial_states"] == {"output": 1, "reference": 2}


#: the lamp starts on or off as a BOOLEAN parameter says: one initial state for each value
FLAGGED = FREE.replace("CONSTANTS N, Speed", "CONSTANTS N, Speed, StartOn\n"
                       "ASSUME StartOn \\in BOOLEAN").replace("on \\in BOOLEAN", "on = StartOn")


def test_fewer_initial_states_under_every_value_of_a_boolean_is_a_mapping_free_failure(
        harness: Harness) -> None:
    graded = _grade(harness, FLAGGED)
    assert graded.verdict is V.REVERSE_FAIL and graded.code is R.TOO_FEW_STATES, graded.reason
    assert graded.soundness is S.MAPPING_FREE
    assert graded.details["constants"]["StartOn"] == {"value": "FALSE, TRUE", "from": None,
                                                      "source": "every_value"}
    assert "every value of StartOn" in graded.reason


def test_a_boolean_under_which_the_output_has_as_many_initial_states_decides_nothing(
        harness: Harness) -> None:
    # with `Wide` the lamp starts either way, as the reference's does
    out = FLAGGED.replace("StartOn", "Wide").replace(
        "on = Wide", "on \\in (IF Wide THEN BOOLEAN ELSE {TRUE})")
    graded = _grade(harness, out)
    assert not graded.verdict.decided, graded.reason
    assert "initial_states" not in graded.details
