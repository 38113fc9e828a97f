"""Layout transformations of a reference's reachable states, composed: the generated
representation controls (issue 51 item 4, "controls generated, not written").

A `Step` is one behavior-preserving change of layout, an injective function on states:

- `permute_ids`: a permutation of one sort of identities (processes `1..N`, the model values
  of one set constant, strings that index a record) applied everywhere they occur: in
  function domains and in values, in every variable (integers only where every integer at
  that place of the value is such an identity);
- `rename_values`: a bijection of the strings one variable holds as values (a pc's labels, a
  state field's), applied wherever those strings are values (never record fields);
- `reindex`: identities `0..N-1` numbered `1..N` (or `1..N` as `0..N-1`), as `permute_ids`;
- `fn_as_record`: a function over identities kept as a record with a field per identity;
- `split_record`: a record variable split into one variable per field;
- `char_function`: a set (or a function of sets) kept as its characteristic function over
  the union of the values it takes, `[d \\in D |-> d \\in S]`;
- `complement`: every boolean a variable holds, complemented (`free` for `~locked`).

Steps act on a `StateGraph` and give the next graph, so they compose; a step names its
variable by position, never by name, so that a `Plan` drawn on the reference's graph applies
to a behavior mutant's graph too (a plan that does not fit the mutant says why). A `Plan`
may end with a registered rule of `rules.RULES` laid over the result (a record, a history
variable, booleans as 0/1, ...). `plan_layout` turns a plan into a `rules.LayoutMaker`, which
`representations.representation_variants` turns into a spec `AliasRep`: every R variable is
written back through the steps' inverses (lookup tables over the values a variable takes,
records rebuilt from split variables), so `AliasRep` behaves exactly like R.

`candidates` lists the steps that apply to a graph with the values a drawn permutation
reorders; the drawing itself (Hypothesis) is the tests' (tests/tlc_harness/behavior/
test_generated_layouts.py), so this module imports no test library.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from tlc_harness.behavior.features import index_sets
from tlc_harness.behavior.graphs import StateGraph
from tlc_harness.behavior.rules import MAX_TABLE, RULES, Layout, LayoutMaker, fresh
from tlc_harness.behavior.translation import index_range
from tlc_harness.behavior.values import (
    Bool,
    Fn,
    ModelValue,
    Value,
    is_field_name,
    is_number,
    sort_key,
    to_tla,
    translate,
)

KINDS: tuple[str, ...] = ("permute_ids", "rename_values", "reindex", "fn_as_record",
                          "split_record", "char_function", "complement")
#: registered rules a plan may end with (each lays out any graph, or says why not)
FINAL_RULES: tuple[str, ...] = ("record", "history", "bool_as_01", "bool_complement",
                                "flags_as_set", "model_values_as_strings")
_SUFFIX = {"permute_ids": "Perm", "rename_values": "Ren", "reindex": "Idx",
           "fn_as_record": "Rec", "char_function": "Char", "complement": "Not"}
_HOLE = re.compile(r"§(\w+)§")  # a variable of the next layer inside a decoding template
_SET_CONST = re.compile(r"AliasM_(\w+)_\d+\Z")


@dataclass(frozen=True)
class Candidate:
    """A step that applies: its kind, the variable it acts on (position; -1: every variable),
    and the values a drawn permutation reorders (identities, strings; empty: none)."""

    kind: str
    target: int
    domain: tuple[Value, ...] = ()
    label: str = ""


@dataclass(frozen=True)
class Step:
    """One drawn layout change: a candidate with its permutation (`order`: `domain`
    reordered; value `domain[i]` becomes `order[i]`), whether strings become fresh names
    (`fresh`), and whether a changed variable takes a new name (`rename`)."""

    kind: str
    target: int
    domain: tuple[Value, ...] = ()
    order: tuple[Value, ...] = ()
    fresh: bool = False
    rename: bool = True
    label: str = ""

    def table(self) -> dict[Value, Value]:
        if self.kind == "reindex":
            ints = [k for k in self.domain if is_number(k)]
            step = 1 if min(ints) <= 0 else -1
            return {k: k + step for k in ints}
        if self.kind == "rename_values" and self.fresh:
            return {v: f"S{self.target}_{self.domain.index(o)}"
                    for v, o in zip(self.domain, self.order, strict=True)}
        return dict(zip(self.domain, self.order, strict=True))

    def describe(self) -> str:
        parts = [self.kind, self.label]
        if self.domain and self.kind != "reindex":
            parts.append(", ".join(f"{to_tla(a)}->{to_tla(b)}" for a, b in self.table().items()
                                   if a != b) or "identity")
        parts.append("renamed" if self.rename else "same name")
        return " ".join(p for p in parts if p)


@dataclass(frozen=True)
class Plan:
    """Steps applied in order, then optionally a registered rule (`final`)."""

    steps: tuple[Step, ...]
    final: str | None = None

    def kinds(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(s.kind for s in self.steps)) + ((self.final,)
                                                                  if self.final else ())

    def describe(self) -> str:
        text = "; ".join(s.describe() for s in self.steps)
        return text + (f"; then rule {self.final}" if self.final else "")


@dataclass(frozen=True)
class Layer:
    """One applied step: the next graph, and each previous variable as a TLA+ template over
    the next graph's variables (written `§name§`)."""

    graph: StateGraph
    decode: tuple[str, ...]
    encode: Callable[[tuple[Value, ...]], tuple[Value, ...]]
    definitions: tuple[str, ...] = ()


