"""Stuttering subscripts: which variables a specification's `[][A]_v`, `WF_v` and `SF_v` leave out.

`[][Next]_v` allows every step that keeps `v`, whatever it does to a variable `v` leaves out;
TLC takes successors from `Next` alone and never explores those steps. So a refinement check by
TLC (or on TLC's graphs) says nothing about them: an output whose subscript leaves out a
variable may have behaviors the reference lacks, and an `ok` for it is not justified unless
the reference's own subscript leaves out the same variable under the mapping (then both allow
the same arbitrary steps). Only the subscripts of `[][A]_v` are read here: a fairness
subscript (`WF_v`) is evaluated by TLC as written, and the output's fairness is the reverse
direction's to check. Read from the module text: a subscript is a variable, a tuple `<<...>>` of them, or a
zero-argument definition of either (`vars == <<x, y>>`), nested; anything else is unreadable.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from tlc_harness.behavior.staging import Reference, Staged, definition_body
from tlc_harness.behavior.verdicts import BehaviorResult, BehaviorVerdict, Reason
from tlc_harness.source.identifiers import analyze_module
from tlc_harness.source.tokens import blank_comments

#: where a `[][A]_v` starts
_BOX = re.compile(r"\[\]\s*\[")
#: what may follow a definition's body that the body reader did not cut off (`f[x \in S] ==`)
_NEXT_DEFINITION = re.compile(r"\s*(?:[A-Za-z_]\w*\s*(?:\[[^\]]*\]|\([^)]*\))?\s*==.*)?\Z", re.S)
_NAME = re.compile(r"[A-Za-z_]\w*")
_TEMPORAL = re.compile(r"\[\]|<>|\b[WS]F_|~>")
MAX_DEPTH = 8  # nested definitions followed from the specification


@dataclass(frozen=True)
class Subscripts:
    """What a specification's subscripts cover: the variables some subscript leaves out, and
    the subscripts that could not be read (text)."""

    omitted: frozenset[str]
    unreadable: tuple[str, ...] = ()

    @property
    def complete(self) -> bool:
        return not self.omitted and not self.unreadable


def _variables_of(text: str, files: Mapping[str, str], variables: frozenset[str],
                  depth: int = 0) -> frozenset[str] | None:
    """The variables a subscript names (None: not a variable, tuple or definition of them)."""
    text = text.strip()
    while text.startswith("(") and text.endswith(")"):
        text = text[1:-1].strip()
    if text.startswith("<<") and text.endswith(">>"):
        found: set[str] = set()
        for part in _split(text[2:-2]):
            got = _variables_of(part, files, variables, depth + 1)
            if got is None:
                return None
            found |= got
        return frozenset(found)
    if not _NAME.fullmatch(text):
        return None
    if text in variables:
        return frozenset({text})
    body = definition_body(files, text) if depth < MAX_DEPTH else None
    if body is None:
        return None
    head = _subscript_at(body, 0)
    if not _NEXT_DEFINITION.fullmatch(body[len(head):]):
        return None  # an expression, not a variable or a tuple of them
    return _variables_of(head, files, variables, depth + 1)


def _box_subscripts(text: str) -> list[str]:
    """The subscripts `v` of every `[][A]_v` in `text` ("" where `]` has no `_v`)."""
    found = []
    for hit in _BOX.finditer(text):
        depth, i = 1, hit.end()
        while i < len(text) and depth:
            depth += {"[": 1, "]": -1}.get(text[i], 0)
            i += 1
        rest = text[i:].lstrip() if not depth else ""
        found.append(_subscript_at(rest[1:].lstrip(), 0) if rest.startswith("_") else "")
    return found


def _subscript_at(text: str, start: int) -> str:
    """The subscript starting at `start`: a name, or a tuple up to its matching `>>` ("": none
    of these, e.g. a parenthesized expression)."""
    name = _NAME.match(text, start)
    if name:
        return name.group(0)
    if not text.startswith("<<", start):
        return text[start:start + 40]
    depth, i = 0, start
    while i < len(text) - 1:
        pair = text[i:i + 2]
        if pair == "<<":
            depth, i = depth + 1, i + 2
        elif pair == ">>":
            depth, i = depth - 1, i + 2
            if depth == 0:
                return text[start:i]
        else:
            i += 1
    return text[start:]


def _split(text: str) -> list[str]:
    """A tuple's elements, split at the commas outside brackets."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch in "([{<":
            depth += 1
        elif ch in ")]}>":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    tail = text[start:]
    return [p for p in (*parts, tail) if p.strip()] if (parts or tail.strip()) else []


