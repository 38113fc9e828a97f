"""Which variables and constants a spec has, and candidate mappings between two specs.

A mapping sends every variable of the reference R to a distinct variable of the output G (a
bijection) and every constant of G to a distinct constant of R (R's other constants keep the
values of R's cfg). Identical names come first; the rest are ordered by name similarity and
filtered by cheap facts, so a small budget (60 by default) is spent on plausible mappings.
"""

from __future__ import annotations

import difflib
import functools
import itertools
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from tlc_harness.behavior.options import DEFAULT_LIMIT
from tlc_harness.source.identifiers import analyze_task, module_of_file


@dataclass(frozen=True)
class SpecShape:
    """The state variables and constants a module declares (with those it EXTENDS)."""

    module: str
    variables: tuple[str, ...]
    constants: tuple[str, ...]
    definitions: frozenset[str]
    types: Mapping[str, str] = field(default_factory=dict)  # rough value type per name
    #: constants used only as symbols (see `symbol_constants`)
    symbols: frozenset[str] = frozenset()
    #: each constant's first role by its uses (see `constant_roles`)
    roles: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Candidate:
    """Reference variable -> output variable (or a TLA+ expression over the output's state),
    output constant -> reference constant; `definitions` the wrapper needs for the
    expressions (value tables); `labels`: map PlusCal label strings by the label search."""

    variables: Mapping[str, str]
    constants: Mapping[str, str] = field(default_factory=dict)
    definitions: tuple[str, ...] = ()
    labels: bool = True
    model_values: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"variables": dict(self.variables),
                                "constants": dict(self.constants)}
        if self.definitions or not self.labels:
            data.update(definitions=list(self.definitions), inferred=not self.labels,
                        model_values=list(self.model_values))
        return data

    def describe(self) -> str:
        parts = [f"{r}->{g}" for r, g in self.variables.items() if r != g]
        parts += [f"{r}->{g}" for g, r in self.constants.items() if r != g]
        return ", ".join(parts) or "identity"


def spec_shape(files: Mapping[str, str], main: str,
               constant_values: Mapping[str, str] | None = None) -> SpecShape:
    """Variables and constants of `main` and the task modules it EXTENDS, in declaration order."""
    analyzed = analyze_task(files)
    by_module = {info.module or module_of_file(f): info for f, info in analyzed.items()}
    variables: list[str] = []
    constants: list[str] = []
    definitions: set[str] = set()
    seen: set[str] = set()
    todo = [main]
    while todo:
        name = todo.pop(0)
        if name in seen or name not in by_module:
            continue
        seen.add(name)
        info = by_module[name]
        decls = sorted((o.start, o.name, o.kind) for o in info.occurrences
                       if o.is_definition and o.kind in ("variable", "constant"))
        for _, ident, kind in decls:
            target = variables if kind == "variable" else constants
            if ident not in target and info.exports.get(ident) == kind:
                target.append(ident)
        definitions.update(info.exports)
        todo.extend(info.extends)
    types = infer_types(files, variables, constants, constant_values)
    symbols = symbol_constants(files, [c for c in constants if types.get(c) in ("any", "atom")])
    return SpecShape(main, tuple(variables), tuple(constants), frozenset(definitions), types,
                     symbols, constant_roles(files, constants))


def value_type(expr: str) -> str:
    """A rough type of a TLA+ value expression: int, bool, str, seq, set, fn, rec or any."""
    e = expr.strip()
    if re.fullmatch(r"\(?-?\d+\)?\s*\.\.\s*\S.*", e, re.S):  # a range: `1..3`, `0 .. (3)-1`
        return "set"
    if re.match(r"-?\d", e) or re.match(r"(Nat|Int)\b", e):
        return "int"
    if re.match(r"(TRUE|FALSE|BOOLEAN)\b", e):
        return "bool"
    if e.startswith('"'):
        return "str"
    if e.startswith("<<"):
        return "seq"
    if e.startswith("{"):
        return "set"
    if re.match(r"\[\s*\w+\s*\\in\b", e) or re.match(r"\[[^\]]*->", e):
        return "fn"
    if re.match(r"\[\s*\w+\s*\|->", e):
        return "rec"
    return "any"


