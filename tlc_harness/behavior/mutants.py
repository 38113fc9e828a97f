"""Mutants of a TLA+ module: the grader's negative controls.

A mutation changes one place of the module text:

- `number`: one natural-number literal n becomes n+1 or n-1;
- `comparison`: one of `< <= > >= = #` flips (`<` <-> `<=`, `>` <-> `>=`, `=` <-> `#`);
- `init_value`: one number (n+1, n-1) or `TRUE`/`FALSE` inside the initial predicate;
- `drop_guard`: one guard (a conjunct with no prime and no `UNCHANGED`, directly or through the
  definitions it uses) is dropped from an action's top-level `/\\` list (weakening it);
- `negate_guard`: one single-line guard `G` becomes `~(G)` (altering it);
- `drop_disjunct`: one disjunct is dropped from an action's top-level `\\/` list.

Where: sites are found with tree-sitter-tlaplus by node type, so comments, strings and PlusCal
code inside comments are never touched. Only definitions that make the behavior count: those
reachable from the initial predicate and the next-state action (cfg `INIT`/`NEXT`, or read from
`SPECIFICATION`, or `Init`/`Next`), not through the cfg's `x <- y` overrides: the substitute
`y`, and every definition only it uses, is the model's value for `x`, which the grader gives the
output as well (a changed one changes the mutant's own model, not its behavior). Invariants,
properties, constraints, fairness and theorems are not mutated (a changed invariant is no
negative control: the behaviors are the same). Definitions the cfg binds (`N = 3`, `N <- M`: the
left side) are skipped, since TLC never evaluates their bodies. `=`/`#` is not flipped when
either side is primed or, in the initial predicate, when it assigns a variable (TLC could no
longer enumerate the states). Without an initial predicate or next-state action every top-level
definition is used. Guard and disjunct kinds use definitions reachable from the next-state action.

Layout: a dropped conjunct or disjunct is blanked (its characters become spaces, line breaks
kept), so every other token keeps its line and column and `/\\` `\\/` alignment cannot break. A
shorter replacement is padded with spaces; a longer one takes spaces that follow it, and a site
whose growth would shift a later junction bullet on its line is skipped.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace

import tree_sitter

from tlc_harness.source.cfg import ModelConfig
from tlc_harness.source.nodes import parser
from tlc_harness.tools.results import Verdict
from tlc_harness.tools.runner import Harness
from tlc_harness.tools.spec import SpecSource, module_name_of

Node = tree_sitter.Node

KINDS: tuple[str, ...] = (
    "number", "comparison", "init_value", "drop_guard", "negate_guard", "drop_disjunct",
)
_FLIP = {"<": "<=", "\\lt": "\\leq", "<=": "<", "=<": "<", "\\leq": "<", ">": ">=",
         "\\gt": "\\geq", ">=": ">", "\\geq": ">", "=": "#", "#": "=", "/=": "=", "\\neq": "="}
_COMPARISONS = frozenset({"lt", "leq", "gt", "geq", "eq", "neq"})
_ACTION_NODES = frozenset({"prime", "unchanged"})
_BULLETS = frozenset({"bullet_conj", "bullet_disj"})
_TEMPORAL = frozenset({"fairness", "always", "eventually", "step_expr_or_stutter", "prime"})
_WRAPPERS = frozenset({"bounded_quantification", "unbounded_quantification", "parentheses",
                       "let_in"})
#: TLC verdicts that come with a full or partial state count worth comparing.
COUNTED_VERDICTS = frozenset({Verdict.OK, Verdict.INVARIANT_VIOLATED, Verdict.PROPERTY_VIOLATED,
                              Verdict.DEADLOCK})


@dataclass(frozen=True)
class Site:
    """One place to mutate: replace `text[start:end]` (== `old`) by `new` (character offsets)."""

    kind: str
    start: int
    end: int
    old: str
    new: str
    line: int
    column: int
    definition: str

    def describe(self) -> str:
        where = f"line {self.line} col {self.column}"
        if self.kind.startswith("drop_"):
            first = " ".join(self.old.split())
            return f"{where}: {self.kind.replace('_', ' ')} `{first[:60]}` in {self.definition}"
        return f"{where}: {self.old.strip()} -> {self.new.strip()} in {self.definition}"


@dataclass(frozen=True)
class Mutant:
    """A mutated module: its kind, where it was changed (human-readable), the whole text."""

    kind: str
    site: str
    text: str


class _Module:
    """The parsed module: definitions, their references, and text offsets."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.src = text.encode("utf-8")
        self.ascii = text.isascii()
        root = parser().parse(self.src).root_node
        module = next((c for c in root.children if c.type == "module"), None)
        self.defs: dict[str, Node] = {}
        self.variables: set[str] = set()
        self.bullets: list[tuple[int, int]] = []
        for node in module.children if module is not None else []:
            if node.type == "local_definition" and node.named_child_count:
                node = node.named_children[-1]
            if node.type in ("operator_definition", "function_definition"):
                name, body = node.child_by_field_name("name"), node.child_by_field_name(
                    "definition")
                if name is not None and body is not None:
                    self.defs[self.node_text(name)] = body
            elif node.type == "variable_declaration":
                self.variables.update(self.node_text(c) for c in node.named_children
                                      if c.type == "identifier")
        if module is not None:
            self.bullets = [(n.start_point[0], n.start_point[1]) for n in _walk(module)
                            if n.type in _BULLETS]

    def node_text(self, node: Node) -> str:
        return self.src[node.start_byte:node.end_byte].decode("utf-8")

    def char(self, byte: int) -> int:
        return byte if self.ascii else len(self.src[:byte].decode("utf-8", "replace"))

    def refs(self, name: str) -> set[str]:
        body = self.defs.get(name)
        return set() if body is None else {self.node_text(n) for n in _walk(body)
                                           if n.type == "identifier_ref"}

    def reachable(self, roots: Sequence[str], bound: Mapping[str, str]) -> list[str]:
        """The definitions `roots` use, directly or through others; a name the cfg
        substitutes (`C <- Def`, a key of `bound`) is not followed: TLC never evaluates its
        body, and its substitute, with every definition only the substitute uses, is the
        model's value, which the grader gives the output too."""
        seen: list[str] = []
        todo = [bound.get(r, r) for r in roots]
        while todo:
            name = todo.pop()
            if name in seen or name not in self.defs:
                continue
            seen.append(name)
            todo.extend(r for r in sorted(self.refs(name)) if r not in bound)
        return seen

    def action_level(self) -> set[str]:
        """Definitions whose bodies contain a prime or UNCHANGED, directly or by reference."""
        out = {n for n, b in self.defs.items() if any(x.type in _ACTION_NODES for x in _walk(b))}
        changed = True
        while changed:
            grown = {n for n in self.defs if n not in out and self.refs(n) & out}
            changed = bool(grown)
            out |= grown
        return out


