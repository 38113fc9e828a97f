"""Value translations: which atoms of the output stand for which atoms of the reference.

A translation is a one-to-one map of atoms (strings, model values, booleans; integers only as
0/1 for a boolean, or for model values). Atoms that name the same thing are tied together
first: the same atom, a string and a model value of the same name (any case), 0/1 and
FALSE/TRUE; atoms tied to a boolean are also tried complemented (`boolean_polarities`: the two
bijections of `BOOLEAN`). The remaining atoms may be matched freely, most similar names first, since a model
names its own control states and tags. Integers otherwise stand for themselves (a counter
never runs backwards to fit), except where one side holds model values and the other side's
part holds no integer at all: processes numbered `1..N` for the reference's `{p1, p2, p3}`,
or model values for its `1..N`; an integer then stands for a model value one to one.
"""

from __future__ import annotations

import difflib
import itertools
import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field

from tlc_harness.behavior.time_up import Every, Stop
from tlc_harness.behavior.values import (
    FALSE,
    TRUE,
    Bool,
    Fn,
    ModelValue,
    Value,
    atoms,
    is_field_name,
    is_number,
    sort_key,
    to_tla,
    translate,
)

MAX_FREE = 6              # free atoms matched by trying every permutation
MAX_TABLES = 6            # translations kept per (feature, part)

Table = dict[Value, Value]
#: per atom, where it shows in its graph: (first BFS depth, number of states holding it)
Hints = dict[Value, tuple[int, int]]


def atom_hints(column: Sequence[Value], depths: Sequence[int]) -> Hints:
    """Where each atom of a column first shows (BFS depth) and how often: atoms that play
    the same part in two graphs (a PlusCal label, a tag) tend to show alike."""
    per_value: dict[Value, list[int]] = {}  # a column repeats its values: each read once
    for value, depth in zip(column, depths, strict=True):
        seen = per_value.get(value)
        if seen is None:
            per_value[value] = [depth, 1]
        else:
            seen[0] = min(seen[0], depth)
            seen[1] += 1
    found: dict[Value, list[int]] = {}
    for value, (depth, states) in per_value.items():
        for atom in set(atoms(value)):
            seen = found.setdefault(atom, [depth, 0])
            seen[0] = min(seen[0], depth)
            seen[1] += states
    return {a: (d, n) for a, (d, n) in found.items()}


def _name(atom: Value) -> str | None:
    if isinstance(atom, str):
        return atom.lower()
    if isinstance(atom, ModelValue):
        return atom.name.lower()
    return None


def _tied(atom: Value, targets: set[Value]) -> Value | None:
    """The reference atom that `atom` must stand for, if one names the same thing."""
    if atom in targets:
        return atom
    if isinstance(atom, int) and not isinstance(atom, Bool):
        if TRUE in targets or FALSE in targets:
            return {0: FALSE, 1: TRUE}.get(atom)
        return None
    if isinstance(atom, Bool) and (0 in targets or 1 in targets):
        return 1 if atom.value else 0
    name = _name(atom)
    if name is None:
        return None
    hits = [t for t in targets if _name(t) == name]
    return hits[0] if len(hits) == 1 else None


def _free(atom: Value) -> bool:
    return isinstance(atom, (str, ModelValue, Bool))


def _numbers_for_model_values(g_atoms: set[Value], r_atoms: set[Value]) -> tuple[bool, bool]:
    """Whether the output's integers may stand for the reference's model values, and whether
    the output's model values may stand for the reference's integers (the other side holds
    model values and no integer)."""
    def holds(side: set[Value]) -> tuple[bool, bool]:
        return any(is_number(a) for a in side), any(isinstance(a, ModelValue) for a in side)
    (g_int, g_mv), (r_int, r_mv) = holds(g_atoms), holds(r_atoms)
    return g_int and r_mv and not r_int, r_int and g_mv and not g_int


