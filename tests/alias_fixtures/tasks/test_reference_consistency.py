"""Is the reference the task's? A description that names, as code, identifiers the reference never
writes describes another spec: its outputs are `not_covered` (`reference_mismatch`)."""

from __future__ import annotations

import pytest

from alias_fixtures.grading.grade import ReferenceCoverage, grade_output
from alias_fixtures.tasks.consistency import unwritten_names
from alias_fixtures.tasks.task import builtin_tasks
from alias_fixtures.tasks.variants import make_variant, original_variant
from tlc_harness.behavior.verdicts import Reason
from tlc_harness.tools.runner import Harness

TASKS = {t.id: t for t in builtin_tasks()}
CLOCK = "---- MODULE Clock ----\nVARIABLE hr\nInit == hr = 1\n====\n"


def test_names_written_as_code_must_be_written_by_the_reference() -> None:
    text = "The clock keeps the hour `hr`, ticks with `Tick` and is `ENABLED` by `Nat`."
    assert unwritten_names(text, {"Clock.tla": CLOCK}) == ["Tick"]
    assert unwritten_names(text, {"Clock.tla": CLOCK + "\\* Tick advances\n"}) == []
    assert unwritten_names(text, {"Clock.tla": CLOCK}, "INVARIANT Tick") == []
    assert unwritten_names(text, {"Clock.tla": CLOCK}, renamed=["Tick"]) == []
    assert unwritten_names("an expression `hr + 1` is not a name", {"Clock.tla": CLOCK}) == []
    assert unwritten_names(None, {"Clock.tla": CLOCK}) == []


@pytest.mark.parametrize("task_id", sorted(TASKS))
@pytest.mark.parametrize("condition", ["original", "random"])
def test_every_built_in_description_fits_its_reference(task_id: str, condition: str) -> None:
    task = TASKS[task_id]
    variant = original_variant(task) if condition == "original" else make_variant(task, condition)
    assert unwritten_names(variant.description, variant.modules, variant.cfg_text,
                           variant.rename_map) == []


def test_an_output_against_another_specs_reference_is_not_covered(harness: Harness) -> None:
    task = TASKS["hour_clock"]
    variant = original_variant(task)
    other = type(variant)(**{**variant.__dict__, "description": variant.description
                             + "\nThe constants `NumProcs` and `MaxNum` bound it."})
    grades = grade_output(harness, other, variant.reference_text(),
                          coverage=ReferenceCoverage(harness))
    assert grades.parse.passed
    assert (grades.behavior.verdict, grades.behavior.details["reason_code"]) == \
        ("not_covered", Reason.REFERENCE_MISMATCH.value)
    assert "MaxNum, NumProcs" in grades.behavior.reason
