"""A constant the text takes as a symbol keeps a model value of its own name only where the
output's graph shows it meeting symbols alone (`graph_engine.symbol_sorts`, issue 51)."""

from __future__ import annotations

import pytest

from tlc_harness.behavior.engine import grade_behavior
from tlc_harness.behavior.graph_engine.symbol_sorts import mixed_symbols
from tlc_harness.behavior.graphs import StateGraph
from tlc_harness.behavior.options import BehaviorOptions
from tlc_harness.behavior.staging import Reference
from tlc_harness.behavior.values import Fn, ModelValue, Value
from tlc_harness.source.cfg import parse_cfg
from tlc_harness.tools.runner import Harness

HEAD = "---- MODULE M ----\nEXTENDS Naturals, Sequences\nCONSTANTS Aye, Nay, N\nVARIABLES v, x\n"
AYE, NAY = ModelValue("Aye"), ModelValue("Nay")


def _mixed(body: str, vs: tuple[Value, ...] = (AYE, NAY),
           xs: tuple[Value, ...] = (0, 1)) -> set[str]:
    graph = StateGraph(("v", "x"), [(a, b) for a in vs for b in xs], [0], [])
    return set(mixed_symbols(graph, {"M.tla": HEAD + body + "\n===="},
                             frozenset({"Aye", "Nay"}), ("v", "x")))


def _fn(a: Value) -> Fn:
    return Fn([(1, a), (2, a)])


def _msg(t: Value) -> Fn:
    return Fn([("type", t), ("val", 3)])


@pytest.mark.parametrize(("body", "vs", "xs", "mixed"), [
    # compared only with a variable holding symbols, and with each other
    ("Init == v = Aye /\\ x = 0\nNext == v' = (IF v = Aye THEN Nay ELSE Aye) /\\ x' = x\n"
     "TypeOK == v \\in {Aye, Nay}\nASSUME Aye # Nay", (AYE, NAY), (0, 1), set()),
    # a variable holding numbers: a number may equal it, a model value never does
    ("Init == v = Aye /\\ x = 0\nNext == v' = (IF x = Aye THEN Nay ELSE Aye) /\\ x' = x",
     (AYE, NAY), (0, 1), {"Aye"}),
    ("Init == v = Aye /\\ x = 0\nNext == x # Nay /\\ v' = Nay /\\ x' = x",
     (AYE, NAY), (0, 1), {"Nay"}),
    # a bound number
    ("Init == v = Aye /\\ x = 0\nNext == \\E i \\in 0..3 : i # Nay /\\ v' = Aye /\\ x' = i",
     (AYE, NAY), (0, 1), {"Nay"}),
    # stored beside numbers
    ("Init == v = Aye /\\ x = 0\nNext == x' \\in {Aye, 0, 1} /\\ v' = v",
     (AYE, NAY), (0, 1, AYE), {"Aye"}),
    # functions, EXCEPT and records whose slots hold symbols
    ("Init == v \\in [1..2 -> {Aye, Nay}] /\\ x = 0\n"
     "Flip(p) == v' = [v EXCEPT ![p] = IF v[p] = Aye THEN Nay ELSE Aye]\n"
     "Next == \\E p \\in 1..2 : v[p] # Nay /\\ Flip(p) /\\ x' = x",
     (_fn(AYE), _fn(NAY)), (0,), set()),
    ("Init == v = {} /\\ x = 0\nNext == v' = v \\cup {[type |-> Aye, val |-> 3]} /\\ "
     "\\E m \\in v : m.type = Nay /\\ x' = x", (frozenset(), frozenset({_msg(AYE)})), (0,),
     set()),
    # a slot holding a symbol compared with a number, with no symbol written there
    ("Init == v = {} /\\ x = 0\nNext == v' = v \\cup {[type |-> Aye, val |-> 3]} /\\ "
     "\\E m \\in v : m.type = 3 /\\ x' = x", (frozenset(), frozenset({_msg(AYE)})), (0,),
     {"Aye"}),
    # an operator's parameter: what it meets is not followed
    ("Init == v = Aye /\\ x = 0\nOther(s) == IF s = Aye THEN Nay ELSE Aye\n"
     "Next == v' = Other(v) /\\ x' = x", (AYE, NAY), (0,), {"Aye", "Nay"}),
])
def test_a_symbol_meets_only_symbols(body: str, vs: tuple[Value, ...],
                                     xs: tuple[Value, ...], mixed: set[str]) -> None:
    assert _mixed(body, vs, xs) == mixed


COUNT = Reference("Count", {"Count.tla": """---- MODULE Count ----
EXTENDS Naturals
VARIABLE x
Init == x = 0
Next == x < 3 /\\ x' = x + 1
Spec == Init /\\ [][Next]_x
====
"""}, parse_cfg("SPECIFICATION Spec\n"))
#: `Stop` is enumerated beside `Go` and compared only by `=`/`#`: the text takes it as a symbol
STOP_OUT = """---- MODULE Out ----
EXTENDS Naturals
CONSTANTS Stop, Go
VARIABLES x, mode
TypeOK == mode \\in {{Stop, Go}}
Init == x = 0 /\\ mode = Go
Next == {guard} # Stop /\\ x < 3 /\\ x' = x + 1 /\\ mode' = mode
Spec == Init /\\ [][Next]_<<x, mode>>
====
"""
GRAPHS = BehaviorOptions(engine="graphs", timeout=120)


def test_a_symbol_compared_with_numbers_is_graded_as_a_value(harness: Harness) -> None:
    # `x # Stop` with x in 0..3: a model value never stops x, `Stop = 2` stops it at 2, so
    # the model value hides behaviors: no `ok`
    result = grade_behavior(harness, COUNT, {"Out.tla": STOP_OUT.format(guard="x")}, "Out",
                            GRAPHS)
    assert result.verdict != "ok", result.reason
    assert "Stop" in result.details["not_symbols"], result.details


def test_a_symbol_compared_with_symbols_keeps_its_model_value(harness: Harness) -> None:
    result = grade_behavior(harness, COUNT, {"Out.tla": STOP_OUT.format(guard="mode")}, "Out",
                            GRAPHS)
    assert result.verdict == "ok", result.reason
    assert result.details["constants"]["Stop"]["source"] == "opaque_token"
    assert "not_symbols" not in result.details
