"""The mapping search's inner check, on arrays, against its definition on sets: a partial
mapping (R's and G's states told apart by the same parts) can only grow into one under which
G refines R both ways when both graphs have the same classes and the same initial classes,
and every step of G between two classes is a step of R between them."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from tlc_harness.behavior.graph_engine.layers import Arrays, consistent, layer_of
from tlc_harness.behavior.graphs import StateGraph


@st.composite
def graphs(draw: st.DrawFn) -> tuple[StateGraph, list[int], list[int]]:
    """A graph with each state's class so far and its value under the next part."""
    n = draw(st.integers(1, 7))
    edges = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=12))
    initial = draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=3))
    keys = draw(st.lists(st.integers(0, 2), min_size=n, max_size=n))
    values = draw(st.lists(st.integers(0, 2), min_size=n, max_size=n))
    graph = StateGraph(("x",), [(i,) for i in range(n)], initial, edges)
    return graph, keys, values


def by_sets(ref: tuple[StateGraph, list[int], list[int]],
            out: tuple[StateGraph, list[int], list[int]]) -> bool:
    (rg, rk, rv), (og, ok, ov) = ref, out
    r = list(zip(rk, rv, strict=True))
    g = list(zip(ok, ov, strict=True))
    if set(r) != set(g) or {r[i] for i in rg.initial} != {g[i] for i in og.initial}:
        return False
    steps = {(r[a], r[b]) for a, b in rg.edges}
    return all(g[a] == g[b] or (g[a], g[b]) in steps for a, b in og.edges)


@settings(max_examples=400, deadline=None)
@given(graphs(), graphs())
def test_the_array_check_is_the_check_on_sets(ref: tuple[StateGraph, list[int], list[int]],
                                              out: tuple[StateGraph, list[int], list[int]]
                                              ) -> None:
    (rg, rk, rv), (og, ok, ov) = ref, out
    layer = layer_of(Arrays.of(rg), np.array(rk, dtype=np.int64), np.array(rv, dtype=np.int64))
    found = consistent(Arrays.of(og), np.array(ok, dtype=np.int64),
                        np.array(ov, dtype=np.int64), layer)
    assert (found is not None) == by_sets(ref, out)
    if found is not None:  # a state of G is in the class of the states of R with its pair
        r_pairs = list(zip(rk, rv, strict=True))
        for i, pair in enumerate(zip(ok, ov, strict=True)):
            assert {int(layer.keys[j]) for j, p in enumerate(r_pairs) if p == pair} == {int(found[i])}


def test_a_graph_without_edges() -> None:
    ref = StateGraph(("x",), [(0,), (1,)], [0, 1], [])
    layer = layer_of(Arrays.of(ref), np.zeros(2, dtype=np.int64), np.array([0, 1], dtype=np.int64))
    out = Arrays.of(StateGraph(("x",), [(0,), (1,)], [0, 1], [(0, 1)]))
    assert consistent(out, np.zeros(2, dtype=np.int64), np.array([0, 1], dtype=np.int64),
                       layer) is None  # G steps from one class to another; R never does
    still = Arrays.of(StateGraph(("x",), [(0,), (1,)], [0, 1], [(0, 0)]))
    assert consistent(still, np.zeros(2, dtype=np.int64), np.array([1, 0], dtype=np.int64),
                       layer) is not None
