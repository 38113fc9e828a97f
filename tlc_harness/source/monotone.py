"""Whether replacing an infinite set by a finite subset can only remove behaviors.

The graph engine explores an output that reads `Nat`, `Int` or `Seq(S)` with those sets bounded
(`0..B`, ...). Every behavior of the bounded spec is one of the output's only where each use of
such a set is *monotone*: shrinking the set can only make the formula false where it was true.
`x' \\in Nat`, `\\E v \\in Nat : ...` and `[D -> Nat]` on the right of `\\in` are; `x \\notin Nat`,
`~(x \\in Nat)`, the domain of `\\A`, an IF condition, `CHOOSE v \\in Nat`, `Cardinality(...)` or
`x = Nat` are not (a bounded `\\notin Nat` holds for `B + 1`, which the output never allows).

`bound_adds_behaviors` walks the definitions of the explored formulas (Init and Next, through
the definitions and operator arguments they use) with a polarity: `~` and the left of `=>` flip
it, `\\A`'s domain, `\\notin`'s and `\\`'s right operand and `\\subseteq`'s left flip it, and a
use under any construct it does not know is refused. Fairness and `<>` are not explored by TLC's
state search and are skipped.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from tlc_harness.source.formulas import Node, top_definitions

#: tree-sitter node types of the standard infinite sets, by name
SET_NODES = {"nat_number_set": "Nat", "int_number_set": "Int", "real_number_set": "Real",
             "string_set": "STRING"}
SEQUENCES = "Seq"
MAX_DEPTH = 60  # definitions followed into one another before the walk gives up

#: infix operators: (polarity of the left operand, of the right one); 0: must not mention
_INFIX = {"land": (1, 1), "lor": (1, 1), "implies": (-1, 1), "in": (0, 1), "notin": (0, -1),
          "subseteq": (-1, 1), "setminus": (1, -1), "cup": (1, 1), "cap": (1, 1)}
#: standard operators whose value grows with their set argument (`Seq(S)`)
_MONOTONE_OPS = frozenset({SEQUENCES})
#: prefix operators that keep or flip the polarity of their operand
_PREFIX = {"lnot": -1, "powerset": 1, "always": 1, "union": 1}
#: constructs whose operands keep the polarity
_KEEP = frozenset({"parentheses", "conj_list", "conj_item", "disj_list", "disj_item",
                   "set_of_records"})
#: constructs TLC's state search does not explore (liveness): skipped
_SKIP = frozenset({"fairness", "bullet_conj", "bullet_disj"})
_SKIP_PREFIX = frozenset({"eventually"})


@dataclass
class _Walk:
    """One analysis: the modules' definitions, the bounded sets, what was seen."""

    defs: dict[str, tuple[Node, bytes, int]]
    bounded: frozenset[str]
    seen: set[tuple[str, int]] = field(default_factory=set)
    mentioning: dict[str, bool] = field(default_factory=dict)

    def text(self, src: bytes, node: Node) -> str:
        return src[node.start_byte:node.end_byte].decode("utf-8", errors="replace")

    def occurrence(self, node: Node, src: bytes, env: Env) -> str | None:
        """The bounded set this node is (`Nat`, or `Seq` applied or named), if it is one."""
        name = SET_NODES.get(node.type)
        if name is None and node.type == "identifier_ref":
            text = self.text(src, node)
            name = text if text == SEQUENCES and text not in self.defs and text not in env \
                else None
        return name if name in self.bounded else None

    def mentions(self, node: Node, src: bytes, env: Env, depth: int = 0) -> bool:
        """Whether a bounded set occurs in `node`, through definitions and arguments."""
        if depth > MAX_DEPTH:
            return True
        todo = [node]
        while todo:
            here = todo.pop()
            if self.occurrence(here, src, env):
                return True
            if here.type == "identifier_ref":
                name = self.text(src, here)
                if name in env:
                    arg, arg_src, arg_env = env[name]
                    if self.mentions(arg, arg_src, arg_env, depth + 1):
                        return True
                elif name in self.defs and self._definition_mentions(name, depth):
                    return True
            todo.extend(here.children)
        return False

    def _definition_mentions(self, name: str, depth: int) -> bool:
        if name not in self.mentioning:
            self.mentioning[name] = False  # a recursion mentions what its body mentions
            body, src, _ = self.defs[name]
            self.mentioning[name] = self.mentions(body, src, {}, depth + 1)
        return self.mentioning[name]

    def walk(self, node: Node, src: bytes, polarity: int, env: Env, depth: int = 0
             ) -> str | None:
        """Why a bounded set in `node` may add behaviors (None: every use is monotone)."""
        if depth > MAX_DEPTH:
            return "definitions nest too deep to follow"
        found = self.occurrence(node, src, env)
        if found:
            return None if polarity > 0 else f"{found} is used where a smaller set allows more"
        kind = node.type
        if kind in _SKIP:
            return None
        if kind == "identifier_ref":
            return self._reference(node, src, polarity, env, depth)
        if kind == "bound_op":
            return self._application(node, src, polarity, env, depth)
        if kind in _KEEP:
            return self._each(node.named_children, src, polarity, env, depth)
        if kind == "bound_infix_op" and len(node.children) == 3:
            return self._infix(node, src, polarity, env, depth)
        if kind == "bound_prefix_op" and len(node.children) == 2:
            op = node.children[0].type
            if op in _SKIP_PREFIX:
                return None
            if op in _PREFIX:
                return self.walk(node.children[1], src, polarity * _PREFIX[op], env, depth)
        if kind in ("bounded_quantification", "set_filter", "set_map"):
            return self._binder(node, src, polarity, env, depth)
        if kind == "set_of_functions":
            return self._functions(node, src, polarity, env, depth)
        if kind == "if_then_else":
            return self._guarded(node.named_children[:1], node.named_children[1:], src, polarity,
                                 env, depth, "an IF condition")
        if kind == "case":
            return self._case(node, src, polarity, env, depth)
        if kind == "step_expr_or_stutter" and node.named_children:
            parts = node.named_children
            return self._guarded(parts[1:], parts[:1], src, polarity, env, depth,
                                 "a stuttering subscript")
        if self.mentions(node, src, env, depth):
            return f"a bounded set is used inside {kind.replace('_', ' ')}: " \
                   f"`{' '.join(self.text(src, node).split())[:80]}`"
        return None

    def _each(self, nodes: list[Node], src: bytes, polarity: int, env: Env, depth: int
              ) -> str | None:
        for child in nodes:
            why = self.walk(child, src, polarity, env, depth)
            if why:
                return why
        return None

    def _reference(self, node: Node, src: bytes, polarity: int, env: Env, depth: int
                   ) -> str | None:
        name = self.text(src, node)
        if name in env:
            arg, arg_src, arg_env = env[name]
            return self.walk(arg, arg_src, polarity, arg_env, depth + 1)
        if name in self.defs and (name, polarity) not in self.seen:
            self.seen.add((name, polarity))
            body, body_src, _ = self.defs[name]
            return self.walk(body, body_src, polarity, {}, depth + 1)
        return None

    def _application(self, node: Node, src: bytes, polarity: int, env: Env, depth: int
                     ) -> str | None:
        """`Op(a, b)`: `Seq(S)` (monotone in S), a definition of the modules (its body, the
        arguments in place of its parameters), or an operator of a standard module (no
        bounded set in its arguments)."""
        children = node.named_children
        if not children:
            return None
        head, args = children[0], children[1:]
        name = self.text(src, head)
        if self.occurrence(head, src, env):
            if polarity < 0:
                return f"{name} is used where a smaller set allows more"
            return self._each(args, src, polarity, env, depth)
        if name in _MONOTONE_OPS and name not in self.defs and name not in env:
            return self._each(args, src, polarity, env, depth)
        if name in self.defs and name not in env:
            body, body_src, _ = self.defs[name]
            params = _parameters(body, body_src)
            if params is not None and len(params) == len(args):
                bound = {p: (a, src, env) for p, a in zip(params, args, strict=True)}
                return self.walk(body, body_src, polarity, bound, depth + 1)
        if any(self.mentions(a, src, env, depth) for a in args):
            return f"a bounded set is passed to {name}"
        return None

    def _infix(self, node: Node, src: bytes, polarity: int, env: Env, depth: int
               ) -> str | None:
        left, op, right = node.children
        signs = _INFIX.get(op.type)
        if signs is None:
            if self.mentions(node, src, env, depth):
                return f"a bounded set is an operand of {self.text(src, op).strip()}"
            return None
        for operand, sign in ((left, signs[0]), (right, signs[1])):
            if sign == 0:
                if self.mentions(operand, src, env, depth):
                    return f"a bounded set is in an element left of {self.text(src, op).strip()}"
                continue
            why = self.walk(operand, src, polarity * sign, env, depth)
            if why:
                return why
        return None

    def _binder(self, node: Node, src: bytes, polarity: int, env: Env, depth: int
                ) -> str | None:
        """`\\E v \\in S : P` (S keeps the polarity), `\\A` (S flips it), `{v \\in S : P}`
        (both keep it), `{e : v \\in S}` (S keeps it; `e` must not mention a bounded set)."""
        flips = any(c.type == "forall" for c in node.children)
        body: list[Node] = []
        for child in node.named_children:
            if child.type in ("exists", "forall"):
                continue
            if child.type == "quantifier_bound":
                sets = [c for c in child.named_children if c.type not in ("identifier", "set_in",
                                                                          "tuple_of_identifiers")]
                why = self._each(sets, src, -polarity if flips else polarity, env, depth)
                if why:
                    return why
            else:
                body.append(child)
        if node.type == "set_map":
            if any(self.mentions(b, src, env, depth) for b in body):
                return "a bounded set is in the expression of a set map"
            return None
        return self._each(body, src, polarity, env, depth)

    def _functions(self, node: Node, src: bytes, polarity: int, env: Env, depth: int
                   ) -> str | None:
        """`[D -> R]`: monotone in R; a bounded D changes every function's domain."""
        parts = node.named_children
        domain, ranges = parts[:1], [p for p in parts[1:] if p.type != "maps_to"]
        if any(self.mentions(d, src, env, depth) for d in domain):
            return "a bounded set is the domain of a set of functions"
        return self._each(ranges, src, polarity, env, depth)

    def _guarded(self, guards: list[Node], values: list[Node], src: bytes, polarity: int,
                 env: Env, depth: int, where: str) -> str | None:
        if any(self.mentions(g, src, env, depth) for g in guards):
            return f"a bounded set is in {where}"
        return self._each(values, src, polarity, env, depth)

    def _case(self, node: Node, src: bytes, polarity: int, env: Env, depth: int) -> str | None:
        for arm in node.named_children:
            parts = [p for p in arm.named_children if p.type != "case_arrow"]
            guards, values = (parts[:1], parts[1:]) if arm.type == "case_arm" else ([], parts)
            why = self._guarded(guards, values, src, polarity, env, depth, "a CASE guard")
            if why:
                return why
        return None


Env = Mapping[str, tuple[Node, bytes, "Env"]]


def _parameters(body: Node, src: bytes) -> list[str] | None:
    """The parameter names of the definition whose body is `body` (None: one is an operator
    parameter such as `F(_)`, which this walk does not follow)."""
    definition = body.parent
    if definition is None:
        return None
    params = [p for p in definition.children_by_field_name("parameter")
              if p.type not in ("(", ")", ",")]
    if any(p.type != "identifier" for p in params):
        return None
    return [src[p.start_byte:p.end_byte].decode("utf-8", errors="replace") for p in params]


def bound_adds_behaviors(files: Mapping[str, str], roots: tuple[str, ...],
                         bounded: frozenset[str]) -> str | None:
    """Why bounding the standard sets `bounded` (`Nat`, `Int`, `Seq`, ...) in the formulas
    `roots` name may add behaviors, or None when every use is monotone (see the module)."""
    walk = _Walk(top_definitions(files), bounded)
    for root in roots:
        if root in walk.defs:
            body, src, _ = walk.defs[root]
            why = walk.walk(body, src, 1, {})
            if why:
                return why
    return None
