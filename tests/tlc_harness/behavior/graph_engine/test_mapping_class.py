"""The named class of mappings (`graph_engine.completeness.named_class`): a failure found
under mappings is a proof only where the class holds every mapping that could work."""

from __future__ import annotations

import itertools
import math
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from tlc_harness.behavior import checks
from tlc_harness.behavior.graph_engine.completeness import named_class
from tlc_harness.behavior.graphs import StateGraph
from tlc_harness.behavior.values import FALSE, TRUE, Fn, Value, parse_value, sort_key


def _cycle(variable: str, values: list[Value]) -> StateGraph:
    """One variable going round its values, from the first."""
    states: list[tuple[Value, ...]] = [(v,) for v in values]
    edges = [(i, (i + 1) % len(values)) for i in range(len(values))]
    return StateGraph((variable,), states, [0], edges)


def test_the_complement_of_a_named_boolean_is_in_the_class() -> None:
    ref = _cycle("locked", [FALSE, TRUE])
    out = _cycle("locked", [TRUE, FALSE])  # the output starts locked: its complement fits
    check = named_class(out, ref)
    assert not check.complete and "holds both ways" in check.why
    # the complement is the only member the graphs cannot refute: TLC decides the class
    assert check.rest_for_tlc and check.holders == ((0, 1),)


def test_every_bijection_failing_is_a_proof() -> None:
    ref = _cycle("mode", ["a", "b", "c"])
    out = StateGraph(("mode",), [("x",), ("y",), ("z",)], [0], [(0, 1), (1, 0), (1, 2)])
    check = named_class(out, ref)
    assert check.complete and check.members == 6


def test_fewer_values_than_the_reference_fail_under_every_mapping() -> None:
    check = named_class(_cycle("x", ["a", "b"]), _cycle("x", ["a", "b", "c"]))
    assert check.complete
    # on part of the output's graph (bounded sets) the count says nothing
    assert not named_class(_cycle("x", ["a", "b"]), _cycle("x", ["a", "b", "c"]),
                           forward_only=True).complete


def test_shapes_the_class_does_not_cover() -> None:
    ref = _cycle("x", ["a", "b"])
    assert "no variable named x" in named_class(_cycle("y", ["a", "b"]), ref).why
    merged = named_class(_cycle("x", ["a", "b", "c"]), ref)  # h may merge two values ...
    assert not merged.complete and "but 3 that hold both ways there" in merged.why
    assert merged.rest_for_tlc and len(merged.holders) == 3  # TLC decides the class
    # other numbers than the reference's: an offset is a bijection, and it holds
    counts = named_class(_cycle("x", [1, 2]), _cycle("x", [0, 1]))
    assert not counts.complete and "holds both ways" in counts.why
    # on part of the output's graph (forward only) the class is still every bijection tried
    # in turn, within its budget
    big: list[Value] = [f"v{i}" for i in range(8)]
    assert not named_class(_cycle("x", big), _cycle("x", [f"w{i}" for i in range(8)]),
                           forward_only=True).complete


def test_a_named_variable_with_more_values_is_read_through_every_onto_function() -> None:
    """A boolean kept as a three-way state (who holds the lock): h merges the holders."""
    ref = StateGraph(("locked",), [(FALSE,), (TRUE,)], [0], [(0, 1)])
    holders = [("open",), ("held_a",), ("held_b",)]
    good = StateGraph(("locked",), holders, [0], [(0, 1), (0, 2)])  # a correct output
    check = named_class(good, ref)
    assert not check.complete and "that hold both ways there" in check.why
    assert check.rest_for_tlc and len(check.holders) == 3  # each holder is one of three
    # the same layout, changed behavior: the lock passes round and opens again; every one
    # of the 6 functions onto {FALSE, TRUE} fails
    changed = named_class(StateGraph(("locked",), holders, [0], [(0, 1), (1, 2), (2, 0)]), ref)
    assert changed.complete and changed.members == 6
    assert changed.facts()["mapping_class"] == "named_functions"
    # forward only (part of the output's graph), h need not be onto: no class
    assert not named_class(good, ref, forward_only=True).complete
    # too many functions to enumerate: no class
    many = StateGraph(("locked",), [(f"h{i}",) for i in range(20)], [0],
                      [(0, i) for i in range(1, 20)])
    over = named_class(many, ref)
    assert not over.complete and "too many" in over.why


