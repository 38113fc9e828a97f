"""A grade that a wall-clock limit ended is graded once more, and a case whose grade ends so
again is an infrastructure outcome: labelled, its grades kept, never a pass."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from alias_fixtures.grading.executors import local
from alias_fixtures.grading.executors.base import GradeJob, apply_result
from alias_fixtures.grading.grade import CaseGrades, Grade
from alias_fixtures.grading.grade_cache import decided_by_a_clock, wall_limit
from alias_fixtures.tasks.task import builtin_tasks
from alias_fixtures.tasks.variants import make_variant
from tlc_harness.tools.runner import Harness

VARIANT = make_variant(next(t for t in builtin_tasks() if t.id == "hour_clock"), "original")
OK = Grade("ok", True)
TIMED_OUT = CaseGrades(OK, Grade("timeout", False, 300.0, "TLC's time limit"), OK, "M")
PASSED = CaseGrades(OK, OK, OK, "M")
BUDGET = CaseGrades(OK, OK, Grade("undecided", False, 150.0, "budget",
                                  {"reason_code": "output_budget"}), "M")
SELF_CHECK = CaseGrades(OK, OK, Grade("not_covered", False, 0.0, "self-check",
                                      {"reason_code": "reference_self_check",
                                       "self_check_code": "time_budget"}), "M")


def _scripted(monkeypatch: pytest.MonkeyPatch, answers: list[CaseGrades]) -> list[int]:
    """`grade_output` answering `answers` in turn; the list of calls made."""
    calls: list[int] = []
    replies: Iterator[CaseGrades] = iter(answers)

    def graded(*args: Any, **kwargs: Any) -> CaseGrades:
        calls.append(1)
        return next(replies)

    monkeypatch.setattr(local, "grade_output", graded)
    return calls


def _job() -> GradeJob:
    return GradeJob("hour_clock/original/s0", VARIANT, "reply", grades=("parse", "name"),
                    grade_cache=False)


def test_labels_name_what_the_clock_ended() -> None:
    assert wall_limit(PASSED) is None and not decided_by_a_clock(PASSED)
    assert "name grade's TLC run" in (wall_limit(TIMED_OUT) or "")
    assert "output_budget" in (wall_limit(BUDGET) or "")
    # the task's self-check, cached: grading again repeats it, and the name grade stands
    assert wall_limit(SELF_CHECK) is None and not decided_by_a_clock(SELF_CHECK)


def test_a_limit_reached_twice_is_an_infra_outcome_with_its_grades_kept(
        monkeypatch: pytest.MonkeyPatch, harness: Harness) -> None:
    calls = _scripted(monkeypatch, [TIMED_OUT, TIMED_OUT])
    result = local.grade_job(local.Grader(harness), _job())
    assert len(calls) == 2 and result.attempts == 2
    assert (result.infra_error or "").startswith("wall-clock limit:")
    record: dict[str, Any] = {}
    apply_result(record, result, ("parse", "name"))
    assert record["infra_error"] == result.infra_error
    assert record["grades"]["name"]["verdict"] == "timeout"
    assert record["infra_kind"] == "wall_clock"  # the report leaves it out of every rate


def test_a_limit_reached_once_is_graded_again_and_the_second_grade_stands(
        monkeypatch: pytest.MonkeyPatch, harness: Harness) -> None:
    calls = _scripted(monkeypatch, [TIMED_OUT, PASSED])
    result = local.grade_job(local.Grader(harness), _job())
    assert len(calls) == 2 and result.attempts == 2
    assert result.infra_error is None and result.grades is PASSED
    record: dict[str, Any] = {}
    apply_result(record, result, ("parse", "name"))
    assert "infra_kind" not in record


def test_a_grade_no_clock_ended_is_made_once(monkeypatch: pytest.MonkeyPatch,
                                             harness: Harness) -> None:
    calls = _scripted(monkeypatch, [PASSED])
    result = local.grade_job(local.Grader(harness), _job())
    assert len(calls) == 1 and result.attempts == 1 and result.infra_error is None
