"""Tests for tlc_harness.behavior.graphs and .checks: TLC's state dumps read into graphs,
explored (budget, verdicts, cache), and the forward/reverse refinement checks on graphs.

The checks run on small hand-built graphs, and by Hypothesis against brute-force versions of
their definitions; `read_dot` on dot text in TLC's exact format and on TLC's own dumps.
"""

from __future__ import annotations

import itertools
import json
import os
import pickle
import subprocess
import sys
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import ROOT
from tlc_harness.behavior.checks import GraphVerdict, forward, reverse
from tlc_harness.behavior.graphs import Exploration, GraphError, StateGraph, explore, read_dot
from tlc_harness.behavior.values import Fn, ModelValue, Value, parse_value
from tlc_harness.source.cfg import ModelConfig, parse_cfg
from tlc_harness.tools.runner import Harness
from tlc_harness.tools.spec import SpecSource

BANK = ROOT / "alias_fixtures" / "builtin_tasks" / "bank_transfer"


def graph(states: Sequence[Any], initial: Iterable[int], edges: Iterable[tuple[int, int]],
          variables: Sequence[str] = ("x",)) -> StateGraph:
    """A StateGraph; a state given as a bare value is the 1-tuple of it."""
    return StateGraph(tuple(variables), [s if isinstance(s, tuple) else (s,) for s in states],
                      list(initial), list(edges))


def is_path(g: StateGraph, path: Sequence[int]) -> bool:
    return bool(path) and path[0] in g.initial and all(
        b in g.successors()[a] for a, b in itertools.pairwise(path))


# =========================================================================== forward / reverse

#: x: 0 -> 1 -> 2, and 1 -> 3
REF = graph([0, 1, 2, 3], [0], [(0, 1), (1, 2), (1, 3)])
IDENTITY = [0, 1, 2, 3]


def test_identity_passes_both() -> None:
    assert forward(REF, REF, IDENTITY) == GraphVerdict(True)
    assert reverse(REF, REF, IDENTITY) == GraphVerdict(True)


def test_identity_passes_both_with_cycles_and_several_initial_states() -> None:
    ref = graph(["a", "b", "c", "d"], [0, 3], [(0, 1), (1, 2), (2, 0), (3, 2), (2, 3)])
    image = [0, 1, 2, 3]
    assert forward(ref, ref, image).ok
    assert reverse(ref, ref, image).ok


def test_renumbered_states_pass_both() -> None:
    """The same graph with its states in another order: the image is the permutation."""
    out = graph([3, 2, 1, 0], [3], [(3, 2), (2, 1), (2, 0)])
    image = [3, 2, 1, 0]
    assert forward(out, REF, image).ok
    assert reverse(out, REF, image).ok


def test_extra_output_step_fails_forward() -> None:
    out = graph([0, 1, 2, 3], [0], [(0, 1), (1, 2), (1, 3), (2, 0)])  # 2 -> 0 is new
    verdict = forward(out, REF, IDENTITY)
    assert not verdict.ok
    assert not verdict.limited
    assert "step" in verdict.why
    assert verdict.out_path == (0, 1, 2, 0)  # a shortest path to the step, then the step
    assert verdict.ref_path == ()
    assert reverse(out, REF, IDENTITY).ok  # more behaviors: reverse still holds


def test_forward_reports_a_step_back_as_a_missing_step() -> None:
    ref = graph([0, 1, 2], [0], [(0, 1), (1, 2)])
    out = graph([0, 1, 2, 2, 2], [0], [(0, 1), (1, 2), (2, 3), (3, 4), (4, 1)])
    image = [0, 1, 2, 2, 2]
    verdict = forward(out, ref, image)
    assert not verdict.ok
    assert verdict.out_path[-2:] == (4, 1)
    assert verdict.out_path == (0, 1, 2, 3, 4, 1)
    assert is_path(out, verdict.out_path)


def test_wrong_initial_state_fails_forward() -> None:
    out = graph([0, 1, 2, 3], [1], [(1, 2), (1, 3)])  # starts at x = 1
    verdict = forward(out, REF, IDENTITY)
    assert not verdict.ok
    assert "initial" in verdict.why
    assert verdict.out_path == (1,)


def test_one_wrong_initial_state_among_good_ones_fails_forward() -> None:
    out = graph([0, 1, 2, 3], [0, 2], [(0, 1), (1, 2), (1, 3)])
    verdict = forward(out, REF, IDENTITY)
    assert not verdict.ok
    assert verdict.out_path == (2,)


def test_unmapped_reachable_state_fails_forward() -> None:
    out = graph([0, 1, 9], [0], [(0, 1), (1, 2)])
    verdict = forward(out, REF, [0, 1, -1])
    assert not verdict.ok
    assert verdict.out_path == (0, 1, 2)


def test_unmapped_unreachable_state_is_ignored() -> None:
    out = graph([0, 1, 9], [0], [(0, 1), (2, 1)])  # state 2 is not reachable
    assert forward(out, REF, [0, 1, -1]).ok


def test_forward_uses_the_given_reference_edges() -> None:
    assert not forward(REF, REF, IDENTITY, ref_edges={(0, 1), (1, 2)}).ok
    assert forward(REF, REF, IDENTITY, ref_edges={(0, 1), (1, 2), (1, 3)}).ok


