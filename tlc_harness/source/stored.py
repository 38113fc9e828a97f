"""Variables a specification only writes, and constants it only stores in them, read with
tree-sitter from its Init and next-state action.

A variable is *write-only* when Init and Next never read it: it occurs only as the left side
of an assignment (`x = e`, `x \\in S` in Init; `x' = e`, `x' \\in S` in Next), as the right side
of its own copy (`x' = x`), or under `UNCHANGED` (directly, in a tuple, or in a definition that
is such a tuple), and no conjunction constrains it twice (a second `x' = e` or an `UNCHANGED x`
beside `x' = e` would test its value). A constant is *stored only* when every occurrence of it
in Init and Next is the whole right side of an assignment to a write-only variable, and no
ASSUME reads it.

What this gives (see `graph_engine/stored_constants.py`): the guards and the other variables'
values never depend on a stored-only constant, so the state graph under a fresh model value
for it maps onto the graph under any other value (replace the model value by that value in
the write-only variables) and every step and initial state of the latter is the image of one
of the former: the model value gives at least as many initial states, states and steps, and
behaviors at least as long, as any value does.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

import tree_sitter

from tlc_harness.source.formulas import assumed_names, top_definitions

Node = tree_sitter.Node
_INIT, _NEXT = "init", "next"


@dataclass(frozen=True)
class Stored:
    """The write-only variables and the stored-only constants of a specification."""

    variables: frozenset[str]
    constants: frozenset[str]


@dataclass
class _Walk:
    """One walk over Init and Next: the names read, each write-only candidate's assignments
    per conjunction, and where each constant is stored."""

    defs: Mapping[str, tuple[Node, bytes, int]]
    variables: frozenset[str]
    constants: frozenset[str]
    read: set[str] = field(default_factory=set)
    stored: dict[str, set[str]] = field(default_factory=dict)   # constant -> variables
    memo: dict[tuple[str, str], Counter[str]] = field(default_factory=dict)
    read_defs: set[str] = field(default_factory=set)

    def text(self, src: bytes, node: Node) -> str:
        return src[node.start_byte:node.end_byte].decode("utf-8", "replace")

    def formula(self, node: Node, src: bytes, mode: str) -> Counter[str]:
        """How often each variable is assigned in `node`, an action (`mode` next) or an
        initial predicate (`mode` init): summed over conjuncts, the most over disjuncts;
        every other name in it is read."""
        kind = node.type
        symbol = getattr(node.child_by_field_name("symbol"), "type", "")
        if kind == "parentheses" and node.named_child_count == 1:
            return self.formula(node.named_children[0], src, mode)
        if kind in ("conj_list", "disj_list"):
            parts = [self.formula(item.named_children[-1], src, mode)
                     for item in node.named_children if item.named_child_count]
            return _combine(parts, summed=kind == "conj_list")
        if kind == "bound_infix_op" and symbol in ("land", "lor"):
            parts = [self.formula(side, src, mode) for side in _sides(node)]
            return _combine(parts, summed=symbol == "land")
        if kind == "bounded_quantification" and getattr(
                node.child_by_field_name("quantifier"), "type", "") == "exists":
            for bound in node.children_by_field_name("bound"):
                self.reads(bound, src)
            body = node.child_by_field_name("expression")
            return self.formula(body, src, mode) if body is not None else Counter()
        if kind == "if_then_else":
            condition = node.child_by_field_name("if")
            if condition is not None:
                self.reads(condition, src)
            branches = [node.child_by_field_name(f) for f in ("then", "else")]
            return _combine([self.formula(b, src, mode) for b in branches if b is not None],
                            summed=False)
        if kind == "bound_infix_op" and symbol in ("eq", "in"):
            assigned = self.assignment(node, src, mode, symbol)
            if assigned is not None:
                return assigned
        if kind == "bound_prefix_op" and symbol == "unchanged" and mode == _NEXT:
            operand = node.child_by_field_name("rhs")
            names = self.tuple_names(operand, src, set()) if operand is not None else None
            if names is not None:
                return Counter(names)
        if kind == "identifier_ref":
            name = self.text(src, node)
            if name in self.defs:
                return self.definition(name, mode)
        if kind == "bound_op":
            head = node.child_by_field_name("name")
            name = self.text(src, head) if head is not None else ""
            if name in self.defs:
                for arg in node.children_by_field_name("parameter"):
                    self.reads(arg, src)
                return self.definition(name, mode)
        self.reads(node, src)
        return Counter()

    def assignment(self, node: Node, src: bytes, mode: str, symbol: str) -> Counter[str] | None:
        """`x' = e`, `x' \\in S` (next), `x = e`, `x \\in S` (init) for a variable `x`: one
        assignment of `x`, and `e` read, unless it is `x` itself or a constant (stored)."""
        lhs, rhs = node.child_by_field_name("lhs"), node.child_by_field_name("rhs")
        if lhs is None or rhs is None:
            return None
        if mode == _NEXT:
            if lhs.type != "bound_postfix_op" or getattr(
                    lhs.child_by_field_name("symbol"), "type", "") != "prime":
                return None
            lhs = lhs.child_by_field_name("lhs")
        if lhs is None or lhs.type != "identifier_ref":
            return None
        target = self.text(src, lhs)
        if target not in self.variables:
            return None
        value = self.text(src, rhs) if rhs.type == "identifier_ref" else None
        if symbol == "eq" and value in self.constants:
            self.stored.setdefault(value, set()).add(target)
        elif not (symbol == "eq" and mode == _NEXT and value == target):
            self.reads(rhs, src)
        return Counter({target: 1})

    def tuple_names(self, node: Node, src: bytes, seen: set[str]) -> list[str] | None:
        """The variables a tuple of variables names (through definitions that are such
        tuples), or None for anything else."""
        while node.type == "parentheses" and node.named_child_count == 1:
            node = node.named_children[0]
        if node.type == "identifier_ref":
            name = self.text(src, node)
            if name in self.variables:
                return [name]
            if name in self.defs and self.defs[name][2] == 0 and name not in seen:
                body, body_src, _ = self.defs[name]
                return self.tuple_names(body, body_src, seen | {name})
            return None
        if node.type == "tuple_literal":
            names: list[str] = []
            for item in node.named_children:
                if item.type in ("langle_bracket", "rangle_bracket"):
                    continue
                inner = self.tuple_names(item, src, seen)
                if inner is None:
                    return None
                names += inner
            return names
        return None

    def definition(self, name: str, mode: str) -> Counter[str]:
        key = (name, mode)
        if key not in self.memo:
            self.memo[key] = Counter()  # a recursive definition assigns nothing by itself
            body, src, _ = self.defs[name]
            self.memo[key] = self.formula(body, src, mode)
        return self.memo[key]

    def reads(self, node: Node, src: bytes) -> None:
        """Every name in `node` is read, through the definitions it uses."""
        stack = [node]
        while stack:
            n = stack.pop()
            if n.type == "identifier_ref":
                name = self.text(src, n)
                self.read.add(name)
                if name in self.defs and name not in self.read_defs:
                    self.read_defs.add(name)
                    body, body_src, _ = self.defs[name]
                    self.reads(body, body_src)
            stack.extend(n.children)


def _sides(node: Node) -> Iterable[Node]:
    return [c for c in (node.child_by_field_name("lhs"), node.child_by_field_name("rhs"))
            if c is not None]


def _combine(parts: list[Counter[str]], *, summed: bool) -> Counter[str]:
    out: Counter[str] = Counter()
    for part in parts:
        for name, n in part.items():
            out[name] = out[name] + n if summed else max(out[name], n)
    return out


def stored_only(files: Mapping[str, str], init: str, next_: str, variables: Iterable[str],
                constants: Iterable[str]) -> Stored:
    """The write-only variables of the specification `init`/`next_` (definitions in
    `files`), and the constants it only stores in them (see the module's docstring)."""
    defs = top_definitions(files)
    if init not in defs or next_ not in defs:
        return Stored(frozenset(), frozenset())
    walk = _Walk(defs, frozenset(variables), frozenset(constants))
    counts = _combine([walk.definition(init, _INIT), walk.definition(next_, _NEXT)],
                      summed=False)
    write_only = frozenset(x for x in walk.variables if x not in walk.read and counts[x] <= 1)
    assumed = assumed_names(files)
    stored = frozenset(c for c, targets in walk.stored.items()
                       if c not in walk.read and c not in assumed and targets <= write_only)
    return Stored(write_only, stored)
