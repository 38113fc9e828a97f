"""The mapping search's work (`infer(..., work=Work(...))`) bounds all of it, not only the
backtracking over parts: the closest candidates' loose translations once sorted every
permutation of the free atoms (`P(13, 6)` = 1.2 million, six name comparisons each) without
looking at the clock, so a 150 s budget ran for 18 minutes (TLA+-Bench task 1600). A search
stopped part-way is `undecided`, never a failure it did not finish. Its limit counts steps,
so it stops at the same place on a quiet and on a loaded machine; the clock is a guard only,
and a search it stops says so (`time_budget`, not `search_budget`)."""

from __future__ import annotations

import itertools
import time

import pytest

from tlc_harness.behavior import checks
from tlc_harness.behavior.graph_engine.inference import infer
from tlc_harness.behavior.graph_engine.search_state import Work
from tlc_harness.behavior.graphs import StateGraph
from tlc_harness.behavior.translation import _kinds_fit, _pairings, best_pairing
from tlc_harness.behavior.values import ModelValue, Value
from tlc_harness.behavior.verdicts import BehaviorVerdict, Reason


def chain(var: str, values: list[Value]) -> StateGraph:
    """One variable stepping through `values` in turn."""
    return StateGraph((var,), [(v,) for v in values], [0],
                      [(i, i + 1) for i in range(len(values) - 1)])


def few_and_many() -> tuple[StateGraph, StateGraph]:
    """An output whose one variable takes 6 control states where the reference's takes 11,
    no name alike: no exact mapping, and the closest one pairs 6 free atoms with 11."""
    out = chain("mode", [f"phase{c}" for c in "abcdef"])
    ref = chain("state", [f"stage_{i}" for i in range(11)])
    return out, ref


def test_closest_candidates_stay_within_the_search_work() -> None:
    out, ref = few_and_many()
    work = Work(limit=100)  # the whole search takes about twice as many
    found = infer(out, ref, work=work)
    assert work.hit == "steps" and work.steps == work.limit + 1
    assert found.verdict is BehaviorVerdict.UNDECIDED and found.code is Reason.SEARCH_BUDGET


def test_a_search_out_of_work_decides_nothing() -> None:
    out, ref = few_and_many()
    found = infer(out, ref, work=Work(limit=0))
    assert found.verdict is BehaviorVerdict.UNDECIDED
    assert found.counterexample is None and found.code is Reason.SEARCH_BUDGET


def test_where_a_search_stops_does_not_depend_on_the_clock(monkeypatch: pytest.MonkeyPatch
                                                           ) -> None:
    """The same limit on a machine whose clock runs a thousand times faster (a loaded one)
    stops after the same steps with the same verdict."""
    out, ref = few_and_many()
    quiet = Work(limit=300)
    first = infer(out, ref, work=quiet)
    real = time.monotonic
    started = real()
    monkeypatch.setattr(time, "monotonic", lambda: started + 1000 * (real() - started))
    loaded = Work(limit=300)
    again = infer(out, ref, work=loaded)
    assert (again.verdict, again.code, loaded.steps) == (first.verdict, first.code, quiet.steps)


def test_the_guard_stops_a_search_and_says_it_was_the_clock() -> None:
    out, ref = few_and_many()
    found = infer(out, ref, work=Work(guard_seconds=0.0))
    assert found.verdict is BehaviorVerdict.UNDECIDED and found.code is Reason.TIME_BUDGET


def test_the_reverse_check_stops_when_told() -> None:
    n = 2_000
    graph = StateGraph(("x",), [(i,) for i in range(n)], [0], [(i, i + 1) for i in range(n - 1)])
    image = list(range(n))
    assert checks.reverse(graph, graph, image).ok
    cut = checks.reverse(graph, graph, image, stop=lambda: True)
    assert cut.limited and not cut.ok and not cut.ref_path


def sorted_rule(rest_g: list[Value], rest_r: list[Value]) -> dict[Value, Value]:
    """The rule `best_pairing` keeps: the first pairing in `_pairings`' order whose kinds fit."""
    return next((p for p in _pairings(rest_g, rest_r) if _kinds_fit(p)), {})


@pytest.mark.parametrize(("rest_g", "rest_r"), [
    (["idle", "busy"], ["Idle", "Busy", "done"]),
    ([ModelValue("p1"), ModelValue("p2")], [1, 2, 3]),
    ([1, 2, 3], [ModelValue("a"), ModelValue("b")]),
    (["a", "b", "ab"], ["ba", "b", "a", "x"]),
    (["x", "y"], ["y", "x"]),
    ([ModelValue("m"), "s", 4], ["s", ModelValue("n"), ModelValue("m"), "t"]),
    ([f"g{i}" for i in range(4)], [f"r{i}" for i in range(7)]),
])
def test_best_pairing_is_the_sorted_rule(rest_g: list[Value], rest_r: list[Value]) -> None:
    assert best_pairing(rest_g, rest_r) == sorted_rule(rest_g, rest_r)


def test_best_pairing_ties_fall_as_in_permutation_order() -> None:
    atoms: list[Value] = ["aa", "bb", "cc"]
    for perm in itertools.permutations(["aa", "bb", "cc", "dd"], 3):
        assert best_pairing(atoms, list(perm)) == sorted_rule(atoms, list(perm))