def test_fewer_output_behaviors_fail_reverse() -> None:
    out = graph([0, 1, 2], [0], [(0, 1), (1, 2)])  # never 1 -> 3
    image = [0, 1, 2]
    assert forward(out, REF, image).ok
    verdict = reverse(out, REF, image)
    assert not verdict.ok
    assert not verdict.limited
    assert verdict.ref_path == (0, 1, 3)
    assert verdict.out_path == ()
    assert is_path(REF, verdict.ref_path)


def test_missing_initial_reference_state_fails_reverse() -> None:
    ref = graph([0, 1], [0, 1], [(0, 1)])
    out = graph([0, 1], [0], [(0, 1)])
    verdict = reverse(out, ref, [0, 1])
    assert not verdict.ok
    assert verdict.ref_path == (1,)
    assert "initial" in verdict.why


def test_reverse_needs_whole_behaviors_not_single_steps() -> None:
    """Every reference step is the image of some output step, but 0 -> 1 -> 2 is no output
    behavior's image: the output reaching 1 from 0 cannot go on to 2."""
    ref = graph(["r0", "r1", "r2", "r3"], [0, 3], [(0, 1), (1, 2), (3, 1)])
    out = graph(["r0", "r1", "r3", "r1'", "r2"], [0, 2], [(0, 1), (2, 3), (3, 4)])
    image = [0, 1, 3, 1, 2]
    assert forward(out, ref, image).ok
    verdict = reverse(out, ref, image)
    assert not verdict.ok
    assert verdict.ref_path == (0, 1, 2)


def test_stuttering_steps_pass_both() -> None:
    """The output keeps a hidden bookkeeping variable t that changes on its own steps."""
    ref = graph([0, 1, 2], [0], [(0, 1), (1, 2)])
    # (x, t): t counts to 2 before x moves on, and is reset when it does
    states = [(x, t) for x in range(3) for t in range(3)]
    edges = [(states.index((x, t)), states.index((x, t + 1))) for x in range(3) for t in range(2)]
    edges += [(states.index((x, 2)), states.index((x + 1, 0))) for x in range(2)]
    out = graph(states, [0], edges, ("x", "t"))
    image = [x for x, _ in states]
    assert forward(out, ref, image).ok
    assert reverse(out, ref, image).ok


def test_stuttering_without_a_way_on_fails_reverse() -> None:
    """After its bookkeeping step the output cannot follow the reference any more."""
    ref = graph([0, 1], [0], [(0, 1)])
    out = graph([(0, "a"), (0, "b"), (1, "b")], [0], [(0, 1)], ("x", "t"))
    image = [0, 0, 1]
    assert forward(out, ref, image).ok
    verdict = reverse(out, ref, image)
    assert not verdict.ok
    assert verdict.ref_path == (0, 1)


def test_stutter_then_step_passes_reverse() -> None:
    """Only the state after the bookkeeping step can move: reverse must look past stutters."""
    ref = graph([0, 1], [0], [(0, 1)])
    out = graph([(0, "a"), (0, "b"), (1, "b")], [0], [(0, 1), (1, 2)], ("x", "t"))
    assert reverse(out, ref, [0, 0, 1]).ok


def _simulates(out: StateGraph, ref: StateGraph, image: list[int]) -> bool:
    """Is there a simulation of `ref` by `out` (each reference step matched stepwise by one
    output step or stutters from the matched state)? The greatest fixpoint, by brute force."""
    rel = {(r, g) for r in range(len(ref)) for g in range(len(out)) if image[g] == r}
    succ_out, succ_ref = out.successors(), ref.successors()

    def stutter_closure(g: int) -> set[int]:
        seen, todo = {g}, [g]
        while todo:
            a = todo.pop()
            for b in succ_out[a]:
                if image[b] == image[g] and b not in seen:
                    seen.add(b)
                    todo.append(b)
        return seen

    changed = True
    while changed:
        changed = False
        for r, g in list(rel):
            for r2 in succ_ref[r]:
                if not any((r2, h) in rel for a in stutter_closure(g) for h in succ_out[a]):
                    rel.discard((r, g))
                    changed = True
                    break
    return all(any((r, g) in rel for g in out.initial) for r in ref.initial)


def test_hidden_choice_made_early_passes_reverse() -> None:
    """The reference chooses x = 2 or 3 only after x = 1; the output chooses it at the start
    in a hidden variable c. Every reference behavior is an output behavior's image (trace
    inclusion), although no simulation matches the reference's late choice."""
    ref = graph([0, 1, 2, 3], [0], [(0, 1), (1, 2), (1, 3)])
    states = [(x, c) for c in (2, 3) for x in (0, 1, c)]
    edges = [(states.index((0, c)), states.index((1, c))) for c in (2, 3)]
    edges += [(states.index((1, c)), states.index((c, c))) for c in (2, 3)]
    out = graph(states, [states.index((0, 2)), states.index((0, 3))], edges, ("x", "c"))
    image = [x for x, _ in states]
    assert forward(out, ref, image).ok
    assert reverse(out, ref, image).ok
    assert not _simulates(out, ref, image)  # the case is one where simulation would not do
    assert _simulates(ref, ref, IDENTITY)


def test_hidden_choice_missing_a_branch_fails_reverse() -> None:
    ref = graph([0, 1, 2, 3], [0], [(0, 1), (1, 2), (1, 3)])
    out = graph([(0, 2), (1, 2), (2, 2)], [0], [(0, 1), (1, 2)], ("x", "c"))
    verdict = reverse(out, ref, [0, 1, 2])
    assert verdict.ref_path == (0, 1, 3)