# --- values ------------------------------------------------------------------------------

def _walk(value: Value, path: tuple[object, ...], ids: frozenset[Value]
          ) -> Iterator[tuple[tuple[object, ...], Value]]:
    """(path, atom or function) for every piece of `value`; a function over `ids` is one
    step `*` (its keys are identities), any other by its key, a set's elements `{}`."""
    if isinstance(value, frozenset):
        for v in value:
            yield from _walk(v, (*path, "{}"), ids)
    elif isinstance(value, Fn):
        yield path, value
        over = value.domain() == ids
        for k, v in value.items:
            if not over:
                yield from _walk(k, (*path, "key"), ids)
            yield from _walk(v, (*path, "*" if over else k), ids)
    else:
        yield path, value


def _id_places(columns: Iterable[list[Value]], ids: frozenset[Value]
               ) -> tuple[set[tuple[object, ...]], set[tuple[object, ...]]]:
    """Where integer identities sit: the places whose every integer is one of `ids`, and the
    places whose every function is over exactly `ids` (keys renumbered)."""
    numbers: dict[tuple[object, ...], bool] = {}
    domains: dict[tuple[object, ...], bool] = {}
    for i, column in enumerate(columns):
        for value in set(column):
            for path, x in _walk(value, (i,), ids):
                if isinstance(x, Fn):
                    domains[path] = domains.get(path, True) and x.domain() == ids
                elif is_number(x):
                    numbers[path] = numbers.get(path, True) and x in ids
    return ({p for p, ok in numbers.items() if ok}, {p for p, ok in domains.items() if ok})


def _renumber(value: Value, path: tuple[object, ...], ids: frozenset[Value],
              table: dict[Value, Value], places: tuple[set[tuple[object, ...]], ...]) -> Value:
    numbers, keyed = places
    if isinstance(value, frozenset):
        return frozenset(_renumber(v, (*path, "{}"), ids, table, places) for v in value)
    if isinstance(value, Fn):
        over = value.domain() == ids
        rekey = over and path in keyed
        return Fn(((table[k] if rekey else k if over else
                    _renumber(k, (*path, "key"), ids, table, places)),
                   _renumber(v, (*path, "*" if over else k), ids, table, places))
                  for k, v in value.items)
    return table.get(value, value) if path in numbers else value


def _values_only(value: Value, table: dict[Value, Value]) -> Value:
    """`translate` that leaves function keys (record fields) alone."""
    if isinstance(value, frozenset):
        return frozenset(_values_only(v, table) for v in value)
    if isinstance(value, Fn):
        return Fn((k, _values_only(v, table)) for k, v in value.items)
    return table.get(value, value)


def _complement(value: Value) -> Value:
    if isinstance(value, Bool):
        return Bool(not value.value)
    if isinstance(value, frozenset):
        return frozenset(_complement(v) for v in value)
    if isinstance(value, Fn):
        return Fn((k, _complement(v)) for k, v in value.items)
    return value


