"""The registry of representation rules: the ways an output may lay out the reference's state
that the behavior grade undoes, each with the controls that prove it.

A rule is one `RepresentationRule`: its name, when it applies, how it converts (`layout`: the
reference's reachable states rewritten into that representation; `representations` turns a
layout into a spec that behaves exactly like the reference, the rule's positive control, and
the same layout of a behavior mutant is its negative control), where in the grade the
conversion is undone (`undone_by`), and the built-in tasks its controls run on in CI
(`control_tasks`). The control tests (`benchmarks/test_representation_controls.py`) are
generated from `RULES`; `alias-bench rules` lists them. A new rule is one more entry here with
its layout function (and, where the grammar lacks it, the piece of `inference` that undoes it).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from tlc_harness.behavior.features import index_sets
from tlc_harness.behavior.graphs import StateGraph
from tlc_harness.behavior.translation import index_range
from tlc_harness.behavior.values import (
    FALSE,
    TRUE,
    Bool,
    Fn,
    ModelValue,
    Value,
    atoms,
    is_number,
    sort_key,
    to_tla,
    translate,
)

MAX_TABLE = 300  # entries of a derived variable's lookup table


@dataclass(frozen=True)
class Layout:
    """A representation of R's state: the output's variables, R's variables as expressions over
    them, and the encoding of one R state into the output's values."""

    variables: tuple[str, ...]            # G's variables that take AliasStates' values
    subs: tuple[tuple[str, str], ...]     # R's variable <- expression over G's state
    encode: Callable[[tuple[Value, ...]], tuple[Value, ...]]
    definitions: tuple[str, ...] = ()
    counter: str | None = None            # history: a step counter modulo 2


#: a layout of R's graph given the names taken and how the variant names R's model values;
#: a string says why this R has no such layout
LayoutMaker = Callable[[StateGraph, set[str], dict[Value, Value]], "Layout | str"]


@dataclass(frozen=True)
class RepresentationRule:
    """One representation the grade undoes, and how its controls are made."""

    name: str
    applies: str                  #: when the rule applies, in words
    converts: str                 #: what the representation is, in words
    layout: LayoutMaker           #: the conversion, on R's reachable states
    undone_by: tuple[str, ...]    #: `module.name` of the grade's pieces that undo it
    control_tasks: tuple[str, ...]  #: built-in tasks whose reference has this layout (CI)

    def __post_init__(self) -> None:
        if not self.control_tasks:
            raise ValueError(f"the rule {self.name} has no control task")
        if not self.undone_by:
            raise ValueError(f"the rule {self.name} names nothing in the grade that undoes it")


def fresh(base: str, taken: set[str]) -> str:
    """`base`, or `base_`, `base__`, ... not in `taken` (and taken from now on)."""
    while base in taken:
        base += "_"
    taken.add(base)
    return base


def _record(graph: StateGraph, taken: set[str], mv_names: dict[Value, Value]) -> Layout:
    names = graph.variables
    st = fresh("st", taken)
    return Layout((st,), tuple((v, f"{st}.{v}") for v in names),
                  lambda s: (Fn(zip(names, s, strict=True)),))


def _history(graph: StateGraph, taken: set[str], mv_names: dict[Value, Value]) -> Layout:
    names = graph.variables
    return Layout(names, tuple((v, v) for v in names), lambda s: s,
                  counter=fresh("aliasSteps", taken))


def _derived(graph: StateGraph, taken: set[str], mv_names: dict[Value, Value]) -> Layout | str:
    """R without a variable that is a function of the others, read from a table."""
    names = graph.variables
    if len(names) < 2:
        return "skipped: the reference has one variable"
    if len(graph) > MAX_TABLE:
        return f"skipped: a table of {len(graph)} entries (more than {MAX_TABLE})"
    found = []
    for d in range(len(names)):
        table: dict[Value, Value] = {}
        if all(table.setdefault(Fn.tuple_of(x for i, x in enumerate(s) if i != d), s[d]) == s[d]
               for s in graph.states):
            found.append((len(set(table.values())) == 1, d, table))
    if not found:
        return "skipped: no variable is a function of the others"
    _, d, table = min(found, key=lambda c: c[:2])  # a variable that varies, first
    others = tuple(v for i, v in enumerate(names) if i != d)
    subs = tuple((v, f"AliasTable[<<{', '.join(others)}>>]" if i == d else v)
                 for i, v in enumerate(names))
    pairs = [(to_tla(translate(k, mv_names)), to_tla(translate(v, mv_names)))
             for k, v in table.items()]
    text = ("AliasTable == [AliasK \\in {\n    " + ",\n    ".join(k for k, _ in pairs)
            + "} |-> CASE\n    " + "\n    [] ".join(f"AliasK = {k} -> {v}" for k, v in pairs)
            + "]")  # an entry a line: tree-sitter parses very long lines slowly
    return Layout(others, subs, lambda s: tuple(x for i, x in enumerate(s) if i != d), (text,))


