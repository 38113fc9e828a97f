"""An output that writes `None == CHOOSE v : v \\notin Values` where the reference declares a
constant given a model value. TLC cannot evaluate such an unbounded CHOOSE unless the cfg gives
the definition a model value, as every TLC model of such a spec does; the grader's cfg of the
output does the same (a fresh model value is outside every set of the model), so the output is
graded on its behavior instead of failing on the grader's cfg."""

from __future__ import annotations

import pytest

from alias_fixtures.grading.grade import reference_of
from alias_fixtures.tasks.task import builtin_tasks
from alias_fixtures.tasks.variants import make_variant
from tlc_harness.behavior.engine import grade_behavior
from tlc_harness.behavior.options import ENGINES, BehaviorOptions
from tlc_harness.behavior.staging import outside_values
from tlc_harness.tools.runner import Harness

TASK = next(t for t in builtin_tasks() if t.id == "kv_store")


def _output(choose: str) -> dict[str, str]:
    text = TASK.modules[TASK.main_file]
    text = text.replace("CONSTANTS Keys, Vals, NoVal, MaxVersion",
                        f"CONSTANTS Keys, Vals, MaxVersion\nNoVal == {choose}")
    text = text.replace("ASSUME NoVal \\notin Vals", "")
    assert "NoVal ==" in text and "ASSUME NoVal" not in text
    return {TASK.main_file: text}


def test_outside_values_are_read_from_the_definitions() -> None:
    files = {"M.tla": "None == CHOOSE v : v \\notin Values\nNil == CHOOSE x: ~(x \\in S)\n"
                      "Any == CHOOSE x \\in S : TRUE\nBig == CHOOSE x : x > 3\n"}
    assert outside_values(files) == ["Nil", "None"]


@pytest.mark.parametrize("engine", ENGINES)
def test_a_value_chosen_outside_a_set_is_a_model_value(harness: Harness, engine: str) -> None:
    ref = reference_of(make_variant(TASK, "original"))
    result = grade_behavior(harness, ref, _output("CHOOSE v : v \\notin Vals"),
                            TASK.main_module, BehaviorOptions(engine=engine))
    assert result.verdict == "ok", result.reason