def _keys(graph: StateGraph) -> set[Value]:
    """Every function key anywhere in the graph's values."""
    found: set[Value] = set()
    todo = [v for s in graph.states for v in s]
    seen: set[Value] = set()
    while todo:
        v = todo.pop()
        if v in seen:
            continue
        seen.add(v)
        if isinstance(v, Fn):
            found.update(v.domain())
            todo.extend(v.values())
        elif isinstance(v, frozenset):
            todo.extend(v)
    return found


def _value_atoms(value: Value) -> Iterator[Value]:
    """The atoms a value holds as values (function keys left out)."""
    if isinstance(value, frozenset):
        for v in value:
            yield from _value_atoms(v)
    elif isinstance(value, Fn):
        for v in value.values():
            yield from _value_atoms(v)
    else:
        yield value


def _common_domain(column: Iterable[Value]) -> frozenset[Value] | None:
    domains = {v.domain() if isinstance(v, Fn) else None for v in column}
    one = domains.pop() if len(domains) == 1 else None
    return one or None


def _field(key: Value, index: int) -> str:
    if isinstance(key, ModelValue) and is_field_name(key.name):
        return key.name
    if is_number(key):
        return f"i{key}" if key >= 0 else f"m{-key}"
    return f"k{index}"


def _sets(column: Iterable[Value]) -> tuple[int, frozenset[Value]] | None:
    """(0, D) when every value is a set, (1, D) when every value is a function of sets: D the
    union of the sets (non-empty)."""
    values = list(set(column))
    if all(isinstance(v, frozenset) for v in values):
        union = frozenset().union(*values)  # type: ignore[arg-type]
        return (0, union) if union else None
    if all(isinstance(v, Fn) and v.items and all(isinstance(x, frozenset) for x in v.values())
           for v in values):
        union = frozenset().union(*(x for v in values for x in v.values()))  # type: ignore[union-attr, arg-type]
        return (1, union) if union else None
    return None


def _characteristic(value: Value, level: int, domain: frozenset[Value]) -> Value:
    if level == 1:
        return Fn((k, _characteristic(v, 0, domain)) for k, v in value.items)  # type: ignore[union-attr]
    return Fn((d, Bool(d in value)) for d in domain)  # type: ignore[operator]


# --- candidates --------------------------------------------------------------------------

def _sorts(graph: StateGraph, mv_names: dict[Value, Value]) -> list[frozenset[Value]]:
    """Identities: the common domains of function variables, and the model values of each
    set constant (named `AliasM_<Set>_k`)."""
    found = [d for d in index_sets(graph) if len(d) > 1
             and len({type(k) for k in d}) == 1 and not isinstance(next(iter(d)), (Fn, Bool))]
    groups: dict[str, set[Value]] = {}
    for value, name in mv_names.items():
        if (hit := _SET_CONST.match(str(name))):
            groups.setdefault(hit.group(1), set()).add(value)
    found += [frozenset(g) for g in groups.values() if len(g) > 1]
    return list(dict.fromkeys(found))


def candidates(graph: StateGraph, mv_names: dict[Value, Value]) -> list[Candidate]:
    """The steps that apply to `graph`, in a fixed order."""
    out: list[Candidate] = []
    for ids in _sorts(graph, mv_names):
        domain = tuple(sorted(ids, key=sort_key))
        label = "{" + ", ".join(map(to_tla, domain)) + "}"
        out.append(Candidate("permute_ids", -1, domain, label))
        if index_range(ids) is not None:
            out.append(Candidate("reindex", -1, domain, label))
    keys = _keys(graph)
    for i, var in enumerate(graph.variables):
        column = graph.column(var)
        values = set(column)
        strings = {a for v in values for a in _value_atoms(v) if isinstance(a, str)} - keys
        if strings:
            out.append(Candidate("rename_values", i, tuple(sorted(strings)), var))
        common = _common_domain(values)
        if common and not all(is_field_name(k) for k in common) and all(
                isinstance(k, (int, ModelValue)) and not isinstance(k, Bool) for k in common):
            fields = {_field(k, n) for n, k in enumerate(sorted(common, key=sort_key))}
            if len(fields) == len(common):
                out.append(Candidate("fn_as_record", i, (), var))
        if common and all(is_field_name(k) for k in common) and len(common) > 1:
            out.append(Candidate("split_record", i, (), var))
        if _sets(values) is not None:
            out.append(Candidate("char_function", i, (), var))
        if any(isinstance(a, Bool) for v in values for a in _value_atoms(v)):
            out.append(Candidate("complement", i, (), var))
    return out


