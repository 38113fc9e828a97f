"""The class of renamings: every named variable read through one renaming of each sort's atoms.

Where the named class (`completeness.named_class`) is too large to enumerate (bijections of
whole values: a function over 5 processes has as many values as the process states combine),
a smaller class is: the mappings that read each reference variable from the output variable of
its name, renaming the atoms of each *sort* by one bijection applied everywhere
(`table_mapping.renaming`'s sorts: a slot indexing a function and the slots whose atoms lie in
its domain are one sort), functions pointwise (a process renamed in `pc`'s domain is renamed in
`x`'s too), counts standing for themselves (a number in no function's domain is that number).
These are the mappings a candidate confirmed as a table may be (`table_mapping`), so a failure
under every one of them is a failure under every *natural* mapping, not under every mapping:
the verdict says so (`mapping_class: named_renamings`).

The class is the product over sorts of the bijections of the sort's free atoms (the output's
atoms onto the reference's, counts fixed), enumerated while it is small; each member is checked
on the graphs (forward, then reverse), and the members that hold both ways there (graphs carry
no fairness) are left to TLC, as for the named class.
"""

from __future__ import annotations

import itertools
import math

from tlc_harness.behavior.graph_engine.completeness import (
    MAX_HOLDERS,
    MAX_WORK,
    ClassCheck,
    held,
    left_to_tlc,
    member_fails,
)
from tlc_harness.behavior.graph_engine.table_mapping import (
    Path,
    Unifier,
    atom_slots,
    sequence_slots,
    slot_sorts,
)
from tlc_harness.behavior.graphs import StateGraph
from tlc_harness.behavior.values import Value, is_number, sort_key

#: members of the class enumerated (products of each sort's bijections)
MAX_MEMBERS = 50_000
KIND = "named_renamings"
RENAMING = "a renaming of each sort's atoms"


def renaming_class(out: StateGraph, ref: StateGraph, *, found: list[int] | None = None,
                   deadlock: bool = False, reverse_budget: int = 500_000) -> ClassCheck:
    """Whether every member of the class of renamings fails on the graphs (see the module),
    with the members left to TLC; not complete where the class does not apply or is large."""
    lowered = {v.lower(): k for k, v in enumerate(out.variables)}
    nameless = [r for r in ref.variables if r.lower() not in lowered]
    if nameless:
        return ClassCheck(False, f"the output has no variable named {nameless[0]}", kind=KIND)
    named = [(r.lower(), lowered[r.lower()]) for r in ref.variables]  # in R's order
    columns = {name: (sorted(set(out.column(out.variables[g])), key=sort_key),
                      sorted(set(ref.column(r)), key=sort_key))
               for (name, g), r in zip(named, ref.variables, strict=True)}
    sequences = sequence_slots([((name,), v) for name, (g_vals, r_vals) in columns.items()
                                for v in (*g_vals, *r_vals)])
    mine: dict[Path, set[Value]] = {}
    theirs: dict[Path, set[Value]] = {}
    for name, (g_vals, r_vals) in columns.items():
        for v in g_vals:
            atom_slots((name,), v, mine, sequences)
        for v in r_vals:
            atom_slots((name,), v, theirs, sequences)
    if set(mine) != set(theirs):
        return ClassCheck(False, "the named variables' values have other shapes than the "
                          "reference's", kind=KIND)
    sorts = slot_sorts(mine, theirs)
    identities = {s for p, s in sorts.items() if p[-1] == "dom"}
    free: dict[int, tuple[list[Value], list[Value]]] = {}
    fixed: dict[int, set[Value]] = {}
    for sort in sorted(set(sorts.values())):
        ours = {a for p, s in sorts.items() if s == sort for a in mine[p]}
        its = {a for p, s in sorts.items() if s == sort for a in theirs[p]}
        counts: set[Value] = set() if sort in identities else \
            {a for a in ours | its if is_number(a)}
        if counts and {a for a in ours if a in counts} != {a for a in its if a in counts}:
            return ClassCheck(False, "a count the output holds is not one the reference holds "
                              "in the same place (counts stand for themselves)", kind=KIND)
        if len(ours) != len(its):
            return ClassCheck(False, f"a sort of {len(ours)} atoms of the output's against "
                              f"{len(its)} of the reference's: no renaming is one-to-one",
                              kind=KIND)
        fixed[sort] = counts & ours
        free[sort] = (sorted(ours - counts, key=sort_key), sorted(its - counts, key=sort_key))
    members = math.prod(math.factorial(len(g)) for g, _ in free.values())
    if members > MAX_MEMBERS:
        return ClassCheck(False, f"{members} renamings of the sorts' atoms: more than the "
                          f"check's budget", members, KIND)
    index = ref.index()
    edges = set(ref.edges)
    holders: list[list[int]] = []
    order = sorted(free)
    work = 0  # output states imaged, over the members: the check's count of work
    for combo in itertools.product(*(itertools.permutations(free[s][1]) for s in order)):
        pi = {(s, a): a for s, atoms in fixed.items() for a in atoms}
        for s, targets in zip(order, combo, strict=True):
            pi.update({(s, a): b for a, b in zip(free[s][0], targets, strict=True)})
        image, work = _imaged(out, index, named, Unifier(pi, {}, sorts, sequences), work)
        if image is None:
            continue  # an output state maps to no reference state: the member fails forward
        if work > MAX_WORK:
            return ClassCheck(False, f"{members} renamings of the sorts' atoms: more than the "
                              f"check's budget", members, KIND,
                              holders=tuple(tuple(h) for h in holders[:MAX_HOLDERS]))
        before = len(holders)
        verdict = member_fails(out, ref, image, edges, found=found, deadlock=deadlock,
                               reverse_budget=reverse_budget, member=RENAMING, holders=holders)
        if verdict is None:
            continue
        if before < len(holders) <= MAX_HOLDERS:  # it holds both ways: TLC's, below
            continue
        return ClassCheck(False, verdict, members, KIND,
                          holders=tuple(tuple(h) for h in holders[:MAX_HOLDERS]))
    if holders:
        return left_to_tlc(f"of the {members} renamings of the sorts' atoms, every one fails "
                           f"on the graphs but {held(holders)} both ways there", holders,
                           members, KIND)
    return ClassCheck(True, f"each of the {members} renamings of the sorts' atoms (the named "
                      f"variables read pointwise, one bijection per sort, counts as they are) "
                      f"fails on the graphs: no natural mapping works, though a mapping outside "
                      f"this class might", members, KIND)


def _imaged(out: StateGraph, index: dict[tuple[Value, ...], int],
            named: list[tuple[str, int]], renamer: Unifier, work: int
            ) -> tuple[list[int] | None, int]:
    """The member's image of every output state (None at the first state that maps to no
    reference state: the member fails forward), and the work done so far."""
    memo: dict[tuple[str, Value], Value | None] = {}
    image: list[int] = []
    for state in out.states:
        work += 1
        key: list[Value] = []
        for name, g in named:
            value = state[g]
            if (name, value) not in memo:
                memo[(name, value)] = renamer.renamed((name,), value)
            got = memo[(name, value)]
            if got is None or work > MAX_WORK:
                return (None if got is None else image), work
            key.append(got)
        target = index.get(tuple(key), -1)
        if target < 0:
            return None, work
        image.append(target)
    return image, work