def _ident_char(ch: str) -> bool:
    return ch[:1].isalnum() or ch[:1] == "_"


def _walk(node: Node) -> Iterator[Node]:
    stack = [node]
    while stack:
        cur = stack.pop()
        yield cur
        stack.extend(reversed(cur.children))


def _strip(node: Node) -> Node:
    """Look through `\\E x : e`, `(e)` and `LET ... IN e` to the expression `e`."""
    while node.type in _WRAPPERS:
        inner = node.child_by_field_name("expression") if node.type != "parentheses" else (
            node.named_children[0] if node.named_child_count else None)
        if inner is None:
            break
        node = inner
    return node


def _operands(node: Node, list_type: str, symbol: str) -> tuple[list[Node], bool]:
    """Items of a bulleted list (`conj_list`/`disj_list`) or operands of an infix chain."""
    node = _strip(node)
    if node.type == list_type:
        return [c for c in node.named_children if c.type.endswith("_item")], True
    out: list[Node] = []

    def flatten(n: Node) -> None:
        sym = n.child_by_field_name("symbol") if n.type == "bound_infix_op" else None
        if sym is not None and sym.type == symbol:
            for side in ("lhs", "rhs"):
                child = n.child_by_field_name(side)
                if child is not None:
                    flatten(child)
        else:
            out.append(n)

    flatten(node)
    return out, False


def _conjuncts(node: Node) -> list[Node]:
    """The conjuncts of `node`, through nested bulleted lists and infix `/\\` chains."""
    items, bulleted = _operands(node, "conj_list", "land")
    if len(items) == 1 and not bulleted:
        return items
    return [c for item in items
            for c in _conjuncts(item.named_children[-1] if bulleted else item)]


def _names_of_cfg(cfg: ModelConfig | None) -> tuple[dict[str, str], set[str]]:
    if cfg is None:
        return {}, set()
    bound = {lhs: rhs.rsplit("]", 1)[-1].strip() for lhs, rhs in cfg.overrides}
    # Definitions the cfg substitutes (`C <- Def`) belong to the model, not to the spec: a grader
    # gives the output the reference model's values, so mutating them changes no behavior.
    # CONSTRAINTs bound the model too: a mutated constraint explores fewer states, but the grader
    # applies the reference's own constraint to the output's run, so behavior is unchanged.
    model = set(cfg.constraints) | set(cfg.action_constraints)
    return bound, ({lhs for lhs, _ in (*cfg.constants, *cfg.overrides)} | set(bound.values())
                   | model)


