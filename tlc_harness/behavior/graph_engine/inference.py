"""Infer a refinement mapping from the output's graph G to the reference's graph R, in memory.

Every reference variable becomes an expression over G's state. A part of R's state (a variable,
or its fields, components or pointwise projections when nothing fits it whole) is matched by a
feature of G whose values, through a translation of atoms, are exactly the part's values over
R's reachable states (both directions of refinement make the image of G's reachable states
equal R's reachable states, so every part's values must agree). A part no feature matches may
be derived: when R's other parts determine it on R's reachable states, a lookup table gives it,
provided no unused variable or field of G could have held it. G's variables that no part uses are hidden.

Parts are assigned one by one, fewest candidates first, and every partial assignment must keep
the projected image of G's states equal to R's projected states and every G step a projected R
step or a stutter. A full assignment is then checked forward and in reverse on the graphs
(`checks`). When no candidate matches exactly, the closest candidates give a counterexample.
"""

from __future__ import annotations

import difflib
import itertools
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from tlc_harness.behavior import checks
from tlc_harness.behavior.features import (
    Feature,
    Part,
    hides_identities,
    index_sets,
    output_features,
    signature,
)
from tlc_harness.behavior.graph_engine.layers import Arrays, consistent, layer_of
from tlc_harness.behavior.graph_engine.search_state import (
    Choice,
    Inferred,
    Search,
    Work,
    closest,
    fail_text,
    forward_failure,
    image_of,
    mapping_of,
    translated,
)
from tlc_harness.behavior.graphs import StateGraph
from tlc_harness.behavior.observables import bypassed
from tlc_harness.behavior.time_up import TimeUp
from tlc_harness.behavior.translation import (
    Hints,
    atom_hints,
    exact_tables,
    index_shifts,
)
from tlc_harness.behavior.values import (
    ModelValue,
    Value,
    kind_of,
)
from tlc_harness.behavior.verdicts import BehaviorVerdict, Reason

MAX_TABLE = 400           # entries of a lookup table for a derived part
MAX_SKIPPED = 2           # parts with candidates that may still be derived instead
def depths(graph: StateGraph) -> list[int]:
    """Each state's BFS depth from the initial states."""
    depth = [-1] * len(graph.states)
    frontier = list(graph.initial)
    for i in frontier:
        depth[i] = 0
    succ = graph.successors()
    level = 0
    while frontier:
        level += 1
        nxt = []
        for a in frontier:
            for b in succ[a]:
                if depth[b] < 0:
                    depth[b] = level
                    nxt.append(b)
        frontier = nxt
    return depth



def _leaf_parts(search: Search, feats: list[Feature]
                ) -> tuple[list[Part], list[Part], dict[int, list[Choice]]]:
    """R's variables as trees of parts; the leaves; exact choices per leaf."""
    out, ref = search.out, search.ref
    roots = [Part(v, ref.column(v)) for v in ref.variables]
    leaves: list[Part] = []
    choices: dict[int, list[Choice]] = {}
    value_sets = [f.values() for f in feats]
    r_depths, g_depths = depths(ref), depths(out)
    shifts = index_shifts(index_sets(out), index_sets(ref))

    def exact(part: Part) -> list[Choice]:
        r_values = frozenset(part.column)
        found: list[Choice] = []
        for feat, g_values in zip(feats, value_sets, strict=True):
            if len(g_values) != len(r_values):
                continue
            search.check_time()
            def hints(feat: Feature = feat) -> tuple[Hints, Hints]:
                return atom_hints(feat.column, g_depths), atom_hints(part.column, r_depths)
            for table in exact_tables(g_values, r_values, hints, shifts):
                image = translated(feat.column, g_values, table)
                found.append(Choice(feat, table, image))
        name = part.path.split(".")[0].split("[")[0]
        found.sort(key=lambda c: (c.feature.depth if c.feature else 0, bool(c.table),
                                  -_similar(name, c.feature.expr if c.feature else "")))
        return found

    memo: dict[int, list[Choice]] = {}

    def cached(part: Part) -> list[Choice]:
        if id(part) not in memo:
            memo[id(part)] = exact(part)
        return memo[id(part)]

    def expand(part: Part, depth: int) -> None:
        mine = cached(part)
        ways = part.split(depth) if not mine else []
        if ways:  # nothing fits it whole: rebuild it from the way whose parts fit best
            best = max(ways, key=lambda w: sum(bool(cached(p)) for p in w.parts))
            part.kind, part.keys, part.parts = best.kind, best.keys, best.parts
            for sub in part.parts:
                expand(sub, depth + 1)
            return
        choices[id(part)] = mine
        leaves.append(part)

    for root in roots:
        expand(root, 1)
    return roots, leaves, choices