def _member_type(expr: str) -> str:
    """The type of an element of the set written `expr` (for `x \\in expr`)."""
    e = expr.strip()
    if re.match(r"-?\d+\s*\.\.", e) or re.match(r"(Nat|Int)\b", e):
        return "int"
    if e.startswith("BOOLEAN"):
        return "bool"
    if e.startswith("{"):
        return value_type(e[1:])
    if re.match(r"\[[^\]]*->", e):
        return "fn"
    if re.match(r"\[\s*\w+\s*:", e):
        return "rec"
    if re.match(r"Seq\(", e):
        return "seq"
    if re.match(r"SUBSET\b", e):
        return "set"
    return "any"


_SET_USE = (r"\\in\s+{c}\b", r"\\subseteq\s+{c}\b", r"SUBSET\s+{c}\b",
            r"Cardinality\(\s*{c}\s*\)", r"\[\s*{c}\s*->", r"\b{c}\s*\\X\b",
            r"\b{c}\s*\\(cup|cap|union)\b", r"(?<!\|)->\s*{c}\s*\]", r"\\X\s*{c}\b")
_INT_USE = (r"\.\.\s*{c}\b", r"\b{c}\s*\.\.", r"\b{c}\s*\\in\s*(?:Nat|Int)\b",
            r"\b{c}\s*\\in\s*-?\w+\s*\.\.", r"\b{c}\s*(?:[+*%]|-(?![->]))",
            r"(?:[+*%]|(?<!-)-)\s*{c}\b",
            r"(?<![-<])[<>]=?\s*{c}\b", r"=<\s*{c}\b", r"\b{c}\s*(=<|>=|<(?![-<])|>(?!>))")
# (`->`, `|->`, `<-`, `<<` and `>>` are not comparisons)


#: how a constant is used, by role, first role first: the end of a range (`1..N`, a number of
#: things), an operand of arithmetic (`x + Step`), a bound compared with (`x < Max`; after
#: operands, since `x + Step <= Max` compares the sum), a set (`\in Procs`)
_ROLES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("range", (r"\.\.\s*\(?\s*{c}", r"(?<![\w!]){c}\s*(?:[-+]\s*\d+\s*)?\)?\s*\.\.")),
    ("operand", (r"(?<![\w!]){c}\s*(?:[+*%]|-(?![->])|\\div\b)",
                 r"(?:[+*%]|(?<![-<])-|\\div)\s*{c}")),
    ("bound", (r"(?<![-<=])[<>]=?\s*{c}", r"=<\s*{c}",
               r"(?<![\w!]){c}\s*(?:=<|>=|<(?![-<])|>(?!>))")),
    ("set", _SET_USE),
)


def constant_roles(files: Mapping[str, str], constants: Sequence[str]) -> dict[str, str]:
    """Each constant's first role among `_ROLES` by its uses in the modules (comments
    aside); a constant with none of them has no entry."""
    text = _code(files)
    found = {}
    for name in constants:
        c = re.escape(name) + r"\b(?!\s*[\[(!])"  # applied or indexed says nothing
        for role, patterns in _ROLES:
            if any(re.search(p.format(c=c), text) for p in patterns):
                found[name] = role
                break
    return found


def used_alike(sources: Sequence[str], targets: Sequence[str], src_roles: Mapping[str, str],
               tgt_roles: Mapping[str, str], src_types: Mapping[str, str],
               tgt_types: Mapping[str, str]) -> set[tuple[str, str]]:
    """Pairs (source, target) of different names, of one role and compatible types, where
    neither has another counterpart of that role and type on the other side, and neither
    name is on both sides: the output's `Procs` in `1..Procs` is the reference's `N` in
    `1..N` when no other number of either spec ends a range."""
    pairs = {(s, t) for s in sources for t in targets
             if s != t and s not in targets and t not in sources
             and src_roles.get(s) is not None and src_roles.get(s) == tgt_roles.get(t)
             and _fits(src_types.get(s, "any"), tgt_types.get(t, "any"))}
    return {(s, t) for s, t in pairs
            if sum(a == s for a, _ in pairs) == 1 and sum(b == t for _, b in pairs) == 1}