def _init_next(mod: _Module, cfg: ModelConfig | None) -> tuple[str | None, str | None]:
    init = cfg.init if cfg and cfg.init else None
    nxt = cfg.next if cfg and cfg.next else None
    spec = mod.defs.get(cfg.specification if cfg and cfg.specification else "Spec")
    if spec is not None:
        for node in _walk(spec):
            if node.type == "step_expr_or_stutter" and nxt is None:
                inner = node.named_children[0] if node.named_child_count else None
                nxt = mod.node_text(inner) if inner and inner.type == "identifier_ref" else None
        names = [mod.node_text(c) for c in _conjuncts(spec) if c.type == "identifier_ref"]
        init = init or next((n for n in names if n in mod.defs and not any(
            x.type in _TEMPORAL for x in _walk(mod.defs[n]))), None)
    init = init or ("Init" if "Init" in mod.defs else None)
    nxt = nxt or ("Next" if "Next" in mod.defs else None)
    return (init if init in mod.defs else None), (nxt if nxt in mod.defs else None)


class _SiteFinder:
    def __init__(self, text: str, cfg: ModelConfig | None) -> None:
        self.mod = _Module(text)
        bound, excluded = _names_of_cfg(cfg)
        self.init, self.next = _init_next(self.mod, cfg)
        roots = [n for n in (self.init, self.next) if n]
        defs = self.mod.reachable(roots, bound) if roots else list(self.mod.defs)
        self.defs = [d for d in defs if d not in excluded]
        self.actions = ([d for d in self.mod.reachable([self.next], bound) if d not in excluded]
                        if self.next else self.defs)
        self.action_level = self.mod.action_level()
        self.sites: list[Site] = []

    def add(self, kind: str, definition: str, start_b: int, end_b: int, new: str | None = None,
            ) -> None:
        text = self.mod.text
        start, end = self.mod.char(start_b), self.mod.char(end_b)
        old = text[start:end]
        if new is None:  # blank out, keeping line breaks and tabs
            new = "".join(c if c in "\n\r\t" else " " for c in old)
        elif len(new) < len(old):
            new += " " * (len(old) - len(new))
        elif len(new) > len(old):
            grow = len(new) - len(old)
            after = text[end:end + grow + 1]
            glued = _ident_char(after[grow:]) and _ident_char(new[-1])  # `10THEN` is a name
            if after[:grow] == " " * grow and not glued:
                end, old = end + grow, text[start:end + grow]
            elif self._bullet_after(start):
                return
        line = text.count("\n", 0, start)
        column = start - (text.rfind("\n", 0, start) + 1)
        self.sites.append(Site(kind, start, end, old, new, line + 1, column + 1, definition))

    def _bullet_after(self, start: int) -> bool:
        line = self.mod.text.count("\n", 0, start)
        col = len(self.mod.text[self.mod.text.rfind("\n", 0, start) + 1:start].encode("utf-8"))
        return any(bl == line and bc > col for bl, bc in self.mod.bullets)

    def is_action(self, node: Node) -> bool:
        return any(n.type in _ACTION_NODES or (n.type == "identifier_ref" and
                                               self.mod.node_text(n) in self.action_level)
                   for n in _walk(node))

    def literals(self) -> None:
        for name in self.defs:
            kind = "init_value" if name == self.init else "number"
            for node in _walk(self.mod.defs[name]):
                if node.type == "nat_number":
                    value = int(self.mod.node_text(node))
                    for new in (value + 1, value - 1):
                        if new >= 0:
                            self.add(kind, name, node.start_byte, node.end_byte, str(new))
                elif node.type == "boolean" and name == self.init:
                    flip = "FALSE" if self.mod.node_text(node) == "TRUE" else "TRUE"
                    self.add(kind, name, node.start_byte, node.end_byte, flip)

    def comparisons(self) -> None:
        for name in self.defs:
            for node in _walk(self.mod.defs[name]):
                sym = node.child_by_field_name("symbol") if node.type == "bound_infix_op" else None
                if sym is None or sym.type not in _COMPARISONS:
                    continue
                old = self.mod.node_text(sym)
                if old not in _FLIP:
                    continue
                if sym.type in ("eq", "neq"):
                    sides = [node.child_by_field_name(s) for s in ("lhs", "rhs")]
                    if any(s is not None and any(n.type == "prime" for n in _walk(s))
                           for s in sides):
                        continue
                    lhs = sides[0]
                    if (name == self.init and lhs is not None and lhs.type == "identifier_ref"
                            and self.mod.node_text(lhs) in self.mod.variables):
                        continue
                self.add("comparison", name, sym.start_byte, sym.end_byte, _FLIP[old])

    def junctions(self) -> None:
        for name in self.actions:
            body = self.mod.defs[name]
            for list_type, symbol, kind in (("conj_list", "land", "drop_guard"),
                                            ("disj_list", "lor", "drop_disjunct")):
                items, bulleted = _operands(body, list_type, symbol)
                if len(items) < 2:
                    continue
                for i, item in enumerate(items):
                    content = item.named_children[-1] if bulleted else item
                    if kind == "drop_guard" and self.is_action(content):
                        continue
                    if bulleted:
                        span = (item.start_byte, item.end_byte)
                    elif i == 0:
                        span = (item.start_byte, items[1].start_byte)
                    else:
                        span = (items[i - 1].end_byte, item.end_byte)
                    self.add(kind, name, *span)
                    text = self.mod.node_text(content)
                    if kind == "drop_guard" and "\n" not in text:
                        self.add("negate_guard", name, content.start_byte, content.end_byte,
                                 f"~({text})")


