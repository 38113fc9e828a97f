"""The tree walk behind `tlc_harness.source.identifiers`: tree-sitter nodes to identifier occurrences.

The walk is iterative (deep expressions never hit Python's recursion limit) and carries a scope
with every node; binder nodes open a new scope. Module-level names are collected before the walk,
so a use before its definition (RECURSIVE, PlusCal code above its translation) still resolves.
"""

from __future__ import annotations

import tree_sitter

from tlc_harness.source.nodes import Ctx, Occurrence, ScanResult, Scope, StringLiteral, parser
from tlc_harness.source.stdlib import standard_operator_names

Node = tree_sitter.Node


# Nodes that bind names over their whole subtree (quantifier-like binders).
_BINDERS = frozenset({
    "bounded_quantification", "unbounded_quantification", "choose", "set_filter", "set_map",
    "function_literal", "lambda", "function_definition", "pick_proof_step", "take_proof_step",
    "pcal_with",
})
# Binders whose bare `identifier` children are the bound names.
_BARE_BINDERS = frozenset({"lambda", "pcal_with", "pick_proof_step", "take_proof_step"})
# Nodes whose `identifier` children are record field names.
_FIELD_PARENTS = frozenset({"record_literal", "set_of_records", "pcal_lhs"})
# Nodes skipped entirely (comment text, numbers, ...).
_SKIP = frozenset({
    "comment", "block_comment_text", "extramodular_text", "header_line", "double_line",
    "single_line", "proof_step_id", "proof_step_ref", "nat_number", "real_number",
    "binary_number", "octal_number", "hex_number",
})
_MODULE_LEVEL_DEFS = {
    "operator_definition": "operator", "function_definition": "function",
    "module_definition": "instance", "theorem": "theorem", "assumption": "assumption",
}


def _text(src: bytes, node: Node) -> str:
    return src[node.start_byte:node.end_byte].decode("utf-8", "replace")


def _children_with_fields(node: Node) -> list[tuple[str | None, Node]]:
    return [(node.field_name_for_child(i), ch) for i, ch in enumerate(node.children)]


def _decl_name(node: Node) -> Node | None:
    """The identifier declared by an `identifier` or `operator_declaration` node."""
    if node.type == "identifier":
        return node
    if node.type == "operator_declaration":
        name = node.child_by_field_name("name")
        if name is not None and name.type == "identifier":
            return name
    return None


def _intro_identifiers(node: Node) -> list[Node]:
    """Bound identifiers introduced by a binder node or a quantifier_bound."""
    out: list[Node] = []
    for fname, ch in _children_with_fields(node):
        if ch.type == "quantifier_bound":
            out.extend(_intro_identifiers(ch))
        elif ch.type == "tuple_of_identifiers":
            out.extend(c for c in ch.children if c.type == "identifier")
        elif ch.type == "identifier" and (fname == "intro" or node.type in _BARE_BINDERS):
            out.append(ch)
    return out


def scan_source(source: str) -> ScanResult:
    """Walk the tree of `source` and collect identifiers (the body of `analyze_module`)."""
    return _Walker(source.encode("utf-8")).run()