def _split(g_atoms: set[Value], r_atoms: set[Value]) -> tuple[Table, list[Value], list[Value]] | None:
    forced: Table = {}
    free_ints, int_targets = _numbers_for_model_values(g_atoms, r_atoms)
    for atom in sorted(g_atoms, key=sort_key):
        tied = _tied(atom, r_atoms)
        if tied is not None and tied not in forced.values():
            forced[atom] = tied
        elif not _free(atom) and not (free_ints and is_number(atom)):
            return None  # an integer with no counterpart
    rest_g = sorted((a for a in g_atoms if a not in forced), key=sort_key)
    taken = set(forced.values())
    rest_r = sorted((a for a in r_atoms if a not in taken
                     and (_free(a) or (int_targets and is_number(a)))), key=sort_key)
    return forced, rest_g, rest_r


def _kinds_fit(pairing: Table) -> bool:
    """An integer is paired only with a model value (never a string or a boolean)."""
    return all(isinstance(r, ModelValue) if is_number(g) else
               not is_number(r) or isinstance(g, ModelValue) for g, r in pairing.items())


def _similarity(a: Value, b: Value) -> float:
    na, nb = _name(a) or repr(a).lower(), _name(b) or repr(b).lower()
    return difflib.SequenceMatcher(None, na, nb).ratio()


def _pair_scores(rest_g: list[Value], rest_r: list[Value],
                 hints: tuple[Hints, Hints] | None = None) -> list[list[float]]:
    """How well each free atom of the output fits each of the reference's: atoms that show
    alike in their graphs (`hints`), then similar names (each pair scored once)."""
    g_hint, r_hint = hints or ({}, {})

    def alike(g: Value, r: Value) -> float:
        gh, rh = g_hint.get(g), r_hint.get(r)
        return (gh is not None and gh == rh) * 2.0 + (gh is not None and rh is not None
                                                      and gh[0] == rh[0]) * 1.0

    return [[alike(g, r) + _similarity(g, r) for r in rest_r] for g in rest_g]


def _pairings(rest_g: list[Value], rest_r: list[Value],
              hints: tuple[Hints, Hints] | None = None) -> Iterator[Table]:
    """One-to-one pairings of the free atoms: atoms that show alike in their graphs first,
    then the most similar names."""
    scores = _pair_scores(rest_g, rest_r, hints)

    def score(perm: Sequence[int]) -> float:
        return sum(scores[i][j] for i, j in enumerate(perm))

    if len(rest_g) <= MAX_FREE:
        for perm in sorted(itertools.permutations(range(len(rest_r)), len(rest_g)),
                           key=lambda p: -score(p)):
            yield {g: rest_r[j] for g, j in zip(rest_g, perm, strict=True)}
        return
    # too many to try them all: greedy, best-scoring pairs first
    pairs = sorted(((scores[i][j], i, j) for i in range(len(rest_g))
                    for j in range(len(rest_r))), reverse=True)
    table: Table = {}
    used: set[int] = set()
    for _, i, j in pairs:
        if rest_g[i] not in table and j not in used:
            table[rest_g[i]] = rest_r[j]
            used.add(j)
    yield table


def exact_tables(g_values: frozenset[Value], r_values: frozenset[Value],
                 hints: Callable[[], tuple[Hints, Hints]] | None = None,
                 shifts: Sequence[Table] = ()) -> Iterator[Table]:
    """Translations under which the output's values are exactly the reference's (`hints`
    orders the pairings of free atoms; called only when there are some). `shifts` are the
    index shifts of the two graphs (`index_shifts`): where every integer of both sides is an
    index, the integers may also stand for the reference's index at the same position."""
    if len(g_values) != len(r_values):
        return
    if g_values == r_values:
        yield {}
    g_atoms = {a for v in g_values for a in atoms(v)}
    r_atoms = {a for v in r_values for a in atoms(v)}
    if len(g_atoms) != len(r_atoms):
        return
    yield from _tables(g_values, r_values, g_atoms, r_atoms, {}, hints)
    g_ints = {a for a in g_atoms if is_number(a)}
    r_ints = {a for a in r_atoms if is_number(a)}
    for shift in shifts:
        if g_ints and g_ints <= shift.keys() and {shift[a] for a in g_ints} == r_ints:
            yield from _tables(g_values, r_values, g_atoms - g_ints, r_atoms - r_ints,
                               {a: shift[a] for a in g_ints}, hints)


