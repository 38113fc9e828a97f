"""Layouts the graph engine maps that hold one reference value in two output places, and the
values an output's constants take from the reference's operators and overrides:

- a flag beside a value the reference overwrites (`burnt[i]` beside `color[i]` where the
  reference paints a burnt lamp `Off`): `[i \\in DOMAIN color |-> IF burnt[i] THEN AliasFlag
  ELSE color[i]]`, AliasFlag translated to the reference's `Off`;
- an optional tuple (`<<>>` when no one holds a lamp, `<<i, color>>` when lamp i is held)
  for a reference value with a "nobody" of its own: `IF holding = <<>> THEN AliasNone ELSE
  holding[1]`;
- an output constant function named as a reference operator (`Other[c]` for `Other(c)`);
- a reference model that bounds `Nat` (`Nat <- NatOverride`) bounds the output's run too.
"""

from __future__ import annotations

import pytest

from tlc_harness.behavior.engine import grade_behavior
from tlc_harness.behavior.features import FLAG, NONE, Part, output_features
from tlc_harness.behavior.graph_engine.constant_values import operator_functions
from tlc_harness.behavior.graphs import StateGraph
from tlc_harness.behavior.options import BehaviorOptions
from tlc_harness.behavior.search import infer_types
from tlc_harness.behavior.staging import Reference
from tlc_harness.behavior.values import FALSE, TRUE, Fn, Value
from tlc_harness.source.cfg import parse_cfg
from tlc_harness.tools.runner import Harness

LAMPS = """---- MODULE Lamps ----
EXTENDS Naturals
CONSTANTS Off, Nobody
Lamps == 1..2
Colors == {"red", "green"}
Other(c) == CHOOSE d \\in Colors : d # c
VARIABLES lamp, holder
Init == lamp \\in [Lamps -> Colors] /\\ holder = Nobody
Take(i) == holder = Nobody /\\ lamp[i] # Off /\\ holder' = i /\\ UNCHANGED lamp
Flip(i) == holder = i /\\ lamp' = [lamp EXCEPT ![i] = Other(lamp[i])] /\\ holder' = Nobody
Burn(i) == holder = Nobody /\\ lamp[i] # Off /\\ lamp' = [lamp EXCEPT ![i] = Off]
           /\\ UNCHANGED holder
Next == \\E i \\in Lamps : Take(i) \\/ Flip(i) \\/ Burn(i)
Spec == Init /\\ [][Next]_<<lamp, holder>>
====
"""
REF = Reference("Lamps", {"Lamps.tla": LAMPS},
                parse_cfg("CONSTANTS\n  Off = Off\n  Nobody = Nobody\nSPECIFICATION Spec\n"
                          "CHECK_DEADLOCK FALSE\n"))
OUTPUT = """---- MODULE Lamps ----
CONSTANTS Lamps, Colors, Other
VARIABLES color, burnt, holding
vars == <<color, burnt, holding>>
Init == /\\ color \\in [Lamps -> Colors]
        /\\ burnt = [i \\in Lamps |-> FALSE]
        /\\ holding = <<>>
Take(i) == /\\ holding = <<>> /\\ ~burnt[i]
           /\\ holding' = <<i, color[i]>> /\\ UNCHANGED <<color, burnt>>
Flip(i) == /\\ holding # <<>> /\\ holding[1] = i
           /\\ color' = [color EXCEPT ![i] = Other[color[i]]]
           /\\ holding' = <<>> /\\ UNCHANGED burnt
Burn(i) == /\\ holding = <<>> /\\ ~burnt[i]
           /\\ burnt' = [burnt EXCEPT ![i] = TRUE] /\\ UNCHANGED <<color, holding>>
Next == \\E i \\in Lamps : Take(i) \\/ Flip(i) \\/ Burn(i)
Spec == Init /\\ [][Next]_vars
====
"""
#: a lamp may burn while another is held: a step the reference forbids
BURNS_WHILE_HELD = OUTPUT.replace("Burn(i) == /\\ holding = <<>> /\\ ~burnt[i]",
                                  "Burn(i) == /\\ ~burnt[i]")
#: a held lamp is put back without its color flipped
NO_FLIP = OUTPUT.replace("color' = [color EXCEPT ![i] = Other[color[i]]]", "UNCHANGED color")


def _grade(harness: Harness, text: str, engine: str) -> object:
    return grade_behavior(harness, REF, {"Lamps.tla": text}, "Lamps",
                          BehaviorOptions(engine=engine))


def test_mutants_differ_from_the_output() -> None:
    assert BURNS_WHILE_HELD != OUTPUT and NO_FLIP != OUTPUT


@pytest.mark.parametrize("engine", ["graphs", "auto"])
def test_a_flag_and_an_optional_tuple_map_onto_the_references_values(harness: Harness,
                                                                      engine: str) -> None:
    result = _grade(harness, OUTPUT, engine)
    assert result.verdict == "ok", result.reason  # type: ignore[attr-defined]
    mapping = result.mapping  # type: ignore[attr-defined]
    assert "IF burnt[AliasI] THEN AliasFlag ELSE color[AliasI]" in mapping["variables"]["lamp"]
    assert "IF holding = <<>> THEN AliasNone ELSE holding[1]" in mapping["variables"]["holder"]
    assert mapping["constants"]["Other"] == "Other"
    assert "fallback" not in result.details  # type: ignore[attr-defined]


