"""Refinement checks on explicit graphs, given the image of every output state in the reference.

`image[g]` is the reference state that output state `g` maps to (-1: none). Forward: every
initial output state maps to an initial reference state, and every output edge to a reference
edge or a stutter. Reverse: every reference behavior is, up to stuttering, the image of an
output behavior (trace inclusion, by a subset construction over the states the output may be
in while its image stays put), under a budget of explored (state, subset) pairs.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

from tlc_harness.behavior.graphs import StateGraph
from tlc_harness.behavior.time_up import Stop

#: the checks that hold under any mapping of the output's states onto the reference's, and
#: decide a reverse failure (`too_few_states`, `halts_sooner`) with the class `mapping_free`
MAPPING_FREE: dict[str, str] = {
    "too_small": "on whole graphs: fewer initial states, reachable states or steps between "
                 "different states than the reference (`checks.too_small`)",
    "halts_sooner": "on whole graphs: every output behavior stops changing state sooner than "
                    "some reference behavior (`checks.halts_sooner`)",
    "initial_states": "where the engines decide nothing: fewer initial states than the "
                      "reference, each side counted by a TLC run that takes no step, under "
                      "justified values of the constants the output's Init reads and any "
                      "admissible value of the others (`graph_engine.initial_states`)",
    "any_mapping": "on whole graphs: as many states as the reference and not isomorphic to "
                   "it, or more states and no onto homomorphism, whatever check found the "
                   "failure (`graph_engine.any_mapping`)",
    "stored_only": "where the engines decide nothing: too_small or halts_sooner on whole "
                   "graphs, the output's under a model value for each constant it only "
                   "stores in variables it never reads, which gives the most states, steps "
                   "and longest behaviors of any value (`graph_engine.stored_constants`)",
}


@dataclass(frozen=True)
class GraphVerdict:
    """`ok`, or where it breaks: output states (forward) or reference states (reverse)."""

    ok: bool
    why: str = ""
    out_path: tuple[int, ...] = ()   # output states leading to the step that breaks
    ref_path: tuple[int, ...] = ()   # reference states the output cannot follow
    limited: bool = False            # the budget ran out: neither ok nor a counterexample
    stuck: bool = False              # forward: the output deadlocks where R's model forbids it


def too_small(out: StateGraph, ref: StateGraph) -> str | None:
    """Why no mapping at all (any state function from the output's states to the reference's)
    can make every reference behavior the image of an output behavior, from counts alone:
    each initial reference state must be the image of an initial output state, each reachable
    reference state of a reachable output state, each step between two different reference
    states of an output step. Both graphs must be whole (not cut under a mapping)."""
    counts = (("initial states", len(set(out.initial)), len(set(ref.initial))),
              ("reachable states", len(out), len(ref)),
              ("steps between different states", len(set(out.edges)), len(set(ref.edges))))
    for what, mine, theirs in counts:
        if mine < theirs:
            return (f"the output has {mine} {what}, the reference {theirs}: under any mapping "
                    f"of the output's states onto the reference's, some reference behavior is "
                    f"the image of no output behavior")
    return None


def longest_run(graph: StateGraph) -> int | None:
    """The most steps between different states any behavior of a whole graph takes, or None
    when some behavior takes infinitely many (the graph has a cycle; self-loops are stutters
    and are not edges)."""
    indegree = [0] * len(graph)
    for _, b in graph.edges:
        indegree[b] += 1
    longest = [0] * len(graph)
    ready = [g for g, d in enumerate(indegree) if d == 0]
    succ = graph.successors()
    done = 0
    while ready:
        a = ready.pop()
        done += 1
        for b in succ[a]:
            longest[b] = max(longest[b], longest[a] + 1)
            indegree[b] -= 1
            if indegree[b] == 0:
                ready.append(b)
    if done < len(graph):
        return None
    return max(longest, default=0)


def halts_sooner(out: StateGraph, ref: StateGraph) -> str | None:
    """Why no mapping at all can make every reference behavior the image of an output
    behavior, from the length of behaviors: the image of an output behavior changes state at
    most as often as the behavior does, so an output whose every behavior stops changing
    after k steps cannot cover a reference behavior that changes state more often (or
    forever). Both graphs must be whole, or the reference's cut to a part of its states (a
    part's longest behavior is no longer than the whole's)."""
    mine = longest_run(out)
    if mine is None:
        return None
    theirs = longest_run(ref)
    if theirs is not None and theirs <= mine:
        return None
    what = "changes state forever" if theirs is None else f"takes {theirs} steps"
    return (f"every behavior of the output stops changing state after at most {mine} steps, "
            f"and a reference behavior {what}: under any mapping of the output's states onto "
            f"the reference's, that behavior is the image of no output behavior")


def forward(out: StateGraph, ref: StateGraph, image: list[int],
            ref_edges: set[tuple[int, int]] | None = None, *, deadlock: bool = False
            ) -> GraphVerdict:
    """Every output behavior's image is a reference behavior (up to stuttering); with
    `deadlock` (the reference's model checks it), no output state is without a step."""
    ref_init = set(ref.initial)
    edges = ref_edges if ref_edges is not None else set(ref.edges)
    order = _bfs_order(out)
    for g in order:
        if image[g] < 0:
            return GraphVerdict(False, "an output state maps to no reachable reference state",
                                tuple(out.path_to(g)))
    for g in out.initial:
        if image[g] not in ref_init:
            return GraphVerdict(False, "an initial output state maps to a reference state "
                                "that is not initial", (g,))
    succ = out.successors()
    for a in order:
        ia = image[a]
        for b in succ[a]:
            ib = image[b]
            if ia != ib and (ia, ib) not in edges:
                return GraphVerdict(False, "an output step maps to no reference step",
                                    (*out.path_to(a), b))
    if deadlock and out.terminal:
        position = {g: i for i, g in enumerate(order)}
        stuck = min(out.terminal, key=lambda g: position.get(g, len(order)))
        return GraphVerdict(False, "the output deadlocks (the reference's model checks "
                            "deadlock)", tuple(out.path_to(stuck)), stuck=True)
    return GraphVerdict(True)


def _bfs_order(graph: StateGraph) -> list[int]:
    seen = set(graph.initial)
    order = list(graph.initial)
    succ = graph.successors()
    i = 0
    while i < len(order):
        for b in succ[order[i]]:
            if b not in seen:
                seen.add(b)
                order.append(b)
        i += 1
    return order


def reverse(out: StateGraph, ref: StateGraph, image: list[int], *,
            budget: int = 500_000, stop: Stop | None = None) -> GraphVerdict:
    """Every reference behavior is the image of an output behavior (finite traces); `stop`,
    asked every 256 pairs, ends it `limited` when the caller's time is up."""
    succ_out = out.successors()
    succ_ref = ref.successors()

    def closure(states: set[int], target: int) -> frozenset[int]:
        todo = list(states)
        while todo:
            g = todo.pop()
            for h in succ_out[g]:
                if image[h] == target and h not in states:
                    states.add(h)
                    todo.append(h)
        return frozenset(states)

    start: dict[int, set[int]] = {}
    for g in out.initial:
        start.setdefault(image[g], set()).add(g)
    parent: dict[tuple[int, frozenset[int]], tuple[int, frozenset[int]] | None] = {}
    queue: deque[tuple[int, frozenset[int]]] = deque()
    for r in ref.initial:
        if r not in start:
            return GraphVerdict(False, "an initial reference state is the image of no initial "
                                "output state", ref_path=(r,))
        node = (r, closure(set(start[r]), r))
        parent[node] = None
        queue.append(node)
    popped = 0
    while queue:
        if len(parent) > budget:
            return GraphVerdict(False, f"the reverse check explored more than {budget} "
                                "(state, subset) pairs", limited=True)
        popped += 1
        if stop is not None and popped % 256 == 0 and stop():
            return GraphVerdict(False, "the reverse check ran out of time", limited=True)
        node = queue.popleft()
        r, subset = node
        for r2 in succ_ref[r]:
            reached = {h for g in subset for h in succ_out[g] if image[h] == r2}
            if not reached:
                path = [r2]
                back: tuple[int, frozenset[int]] | None = node
                while back is not None:
                    path.append(back[0])
                    back = parent[back]
                return GraphVerdict(False, "a reference step that the output cannot follow",
                                    ref_path=tuple(path[::-1]))
            nxt = (r2, closure(reached, r2))
            if nxt not in parent:
                parent[nxt] = node
                queue.append(nxt)
    return GraphVerdict(True)
