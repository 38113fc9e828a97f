"""What a refinement mapping is built from: pieces of the output's state, and of the reference's.

A `Feature` is a state function of the output G (a variable, a record field, tuple component
or function application of one, or a pointwise projection `[i \\in DOMAIN v |-> v[i].f]`),
with its value in every state of G's graph. A `Part` is a piece of the reference R's state
that the mapping must produce: a whole variable, or (when no feature fits it whole) its fields
or components, or its pointwise projections, each a `Part` of its own; a variable is rebuilt
from its parts.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from tlc_harness.behavior.graphs import StateGraph
from tlc_harness.behavior.values import (
    FALSE,
    TRUE,
    Fn,
    ModelValue,
    Value,
    is_field_name,
    kind_of,
    sort_key,
    to_tla,
)

MAX_KEYS = 16       # fields or components a decomposition may have
MAX_DEPTH = 2       # nesting of components
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
MISMATCH = ModelValue("AliasMismatch")  # a rebuilt value no reference state holds


@dataclass(frozen=True)
class Feature:
    """A state function of G: its TLA+ text, its value per G state, the variables it reads."""

    expr: str
    column: Sequence[Value]
    uses: frozenset[str]
    depth: int = 0
    #: the function applications it is made of, outermost first: (function text, key, keys)
    within: tuple[tuple[str, Value, int], ...] = ()
    #: the grader's model values its text names (`AliasNone`, `AliasFlag`)
    model_values: frozenset[str] = frozenset()

    def values(self) -> frozenset[Value]:
        return frozenset(self.column)


def apply_text(expr: str, key: Value) -> str:
    """`expr.key` for an identifier-like string key, else `expr[key]`."""
    if is_field_name(key):
        return f"{expr}.{key}"
    return f"{expr}[{to_tla(key)}]"


def _common_domain(column: Sequence[Value]) -> frozenset[Value] | None:
    """The one domain of every value when all are functions with the same domain."""
    first = column[0] if column else None
    if not isinstance(first, Fn):
        return None
    domain = first.domain()
    for value in column:
        if not isinstance(value, Fn) or len(value) != len(domain) or value.domain() != domain:
            return None
    return domain


def index_sets(graph: StateGraph) -> list[frozenset[Value]]:
    """The common domain of each variable whose every value is a function of one domain (the
    processes `pc` and `interested` are indexed by)."""
    found = []
    for var in graph.variables:
        domain = _common_domain(graph.column(var))
        if domain and domain not in found:
            found.append(domain)
    return found


def _inner_fields(column: Sequence[Value]) -> frozenset[Value] | None:
    """The fields shared by every value of every function in the column (pointwise records)."""
    inner: list[Value] = []
    for value in column:
        if not isinstance(value, Fn):
            return None
        inner.extend(value.values())
    return _common_domain(inner) if inner else None


def _column_at(column: Sequence[Value], key: Value) -> list[Value]:
    """`v[key]` for every (function) value of the column."""
    return [v[key] for v in column if isinstance(v, Fn)]


def _pointwise(column: Sequence[Value], key: Value) -> list[Value]:
    return [Fn((i, x[key]) for i, x in v.items)  # type: ignore[union-attr, index]
            for v in column]


def output_features(graph: StateGraph) -> list[Feature]:
    """Every feature of G up to `MAX_DEPTH`, variables first, then the components of optional
    tuples and the values with a flag folded in."""
    found: list[Feature] = []
    columns = {var: [s[k] for s in graph.states] for k, var in enumerate(graph.variables)}
    for var, column in columns.items():
        found.append(Feature(var, column, frozenset([var])))
        found.extend(_components(var, column, frozenset([var]), 1))
    for var, column in columns.items():
        found.extend(_options(var, column))
        found.extend(_aggregates(var, column))
    found.extend(_flagged(columns))
    return found


MAX_MEMBERS = 8     # atoms a set variable may hold for a flag per atom
MAX_LENGTH = 64     # a sequence's length counted by `Len`


def _is_sequence(value: Value) -> bool:
    return isinstance(value, Fn) and value.domain() == frozenset(range(1, len(value) + 1))


def _aggregates(var: str, column: Sequence[Value]) -> list[Feature]:
    """What a set or a sequence holds as the reference's simpler values: the length of a
    sequence of tokens (a count kept as that many tokens: `Len(coins)`, written without
    module `Sequences`), and for a set of atoms one boolean per atom it may hold (several
    flags kept as the set of those that hold: `("locked" \\in flags)`)."""
    found: list[Feature] = []
    if all(_is_sequence(v) for v in column):
        lengths = [len(v) for v in column]  # type: ignore[arg-type]
        if len(set(lengths)) > 1 and max(lengths) <= MAX_LENGTH:
            found.append(Feature(f"(CHOOSE AliasN \\in 0..{max(lengths)} : DOMAIN {var} = "
                                 f"1..AliasN)", lengths, frozenset([var]), 1))
    if all(isinstance(v, frozenset) for v in column):
        members = {a for v in column for a in v}  # type: ignore[union-attr]
        if 0 < len(members) <= MAX_MEMBERS and all(
                isinstance(a, (str, ModelValue)) for a in members):
            for atom in sorted(members, key=sort_key):
                found.append(Feature(f"({to_tla(atom)} \\in {var})",
                                     [TRUE if atom in v else FALSE for v in column],  # type: ignore[operator]
                                     frozenset([var]), 1))
    return found


NONE = ModelValue("AliasNone")  # an optional tuple's component where the tuple is empty
FLAG = ModelValue("AliasFlag")  # a value whose flag is set


def _options(var: str, column: Sequence[Value]) -> list[Feature]:
    """`IF v = <<>> THEN AliasNone ELSE v[k]` for a variable that is either empty or a tuple
    of one shape (`<<>>` for no one waiting, `<<c, col>>` for creature c waiting)."""
    if not all(isinstance(v, Fn) for v in column):
        return []
    full = [v for v in column if len(v)]  # type: ignore[arg-type]
    domain = _common_domain(full) if full and len(full) < len(column) else None
    if domain is None or len(domain) > MAX_KEYS:
        return []
    return [Feature(f"(IF {var} = <<>> THEN AliasNone ELSE {apply_text(var, key)})",
                    [v[key] if len(v) else NONE for v in column],  # type: ignore[index, arg-type]
                    frozenset([var]), 1, model_values=frozenset({NONE.name}))
            for key in sorted(domain, key=sort_key)]


def _is_flag(value: Value) -> bool:
    return value in (TRUE, FALSE)  # TLA+ booleans (never the numbers 0 and 1)


def _flagged(columns: dict[str, list[Value]]) -> list[Feature]:
    """A value with a flag folded in: `IF b THEN AliasFlag ELSE v` for a BOOLEAN variable b
    and another variable v, or pointwise, `[i \\in DOMAIN v |-> IF b[i] THEN AliasFlag ELSE
    v[i]]`, for functions of one domain in every state (a reference that paints a faded
    creature `Faded` where the output keeps its color and a flag `faded`); either polarity."""
    found: list[Feature] = []
    for b, flags in columns.items():
        pointwise = all(isinstance(x, Fn) and len(x) and all(_is_flag(y) for y in x.values())
                        for x in flags)
        if not pointwise and not all(_is_flag(x) for x in flags):
            continue
        for v, column in columns.items():
            if v == b or not _flaggable(column, flags, pointwise):
                continue
            for set_when in (TRUE, FALSE):
                neg = "" if set_when == TRUE else "~"
                values: list[Value]
                if pointwise:
                    text = (f"[AliasI \\in DOMAIN {v} |-> IF {neg}{b}[AliasI] THEN AliasFlag "
                            f"ELSE {v}[AliasI]]")
                    values = _pointwise_flagged(column, flags, set_when)
                else:
                    text = f"(IF {neg}{b} THEN AliasFlag ELSE {v})"
                    values = [FLAG if f == set_when else x
                              for x, f in zip(column, flags, strict=True)]
                found.append(Feature(text, values, frozenset([b, v]), 1,
                                     model_values=frozenset({FLAG.name})))
    return found


def _flaggable(column: Sequence[Value], flags: Sequence[Value], pointwise: bool) -> bool:
    """Whether `column` holds plain values (pointwise: functions of the flags' domain in each
    state) that are not flags themselves."""
    if pointwise:
        return all(isinstance(x, Fn) and isinstance(f, Fn) and x.domain() == f.domain()
                   and not any(isinstance(y, Fn | frozenset) or _is_flag(y) for y in x.values())
                   for x, f in zip(column, flags, strict=True))
    return not any(isinstance(x, Fn | frozenset) or _is_flag(x) for x in column)


def _components(expr: str, column: Sequence[Value], uses: frozenset[str],
                depth: int, within: tuple[tuple[str, Value, int], ...] = ()) -> list[Feature]:
    if depth > MAX_DEPTH:
        return []
    found: list[Feature] = []
    domain = _common_domain(column)
    if domain is not None and len(domain) <= MAX_KEYS:
        for key in sorted(domain, key=sort_key):
            sub = [v[key] for v in column]  # type: ignore[index]
            text = apply_text(expr, key)
            inner = (*within, (expr, key, len(domain)))
            found.append(Feature(text, sub, uses, depth, inner))
            found.extend(_components(text, sub, uses, depth + 1, inner))
    fields = _inner_fields(column)
    if fields is not None and len(fields) <= MAX_KEYS:
        for key in sorted(fields, key=sort_key):
            text = f"[AliasI \\in DOMAIN {expr} |-> {apply_text(f'{expr}[AliasI]', key)}]"
            found.append(Feature(text, _pointwise(column, key), uses, depth, within))
    return found


def hides_identities(used: Sequence[Feature]) -> str | None:
    """A function of G indexed by identities (numbers, model values: processes, nodes) that the
    features read only in part, as text (None: there is none).

    Hiding a whole variable of G is allowed; hiding some of its processes is not: an output
    with one more process than the reference, the extra one out of sight, would pass."""
    whole = {f.expr for f in used}
    read: dict[str, set[Value]] = {}
    size: dict[str, int] = {}
    for feat in used:
        for outer, key, count in feat.within:
            if is_field_name(key):
                continue
            read.setdefault(outer, set()).add(key)
            size[outer] = count
    for outer, keys in read.items():
        covered = outer in whole or any(o in whole for o, _, _ in _chain(used, outer))
        if len(keys) < size[outer] and not covered:
            return outer
    return None


def _chain(used: Sequence[Feature], outer: str) -> tuple[tuple[str, Value, int], ...]:
    """The applications that `outer` itself is made of."""
    for feat in used:
        for i, (o, _, _) in enumerate(feat.within):
            if o == outer:
                return feat.within[:i]
    return ()


@dataclass
class Part:
    """A piece of R's state: `kind` leaf, fields (a record, tuple or function on a fixed
    domain, rebuilt from one part per key) or pointwise (a function of records, rebuilt from
    one pointwise projection per field)."""

    path: str
    column: Sequence[Value]
    kind: str = "leaf"
    keys: tuple[Value, ...] = ()
    parts: list[Part] = field(default_factory=list)
    level: int = 0       # nesting, for distinct bound names in the rebuilt text

    def split(self, depth: int) -> list[Part]:
        """The ways to rebuild this part from smaller ones (fields first, then pointwise)."""
        if depth > MAX_DEPTH:
            return []
        ways: list[Part] = []
        domain = _common_domain(self.column)
        if domain is not None and 1 < len(domain) <= MAX_KEYS:
            keys = tuple(sorted(domain, key=sort_key))
            ways.append(Part(self.path, self.column, "fields", keys,
                             [Part(apply_text(self.path, k), _column_at(self.column, k),
                                   level=self.level + 1) for k in keys], self.level))
        fields = _inner_fields(self.column)
        if fields is not None and 1 < len(fields) <= MAX_KEYS:
            keys = tuple(sorted(fields, key=sort_key))
            ways.append(Part(self.path, self.column, "pointwise", keys,
                             [Part(f"{self.path}[*].{k}", _pointwise(self.column, k),
                                   level=self.level + 1) for k in keys], self.level))
        return ways

    def rebuild(self, columns: list[Sequence[Value]]) -> list[Value]:
        """This part's value per state, from its parts' values per state."""
        made: dict[tuple[Value, ...], Value] = {}  # a graph's states repeat their rows
        out: list[Value] = []
        for row in zip(*columns, strict=True):
            if row not in made:
                made[row] = self._rebuilt(row)
            out.append(made[row])
        return out

    def _rebuilt(self, row: tuple[Value, ...]) -> Value:
        """One state's value of this part, from its parts' values."""
        if self.kind == "fields":
            return Fn(zip(self.keys, row, strict=True))
        fns = [c for c in row if isinstance(c, Fn)]
        domain = fns[0].domain() if fns else frozenset()
        if len(fns) != len(row) or any(c.domain() != domain for c in fns):
            return MISMATCH
        return Fn((i, Fn((k, c[i]) for k, c in zip(self.keys, fns, strict=True)))
                  for i in domain)

    def rebuild_text(self, texts: list[str]) -> str:
        if self.kind == "fields":
            return _composite(self.keys, texts, f"AliasW{self.level}")
        var = f"AliasP{self.level}"
        inner = _composite(self.keys, [f"({t})[{var}]" for t in texts], f"AliasW{self.level}")
        return f"[{var} \\in DOMAIN ({texts[0]}) |-> {inner}]"


def _composite(keys: tuple[Value, ...], texts: list[str], var: str) -> str:
    """The value with these keys and these texts: a record, a tuple, or a function."""
    if all(is_field_name(k) for k in keys):
        return "[" + ", ".join(f"{k} |-> {t}" for k, t in zip(keys, texts, strict=True)) + "]"
    if keys == tuple(range(1, len(keys) + 1)):
        return "<<" + ", ".join(texts) + ">>"
    domain = "{" + ", ".join(to_tla(k, 1) for k in keys) + "}"
    cases = " [] ".join(f"{var} = {to_tla(k, 1)} -> {t}" for k, t in zip(keys, texts, strict=True))
    return f"[{var} \\in {domain} |-> CASE {cases}]"


def _pointwise_flagged(column: Sequence[Value], flags: Sequence[Value],
                       set_when: Value) -> list[Value]:
    """Each state's function with `AliasFlag` where its flag function says `set_when`
    (built once per distinct pair: a graph's states repeat them)."""
    made: dict[tuple[Value, Value], Value] = {}
    values: list[Value] = []
    for val, f in zip(column, flags, strict=True):
        key = (val, f)
        if key not in made:
            made[key] = Fn((i, FLAG if f[i] == set_when else x)  # type: ignore[index]
                           for i, x in val.items)  # type: ignore[union-attr]
        values.append(made[key])
    return values


def signature(values: frozenset[Value] | Sequence[Value]) -> str:
    """A coarse type of a set of values, for telling which pieces could ever correspond."""
    kinds = sorted({_sig(v) for v in set(values)})  # a graph's column repeats its values
    return "|".join(kinds)


def _sig(value: Value) -> str:
    kind = kind_of(value)
    if kind in ("str", "model", "bool"):
        return "atom"
    if kind == "set":
        inner = sorted({_sig(v) for v in value})  # type: ignore[union-attr]
        return "set(" + "|".join(inner) + ")"
    if kind == "fn":
        assert isinstance(value, Fn)
        return "fn(" + "|".join(sorted({_sig(v) for v in value.values()})) + ")"
    return kind