def test_counts_stand_for_themselves_and_identities_do_not() -> None:
    # a count in another order: the one member (the identity) fails, a proof
    ref = _cycle("x", [0, 1, 2])
    out = StateGraph(("x",), [(0,), (2,), (1,)], [0], [(0, 1), (1, 2), (2, 0)])
    assert named_class(out, ref).complete
    # numbers for the reference's model values are values like any other
    assert not named_class(_cycle("x", [1, 2]), _cycle("x", ["p", "q"])).complete
    # processes that index a function are identities: the same ring visited in another
    # order is the reference's ring with two processes renumbered, a member that holds (the
    # class used to keep every number fixed, and called the one member's failure a proof)
    def ring(order: list[int]) -> StateGraph:
        states: list[tuple[Value, ...]] = [
            (p, Fn.tuple_of([TRUE if q == p else FALSE for q in (1, 2, 3)])) for p in order]
        return StateGraph(("tok", "has"), states, [0], [(0, 1), (1, 2), (2, 0)])

    check = named_class(ring([1, 3, 2]), ring([1, 2, 3]))
    assert not check.complete and "holds both ways" in check.why
    assert check.holds == (0, 1, 2)  # process 3 renamed 2: each state to its position


def test_a_member_with_the_failing_mappings_image_fails_with_it() -> None:
    ref = _cycle("x", ["a", "b"])
    out = _cycle("x", ["a", "b"])
    assert not named_class(out, ref).complete  # the identity holds on the graphs
    # TLC found a failure under the identity (the reference's fairness, say); the other
    # bijection fails on the graphs: every member fails
    assert named_class(out, ref, found=[0, 1]).complete


def _path(variable: str, values: list[Value]) -> StateGraph:
    """One variable stepping through its values once, from the first (the last is stuck)."""
    states: list[tuple[Value, ...]] = [(v,) for v in values]
    return StateGraph((variable,), states, [0], [(i, i + 1) for i in range(len(values) - 1)])


def test_other_numbers_than_the_references_fail_when_no_bijection_holds() -> None:
    # 1 -> 2 -> 3 -> 1 against 0 -> 1 -> 2 -> 0 holds under an offset (above); against a
    # path every bijection fails, renumbering included
    assert named_class(_cycle("x", [1, 2, 3]), _path("x", [0, 1, 2])).complete
    assert not named_class(_cycle("x", [1, 2, 3]), _cycle("x", [0, 1, 2])).complete


def test_many_values_are_searched_whole() -> None:
    """More than 6 values: the search over bijections keeps only those that match how
    states and steps hold the values (any passing member does), then checks each."""
    ref = _cycle("x", [f"w{i}" for i in range(12)])
    renamed = _cycle("x", [f"v{(5 * i) % 12}" for i in range(12)])  # a correct output
    check = named_class(renamed, ref)
    assert not check.complete and "holds both ways" in check.why
    # the same layout, changed behavior: one step skips a value
    skipping = StateGraph(renamed.variables, renamed.states, [0],
                          [*renamed.edges[:-1], (10, 0), (11, 0)])
    changed = named_class(skipping, ref)
    assert changed.complete and changed.members == math.factorial(12)


def _fn(pairs: dict[int, str]) -> Value:
    return parse_value(" @@ ".join(f'{k} :> "{v}"' for k, v in pairs.items()))


