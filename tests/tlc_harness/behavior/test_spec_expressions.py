"""A specification formula whose parts are expressions (`Spec == x = 0 /\\ [][A \\/ B]_x`,
`Init(s)`): staging names them in the scratch copy (`staging.ENTRY_INIT`, `ENTRY_NEXT`), so
such a module is graded, and a reference written so covers its tasks."""

from __future__ import annotations

from tlc_harness.behavior.engine import grade_behavior
from tlc_harness.behavior.options import BehaviorOptions
from tlc_harness.behavior.staging import ENTRY_INIT, ENTRY_NEXT, Reference, stage_output
from tlc_harness.behavior.verdicts import BehaviorVerdict
from tlc_harness.source.behavior_parts import spec_expressions
from tlc_harness.source.cfg import ModelConfig
from tlc_harness.tools.runner import Harness

EXPR = """---- MODULE Expr ----
EXTENDS Integers
VARIABLE x
A == x < 2 /\\ x' = x + 1
B == x = 2 /\\ x' = 0
Spec == /\\ x = 0
        /\\ [][\\/ A
              \\/ B]_x
        /\\ WF_x(A)
====
"""
REF = Reference("Expr", {"Expr.tla": EXPR}, ModelConfig(specification="Spec"))


def test_the_parts_are_read_with_their_layout() -> None:
    parts = spec_expressions({"Expr.tla": EXPR}, "Spec")
    assert parts is not None
    assert [p.strip() for p in parts[0]] == ["x = 0"]
    assert parts[1].splitlines()[1:] == ["              \\/ A", "              \\/ B"]
    assert spec_expressions({"Expr.tla": EXPR.replace("/\\ [][", "/\\ <>[][")}, "Spec") is None
    staged = stage_output({"Expr.tla": EXPR}, "Expr", REF)
    assert (staged.out_init, staged.out_next) == (ENTRY_INIT, ENTRY_NEXT)


def test_such_a_module_is_graded(harness: Harness) -> None:
    def grade(text: str) -> BehaviorVerdict:
        return grade_behavior(harness, REF, {"Expr.tla": text}, "Expr",
                              BehaviorOptions(engine="auto", timeout=120)).verdict
    assert grade(EXPR) is BehaviorVerdict.OK
    # the same layout, changed behavior
    assert grade(EXPR.replace("x' = 0", "x' = 1")) in (BehaviorVerdict.FORWARD_FAIL,
                                                       BehaviorVerdict.REVERSE_FAIL)
