"""Candidates written as tables over the output's states (`graph_engine.table_mapping`): a
candidate reads each named variable through one renaming of the atoms, applied everywhere."""

from __future__ import annotations

from tlc_harness.behavior.graph_engine.table_mapping import (
    TABLE,
    renaming,
    routes_around,
    table_mapping,
)
from tlc_harness.behavior.graphs import StateGraph
from tlc_harness.behavior.values import Fn, Value


def _counts(*pairs: tuple[int, int]) -> Value:
    return Fn(pairs)


def _ring(first: int, order: list[int], count_of: dict[int, int]) -> StateGraph:
    """A token going round processes `order`; the process `count_of[holder]` counts each
    pass (its counter flips between 0 and 1), so a state is (tok, counts)."""
    states: list[tuple[Value, ...]] = []
    counts = {p: 0 for p in order}
    edges = []
    tok = order.index(first)
    for step in range(2 * len(order)):
        states.append((order[tok], _counts(*sorted(counts.items()))))
        counts[count_of[order[tok]]] ^= 1
        tok = (tok + 1) % len(order)
        if step:
            edges.append((step - 1, step))
    edges.append((len(states) - 1, 0))
    return StateGraph(("tok", "counts"), states, [0], edges)


REF = _ring(0, [0, 1, 2], {0: 0, 1: 1, 2: 2})  # each holder counts its own passes
IDENTITY = list(range(len(REF)))


def test_processes_renumbered_everywhere_are_one_renaming() -> None:
    # the output numbers its processes 1..3 in another order, in tok and in counts alike
    out = _ring(3, [3, 1, 2], {3: 3, 1: 1, 2: 2})
    pi = renaming(out, REF, IDENTITY)
    assert pi is not None and {a: b for (_, a), b in pi.items() if a in (1, 2, 3)} == {3: 0, 1: 1, 2: 2}
    assert routes_around(out, REF, IDENTITY) is None


def test_a_neighbours_count_is_not_a_renaming() -> None:
    # each holder counts the next process's passes: each variable alone has a value map that
    # fits, but no one renaming of the processes fits both
    out = _ring(0, [0, 1, 2], {0: 1, 1: 2, 2: 0})
    assert routes_around(out, REF, IDENTITY) is None
    assert renaming(out, REF, IDENTITY) is None
    assert table_mapping(out, REF, IDENTITY) is None


def test_a_table_reads_each_reference_variable_from_the_state() -> None:
    out = _ring(3, [3, 1, 2], {3: 3, 1: 1, 2: 2})
    found = table_mapping(out, REF, IDENTITY)
    assert found is not None
    assert found.variables == {"tok": f"{TABLE}[<<tok, counts>>][1]",
                               "counts": f"{TABLE}[<<tok, counts>>][2]"}
    assert found.definitions[0].startswith(f"{TABLE} == [AliasV \\in {{")


def test_a_mapping_around_a_named_variable_is_no_candidate() -> None:
    # the image sends two states with the same output tok to references with different toks
    out = StateGraph(("tok",), [(0,), (0,)], [0], [(0, 1)])
    ref = StateGraph(("tok",), [(0,), (1,)], [0], [(0, 1)])
    assert routes_around(out, ref, [0, 1]) == "tok"
    assert table_mapping(out, ref, [0, 1]) is None


def test_a_nameless_variable_is_read_from_the_table_only_where_it_holds_no_number() -> None:
    # the reference's `phase` cycles through names; the output keeps it as `step`, 0..2
    phases = StateGraph(("phase",), [("a",), ("b",), ("c",)], [0], [(0, 1), (1, 2), (2, 0)])
    steps = StateGraph(("step",), [(0,), (1,), (2,)], [0], [(0, 1), (1, 2), (2, 0)])
    assert table_mapping(steps, phases, [0, 1, 2]) is not None
    # the other way round the reference's variable is a count: a table could hide one that
    # starts wrong, so none is tried
    assert table_mapping(phases, steps, [0, 1, 2]) is None


def test_a_count_held_as_it_is_in_a_record_field_may_be_read_from_the_table() -> None:
    # the reference counts `n`; the output keeps it as a field of `rec` with a phase beside it
    counts = StateGraph(("n",), [(0,), (1,), (2,)], [0], [(0, 1), (1, 2), (2, 0)])

    def rec(n: int, phase: str) -> Value:
        return Fn((("n", n), ("phase", phase)))

    packed = StateGraph(("rec",), [(rec(0, "a"),), (rec(1, "b"),), (rec(2, "c"),)], [0],
                        [(0, 1), (1, 2), (2, 0)])
    assert table_mapping(packed, counts, [0, 1, 2]) is not None
    # the same count started at 1: not carried as it is, so no table
    shifted = StateGraph(("rec",), [(rec(1, "a"),), (rec(2, "b"),), (rec(3, "c"),)], [0],
                         [(0, 1), (1, 2), (2, 0)])
    assert table_mapping(shifted, counts, [0, 1, 2]) is None


def test_a_number_standing_for_a_reference_identity_is_renamed_like_one() -> None:
    # the output numbers its processes 1..3 in tok but keys its counts by name ("p1"...):
    # in the output tok's numbers index nothing, yet they stand for the reference's
    # processes (numbers that index its `counts`), so a renumbering of them is a renaming
    names = {3: "p3", 1: "p1", 2: "p2"}
    base = _ring(3, [3, 1, 2], {3: 3, 1: 1, 2: 2})
    out = StateGraph(base.variables, [
        (tok, Fn(tuple(sorted((names[k], v) for k, v in counts.items))))
        for tok, counts in base.states], base.initial, base.edges)
    assert renaming(out, REF, IDENTITY) is not None
    # a count is still that count: the reference's tok shifted by one where it indexes
    # nothing (tok alone, no counts) is no renaming
    plain_ref = StateGraph(("tok",), [(v,) for v in (0, 1, 2)], [0], [(0, 1), (1, 2), (2, 0)])
    plain_out = StateGraph(("tok",), [(v,) for v in (1, 2, 3)], [0], [(0, 1), (1, 2), (2, 0)])
    assert renaming(plain_out, plain_ref, [0, 1, 2]) is None
