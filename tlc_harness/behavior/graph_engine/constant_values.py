"""Values the graph engine gives an output's constants where the reference has none of the
same name: literal definitions of the reference, counts of its constants, model values for a
set of processes, and the placeholders of guessed numbers."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import replace

from tlc_harness.behavior.search import value_type as search_value_type
from tlc_harness.behavior.staging import (
    CfgValues,
    Reference,
    Staged,
    body_from,
    definition_body,
    out_name,
)
from tlc_harness.source.identifiers import analyze_task
from tlc_harness.source.stdlib import TLA_KEYWORDS, standard_names

#: numbers an output's constant may take where the reference gives none, as placeholders:
#: each such constant then takes every number of the engine's sweep in turn
GUESSED_NUMBERS = ("2", "3")


def unused_constants(files: Mapping[str, str], constants: tuple[str, ...]) -> set[str]:
    """The constants no module of `files` uses (declared only: any value will do)."""
    used = {o.name for info in analyze_task(files).values() for o in info.occurrences
            if not o.is_definition}
    return {c for c in constants if c not in used}


def as_model_values(const_map: dict[str, str], chosen: list[str], values: CfgValues
                    ) -> tuple[dict[str, str], CfgValues] | None:
    """`const_map` with each constant of `chosen` (a set of numbers: `1..N`, `ProcSet`) given
    as many model values instead (`AliasM1`, ...), and the values with those sets added; None
    when a set's size is unknown."""
    retry = dict(const_map)
    literals = dict(values.literals)
    made = 0
    for g in chosen:
        text = values.literals[const_map[g]].strip()
        bounds = re.fullmatch(r"\(?\s*(-?\d+)\s*\.\.\s*(-?\d+)\s*\)?", text)
        if not bounds:
            return None
        size = int(bounds.group(2)) - int(bounds.group(1)) + 1
        key = "{" + ", ".join(f"AliasM{made + i + 1}" for i in range(size)) + "}"
        literals[key] = key
        made += size
        retry[g] = key
    return retry, replace(values, literals=literals)


def distinct_bases(maps: list[dict[str, str]]) -> list[dict[str, str]]:
    """The maps, each kept once when numbers guessed for it count as one placeholder."""
    seen: set[tuple[tuple[str, str], ...]] = set()
    kept = []
    for base in maps:
        key = tuple(sorted((g, "?" if r in GUESSED_NUMBERS else r) for g, r in base.items()))
        if key not in seen:
            seen.add(key)
            kept.append(base)
    return kept


_LITERAL = re.compile(r'(?:\s|\d|"[^"\n]*"|[{}<>,.()]|\.\.|TRUE|FALSE|-)+')


_FLAT_SET = re.compile(r"\{([^{}<>\[\]()]*)\}")


def cardinalities(literals: Mapping[str, str], constants: tuple[str, ...]) -> dict[str, str]:
    """Counts between the reference's constants and the output's: `Cardinality(S)` of a
    constant whose value is a flat literal set (an output often counts what the reference
    enumerates: `N` processes for `Procs`), and `1..N` of one whose value is a number (the
    processes an output enumerates where the reference counts them)."""
    found = {}
    for name in constants:
        value = literals.get(name, "").strip()
        hit = _FLAT_SET.fullmatch(value)
        if hit:
            found[f"Cardinality({name})"] = str(len([x for x in hit.group(1).split(",")
                                                     if x.strip()]))
        elif re.fullmatch(r"\d+", value):
            found[f"1..{name}"] = f"1..{value}"
    return found


def definition_counts(ref: Reference, names: Sequence[str],
                      counts: Mapping[str, str]) -> dict[str, str]:
    """The reference definitions among `names` that are, as written, one of the `counts` of
    its constants (`cardinalities`: `ChameneosID == 1 .. M`, `NumProcs == Cardinality(Procs)`):
    each name -> that count's name. The value is the count's; the reference only named it."""
    found = {}
    for name in names:
        body = re.sub(r"\s+", "", definition_body(ref.files, name) or "")
        hit = re.fullmatch(r"1\.\.\(?(\w+)\)?|Cardinality\((\w+)\)", body)
        if hit:
            count = f"1..{hit.group(1)}" if hit.group(1) else f"Cardinality({hit.group(2)})"
            if count in counts:
                found[name] = count
    return found


def is_literal(text: str) -> bool:
    """Whether `text` is a plain literal: numbers, strings, booleans, sets, tuples, ranges."""
    return _LITERAL.fullmatch(text.strip()) is not None and \
        re.search(r'\d|"|TRUE|FALSE|\{\s*\}', text) is not None


def literal_values(literals: Mapping[str, str], names: Sequence[str]) -> dict[str, str]:
    """The values of `names` among `literals` that are plain literals (numbers, strings, sets
    and tuples of them), which any module can hold."""
    return {n: literals[n].strip() for n in names
            if n in literals and _LITERAL.fullmatch(literals[n].strip())}


