"""An output's constants that take the values of the reference's literal definitions: a
definition the names pair (`Colors` and `Color`) or one that names a count (`Ids == 1 .. M`)
gives a justified value; and a reference cfg override of a name the output never writes does
not keep the graph engine from deciding."""

from __future__ import annotations

from typing import Any

import pytest

from tlc_harness.behavior.engine import grade_behavior
from tlc_harness.behavior.graph_engine.constant_maps import plan_constants
from tlc_harness.behavior.graph_engine.constant_values import cardinalities, definition_counts
from tlc_harness.behavior.graph_engine.output_graph import uncarried_overrides
from tlc_harness.behavior.options import BehaviorOptions
from tlc_harness.behavior.staging import Reference, constant_values, same_place, stage_output
from tlc_harness.behavior.verdicts import BehaviorResult, BehaviorVerdict, Soundness
from tlc_harness.source.cfg import ModelConfig
from tlc_harness.tools.runner import Harness

V, S = BehaviorVerdict, Soundness
#: creatures that fade; a faded one is the model value `Faded` the cfg gives the definition
PAINT = """---- MODULE Paint ----
EXTENDS Naturals
CONSTANT M
Color == {"red", "blue"}
Ids == 1 .. M
Faded == CHOOSE c : c \\notin Color
VARIABLE col
Init == col \\in [Ids -> Color]
Next == \\E i \\in Ids :
          /\\ col[i] # Faded
          /\\ \\/ col' = [col EXCEPT ![i] = Faded]
             \\/ \\E c \\in Color \\ {col[i]} : col' = [col EXCEPT ![i] = c]
Spec == Init /\\ [][Next]_col
====
"""
REF = Reference("Paint", {"Paint.tla": PAINT},
                ModelConfig(constants=(("M", "2"), ("Faded", "Faded")), specification="Spec",
                            check_deadlock=False))
#: the same creatures with a flag of their own for fading and no name for the faded color
OUT = """---- MODULE Out ----
EXTENDS Naturals
CONSTANTS Creatures, Colors
VARIABLES color, faded
vars == <<color, faded>>
Init == color \\in [Creatures -> Colors] /\\ faded = [c \\in Creatures |-> FALSE]
Fade(c) == ~faded[c] /\\ faded' = [faded EXCEPT ![c] = TRUE] /\\ UNCHANGED color
Recolor(c) == ~faded[c] /\\ \\E k \\in Colors \\ {color[c]} : color' = [color EXCEPT ![c] = k]
              /\\ UNCHANGED faded
Next == \\E c \\in Creatures : Fade(c) \\/ Recolor(c)
Spec == Init /\\ [][Next]_vars
====
"""
#: a behavior mutant: a faded creature comes back
UNFADES = OUT.replace(
    "Next == \\E c \\in Creatures : Fade(c) \\/ Recolor(c)",
    "Unfade(c) == faded[c] /\\ faded' = [faded EXCEPT ![c] = FALSE] /\\ UNCHANGED color\n"
    "Next == \\E c \\in Creatures : Fade(c) \\/ Recolor(c) \\/ Unfade(c)")
#: the output names the faded color itself, as the reference does
WRITES_FADED = UNFADES.replace("vars == <<color, faded>>",
                               "vars == <<color, faded>>\nFaded == CHOOSE v : v \\notin Colors")


def _plan(out: str, ref: Reference = REF) -> Any:
    values, unsupported = constant_values(ref)
    assert unsupported is None
    return plan_constants(ref, stage_output({"Out.tla": out}, "Out", ref), values)


def _grade(harness: Harness, out: str) -> BehaviorResult:
    return grade_behavior(harness, REF, {"Out.tla": out}, "Out",
                          BehaviorOptions(engine="auto", timeout=120))


