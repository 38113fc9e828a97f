"""The temporal conjuncts of a specification formula, read with tree-sitter.

`Spec == Init /\\ [][Next]_v /\\ WF_v(Next) /\\ Liveness` has a safety part (`Init`, a state
predicate, and `[][Next]_v`) and temporal conjuncts: fairness, `<>`, `~>`, `[]P`, and the
definitions that hold them. `temporal_conjuncts` lists the latter as texts of the module's own
scope, each with the column it starts at (a text over several lines keeps its bullets aligned
only at that column), following the zero-argument definitions that are conjunctions.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass

import tree_sitter

from tlc_harness.source.nodes import parser
from tlc_harness.source.tokens import blank_comments

Node = tree_sitter.Node
#: node types that make a formula temporal (`[]` and `<>` as operators, not a CASE's arms)
_TEMPORAL = frozenset({"always", "eventually", "leads_to", "temporal_forall", "temporal_exists",
                       "fairness", "plus_arrow"})
MAX_DEFINITIONS = 64  # definitions followed from one formula


@dataclass(frozen=True)
class Conjunct:
    """One temporal conjunct: its text and the column its first line starts at."""

    text: str
    column: int

    def definition(self, head: str) -> str:
        """`head == text`, with the text's lines at their own columns."""
        if "\n" not in self.text:
            return f"{head} == {self.text}"
        return f"{head} ==\n{' ' * self.column}{self.text}"


@dataclass(frozen=True)
class TemporalParts:
    """The temporal conjuncts of a formula, or why they cannot be read (`unreadable`)."""

    conjuncts: tuple[Conjunct, ...] = ()
    unreadable: str | None = None


def _text(src: bytes, node: Node) -> str:
    return src[node.start_byte:node.end_byte].decode("utf-8", "replace")


def _units(files: Mapping[str, str]) -> Iterator[tuple[Node, bytes]]:
    """The top-level units of each `.tla` module (definitions, ASSUMEs, ...), each with its
    module's bytes, comments blanked."""
    for name, text in files.items():
        if not name.endswith(".tla"):
            continue
        src = blank_comments(text).encode("utf-8")
        for module in parser().parse(src).root_node.children:
            for node in module.children if module.type == "module" else []:
                yield node, src


def top_definitions(files: Mapping[str, str]) -> dict[str, tuple[Node, bytes, int]]:
    """Top-level definitions of the `.tla` modules: name -> (body, module bytes with comments
    blanked, arity: its parameters, not the parentheses and commas between them); the first
    module to define a name wins."""
    out: dict[str, tuple[Node, bytes, int]] = {}
    for node, src in _units(files):
        if node.type == "local_definition" and node.named_child_count:
            node = node.named_children[-1]
        head, body = node.child_by_field_name("name"), node.child_by_field_name("definition")
        if node.type == "operator_definition" and head is not None and body is not None:
            out.setdefault(_text(src, head), (body, src, sum(
                p.is_named for p in node.children_by_field_name("parameter"))))
    return out


def temporal_conjuncts(files: Mapping[str, str], spec: str) -> TemporalParts:
    """The temporal conjuncts of the formula `spec` defined in `files` (none: a safety
    formula). Unreadable: no such definition, a box of an action below a quantifier or in a
    definition with parameters, or more definitions than `MAX_DEFINITIONS` to follow."""
    defs = top_definitions(files)
    if spec not in defs:
        return TemporalParts(unreadable=f"no module defines {spec}")
    memo: dict[str, bool] = {}

    def temporal(node: Node, src: bytes) -> bool:
        return is_temporal(node, src, defs, memo)

    found: list[Conjunct] = []
    problems: list[str] = []
    seen: set[str] = set()

    def collect(formula: Node, src: bytes) -> None:
        for node in conjunction_items(formula):
            name = _text(src, node) if node.type == "identifier_ref" else ""
            if is_box_of_action(node):
                continue  # [][Next]_v: the safety part
            if name in defs and defs[name][2] == 0 and name not in seen:
                seen.add(name)
                if len(seen) > MAX_DEFINITIONS:
                    problems.append(f"more than {MAX_DEFINITIONS} definitions below {spec}")
                elif temporal(defs[name][0], defs[name][1]):
                    collect(defs[name][0], defs[name][1])
            elif temporal(node, src):
                if has_box_of_action(node):
                    problems.append(f"a box of an action below another operator: "
                                    f"{_text(src, node)[:80]!r}")
                else:
                    found.append(Conjunct(_text(src, node).rstrip(), node.start_point[1]))

    body, src, _ = defs[spec]
    collect(body, src)
    if problems:
        return TemporalParts(unreadable="; ".join(problems))
    return TemporalParts(tuple(found))