def _similar(a: str, b: str) -> float:
    return difflib.SequenceMatcher(None, a.lower(), b.lower()).ratio()


def _derive(search: Search, part: Part, assigned: list[tuple[Part, Choice]],
            r_keys: list[int], g_keys: list[int]) -> Choice | None:
    """A lookup table for `part` over the parts already assigned (None: not determined)."""
    values = part.column
    table: dict[int, Value] = {}
    for key, value in zip(r_keys, values, strict=True):
        if table.setdefault(key, value) != value:
            return None
    if any(k not in table for k in g_keys):
        return None
    image = tuple(table[k] for k in g_keys)
    for size in (1, 2, len(assigned)):  # the fewest parts that determine it
        for combo in itertools.combinations(range(len(assigned)), min(size, len(assigned))):
            search.check_time()
            small: dict[tuple[Value, ...], Value] = {}
            ok = True
            for j, value in enumerate(values):
                row = tuple(assigned[i][0].column[j] for i in combo)
                if small.setdefault(row, value) != value:
                    ok = False
                    break
            if ok and len(small) <= MAX_TABLE:
                return Choice(None, {}, image, combo)
    return None


def infer(out: StateGraph, ref: StateGraph, *, work: Work | None = None,
          reverse_budget: int = 500_000, deadlock: bool = False) -> Inferred:
    """The first mapping under which G refines R both ways on the graphs, or why none does
    (`deadlock`: the reference's model checks deadlock, so a stuck output fails forward).

    G's variables alone are tried first (most outputs keep some layout of the reference's
    variables); fields, components and projections only when that finds no mapping.

    The search stops when its `work` is up, wherever it is (`TimeUp`): it is then
    `undecided`, even where it had found a failure (a search stopped part-way proves no
    failure for every mapping). Its limit counts steps, so where it stops is the same on any
    machine; the clock only guards against a hung search, and says so in the code."""
    work = work or Work()
    try:
        return _inferred(out, ref, work, reverse_budget, deadlock)
    except TimeUp:
        if work.hit == "guard":
            return Inferred(BehaviorVerdict.UNDECIDED, f"the mapping search was stopped by its "
                            f"guard of {work.guard_seconds:.0f} s after {work.steps} steps "
                            f"(its limit: {work.limit})", code=Reason.TIME_BUDGET)
        return Inferred(BehaviorVerdict.UNDECIDED, f"the mapping search reached its limit of "
                        f"{work.limit} steps", code=Reason.SEARCH_BUDGET)


def _inferred(out: StateGraph, ref: StateGraph, work: Work, reverse_budget: int,
              deadlock: bool) -> Inferred:
    feats = output_features(out)
    plain = [f for f in feats if f.depth == 0]
    if len(plain) < len(feats):
        quick = Search(out, ref, work, deadlock)
        found = _assign(quick, plain, reverse_budget)
        if found is not None and found[0] is not None and found[0].verdict is BehaviorVerdict.OK:
            return found[0]
    search = Search(out, ref, work, deadlock)
    found = _assign(search, feats, reverse_budget)
    assert found is not None
    result, roots, leaves, choices = found
    if result is not None:
        return result
    if search.out_of_budget() and not search.first_failure:
        return Inferred(BehaviorVerdict.UNDECIDED, f"the mapping search ran out of its budget "
                        f"({search.nodes} partial mappings, {search.full} full ones)",
                        tried=search.full)
    return closest(search, roots, leaves, choices, feats, reverse_budget)


