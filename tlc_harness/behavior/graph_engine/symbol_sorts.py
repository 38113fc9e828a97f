"""Whether a constant taken as a symbol (`search.symbol_constants`) is one in the output's graph.

A constant given a model value of its own name stands for every value only where every
choice gives the same behaviors up to renaming: where its value meets, in `=`, `#`, `\\in`
and `\\notin`, only values of its own sort, the model values of symbol constants. Where it
meets a number, a string or a boolean (`x = Sym` with `x \\in 0..3`), a model value is
equal to none of them and a number may equal one: the model value hides the steps that
number takes (or adds the ones it blocks).

What an expression holds is read from the output's explored graph, by slot: a variable, and
in its values a set's elements (`{}`), a record's field (`.f`), a function's or a tuple's
range (`[]`) and domain (`dom`). The text says only where the constant is compared, and with
what expression: each comparison it is part of (through sets, tuples, records, functions,
IF, CASE, EXCEPT, `\\cup` and `Append`) must compare it with a symbol constant or a slot
holding symbols alone; so must each comparison of a slot that holds one of its values. An
expression the grader cannot sort (an operator's parameter, a computed value) counts as
another sort.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence

import tree_sitter

from tlc_harness.behavior.graphs import StateGraph
from tlc_harness.behavior.values import Fn, ModelValue, Value, is_field_name
from tlc_harness.source.nodes import descendants, parser
from tlc_harness.source.tokens import blank_comments

Node = tree_sitter.Node
Path = tuple[str, ...]
#: comparison operators, as tree-sitter names them
_COMPARE = frozenset({"eq", "neq", "in", "notin"})
#: set operators whose value's elements are their operands' elements
_SET_OPS = frozenset({"cup", "cap", "setminus"})
MAX_DEPTH = 16  # definitions followed from one expression


def slots(graph: StateGraph) -> dict[Path, set[str]]:
    """Each slot of the graph's values -> the names of the model values there, and `""` for
    any other atom (a number, a string, a boolean)."""
    found: dict[Path, set[str]] = {}

    def walk(value: Value, path: Path) -> None:
        if isinstance(value, frozenset):
            for v in value:
                walk(v, (*path, "{}"))
        elif isinstance(value, Fn):
            record = bool(value.items) and all(is_field_name(k) for k, _ in value.items)
            for k, v in value.items:
                if record:
                    walk(v, (*path, f".{k}"))
                else:
                    walk(k, (*path, "dom"))
                    walk(v, (*path, "[]"))
        else:
            found.setdefault(path, set()).add(value.name if isinstance(value, ModelValue)
                                              else "")

    for k, name in enumerate(graph.variables):
        for value in {s[k] for s in graph.states}:
            walk(value, (name,))
    return found


class _Sorter:
    """The comparisons of one output's text, judged against the slots of its graph."""

    def __init__(self, files: Mapping[str, str], found: dict[Path, set[str]],
                 symbols: frozenset[str], variables: Sequence[str]) -> None:
        self.found, self.symbols, self.variables = found, symbols, frozenset(variables)
        self.units: list[tuple[Node, bytes]] = []
        self.definitions: dict[str, tuple[Node, bytes]] = {}
        self.reached: set[tuple[int, int]] = set()  # (unit, byte) of occurrences followed
        for name, text in files.items():
            if not name.endswith(".tla"):
                continue
            src = blank_comments(text).encode("utf-8")
            root = parser().parse(src).root_node
            for node in descendants(root):
                head, body = node.child_by_field_name("name"), \
                    node.child_by_field_name("definition")
                if node.type == "operator_definition" and head is not None and \
                        body is not None and node.child_by_field_name("parameter") is None:
                    self.definitions[_text(src, head)] = (body, src)
            self.units.append((root, src))

    def mixed(self) -> dict[str, str]:
        """Each symbol constant that meets another sort -> where."""
        why: dict[str, str] = {}
        for path, names in self.found.items():  # stored beside other values
            if "" in names or names - self.symbols:
                for c in sorted(names & self.symbols):
                    why.setdefault(c, f"{'/'.join(path)} holds it beside other values")
        for root, src in self.units:
            for node in descendants(root):
                if node.type != "bound_infix_op" or _op(node) not in _COMPARE:
                    continue
                lhs, rhs = node.child_by_field_name("lhs"), node.child_by_field_name("rhs")
                if lhs is None or rhs is None:
                    continue
                membership = _op(node) in ("in", "notin")
                for side, other, is_set in ((lhs, rhs, False), (rhs, lhs, membership)):
                    for c, path in self.held(side, src, 0):
                        if membership:  # an element meets the set's elements
                            path = path[1:] if is_set and path[:1] == ("{}",) else \
                                ("?",) if is_set else ("{}", *path)
                        if c not in why and not self.sorted_as_symbols(other, src, path, 0):
                            why[c] = f"`{_text(src, node)}` compares it with another sort"
        for root, src in self.units:  # a use no comparison reaches: what it meets is unknown
            for node in descendants(root):
                name = _text(src, node) if node.type == "identifier_ref" else ""
                if name in self.symbols and name not in why and \
                        (id(src), node.start_byte) not in self.reached:
                    why[name] = f"`{name}` is used where the grader cannot follow its value"
        return why

    def held(self, node: Node, src: bytes, depth: int) -> Iterator[tuple[str, Path]]:
        """The symbol constants whose values `node`'s value may hold, each at its path in
        it: the constants written in it, and those of the slots it reads."""
        kind, kids = node.type, node.named_children
        if depth > MAX_DEPTH:
            return
        slot = self.slot_of(node, src)
        if slot is not None:
            for p, names in self.found.items():
                if p[:len(slot)] == slot:
                    for c in names & self.symbols:
                        yield c, p[len(slot):]
            return
        if kind == "identifier_ref":
            name = _text(src, node)
            if name in self.symbols:
                self.reached.add((id(src), node.start_byte))
                yield name, ()
            elif name in self.definitions:
                body, home = self.definitions[name]
                yield from self.held(body, home, depth + 1)
            bound = _binding(node, name, src)
            if bound is not None:
                for c, p in self.held(bound, src, depth + 1):
                    yield c, (p[1:] if p[:1] == ("{}",) else ("?",))
        elif kind in ("parentheses", "bound_postfix_op") and kids:
            yield from self.held(kids[0], src, depth)
        elif kind in ("finite_set_literal", "tuple_literal", "function_literal"):
            step = "{}" if kind == "finite_set_literal" else "[]"
            items = kids[-1:] if kind == "function_literal" else [
                i for i in kids if i.type not in ("langle_bracket", "rangle_bracket")]
            for item in items:
                for c, p in self.held(item, src, depth):
                    yield c, (step, *p)
        elif kind == "record_literal":
            for field, item in _fields(node, src):
                for c, p in self.held(item, src, depth):
                    yield c, (field, *p)
        elif kind == "set_of_functions" and len(kids) == 3:
            for operand, step in ((kids[0], "dom"), (kids[2], "[]")):
                for c, p in self.held(operand, src, depth):
                    yield c, (("{}", step, *p[1:]) if p[:1] == ("{}",) else ("?",))
        elif kind == "if_then_else":
            for name in ("then", "else"):
                branch = node.child_by_field_name(name)
                if branch is not None:
                    yield from self.held(branch, src, depth)
        elif kind == "case":
            for arm in kids:
                if arm.type in ("case_arm", "other_arm") and arm.named_children:
                    yield from self.held(arm.named_children[-1], src, depth)
        elif kind == "except":
            base = node.child_by_field_name("expr_to_update")
            if base is not None:
                yield from self.held(base, src, depth)
            for update in (k for k in kids if k.type == "except_update"):
                steps = _steps(update, src)
                value = update.child_by_field_name("new_val")
                if value is not None:
                    for c, p in self.held(value, src, depth):
                        yield c, (*steps, *p)
        elif kind == "bound_infix_op" and _op(node) in _SET_OPS:
            for name in ("lhs", "rhs"):
                side = node.child_by_field_name(name)
                if side is not None:
                    yield from self.held(side, src, depth)
        elif kind == "bound_op" and _text(src, kids[0]) == "Append" and len(kids) == 3:
            yield from self.held(kids[1], src, depth)
            for c, p in self.held(kids[2], src, depth):
                yield c, ("[]", *p)

    def sorted_as_symbols(self, node: Node, src: bytes, path: Path, depth: int) -> bool:
        """Whether every value at `path` in `node`'s value is a symbol constant's (nothing
        there counts too); False for what the grader cannot sort."""
        kind, kids = node.type, node.named_children
        if depth > MAX_DEPTH or "?" in path:
            return False
        slot = self.slot_of(node, src)
        if slot is not None:
            names = self.found.get((*slot, *path), set())
            return "" not in names and names <= self.symbols
        if kind == "identifier_ref":
            name = _text(src, node)
            bound = _binding(node, name, src)
            if name in self.symbols:
                return path == ()
            if bound is not None:
                return self.sorted_as_symbols(bound, src, ("{}", *path), depth + 1)
            if name in self.definitions:
                body, home = self.definitions[name]
                return self.sorted_as_symbols(body, home, path, depth + 1)
            return False
        if kind in ("parentheses", "bound_postfix_op") and kids:
            return self.sorted_as_symbols(kids[0], src, path, depth)
        if kind in ("finite_set_literal", "tuple_literal", "function_literal"):
            step = "{}" if kind == "finite_set_literal" else "[]"
            items = kids[-1:] if kind == "function_literal" else [
                i for i in kids if i.type not in ("langle_bracket", "rangle_bracket")]
            return not items or (path[:1] == (step,) and all(
                self.sorted_as_symbols(i, src, path[1:], depth) for i in items))
        if kind == "record_literal":
            fields = dict(_fields(node, src))
            return path[:1] == () or (path[0] in fields and self.sorted_as_symbols(
                fields[path[0]], src, path[1:], depth))
        if kind == "bound_op" and _text(src, kids[0]) == "Append" and len(kids) == 3:
            return self.sorted_as_symbols(kids[1], src, path, depth) and (
                path[:1] != ("[]",) or self.sorted_as_symbols(kids[2], src, path[1:], depth))
        if kind == "set_of_functions" and len(kids) == 3 and path[:1] == ("{}",) and \
                path[1:2] in (("dom",), ("[]",)):
            part = kids[0] if path[1] == "dom" else kids[2]
            return self.sorted_as_symbols(part, src, ("{}", *path[2:]), depth)
        if kind == "if_then_else":
            return all(b is not None and self.sorted_as_symbols(b, src, path, depth)
                       for b in (node.child_by_field_name("then"),
                                 node.child_by_field_name("else")))
        if kind == "case":
            arms = [a for a in kids if a.type in ("case_arm", "other_arm")]
            return all(a.named_children and self.sorted_as_symbols(
                a.named_children[-1], src, path, depth) for a in arms)
        if kind == "except":
            base = node.child_by_field_name("expr_to_update")
            updates = [(_steps(u, src), u.child_by_field_name("new_val"))
                       for u in kids if u.type == "except_update"]
            return base is not None and self.sorted_as_symbols(base, src, path, depth) and all(
                v is not None and self.sorted_as_symbols(v, src, path[len(s):], depth)
                for s, v in updates if path[:len(s)] == s)
        if kind == "bound_infix_op" and _op(node) in _SET_OPS:
            return all(s is not None and self.sorted_as_symbols(s, src, path, depth)
                       for s in (node.child_by_field_name("lhs"),
                                 node.child_by_field_name("rhs")))
        return False

    def slot_of(self, node: Node, src: bytes) -> Path | None:
        """The slot a variable's path names (`v`, `v'`, `v.f`, `v[e]`, and a name bound by
        `\\E m \\in S`, `\\A`, `{m \\in S : ...}` or `[m \\in S |-> ...]` to such a slot's
        elements); None for any other expression."""
        kind, kids = node.type, node.named_children
        if kind in ("bound_postfix_op", "parentheses") and kids:
            return self.slot_of(kids[0], src) if _op(node) in ("prime", "") else None
        if kind == "record_value" and len(kids) == 2:
            base = self.slot_of(kids[0], src)
            return None if base is None else (*base, f".{_text(src, kids[1])}")
        if kind == "function_evaluation" and kids:
            base = self.slot_of(kids[0], src)
            return None if base is None else (*base, "[]")
        if kind != "identifier_ref":
            return None
        name = _text(src, node)
        bound = _binding(node, name, src)
        if bound is not None:
            base = self.slot_of(bound, src)
            return None if base is None else (*base, "{}")
        return (name,) if name in self.variables else None