# ---------------------------------------------------------------------------- the plan
def test_a_definition_that_names_a_count_is_that_count() -> None:
    values, _ = constant_values(REF)
    found = definition_counts(REF, ("Color", "Ids", "Faded"),
                              cardinalities(values.literals, ("M",)))
    assert found == {"Ids": "1..M"}


def test_definitions_named_alike_or_naming_a_count_give_justified_values() -> None:
    plan = _plan(OUT)
    const_map = plan.groups[0][0]
    assert const_map == {"Creatures": "Ids", "Colors": "Color"}
    assert plan.guessed(const_map) == []
    sources = plan.sources(const_map)
    assert sources["Colors"] == {"value": '{"red", "blue"}', "from": "Color",
                                 "source": "reference_definition", "named_alike": True}
    assert sources["Creatures"]["source"] == "reference_count"


def test_a_definition_the_names_do_not_pair_stays_a_guess() -> None:
    plan = _plan(OUT.replace("Colors", "Palette"))
    const_map = plan.groups[0][0]
    assert const_map["Palette"] == "Color"
    assert plan.guessed(const_map) == ["Palette"]


def test_a_count_is_no_value_where_an_output_constant_stands_for_what_it_counts() -> None:
    # with its own `M` beside `Creatures`, the output's set is something else than `1..M`
    out = OUT.replace("CONSTANTS Creatures, Colors", "CONSTANTS Creatures, Colors, M").replace(
        "Init == ", "Init == M > 0 /\\ ")
    plan = _plan(out)
    const_map = plan.groups[0][0]
    assert const_map["M"] == "M" and const_map["Creatures"] == "Ids"
    assert "Creatures" in plan.guessed(const_map)


# ------------------------------------------------------------------------ the overrides
def test_an_override_of_a_name_the_output_never_writes_is_not_uncarried() -> None:
    values, _ = constant_values(REF)
    assert uncarried_overrides(REF, stage_output({"Out.tla": OUT}, "Out", REF), values) == []
    writes = stage_output({"Out.tla": WRITES_FADED}, "Out", REF)
    assert uncarried_overrides(REF, writes, values) == ["Faded"]


# ------------------------------------------------------------------- graded with TLC
@pytest.mark.parametrize(("out", "verdict", "soundness"), [
    (OUT, V.OK, S.JUSTIFIED), (UNFADES, V.FORWARD_FAIL, S.JUSTIFIED)])
def test_an_output_under_definitions_paired_by_meaning_is_decided_on_the_graphs(
        harness: Harness, out: str, verdict: BehaviorVerdict, soundness: Soundness) -> None:
    graded = _grade(harness, out)
    # the failing output keeps no variable of the reference's names, so the named class says
    # nothing; its whole graph maps onto the reference's under no state mapping at all
    assert graded.verdict is verdict, graded.reason
    assert graded.soundness is soundness, graded.reason
    if verdict is not V.OK:
        assert graded.details["mapping_basis"] == "any_mapping"
        assert graded.details["any_mapping_kind"] == "homomorphism"
    assert "fallback" not in graded.details  # the graphs decided, not the wrappers
    assert graded.details["constants"]["Colors"]["source"] == "reference_definition"


def test_a_failure_of_an_output_that_writes_an_overridden_name_goes_to_the_wrappers(
        harness: Harness) -> None:
    graded = _grade(harness, WRITES_FADED)
    assert "Faded" in graded.details["fallback"]
    assert graded.verdict is not V.OK


def test_a_definition_at_the_same_place_needs_a_renamed_copy_with_the_same_arities() -> None:
    # six definitions each, but not a copy: `Faded` is no `Fade(c)`
    assert same_place(REF, {"Out.tla": OUT}, "Faded") is None
    renamed = PAINT.replace("Paint", "Out").replace("Faded", "Gone").replace("Next", "Step")
    assert same_place(REF, {"Out.tla": renamed}, "Faded") == "Gone"
    assert same_place(REF, {"Out.tla": renamed}, "Next") == "Step"