def _round(names: tuple[str, str, str], *, swap: bool = False) -> StateGraph:
    """Three processes, each cycling through three phases one at a time, process 1 first
    (a function over processes: 27 values)."""
    a, b, c = names
    nxt = {a: b, b: c, c: a}
    states: list[tuple[Value, ...]] = []
    index: dict[tuple[str, ...], int] = {}
    edges: list[tuple[int, int]] = []

    def at(s: tuple[str, ...]) -> int:
        if s not in index:
            index[s] = len(states)
            states.append((_fn({1: s[0], 2: s[1], 3: s[2]}),))
        return index[s]
    for s in itertools.product(names, repeat=3):
        for p in range(3):
            if swap and p == 2 and s[p] == b:
                continue  # the changed behavior: process 3 never leaves phase b
            t = list(s)
            t[p] = nxt[s[p]]
            edges.append((at(s), at(tuple(t))))
    return StateGraph(("pc",), states, [at((a, a, a))], sorted(set(edges)))


def test_a_function_over_processes_is_searched() -> None:
    ref = _round(("idle", "wait", "crit"))
    out = _round(("i", "w", "c"))  # phases as other strings: a correct output
    check = named_class(out, ref)
    assert not check.complete and "holds both ways" in check.why
    changed = named_class(_round(("i", "w", "c"), swap=True), ref)
    assert changed.complete


def _onto(g: list[Value], r: list[Value]) -> list[dict[Value, Value]]:
    """Every function from g onto r, by brute force (a bijection where the counts agree)."""
    return [dict(zip(g, images, strict=True)) for images in itertools.product(r, repeat=len(g))
            if set(images) == set(r)]


def _brute(out: StateGraph, ref: StateGraph) -> bool:
    """Every function of each variable's values onto the reference's in turn (the class as
    defined: bijections where the counts agree)."""
    cols = [(out.column(r), sorted(set(out.column(r)), key=sort_key),
             sorted(set(ref.column(r)), key=sort_key)) for r in ref.variables]
    for _, g, r in cols:  # in the reference's order, as named_class reads them
        if len(g) < len(r):
            return True
    index, edges = ref.index(), set(ref.edges)
    for tables in itertools.product(*(_onto(g, r) for _, g, r in cols)):
        keys = zip(*([t[v] for v in c] for (c, _, _), t in zip(cols, tables, strict=True)),
                   strict=True)
        image = [index.get(k, -1) for k in keys]
        if (all(i >= 0 for i in image) and checks.forward(out, ref, image, edges).ok
                and checks.reverse(out, ref, image).ok):
            return False
    return True


@st.composite
def _graphs(draw: st.DrawFn) -> tuple[StateGraph, StateGraph]:
    def one(prefix: str) -> StateGraph:
        n = draw(st.integers(2, 5))
        values = [(f"{prefix}{draw(st.integers(0, 2))}", f"{prefix}{draw(st.integers(0, 2))}")
                  for _ in range(n)]
        states = list(dict.fromkeys(values))
        edges = draw(st.lists(st.tuples(st.integers(0, len(states) - 1),
                                        st.integers(0, len(states) - 1)), max_size=8))
        # every state reachable, as in TLC's dump: a parent for each
        edges += [(draw(st.integers(0, i - 1)), i) for i in range(1, len(states))]
        return StateGraph(("x", "y"), states, [0],  # type: ignore[arg-type]
                          sorted({(a, b) for a, b in edges if a != b}))
    ref = one("r")
    out = draw(st.one_of(st.just(one("g")), st.just(_renamed(ref, draw(st.randoms())))))
    return out, ref


def _renamed(graph: StateGraph, rnd: Any) -> StateGraph:
    names = sorted({v for s in graph.states for v in s}, key=sort_key)
    shuffled = list(names)
    rnd.shuffle(shuffled)
    table = {a: f"g{b}" for a, b in zip(names, shuffled, strict=True)}
    return StateGraph(graph.variables, [tuple(table[v] for v in s) for s in graph.states],
                      graph.initial, graph.edges)


