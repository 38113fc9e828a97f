"""The behavior a specification formula is: its initial predicate and its next-state action.

`Spec == Init2 /\\ [][Next2]_vars /\\ WF_vars(Next2)` is the behavior of `Init2` and `Next2`,
whatever a module also defines under the names `Init` and `Next`; so is `Spec == Safe /\\ Fair`
with `Safe == Init2 /\\ [][Next2]_vars`. `spec_parts` reads the two names, `spec_expressions`
the two texts (for parts written as expressions, `x = 0 /\\ [][A \\/ B]_x`), both following
the zero-argument definitions that hold the formula's one box of an action.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from tlc_harness.source.formulas import (
    MAX_DEFINITIONS,
    Node,
    conjunction_items,
    has_box_of_action,
    holds,
    is_box_of_action,
    is_temporal,
    top_definitions,
)


@dataclass(frozen=True)
class _Items:
    """The initial predicate's conjuncts and the next-state action, each a syntax node with
    its module's bytes."""

    init: tuple[tuple[Node, bytes], ...]
    action: tuple[Node, bytes]


def _text(src: bytes, node: Node) -> str:
    return src[node.start_byte:node.end_byte].decode("utf-8", "replace")


def _instanced(node: Node) -> bool:
    """Whether `node` uses an instance's operator (`Svc!Fairness`), whose level is not read
    here: after the box it is taken for a temporal conjunct, as a formula is written."""
    return holds(node, "prefixed_op")


def _items(files: Mapping[str, str], spec: str) -> _Items | None:
    """The parts of the zero-argument formula `spec`: its conjuncts, through the definitions
    that hold a box of an action, sorted into state predicates (the initial predicate),
    one `[][N]_v`, and temporal conjuncts (left out; so is an instance's operator after the
    box, `Svc!Fairness`). None where it has not that shape: no state predicate, not exactly
    one box, a box below another operator, or a definition followed twice."""
    defs = top_definitions(files)
    if spec not in defs or defs[spec][2]:
        return None
    memo: dict[str, bool] = {}
    init: list[tuple[Node, bytes]] = []
    boxes: list[tuple[Node, bytes]] = []
    seen = {spec}

    def collect(formula: Node, src: bytes) -> bool:
        for node in conjunction_items(formula):
            name = _text(src, node) if node.type == "identifier_ref" else ""
            if is_box_of_action(node):
                boxes.append((node, src))
            elif name in defs and defs[name][2] == 0 and has_box_of_action(defs[name][0]):
                if name in seen or len(seen) > MAX_DEFINITIONS:
                    return False
                seen.add(name)
                if not collect(defs[name][0], defs[name][1]):
                    return False
            elif is_temporal(node, src, defs, memo):
                if has_box_of_action(node):
                    return False  # `\\A p : [][A(p)]_v`, `[][A]_v \\/ ...`: not read
            elif not (boxes and _instanced(node)):
                init.append((node, src))
        return True

    if not collect(defs[spec][0], defs[spec][1]) or len(boxes) != 1 or not init:
        return None
    box, src = boxes[0]
    rhs = box.child_by_field_name("rhs")
    action = [c for c in rhs.children if c.is_named][:1] if rhs is not None else []
    return _Items(tuple(init), (action[0], src)) if action else None


def spec_parts(files: Mapping[str, str], spec: str) -> tuple[str, str] | None:
    """(Init, Next): the names of the initial predicate and the next-state action of the
    formula `spec`, each one zero-argument definition; None where either is an expression
    (see `spec_expressions`) or the formula has not the shape `I /\\ [][N]_v /\\ F`."""
    items = _items(files, spec)
    if items is None or len(items.init) != 1:
        return None
    defs = top_definitions(files)
    names = [_text(src, node) if node.type == "identifier_ref" else ""
             for node, src in (items.init[0], items.action)]
    if all(n in defs and defs[n][2] == 0 for n in names):
        return names[0], names[1]
    return None


def spec_expressions(files: Mapping[str, str], spec: str
                     ) -> tuple[tuple[str, ...], str] | None:
    """(initial predicate's conjuncts, next-state action) of `spec == I /\\ [][N]_v /\\ F`,
    whatever I and N are (`Init(s)`, `x \\in 1..5`, `A \\/ B`): the state predicates among its
    conjuncts, and the one box's action, each as text that starts on a new line at its own
    column (so a bulleted list inside keeps its layout); the temporal conjuncts (fairness,
    `<>P`) are left to the readers of temporal parts. None where the formula has not that
    shape."""
    items = _items(files, spec)
    if items is None:
        return None

    def placed(node: Node, src: bytes) -> str:
        return "\n" + " " * node.start_point[1] + _text(src, node)
    return tuple(placed(n, s) for n, s in items.init), placed(*items.action)
