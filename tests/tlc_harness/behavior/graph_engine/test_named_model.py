"""Tests for graph_engine.named_model: the named class as a CP-SAT model, checked against
every state function between random small graphs."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from tlc_harness.behavior import checks
from tlc_harness.behavior.graph_engine.completeness import MAX_HOLDERS
from tlc_harness.behavior.graph_engine.named_model import named_model
from tlc_harness.behavior.graphs import StateGraph

from .test_any_mapping import depths, works

NAMES = ("a", "b", "c")


@st.composite
def named_graphs(draw: st.DrawFn, most: int, other: str) -> StateGraph:
    """A reachable graph whose states hold a name in `x` and their own number in `other`."""
    n = draw(st.integers(1, most))
    pairs = [(a, b) for a in range(n) for b in range(n) if a != b]
    edges = draw(st.lists(st.sampled_from(pairs), max_size=2 * n)) if pairs else []
    initial = draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=2))
    names = draw(st.lists(st.sampled_from(NAMES), min_size=n, max_size=n))
    full = StateGraph(("x", other), [(names[i], i) for i in range(n)], sorted(set(initial)),
                      sorted(set(edges)))
    keep = [s for s, d in enumerate(depths(full)) if d >= 0]
    new = {s: i for i, s in enumerate(keep)}
    return StateGraph(("x", other), [(names[s], new[s]) for s in keep],
                      sorted(new[s] for s in full.initial),
                      sorted({(new[a], new[b]) for a, b in full.edges if a in new and b in new}))


def members(out: StateGraph, ref: StateGraph) -> set[tuple[int, ...]]:
    """Every state function of the named class (ref's x read through a function of out's x)
    that holds both ways on the graphs, by brute force."""
    found = set()
    for f in itertools.product(range(len(ref)), repeat=len(out)):
        h: dict[object, object] = {}
        if any(h.setdefault(out.states[g][0], ref.states[f[g]][0]) != ref.states[f[g]][0]
               for g in range(len(out))):
            continue
        image = list(f)
        if works(out, ref, f) and checks.forward(out, ref, image).ok and \
                checks.reverse(out, ref, image).ok:
            found.add(f)
    return found


@settings(max_examples=200, deadline=None)
@given(named_graphs(5, "j"), named_graphs(4, "k"))
def test_the_model_decides_the_named_class_as_brute_force_does(out: StateGraph,
                                                               ref: StateGraph) -> None:
    if checks.too_small(out, ref):
        return  # decided before any class is asked
    wanted = members(out, ref)
    decided = named_model(out, ref, found=None, deadlock=False)
    if decided is None:  # only where more members hold than TLC is given
        assert len(wanted) > MAX_HOLDERS
        return
    assert decided.complete == (not wanted)
    assert {tuple(h) for h in decided.holders} == wanted
    assert decided.rest_for_tlc == bool(wanted)


def test_the_failure_s_own_mapping_is_refuted_by_it() -> None:
    # a two-state toggle against itself: identity and swap hold; the identity is `found`'s
    ref = StateGraph(("x",), [("a",), ("b",)], [0, 1], [(0, 1), (1, 0)])
    decided = named_model(ref, ref, found=[0, 1], deadlock=False)
    assert decided is not None and decided.rest_for_tlc
    assert [list(h) for h in decided.holders] == [[1, 0]]


def test_no_named_variable_is_not_this_class() -> None:
    ref = StateGraph(("x",), [("a",), ("b",)], [0], [(0, 1)])
    out = StateGraph(("y",), [("a",), ("b",)], [0], [(0, 1)])
    assert named_model(out, ref, found=None, deadlock=False) is None


def test_a_count_stands_for_itself() -> None:
    # the output counts 0 -> 1 -> 2 where the reference counts 0 -> 2 -> 1: the same
    # numbers, no identity among them, so no bijection of the counts is in the class
    ref = StateGraph(("n",), [(0,), (2,), (1,)], [0], [(0, 1), (1, 2)])
    out = StateGraph(("n",), [(0,), (1,), (2,)], [0], [(0, 1), (1, 2)])
    decided = named_model(out, ref, found=None, deadlock=False)
    assert decided is not None and decided.complete
    # as names, the same graphs are one renaming apart
    named_ref = StateGraph(("n",), [(v,) for v in ("p", "r", "q")], [0], [(0, 1), (1, 2)])
    named_out = StateGraph(("n",), [(v,) for v in ("p", "q", "r")], [0], [(0, 1), (1, 2)])
    renamed = named_model(named_out, named_ref, found=None, deadlock=False)
    assert renamed is not None and renamed.rest_for_tlc