def _ladder(n: int) -> tuple[StateGraph, StateGraph, list[int]]:
    """A reference cycle 0 -> 1 -> ... -> n-1 -> 0 and an output that runs it in n copies,
    so that the reverse check meets many (state, subset) pairs."""
    ref = graph(list(range(n)), [0], [(i, (i + 1) % n) for i in range(n)])
    states = [(x, k) for k in range(n) for x in range(n)]
    edges = [(states.index((x, k)), states.index(((x + 1) % n, k if x + 1 < n else (k + 1) % n)))
             for k in range(n) for x in range(n)]
    out = graph(states, [states.index((0, 0))], edges, ("x", "k"))
    return out, ref, [x for x, _ in states]


def test_reverse_budget_gives_limited() -> None:
    out, ref, image = _ladder(6)
    assert reverse(out, ref, image).ok
    verdict = reverse(out, ref, image, budget=3)
    assert verdict.limited
    assert not verdict.ok
    assert verdict.ref_path == ()
    assert "3" in verdict.why


def test_reverse_budget_of_zero_is_limited_at_once() -> None:
    verdict = reverse(REF, REF, IDENTITY, budget=0)
    assert verdict.limited and not verdict.ok


def test_counterexample_within_budget_is_not_limited() -> None:
    out = graph([0, 1, 2], [0], [(0, 1), (1, 2)])
    verdict = reverse(out, REF, [0, 1, 2], budget=100)
    assert not verdict.ok and not verdict.limited


def test_empty_reference_edges_and_single_states() -> None:
    ref = graph([5], [0], [])
    out = graph([(5, 0), (5, 1)], [0], [(0, 1)], ("x", "t"))
    assert forward(out, ref, [0, 0]).ok
    assert reverse(out, ref, [0, 0]).ok


# --------------------------------------------------------------------------- by brute force


def brute_forward(out: StateGraph, ref: StateGraph, image: list[int]) -> bool:
    reach = set(out.initial)
    todo = list(out.initial)
    while todo:
        a = todo.pop()
        for b in out.successors()[a]:
            if b not in reach:
                reach.add(b)
                todo.append(b)
    return (all(image[g] >= 0 for g in reach)
            and all(image[g] in ref.initial for g in out.initial)
            and all(image[a] == image[b] or (image[a], image[b]) in set(ref.edges)
                    for a, b in out.edges if a in reach))


def matched(out: StateGraph, image: list[int], path: Sequence[int]) -> bool:
    """Is the reference behavior `path` the image, up to stuttering, of an output behavior?
    A search over (position in path, output state), independent of the subset construction."""
    start = {(0, g) for g in out.initial if image[g] == path[0]}
    seen, todo = set(start), list(start)
    while todo:
        i, g = todo.pop()
        if i == len(path) - 1:
            return True
        for h in out.successors()[g]:
            for j in (i, i + 1):
                if image[h] == path[j] and (j, h) not in seen:
                    seen.add((j, h))
                    todo.append((j, h))
    return False


def ref_paths(ref: StateGraph, length: int) -> Iterable[tuple[int, ...]]:
    """Every reference behavior of at most `length` states, shortest first."""
    layer: list[tuple[int, ...]] = [(r,) for r in ref.initial]
    for _ in range(length):
        yield from layer
        layer = [(*p, r) for p in layer for r in ref.successors()[p[-1]]]


@st.composite
def graph_pairs(draw: st.DrawFn) -> tuple[StateGraph, StateGraph, list[int]]:
    n_ref = draw(st.integers(1, 3))
    n_out = draw(st.integers(1, 5))

    def one(n: int) -> StateGraph:
        pairs = [(a, b) for a in range(n) for b in range(n) if a != b]
        edges = draw(st.lists(st.sampled_from(pairs), unique=True) if pairs else st.just([]))
        initial = draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=n, unique=True))
        return graph(list(range(n)), initial, edges)

    ref, out = one(n_ref), one(n_out)
    image = draw(st.lists(st.integers(-1, n_ref - 1) | st.integers(0, n_ref - 1),
                          min_size=n_out, max_size=n_out))
    return out, ref, image


@settings(max_examples=400, deadline=None)
@given(graph_pairs())
def test_forward_agrees_with_its_definition(case: tuple[StateGraph, StateGraph, list[int]]) -> None:
    out, ref, image = case
    verdict = forward(out, ref, image)
    assert verdict.ok == brute_forward(out, ref, image)
    if not verdict.ok:
        path = verdict.out_path
        assert is_path(out, path)
        last = path[-1]
        assert (image[last] < 0 or (len(path) == 1 and image[last] not in ref.initial)
                or (len(path) >= 2 and image[path[-2]] != image[last]
                    and (image[path[-2]], image[last]) not in set(ref.edges)))


@settings(max_examples=400, deadline=None)
@given(graph_pairs())
def test_reverse_agrees_with_trace_inclusion(case: tuple[StateGraph, StateGraph, list[int]]) -> None:
    out, ref, image = case
    verdict = reverse(out, ref, image)
    depth = 7
    shortest = next((p for p in ref_paths(ref, depth) if not matched(out, image, p)), None)
    if verdict.ok:
        assert shortest is None, f"reverse passed, but {shortest} is no output behavior's image"
    else:
        assert not verdict.limited
        path = verdict.ref_path
        assert is_path(ref, path)
        assert not matched(out, image, path)
        # the search is breadth-first: its counterexample is a shortest one
        if shortest is not None:
            assert len(path) == len(shortest)


# =========================================================================== read_dot

