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
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

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
from tlc_harness.behavior.graphs import StateGraph
from tlc_harness.behavior.observables import bypassed
from tlc_harness.behavior.translation import (
    Hints,
    Table,
    TextBuilder,
    atom_hints,
    exact_tables,
    index_shifts,
    loose_table,
)
from tlc_harness.behavior.values import (
    FALSE,
    TRUE,
    Fn,
    ModelValue,
    Value,
    kind_of,
    to_tla,
    translate,
)
from tlc_harness.behavior.verdicts import BehaviorVerdict

MAX_NODES = 20_000        # partial assignments tried
MAX_FULL = 60             # full assignments checked on the graphs
MAX_TABLE = 400           # entries of a lookup table for a derived part
MAX_SKIPPED = 2           # parts with candidates that may still be derived instead
_PAIR_SHIFT = 32          # a (class, value id) pair as one int64: class << 32 | value id


@dataclass(frozen=True)
class Choice:
    """What gives one part: a feature through a translation (or a derived lookup)."""

    feature: Feature | None
    table: Table
    image: tuple[Value, ...]            # the part's value per G state
    derived_from: tuple[int, ...] = ()  # for a derived part: indexes of the parts it reads
    #: for a derived part: the output's own variable of its name, which determines it and
    #: which it is read from through a lookup table (`_own_lookup`)
    lookup: Feature | None = None


@dataclass
class Inferred:
    """The search's outcome: `verdict` ok, forward_fail, reverse_fail, no_mapping, undecided."""

    verdict: BehaviorVerdict
    reason: str
    variables: dict[str, str] = field(default_factory=dict)   # R variable -> TLA+ over G
    definitions: list[str] = field(default_factory=list)
    model_values: list[str] = field(default_factory=list)
    image: list[int] = field(default_factory=list)
    counterexample: checks.GraphVerdict | None = None
    tried: int = 0
    hidden: tuple[str, ...] = ()
    #: a failure's mapping, where `variables` does not hold it: the first full mapping that
    #: failed forward (with the `image` its witness was found under), or the closest one that
    #: failed in reverse (as an `ok` would hold it)
    failed_under: Inferred | None = None
    #: reference variables the mapping computes from other parts (a lookup table, or a
    #: constant) while an output variable of the same name is hidden: the output's own
    #: observable is ignored, and an `ok` under it shows nothing about that observable
    recomputed: tuple[str, ...] = ()


class _Ids:
    """Interns values into small integers shared by both graphs."""

    def __init__(self) -> None:
        self.table: dict[object, int] = {}

    def of(self, key: object) -> int:
        got = self.table.get(key)
        if got is None:
            got = self.table[key] = len(self.table)
        return got

    def each(self, keys: Iterable[object]) -> list[int]:
        """`of` of every key, in order (the search's inner loop: no call per key)."""
        table = self.table
        found: list[int] = []
        for key in keys:
            got = table.get(key)
            if got is None:
                got = table[key] = len(table)
            found.append(got)
        return found


@dataclass
class _Search:
    out: StateGraph
    ref: StateGraph
    started: float
    seconds: float
    deadlock: bool
    ids: _Ids = field(default_factory=_Ids)
    nodes: int = 0
    full: int = 0
    first_failure: checks.GraphVerdict | None = None
    failed_under: Inferred | None = None     # the mapping of the first forward failure
    passed_forward: Inferred | None = None   # a mapping that held forward, not in reverse
    failure_choice: list[Choice] | None = None

    def out_of_budget(self) -> bool:
        return (self.nodes > MAX_NODES or self.full > MAX_FULL
                or time.monotonic() - self.started > self.seconds)


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


def _translated(column: Sequence[Value], distinct: Iterable[Value],
                table: dict[Value, Value]) -> tuple[Value, ...]:
    """The column with every value's atoms translated by `table` (each distinct value once:
    a graph's column repeats them)."""
    if not table:
        return tuple(column)
    done = {v: translate(v, table) for v in distinct}
    return tuple(done[v] for v in column)