# --- layers ------------------------------------------------------------------------------

def _table(name: str, pairs: list[tuple[Value, Value]], mv_names: dict[Value, Value]) -> str:
    """`name` as a function from each new value to the old (an entry a line)."""
    keys = [to_tla(translate(new, mv_names)) for new, _ in pairs]
    arms = [f"AliasK = {k} -> {to_tla(translate(old, mv_names))}"
            for k, (_, old) in zip(keys, pairs, strict=True)]
    return (f"{name} == [AliasK \\in {{\n    " + ",\n    ".join(keys) + "} |-> CASE\n    "
            + "\n    [] ".join(arms) + "]")


def _value_map(graph: StateGraph, taken: set[str], mv_names: dict[Value, Value],
               change: dict[int, Callable[[Value], Value]], suffix: str, rename: bool
               ) -> Layer | str:
    """Each variable `i` of `change` through its (injective) function, read back by a table."""
    names, decode, defs = list(graph.variables), [], []
    maps: dict[int, dict[Value, Value]] = {}
    for i, var in enumerate(graph.variables):
        if i not in change:
            decode.append(f"§{var}§")
            continue
        values = sorted(set(graph.column(var)), key=sort_key)
        moved = {v: change[i](v) for v in values}
        if len(set(moved.values())) != len(moved):
            return f"not injective on {var}"
        if all(k == v for k, v in moved.items()):
            decode.append(f"§{var}§")
            continue
        if len(moved) > MAX_TABLE:
            return f"{var} takes more than {MAX_TABLE} values"
        maps[i] = moved
        names[i] = fresh(var + suffix, taken) if rename else var
        table = fresh(f"AliasL_{names[i]}", taken)
        defs.append(_table(table, [(moved[v], v) for v in values], mv_names))
        decode.append(f"{table}[§{names[i]}§]")
    if not maps:
        return "changes nothing"

    def encode(s: tuple[Value, ...]) -> tuple[Value, ...]:
        return tuple(maps[i][x] if i in maps else x for i, x in enumerate(s))

    return _layer(graph, tuple(names), tuple(decode), encode, tuple(defs))


def _layer(graph: StateGraph, names: tuple[str, ...], decode: tuple[str, ...],
           encode: Callable[[tuple[Value, ...]], tuple[Value, ...]],
           defs: tuple[str, ...] = ()) -> Layer:
    states = [encode(s) for s in graph.states]
    return Layer(StateGraph(names, states, list(graph.initial), list(graph.edges),
                            dict(graph.actions), list(graph.terminal)), decode, encode, defs)


def _split(graph: StateGraph, taken: set[str], i: int) -> Layer | str:
    var = graph.variables[i]
    domain = _common_domain(graph.column(var))
    if not domain or not all(is_field_name(k) for k in domain):
        return f"{var} is not a record in every state"
    fields = sorted(domain, key=sort_key)
    parts = [fresh(f"{var}_{f}", taken) for f in fields]
    names = (*graph.variables[:i], *parts, *graph.variables[i + 1:])
    decode = tuple(f"§{v}§" for v in graph.variables)
    record = "[" + ", ".join(f"{f} |-> §{p}§" for f, p in zip(fields, parts, strict=True)) + "]"
    decode = (*decode[:i], record, *decode[i + 1:])

    def encode(s: tuple[Value, ...]) -> tuple[Value, ...]:
        rec = s[i]
        return (*s[:i], *(rec[f] for f in fields), *s[i + 1:])  # type: ignore[index]

    return _layer(graph, names, decode, encode)