def _tables(g_values: frozenset[Value], r_values: frozenset[Value], g_atoms: set[Value],
            r_atoms: set[Value], shifted: Table,
            hints: Callable[[], tuple[Hints, Hints]] | None) -> Iterator[Table]:
    """The exact translations that keep `shifted` (integers already given their image)."""
    split = _split(g_atoms, r_atoms)
    if split is None:
        return
    forced, rest_g, rest_r = split
    if len(rest_g) != len(rest_r):
        return
    kept = 0
    for polarity in boolean_polarities(forced, r_atoms):
        for pairing in _pairings(rest_g, rest_r, hints() if hints and rest_g else None):
            if not _kinds_fit(pairing):
                continue
            table = {k: v for k, v in {**shifted, **polarity, **pairing}.items() if k != v}
            if not table:
                continue  # the identity was tried first
            if frozenset(translate(v, table) for v in g_values) == r_values:
                yield table
                kept += 1
                if kept >= MAX_TABLES:
                    return


def boolean_polarities(forced: Table, r_atoms: set[Value]) -> list[Table]:
    """`forced` as it is, and, where it ties atoms to the reference's booleans, with those
    booleans complemented: the two bijections of `BOOLEAN` (an output's `open` for the
    reference's `locked`, `open = ~locked` in every state; 0/1 read either way round)."""
    flips: Table = {k: (FALSE if v == TRUE else TRUE) for k, v in forced.items()
                    if isinstance(v, Bool)}
    flips |= {k: 1 - v for k, v in forced.items()
              if isinstance(k, Bool) and is_number(v) and v in (0, 1)}
    if not flips or not set(flips.values()) <= r_atoms:
        return [forced]
    return [forced, {**forced, **flips}]


def index_range(keys: frozenset[Value]) -> tuple[int, int] | None:
    """`(low, size)` when `keys` are at least two consecutive integers `low..low+size-1`."""
    ints = sorted(k for k in keys if is_number(k))
    if len(ints) < 2 or len(ints) != len(keys) or ints[-1] - ints[0] != len(ints) - 1:
        return None
    return ints[0], len(ints)


def index_shifts(g_indexes: Sequence[frozenset[Value]], r_indexes: Sequence[frozenset[Value]]
                 ) -> list[Table]:
    """The shifts `k |-> k + c` (c # 0) that carry one of the output's index sets onto one of
    the reference's: sets of consecutive integers of the same size (`0..N-1` for `1..N`),
    each the common domain of a function-valued variable. Processes numbered from 0 in one
    spec and from 1 in the other are the same processes: a function over them is re-indexed,
    and a variable holding one of them (`turn`, a set of waiting processes) shifts with it."""
    def ranges(sets: Sequence[frozenset[Value]]) -> list[tuple[int, int]]:
        return sorted({r for keys in sets if (r := index_range(keys)) is not None})
    shifts: list[Table] = []
    for (g_low, g_size), (r_low, r_size) in itertools.product(ranges(g_indexes),
                                                             ranges(r_indexes)):
        if g_size == r_size and g_low != r_low:
            shifts.append({g_low + i: r_low + i for i in range(g_size)})
    return shifts