class _Walker:
    """One walk over one source.

    `on_<node type>` methods classify the identifiers a node owns; they return the children to
    walk (with their context), or None to let the generic walk continue into the node.
    """

    def __init__(self, src: bytes) -> None:
        self.src = src
        self.out = ScanResult()
        self.handled: set[int] = set()  # start bytes of identifier nodes already classified
        self.std_ops = standard_operator_names()
        self.module_scopes: dict[str, dict[str, str]] = {}  # module name -> its top-level names

    # -- emitting -----------------------------------------------------------------------------
    def _occ(self, node: Node, kind: str, ctx: Ctx, *, definition: bool,
             qualifier: str | None = None, target: list[Occurrence] | None = None) -> None:
        self.handled.add(node.start_byte)
        occ = Occurrence(
            name=_text(self.src, node), kind=kind, start=node.start_byte, end=node.end_byte,
            line=node.start_point[0] + 1, column=node.start_point[1] + 1,
            is_definition=definition, qualifier=qualifier, in_pluscal=ctx.in_pluscal,
            module=ctx.module,
        )
        (self.out.occurrences if target is None else target).append(occ)

    def define(self, node: Node | None, kind: str, ctx: Ctx) -> None:
        if node is not None and node.type == "identifier":
            self._occ(node, kind, ctx, definition=True)

    def reference(self, node: Node, ctx: Ctx, qualifier: str | None = None) -> None:
        name = _text(self.src, node)
        if qualifier is not None:
            kind = "unresolved"
            qkind = ctx.scope.lookup(qualifier)
            target = self.out.named_instances.get(qualifier, qualifier)
            if target in self.module_scopes:  # an inner module of this file
                kind = self.module_scopes[target].get(name, kind)
            elif qkind in ("operator", "theorem", "assumption", "function"):
                kind = ctx.scope.lookup(name) or "label"  # `Op!lab` names a label in Op
        else:
            kind = ctx.scope.lookup(name) or ("standard" if name in self.std_ops else "unresolved")
        self._occ(node, kind, ctx, definition=False, qualifier=qualifier)

    def module_ref(self, node: Node, ctx: Ctx) -> None:
        self._occ(node, "module", ctx, definition=False)

    # -- main loop ----------------------------------------------------------------------------
    def run(self) -> ScanResult:
        tree = parser().parse(self.src)
        stack: list[tuple[Node, Ctx]] = [(tree.root_node, Ctx(Scope(None)))]
        while stack:
            node, ctx = stack.pop()
            children = self.visit(node, ctx)
            stack.extend(reversed(children))
        self.out.occurrences.sort(key=lambda o: o.start)
        return self.out

    def visit(self, node: Node, ctx: Ctx) -> list[tuple[Node, Ctx]]:
        """Classify `node`'s own identifiers; return the children to walk, with their context."""
        t = node.type
        if t in _SKIP:
            return []
        if t == "string":
            self._string(node, ctx)
            return []
        if t == "identifier_ref":
            if node.start_byte not in self.handled:
                self.reference(node, ctx)
            return []
        if t == "identifier":
            if node.start_byte not in self.handled:
                self._occ(node, "unclassified", ctx, definition=False, target=self.out.unclassified)
            return []
        handler = getattr(self, "on_" + t, None)
        if handler is not None:
            result: list[tuple[Node, Ctx]] | None = handler(node, ctx)
            if result is not None:
                return result
        if t in _BINDERS:
            ctx = self._bind(node, ctx)
        if t in _FIELD_PARENTS:
            for ch in node.children:
                if ch.type == "identifier":
                    self._field(ch)
        for fname, ch in _children_with_fields(node):
            if fname == "label" and ch.type == "identifier":  # PlusCal label
                self.define(ch, "label", ctx)
                self.out.pluscal_labels.add(_text(self.src, ch))
        return [(ch, ctx) for ch in node.children]

    def _bind(self, node: Node, ctx: Ctx) -> Ctx:
        kind = "parameter" if node.type == "lambda" else "bound"
        names: dict[str, str] = {}
        for ident in _intro_identifiers(node):
            self.define(ident, kind, ctx)
            names[_text(self.src, ident)] = kind
        if node.type == "function_definition":
            name = node.child_by_field_name("name")
            self.define(name, "function", ctx)
        return Ctx(Scope(ctx.scope, names), ctx.module, ctx.in_pluscal)

    def _string(self, node: Node, ctx: Ctx) -> None:
        start, end = node.start_byte + 1, node.end_byte - 1
        if end < start:
            return
        self.out.strings.append(StringLiteral(
            self.src[start:end].decode("utf-8", "replace"), start, end,
            node.start_point[0] + 1, node.start_point[1] + 2, ctx.in_pluscal))

    # -- modules ------------------------------------------------------------------------------
    def on_module(self, node: Node, ctx: Ctx) -> list[tuple[Node, Ctx]]:
        name_node = node.child_by_field_name("name")
        name = _text(self.src, name_node) if name_node is not None else ""
        outer = not self.out.module
        if outer:
            self.out.module = name
        else:
            self.out.inner_modules.append(name)
            ctx.scope.names.setdefault(name, "module")
        inner_ctx = Ctx(Scope(ctx.scope, {name: "module"}), name, ctx.in_pluscal)
        self.module_scopes[name] = inner_ctx.scope.names
        self.define(name_node, "module", inner_ctx)
        for ch in node.children:
            self._predeclare(ch, inner_ctx.scope, export=outer)
        return [(ch, inner_ctx) for ch in node.children if ch is not name_node]

    def _predeclare(self, node: Node, scope: Scope, *, export: bool, local: bool = False) -> None:
        t = node.type
        names: list[tuple[str, str]] = []
        if t == "local_definition":
            for ch in node.children:
                self._predeclare(ch, scope, export=export, local=True)
            return
        if t in _MODULE_LEVEL_DEFS:
            name = node.child_by_field_name("name")
            if name is not None and name.type == "identifier":
                names.append((_text(self.src, name), _MODULE_LEVEL_DEFS[t]))
        elif t in ("constant_declaration", "variable_declaration", "recursive_declaration"):
            kind = {"constant_declaration": "constant", "variable_declaration": "variable"}.get(
                t, "operator")
            for ch in node.children:
                ident = _decl_name(ch)
                if ident is not None:
                    names.append((_text(self.src, ident), kind))
        elif t == "module":
            name = node.child_by_field_name("name")
            if name is not None:
                names.append((_text(self.src, name), "module"))
        for name_text, kind in names:
            scope.names.setdefault(name_text, kind)
            if export and not local:
                self.out.exports.setdefault(name_text, kind)

    def on_extends(self, node: Node, ctx: Ctx) -> list[tuple[Node, Ctx]]:
        for ch in node.children:
            if ch.type == "identifier_ref":
                self.module_ref(ch, ctx)
                if ctx.module == self.out.module:
                    self.out.extends.append(_text(self.src, ch))
        return []

    def on_instance(self, node: Node, ctx: Ctx) -> list[tuple[Node, Ctx]]:
        target = next((c for c in node.children if c.type == "identifier_ref"), None)
        if target is None:
            return []
        self.module_ref(target, ctx)
        module = _text(self.src, target)
        self.out.instances.append(module)
        parent = node.parent
        if parent is not None and parent.type == "module_definition":
            name = parent.child_by_field_name("name")
            if name is not None:
                self.out.named_instances[_text(self.src, name)] = module
        elif parent is not None and parent.type == "module" and ctx.module == self.out.module:
            self.out.public_instances.append(module)  # unnamed, not LOCAL: re-exported
        for sub in node.children:
            if sub.type == "substitution":
                lhs = sub.children[0] if sub.children else None
                if lhs is not None and lhs.type == "identifier_ref":
                    self.reference(lhs, ctx, qualifier=module)
        return [(ch, ctx) for ch in node.children if ch is not target]

    # -- definitions --------------------------------------------------------------------------
    def on_operator_definition(self, node: Node, ctx: Ctx) -> list[tuple[Node, Ctx]]:
        return self._with_parameters(node, ctx, "operator")

    def on_module_definition(self, node: Node, ctx: Ctx) -> list[tuple[Node, Ctx]]:
        return self._with_parameters(node, ctx, "instance")

    def _with_parameters(self, node: Node, ctx: Ctx, kind: str) -> list[tuple[Node, Ctx]]:
        self.define(node.child_by_field_name("name"), kind, ctx)
        params: dict[str, str] = {}
        for fname, ch in _children_with_fields(node):
            ident = _decl_name(ch) if fname == "parameter" else None
            if ident is not None:
                self.define(ident, "parameter", ctx)
                params[_text(self.src, ident)] = "parameter"
        inner = Ctx(Scope(ctx.scope, params), ctx.module, ctx.in_pluscal)
        return [(ch, inner) for ch in node.children]

    def on_constant_declaration(self, node: Node, ctx: Ctx) -> list[tuple[Node, Ctx]]:
        return self._declare(node, ctx, "constant")

    def on_variable_declaration(self, node: Node, ctx: Ctx) -> list[tuple[Node, Ctx]]:
        return self._declare(node, ctx, "variable")

    def on_recursive_declaration(self, node: Node, ctx: Ctx) -> list[tuple[Node, Ctx]]:
        return self._declare(node, ctx, "operator")

    def on_new(self, node: Node, ctx: Ctx) -> list[tuple[Node, Ctx]]:
        return self._declare(node, ctx, "bound")

    def _declare(self, node: Node, ctx: Ctx, kind: str) -> list[tuple[Node, Ctx]]:
        for ch in node.children:
            self.define(_decl_name(ch), kind, ctx)
        return [(ch, ctx) for ch in node.children if ch.type != "operator_declaration"]

    def on_theorem(self, node: Node, ctx: Ctx) -> list[tuple[Node, Ctx]]:
        self.define(node.child_by_field_name("name"), "theorem", ctx)
        names: dict[str, str] = {}
        stack = list(node.children)
        while stack:  # NEW/PICK/TAKE/DEFINE anywhere in the theorem scope over all of it
            cur = stack.pop()
            kind = "bound"
            if cur.type == "new":
                idents = [_decl_name(c) for c in cur.children]
            elif cur.type in ("pick_proof_step", "take_proof_step"):
                idents = list(_intro_identifiers(cur))
            elif cur.type == "definition_proof_step":
                idents = [c.child_by_field_name("name") for c in cur.children]
                kind = "operator"
            else:
                idents = []
            for ident in idents:
                if ident is not None and ident.type == "identifier":
                    names.setdefault(_text(self.src, ident), kind)
            stack.extend(cur.children)
        inner = Ctx(Scope(ctx.scope, names), ctx.module, ctx.in_pluscal)
        return [(ch, inner) for ch in node.children]

    def on_assumption(self, node: Node, ctx: Ctx) -> None:
        self.define(node.child_by_field_name("name"), "assumption", ctx)

    def on_let_in(self, node: Node, ctx: Ctx) -> list[tuple[Node, Ctx]]:
        names: dict[str, str] = {}
        for ch in node.children:
            if ch.type in _MODULE_LEVEL_DEFS:
                name = ch.child_by_field_name("name")
                if name is not None and name.type == "identifier":
                    names[_text(self.src, name)] = _MODULE_LEVEL_DEFS[ch.type]
            elif ch.type == "recursive_declaration":
                for decl in ch.children:
                    ident = _decl_name(decl)
                    if ident is not None:
                        names[_text(self.src, ident)] = "operator"
        inner = Ctx(Scope(ctx.scope, names), ctx.module, ctx.in_pluscal)
        return [(ch, inner) for ch in node.children]

    def on_label(self, node: Node, ctx: Ctx) -> None:
        self.define(node.child_by_field_name("name"), "label", ctx)

    # -- record fields and qualified names ----------------------------------------------------
    def on_record_value(self, node: Node, ctx: Ctx) -> None:
        after_dot = False
        for ch in node.children:
            if after_dot and ch.type in ("identifier_ref", "identifier"):
                self._field(ch)
            after_dot = ch.type == "."

    def on_except_update_record_field(self, node: Node, ctx: Ctx) -> list[tuple[Node, Ctx]]:
        for ch in node.children:
            if ch.type in ("identifier_ref", "identifier"):
                self._field(ch)
        return []

    def _field(self, node: Node) -> None:
        self.handled.add(node.start_byte)
        self.out.record_fields.add(_text(self.src, node))

    def on_prefixed_op(self, node: Node, ctx: Ctx) -> None:
        prefix = node.child_by_field_name("prefix")
        qualifier: str | None = None
        if prefix is not None:
            for comp in prefix.children:
                if comp.type != "subexpr_component":
                    continue
                for ch in comp.children:
                    ident = ch if ch.type == "identifier_ref" else ch.child_by_field_name("name")
                    if ident is not None and ident.type == "identifier_ref":
                        if qualifier is None:
                            self.reference(ident, ctx)
                        else:
                            self.reference(ident, ctx, qualifier=qualifier)
                        qualifier = _text(self.src, ident)
        op = node.child_by_field_name("op")
        if op is not None and qualifier is not None:
            ident = op if op.type == "identifier_ref" else op.child_by_field_name("name")
            if ident is not None and ident.type == "identifier_ref":
                self.reference(ident, ctx, qualifier=qualifier)

    # -- PlusCal ------------------------------------------------------------------------------
    def on_pcal_algorithm(self, node: Node, ctx: Ctx) -> list[tuple[Node, Ctx]]:
        self.out.has_pluscal = True
        names: dict[str, str] = {"self": "bound"}
        stack = list(node.children)
        while stack:
            cur = stack.pop()
            t = cur.type
            if t in ("pcal_var_decl", "pcal_proc_var_decl"):
                ident = next((c for c in cur.children if c.type == "identifier"), None)
                if ident is not None:
                    names.setdefault(_text(self.src, ident), "variable")
            elif t in ("pcal_proc_decl", "pcal_process", "pcal_macro_decl"):
                name = cur.child_by_field_name("name")
                kind = {"pcal_proc_decl": "procedure", "pcal_process": "process"}.get(t, "macro")
                if name is not None:
                    names[_text(self.src, name)] = kind
                    if kind == "procedure":
                        self.out.pluscal_labels.add(_text(self.src, name))
            for fname, ch in _children_with_fields(cur):
                if fname == "label" and ch.type == "identifier":
                    names.setdefault(_text(self.src, ch), "label")
            stack.extend(cur.children)
        inner = Ctx(Scope(ctx.scope, names), ctx.module, True)
        self.define(node.child_by_field_name("name"), "algorithm", inner)
        return [(ch, inner) for ch in node.children]

    def on_pcal_var_decl(self, node: Node, ctx: Ctx) -> None:
        self.define(next((c for c in node.children if c.type == "identifier"), None),
                    "variable", ctx)

    on_pcal_proc_var_decl = on_pcal_var_decl

    def on_pcal_proc_decl(self, node: Node, ctx: Ctx) -> None:
        self.define(node.child_by_field_name("name"), "procedure", ctx)

    def on_pcal_process(self, node: Node, ctx: Ctx) -> None:
        self.define(node.child_by_field_name("name"), "process", ctx)

    def on_pcal_macro(self, node: Node, ctx: Ctx) -> list[tuple[Node, Ctx]]:
        params: dict[str, str] = {}
        decl = next((c for c in node.children if c.type == "pcal_macro_decl"), None)
        if decl is not None:
            self.define(decl.child_by_field_name("name"), "macro", ctx)
            for fname, ch in _children_with_fields(decl):
                if fname == "parameter" and ch.type == "identifier":
                    self.define(ch, "parameter", ctx)
                    params[_text(self.src, ch)] = "parameter"
        inner = Ctx(Scope(ctx.scope, params), ctx.module, ctx.in_pluscal)
        return [(ch, inner) for ch in node.children]

    def on_pcal_macro_call(self, node: Node, ctx: Ctx) -> None:
        self._pcal_name_ref(node.child_by_field_name("name"), ctx)

    on_pcal_proc_call = on_pcal_macro_call

    def on_pcal_goto(self, node: Node, ctx: Ctx) -> None:
        self._pcal_name_ref(node.child_by_field_name("statement"), ctx)

    def _pcal_name_ref(self, node: Node | None, ctx: Ctx) -> None:
        if node is not None and node.type == "identifier":
            self.reference(node, ctx)