def apply_step(step: Step, graph: StateGraph, taken: set[str],
               mv_names: dict[Value, Value]) -> Layer | str:
    """The step on `graph` (the next graph and how to read the previous one back), or why it
    does not apply there."""
    if step.kind != "split_record" and step.target >= len(graph.variables):
        return f"no variable {step.target}"
    var = graph.variables[step.target] if step.target >= 0 else ""
    suffix = _SUFFIX.get(step.kind, "")
    if step.kind in ("permute_ids", "reindex"):
        ids, table = frozenset(step.domain), step.table()
        if is_number(step.domain[0]):
            places = _id_places((graph.column(v) for v in graph.variables), ids)
            change: dict[int, Callable[[Value], Value]] = {
                i: (lambda x, i=i: _renumber(x, (i,), ids, table, places))  # type: ignore[misc]
                for i in range(len(graph.variables))}
        else:
            change = {i: (lambda x: translate(x, table)) for i in range(len(graph.variables))}
        return _value_map(graph, taken, mv_names, change, suffix, step.rename)
    if step.kind == "rename_values":
        table = step.table()
        if set(table.values()) & (_keys(graph) | {a for s in graph.states for v in s
                                                  for a in _value_atoms(v)}) - set(table):
            return "a new string is already a value"
        change = {i: (lambda x: _values_only(x, table)) for i in range(len(graph.variables))}
        return _value_map(graph, taken, mv_names, change, suffix, step.rename)
    if step.kind == "fn_as_record":
        domain = _common_domain(graph.column(var))
        if not domain:
            return f"{var} is not a function of one domain"
        fields = {k: _field(k, n) for n, k in enumerate(sorted(domain, key=sort_key))}
        return _value_map(graph, taken, mv_names,
                          {step.target: lambda x: Fn((fields[k], v) for k, v in x.items)},  # type: ignore[union-attr]
                          suffix, step.rename)
    if step.kind == "split_record":
        return _split(graph, taken, step.target)
    if step.kind == "char_function":
        sets = _sets(graph.column(var))
        if sets is None:
            return f"{var} holds no sets in some state"
        level, domain = sets
        return _value_map(graph, taken, mv_names,
                          {step.target: lambda x: _characteristic(x, level, domain)},
                          suffix, step.rename)
    if step.kind == "complement":
        return _value_map(graph, taken, mv_names, {step.target: _complement}, suffix,
                          step.rename)
    raise ValueError(f"unknown step kind {step.kind}")


def _fill(template: str, inner: dict[str, str]) -> str:
    """A hole is a whole substitution or sits between brackets: no parentheses are needed
    (the registered rules' expressions bring their own)."""
    return _HOLE.sub(lambda m: inner[m.group(1)], template)


def plan_layout(plan: Plan) -> LayoutMaker:
    """The plan as a layout maker: its steps in order on the graph given, then its rule."""
    def layout(graph: StateGraph, taken: set[str], mv_names: dict[Value, Value]
               ) -> Layout | str:
        layers: list[Layer] = []
        current = graph
        for n, step in enumerate(plan.steps, 1):
            made = apply_step(step, current, taken, mv_names)
            if isinstance(made, str):
                return f"skipped: step {n} ({step.kind}) does not apply: {made}"
            layers.append(made)
            current = made.graph
        exprs = [f"§{v}§" for v in graph.variables]
        for layer in layers:
            by_name = dict(zip(_previous(layer, layers, graph).variables, layer.decode,
                               strict=True))
            exprs = [_fill(e, by_name) for e in exprs]
        last = Layout(current.variables, tuple((v, v) for v in current.variables), lambda s: s)
        if plan.final:
            ruled = RULES[plan.final].layout(current, taken, mv_names)
            if isinstance(ruled, str):
                return f"{ruled} (rule {plan.final} after the steps)"
            last = ruled
        subs = dict(last.subs)
        final_exprs = [_fill(e, subs) for e in exprs]
        encodes = [layer.encode for layer in layers] + [last.encode]

        def encode(state: tuple[Value, ...]) -> tuple[Value, ...]:
            for f in encodes:
                state = f(state)
            return state

        return Layout(last.variables, tuple(zip(graph.variables, final_exprs, strict=True)),
                      encode, tuple(d for layer in layers for d in layer.definitions)
                      + last.definitions, last.counter)

    return layout


def _previous(layer: Layer, layers: list[Layer], first: StateGraph) -> StateGraph:
    k = layers.index(layer)
    return first if k == 0 else layers[k - 1].graph