DOT_EXAMPLE = r"""strict digraph DiskGraph {
nodesep=0.35;
subgraph cluster_graph {
color="white";
7204293113898069414 [label="/\\ x = 1\n/\\ y = \"a\"",style = filled]
7204293113898069414 -> -123 [label="Next",color="black",fontcolor="black"];
-123 [label="/\\ x = 2\n/\\ y = \"b\""];
{rank = same; 7204293113898069414;}
}
}
"""


def dot_label(state_text: str) -> str:
    """TLC's state text as a dot label: backslashes and quotes escaped, lines joined by \\n."""
    return state_text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def dot_file(path: Path, nodes: Sequence[tuple[int, str, bool]],
             edges: Sequence[tuple[int, int, str]]) -> Path:
    """A dump in TLC's format: nodes (id, state text, initial), edges (from, to, action);
    each edge written before its target node, as TLC does."""
    lines = ["strict digraph DiskGraph {", "nodesep=0.35;", "subgraph cluster_graph {",
             'color="white";']
    written: set[int] = set()

    def node(ident: int) -> None:
        if ident not in written:
            _, text, init = next(n for n in nodes if n[0] == ident)
            lines.append(f'{ident} [label="{dot_label(text)}"' + (",style = filled]" if init else "]"))
            written.add(ident)

    for ident, _, init in nodes:
        if init:
            node(ident)
    for a, b, action in edges:
        node(a)
        lines.append(f'{a} -> {b} [label="{action}",color="black",fontcolor="black"];')
        node(b)
    for ident, _, _ in nodes:
        node(ident)
    inits = " ".join(f"{i};" for i, _, init in nodes if init)
    lines += [f"{{rank = same; {inits}}}", "}", "}", ""]
    path.write_text("\n".join(lines), encoding="utf-8")
    return path


def test_read_dot_example(tmp_path: Path) -> None:
    path = tmp_path / "g.dot"
    path.write_text(DOT_EXAMPLE, encoding="utf-8")
    g = read_dot(path)
    assert g.variables == ("x", "y")
    assert g.states == [(1, "a"), (2, "b")]
    assert g.initial == [0]
    assert g.edges == [(0, 1)]
    assert g.actions == {(0, 1): "Next"}
    assert len(g) == 2
    assert read_dot(str(path)).states == g.states  # a str path does as well


def test_read_dot_in_the_given_variable_order(tmp_path: Path) -> None:
    path = tmp_path / "g.dot"
    path.write_text(DOT_EXAMPLE, encoding="utf-8")
    g = read_dot(path, ["y", "x"])
    assert g.variables == ("y", "x")
    assert g.states == [("a", 1), ("b", 2)]
    with pytest.raises(GraphError):
        read_dot(path, ["x", "z"])


def test_read_dot_single_variable(tmp_path: Path) -> None:
    path = dot_file(tmp_path / "g.dot", [(-5, "x = 1", True), (6, "x = 2", False)],
                    [(-5, 6, "Inc"), (6, -5, "Dec")])
    g = read_dot(path)
    assert g.variables == ("x",)
    assert sorted(g.states) == [(1,), (2,)]
    assert g.states[g.initial[0]] == (1,)
    assert len(g.edges) == 2
    one, two = g.index()[(1,)], g.index()[(2,)]
    assert g.actions == {(one, two): "Inc", (two, one): "Dec"}


def test_read_dot_escapes(tmp_path: Path) -> None:
    """Quotes, backslashes and newlines in strings, through TLC's and dot's escaping."""
    text = '/\\ s = "say \\"hi\\" \\\\ back\\nslash"\n/\\ t = <<"\\\\n", "/\\\\ u = 1">>'
    path = dot_file(tmp_path / "g.dot", [(1, text, True)], [])
    assert '\\"say \\\\\\"hi' in path.read_text(encoding="utf-8")  # as TLC writes it
    g = read_dot(path)
    assert g.variables == ("s", "t")
    assert g.states == [('say "hi" \\ back\nslash', Fn.tuple_of(["\\n", "/\\ u = 1"]))]


def test_read_dot_all_value_shapes(tmp_path: Path) -> None:
    values = ['[from |-> bob, to |-> alice, amt |-> 1]', "(alice :> 1 @@ bob :> 0)", "<< >>",
              "{}", "1..3", "{a, b}", '<<1, "x", TRUE>>', "-4", "FALSE", "m"]
    text = "\n".join(f"/\\ v{i} = {v}" for i, v in enumerate(values))
    g = read_dot(dot_file(tmp_path / "g.dot", [(1, text, True)], []))
    assert g.variables == tuple(f"v{i}" for i in range(len(values)))
    assert g.states == [tuple(parse_value(v) for v in values)]


def test_read_dot_multi_line_values(tmp_path: Path) -> None:
    """TLC breaks a long value over indented lines."""
    text = ('/\\ x = << "abcdefgh",\n   "abcdefgh",\n   "abcdefgh" >>\n'
            '/\\ y = ( "a" :>\n      << 0,\n         1 >> @@\n  "b c" :> {} )')
    g = read_dot(dot_file(tmp_path / "g.dot", [(1, text, True)], []))
    assert g.states == [(Fn.tuple_of(["abcdefgh"] * 3),
                         Fn([("a", Fn.tuple_of([0, 1])), ("b c", frozenset())]))]