def _leaf_parts(out: StateGraph, ref: StateGraph, feats: list[Feature]
                ) -> tuple[list[Part], list[Part], dict[int, list[Choice]]]:
    """R's variables as trees of parts; the leaves; exact choices per leaf."""
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
            def hints(feat: Feature = feat) -> tuple[Hints, Hints]:
                return atom_hints(feat.column, g_depths), atom_hints(part.column, r_depths)
            for table in exact_tables(g_values, r_values, hints, shifts):
                image = _translated(feat.column, g_values, table)
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


@dataclass(frozen=True)
class _Arrays:
    """A graph's initial states (each once) and the two ends of its edges, as arrays: the
    search's inner loop compares whole columns of both graphs at once."""

    initial: npt.NDArray[np.int64]
    src: npt.NDArray[np.int64]
    dst: npt.NDArray[np.int64]

    @staticmethod
    def of(graph: StateGraph) -> _Arrays:
        edges = np.array(graph.edges, dtype=np.int64).reshape(-1, 2)
        return _Arrays(np.unique(np.array(graph.initial, dtype=np.int64)),
                       edges[:, 0].copy(), edges[:, 1].copy())


@dataclass(frozen=True)
class _Layer:
    """R's states told apart by the parts assigned so far: `keys[s]`, the class of state s
    (an index into `codes`, the sorted distinct (earlier class, value) pairs); the classes of
    the initial states and the class pairs of the edges (`a * len(codes) + b`), sorted."""

    codes: npt.NDArray[np.int64]
    keys: npt.NDArray[np.int64]
    initial: npt.NDArray[np.int64]
    edges: npt.NDArray[np.int64]


