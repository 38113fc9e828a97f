"""Every stage reads the behavior the cfg names (issue 51, item 3): under `SPECIFICATION Spec`
the output's Init and Next are `Spec`'s own parts (`behavior_parts.spec_parts`), never
operators that merely carry the names `Init` and `Next`; under INIT and NEXT, a `Spec` of
another behavior is not graded; a formula whose parts cannot be read is `undecided`."""

from __future__ import annotations

from tlc_harness.behavior.engine import grade_behavior
from tlc_harness.behavior.options import BehaviorOptions
from tlc_harness.behavior.staging import Reference, out_name, stage_output
from tlc_harness.behavior.verdicts import BehaviorVerdict, Reason
from tlc_harness.source.behavior_parts import spec_expressions, spec_parts
from tlc_harness.source.cfg import ModelConfig
from tlc_harness.tools.runner import Harness

COUNTER = """---- MODULE Counter ----
EXTENDS Naturals
CONSTANT Max
VARIABLE x
Init == x = 0
Next == x < Max /\\ x' = x + 1
Spec == Init /\\ [][Next]_x
====
"""
REF = Reference("Counter", {"Counter.tla": COUNTER},
                ModelConfig(constants=(("Max", "3"),), specification="Spec",
                            check_deadlock=False))

#: `Spec` is the behavior of Init2 and Next2; `Init` and `Next` are decoys of the reference's
#: own behavior, which the formula the cfg names never uses
DECOYS = """---- MODULE Out ----
EXTENDS Naturals
CONSTANT Max
VARIABLE x
Init == x = 0
Next == x < Max /\\ x' = x + 1
Init2 == x = 0
Next2 == \\/ x < Max /\\ x' = x + 1
         \\/ x = Max /\\ x' = 0
Spec == Init2 /\\ [][Next2]_x
====
"""


def _grade(harness: Harness, text: str, engine: str = "graphs"
           ) -> tuple[BehaviorVerdict, str, Reason | None, dict[str, object]]:
    graded = grade_behavior(harness, REF, {"Out.tla": text}, "Out",
                            BehaviorOptions(engine=engine, timeout=120))
    return graded.verdict, graded.reason, graded.code, dict(graded.details)


# ------------------------------------------------------------------- reading a formula
def test_a_formula_is_resolved_into_its_own_init_and_next() -> None:
    files = {"Out.tla": DECOYS.replace("====", """Safe == Init2 /\\ [][Next2]_x
Fair == WF_x(Next2)
Nested == Safe /\\ Fair
Bullets == /\\ Init2
           /\\ [][Next2]_x
           /\\ WF_x(Next2)
Expr == x = 1 /\\ [][Next \\/ Next2]_x
Two == Init /\\ [][Next]_x /\\ [][Next2]_x
Quantified == Init /\\ \\A i \\in {1} : [][Next]_x
Positive == x >= 0
Restricted == Init2 /\\ [][Next2]_x /\\ Positive
Instanced == Init2 /\\ [][Next2]_x /\\ Svc!Fairness
====""")}
    for name in ("Spec", "Nested", "Bullets", "Instanced"):
        assert spec_parts(files, name) == ("Init2", "Next2"), name
    # a state predicate after the box restricts the initial states: the initial predicate
    # is then the two conjuncts, read as texts
    assert spec_parts(files, "Restricted") is None
    restricted = spec_expressions(files, "Restricted")
    assert restricted is not None and [p.strip() for p in restricted[0]] == ["Init2", "Positive"]
    # parts that are expressions have no names, but their texts
    assert spec_parts(files, "Expr") is None
    parts = spec_expressions(files, "Expr")
    assert parts is not None and [p.strip() for p in parts[0]] == ["x = 1"]
    assert parts[1].strip() == "Next \\/ Next2"
    # two boxes, a box under a quantifier, a fairness formula, no such definition: unread
    for name in ("Two", "Quantified", "Fair", "Absent"):
        assert spec_parts(files, name) is None and spec_expressions(files, name) is None, name


