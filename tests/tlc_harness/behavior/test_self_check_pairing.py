"""A reference graded against itself (its coverage self-check) is graded under its own names
only: no other pairing of its constants or variables is tried, by either engine."""

from __future__ import annotations

import pytest

from alias_fixtures.grading import grade as grade_module
from alias_fixtures.grading.grade import ReferenceCoverage
from alias_fixtures.tasks.task import Task
from alias_fixtures.tasks.variants import original_variant
from tlc_harness.behavior.engine import grade_behavior
from tlc_harness.behavior.options import BehaviorOptions
from tlc_harness.behavior.staging import Reference
from tlc_harness.behavior.verdicts import BehaviorResult, BehaviorVerdict
from tlc_harness.source.cfg import ModelConfig
from tlc_harness.tools.runner import Harness

RANGE = """---- MODULE Range ----
EXTENDS Naturals
CONSTANTS Lo, Hi
VARIABLE x
Init == x = Lo
Next == x < Hi /\\ x' = x + 1
Spec == Init /\\ [][Next]_x
====
"""
REF = Reference("Range", {"Range.tla": RANGE},
                ModelConfig(constants=(("Lo", "0"), ("Hi", "2")), specification="Spec",
                            check_deadlock=False))
#: the reference's behaviors only where its `Lo` and `Hi` trade places
SWAPPED = RANGE.replace("Range", "Other").replace("x = Lo", "x = Hi").replace("x < Hi", "x < Lo")


@pytest.mark.parametrize("engine", ["graphs", "wrappers"])
def test_a_self_check_grades_under_identical_names_alone(harness: Harness, engine: str) -> None:
    options = BehaviorOptions(engine=engine, timeout=120)
    searched = grade_behavior(harness, REF, {"Other.tla": SWAPPED}, "Other", options)
    assert searched.verdict is BehaviorVerdict.OK, searched.reason  # under Lo <- Hi, Hi <- Lo
    own_names = grade_behavior(harness, REF, {"Other.tla": SWAPPED}, "Other",
                               options.for_self_check())
    assert not own_names.passed, own_names.reason


def test_the_options_of_a_self_check() -> None:
    options = BehaviorOptions(output_budget=30).for_self_check()
    assert options.self_check and options.output_budget is None
    assert not BehaviorOptions().self_check


def test_a_references_coverage_is_its_self_check(harness: Harness,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[BehaviorOptions] = []

    def graded(*args: object) -> BehaviorResult:
        seen.append(args[-1])  # type: ignore[arg-type]
        return BehaviorResult(BehaviorVerdict.OK, None, "ok", 0.0)

    monkeypatch.setattr(grade_module, "grade_behavior", graded)
    task = Task(id="range", modules={"Range.tla": RANGE}, main_module="Range",
                cfg_text="CONSTANTS\n  Lo = 0\n  Hi = 2\nSPECIFICATION Spec\n"
                         "CHECK_DEADLOCK FALSE\n")
    ReferenceCoverage(harness, BehaviorOptions(timeout=120), on_disk=False).check(
        original_variant(task))
    assert [o.self_check for o in seen] == [True]