def mutation_sites(module_text: str, *, cfg: ModelConfig | None = None) -> list[Site]:
    """Every mutation site of the module, in kind order then text order (see module docs)."""
    finder = _SiteFinder(module_text, cfg)
    finder.literals()
    finder.comparisons()
    finder.junctions()
    order = {k: i for i, k in enumerate(KINDS)}
    return sorted(finder.sites, key=lambda s: (order[s.kind], s.start, s.new))


def apply_mutation(module_text: str, site: Site) -> Mutant:
    """The module with `site` changed; raises ValueError if the site does not fit the text."""
    if module_text[site.start:site.end] != site.old:
        raise ValueError(f"site {site.describe()} does not match the module text")
    text = module_text[:site.start] + site.new + module_text[site.end:]
    return Mutant(site.kind, site.describe(), text)


def mutants(module_text: str, rng: random.Random, limit: int, *,
            cfg: ModelConfig | None = None) -> list[Mutant]:
    """Up to `limit` mutants, sampled with `rng` round-robin across kinds (kinds in an rng order,
    sites in an rng order within each kind)."""
    by_kind: dict[str, list[Site]] = {}
    for site in mutation_sites(module_text, cfg=cfg):
        by_kind.setdefault(site.kind, []).append(site)
    kinds = sorted(by_kind)
    rng.shuffle(kinds)
    for sites in by_kind.values():
        rng.shuffle(sites)
    chosen: list[Site] = []
    while len(chosen) < limit and any(by_kind.values()):
        for kind in kinds:
            if by_kind[kind] and len(chosen) < limit:
                chosen.append(by_kind[kind].pop())
    return [apply_mutation(module_text, s) for s in chosen]


def behaves_differently(harness: Harness, task_spec_files: Mapping[str, str], cfg: ModelConfig,
                        mutant: Mutant, original_states: int, *, tlc_args: Sequence[str] = (),
                        timeout: float | None = None) -> bool:
    """Keep a mutant only if TLC reports a different number of reachable states.

    The mutant replaces its module among the task's files and runs with the task's cfg. A run
    stopped by a violated invariant or property or by a deadlock has not counted every reachable
    state (a mutant of a property alone stops it early while its behaviors are the original's),
    so it is run again without invariants, properties and deadlock check, and that complete
    count is compared. Parse, config, evaluation errors, timeouts and infrastructure errors are
    not kept: they say nothing about behavior.
    """
    main = module_name_of(mutant.text)
    if main is None:
        return False
    spec = SpecSource(main, {**task_spec_files, f"{main}.tla": mutant.text})
    result = harness.check(spec, cfg, tlc_args=tlc_args, timeout=timeout)
    if result.verdict in COUNTED_VERDICTS and result.verdict is not Verdict.OK:
        explore = replace(cfg, invariants=(), properties=(), check_deadlock=False)
        result = harness.check(spec, explore, tlc_args=tlc_args, timeout=timeout)
    return (result.verdict is Verdict.OK and not result.partial
            and result.distinct_states is not None and result.distinct_states != original_states)