def literal_definitions(ref: Reference, constants: set[str],
                         literals: Mapping[str, str] | None = None) -> dict[str, str]:
    """The reference's zero-argument definitions whose bodies are literals (numbers, strings,
    booleans, sets and tuples of them, ranges), by name, once the reference's constants with
    literal cfg values are put in (`Node == 0 .. N-1` with `N = 3` gives `0 .. (3)-1`)."""
    given = literal_values(literals or {}, sorted(constants))
    found: dict[str, str] = {}
    for text in ref.files.values():
        for hit in re.finditer(r"^([A-Za-z_]\w*)\s*==", text, re.M):
            name = hit.group(1)
            if name in constants or name in found:
                continue
            body = definition_body(ref.files, name)
            if body and given:
                body = re.sub(r'"[^"\n]*"|\b[A-Za-z_]\w*\b',  # strings stay as they are
                              lambda m: f"({given[m.group(0)]})" if m.group(0) in given
                              else m.group(0), body)
            if body and _LITERAL.fullmatch(body) and re.search(r'\d|"|TRUE|FALSE', body):
                found[name] = body
    return found


def carried_overrides(ref: Reference, staged: Staged, values: CfgValues) -> dict[str, str]:
    """R's cfg overrides of an operator by a definition whose value is a literal under R's
    constants (`Nat <- NatOverride` with `NatOverride == 0 .. MaxNat`, `MaxNat = 2`), as the
    output's run carries them: the output's name of the operator (a standard one keeps its
    own) to that literal (`Nat` to `0 .. (2)`). A model bounds `Nat` so for every spec it
    checks; the output's run is bounded the same way."""
    constants = set(staged.ref_shape.constants)
    literals = literal_definitions(ref, constants, values.literals)
    carried = {}
    for name, (target, arity) in values.via_ref.items():
        out = out_name(ref, staged, name)
        if name not in constants and arity == 0 and target in literals and out:
            carried[out] = literals[target]
    return carried


_OPERATOR = re.compile(r"^([A-Za-z_]\w*)\s*\(([\w\s,]*)\)\s*==", re.M)
#: names a body binds: `\A x, y \in S`, `\E x : P`, `CHOOSE x \in S`, `{x \in S : P}`,
#: `[x \in S |-> e]`
_BOUND = re.compile(r"(?:\\A|\\E|CHOOSE)\s+([\w\s,]+?)\s*(?:\\in\b|:)|[{\[]\s*(\w+)\s*\\in\b")
_WORD = re.compile(r'"[^"\n]*"|(?<![\w.\\])[A-Za-z_]\w*(?!\s*\|->)')


def operator_functions(ref: Reference, literals: Mapping[str, str],
                       names: set[str]) -> dict[str, str]:
    """The reference's operators with parameters, of the given `names`, as the function value
    an output constant of the same name takes (an output often declares `Complement` a
    constant function where the reference defines `Complement(c1, c2) == ...`):
    `[AliasA0 \\in S, AliasA1 \\in S |-> body]`, S being the first set the body names whose
    value is a literal (`Color`). Only operators whose body names nothing but its parameters,
    names it binds itself, standard operators and names of `literals` (each put in as its
    value); a body with a LET is left out."""
    allowed = standard_names() | TLA_KEYWORDS | {"TRUE", "FALSE"}
    found: dict[str, str] = {}
    for text in ref.files.values():
        for hit in _OPERATOR.finditer(text):
            name, params = hit.group(1), [p.strip() for p in hit.group(2).split(",")]
            if name not in names or name in found or not all(params):
                continue
            body = body_from(text, hit.end())
            value = (_as_function(body, params, literals, allowed)
                     if body and "LET" not in body.split() else None)
            if value:
                found[name] = value
    return found


def _as_function(body: str, params: list[str], literals: Mapping[str, str],
                 allowed: frozenset[str]) -> str | None:
    bound = {n.strip() for hit in _BOUND.finditer(body) for group in hit.groups() if group
             for n in group.split(",")}
    sets = [w for w in _WORD.findall(body)
            if w in literals and search_value_type(literals[w]) == "set"]
    if not sets:
        return None
    unknown = False

    def put(m: re.Match[str]) -> str:
        nonlocal unknown
        word = m.group(0)
        if word.startswith('"') or word in allowed:
            return word
        if word in params:
            return f"AliasA{params.index(word)}"
        if word in bound:
            return f"AliasB_{word}"
        if word in literals:
            return f"({literals[word]})"
        unknown = True
        return word

    text = _WORD.sub(put, body)
    if unknown:
        return None
    domain = f"({literals[sets[0]]})"
    binders = ", ".join(f"AliasA{i} \\in {domain}" for i in range(len(params)))
    return f"[{binders} |-> {text}]"
