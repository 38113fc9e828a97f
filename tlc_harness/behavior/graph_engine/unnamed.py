"""The reference variables the output has no namesake for, under one member of the named class.

Where only some reference variables have an output variable of their name, a mapping that
could work reads those through bijections of their values (the named class), and each other
reference variable as *any* function of the output's whole state. Under one member (the
bijections fixed) each output state s can map only to the reference states whose named values
are s's named values through the bijections (`domains`); forward an initial state maps to an
initial state and a step to a step or a stutter, so arc consistency over the output's steps
(`narrow`) removes every reference state no mapping of the member can give s. The member fails
under every choice of the other variables where a state is left with none, or where some
reference state (or initial state) is left the image of none: in reverse every reachable
reference state is the image of a reachable output state, and every initial one of an initial
one. Where each output state is left exactly one, that is the member's only mapping, checked
on the graphs like any other. Anything else is no proof.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence

from tlc_harness.behavior.graphs import StateGraph
from tlc_harness.behavior.values import Value


def domains(out_keys: Sequence[tuple[Value, ...]], ref: StateGraph,
            ref_keys: Sequence[tuple[Value, ...]]) -> list[set[int]] | None:
    """Each output state's possible images: the reference states with its named values (the
    member's images of them), initial ones for an initial state; None where one has none."""
    by_key: dict[tuple[Value, ...], set[int]] = {}
    for i, key in enumerate(ref_keys):
        by_key.setdefault(key, set()).add(i)
    found: list[set[int]] = [set(by_key.get(key, ())) for key in out_keys]
    return found if all(found) else None


FAILS, OPEN, BUDGET = "fails", "open", "budget"


def narrow(out: StateGraph, ref: StateGraph, found: list[set[int]], budget: int
           ) -> tuple[str, str]:
    """Arc consistency over the output's steps, `found` narrowed in place: (`FAILS`, why: no
    choice of the other variables works), (`OPEN`, "") or (`BUDGET`, "") where the budget of
    pair checks ran out (no proof either way)."""
    for s in out.initial:
        found[s] &= set(ref.initial)
        if not found[s]:
            return FAILS, "an initial output state can map to no initial reference state"
    steps = {*ref.edges}
    succ = out.successors()
    pred: list[list[int]] = [[] for _ in out.states]
    for a, b in out.edges:
        pred[b].append(a)
    queue = deque(range(len(out.states)))
    queued = [True] * len(out.states)
    spent = 0
    while queue:
        s = queue.popleft()
        queued[s] = False
        for t in (*succ[s], *pred[s]):
            outgoing = t in succ[s]
            incoming = s in succ[t]
            keep: set[int] = set()
            for b in found[t]:
                spent += len(found[s])
                if spent > budget:
                    return BUDGET, ""
                if ((not outgoing or any(a == b or (a, b) in steps for a in found[s]))
                        and (not incoming or any(a == b or (b, a) in steps for a in found[s]))):
                    keep.add(b)
            if keep != found[t]:
                if not keep:
                    return FAILS, ("an output state can map to no reference state that follows "
                                   "its neighbours' images by a step or a stutter")
                found[t] = keep
                if not queued[t]:
                    queue.append(t)
                    queued[t] = True
    covered: set[int] = set().union(*found) if found else set()
    if len(covered) < len(ref.states):
        return FAILS, "a reference state is the image of no output state under any choice"
    if not set(ref.initial) <= set().union(*(found[s] for s in out.initial)):
        return FAILS, "an initial reference state is the image of no initial output state"
    return OPEN, ""