def _constant_type(text: str, name: str) -> str:
    c = re.escape(name) + r"(?!\s*[\[(!])"  # a constant applied or indexed says nothing
    if re.search(rf"(?<![\w!]){c}\s*\\in\s*(BOOLEAN\b|\{{\s*(TRUE|FALSE)\s*,)", text) or \
            re.search(rf"\bIF\s+{c}\s+THEN\b|~\s*{c}\b", text):
        return "bool"
    is_set = any(re.search(p.format(c=c), text) for p in _SET_USE)
    is_int = any(re.search(p.format(c=c), text) for p in _INT_USE)
    if is_set != is_int:
        return "set" if is_set else "int"
    return "any"


def _code(files: Mapping[str, str]) -> str:
    """The modules' text without comments."""
    text = "\n".join(files.values())
    text = re.sub(r"\(\*.*?\*\)", " ", text, flags=re.S)
    return re.sub(r"\\\*[^\n]*", " ", text)


def infer_types(files: Mapping[str, str], variables: list[str], constants: list[str],
                constant_values: Mapping[str, str] | None) -> dict[str, str]:
    """Cheap facts: variables' types from `Init`, constants' from cfg values or their uses (a
    constant assigned to a variable that holds a number is a number: `temp' = MaxTemp`)."""
    text = _code(files)
    init = re.search(r"^Init\s*==(.*?)(?=^\S|\Z)", text, re.M | re.S)
    body = init.group(1) if init else ""
    types: dict[str, str] = {}
    for var in variables:
        hit = re.search(rf"(?<![\w!]){re.escape(var)}\s*(=|\\in)\s*(.{{1,60}})", body, re.S)
        if hit:
            types[var] = value_type(hit.group(2)) if hit.group(1) == "=" else \
                _member_type(hit.group(2))
        else:
            types[var] = "any"
    # numbers by their uses where Init says nothing (`primers = InitPrimers`, `0..primers`):
    # only to type the constants stored in them, not to pair variables
    numeric = {v for v in variables if types[v] == "int"
               or (types[v] == "any" and _constant_type(text, v) == "int")}
    for const in constants:
        if constant_values is not None and const in constant_values:
            value = constant_values[const]
            kind = value_type(value)
            if kind == "any" and re.fullmatch(r"[A-Za-z_]\w*", value.strip()):
                kind = "atom"  # a model value: never a set, function or sequence
            types[const] = kind
        else:
            types[const] = _constant_type(text, const)
        if types[const] == "any":
            stored = re.finditer(rf"(?<![\w!.])(\w+)'?\s*=\s*{re.escape(const)}(?![\w\[(.'])",
                                 text)
            if any(hit.group(1) in numeric for hit in stored):
                types[const] = "int"
    return types


#: what may stand right before a symbol: a comparison, an enumeration or tuple, a record or
#: function value, an IF's branch, a declaration
_SYMBOL_BEFORE = re.compile(r"(?:(?<![=<>])=|#|/=|\{|,|\|->|<<|\bTHEN|\bELSE|\bCONSTANTS?"
                            r"|\bIN)\Z")
#: and right after it
_SYMBOL_AFTER = re.compile(r"\A(?:=(?![=>])|#|/=|\}|,|>>|\)|\]|->|\\in\b|\\notin\b|THEN\b|"
                           r"ELSE\b|/\\|\\/|\[\]|\Z)")
_OPENERS = {")": "(", "]": "[", "}": "{", ">>": "<<"}


def _enclosing(text: str, positions: list[int]) -> list[str]:
    """The innermost bracket left open at each of the sorted `positions` of `text` (`(`, `[`,
    `{`, `<<`), with `f(` for an operator's argument list; empty at the top level."""
    stack: list[str] = []
    found: list[str] = []
    todo = iter(positions)
    pos = next(todo, None)
    for hit in re.finditer(r"<<|>>|[()\[\]{}]", text):
        while pos is not None and pos <= hit.start():
            found.append(stack[-1] if stack else "")
            pos = next(todo, None)
        if pos is None:
            break
        bracket = hit.group(0)
        if bracket in _OPENERS:
            if stack and stack[-1].lstrip("f") == _OPENERS[bracket]:
                stack.pop()
        else:
            applied = bracket == "(" and re.search(r"[\w!]\s*\Z", text[max(0, hit.start() - 80):
                                                                     hit.start()])
            stack.append("f(" if applied else bracket)
    while pos is not None:
        found.append(stack[-1] if stack else "")
        pos = next(todo, None)
    return found