def loose_table(g_values: frozenset[Value], r_values: frozenset[Value],
                stop: Stop | None = None) -> Table:
    """The likeliest translation when none is exact (for a counterexample; `stop`: see
    `best_pairing`)."""
    g_atoms = {a for v in g_values for a in atoms(v)}
    r_atoms = {a for v in r_values for a in atoms(v)}
    forced: Table = {}
    for atom in g_atoms:
        tied = _tied(atom, r_atoms)
        if tied is not None:
            forced[atom] = tied
    free_ints, int_targets = _numbers_for_model_values(g_atoms, r_atoms)
    rest_g = sorted((a for a in g_atoms if a not in forced
                     and (_free(a) or (free_ints and is_number(a)))), key=sort_key)
    rest_r = sorted((a for a in r_atoms if a not in forced.values()
                     and (_free(a) or (int_targets and is_number(a)))), key=sort_key)
    if rest_g and rest_r and len(rest_g) <= MAX_FREE:
        pairing = best_pairing(rest_g, rest_r, stop)
    else:
        pairings = _pairings(rest_g, rest_r) if rest_g and rest_r else iter([{}])
        pairing = next((p for p in pairings if _kinds_fit(p)), {})
    return {k: v for k, v in {**forced, **pairing}.items() if k != v}


def best_pairing(rest_g: list[Value], rest_r: list[Value], stop: Stop | None = None) -> Table:
    """The first pairing `_pairings` gives (highest score, then the order of
    `itertools.permutations`) whose kinds fit, or {} when none does, found by a
    branch-and-bound walk of the permutations in that order rather than by sorting them all
    (`P(13, 6)` is 1.2 million): a branch is cut when even its best completion scores below
    the best pairing so far. Scores are added in the same order as `_pairings` adds them, so
    ties fall the same way. `stop` is asked every 1024 branches (`TimeUp`)."""
    scores = _pair_scores(rest_g, rest_r)
    fits = [[_kinds_fit({g: r}) for r in rest_r] for g in rest_g]
    tops = [max((s for s, f in zip(row, ok, strict=True) if f), default=None)
            for row, ok in zip(scores, fits, strict=True)]
    if len(rest_g) > len(rest_r) or any(t is None for t in tops):
        return {}
    bound = [0.0] * (len(rest_g) + 1)  # the most the atoms from i on can add
    for i in range(len(rest_g) - 1, -1, -1):
        bound[i] = bound[i + 1] + (tops[i] or 0.0)
    best: list[int] = []
    best_score = -math.inf
    chosen: list[int] = []
    used = [False] * len(rest_r)
    ticks = Every(stop)

    def walk(i: int, partial: float) -> None:
        nonlocal best, best_score
        ticks.tick()
        if i == len(rest_g):
            if partial > best_score:
                best, best_score = list(chosen), partial
            return
        if partial + bound[i] < best_score - 1e-9:
            return  # no completion can beat (or tie) the best so far
        for j, ok in enumerate(fits[i]):
            if ok and not used[j]:
                used[j] = True
                chosen.append(j)
                walk(i + 1, partial + scores[i][j])
                chosen.pop()
                used[j] = False

    walk(0, 0)
    return {g: rest_r[j] for g, j in zip(rest_g, best, strict=True)} if best else {}


# ------------------------------------------------------------------ TLA+ text of a translation
def _restricted(table: Table, present: Sequence[Value]) -> Table:
    """The entries of `table` for the atoms in `present` (a translation written for one
    position compares only atoms of the kinds that show there)."""
    shown = set(present)
    return {k: v for k, v in table.items() if k in shown}


