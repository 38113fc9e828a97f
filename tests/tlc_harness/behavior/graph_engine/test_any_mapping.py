"""Tests for graph_engine.any_mapping: the class of every state mapping, decided by bliss
(isomorphism) and CP-SAT (onto homomorphism), checked against brute force on small graphs."""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterable, Sequence

from hypothesis import given, settings
from hypothesis import strategies as st

from tlc_harness.behavior import checks
from tlc_harness.behavior.graph_engine.any_mapping import (
    MAX_ISOMORPHISMS,
    Outcome,
    decide,
    depths,
    solve,
)
from tlc_harness.behavior.graphs import StateGraph


def graph(n: int, initial: Iterable[int], edges: Iterable[tuple[int, int]]) -> StateGraph:
    return StateGraph(("x",), [(i,) for i in range(n)], sorted(set(initial)),
                      sorted({(a, b) for a, b in edges if a != b}))


def reachable(g: StateGraph) -> StateGraph:
    """`g` cut to the states its initial ones reach, renumbered (graphs are reachable ones)."""
    keep = [s for s, d in enumerate(depths(g)) if d >= 0]
    new = {s: i for i, s in enumerate(keep)}
    return graph(len(keep), [new[s] for s in g.initial],
                 [(new[a], new[b]) for a, b in g.edges if a in new and b in new])


def works(out: StateGraph, ref: StateGraph, f: Sequence[int], *, cover: bool = True) -> bool:
    """The conditions every working state mapping meets, from their definitions."""
    if any(f[g] not in ref.initial for g in out.initial):
        return False
    ref_edges = set(ref.edges)
    if any(f[a] != f[b] and (f[a], f[b]) not in ref_edges for a, b in out.edges):
        return False
    if not cover:
        return True
    return (set(f) == set(range(len(ref)))
            and {f[g] for g in out.initial} >= set(ref.initial)
            and {(f[a], f[b]) for a, b in out.edges} >= ref_edges)


def brute(out: StateGraph, ref: StateGraph, *, cover: bool = True) -> bool:
    return any(works(out, ref, f, cover=cover)
               for f in itertools.product(range(len(ref)), repeat=len(out)))


@st.composite
def graphs(draw: st.DrawFn, most: int) -> StateGraph:
    n = draw(st.integers(1, most))
    pairs = [(a, b) for a in range(n) for b in range(n) if a != b]
    edges = draw(st.lists(st.sampled_from(pairs), max_size=2 * n)) if pairs else []
    initial = draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=2))
    return reachable(graph(n, initial, edges))


@settings(max_examples=300, deadline=None)
@given(graphs(5), graphs(4))
def test_decide_fails_exactly_when_no_mapping_works(out: StateGraph, ref: StateGraph) -> None:
    decided = decide(out, ref)
    assert decided.outcome is not Outcome.OPEN  # small graphs: always decided
    assert (decided.outcome is Outcome.FAILS) == (not brute(out, ref))
    if decided.outcome is Outcome.CANDIDATE:
        assert works(out, ref, decided.image)
    # forward alone never fails: every state to one initial reference state is a stutter
    assert brute(out, ref, cover=False)


def renumbered(ref: StateGraph, rnd: random.Random) -> StateGraph:
    """`ref` with its states numbered otherwise: isomorphic to it."""
    perm = list(range(len(ref)))
    rnd.shuffle(perm)
    return graph(len(ref), [perm[s] for s in ref.initial],
                 [(perm[a], perm[b]) for a, b in ref.edges])


@settings(max_examples=100, deadline=None)
@given(graphs(6), st.randoms(use_true_random=False))
def test_a_renumbered_graph_is_isomorphic(ref: StateGraph, rnd: random.Random) -> None:
    out = renumbered(ref, rnd)
    decided = decide(out, ref)
    assert decided.outcome is Outcome.CANDIDATE
    assert decided.kind == "isomorphism"
    assert works(out, ref, decided.image)
    assert checks.forward(out, ref, list(decided.image)).ok
    assert checks.reverse(out, ref, list(decided.image)).ok


def isomorphisms(out: StateGraph, ref: StateGraph) -> set[tuple[int, ...]]:
    """Every bijection that keeps initial states and steps, by brute force."""
    ref_edges, ref_initial = set(ref.edges), set(ref.initial)
    return {f for f in itertools.permutations(range(len(ref)))
            if {f[g] for g in out.initial} == ref_initial
            and {(f[a], f[b]) for a, b in out.edges} == ref_edges}