def _enumerated(text: str) -> list[list[str]]:
    """The items of each enumeration `{a, b, ...}` of two or more plain names."""
    found = []
    for hit in re.finditer(r"\{([^{}]*)\}", text):
        items = [x.strip() for x in hit.group(1).split(",")]
        if len(items) > 1 and all(re.fullmatch(r"\w+", x) for x in items):
            found.append(items)
    return found


def _is_symbol(text: str, name: str, enumerations: list[list[str]]) -> bool:
    uses = list(re.finditer(rf"(?<![\w!.]){re.escape(name)}(?![\w'])", text))
    if not uses or not any(name in items for items in enumerations):
        return False  # never listed beside other names in an enumeration `{Yes, No}`
    for hit in uses:
        before = text[max(0, hit.start() - 120):hit.start()].rstrip()  # enough for the tests
        rest = text[hit.end():hit.end() + 120]
        after = rest.lstrip()
        line_end = "\n" in rest[:len(rest) - len(after)] and \
            re.match(r"[A-Za-z=-]", after) is not None  # the expression ends with the line
        if re.search(r"(?:\bASSUME|/\\|\\/)\Z", before):  # a conjunct: `ASSUME Yes # No`
            if not re.match(r"(?:=(?![=>])|#|/=|\\in\b|\\notin\b)", after):
                return False
        elif not _SYMBOL_BEFORE.search(before) or not (line_end or _SYMBOL_AFTER.match(after)):
            return False
        compared = re.search(r'(?:^|[^\w"])(\d+|"[^"\n]*")\s*(?:=|#|/=)\Z', before) or \
            re.match(r'(?:=|#|/=)\s*(\d|")', after)
        if compared:
            return False  # compared with a literal: which literal it may equal matters
    # an operator's argument: what the operator does with it is unknown
    return "f(" not in _enclosing(text, [hit.start() for hit in uses])


def symbol_constants(files: Mapping[str, str], constants: list[str]) -> frozenset[str]:
    """The constants used only as symbols: compared (`=`, `#`, `\\in`) with variables and other
    symbols, listed in enumerations (`{Yes, No}`, at least once), tuples and records, stored,
    never applied, counted, ordered, compared with a literal, given to an operator, or
    used as a set. Any distinct model values give them behaviors that are the same up to
    renaming the values, so a grade under one choice holds for every choice."""
    if not constants:
        return frozenset()
    text = _code(files)
    text = re.sub(r'"[^"\n]*"', '"s"', text)
    enumerations = _enumerated(text)
    return frozenset(c for c in constants if _is_symbol(text, c, enumerations))


@functools.cache
def _similarity(a: str, b: str) -> float:
    return difflib.SequenceMatcher(None, a.lower(), b.lower()).ratio()


#: what a model value (`atom`) can never stand for
_NOT_ATOMS = frozenset({"set", "seq", "fn", "rec"})


def _fits(a: str, b: str) -> bool:
    if "atom" in (a, b):  # a number or a string may stand for a model value, a set may not
        return (b if a == "atom" else a) not in _NOT_ATOMS
    return a == "any" or b == "any" or a == b


def assignments(sources: tuple[str, ...], targets: tuple[str, ...],
                 src_types: Mapping[str, str], tgt_types: Mapping[str, str], *,
                 by_meaning: bool = False,
                 roles: tuple[Mapping[str, str], Mapping[str, str]] | None = None
                 ) -> list[dict[str, str]]:
    """Injective, type-compatible maps sources -> targets; identical names first, then the
    same declaration positions, then name similarity. `by_meaning` (constants): pairs whose
    names say they are the same thing (`named_alike`), or whose uses do (`used_alike`, with
    the two sides' `roles`), come right after identical names, before positions (an
    output's `InitPrimers` is the reference's `PRIMER` wherever each is declared)."""
    alike = named_alike(sources, targets) if by_meaning else set()
    if by_meaning and roles is not None:
        alike |= used_alike(sources, targets, roles[0], roles[1], src_types, tgt_types)
    options = []
    for perm in itertools.islice(itertools.permutations(targets, len(sources)), 50_000):
        if not all(s == t or _fits(src_types.get(s, "any"), tgt_types.get(t, "any"))
                   for s, t in zip(sources, perm, strict=False)):  # a same name always fits
            continue
        same = sum(s == t for s, t in zip(sources, perm, strict=False))
        named = sum((s, t) in alike for s, t in zip(sources, perm, strict=False))
        # declaration order is a strong hint (renamed copies keep it; models often follow it)
        order = sum(sources.index(s) == targets.index(t) for s, t in zip(sources, perm, strict=False))
        score = sum(_similarity(s, t) for s, t in zip(sources, perm, strict=False))
        options.append((-same, -named, -order, -score, perm))
    options.sort()
    return [dict(zip(sources, perm, strict=False)) for *_, perm in options]