@dataclass
class TextBuilder:
    """Writes translations as TLA+ operators (`AliasT1(x) == CASE ...`) for the wrapper."""

    definitions: list[str] = field(default_factory=list)
    model_values: set[str] = field(default_factory=set)
    _ops: dict[tuple[tuple[str, str], ...], str] = field(default_factory=dict)

    def operator(self, table: Table) -> str:
        items = tuple(sorted((to_tla(k), to_tla(v)) for k, v in table.items()))
        if items not in self._ops:
            name = f"AliasT{len(self._ops) + 1}"
            cases = " [] ".join(f"AliasA = {k} -> {v}" for k, v in items)
            self.definitions.append(f"{name}(AliasA) == CASE {cases} [] OTHER -> AliasA")
            self._ops[items] = name
            self.model_values |= {v.name for v in table.values() if isinstance(v, ModelValue)}
        return self._ops[items]

    def table(self, name: str, pairs: list[tuple[Value, Value]]) -> str:
        """A lookup table `name == [x \\in {...} |-> CASE ...]` (a derived variable)."""
        domain = "{" + ", ".join(to_tla(k, 1) for k, _ in pairs) + "}"
        cases = " [] ".join(f"AliasV = {to_tla(k, 1)} -> {to_tla(v, 1)}" for k, v in pairs)
        self.definitions.append(f"{name} == [AliasV \\in {domain} |-> CASE {cases}]")
        self.model_values |= {a.name for k, v in pairs for a in (*atoms(k), *atoms(v))
                              if isinstance(a, ModelValue)}
        return name

    def translated(self, expr: str, values: frozenset[Value], table: Table, depth: int = 0
                   ) -> str | None:
        """`expr` with its atoms mapped through `table` (None: values of mixed shapes)."""
        if not table:
            return expr
        hit = [a for v in values for a in atoms(v) if a in table]
        if not hit:
            return expr
        if all(not isinstance(v, (frozenset, Fn)) for v in values):
            # TLC cannot compare an integer with a string: one kind of atom per position,
            # and the operator's cases only for the atoms that show there
            kinds = {type(v) for v in values if not isinstance(v, ModelValue)}
            return (f"{self.operator(_restricted(table, hit))}({expr})" if len(kinds) <= 1
                    else None)
        if all(isinstance(v, frozenset) for v in values):
            elems = frozenset(x for v in values for x in v)  # type: ignore[union-attr]
            var = f"AliasE{depth}"
            inner = self.translated(var, elems, table, depth + 1)
            return None if inner is None else f"{{{inner} : {var} \\in {expr}}}"
        records = [v for v in values if isinstance(v, Fn)]
        if len(records) == len(values) and records and all(
                isinstance(k, str) and k not in table for r in records for k in r.domain()) \
                and len({r.domain() for r in records}) == 1:  # records: field by field
            fields = sorted(records[0].domain(), key=sort_key)
            texts = []
            for f in fields:
                assert isinstance(f, str)
                inner = self.translated(f"{expr}[{to_tla(f)}]",
                                        frozenset(r[f] for r in records), table, depth + 1)
                if inner is None:
                    return None
                texts.append(f"{f} |-> {inner}" if is_field_name(f) else None)
            if None not in texts:
                return "[" + ", ".join(t for t in texts if t) + "]"
        if all(isinstance(v, Fn) for v in values):
            fns = [v for v in values if isinstance(v, Fn)]
            keys = frozenset(k for f in fns for k in f.domain())
            vals = frozenset(x for f in fns for x in f.values())
            var = f"AliasK{depth}"
            inner = self.translated(f"{expr}[{var}]", vals, table, depth + 1)
            if inner is None:
                return None
            if not any(a in table for k in keys for a in atoms(k)):
                return f"[{var} \\in DOMAIN {expr} |-> {inner}]"
            if not all(not isinstance(k, (frozenset, Fn)) for k in keys):
                return None
            key_atoms = [a for k in keys for a in atoms(k)]
            inverse = {v: k for k, v in _restricted(table, key_atoms).items()}
            back = self.operator(inverse)
            inner = self.translated(f"{expr}[{back}({var})]", vals, table, depth + 1)
            op = self.operator(_restricted(table, key_atoms))
            return (None if inner is None else
                    f"[{var} \\in {{{op}(AliasJ{depth}) : AliasJ{depth} \\in DOMAIN {expr}}} "
                    f"|-> {inner}]")
        return None
