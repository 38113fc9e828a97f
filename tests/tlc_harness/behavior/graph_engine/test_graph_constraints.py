"""A reference bounded by a CONSTRAINT in the graph engine. TLC leaves the states past the
constraint out of R's graph, so the output's graph must stop where its image does: it is cut by
R's constraint under a seed mapping (the reference's variables onto the output's, same names
first). An `ok` found on such a graph holds (its states are reachable, and TLC's confirming run
cuts under the mapping found). A failure holds for the mapping the graph was cut under: it
counts when found under that mapping; found under another, G is cut again under that one, once;
otherwise `auto` hands the output to the wrapper engine. Without the cut, an output whose own
graph is finite but runs past the constraint failed forward, the reference against itself
included."""

from __future__ import annotations

import pytest

from tlc_harness.behavior.engine import grade_behavior
from tlc_harness.behavior.graph_engine.inference import plain_failure
from tlc_harness.behavior.graphs import StateGraph
from tlc_harness.behavior.options import BehaviorOptions
from tlc_harness.behavior.staging import Reference
from tlc_harness.behavior.values import Value
from tlc_harness.behavior.verdicts import BehaviorResult, Reason
from tlc_harness.source.cfg import parse_cfg
from tlc_harness.tools.runner import Harness

#: a counter that wraps at 10, checked only below 5: its own graph is finite (10 states), the
#: model's is 5 states
COUNTER = """---- MODULE Counter ----
EXTENDS Naturals
VARIABLE x
Init == x = 0
Next == x' = (x + 1) % 10
Spec == Init /\\ [][Next]_x
Small == x < 5
====
"""
REF = Reference("Counter", {"Counter.tla": COUNTER},
                parse_cfg("SPECIFICATION Spec\nCONSTRAINT Small\n"))
RENAMED = """---- MODULE Out ----
EXTENDS Naturals
VARIABLES count, parity
Init == count = 0 /\\ parity = 0
Next == count' = (count + {step}) % 10 /\\ parity' = 1 - parity
Spec == Init /\\ [][Next]_<<count, parity>>
====
"""
PACKED = """---- MODULE Out ----
EXTENDS Naturals
VARIABLE st
Init == st = [v |-> 0]
Next == st' = [v |-> (st.v + 1) % 10]
Spec == Init /\\ [][Next]_st
====
"""


def _grade(harness: Harness, files: dict[str, str], engine: str) -> BehaviorResult:
    return grade_behavior(harness, REF, files, "Out" if "Out.tla" in files else "Counter",
                          BehaviorOptions(engine=engine))


@pytest.mark.parametrize("engine", ["graphs", "auto"])
def test_the_reference_against_itself_is_ok_on_the_graphs(harness: Harness,
                                                          engine: str) -> None:
    result = _grade(harness, {"Counter.tla": COUNTER}, engine)
    assert result.verdict == "ok", result.reason
    assert result.engine == "graphs"
    assert result.details["output_states"] == 5  # cut where x < 5 fails, like the reference
    assert result.details["cut_under"] == "identity"


def test_an_output_in_its_own_layout_is_cut_under_a_seed(harness: Harness) -> None:
    result = _grade(harness, {"Out.tla": RENAMED.format(step=1)}, "graphs")
    assert result.verdict == "ok", result.reason
    assert result.details["cut_under"] == "x <- count"
    assert result.details["hidden"] == ["parity"]
    assert result.tlc_runs <= 2


def test_a_failure_under_the_cut_s_mapping_is_the_output_s(harness: Harness) -> None:
    result = _grade(harness, {"Out.tla": RENAMED.format(step=2)}, "graphs")
    # found under the cut's mapping; the output names its counter otherwise than the
    # reference, so the mappings tried are not shown to be all that could work
    assert (result.verdict, result.code) == ("no_mapping", Reason.MAPPING_CLASS_INCOMPLETE), \
        result.reason
    assert result.details["cut_under"] == "x <- count"
    assert result.tlc_runs <= 2  # no confirming run: the graphs decide


@pytest.mark.parametrize("engine", ["graphs", "auto"])
def test_a_graph_no_seed_can_cut_is_cut_again_under_the_mapping_found(harness: Harness,
                                                                     engine: str) -> None:
    # one record for one counter: no variable map carries `x < 5`, so the output's whole graph
    # (10 states) is read first; its states past x = 4 map to nothing the reference's model
    # reached, under `x <- st.v`, which is then the cut: 5 states, and they refine
    result = _grade(harness, {"Out.tla": PACKED}, engine)
    assert result.verdict == "ok", result.reason
    assert result.engine == "graphs"
    assert result.details["cut_under"] == "x <- st.v"
    assert result.details["output_states"] == 5


def _graph(states: list[tuple[int, ...]], edges: list[tuple[int, int]],
           variables: tuple[str, ...]) -> StateGraph:
    return StateGraph(variables, [tuple[Value, ...](s) for s in states], [0], edges)


def test_a_plain_mapping_s_own_failure_on_the_graphs() -> None:
    # (used where TLC cannot run the cut of the mapping a failure was found under: the seed's
    # own failure on its own cut then decides)
    ref = _graph([(0,), (1,), (2,)], [(0, 1), (1, 2)], ("x",))
    same = _graph([(0, 7), (1, 7), (2, 7)], [(0, 1), (1, 2)], ("n", "extra"))
    assert plain_failure(same, ref, {"x": "n"}) is None
    skips = _graph([(0, 7), (2, 7)], [(0, 1)], ("n", "extra"))
    failure = plain_failure(skips, ref, {"x": "n"})
    assert failure is not None and failure.verdict == "forward_fail"
    stops = _graph([(0, 7), (1, 7)], [(0, 1)], ("n", "extra"))
    failure = plain_failure(stops, ref, {"x": "n"})
    assert failure is not None and failure.verdict == "reverse_fail"
    assert failure.variables == {"x": "n"}
    # values that need a translation, or an expression, say nothing
    assert plain_failure(_graph([(5,)], [], ("n",)), ref, {"x": "n"}) is None
    assert plain_failure(same, ref, {"x": "n[1]"}) is None