def formula_texts(files: Mapping[str, str], name: str) -> list[str]:
    """The bodies of `name` and of the zero-argument definitions with temporal operators it
    names (a `Fairness` conjunct), transitively."""
    seen: set[str] = set()
    todo, bodies = [name], []
    while todo and len(seen) < MAX_DEPTH * 4:
        current = todo.pop()
        if current in seen:
            continue
        seen.add(current)
        body = definition_body(files, current)
        if body is None:
            continue
        bodies.append(body)
        for word in _NAME.findall(body):
            inner = definition_body(files, word) if word not in seen else None
            if inner is not None and _TEMPORAL.search(inner):
                todo.append(word)
    return bodies


def in_scope(files: Mapping[str, str], main: str) -> dict[str, str]:
    """The modules whose definitions module `main` sees by name: itself and the modules it
    EXTENDS or INSTANCEs without a name, transitively (`M == INSTANCE X` keeps X's definitions
    behind `M!`)."""
    scope: dict[str, str] = {}
    todo = [main]
    while todo:
        name = todo.pop()
        text = files.get(f"{name}.tla")
        if text is None or f"{name}.tla" in scope:
            continue
        scope[f"{name}.tla"] = text
        found = analyze_module(text)
        todo += [*found.extends, *found.public_instances]
    return scope


def spec_subscripts(files: Mapping[str, str], spec: str, variables: Sequence[str],
                    main: str | None = None) -> Subscripts:
    """The subscripts of the specification formula `spec` (and of the temporal definitions it
    names) against the module's `variables`; `main`: the module `spec` is read in (the files
    it does not EXTEND are left out), else every file."""
    declared = frozenset(variables)
    files = {name: blank_comments(text)
             for name, text in (in_scope(files, main) if main else files).items()}
    omitted: set[str] = set()
    unreadable: list[str] = []
    for body in formula_texts(files, spec):
        for text in _box_subscripts(body):
            named = _variables_of(text, files, declared) if text else None
            if named is None:
                unreadable.append(text)
            else:
                omitted |= declared - named
    return Subscripts(frozenset(omitted), tuple(dict.fromkeys(unreadable)))


def unjustified_omission(out: Subscripts, ref: Subscripts,
                         variables: Mapping[str, str]) -> str | None:
    """Why an `ok` under the mapping `variables` (reference variable -> expression over the
    output) cannot stand on the output's subscripts, or None. An omitted output variable is
    allowed only where the mapping gives it, as it is, to a reference variable that the
    reference's own subscript omits; an unreadable subscript of the output never is."""
    if out.unreadable:
        return (f"the output's specification has a subscript the grader cannot read "
                f"({', '.join(out.unreadable)}), so the steps it allows beyond Next are unknown")
    if not out.omitted:
        return None
    same = {g: r for r, g in variables.items() if g in out.omitted}
    covered = {g for g, r in same.items() if r in ref.omitted}
    left = sorted(out.omitted - covered)
    if not left:
        return None
    them = "it" if len(left) == 1 else "them"
    return (f"the output's specification leaves {', '.join(left)} out of its [][Next]_v "
            f"subscript: it allows steps that change {them} arbitrarily while the subscript "
            f"stays, which TLC never explores, so refinement is not shown")


def justify_ok(result: BehaviorResult, ref: Reference, staged: Staged) -> BehaviorResult:
    """`result` when it is not `ok` or the output's subscripts justify it; else `undecided`
    (`subscript_incomplete`), the mapping and the subscripts kept in its details."""
    if not result.passed:
        return result
    if staged.out_spec is None:  # graded from Init and Next: TLC's steps are the formula's
        return result
    out = spec_subscripts(staged.out_files, staged.out_spec, staged.out_shape.variables,
                          staged.out_main)
    ref_subs = (spec_subscripts(ref.files, ref.cfg.specification, staged.ref_shape.variables,
                                ref.main) if ref.cfg.specification else Subscripts(frozenset()))
    variables = (result.mapping or {}).get("variables", {})
    why = unjustified_omission(out, ref_subs, variables)
    if why is None:
        return result
    return replace(result, verdict=BehaviorVerdict.UNDECIDED, code=Reason.SUBSCRIPT_INCOMPLETE,
                   reason=f"{why} (the checks passed: {result.reason})",
                   details={**result.details, "subscripts": {
                       "omitted": sorted(out.omitted), "unreadable": list(out.unreadable)}})
