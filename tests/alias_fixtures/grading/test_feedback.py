"""Feedback after a failed turn: SANY's and TLC's findings on the output alone, at named
levels; a hidden name, the behavior grade and the reference never reach it."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from alias_fixtures.grading.feedback import LEVELS, feedback_for, parse_levels
from alias_fixtures.grading.grade import CaseGrades, Grade, grade_output
from alias_fixtures.tasks.task import builtin_tasks
from alias_fixtures.tasks.variants import make_variant
from tlc_harness.tools.runner import Harness

REFERENCE_ONLY = "AliasReferenceOnlyText"  # what a behavior grade may mention


def _grades(parse: Grade, name: Grade | None = None) -> CaseGrades:
    behavior = Grade("forward_fail", False, 0.0, f"under x <- {REFERENCE_ONLY}",
                     {"mapping": {"variables": {"x": REFERENCE_ONLY}}})
    return CaseGrades(parse, name or Grade("not_run", False), behavior, "Out")


OK = Grade("ok", True)


def test_levels_are_read_in_their_order() -> None:
    assert parse_levels("names,parse") == ("parse", "names")
    assert parse_levels("parse,tlc,names") == LEVELS
    assert parse_levels("none") == ()
    with pytest.raises(ValueError, match="unknown feedback level"):
        parse_levels("parse,behavior")


def test_a_module_that_does_not_parse_gets_sanys_errors() -> None:
    grades = _grades(Grade("parse_error", False, 0.0, "Unknown operator: `Foo'",
                           {"errors": ["line 3: Unknown operator: `Foo'"]}))
    told = feedback_for(grades, LEVELS)
    assert told.levels == ("parse",) and "Unknown operator" in told.text
    assert feedback_for(grades, ("tlc", "names")).text == ""   # parse feedback switched off
    assert "no TLA+ module" in feedback_for(_grades(Grade("no_module", False)), LEVELS).text


def test_a_missing_name_is_named_only_when_the_description_states_it() -> None:
    name = Grade("config_bind_fail", False, 0.0, "not defined or without value: ...",
                 {"missing_names": ["TypeOK", "HiddenInv"], "missing_hidden": ["HiddenInv"]})
    told = feedback_for(_grades(OK, name), LEVELS)
    assert told.levels == ("names",)
    assert "TypeOK" in told.text and "HiddenInv" not in told.text
    # TLC's binding failure itself is not reported at the `tlc` level
    assert feedback_for(_grades(OK, name), ("parse", "tlc")).text == ""


def test_tlc_findings_on_the_outputs_own_behavior_come_with_its_trace() -> None:
    trace = [{"number": 1, "action": "Initial predicate", "variables": {"x": "0"}},
             {"number": 2, "action": "Next", "variables": {"x": "1"}}]
    name = Grade("invariant_violated", False, 0.0, "invariant violated: Inv",
                 {"violated": "Inv", "trace": trace, "missing_names": []})
    told = feedback_for(_grades(OK, name), LEVELS)
    assert told.levels == ("tlc",)
    assert "invariant violated: Inv" in told.text and "/\\ x = 1" in told.text
    passed = feedback_for(_grades(OK, Grade("ok", True)), LEVELS)
    assert "found no error" in passed.text
    vacuous = feedback_for(_grades(OK, Grade("ok", False, details={"vacuous": True})), LEVELS)
    assert "no initial state" in vacuous.text


NAMES = st.text(alphabet="ABCDEFGHxyz", min_size=3, max_size=8)


@given(stated=st.lists(NAMES, max_size=3, unique=True), hidden=st.lists(NAMES, max_size=3,
                                                                        unique=True),
       verdict=st.sampled_from(["config_bind_fail", "ok", "deadlock", "invariant_violated",
                                "eval_error", "timeout"]),
       levels=st.lists(st.sampled_from(LEVELS), unique=True))
@settings(max_examples=200, deadline=None)
def test_no_hidden_name_and_nothing_of_the_behavior_grade_ever_reaches_the_model(
        stated: list[str], hidden: list[str], verdict: str, levels: list[str]) -> None:
    hidden = [h for h in hidden if not any(h in s or s in h for s in stated)]
    details: dict[str, Any] = {"missing_names": [*stated, *hidden], "missing_hidden": hidden}
    told = feedback_for(_grades(OK, Grade(verdict, False, 0.0, "x", details)), levels)
    assert REFERENCE_ONLY not in told.text
    assert not any(h in told.text for h in hidden)
    assert set(told.levels) <= set(levels)


def test_an_invariant_the_output_violates_reaches_the_model_with_tlcs_trace(
        harness: Harness) -> None:
    task = next(t for t in builtin_tasks() if t.id == "hour_clock")
    variant = make_variant(task, "original", seed="0")
    main = variant.modules[f"{variant.main_module}.tla"]
    # the clock runs past 12: TypeOK fails after a few ticks
    wrong = main.replace("IF hr = 12 THEN 1 ELSE hr + 1", "hr + 1")
    graded = grade_output(harness, variant, f"```tla\n{wrong}\n```\n", grades=("parse", "name"))
    assert graded.name.verdict == "invariant_violated", graded.name.reason
    assert graded.name.details["violated"] == "TypeOK"
    told = feedback_for(graded, LEVELS)
    assert told.levels == ("tlc",)
    assert "TypeOK" in told.text and "/\\ hr = 13" in told.text