def test_read_dot_multi_line_value_of_the_only_variable(tmp_path: Path) -> None:
    text = 'x = << "abcdefgh",\n   "abcdefgh",\n   "abcdefgh" >>'
    g = read_dot(dot_file(tmp_path / "g.dot", [(1, text, True)], []))
    assert g.states == [(Fn.tuple_of(["abcdefgh"] * 3),)]


def test_read_dot_edges(tmp_path: Path) -> None:
    """Self-loops are stutters (dropped); a repeated edge is kept once, with its first action;
    edges may come before their target node, ids may be negative."""
    nodes = [(-1, "x = 0", True), (2, "x = 1", False), (-3, "x = 2", False), (4, "x = 3", True)]
    edges = [(-1, -1, "Stay"), (-1, 2, "A"), (-1, 2, "B"), (2, -3, "C"), (-3, -1, "D"),
             (4, 4, "Stay"), (4, -3, "E")]
    g = read_dot(dot_file(tmp_path / "g.dot", nodes, edges))
    ix = {s[0]: i for i, s in enumerate(g.states)}
    assert {g.states[i][0] for i in g.initial} == {0, 3}
    assert sorted(g.edges) == sorted([(ix[0], ix[1]), (ix[1], ix[2]), (ix[2], ix[0]), (ix[3], ix[2])])
    assert all(a != b for a, b in g.edges)
    assert g.actions[(ix[0], ix[1])] == "A"
    assert g.actions[(ix[3], ix[2])] == "E"
    assert set(g.actions) == set(g.edges)


def test_read_dot_node_written_twice_is_one_state(tmp_path: Path) -> None:
    path = tmp_path / "g.dot"
    path.write_text('strict digraph DiskGraph {\n1 [label="x = 1",style = filled]\n'
                    '1 -> 2 [label="N",color="black",fontcolor="black"];\n'
                    '2 [label="x = 2"];\n2 [label="x = 2"];\n}\n', encoding="utf-8")
    g = read_dot(path)
    assert g.states == [(1,), (2,)]
    assert g.edges == [(0, 1)]


def test_read_dot_empty_dump(tmp_path: Path) -> None:
    g = read_dot(dot_file(tmp_path / "g.dot", [], []))
    assert g.states == [] and g.initial == [] and g.edges == []


def test_read_dot_unreadable_value(tmp_path: Path) -> None:
    path = dot_file(tmp_path / "g.dot", [(1, "/\\ x = {1,\n/\\ y = 2", True)], [])
    with pytest.raises(GraphError, match="x"):
        read_dot(path)


def test_read_dot_states_with_other_variables(tmp_path: Path) -> None:
    path = dot_file(tmp_path / "g.dot", [(1, "/\\ x = 1\n/\\ y = 2", True), (2, "/\\ x = 1", False)],
                    [(1, 2, "N")])
    with pytest.raises(GraphError, match="variables"):
        read_dot(path)


def test_read_dot_label_without_a_variable(tmp_path: Path) -> None:
    path = dot_file(tmp_path / "g.dot", [(1, "/\\ x = 1\n/\\ y = 2", True), (2, "what", False)], [])
    with pytest.raises(GraphError):
        read_dot(path)


# --------------------------------------------------------------------------- StateGraph


def test_state_graph_helpers() -> None:
    g = graph([(0, "a"), (1, "b"), (2, "c"), (3, "d")], [0], [(0, 1), (1, 2), (0, 2), (2, 3)],
              ("x", "y"))
    assert g.successors() == [[1, 2], [2], [3], []]
    assert g.index() == {(0, "a"): 0, (1, "b"): 1, (2, "c"): 2, (3, "d"): 3}
    assert g.column("y") == ["a", "b", "c", "d"]
    assert g.path_to(3) == [0, 2, 3]  # a shortest path
    assert g.path_to(0) == [0]
    lone = graph([0, 1], [0], [])
    assert lone.path_to(1) == [1]  # unreachable: the state alone


def test_state_graph_pickles_without_its_caches() -> None:
    g = graph([0, 1], [0], [(0, 1)])
    g.actions[(0, 1)] = "Next"
    g.successors()
    g.index()
    copy = pickle.loads(pickle.dumps(g))  # noqa: S301 - our own bytes
    assert copy._succ is None and copy._index is None
    assert (copy.variables, copy.states, copy.initial, copy.edges, copy.actions) == (
        g.variables, g.states, g.initial, g.edges, g.actions)
    assert copy.successors() == [[1], []]


def test_state_graph_equality_ignores_caches() -> None:
    g = graph([0, 1], [0], [(0, 1)])
    copy = pickle.loads(pickle.dumps(g))  # noqa: S301 - our own bytes
    g.successors()
    assert g == copy


# =========================================================================== explore (TLC)


def spec_of(body: str, name: str = "G", extends: str = "EXTENDS Naturals\n") -> SpecSource:
    return SpecSource(name, {f"{name}.tla": f"---- MODULE {name} ----\n{extends}{body}====\n"})


INIT_NEXT = parse_cfg("INIT Init\nNEXT Next\n")
COUNTER = spec_of("VARIABLE x\nInit == x = 0\nNext == x < 4 /\\ x' = x + 1\n")  # deadlocks at 4