def _index_shift(graph: StateGraph, taken: set[str], mv_names: dict[Value, Value]
                 ) -> Layout | str:
    """R's processes numbered from the other end: the consecutive integers `lo..hi` that
    index R's functions become `lo+1..hi+1` when R counts from 0, else `lo-1..hi-1`, in every
    variable whose integers are all such indexes (its keys and the processes it holds)."""
    ranges = sorted({r for d in index_sets(graph) if (r := index_range(d)) is not None})
    if not ranges:
        return "skipped: no function of the reference is indexed by consecutive integers"
    low, size = ranges[0]
    step = 1 if low <= 0 else -1
    shift: dict[Value, Value] = {low + i: low + i + step for i in range(size)}
    names, cols = graph.variables, [graph.column(v) for v in graph.variables]
    hit = []
    for col in cols:
        numbers = {a for x in col for a in atoms(x) if is_number(a)}
        hit.append(bool(numbers) and numbers <= shift.keys())
    if any(h and len(set(col)) > MAX_TABLE for col, h in zip(cols, hit, strict=True)):
        return f"skipped: a shifted variable takes more than {MAX_TABLE} values"
    new = tuple(fresh(v + "Idx", taken) if h else v for v, h in zip(names, hit, strict=True))
    subs, defs = [], []
    for v, n, col, h in zip(names, new, cols, hit, strict=True):
        if not h:
            subs.append((v, v))
            continue
        table = fresh(f"AliasIdx_{v}", taken)
        pairs = [(to_tla(translate(translate(x, shift), mv_names)), to_tla(translate(x, mv_names)))
                 for x in sorted(set(col), key=sort_key)]
        defs.append(f"{table} == [AliasK \\in {{\n    " + ",\n    ".join(k for k, _ in pairs)
                    + "} |-> CASE\n    " + "\n    [] ".join(f"AliasK = {k} -> {x}" for k, x in pairs)
                    + "]")
        subs.append((v, f"{table}[{n}]"))
    return Layout(new, tuple(subs),
                  lambda s: tuple(translate(x, shift) if h else x
                                  for x, h in zip(s, hit, strict=True)), tuple(defs))


def _atoms_as(kind: str) -> LayoutMaker:
    """Variables holding only booleans (0/1, "yes"/"no", or the complement) or model values
    (their names)."""
    mv = kind == "model_values_as_strings"

    def layout(graph: StateGraph, taken: set[str], mv_names: dict[Value, Value]
               ) -> Layout | str:
        names, cols = graph.variables, [graph.column(v) for v in graph.variables]
        hit = [all(isinstance(x, ModelValue if mv else Bool) for x in col) for col in cols]
        if not any(hit):
            return f"skipped: no variable holds only {'model values' if mv else 'booleans'}"
        suffix = {"bool_as_01": "Num", "bool_as_strings": "Str",
                  "bool_complement": "Not"}.get(kind, "Name")
        new = tuple(fresh(v + suffix, taken) if h else v for v, h in zip(names, hit, strict=True))
        codes: dict[str, tuple[Value, Value]] = {"bool_as_01": (1, 0),
                                                 "bool_complement": (FALSE, TRUE)}
        true, false = codes.get(kind, ("yes", "no"))
        code: dict[Value, Value] = {TRUE: true, FALSE: false}
        subs = [(v, f"({n} = {to_tla(true)})") for v, n in zip(names, new, strict=True)]
        defs: tuple[str, ...] = ()
        if mv:
            held = sorted({str(x) for col, h in zip(cols, hit, strict=True) if h for x in col})
            if any(ModelValue(m) not in mv_names for m in held):
                return "skipped: a model value that the cfg's constants do not name"
            code = {ModelValue(m): m for m in held}
            arms = " [] ".join(f'AliasS = "{m}" -> {mv_names[ModelValue(m)]}' for m in held)
            defs = (f"AliasMV == [AliasS \\in {{{', '.join(to_tla(m) for m in held)}}} |-> "
                    f"CASE {arms}]",)
            subs = [(v, f"AliasMV[{n}]") for v, n in zip(names, new, strict=True)]
        return Layout(new, tuple(s if h else (v, v)
                                 for s, v, h in zip(subs, names, hit, strict=True)),
                      lambda s: tuple(code[x] if h else x for x, h in zip(s, hit, strict=True)),
                      defs)

    return layout


MAX_COUNT = 8  # a count kept as that many tokens