def mixed_symbols(graph: StateGraph, files: Mapping[str, str], symbols: frozenset[str],
                  variables: Sequence[str]) -> dict[str, str]:
    """The constants of `symbols` (given model values of their own names in `graph`, the
    output's explored graph) that meet values of another sort, each with where: their
    values are the grade's to justify, as any other constant's (see the module's
    docstring)."""
    if not symbols:
        return {}
    return _Sorter(files, slots(graph), symbols, variables).mixed()


def _binding(node: Node, name: str, src: bytes) -> Node | None:
    """The set `name` is bound to by the nearest quantifier, set filter or function
    constructor around `node` that introduces it (`\\E m \\in S`), or None."""
    up = node.parent
    while up is not None:
        for bound in up.named_children:
            if bound.type != "quantifier_bound":
                continue
            intro = bound.children_by_field_name("intro")
            target = bound.child_by_field_name("set")
            if target is not None and any(_text(src, i) == name for i in intro):
                return target
        up = up.parent
    return None


def _fields(node: Node, src: bytes) -> Iterator[tuple[str, Node]]:
    """A record literal's fields, each as `.f` with its value."""
    field = ""
    for item in node.named_children:
        if item.type == "identifier":
            field = "." + _text(src, item)
        elif item.type != "all_map_to":
            yield field, item


def _op(node: Node) -> str:
    symbol = node.child_by_field_name("symbol")
    return symbol.type if symbol is not None else ""


def _steps(update: Node, src: bytes) -> Path:
    """The path an EXCEPT's `![a].f = e` updates: `[]` for each index, `.f` for each field."""
    found: list[str] = []
    for spec in update.named_children:
        for part in spec.named_children if spec.type == "except_update_specifier" else ():
            found.append("[]" if part.type == "except_update_fn_appl" else
                         "." + _text(src, part).lstrip("."))
    return tuple(found)


def _text(src: bytes, node: Node) -> str:
    return src[node.start_byte:node.end_byte].decode("utf-8", "replace")
