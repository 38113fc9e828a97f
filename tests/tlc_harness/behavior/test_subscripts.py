"""Stuttering subscripts: an output whose `[][Next]_v` leaves a variable out allows steps TLC never
explores, so its `ok` is `undecided` (`subscript_incomplete`) unless the reference leaves the same
variable out under the mapping."""

from __future__ import annotations

import pytest

from tlc_harness.behavior.engine import grade_behavior
from tlc_harness.behavior.options import BehaviorOptions
from tlc_harness.behavior.staging import Reference
from tlc_harness.behavior.subscripts import Subscripts, spec_subscripts, unjustified_omission
from tlc_harness.behavior.verdicts import Reason
from tlc_harness.source.cfg import ModelConfig
from tlc_harness.tools.runner import Harness

LAMP = """---- MODULE {name} ----
EXTENDS Naturals
VARIABLES on, count
vars == <<on, count>>
Init == on = FALSE /\\ count = 0
Next == on' = ~on /\\ count' = (count + 1) % 3
Spec == Init /\\ [][Next]_{sub}
====
"""


def _lamp(name: str, sub: str) -> dict[str, str]:
    return {f"{name}.tla": LAMP.format(name=name, sub=sub)}


REF = Reference("Lamp", _lamp("Lamp", "vars"), ModelConfig(specification="Spec"))


# ------------------------------------------------------------------------ reading
@pytest.mark.parametrize(("sub", "omitted"), [
    ("vars", set()), ("<<on, count>>", set()), ("<<vars>>", set()), ("on", {"count"}),
    ("<<count>>", {"on"}), ("<< on , <<count>> >>", set()),
])
def test_the_subscript_is_read_through_tuples_and_definitions(sub: str, omitted: set[str]) -> None:
    found = spec_subscripts(_lamp("M", sub), "Spec", ["on", "count"])
    assert (found.omitted, found.unreadable) == (omitted, ())


def test_a_subscript_that_is_an_expression_is_unreadable() -> None:
    files = _lamp("M", "total")
    files["M.tla"] = files["M.tla"].replace("vars ==", "total == on + count\nvars ==")
    assert spec_subscripts(files, "Spec", ["on", "count"]).unreadable == ("total",)


def test_a_box_in_a_named_conjunct_is_read_and_fairness_subscripts_are_not() -> None:
    text = LAMP.format(name="M", sub="vars").replace(
        "Spec == Init /\\ [][Next]_vars",
        "Safety == Init /\\ [][Next]_on\nSpec == Safety /\\ WF_count(Next)")
    found = spec_subscripts({"M.tla": text}, "Spec", ["on", "count"])
    assert found.omitted == {"count"}


def test_a_definition_the_body_reader_runs_into_is_cut_off() -> None:
    text = LAMP.format(name="M", sub="vars").replace(
        "vars == <<on, count>>", "vars == <<on, count>>\nTable[n \\in 0..2] == n")
    assert spec_subscripts({"M.tla": text}, "Spec", ["on", "count"]).complete


def test_only_the_main_module_and_what_it_extends_are_read() -> None:
    # a module the output INSTANCEs may define its own `Spec` and `vars` over other variables
    inner = LAMP.format(name="Inner", sub="vars")
    outer = ("---- MODULE Outer ----\nVARIABLE st\nI == INSTANCE Inner WITH on <- st.on, "
             "count <- st.count\nInit == I!Init\nNext == I!Next\n"
             "Spec == Init /\\ [][Next]_<<st>>\n====\n")
    files = {"Inner.tla": inner, "Outer.tla": outer}
    assert spec_subscripts(files, "Spec", ["st"], "Outer").complete
    extended = outer.replace("VARIABLE st", "EXTENDS Naturals\nVARIABLE st").replace(
        "[][Next]_<<st>>", "[][Next]_vars").replace("Spec ==", "vars == <<st>>\nSpec ==")
    assert spec_subscripts({**files, "Outer.tla": extended}, "Spec", ["st"], "Outer").complete


def test_an_omission_is_justified_only_by_the_same_omission_of_the_reference() -> None:
    out = Subscripts(frozenset({"c"}))
    assert unjustified_omission(out, Subscripts(frozenset({"count"})), {"count": "c"}) is None
    assert "leaves c out" in (unjustified_omission(out, Subscripts(frozenset()),
                                                    {"count": "c"}) or "")
    assert unjustified_omission(out, Subscripts(frozenset({"count"})),
                                {"count": "c + 0"}) is not None  # not the variable as it is
    assert unjustified_omission(Subscripts(frozenset(), ("f(x)",)), Subscripts(frozenset()),
                                {}) is not None


# ----------------------------------------------------------------------- grading
@pytest.mark.parametrize("engine", ["auto", "wrappers"])
def test_an_output_that_leaves_a_variable_out_of_its_subscript_is_not_ok(
        harness: Harness, engine: str) -> None:
    result = grade_behavior(harness, REF, _lamp("Lamp2", "on"), "Lamp2",
                            BehaviorOptions(engine=engine))
    assert (result.verdict, result.code) == ("undecided", Reason.SUBSCRIPT_INCOMPLETE), \
        result.reason
    assert result.details["subscripts"] == {"omitted": ["count"], "unreadable": []}
    assert "the checks passed" in result.reason  # TLC's checks alone would have said ok


def test_the_same_omission_as_the_reference_keeps_ok(harness: Harness) -> None:
    ref = Reference("Lamp", _lamp("Lamp", "on"), ModelConfig(specification="Spec"))
    result = grade_behavior(harness, ref, _lamp("Lamp2", "on"), "Lamp2")
    assert result.passed, result.reason


def test_a_complete_subscript_keeps_ok(harness: Harness) -> None:
    result = grade_behavior(harness, REF, _lamp("Lamp2", "<<on, count>>"), "Lamp2")
    assert result.passed, result.reason