def _count_as_sequence(graph: StateGraph, taken: set[str], mv_names: dict[Value, Value]
                       ) -> Layout | str:
    """Each variable holding a small count (0..MAX_COUNT) that changes, as a sequence of that
    many tokens (`coins` for R's `credit`)."""
    names, cols = graph.variables, [graph.column(v) for v in graph.variables]
    hit = [all(is_number(x) and 0 <= x <= MAX_COUNT for x in col)
           and len(set(col)) > 1 for col in cols]
    if not any(hit):
        return f"skipped: no variable holds a count of 0..{MAX_COUNT} that changes"
    new = tuple(fresh(v + "Seq", taken) if h else v for v, h in zip(names, hit, strict=True))
    subs = tuple((v, f"(CHOOSE AliasN \\in 0..{MAX_COUNT} : DOMAIN {n} = 1..AliasN)" if h
                  else v) for v, n, h in zip(names, new, hit, strict=True))
    return Layout(new, subs, lambda s: tuple(Fn.tuple_of(["t"] * x) if h else x  # type: ignore[operator]
                                             for x, h in zip(s, hit, strict=True)))


def _flags_as_set(graph: StateGraph, taken: set[str], mv_names: dict[Value, Value]
                  ) -> Layout | str:
    """The variables holding only booleans, kept as one set of the names of those that hold
    (`flags = {"locked"}` for R's `locked = TRUE`)."""
    names, cols = graph.variables, [graph.column(v) for v in graph.variables]
    hit = [all(isinstance(x, Bool) for x in col) for col in cols]
    if not any(hit):
        return "skipped: no variable holds only booleans"
    flags = fresh("flags", taken)
    rest = tuple(v for v, h in zip(names, hit, strict=True) if not h)
    subs = tuple((v, f'("{v}" \\in {flags})' if h else v)
                 for v, h in zip(names, hit, strict=True))

    def encode(s: tuple[Value, ...]) -> tuple[Value, ...]:
        held = frozenset(v for v, x, h in zip(names, s, hit, strict=True) if h and x == TRUE)
        return (held, *(x for x, h in zip(s, hit, strict=True) if not h))

    return Layout((flags, *rest), subs, encode)


RULES: dict[str, RepresentationRule] = {rule.name: rule for rule in (
    RepresentationRule(
        "record", "always",
        "every variable of R is a field of one record variable `st`",
        _record, ("features.output_features", "features.Part"),
        ("bank_transfer", "hour_clock", "peterson_mutex")),
    RepresentationRule(
        "history", "always",
        "an auxiliary variable beside R's (a step counter modulo 2) that R's behaviors ignore",
        _history, ("graph_engine.inference.infer",),
        ("bank_transfer", "hour_clock", "peterson_mutex")),
    RepresentationRule(
        "derived_dropped", "R has a variable that is a function of its others (a table of at "
        f"most {MAX_TABLE} states)",
        "that variable is left out; the output's state determines it",
        _derived, ("graph_engine.inference.infer",),
        ("lock_server",)),
    RepresentationRule(
        "index_shift", "R has functions indexed by consecutive integers (processes `0..N-1` "
        "or `1..N`)",
        "the same processes numbered from 1 instead of 0 (or from 0 instead of 1): functions "
        "re-indexed, and every variable holding processes shifted with them",
        _index_shift, ("translation.index_shifts", "translation.exact_tables"),
        ("peterson_mutex", "ring_election")),
    RepresentationRule(
        "bool_as_01", "R has a variable holding only booleans",
        "FALSE/TRUE written as 0/1", _atoms_as("bool_as_01"),
        ("translation.exact_tables",), ("hour_clock",)),
    RepresentationRule(
        "bool_as_strings", "R has a variable holding only booleans",
        'FALSE/TRUE written as the strings "no"/"yes"', _atoms_as("bool_as_strings"),
        ("translation.exact_tables",), ("hour_clock",)),
    RepresentationRule(
        "bool_complement", "R has a variable holding only booleans",
        "the boolean's complement (`open` for R's `locked`, `open = ~locked` in every state)",
        _atoms_as("bool_complement"), ("translation.boolean_polarities",), ("hour_clock",)),
    RepresentationRule(
        "count_as_sequence", f"R has a variable holding a count of 0..{MAX_COUNT} that changes",
        "the count kept as a sequence of that many tokens (its length is R's count)",
        _count_as_sequence, ("features.output_features",),
        ("vending_machine",)),
    RepresentationRule(
        "flags_as_set", "R has variables holding only booleans",
        "the booleans kept as one set of the names of those that hold",
        _flags_as_set, ("features.output_features",), ("hour_clock",)),
    RepresentationRule(
        "model_values_as_strings", "R has a variable holding only model values that its cfg's "
        "constants name",
        "each model value written as a string of its name", _atoms_as("model_values_as_strings"),
        ("translation.exact_tables",), ("lock_server",)),
)}