def is_temporal(node: Node, src: bytes, defs: Mapping[str, tuple[Node, bytes, int]],
                memo: dict[str, bool]) -> bool:
    """Whether `node` holds a temporal operator, itself or in a definition it uses (`defs`:
    `top_definitions`; `memo`: what is known of definitions, shared between calls)."""
    todo = [node]
    while todo:
        n = todo.pop()
        if n.type in _TEMPORAL:
            return True
        if n.type == "identifier_ref":
            name = _text(src, n)
            if name in defs and name not in memo and len(memo) < MAX_DEFINITIONS:
                memo[name] = False  # a recursive definition is not temporal by itself
                memo[name] = is_temporal(defs[name][0], defs[name][1], defs, memo)
            if memo.get(name):
                return True
        todo.extend(n.children)
    return False


#: node types of a liveness formula: `<>`, `~>`, fairness, temporal quantifiers, `-+->`
_LIVENESS = _TEMPORAL - {"always"}


def liveness_free(files: Mapping[str, str], names: Iterable[str]) -> bool:
    """Whether no definition among `names`, nor one they use (followed within the modules'
    own top-level definitions, at most `MAX_DEFINITIONS`), writes `<>`, `~>`, fairness or a
    temporal quantifier: a screen for properties TLC checks state by state and step by step
    (`[]P`, `[][A]_v`). It does not follow an instance's definitions (`R!Live`): TLC's own
    messages say whether a run checked liveness."""
    defs = top_definitions(files)
    seen: set[str] = set()
    todo = list(names)
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        if name not in defs or len(seen) > MAX_DEFINITIONS:
            return False
        body, src, _ = defs[name]
        stack = [body]
        while stack:
            node = stack.pop()
            if node.type in _LIVENESS:
                return False
            if node.type == "identifier_ref" and _text(src, node) in defs:
                todo.append(_text(src, node))
            stack.extend(node.children)
    return True


def conjunction_items(node: Node) -> Iterator[Node]:
    """The conjuncts of a formula: through parentheses, bulleted `/\\` lists and infix `/\\`."""
    while node.type == "parentheses" and node.named_child_count == 1:
        node = node.named_children[0]
    symbol = getattr(node.child_by_field_name("symbol"), "type", "")
    if node.type == "conj_list":
        for item in (c for c in node.named_children if c.type == "conj_item"):
            yield from conjunction_items(item.named_children[-1])
    elif node.type == "bound_infix_op" and symbol == "land":
        for side in ("lhs", "rhs"):
            child = node.child_by_field_name(side)
            if child is not None:
                yield from conjunction_items(child)
    else:
        yield node


def is_box_of_action(node: Node) -> bool:
    """Whether `node` is `[][A]_v`."""
    return node.type == "bound_prefix_op" and getattr(
        node.child_by_field_name("symbol"), "type", "") == "always" and getattr(
        node.child_by_field_name("rhs"), "type", "") == "step_expr_or_stutter"


def has_box_of_action(node: Node) -> bool:
    """Whether `node` holds a `[A]_v` anywhere below it."""
    return holds(node, "step_expr_or_stutter")


def holds(node: Node, node_type: str) -> bool:
    """Whether `node` or a node below it is of `node_type`."""
    todo = [node]
    while todo:
        n = todo.pop()
        if n.type == node_type:
            return True
        todo.extend(n.children)
    return False


def assumed_equalities(files: Mapping[str, str]) -> dict[str, tuple[str, ...]]:
    """What the modules' ASSUMEs say a name equals: each conjunct `Name = expr` (or
    `expr = Name`) of an `ASSUME`/`ASSUMPTION` at the top level, by name, the texts in the
    order written (a name with two different texts has two entries)."""
    return _assumed(files, "eq", both_sides=True)