def plain_failure(out: StateGraph, ref: StateGraph, variables: dict[str, str], *,
                  reverse_budget: int = 500_000) -> Inferred | None:
    """How `variables` (each reference variable given one output variable, values as they
    are) fails on the graphs, or None: it holds both ways, a reference variable is given an
    expression, or an initial output state has no image (the values need a translation)."""
    if any(variables.get(r) not in out.variables for r in ref.variables):
        return None
    columns = [out.variables.index(variables[r]) for r in ref.variables]
    index = ref.index()
    image = [index.get(tuple(state[c] for c in columns), -1) for state in out.states]
    if any(image[g] < 0 for g in out.initial):
        return None
    fwd = checks.forward(out, ref, image)
    if not fwd.ok:
        return Inferred(BehaviorVerdict.FORWARD_FAIL, fail_text(fwd), image=image, counterexample=fwd)
    rev = checks.reverse(out, ref, image, budget=reverse_budget)
    if rev.ok or rev.limited:
        return None
    return Inferred(BehaviorVerdict.REVERSE_FAIL, "the output allows too few behaviors: " + rev.why,
                    dict(variables), image=image, counterexample=rev)


def _assign(search: Search, feats: list[Feature], reverse_budget: int
            ) -> tuple[Inferred | None, list[Part], list[Part], dict[int, list[Choice]]]:
    """Assign features to R's parts, fewest candidates first (backtracking)."""
    out, ref = search.out, search.ref
    roots, leaves, choices = _leaf_parts(search, feats)
    matched = [p for p in leaves if choices[id(p)]]
    unmatched = [p for p in leaves if not choices[id(p)]]
    matched.sort(key=lambda p: len(choices[id(p)]))
    assigned: list[tuple[Part, Choice]] = []
    skipped: list[Part] = []

    r_arrays, g_arrays = Arrays.of(ref), Arrays.of(out)
    value_ids: dict[int, npt.NDArray[np.int64]] = {}  # a column's values, interned once

    def interned(key: object, column: Sequence[Value]) -> npt.NDArray[np.int64]:
        if id(key) not in value_ids:
            value_ids[id(key)] = np.array(search.ids.each(column), dtype=np.int64)
        return value_ids[id(key)]

    def deeper(depth: int, r_keys: npt.NDArray[np.int64], g_keys: npt.NDArray[np.int64]
               ) -> Inferred | None:
        search.nodes += 1
        search.check_time()
        if search.out_of_budget():
            return None
        if depth == len(matched):
            return _complete(search, roots, assigned, unmatched + skipped, feats,
                             r_keys.tolist(), g_keys.tolist(), reverse_budget)
        part = matched[depth]
        layer = layer_of(r_arrays, r_keys, interned(part, part.column))  # for every choice
        for choice in choices[id(part)]:
            search.check_time()
            g_next = consistent(g_arrays, g_keys, interned(choice, choice.image), layer)
            if g_next is None:
                continue
            assigned.append((part, choice))
            found = deeper(depth + 1, layer.keys, g_next)
            assigned.pop()
            if found is not None:
                return found
        if len(skipped) < MAX_SKIPPED:  # no feature fits in the end: perhaps G derives it
            skipped.append(part)
            found = deeper(depth + 1, r_keys, g_keys)
            skipped.pop()
            return found
        return None

    result = deeper(0, np.zeros(len(ref.states), dtype=np.int64),
                    np.zeros(len(out.states), dtype=np.int64))
    return result, roots, leaves, choices


