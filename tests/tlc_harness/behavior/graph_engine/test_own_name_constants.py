"""An output constant paired with the reference constant of its own name is that constant:
it takes the model value the reference's cfg gives it, even where its uses suggest a number
(`constant_maps.plan_constants`: no number "stands for" it). PlusCal's `defaultInitValue` is
the case: a variable holds it before it holds numbers, so the output's types read it as a
number, but the task's model makes it a model value; numbers in its place collide with the
data, and the reference graded against itself failed under every number tried (TLA+-Bench's
1611, MergeSort). A constant of another name may still stand for the model value."""

from __future__ import annotations

from tlc_harness.behavior.engine import grade_behavior
from tlc_harness.behavior.graph_engine.constant_maps import plan_constants
from tlc_harness.behavior.options import BehaviorOptions
from tlc_harness.behavior.staging import Reference, constant_values, stage_output
from tlc_harness.behavior.verdicts import BehaviorVerdict
from tlc_harness.source.cfg import parse_cfg
from tlc_harness.tools.runner import Harness

#: a counter that runs 0..9 and then holds the placeholder `Undef` until it starts again
COUNTER = """---- MODULE Counter ----
EXTENDS Naturals
CONSTANT Undef
VARIABLES i, pc
Init == i = Undef /\\ pc = "start"
Next == \\/ pc = "start" /\\ i' = 0 /\\ pc' = "count"
        \\/ pc = "count" /\\ i < 9 /\\ i' = i + 1 /\\ pc' = "count"
        \\/ pc = "count" /\\ i = 9 /\\ i' = Undef /\\ pc' = "start"
Spec == Init /\\ [][Next]_<<i, pc>>
====
"""
REF = Reference("Counter", {"Counter.tla": COUNTER},
                parse_cfg("CONSTANT Undef = Undef\nSPECIFICATION Spec\n"))


def test_a_constant_of_the_reference_s_name_keeps_its_model_value() -> None:
    staged = stage_output({"Counter.tla": COUNTER}, "Counter", REF)
    assert staged.out_shape.types["Undef"] == "int"  # what its uses suggest
    values, _ = constant_values(REF)
    plan = plan_constants(REF, staged, values)
    assert plan.groups[0] == ({"Undef": "Undef"},)
    assert "Undef" not in plan.standing


def test_the_reference_against_itself_passes(harness: Harness) -> None:
    for engine in ("graphs", "auto"):
        graded = grade_behavior(harness, REF, {"Counter.tla": COUNTER}, "Counter",
                                BehaviorOptions(engine=engine, timeout=120))
        assert graded.verdict is BehaviorVerdict.OK, graded.reason
        assert graded.details["constants"]["Undef"]["source"] == "reference_constant"


def test_a_changed_step_still_fails(harness: Harness) -> None:
    # counting to 8 only: under the model value the reference gives, not under numbers tried
    changed = COUNTER.replace("i < 9", "i < 8").replace("i = 9", "i = 8")
    graded = grade_behavior(harness, REF, {"Counter.tla": changed}, "Counter",
                            BehaviorOptions(engine="graphs", timeout=120))
    assert graded.verdict in (BehaviorVerdict.FORWARD_FAIL, BehaviorVerdict.REVERSE_FAIL), \
        graded.reason
    assert graded.details["constants"]["Undef"]["source"] == "reference_constant"