@pytest.mark.parametrize("engine", ["graphs", "auto"])
@pytest.mark.parametrize("mutant", [BURNS_WHILE_HELD, NO_FLIP], ids=["burns", "no-flip"])
def test_the_same_layout_with_other_behaviors_fails(harness: Harness, engine: str,
                                                    mutant: str) -> None:
    result = _grade(harness, mutant, engine)
    # the output names its state otherwise than the reference, so the named class says
    # nothing; but no state mapping at all makes its whole graph the reference's
    assert result.verdict == "forward_fail", result.reason  # type: ignore[attr-defined]
    details = result.details  # type: ignore[attr-defined]
    assert (details["mapping_basis"], details["any_mapping"]) == ("any_mapping", "fails")


def _graph(variables: tuple[str, ...], states: list[tuple[Value, ...]]) -> StateGraph:
    return StateGraph(variables, states, [0], [(i, i + 1) for i in range(len(states) - 1)])


def test_folded_and_optional_features_hold_the_values_they_stand_for() -> None:
    red, green = "red", "green"
    graph = _graph(("color", "burnt", "holding"), [
        (Fn.tuple_of([red, green]), Fn.tuple_of([FALSE, FALSE]), Fn.tuple_of([])),
        (Fn.tuple_of([red, green]), Fn.tuple_of([FALSE, FALSE]), Fn.tuple_of([2, green])),
        (Fn.tuple_of([red, red]), Fn.tuple_of([TRUE, FALSE]), Fn.tuple_of([])),
    ])
    feats = {f.expr: f for f in output_features(graph)}
    folded = feats["[AliasI \\in DOMAIN color |-> IF burnt[AliasI] THEN AliasFlag "
                   "ELSE color[AliasI]]"]
    assert list(folded.column) == [Fn.tuple_of([red, green]), Fn.tuple_of([red, green]),
                                   Fn.tuple_of([FLAG, red])]
    assert folded.uses == {"color", "burnt"} and folded.model_values == {"AliasFlag"}
    first = feats["(IF holding = <<>> THEN AliasNone ELSE holding[1])"]
    assert list(first.column) == [NONE, 2, NONE]
    # a flag is not folded into a flag, nor into a value of another shape
    assert not any("AliasFlag ELSE burnt" in e or "AliasFlag ELSE holding" in e for e in feats)


def test_a_tuple_rebuilt_pointwise_is_written_as_a_tuple() -> None:
    part = Part("f", [], "pointwise", (1, 2))
    assert part.rebuild_text(["a", "b"]) == \
        "[AliasP0 \\in DOMAIN (a) |-> <<(a)[AliasP0], (b)[AliasP0]>>]"
    record = Part("f", [], "pointwise", ("x", "y"))
    assert record.rebuild_text(["a", "b"]) == \
        "[AliasP0 \\in DOMAIN (a) |-> [x |-> (a)[AliasP0], y |-> (b)[AliasP0]]]"


def test_an_operator_becomes_a_function_over_the_set_its_body_names() -> None:
    literals = {"Colors": '{"red", "green"}'}
    found = operator_functions(REF, literals, {"Other", "Take"})
    assert found == {"Other": '[AliasA0 \\in ({"red", "green"}) |-> CHOOSE AliasB_d \\in '
                              '({"red", "green"}) : AliasB_d # AliasA0]'}
    # a body naming a variable (`Take` reads `holder`) or no literal set is left out
    assert operator_functions(REF, {}, {"Other"}) == {}


def test_sets_used_as_ranges_and_factors_are_typed_as_sets() -> None:
    types = infer_types({"Lamps.tla": OUTPUT}, ["color"], ["Lamps", "Colors", "Other"], None)
    assert types["Colors"] == "set"
    product = "---- MODULE M ----\nCONSTANT A, B\nX == A \\X B\n====\n"
    assert infer_types({"M.tla": product}, [], ["A", "B"], None) == {"A": "set", "B": "set"}


TICKETS = """---- MODULE Tickets ----
EXTENDS Naturals
VARIABLE t
Init == t = 0
Next == \\E k \\in Nat : k > t /\\ t' = k
Spec == Init /\\ [][Next]_t
====
"""
MC_TICKETS = """---- MODULE MCTickets ----
EXTENDS Tickets
CONSTANT MaxNat
NatOverride == 0 .. MaxNat
====
"""


@pytest.mark.parametrize("engine", ["graphs", "auto"])
def test_a_model_bounding_nat_bounds_the_outputs_run(harness: Harness, engine: str) -> None:
    ref = Reference("MCTickets", {"Tickets.tla": TICKETS, "MCTickets.tla": MC_TICKETS},
                    parse_cfg("CONSTANT MaxNat = 3\nCONSTANT Nat <- NatOverride\n"
                              "SPECIFICATION Spec\nCHECK_DEADLOCK FALSE\n"))
    result = grade_behavior(harness, ref, {"Tickets.tla": TICKETS}, "Tickets",
                            BehaviorOptions(engine=engine))
    assert result.verdict == "ok", result.reason
    assert result.engine == "graphs" and "fallback" not in result.details
