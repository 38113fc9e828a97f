"""Liveness in the reverse direction. An output whose formula adds fairness or a liveness
conjunct to its safety part has fewer behaviors: its `ok` needs TLC to show that the
reference's behaviors (with the reference's own fairness) satisfy the output's whole formula.
A violation is a reverse failure (`reverse_liveness`); where no such run can be made (the
output's variables are no function of the reference's), the verdict is `undecided`
(`liveness_unchecked`), never `ok`."""

from __future__ import annotations

from typing import Any

import pytest

from tlc_harness.behavior.engine import grade_behavior
from tlc_harness.behavior.options import BehaviorOptions
from tlc_harness.behavior.staging import Reference
from tlc_harness.behavior.subscripts import in_scope
from tlc_harness.behavior.verdicts import Reason
from tlc_harness.source.cfg import parse_cfg
from tlc_harness.source.formulas import temporal_conjuncts
from tlc_harness.tools.runner import Harness
from tlc_harness.tools.spec import SpecSource

CLOCK = """---- MODULE Clock ----
EXTENDS Naturals
VARIABLE x
Init == x = 0
Next == x' = (x + 1) % 3
Spec == Init /\\ [][Next]_x{fair}
====
"""
OUT = """---- MODULE Out ----
EXTENDS Naturals
VARIABLE{s} {decl}
Init == {init}
Next == {next}
Spec == Init /\\ [][Next]_{sub}{fair}
====
"""
ENGINES = ["graphs", "wrappers"]


def _ref(fair: str) -> Reference:
    return Reference("Clock", {"Clock.tla": CLOCK.format(fair=fair)},
                     parse_cfg("SPECIFICATION Spec\n"))


def _renamed(fair: str) -> dict[str, str]:
    return {"Out.tla": OUT.format(s="", decl="y", init="y = 0", next="y' = (y + 1) % 3",
                                  sub="y", fair=fair)}


def _named(fair: str) -> dict[str, str]:
    """The output keeping the reference's name `x`: the one mapping that could work."""
    return {"Out.tla": OUT.format(s="", decl="x", init="x = 0", next="x' = (x + 1) % 3",
                                  sub="x", fair=fair)}


#: (engine, the output's files, the failure expected): a failure stands where the mapping is
#: the only one that could work (`x` named as the reference's), and, on the graphs, under
#: another name too (the graphs are isomorphic, and the side without fairness makes the
#: failure hold under every one-to-one mapping: `graph_engine.transfer`); the wrappers do not
#: show the mappings they tried to be all that could work (`mapping_class_incomplete`)
FAILING = [("graphs", _named, None), ("graphs", _renamed, None),
           ("wrappers", _renamed, Reason.MAPPING_CLASS_INCOMPLETE)]


# ------------------------------------------------------------- which formulas are temporal
@pytest.mark.parametrize(("spec", "temporal"), [
    ("Spec == Init /\\ [][Next]_x", False),
    ("Spec == Init /\\ [] [Next]_x", False),
    ("Spec == Init /\\ [][Next]_x /\\ WF_x(Next)", True),
    ("Spec == Init /\\ [][Next]_x /\\ Fair\nFair == \\A p \\in {1} : SF_x(Next)", True),
    ("Spec == Init /\\ [][Next]_x /\\ []<>(x = 0)", True),
    ("Spec == Init /\\ [][Next]_x /\\ (x = 0 ~> x = 1)", True),
    ("Spec == Init /\\ [][Next]_x /\\ []TypeOK\nTypeOK == x \\in Nat", True),
    # the empty tuple is no `<>`, a CASE arm's `[]` no box, a comment no conjunct
    ("Spec == Init /\\ [][Next]_x \\* WF_x(Next) left out\nQ == <<>>", False),
    ("Spec == Init /\\ [][Step]_x /\\ (x = <<>> \\/ TRUE)\n"
     "Step == CASE x = 0 -> x' = 1 [] OTHER -> x' = 0", False),
])
def test_a_formula_is_temporal_when_it_adds_fairness_or_liveness(spec: str,
                                                                 temporal: bool) -> None:
    text = f"---- MODULE M ----\nVARIABLE x\nInit == x = 0\nNext == x' = x\n{spec}\n====\n"
    parts = temporal_conjuncts({"M.tla": text}, "Spec")
    assert parts.unreadable is None
    assert bool(parts.conjuncts) is temporal


BULLETED = """---- MODULE M ----
EXTENDS Integers
VARIABLE x
A(p) == x' = p
B(p) == x' = -p
Init == x = 0
Next == \\E p \\in {1, 2} : A(p) \\/ B(p)
Fair ==
    /\\ \\A p \\in {1, 2} : /\\ WF_x(A(p))
                          /\\ SF_x(B(p))
    /\\ <>(x = 1)
Spec ==
    /\\ Init
    /\\ [][Next]_x
    /\\ Fair
====
"""


def test_temporal_conjuncts_keep_their_bullets_where_they_are_written(harness: Harness) -> None:
    parts = temporal_conjuncts({"M.tla": BULLETED}, "Spec")
    assert [c.text.split()[0] for c in parts.conjuncts] == ["\\A", "<>(x"]
    # written as definitions of their own, a conjunct over several lines still parses
    defs = "\n".join(c.definition(f"Live{k}") for k, c in enumerate(parts.conjuncts))
    module = BULLETED.replace("====\n", defs + "\n====\n")
    assert harness.parse(SpecSource.from_text(module)).ok


