"""Constants an output only stores in variables it never reads (`source/stored.py`), and the
mapping-free check that rests on them (`graph_engine/stored_constants.py`): under a model value
for each, the output's graph is the largest any value gives it, so too few states under it are
too few under every value."""

from __future__ import annotations

import pytest

from tests.tlc_harness.behavior.test_soundness import CLOCK
from tlc_harness.behavior.engine import grade_behavior
from tlc_harness.behavior.options import BehaviorOptions
from tlc_harness.behavior.staging import Reference
from tlc_harness.behavior.verdicts import BehaviorResult, BehaviorVerdict, Reason, Soundness
from tlc_harness.source.cfg import ModelConfig
from tlc_harness.source.formulas import top_definitions
from tlc_harness.source.stored import stored_only
from tlc_harness.tools.runner import Harness

HEADER = "---- MODULE M ----\nEXTENDS Naturals\nCONSTANTS C, D\nVARIABLES x, y\n" \
         "vars == <<x, y>>\n"


def _stored(init: str, nxt: str, extra: str = "") -> tuple[set[str], set[str]]:
    text = f"{HEADER}{extra}\nInit == {init}\nNext == {nxt}\n===="
    found = stored_only({"M.tla": text}, "Init", "Next", ["x", "y"], ["C", "D"])
    return set(found.variables), set(found.constants)


def test_a_constant_stored_in_a_variable_nothing_reads_is_stored_only() -> None:
    assert _stored("x = 0 /\\ y = 0", "y < 3 /\\ y' = y + 1 /\\ x' = C") == ({"x"}, {"C"})


@pytest.mark.parametrize(("init", "nxt", "extra"), [
    # a guard reads the variable: its value decides which steps exist
    ("x = 0 /\\ y = 0", "x # 5 /\\ y' = y + 1 /\\ x' = C", ""),
    # the variable's new value is computed from its old one
    ("x = 0 /\\ y = 0", "y' = y /\\ x' = x + 1 \\/ y' = y /\\ x' = C", ""),
    # a second constraint on the new value tests it (TLC assigns once, then compares)
    ("x = 0 /\\ y = 0", "y' = y + 1 /\\ x' = C /\\ UNCHANGED x", ""),
    ("x = 0 /\\ y = 0", "y' = y + 1 /\\ x' = C /\\ UNCHANGED vars", ""),
    # the variable is read through a definition another variable's value uses
    ("x = 0 /\\ y = 0", "y' = Shown /\\ x' = C", "Shown == x"),
    # a tuple of the variables is read, not only kept unchanged
    ("x = 0 /\\ y = 0", "vars' # vars /\\ y' = 1 /\\ x' = C", ""),
    # Init tests it beside assigning it
    ("x = 0 /\\ x # 1 /\\ y = 0", "y' = y /\\ x' = C", ""),
])
def test_a_variable_that_is_read_anywhere_is_not_write_only(init: str, nxt: str,
                                                             extra: str) -> None:
    variables, constants = _stored(init, nxt, extra)
    assert "x" not in variables and "C" not in constants


@pytest.mark.parametrize(("nxt", "extra"), [
    ("y' = y /\\ x' = C + 1", ""),            # arithmetic on it
    ("y < 3 /\\ y' = C /\\ x' = C", ""),       # stored in a variable that is read
    ("y' = y /\\ x' = C /\\ C # 2", ""),       # compared
    ("y' = y /\\ x' = C", "ASSUME C \\in Nat"),  # an ASSUME reads it
])
def test_a_constant_used_otherwise_is_not_stored_only(nxt: str, extra: str) -> None:
    assert "C" not in _stored("x = 0 /\\ y = 0", nxt, extra)[1]


def test_assignments_in_branches_tuples_and_definitions_count_once() -> None:
    nxt = ("\n    \\/ /\\ y < 2 /\\ y' = y + 1 /\\ Store\n"
           "    \\/ /\\ y = 2 /\\ IF y > 1 THEN x' = D ELSE x' = C\n       /\\ y' = 0\n"
           "    \\/ \\E v \\in 0..1 : y' = v /\\ UNCHANGED <<x>>\n"
           "    \\/ y' = y /\\ UNCHANGED vars")
    assert _stored("x = C /\\ y = 0", nxt, "Store == x' = C") == ({"x"}, {"C", "D"})


CLOCK_REF = Reference("Clock", {"Clock.tla": CLOCK}, ModelConfig(specification="Spec"))
#: three states at most where the clock has four, whatever `Mark` is; names for the hours, so
#: the grammar has no mapping, and a free `Mark` nothing gives a value
SMALL = """---- MODULE Other ----
CONSTANT Mark
VARIABLES hr, last
Init == hr = "a" /\\ last = "none"
Next == hr' = (IF hr = "a" THEN "b" ELSE "a") /\\ last' = Mark
Spec == Init /\\ [][Next]_<<hr, last>>
====
"""


def _grade(harness: Harness, out: str) -> BehaviorResult:
    return grade_behavior(harness, CLOCK_REF, {"Other.tla": out}, "Other",
                          BehaviorOptions(engine="auto", timeout=120))


def test_too_few_states_under_a_model_value_fail_for_every_value(harness: Harness) -> None:
    graded = _grade(harness, SMALL)
    assert graded.verdict is BehaviorVerdict.REVERSE_FAIL, graded.reason
    assert graded.code is Reason.TOO_FEW_STATES and graded.soundness is Soundness.MAPPING_FREE
    assert graded.details["mapping_free_check"] == "stored_only"
    assert graded.details["constants"]["Mark"]["source"] == "stored_only"
    assert graded.details["instead_of"]["code"] == "constants_unpaired"  # the clock has none


def test_a_free_constant_the_output_reads_gets_no_such_verdict(harness: Harness) -> None:
    # `Mark` decides whether the clock moves at all: too few states under one value (a
    # model value) say nothing about another
    graded = _grade(harness, SMALL.replace("Next == ", "Next == last # Mark /\\ "))
    assert graded.details.get("mapping_free_check") != "stored_only"
    assert graded.soundness is not Soundness.MAPPING_FREE, graded.reason


def test_a_spec_over_another_action_than_the_one_read_gets_no_such_verdict(
        harness: Harness) -> None:
    # `Spec` runs `Tick`, which reads `Mark` (a four-hour clock when it is "go", else it
    # stays at "a"); the `Next` where `Mark` is only stored is not what the output runs
    out = SMALL.replace("Spec == Init /\\ [][Next]_<<hr, last>>",
                        "Tick == hr' = (IF Mark = \"go\" THEN (CASE hr = \"a\" -> \"b\" "
                        "[] hr = \"b\" -> \"c\" [] hr = \"c\" -> \"d\" [] OTHER -> \"a\") "
                        "ELSE \"a\") /\\ last' = Mark\n"
                        "Spec == Init /\\ [][Tick]_<<hr, last>>")
    assert "Tick ==" in out
    graded = _grade(harness, out)
    assert graded.details.get("mapping_free_check") != "stored_only", graded.reason


def test_a_definitions_arity_counts_its_parameters_only() -> None:
    # a tuple of variables kept UNCHANGED is followed only through a definition of arity 0
    text = ("---- MODULE M ----\nOp(a, b) == a + b\nF(x) == x\nK(f(_), y) == f(y)\n"
            "H == 2\n====")
    arities = {name: d[2] for name, d in top_definitions({"M.tla": text}).items()}
    assert arities == {"Op": 2, "F": 1, "K": 2, "H": 0}