def test_staging_takes_the_formulas_parts_not_the_usual_names() -> None:
    staged = stage_output({"Out.tla": DECOYS}, "Out", REF)
    assert (staged.out_spec, staged.out_init, staged.out_next) == ("Spec", "Init2", "Next2")
    assert not staged.spec_unread
    # through a definition: `Spec == Safe /\\ WF_x(Next2)`
    nested = DECOYS.replace("Spec == Init2", "Safe == Init2").replace(
        "====", "Spec == Safe /\\ WF_x(Next2)\n====")
    staged = stage_output({"Out.tla": nested}, "Out", REF)
    assert (staged.out_spec, staged.out_init, staged.out_next) == ("Spec", "Init2", "Next2")
    # unread: no Init or Next by name stands in for the formula's
    unread = DECOYS.replace("Spec == Init2 /\\ [][Next2]_x",
                            "Spec == Init2 /\\ [][Next2]_x /\\ [][Next]_x")
    staged = stage_output({"Out.tla": unread}, "Out", REF)
    assert (staged.out_spec, staged.out_init, staged.out_next) == ("Spec", None, None)
    assert staged.spec_unread


def test_under_init_and_next_a_formula_of_another_behavior_is_not_graded() -> None:
    ref = Reference("Counter", {"Counter.tla": COUNTER}, ModelConfig(
        constants=(("Max", "3"),), init="Init", next="Next"))
    staged = stage_output({"Out.tla": DECOYS}, "Out", ref)
    assert (staged.out_spec, staged.out_init, staged.out_next) == (None, "Init", "Next")
    same = DECOYS.replace("Spec == Init2 /\\ [][Next2]_x", "Spec == Init /\\ [][Next]_x")
    staged = stage_output({"Out.tla": same}, "Out", ref)
    assert (staged.out_spec, staged.out_init, staged.out_next) == ("Spec", "Init", "Next")


# ------------------------------------------------------------------------- the grade
def test_an_output_wrong_under_its_spec_fails_with_its_witness_replayed(
        harness: Harness) -> None:
    # its decoy Init and Next are the reference's; its Spec starts again at Max (a cycle
    # where the reference's graph is a path: a failure under every mapping of x's values)
    verdict, reason, _, details = _grade(harness, DECOYS)
    assert verdict is BehaviorVerdict.FORWARD_FAIL, reason
    assert details["witness_replayed"] is True, details.get("replay")


def test_an_output_right_under_its_spec_is_ok_whatever_its_decoys(harness: Harness) -> None:
    right = DECOYS.replace("\\/ x = Max /\\ x' = 0", "\\/ FALSE").replace(
        "Next == x < Max /\\ x' = x + 1", "Next == x' = x + 2").replace(
        "Init == x = 0", "Init == x = 1")
    assert "x' = x + 2" in right and "Init == x = 1" in right
    verdict, reason, _, _ = _grade(harness, right)
    assert verdict is BehaviorVerdict.OK, reason
    # the wrapper engine's reverse formula is the Spec's too (by the decoys: reverse_fail)
    verdict, reason, _, _ = _grade(harness, right, engine="wrappers")
    assert verdict is BehaviorVerdict.OK, reason


def test_a_spec_whose_parts_cannot_be_read_is_undecided_not_graded_by_name(
        harness: Harness) -> None:
    unread = DECOYS.replace("Spec == Init2 /\\ [][Next2]_x",
                            "Spec == Init2 /\\ [][Next2]_x /\\ [][Next]_x")
    verdict, reason, code, _ = _grade(harness, unread)
    assert (verdict, code) == (BehaviorVerdict.UNDECIDED, Reason.SPEC_UNREAD), reason


def test_a_renamed_copy_still_lines_up_with_the_reference_when_its_formula_adds_conjuncts(
) -> None:
    """The entry points a scratch copy adds for a formula written as expressions are not the
    output's definitions: a renamed copy is still read definition by definition against R
    (a model value R's cfg sets is given to the copy's namesake; it was lost, and a renamed
    echo.MCEcho whose `TestSpec == PrintT(R) /\\ Spec` failed under every mapping)."""
    reference = COUNTER.replace("Spec ==", "None == \"none\"\nTestSpec == Print(Max, TRUE) /\\ Spec\nSpec ==")
    ref = Reference("Counter", {"Counter.tla": reference},
                    ModelConfig(constants=(("Max", "3"),), specification="TestSpec",
                                check_deadlock=False))
    renamed = (reference.replace("Counter", "Out").replace("None", "Absent")
               .replace("TestSpec", "Checked").replace("Max", "Top"))
    staged = stage_output({"Out.tla": renamed}, "Out", ref)
    assert (staged.out_init, staged.out_spec) == ("AliasEntryInit", "Checked")
    assert out_name(ref, staged, "None") == "Absent"