def test_a_formula_from_a_module_instanced_without_a_name_is_read_there() -> None:
    # `INSTANCE Clock` puts Clock's definitions, Spec and its fairness, in MC's scope
    mc = "---- MODULE MC ----\nVARIABLE x\nINSTANCE Clock\n====\n"
    staged_files = {"MC.tla": mc, "Clock.tla": CLOCK.format(fair=" /\\ WF_x(Next)")}
    parts = temporal_conjuncts(in_scope(staged_files, "MC"), "Spec")
    assert [c.text for c in parts.conjuncts] == ["WF_x(Next)"]


# ----------------------------------------------------------------------- through TLC
def _expected(verdict: str, code: Reason, instead: Reason | None) -> tuple[str, Reason]:
    return (verdict, code) if instead is None else ("no_mapping", instead)


@pytest.mark.parametrize(("engine", "files", "instead"), FAILING)
def test_fairness_the_reference_lacks_is_a_reverse_failure(
        harness: Harness, engine: str, files: Any, instead: Reason | None) -> None:
    # the reference may stop ticking; the output may not: a behavior of R is none of G's
    var = "x" if files is _named else "y"
    result = grade_behavior(harness, _ref(""), files(f" /\\ WF_{var}(Next)"), "Out",
                            BehaviorOptions(engine=engine))
    assert (result.verdict, result.code) == _expected(
        "reverse_fail", Reason.REVERSE_LIVENESS, instead), result.reason


@pytest.mark.parametrize(("engine", "files", "instead"), FAILING)
def test_a_liveness_conjunct_the_reference_lacks_is_a_reverse_failure(
        harness: Harness, engine: str, files: Any, instead: Reason | None) -> None:
    var = "x" if files is _named else "y"
    result = grade_behavior(harness, _ref(""), files(f" /\\ []<>({var} = 2)"), "Out",
                            BehaviorOptions(engine=engine))
    assert (result.verdict, result.code) == _expected(
        "reverse_fail", Reason.REVERSE_LIVENESS, instead), result.reason


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("fair", [" /\\ WF_y(Next)", " /\\ []<>(y = 0) /\\ []<>(y = 2)"])
def test_fairness_or_liveness_the_reference_implies_passes(harness: Harness, engine: str,
                                                           fair: str) -> None:
    # with the reference's weak fairness every behavior ticks forever, through 0 and 2 each
    # round; a behavior that visits both forever ticks forever (one that stops at 2 does not)
    result = grade_behavior(harness, _ref(" /\\ WF_x(Next)"), _renamed(fair), "Out",
                            BehaviorOptions(engine=engine))
    assert result.verdict == "ok", result.reason
    assert result.details["reverse_liveness"] == "checked"


def test_an_output_with_state_the_reference_lacks_is_checked_without_an_inverse(
        harness: Harness) -> None:
    # `seen` (a tick happened) adds output states: the mapping is not one to one, and the
    # check runs on the output's side all the same
    files = {"Out.tla": OUT.format(s="S", decl="y, seen", init="y = 0 /\\ seen = FALSE",
                                   next="y' = (y + 1) % 3 /\\ seen' = TRUE",
                                   sub="<<y, seen>>", fair="{fair}")}
    fair = {"Out.tla": files["Out.tla"].format(fair=" /\\ WF_<<y, seen>>(Next)")}
    result = grade_behavior(harness, _ref(" /\\ WF_x(Next)"), fair, "Out",
                            BehaviorOptions(engine="graphs"))
    assert result.verdict == "ok", result.reason
    assert result.details["reverse_liveness"] == "checked"
    # without the reference's fairness, the output's stuttering behavior violates its own;
    # but two output states map to one of the reference's, so that shows no failure
    result = grade_behavior(harness, _ref(""), fair, "Out", BehaviorOptions(engine="graphs"))
    assert (result.verdict, result.code) == ("undecided", Reason.LIVENESS_UNCHECKED), \
        result.reason


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(("ref_fair", "expected"), [
    (" /\\ WF_x(Next)", ("ok", None)),
    # the output's fairness fails on behaviors that stop at the cut as on those that stop
    # early; under a CONSTRAINT neither counts as a failure
    ("", ("undecided", Reason.LIVENESS_UNCHECKED)),
])
def test_liveness_under_a_reference_constraint_is_checked_within_the_cut(
        harness: Harness, engine: str, ref_fair: str, expected: tuple[str, Reason | None]
        ) -> None:
    text = CLOCK.format(fair=ref_fair).replace("(x + 1) % 3", "x + 1")
    ref = Reference("Clock", {"Clock.tla": text.replace("Spec ==", "Small == x < 3\nSpec ==")},
                    parse_cfg("SPECIFICATION Spec\nCONSTRAINT Small\n"))
    out = {"Out.tla": OUT.format(s="", decl="y", init="y = 0", next="y' = y + 1", sub="y",
                                 fair=" /\\ WF_y(Next)")}
    result = grade_behavior(harness, ref, out, "Out", BehaviorOptions(engine=engine))
    assert (result.verdict, result.code) == expected, result.reason


@pytest.mark.parametrize(("engine", "files", "instead"), FAILING)
def test_a_safety_only_output_needs_no_reverse_liveness_run(
        harness: Harness, engine: str, files: Any, instead: Reason | None) -> None:
    # the reference's fairness is the forward run's to check: an output without it fails
    assert grade_behavior(harness, _ref(""), files(""), "Out",
                          BehaviorOptions(engine=engine)).verdict == "ok"
    result = grade_behavior(harness, _ref(" /\\ WF_x(Next)"), files(""), "Out",
                            BehaviorOptions(engine=engine))
    assert (result.verdict, result.code) == _expected(
        "forward_fail", Reason.TLC_FORWARD, instead), result.reason
