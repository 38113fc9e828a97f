"""The named class decided by CP-SAT, where its enumeration (`completeness`) cannot decide it.

The named class reads each reference variable r that has an output variable g of its name
(case aside) as a function h_r of g's value, and the reference variables without a namesake
as any function of the output's whole state; numbers held on both sides alike, none an
identity, are counts and stand for themselves where the two value sets have the same size
(`completeness`). Both directions of refinement need a state mapping f that sends initial
states to initial states, steps to steps or stutters, and covers every reference state,
initial state and step (`any_mapping`). The class is that homomorphism model with one more
integer per value of each named g (its image under h_r, among r's values) and an element
constraint per output state and named pair: r's value in f(s) is h_r(g's value in s). h_r is
then onto r's values (the cover), a bijection where the two sets have the same size.

CP-SAT gives its solutions one at a time, each ruled out once examined (`Model.exclude`):
one that fails the graph checks (reverse trace inclusion, deadlock) or is the mapping the
failure was found under is refuted; one that holds both ways on the graphs is left to TLC
(graphs carry no fairness), at most `MAX_HOLDERS` of them. "No solution" left is a proof:
the class is every solution the solver gave and nothing else. Limits are counts: at most
`MAX_SOLUTIONS` solutions, each solve within CP-SAT's deterministic limit; past either the
class is not decided here.
"""

from __future__ import annotations

from tlc_harness.behavior.graph_engine.any_mapping import Model, Solved, build
from tlc_harness.behavior.graph_engine.completeness import (
    MAX_HOLDERS,
    ClassCheck,
    counts,
    held,
    identity_numbers,
    left_to_tlc,
    member_fails,
)
from tlc_harness.behavior.graphs import StateGraph
from tlc_harness.behavior.values import sort_key

#: solutions examined per class (a count, the same on every machine)
MAX_SOLUTIONS = 8
#: a member's reverse check on the graphs, in pairs of states compared
REVERSE_BUDGET = 500_000

NOUN = ("mappings of the named class (each named reference variable read through a function "
        "of its namesake's values, counts as they are; the others from the whole state)")


def named_model(out: StateGraph, ref: StateGraph, *, found: list[int] | None,
                deadlock: bool, first: int = 0) -> ClassCheck | None:
    """The named class decided by CP-SAT on two whole graphs, or None where it cannot be
    (no reference variable is named, the model is too large, a limit is reached); with
    `first`, only the first members that hold both ways on the graphs (candidates for an
    `ok`, no decision)."""
    lowered = {v.lower(): k for k, v in enumerate(out.variables)}
    pairs = [(r, lowered[name.lower()]) for r, name in enumerate(ref.variables)
             if name.lower() in lowered]
    if not pairs:
        return None
    if deadlock and out.terminal:
        # freedom from deadlock is a property of the output's states: every member fails
        return ClassCheck(True, f"the output has {len(out.terminal)} reachable state(s) "
                          f"without a successor and the reference's model checks deadlock: "
                          f"every one of the {NOUN} fails forward", 0)
    built = build(out, ref, cover=True)
    if isinstance(built, Solved):
        return _pruned(built)
    kind = "named_functions" if _named_tables(built, out, ref, pairs) else "named_bijections"
    holders: list[list[int]] = []
    edges = set(ref.edges)
    for examined in range(MAX_SOLUTIONS + 1):
        solved = built.solve()
        if solved.status == "none":
            return _exhausted(examined, holders, kind)
        if solved.status != "found" or examined == MAX_SOLUTIONS:
            return None  # a limit: not decided here
        image = list(solved.image)
        before = len(holders)
        if member_fails(out, ref, image, edges, found=found, deadlock=deadlock,
                        reverse_budget=REVERSE_BUDGET, holders=holders) is not None and \
                len(holders) == before:
            return None  # the reverse check's budget ran out
        if first and len(holders) >= first:
            return ClassCheck(False, f"the first {first} of the {NOUN} that hold both ways on "
                              f"the graphs", examined + 1, kind,
                              holders=tuple(tuple(h) for h in holders))
        if len(holders) > MAX_HOLDERS:
            return None  # more members hold on the graphs than TLC is given
        built.exclude(image)
    return None


def _pruned(built: Solved) -> ClassCheck | None:
    if built.status == "none":
        return ClassCheck(True, f"no state mapping at all keeps initial states and steps "
                          f"and covers the reference's: no one of the {NOUN} works", 0)
    return None


def _exhausted(examined: int, holders: list[list[int]], kind: str) -> ClassCheck:
    """The class once CP-SAT has no solution left."""
    seen = (f"CP-SAT gives {examined} solution{'s' if examined != 1 else ''} that keep initial "
            f"states and steps and cover the reference's, and proves there is no other")
    if holders:
        return left_to_tlc(f"of the {NOUN}, {seen}; every one fails on the graphs but "
                           f"{held(holders, '')} both ways there", holders, examined, kind)
    return ClassCheck(True, f"of the {NOUN}, {seen}; each fails on the graphs or is the "
                      f"mapping the failure was found under", examined, kind)


def _named_tables(built: Model, out: StateGraph, ref: StateGraph,
                  pairs: list[tuple[int, int]]) -> bool:
    """Add h_r for each named pair (r, g) to the model; whether some h_r merges values."""
    from ortools.sat.python import cp_model  # loaded only where a grade needs it

    identities = identity_numbers(out) | identity_numbers(ref)
    merged = False
    for r, g in pairs:
        g_col, r_col = out.column(out.variables[g]), ref.column(ref.variables[r])
        g_vals = sorted(set(g_col), key=sort_key)
        r_vals = sorted(set(r_col), key=sort_key)
        merged |= len(g_vals) > len(r_vals)
        # a count stands for itself (the same numbers on both sides, so it is one of r's)
        fixed = counts(g_vals, r_vals, identities) if len(g_vals) == len(r_vals) \
            else frozenset()
        r_index = {v: k for k, v in enumerate(r_vals)}
        h = {v: built.model.new_int_var_from_domain(cp_model.Domain.from_values(
            [r_index[v]] if v in fixed else list(range(len(r_vals)))), "") for v in g_vals}
        ref_values = [r_index[v] for v in r_col]
        for s, v in enumerate(g_col):
            built.model.add_element(built.image[s], ref_values, h[v])
    return merged

