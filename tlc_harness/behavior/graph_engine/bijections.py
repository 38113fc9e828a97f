"""The bijections of the named variables' values that could pass both graph checks.

The named class (`completeness.named_class`) holds every mapping that reads each reference
variable r from the output's variable of its name through a bijection h_r of their value
sets. A member passes both checks on the graphs only if its *product map* (a state's named
values, each through its h) is an isomorphism of the two graphs' projections:

- the product of bijections is one-to-one on tuples of values, and forward every reachable
  output state maps to a reachable reference state, while in reverse every reachable reference
  state is the image of one: the output's distinct tuples of named values (its states with
  the hidden variables left out) map one-to-one *onto* the reference's states;
- forward an initial output state maps to an initial reference state, and in reverse every
  initial reference state is the image of an initial output state: initial tuples onto
  initial states;
- forward an output step maps to a reference step or a stutter, and in reverse a reference
  step a -> b is followed by an output behavior, which must step from a state mapped to a to
  one mapped to b: the output's steps between different tuples map onto the reference's steps.

An isomorphism keeps every count built from these alone, so each value gets a colour by
refinement (as in Weisfeiler-Leman's test: a value's colour is its variable, then the colours
of the tuples holding it, a tuple's the colours of its values, whether it is initial and the
colours of its successors and predecessors, until no class splits; both sides share one
palette). A member maps each value to one of its colour on the same variable, or it fails a
check: `candidates` yields only those, pruning a partial assignment as soon as the tuples it
fixes leave the reference's, and `Refined.plain` says when the colours alone already rule out
every member. Values that `fixed` names (numbers standing for themselves) keep their own
colour and map to themselves.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from tlc_harness.behavior.values import Value, sort_key

Tuple = tuple[Value, ...]


@dataclass(frozen=True)
class Side:
    """One graph projected on the named variables: distinct tuples, initial ones, steps."""

    tuples: list[Tuple]
    initial: frozenset[int]
    steps: frozenset[tuple[int, int]]


def project(columns: Sequence[Sequence[Value]], initial: Sequence[int],
            edges: Sequence[tuple[int, int]]) -> Side:
    """The projection of a graph whose states' named values are `columns` (one per variable,
    one entry per state)."""
    keys = list(zip(*columns, strict=True)) if columns else []
    ids: dict[Tuple, int] = {}
    of = [ids.setdefault(k, len(ids)) for k in keys]
    steps = frozenset((of[a], of[b]) for a, b in edges if of[a] != of[b])
    return Side(list(ids), frozenset(of[i] for i in initial), steps)


@dataclass(frozen=True)
class Refined:
    """The values of each variable grouped by colour, on both sides."""

    #: per variable: colour -> (output values, reference values), in a fixed order
    classes: list[dict[int, tuple[list[Value], list[Value]]]]
    #: why no member can pass, where the colours (or sizes) alone show it; else None
    plain: str | None

    def count(self) -> int:
        """How many members keep the colours (each must be checked)."""
        return math.prod(math.factorial(len(g)) for per in self.classes for g, _ in per.values())


def refine(out: Side, ref: Side, fixed: Sequence[frozenset[Value]], rounds: int = 12) -> Refined:
    """Colour both sides' values jointly until stable (see the module)."""
    k = len(fixed)
    sides = (out, ref)
    if len(out.tuples) != len(ref.tuples):
        return Refined([], f"the output's states take {len(out.tuples)} distinct tuples of the "
                       f"named variables' values, the reference has {len(ref.tuples)} states: "
                       f"a one-to-one map of tuples is onto none of them")
    if len(out.initial) != len(ref.initial) or len(out.steps) != len(ref.steps):
        return Refined([], "the named variables' tuples have other numbers of initial states "
                       "or steps than the reference")
    palette: dict[object, int] = {}
    colour: list[list[dict[Value, int]]] = []
    for side in sides:
        start = [dict[Value, int]() for _ in range(k)]
        for t in side.tuples:
            for i, v in enumerate(t):
                start[i][v] = palette.setdefault(("fixed", i, v) if v in fixed[i] else ("var", i),
                                               len(palette))
        colour.append(start)
    succ = [_adjacent(s, forward=True) for s in sides]
    pred = [_adjacent(s, forward=False) for s in sides]
    classes_before = -1
    for _ in range(rounds):
        palette = {}
        tuple_colour = []
        for s, side in enumerate(sides):
            base = [(tuple(colour[s][i][v] for i, v in enumerate(t)), n in side.initial)
                    for n, t in enumerate(side.tuples)]
            tuple_colour.append([
                (base[n], tuple(sorted(Counter(base[m] for m in succ[s][n]).items())),
                 tuple(sorted(Counter(base[m] for m in pred[s][n]).items())))
                for n in range(len(side.tuples))])
        holders: list[list[dict[Value, Counter[object]]]] = []
        for s, side in enumerate(sides):
            per_var = [dict[Value, Counter[object]]() for _ in range(k)]
            for n, t in enumerate(side.tuples):
                for i, v in enumerate(t):
                    per_var[i].setdefault(v, Counter())[tuple_colour[s][n]] += 1
            holders.append(per_var)
        for s in range(2):
            for i in range(k):
                for v, seen in holders[s][i].items():
                    signature = (colour[s][i][v], tuple(sorted(seen.items(), key=repr)))
                    colour[s][i][v] = palette.setdefault(signature, len(palette))
        if len(palette) == classes_before:
            break
        classes_before = len(palette)
    classes: list[dict[int, tuple[list[Value], list[Value]]]] = []
    for i in range(k):
        per: dict[int, tuple[list[Value], list[Value]]] = {}
        for s in range(2):
            for v in sorted(colour[s][i], key=sort_key):
                per.setdefault(colour[s][i][v], ([], []))[s].append(v)
        if any(len(g) != len(r) for g, r in per.values()):
            return Refined([], "the named variables' values cannot be matched keeping how "
                           "the states and steps holding them are linked (no member passes)")
        classes.append(per)
    return Refined(classes, None)