@given(_graphs())
@settings(max_examples=150, deadline=None)
def test_the_search_agrees_with_every_bijection_in_turn(pair: tuple[StateGraph, StateGraph]
                                                        ) -> None:
    out, ref = pair
    assert named_class(out, ref).complete == _brute(out, ref)


def _clock(variables: tuple[str, str], hours: list[Value], flags: list[Value],
           *, stuck_at: int | None = None) -> StateGraph:
    """An hour going round, with a flag that is on exactly at the last hour (the flag is a
    function of the hour); `stuck_at`: the changed behavior, that hour does not advance."""
    states: list[tuple[Value, ...]] = [(h, flags[1] if i == len(hours) - 1 else flags[0])
                                       for i, h in enumerate(hours)]
    edges = [(i, (i + 1) % len(hours)) for i in range(len(hours)) if i != stuck_at]
    return StateGraph(variables, states, [0], edges)


def test_a_variable_without_a_namesake_is_any_function_of_the_state() -> None:
    ref = _clock(("hr", "noon"), [1, 2, 3, 4], [FALSE, TRUE])
    # the output names hr, keeps the flag as `midday` with other values: a correct output
    good = _clock(("hr", "midday"), [1, 2, 3, 4], ["no", "yes"])
    check = named_class(good, ref)
    assert not check.complete and "holds both ways" in check.why
    # the same layout, the flag raised an hour early: under the one member for hr every
    # reading of noon fails (the states noon must map to are fixed by hr)
    early = StateGraph(good.variables, [(1, "no"), (2, "no"), (3, "yes"), (4, "no")], [0],
                       good.edges)
    changed = named_class(early, ref)
    assert not changed.complete  # noon as a function of the state: "yes" -> FALSE fits ...
    # ... but a stuck hour fails whatever noon reads
    stuck = _clock(("hr", "midday"), [1, 2, 3, 4], ["no", "yes"], stuck_at=2)
    assert named_class(stuck, ref).complete
    # no reference variable named at all: no class
    assert not named_class(_clock(("h", "m"), [1, 2, 3, 4], ["no", "yes"]), ref).complete


@st.composite
def _partly_named(draw: st.DrawFn) -> tuple[StateGraph, StateGraph]:
    def one(prefix: str, variables: tuple[str, str]) -> StateGraph:
        n = draw(st.integers(2, 4))
        values = [(f"{prefix}{draw(st.integers(0, 1))}", f"{prefix}{draw(st.integers(0, 1))}")
                  for _ in range(n)]
        states = list(dict.fromkeys(values))
        edges = draw(st.lists(st.tuples(st.integers(0, len(states) - 1),
                                        st.integers(0, len(states) - 1)), max_size=6))
        edges += [(draw(st.integers(0, i - 1)), i) for i in range(1, len(states))]
        return StateGraph(variables, states, [0],  # type: ignore[arg-type]
                          sorted({(a, b) for a, b in edges if a != b}))
    return one("g", ("x", "z")), one("r", ("x", "y"))


@given(_partly_named())
@settings(max_examples=150, deadline=None)
def test_a_failure_with_a_nameless_variable_is_a_proof(pair: tuple[StateGraph, StateGraph]
                                                       ) -> None:
    """Where the class is said to fail, no function of x's values onto the reference's (a
    bijection where the counts agree) with any reading of y passes."""
    out, ref = pair
    if not named_class(out, ref).complete:
        return
    xs_out = sorted({s[0] for s in out.states}, key=sort_key)
    xs_ref = sorted({s[0] for s in ref.states}, key=sort_key)
    edges = set(ref.edges)
    for h in _onto(xs_out, xs_ref):  # none where the output has fewer values: every one fails
        choices = [[i for i, r in enumerate(ref.states) if r[0] == h[s[0]]] for s in out.states]
        for image in itertools.product(*choices):
            assert not (checks.forward(out, ref, list(image), edges).ok
                        and checks.reverse(out, ref, list(image)).ok)