def _paired(keys: npt.NDArray[np.int64], values: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """Each state's (class, value id) pair as one number (both are below 2**31)."""
    return (keys << _PAIR_SHIFT) | values


def _layer(ref: _Arrays, keys: npt.NDArray[np.int64], values: npt.NDArray[np.int64]) -> _Layer:
    codes, classes = np.unique(_paired(keys, values), return_inverse=True)
    classes = classes.astype(np.int64).reshape(-1)
    size = len(codes)
    return _Layer(codes, classes, np.unique(classes[ref.initial]),
                  np.unique(classes[ref.src] * size + classes[ref.dst]))


def _consistent(out: _Arrays, keys: npt.NDArray[np.int64], values: npt.NDArray[np.int64],
                layer: _Layer) -> npt.NDArray[np.int64] | None:
    """G's states in R's classes under one more part, or None where the parts so far cannot
    belong to a mapping under which G refines R both ways: G and R must have the same classes
    and the same initial classes, and each step of G that changes its class must be a step
    of R between those classes."""
    paired = _paired(keys, values)
    size = len(layer.codes)
    at = np.minimum(np.searchsorted(layer.codes, paired), size - 1)
    if not np.array_equal(layer.codes[at], paired):
        return None  # a state of G in a class no state of R is in
    if np.count_nonzero(np.bincount(at, minlength=size)) != size:
        return None  # a class of R that no state of G is in
    if not np.array_equal(np.unique(at[out.initial]), layer.initial):
        return None
    moved = at[out.src] != at[out.dst]
    steps = at[out.src[moved]] * size + at[out.dst[moved]]
    return at if np.isin(steps, layer.edges).all() else None


def _derive(search: _Search, part: Part, assigned: list[tuple[Part, Choice]],
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


def infer(out: StateGraph, ref: StateGraph, *, seconds: float = 60.0,
          reverse_budget: int = 500_000, deadlock: bool = False) -> Inferred:
    """The first mapping under which G refines R both ways on the graphs, or why none does
    (`deadlock`: the reference's model checks deadlock, so a stuck output fails forward).

    G's variables alone are tried first (most outputs keep some layout of the reference's
    variables); fields, components and projections only when that finds no mapping."""
    started = time.monotonic()
    feats = output_features(out)
    plain = [f for f in feats if f.depth == 0]
    if len(plain) < len(feats):
        quick = _Search(out, ref, started, seconds, deadlock)
        found = _assign(quick, plain, reverse_budget)
        if found is not None and found[0] is not None and found[0].verdict is BehaviorVerdict.OK:
            return found[0]
    search = _Search(out, ref, started, seconds, deadlock)
    found = _assign(search, feats, reverse_budget)
    assert found is not None
    result, roots, leaves, choices = found
    if result is not None:
        return result
    if search.out_of_budget() and not search.first_failure:
        return Inferred(BehaviorVerdict.UNDECIDED, f"the mapping search ran out of its budget "
                        f"({search.nodes} partial mappings, {search.full} full ones)",
                        tried=search.full)
    return _closest(search, roots, leaves, choices, feats, reverse_budget)


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
        return Inferred(BehaviorVerdict.FORWARD_FAIL, _fail_text(fwd), image=image, counterexample=fwd)
    rev = checks.reverse(out, ref, image, budget=reverse_budget)
    if rev.ok or rev.limited:
        return None
    return Inferred(BehaviorVerdict.REVERSE_FAIL, "the output allows too few behaviors: " + rev.why,
                    dict(variables), image=image, counterexample=rev)


def _assign(search: _Search, feats: list[Feature], reverse_budget: int
            ) -> tuple[Inferred | None, list[Part], list[Part], dict[int, list[Choice]]]:
    """Assign features to R's parts, fewest candidates first (backtracking)."""
    out, ref = search.out, search.ref
    roots, leaves, choices = _leaf_parts(out, ref, feats)
    matched = [p for p in leaves if choices[id(p)]]
    unmatched = [p for p in leaves if not choices[id(p)]]
    matched.sort(key=lambda p: len(choices[id(p)]))
    assigned: list[tuple[Part, Choice]] = []
    skipped: list[Part] = []

    r_arrays, g_arrays = _Arrays.of(ref), _Arrays.of(out)
    value_ids: dict[int, npt.NDArray[np.int64]] = {}  # a column's values, interned once

    def interned(key: object, column: Sequence[Value]) -> npt.NDArray[np.int64]:
        if id(key) not in value_ids:
            value_ids[id(key)] = np.array(search.ids.each(column), dtype=np.int64)
        return value_ids[id(key)]

    def deeper(depth: int, r_keys: npt.NDArray[np.int64], g_keys: npt.NDArray[np.int64]
               ) -> Inferred | None:
        search.nodes += 1
        if search.out_of_budget():
            return None
        if depth == len(matched):
            return _complete(search, roots, assigned, unmatched + skipped, feats,
                             r_keys.tolist(), g_keys.tolist(), reverse_budget)
        part = matched[depth]
        layer = _layer(r_arrays, r_keys, interned(part, part.column))  # for every choice
        for choice in choices[id(part)]:
            g_next = _consistent(g_arrays, g_keys, interned(choice, choice.image), layer)
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


def _complete(search: _Search, roots: list[Part], assigned: list[tuple[Part, Choice]],
              unmatched: list[Part], feats: list[Feature], r_keys: list[int],
              g_keys: list[int], reverse_budget: int) -> Inferred | None:
    """Derive the unmatched parts, then check the whole mapping on the graphs."""
    chosen = {id(p): c for p, c in assigned}
    used = {v for _, c in assigned if c.feature for v in c.feature.uses}
    if hides_identities([c.feature for _, c in assigned if c.feature]):
        return None
    used_exprs = [c.feature.expr for _, c in assigned if c.feature]
    for part in unmatched:
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
    image = _image(search, roots, chosen)
    fwd = checks.forward(search.out, search.ref, image, deadlock=search.deadlock)
    if not fwd.ok:
        _forward_failure(search, fwd, roots, chosen, assigned, image)
        return None
    hidden = tuple(v for v in search.out.variables if v not in used)
    found = _mapping(roots, chosen, assigned, image, search.full, hidden)
    if found is None:
        return None
    found.recomputed = tuple(dict.fromkeys((*recomputed(unmatched, hidden),
                                            *bypassed(found.variables, search.out.variables))))
    rev = checks.reverse(search.out, search.ref, image, budget=reverse_budget)
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


def _mapping(roots: list[Part], chosen: dict[int, Choice], assigned: list[tuple[Part, Choice]],
             image: list[int], tried: int, hidden: tuple[str, ...] = ()) -> Inferred | None:
    """The chosen parts as TLA+ (None: a part has no text), as an `ok` on the graphs."""
    texts = TextBuilder()
    variables = {}
    for root in roots:
        text = _text(root, chosen, assigned, texts)
        if text is None:
            return None
        variables[root.path] = text
    return Inferred(BehaviorVerdict.OK, "refines both ways on the state graphs", variables,
                    texts.definitions, sorted(texts.model_values), image, None, tried, hidden)


def _forward_failure(search: _Search, fwd: checks.GraphVerdict, roots: list[Part],
                     chosen: dict[int, Choice], assigned: list[tuple[Part, Choice]],
                     image: list[int]) -> None:
    """Keep the first forward failure, and the mapping it was found under (with its image,
    which shows the witness's reference states)."""
    if search.first_failure is None:
        search.first_failure = fwd
        search.failed_under = _mapping(roots, chosen, assigned, image, search.full)


def _overlaps(a: str, b: str) -> bool:
    """Whether one of two feature texts is a piece of the other (`st` and `st.cash`, `x[1]`
    and `x[1].f`): a field of a variable the mapping reads elsewhere is not unused."""
    short, long = sorted((a, b), key=len)
    return long == short or (long.startswith(short) and long[len(short)] in ".[")


def _values_of(part: Part, chosen: dict[int, Choice]) -> Sequence[Value]:
    if part.kind == "leaf":
        return chosen[id(part)].image
    return part.rebuild([_values_of(p, chosen) for p in part.parts])


def _image(search: _Search, roots: list[Part], chosen: dict[int, Choice]) -> list[int]:
    columns = [_values_of(r, chosen) for r in roots]
    index = search.ref.index()
    return [index.get(state, -1) for state in zip(*columns, strict=True)]


def _text(part: Part, chosen: dict[int, Choice], assigned: list[tuple[Part, Choice]],
          texts: TextBuilder) -> str | None:
    if part.kind != "leaf":
        inner = [_text(p, chosen, assigned, texts) for p in part.parts]
        if any(t is None for t in inner):
            return None
        return part.rebuild_text([t for t in inner if t is not None])
    choice = chosen[id(part)]
    if choice.feature is not None:
        texts.model_values |= choice.feature.model_values
        return texts.translated(choice.feature.expr, choice.feature.values(), choice.table)
    if choice.lookup is not None:
        texts.model_values |= choice.lookup.model_values
        table = dict(zip(choice.lookup.column, choice.image, strict=True))
        name = texts.table(f"AliasD{len(texts.definitions) + 1}", list(table.items()))
        return f"{name}[{choice.lookup.expr}]"
    sources = [assigned[i] for i in choice.derived_from]
    if not sources:  # the part never changes
        return to_tla(part.column[0])
    keys = [_text(p, chosen, assigned, texts) for p, _ in sources]
    if any(k is None for k in keys):
        return None
    pairs: dict[tuple[Value, ...], Value] = {}
    for j, value in enumerate(part.column):
        pairs[tuple(p.column[j] for p, _ in sources)] = value
    name = texts.table(f"AliasD{len(texts.definitions) + 1}",
                       [((k[0] if len(k) == 1 else _tuple(k)), v) for k, v in pairs.items()])
    arg = keys[0] if len(keys) == 1 else "<<" + ", ".join(str(k) for k in keys) + ">>"
    return f"{name}[{arg}]"


def _tuple(values: tuple[Value, ...]) -> Value:
    return Fn.tuple_of(values)


def _closest(search: _Search, roots: list[Part], leaves: list[Part],
             choices: dict[int, list[Choice]], feats: list[Feature],
             reverse_budget: int) -> Inferred:
    """No exact mapping: classify with the closest candidates and keep a counterexample."""
    if search.passed_forward is not None:
        held = search.passed_forward
        return Inferred(BehaviorVerdict.REVERSE_FAIL, "the output allows too few behaviors: under every "
                        "mapping that passes forward, a reference behavior has no "
                        "counterpart", held.variables, held.definitions, held.model_values,
                        counterexample=search.first_failure, tried=search.full)
    if search.first_failure is not None:
        return Inferred(BehaviorVerdict.FORWARD_FAIL, _fail_text(search.first_failure),
                        counterexample=search.first_failure, tried=search.full,
                        failed_under=search.failed_under)
    whole = [Part(v, search.ref.column(v)) for v in search.ref.variables]
    for plan_roots, plan_leaves, exact in ((whole, whole, {}), (roots, leaves, choices)):
        loose = {id(p): exact.get(id(p), [])[:2] or _loose(p, feats) for p in plan_leaves}
        if all(loose.values()):
            return _closest_try(search, plan_roots, plan_leaves, loose, reverse_budget)
    missing = [p.path for p in leaves if not _loose(p, feats) and not choices[id(p)]]
    return Inferred(BehaviorVerdict.NO_MAPPING, "nothing in the output's state corresponds to the "
                    f"reference's {', '.join(missing)} (no variable, field or component "
                    "with values of that kind)", tried=search.full)


def _loose(part: Part, feats: list[Feature]) -> list[Choice]:
    """The two features whose values overlap the part's most (kinds must agree)."""
    r_values = frozenset(part.column)
    found = []
    for feat in feats:
        g_values = feat.values()
        if not _comparable(g_values, r_values):
            continue
        table = loose_table(g_values, r_values)
        image = _translated(feat.column, g_values, table)
        overlap = len(frozenset(image) & r_values) / len(frozenset(image) | r_values)
        found.append((-overlap, feat.depth, Choice(feat, table, image)))
    found.sort(key=lambda t: (t[0], t[1]))
    return [c for *_, c in found[:2]]


def _closest_try(search: _Search, roots: list[Part], leaves: list[Part],
                 loose: dict[int, list[Choice]], reverse_budget: int) -> Inferred:
    for combo in itertools.islice(itertools.product(*(loose[id(p)] for p in leaves)), 16):
        chosen = {id(p): c for p, c in zip(leaves, combo, strict=True)}
        search.full += 1
        image = _image(search, roots, chosen)
        fwd = checks.forward(search.out, search.ref, image, deadlock=search.deadlock)
        if not fwd.ok:
            _forward_failure(search, fwd, roots, chosen, [], image)
            continue
        rev = checks.reverse(search.out, search.ref, image, budget=reverse_budget)
        if rev.ok:  # both hold only for an exact image, which the search has seen
            continue
        return Inferred(BehaviorVerdict.REVERSE_FAIL, "the output allows too few behaviors: "
                        + rev.why, counterexample=rev, tried=search.full,
                        failed_under=_mapping(roots, chosen, [], image, search.full))
    failure = search.first_failure
    return Inferred(BehaviorVerdict.FORWARD_FAIL, _fail_text(failure) if failure else
                    "no mapping makes the output's behaviors the reference's",
                    counterexample=failure, tried=search.full,
                    failed_under=search.failed_under if failure else None)


def _comparable(g_values: frozenset[Value], r_values: frozenset[Value]) -> bool:
    """Whether values could stand for each other at all: the same outer kinds (an empty
    function or set fits any), or 0/1 for booleans."""
    if r_values <= {TRUE, FALSE} and g_values <= {0, 1}:
        return True
    outer = {"int": "int", "set": "set", "fn": "fn"}
    g_kinds = {outer.get(kind_of(v), "atom") for v in g_values}
    r_kinds = {outer.get(kind_of(v), "atom") for v in r_values}
    return g_kinds <= r_kinds or r_kinds <= g_kinds


def _fail_text(failure: checks.GraphVerdict) -> str:
    return failure.why + (" (the output's behavior is shown)" if failure.out_path else
                          " (the reference's behavior is shown)")