def _complete(search: Search, roots: list[Part], assigned: list[tuple[Part, Choice]],
              unmatched: list[Part], feats: list[Feature], r_keys: list[int],
              g_keys: list[int], reverse_budget: int) -> Inferred | None:
    """Derive the unmatched parts, then check the whole mapping on the graphs."""
    chosen = {id(p): c for p, c in assigned}
    used = {v for _, c in assigned if c.feature for v in c.feature.uses}
    if hides_identities([c.feature for _, c in assigned if c.feature]):
        return None
    used_exprs = [c.feature.expr for _, c in assigned if c.feature]
    for part in unmatched:
        search.check_time()
        shape = signature(part.column)
        rivals = [f for f in feats if signature(f.column) == shape
                  and (not (f.uses & used) if f.depth == 0 else
                       not any(_overlaps(f.expr, e) or e in f.uses for e in used_exprs))]
        if rivals:
            return None  # an unused variable or field of G could hold it: not derived
        choice = _derive(search, part, assigned, r_keys, g_keys)
        if choice is None:
            return None
        own = _own_lookup(part, choice, feats, used)
        if own is not None and own.lookup is not None:
            choice = own
            used |= own.lookup.uses
        chosen[id(part)] = choice
    search.full += 1
    image = image_of(search, roots, chosen)
    fwd = checks.forward(search.out, search.ref, image, deadlock=search.deadlock)
    if not fwd.ok:
        forward_failure(search, fwd, roots, chosen, assigned, image)
        return None
    hidden = tuple(v for v in search.out.variables if v not in used)
    found = mapping_of(roots, chosen, assigned, image, search.full, hidden)
    if found is None:
        return None
    found.recomputed = tuple(dict.fromkeys((*recomputed(unmatched, hidden),
                                            *bypassed(found.variables, search.out.variables))))
    rev = checks.reverse(search.out, search.ref, image, budget=reverse_budget,
                         stop=search.timed_out)
    search.check_time()  # a reverse check cut by time decides nothing
    if not rev.ok:
        if rev.limited:
            return Inferred(BehaviorVerdict.UNDECIDED, rev.why, image=image, tried=search.full)
        if search.first_failure is None or not search.first_failure.ref_path:
            search.first_failure = rev
        if search.passed_forward is None:  # the likeliest mapping that holds forward
            search.passed_forward = found
        return None
    return found


def _own_lookup(part: Part, derived: Choice, feats: list[Feature], used: set[str]
                ) -> Choice | None:
    """A derived variable of R read from the output's own variable of its name (case aside),
    through a lookup table, where that variable, unread so far, determines it: the same
    image as `derived`, which computes it from other parts (the output's `lock` holding the
    process that has it where R's holds 0 or 1). None where there is no such variable, it
    does not determine the part, or its values mix kinds TLC cannot compare."""
    if "." in part.path or "[" in part.path:
        return None
    for feat in feats:
        if feat.depth or feat.expr.lower() != part.path.lower() or feat.uses & used:
            continue
        table: dict[Value, Value] = {}
        for g_value, r_value in zip(feat.column, derived.image, strict=True):
            if table.setdefault(g_value, r_value) != r_value:
                return None
        if len(table) > MAX_TABLE or len({kind_of(v) for v in table
                                          if not isinstance(v, ModelValue)}) > 1:
            return None
        return Choice(None, {}, derived.image, lookup=feat)
    return None


def recomputed(derived: Sequence[Part], hidden: Sequence[str]) -> tuple[str, ...]:
    """The reference variables among the `derived` parts' that name a `hidden` output
    variable (case aside): `announced` computed from `count` while the output's own
    `announced` goes unread."""
    names = {h.lower() for h in hidden}
    roots = dict.fromkeys(p.path.split(".")[0].split("[")[0] for p in derived)
    return tuple(r for r in roots if r.lower() in names)


def _overlaps(a: str, b: str) -> bool:
    """Whether one of two feature texts is a piece of the other (`st` and `st.cash`, `x[1]`
    and `x[1].f`): a field of a variable the mapping reads elsewhere is not unused."""
    short, long = sorted((a, b), key=len)
    return long == short or (long.startswith(short) and long[len(short)] in ".[")