#: letters two names must share, one inside the other, to be named alike
MIN_ALIKE = 3


def named_alike(sources: Sequence[str], targets: Sequence[str]) -> set[tuple[str, str]]:
    """Pairs (source, target) of different names of which one holds the other, letters only
    and case aside, at least `MIN_ALIKE` letters long (`InitPrimers` and `PRIMER`,
    `NumNodes` and `Nodes`), where neither is named alike with anything else of the other
    side: the names say the two are the same thing."""
    def key(name: str) -> str:
        return re.sub(r"[^a-z]", "", name.lower())

    def alike(a: str, b: str) -> bool:
        x, y = key(a), key(b)
        return a != b and min(len(x), len(y)) >= MIN_ALIKE and (x in y or y in x)

    names = [t for t in targets if re.fullmatch(r"[A-Za-z_]\w*", t)]  # not `1..N`, a number
    pairs = {(s, t) for s in sources for t in names if alike(s, t)}
    return {(s, t) for s, t in pairs
            if sum(a == s for a, _ in pairs) == 1 and sum(b == t for _, b in pairs) == 1}


def constant_maps(ref: SpecShape, out: SpecShape) -> list[dict[str, str]]:
    """Output constants -> reference constants, likeliest first (the output may hard-code
    some of R's constants): every pairing of constants the grammar has."""
    return assignments(out.constants, ref.constants, out.types, ref.types, by_meaning=True,
                       roles=(out.roles, ref.roles))


def paired_by_meaning(ref: SpecShape, out: SpecShape, targets: Sequence[str] | None = None
                      ) -> tuple[set[tuple[str, str]], set[tuple[str, str]]]:
    """The (output constant, reference constant) pairs whose names say they are the same
    thing, and those whose uses do (`named_alike`, `used_alike`), among `targets` (default:
    every reference constant)."""
    to = tuple(ref.constants if targets is None else targets)
    return (named_alike(out.constants, to),
            used_alike(out.constants, to, out.roles, ref.roles, out.types, ref.types))


def candidate_mappings(ref: SpecShape, out: SpecShape, *, limit: int = DEFAULT_LIMIT,
                       const_maps: list[dict[str, str]] | None = None) -> Iterator[Candidate]:
    """Up to `limit` candidates, most plausible first; none when the shapes cannot match
    (`const_maps`: `constant_maps(ref, out)`, when the caller has them already)."""
    if len(ref.variables) != len(out.variables):
        return
    var_maps = assignments(ref.variables, out.variables, ref.types, out.types)
    if const_maps is None:
        const_maps = constant_maps(ref, out)
    if not var_maps or (out.constants and not const_maps):
        return
    const_maps = const_maps or [{}]
    for i, j in itertools.islice(ranked_pairs(len(var_maps), len(const_maps)), limit):
        yield Candidate(var_maps[i], const_maps[j])


def ranked_pairs(n: int, m: int) -> Iterator[tuple[int, int]]:
    """Index pairs of two ranked lists by the sum of their ranks, then by the first rank.

    Lazy: both lists may hold tens of thousands of maps, and their product does not fit in
    memory (a corpus model with 14 model-value constants needed over 20 GB)."""
    for total in range(n + m - 1):
        for i in range(max(0, total - m + 1), min(total, n - 1) + 1):
            yield i, total - i


def shape_mismatch(ref: SpecShape, out: SpecShape) -> str | None:
    """Why no mapping can exist, if one of the cheap facts rules it out."""
    if len(ref.variables) != len(out.variables):
        return (f"the output has {len(out.variables)} variable(s) "
                f"({', '.join(out.variables) or 'none'}), the reference {len(ref.variables)} "
                f"({', '.join(ref.variables)})")
    if len(out.constants) > len(ref.constants):
        return (f"the output declares {len(out.constants)} constant(s), the reference only "
                f"{len(ref.constants)}: the extra ones would have no value")
    return None