@settings(max_examples=150, deadline=None)
@given(graphs(6), st.randoms(use_true_random=False))
def test_every_isomorphism_is_listed_exactly_once(ref: StateGraph, rnd: random.Random) -> None:
    out = renumbered(ref, rnd)
    decided = decide(out, ref)
    wanted = isomorphisms(out, ref)
    assert decided.isomorphisms == len(wanted)
    if len(wanted) <= MAX_ISOMORPHISMS:
        assert decided.every_image[0] == decided.image
        assert len(set(decided.every_image)) == len(decided.every_image)
        assert set(decided.every_image) == wanted
    else:
        assert decided.every_image == ()


def test_the_isomorphisms_of_a_symmetric_graph_are_counted_not_listed() -> None:
    # a start state with five interchangeable branches: 5! automorphisms, over the limit
    ref = graph(6, [0], [(0, k) for k in range(1, 6)])
    decided = decide(ref, ref)
    assert decided.isomorphisms == 120
    assert decided.every_image == ()


def test_a_history_variable_is_a_candidate() -> None:
    # the reference counts 0 -> 1 -> 2 -> 0; the output also remembers whether it wrapped
    ref = graph(3, [0], [(0, 1), (1, 2), (2, 0)])
    out = graph(6, [0], [(0, 1), (1, 2), (2, 3), (3, 4), (4, 5), (5, 3)])
    decided = decide(out, ref)
    assert decided.outcome is Outcome.CANDIDATE
    assert decided.kind == "homomorphism"
    assert works(out, ref, decided.image)


def test_an_extra_loop_fails_for_every_mapping() -> None:
    # the reference moves 0 -> 1 -> 2 and stops; the output goes on forever: covering the
    # reference's two steps leaves no image for the output's loop back
    ref = graph(3, [0], [(0, 1), (1, 2)])
    out = graph(4, [0], [(0, 1), (1, 2), (2, 3), (3, 0)])
    decided = decide(out, ref)
    assert decided.outcome is Outcome.FAILS
    assert decided.kind == "homomorphism"


def test_the_same_counts_but_another_shape_fails_by_isomorphism() -> None:
    ref = graph(4, [0], [(0, 1), (1, 2), (1, 3)])
    out = graph(4, [0], [(0, 1), (1, 2), (2, 3)])
    decided = decide(out, ref)
    assert decided.outcome is Outcome.FAILS
    assert decided.kind == "isomorphism"
    assert "isomorphism" in decided.why


def test_large_isomorphic_rings_decide_at_once() -> None:
    # a ring of 20,000 states against itself renumbered: bliss, not enumeration
    n = 20_000
    ref = graph(n, [0], [(i, (i + 1) % n) for i in range(n)])
    perm = list(range(n))
    random.Random(7).shuffle(perm)
    out = graph(n, [perm[0]], [(perm[i], perm[(i + 1) % n]) for i in range(n)])
    decided = decide(out, ref)
    assert decided.outcome is Outcome.CANDIDATE
    assert [decided.image[perm[i]] for i in range(5)] == [0, 1, 2, 3, 4]


def test_the_solver_is_deterministic_and_says_its_work() -> None:
    ref = graph(3, [0], [(0, 1), (1, 2), (2, 0)])
    out = graph(6, [0], [(0, 1), (1, 2), (2, 3), (3, 4), (4, 5), (5, 3)])
    first, second = solve(out, ref, cover=True), solve(out, ref, cover=True)
    assert first.image == second.image
    assert {k: v for k, v in first.stats.items() if k != "seconds"} == \
        {k: v for k, v in second.stats.items() if k != "seconds"}
    assert {"conflicts", "branches", "deterministic_time"} <= set(first.stats)


def test_graphs_too_large_for_the_model_stay_open() -> None:
    n = 2_100
    ref = graph(n, [0], [(i, i + 1) for i in range(n - 1)])
    out = graph(n + 1, [0], [(i, i + 1) for i in range(n)])
    decided = decide(out, ref)
    assert decided.outcome is Outcome.OPEN
    assert "too large" in decided.why