def assumed_memberships(files: Mapping[str, str]) -> dict[str, tuple[str, ...]]:
    """The sets the modules' ASSUMEs put a name in: each conjunct `Name \\in S` of a top-level
    `ASSUME`/`ASSUMPTION`, by name, the texts of the sets in the order written."""
    return _assumed(files, "in", both_sides=False)


def _assumed(files: Mapping[str, str], symbol: str, *, both_sides: bool
             ) -> dict[str, tuple[str, ...]]:
    found: dict[str, tuple[str, ...]] = {}
    for node, src in _units(files):
        if node.type != "assumption" or not node.named_child_count:
            continue
        for item in conjunction_items(node.named_children[-1]):
            op = getattr(item.child_by_field_name("symbol"), "type", "")
            lhs, rhs = item.child_by_field_name("lhs"), item.child_by_field_name("rhs")
            if item.type != "bound_infix_op" or op != symbol or lhs is None or rhs is None:
                continue
            for side, other in ((lhs, rhs), (rhs, lhs)) if both_sides else ((lhs, rhs),):
                said = " ".join(_text(src, other).split())
                name = _text(src, side)
                if side.type == "identifier_ref" and said not in found.get(name, ()):
                    found[name] = (*found.get(name, ()), said)
    return found


#: node types of TLA+'s infinite standard sets, by the name a cfg overrides them with
_INFINITE = {"nat_number_set": "Nat", "int_number_set": "Int", "real_number_set": "Real",
             "string_set": "STRING"}
_SEQUENCES = "Seq"  # `Seq(S)`, the Sequences module's set of all finite sequences over S


def _closure(defs: Mapping[str, tuple[Node, bytes, int]], roots: tuple[str, ...]
             ) -> Iterator[tuple[Node, bytes]]:
    """Every syntax node of the definitions `roots` name or use, followed through the
    top-level definitions `defs` (`top_definitions`), each with its module's bytes."""
    todo, seen = [r for r in roots if r in defs], set(roots)
    while todo:
        body, src, _ = defs[todo.pop()]
        for node in _descendants(body):
            yield node, src
            if node.type == "identifier_ref":
                name = _text(src, node)
                if name in defs and name not in seen:
                    seen.add(name)
                    todo.append(name)


def infinite_sets(files: Mapping[str, str], roots: tuple[str, ...]) -> frozenset[str]:
    """The infinite standard sets (`Nat`, `Int`, `Real`, `STRING`, and `Seq` unless a module
    defines its own) written in the definitions `roots` name or use, followed through the
    modules' top-level definitions (an invariant that no root uses does not count)."""
    defs = top_definitions(files)
    found: set[str] = set()
    for node, src in _closure(defs, roots):
        if node.type in _INFINITE:
            found.add(_INFINITE[node.type])
        elif node.type == "identifier_ref" and _text(src, node) == _SEQUENCES \
                and _SEQUENCES not in defs:
            found.add(_SEQUENCES)
    return frozenset(found)


def names_read(files: Mapping[str, str], roots: tuple[str, ...]) -> frozenset[str]:
    """Every name the definitions `roots` name or use write, followed through the modules'
    top-level definitions: the constants and variables among them are those the roots read
    (an operator of an instantiated module, `M!Op`, is not followed: see `instantiates`)."""
    return frozenset(_text(src, node) for node, src in _closure(top_definitions(files), roots)
                     if node.type == "identifier_ref")


def assumed_names(files: Mapping[str, str]) -> frozenset[str]:
    """Every name the modules' top-level ASSUMEs write, followed through the definitions
    they use (`ASSUME Valid(Max)` reads what `Valid` reads)."""
    direct = {_text(src, node) for unit, src in _units(files) if unit.type == "assumption"
              for node in _descendants(unit) if node.type == "identifier_ref"}
    return frozenset(direct) | names_read(files, tuple(sorted(direct)))


def _descendants(node: Node) -> Iterator[Node]:
    stack = [node]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(node.children)


def instantiates(files: Mapping[str, str]) -> bool:
    """Whether a module of `files` instantiates one of them (`M == INSTANCE N`, `INSTANCE N
    WITH ...`); a standard module (`INSTANCE TLC`) reads none of their constants."""
    own = {name[:-4] for name in files if name.endswith(".tla")}
    return any(hit in own for name, text in files.items() if name.endswith(".tla")
               for hit in re.findall(r"\bINSTANCE\s+(\w+)", blank_comments(text)))