@pytest.fixture(scope="module")
def bank() -> tuple[SpecSource, ModelConfig]:
    spec = SpecSource("BankTransfer", {p.name: p.read_text(encoding="utf-8")
                                       for p in sorted(BANK.glob("*.tla"))})
    return spec, parse_cfg((BANK / "BankTransfer.cfg").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def bank_graph(harness: Harness, bank: tuple[SpecSource, ModelConfig]) -> Exploration:
    return explore(harness, *bank)


ACCOUNTS = [ModelValue(n) for n in ("alice", "bob", "carol")]
BankState = tuple[Value, Value]


def _int(value: Value | None) -> int:
    assert isinstance(value, int)
    return value


def _bank_model() -> tuple[set[BankState], set[tuple[BankState, BankState]]]:
    """The bank transfer task in Python (BankTransfer.tla with its cfg): states as
    (balance, transit) and steps, by breadth-first search."""
    def add(balance: Fn, who: Value, amount: int) -> Fn:
        return Fn([(a, _int(v) + amount if a == who else v) for a, v in balance.items])

    def withdraw(balance: Fn, transit: Fn) -> Iterable[BankState]:
        for src, dst, n in itertools.product(ACCOUNTS, ACCOUNTS, (1, 2)):
            if src != dst and _int(balance[src]) >= n:
                t = Fn([("from", src), ("to", dst), ("amt", n)])
                count = _int(transit.get(t) or 0)
                yield (add(balance, src, -n),
                       Fn([*[(k, v) for k, v in transit.items if k != t], (t, count + 1)]))

    def deposit(balance: Fn, transit: Fn) -> Iterable[BankState]:
        for t, count in transit.items:
            assert isinstance(t, Fn)
            rest = [(k, v) for k, v in transit.items if k != t]
            yield (add(balance, t["to"], _int(t["amt"])),
                   Fn(rest + ([(t, _int(count) - 1)] if _int(count) > 1 else [])))

    start: BankState = (Fn([(a, 1) for a in ACCOUNTS]), Fn([]))
    seen = {start}
    steps: set[tuple[BankState, BankState]] = set()
    queue = deque([start])
    while queue:
        s = queue.popleft()
        balance, transit = s
        assert isinstance(balance, Fn) and isinstance(transit, Fn)
        for nxt in [*withdraw(balance, transit), *deposit(balance, transit)]:
            steps.add((s, nxt))
            if nxt not in seen:
                seen.add(nxt)
                queue.append(nxt)
    return seen, steps


def test_explore_bank_transfer(bank_graph: Exploration) -> None:
    assert bank_graph.verdict == "ok", bank_graph.detail
    assert bank_graph.ok
    assert bank_graph.tlc_runs == 1
    g = bank_graph.graph
    assert g is not None
    assert len(g) == 219
    assert len(g.initial) == 1
    assert set(g.variables) == {"balance", "transit"}
    assert len(set(g.states)) == 219  # TLC's distinct states are distinct values
    assert all(a != b for a, b in g.edges)
    assert set(g.actions) == set(g.edges)
    assert all(g.actions.values())
    by_name = [dict(zip(g.variables, s, strict=True)) for s in g.states]
    first = by_name[g.initial[0]]
    assert first["transit"] == parse_value("<< >>")
    assert first["balance"] == parse_value("(alice :> 1 @@ bob :> 1 @@ carol :> 1)")


def test_explore_bank_transfer_matches_a_python_model(bank_graph: Exploration) -> None:
    """The graph read from TLC's dump has exactly the states and steps of the spec."""
    g = bank_graph.graph
    assert g is not None
    k_bal, k_tr = g.variables.index("balance"), g.variables.index("transit")
    states, steps = _bank_model()
    assert len(states) == 219
    as_pair = [(s[k_bal], s[k_tr]) for s in g.states]
    assert set(as_pair) == states
    assert {(as_pair[a], as_pair[b]) for a, b in g.edges} == steps
    assert len(g.edges) == len(steps)


def test_explore_bank_transfer_conserves_money(bank_graph: Exploration) -> None:
    g = bank_graph.graph
    assert g is not None
    for balance, transit in zip(g.column("balance"), g.column("transit"), strict=True):
        assert isinstance(balance, Fn) and isinstance(transit, Fn)
        in_flight = 0
        for t, copies in transit.items:
            assert isinstance(t, Fn)
            in_flight += _int(t["amt"]) * _int(copies)
        assert sum(_int(v) for v in balance.values()) + in_flight == 3


@pytest.mark.parametrize(("budget", "verdict"), [(219, "over_budget"), (220, "ok"), (50, "over_budget")])
def test_explore_budget_is_exact(harness: Harness, bank: tuple[SpecSource, ModelConfig],
                                 budget: int, verdict: str) -> None:
    found = explore(harness, *bank, budget=budget)
    assert found.verdict == verdict, found.detail
    if verdict == "over_budget":
        assert found.graph is None
        assert not found.ok
        assert str(budget - 1) in found.detail
    else:
        assert found.graph is not None and len(found.graph) == 219


def test_explore_unbounded_spec_is_over_budget(harness: Harness) -> None:
    spec = spec_of("VARIABLE x\nInit == x = 0\nNext == x' = x + 1\n")
    found = explore(harness, spec, INIT_NEXT, budget=5)
    assert found.verdict == "over_budget"
    assert found.graph is None


def test_explore_counter_ignores_deadlock_and_invariants(harness: Harness) -> None:
    """The exploration drops invariants and deadlock checking: the graph is what is reachable."""
    spec = spec_of("VARIABLE x\nInit == x = 0\nNext == x < 4 /\\ x' = x + 1\nInv == x < 2\n")
    cfg = parse_cfg("INIT Init\nNEXT Next\nINVARIANT Inv\nCHECK_DEADLOCK TRUE\n")
    found = explore(harness, spec, cfg)
    assert found.verdict == "ok", found.detail
    g = found.graph
    assert g is not None
    assert sorted(g.states) == [(0,), (1,), (2,), (3,), (4,)]
    assert g.path_to(g.index()[(4,)]) == [g.index()[(i,)] for i in range(5)]
    assert len(g.edges) == 4


def test_explore_action_labels(harness: Harness) -> None:
    spec = spec_of("VARIABLE x\nInit == x = 0\nUp == x < 2 /\\ x' = x + 1\n"
                   "Reset == x = 2 /\\ x' = 0\nNext == Up \\/ Reset\n")
    found = explore(harness, spec, INIT_NEXT)
    g = found.graph
    assert g is not None
    ix = g.index()
    assert g.actions == {(ix[(0,)], ix[(1,)]): "Up", (ix[(1,)], ix[(2,)]): "Up",
                         (ix[(2,)], ix[(0,)]): "Reset"}


def test_explore_several_variables_with_long_values(harness: Harness) -> None:
    """Values that TLC prints over several lines, for a spec with two variables."""
    spec = spec_of('VARIABLES x, y\nInit == x = [i \\in 1..40 |-> "abcdefgh"] /\\ y = 1..60\n'
                   "Next == UNCHANGED <<x, y>>\n", extends="EXTENDS Naturals, Sequences\n")
    found = explore(harness, spec, INIT_NEXT)
    assert found.verdict == "ok", found.detail
    g = found.graph
    assert g is not None
    assert dict(zip(g.variables, g.states[0], strict=True)) == {
        "x": Fn.tuple_of(["abcdefgh"] * 40), "y": frozenset(range(1, 61))}


@pytest.mark.parametrize("init", ["x \\in {}", "x = 1 /\\ FALSE", "x \\in {n \\in 1..3 : n > 5}"])
def test_explore_without_initial_states_is_vacuous(harness: Harness, init: str) -> None:
    spec = spec_of(f"VARIABLE x\nInit == {init}\nNext == x' = x\n")
    found = explore(harness, spec, INIT_NEXT)
    assert found.verdict == "vacuous"
    assert found.graph is None
    assert not found.ok


def test_explore_init_false_is_tlcs_error(harness: Harness) -> None:
    """`Init == FALSE` does not reach the exploration: TLC refuses an initial predicate that
    is a constant (message 2233), so the verdict is TLC's, not `vacuous`."""
    spec = spec_of("VARIABLE x\nInit == FALSE\nNext == x' = x\n")
    found = explore(harness, spec, INIT_NEXT)
    assert found.graph is None
    assert found.verdict not in ("ok", "over_budget", "vacuous")
    assert found.verdict == "config_bind_fail"


def test_explore_reports_tlcs_verdict(harness: Harness) -> None:
    spec = spec_of("VARIABLE x\nInit == x = 0\nNext == x' = 1 \\div x\n")  # division by zero
    found = explore(harness, spec, INIT_NEXT)
    assert found.graph is None
    assert found.verdict not in ("ok", "over_budget", "vacuous")


def test_explore_spec_without_naturals(harness: Harness) -> None:
    """The budget constraint uses `<`: the wrapper must not rely on the spec for Naturals."""
    spec = spec_of('VARIABLE x\nInit == x = "a"\nNext == x\' = x\n', extends="")
    found = explore(harness, spec, INIT_NEXT)
    assert found.verdict == "ok", found.detail
    assert found.graph is not None and found.graph.states == [("a",)]


def test_explore_definitions_go_into_the_wrapper(harness: Harness, tmp_path: Path) -> None:
    """`definitions` serve cfg overrides `c <- AliasVal_c`; they are part of the cache key."""
    spec = spec_of("CONSTANT N\nVARIABLE x\nInit == x = 0\nNext == x < N /\\ x' = x + 1\n")
    cfg = parse_cfg("CONSTANT N <- AliasVal_N\nINIT Init\nNEXT Next\n")
    two = explore(harness, spec, cfg, definitions=["AliasVal_N == 2"], cache=tmp_path)
    assert two.verdict == "ok", two.detail
    assert two.graph is not None and sorted(two.graph.states) == [(0,), (1,), (2,)]
    four = explore(harness, spec, cfg, definitions=["AliasVal_N == 4"], cache=tmp_path)
    assert four.graph is not None and len(four.graph) == 5
    assert four.tlc_runs == 1


def test_explore_variable_starting_with_a_digit(harness: Harness) -> None:
    spec = spec_of("VARIABLES 2pc, y\nInit == 2pc = 1 /\\ y = 2\nNext == UNCHANGED <<2pc, y>>\n")
    found = explore(harness, spec, INIT_NEXT)
    assert found.verdict == "ok", found.detail
    assert found.graph is not None
    assert dict(zip(found.graph.variables, found.graph.states[0], strict=True)) == {"2pc": 1, "y": 2}


# --------------------------------------------------------------------------- the cache


def _counting(harness: Harness, monkeypatch: pytest.MonkeyPatch, allowed: int) -> list[int]:
    """Let `harness.check` run `allowed` times, then fail the test."""
    calls: list[int] = []
    real: Callable[..., Any] = harness.check

    def check(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        if len(calls) > allowed:
            raise AssertionError("TLC ran although the cache holds the graph")
        return real(*args, **kwargs)

    monkeypatch.setattr(harness, "check", check)
    return calls


def _same(one: Exploration, other: Exploration) -> None:
    assert other.verdict == one.verdict
    assert other.detail == one.detail
    if one.graph is not None:
        assert other.graph is not None
        assert other.graph.variables == one.graph.variables
        assert other.graph.states == one.graph.states
        assert other.graph.initial == one.graph.initial
        assert other.graph.edges == one.graph.edges
        assert other.graph.actions == one.graph.actions


def test_explore_cache_answers_the_second_call(harness: Harness, tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    calls = _counting(harness, monkeypatch, allowed=1)
    first = explore(harness, COUNTER, INIT_NEXT, cache=tmp_path)
    assert first.verdict == "ok"
    assert len(calls) == 1
    assert len(list(tmp_path.glob("*.pickle"))) == 1
    assert first.tlc_runs == 1
    second = explore(harness, COUNTER, INIT_NEXT, cache=tmp_path)
    assert len(calls) == 1
    _same(first, second)
    assert second.tlc_runs == 0  # answered without TLC
    assert second.seconds == 0.0
    assert second.graph is not None and second.graph.successors()  # caches rebuilt on demand


def test_explore_cache_is_keyed_by_content(harness: Harness, tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    calls = _counting(harness, monkeypatch, allowed=3)
    explore(harness, COUNTER, INIT_NEXT, cache=tmp_path)
    # another budget, another spec text: other keys, TLC runs again
    other_budget = explore(harness, COUNTER, INIT_NEXT, budget=3, cache=tmp_path)
    assert other_budget.verdict == "over_budget"
    changed = spec_of("VARIABLE x\nInit == x = 0\nNext == x < 3 /\\ x' = x + 1\n")
    shorter = explore(harness, changed, INIT_NEXT, cache=tmp_path)
    assert shorter.graph is not None and len(shorter.graph) == 4
    assert len(calls) == 3
    assert len(list(tmp_path.glob("*.pickle"))) == 3
    # all three from the cache now, over_budget included
    assert explore(harness, COUNTER, INIT_NEXT, budget=3, cache=tmp_path).verdict == "over_budget"
    again = explore(harness, changed, INIT_NEXT, cache=tmp_path)
    assert again.graph is not None and len(again.graph) == 4
    assert explore(harness, COUNTER, INIT_NEXT, cache=tmp_path).verdict == "ok"
    assert len(calls) == 3


def test_explore_cache_ignores_a_damaged_file(harness: Harness, tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    calls = _counting(harness, monkeypatch, allowed=2)
    first = explore(harness, COUNTER, INIT_NEXT, cache=tmp_path)
    (path,) = tmp_path.glob("*.pickle")
    path.write_bytes(b"not a pickle")
    second = explore(harness, COUNTER, INIT_NEXT, cache=tmp_path)
    assert len(calls) == 2
    _same(first, second)
    third = explore(harness, COUNTER, INIT_NEXT, cache=tmp_path)  # rewritten by the second
    assert len(calls) == 2
    _same(first, third)


#: a spec whose states hold strings and model values (whose hashes vary between processes)
RECORDS = spec_of("CONSTANTS m\nVARIABLE x\nInit == x = [n |-> 0, s |-> \"go\", who |-> {m}]\n"
                  "Next == x.n < 2 /\\ x' = [x EXCEPT !.n = @ + 1]\n")
RECORDS_CFG = parse_cfg("CONSTANT m = m\nINIT Init\nNEXT Next\n")

_CHILD = """
import json, sys
from pathlib import Path
from types import SimpleNamespace
from tlc_harness.behavior.graphs import explore
from tlc_harness.behavior.values import parse_value
from tlc_harness.source.cfg import parse_cfg
from tlc_harness.tools.spec import SpecSource

args = json.loads(sys.argv[1])

def no_tlc(*a, **k):
    raise SystemExit("TLC ran although the cache holds the graph")

harness = SimpleNamespace(toolchain=SimpleNamespace(jar_sha256=args["jar"]), check=no_tlc)
found = explore(harness, SpecSource(args["main"], args["files"]), parse_cfg(args["cfg"]),
                cache=Path(args["cache"]))
g = found.graph
fresh = (parse_value(args["first"]),)
print(json.dumps({"verdict": found.verdict, "equal": g.states[g.initial[0]] == fresh,
                  "index": g.index().get(fresh), "initial": g.initial[0]}))
"""


def test_explore_cache_is_usable_by_another_process(harness: Harness, tmp_path: Path) -> None:
    """A process with another PYTHONHASHSEED gets the cached graph without TLC, and its states
    equal (and index like) the same values parsed there."""
    found = explore(harness, RECORDS, RECORDS_CFG, cache=tmp_path)
    assert found.verdict == "ok", found.detail
    first = '[n |-> 0, s |-> "go", who |-> {m}]'
    assert found.graph is not None
    assert found.graph.states[found.graph.initial[0]] == (parse_value(first),)
    args = {"jar": harness.toolchain.jar_sha256, "main": RECORDS.main, "files": dict(RECORDS.files),
            "cfg": "CONSTANT m = m\nINIT Init\nNEXT Next\n", "cache": str(tmp_path), "first": first}
    seed = "2" if os.environ.get("PYTHONHASHSEED") == "1" else "1"
    done = subprocess.run([sys.executable, "-c", _CHILD, json.dumps(args)], capture_output=True,
                          text=True, check=True, env={**os.environ, "PYTHONHASHSEED": seed})
    answer = json.loads(done.stdout)
    assert answer["verdict"] == "ok"
    assert answer["equal"], "the cached initial state is unequal to the same value parsed anew"
    assert answer["index"] == answer["initial"]