def _adjacent(side: Side, *, forward: bool) -> list[list[int]]:
    near: list[list[int]] = [[] for _ in side.tuples]
    for a, b in side.steps:
        (near[a] if forward else near[b]).append(b if forward else a)
    return near


def candidates(refined: Refined, out: Side, ref: Side, budget: int
               ) -> Iterator[list[dict[Value, Value]] | None]:
    """Each colour-keeping member (one table per variable) whose product maps the output's
    tuples into the reference's, variable by variable with the tuples' prefixes checked; a
    final None where `budget` partial assignments ran out (the class is then not covered)."""
    k = len(refined.classes)
    prefixes = [{t[:n] for t in ref.tuples} for n in range(k + 1)]
    out_prefixes = [sorted({t[:n] for t in out.tuples}, key=repr) for n in range(k + 1)]
    spent = 0

    def tables_of(i: int) -> Iterator[dict[Value, Value]]:
        groups = list(refined.classes[i].values())
        for combo in itertools.product(*(itertools.permutations(r) for _, r in groups)):
            table: dict[Value, Value] = {}
            for (g, _), perm in zip(groups, combo, strict=True):
                table.update(zip(g, perm, strict=True))
            yield table

    def grow(i: int, chosen: list[dict[Value, Value]]
             ) -> Iterator[list[dict[Value, Value]] | None]:
        nonlocal spent
        if i == k:
            yield list(chosen)
            return
        for table in tables_of(i):
            spent += 1
            if spent > budget:
                yield None
                return
            chosen.append(table)
            if all(tuple(chosen[j][v] for j, v in enumerate(p)) in prefixes[i + 1]
                   for p in out_prefixes[i + 1]):
                for found in grow(i + 1, chosen):
                    yield found
                    if found is None:
                        return
            chosen.pop()

    yield from grow(0, [])
