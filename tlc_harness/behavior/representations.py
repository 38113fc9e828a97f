"""Representation variants: specs that behave exactly like a reference R with the state laid out
otherwise (the grader's positive controls; made from a behavior mutant, negative ones).

A variant `AliasRep` instances `AliasRepDefs` (a copy of R's main module that adds R's initial
predicate, next-state action and fairness pieces as definitions) with R's variables written
over the new layout's variables. Its states range over `AliasStates`, every reachable state of R
in the new layout, so TLC only has to *check* R's actions, never to solve them:
`Next == \\E t \\in AliasStates : vars' = t /\\ AliasR!AliasNext`. Model values of R's cfg are
named by `CHOOSE` over the set constant holding them, in TLC's order (first appearance in the
cfg). Fairness `WF_v(A)` becomes `WF_vars(A_k)` with `A_k` the same choice of a next state,
conjoined with `A /\\ v' # v` (through the instance).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

import tree_sitter

from tlc_harness.behavior.graphs import Explored, StateGraph, explore
from tlc_harness.behavior.rules import RULES, Layout, LayoutMaker
from tlc_harness.behavior.search import spec_shape
from tlc_harness.behavior.values import (
    Fn,
    ModelValue,
    Value,
    atoms,
    parse_value,
    to_tla,
    translate,
)
from tlc_harness.source.cfg import ModelConfig
from tlc_harness.source.formulas import conjunction_items, is_box_of_action, top_definitions
from tlc_harness.source.nodes import parser
from tlc_harness.source.stdlib import TLA_KEYWORDS, standard_names
from tlc_harness.tools.results import Verdict
from tlc_harness.tools.runner import Harness
from tlc_harness.tools.spec import SpecSource

ALL_KINDS: tuple[str, ...] = tuple(RULES)  # every registered representation rule
MAIN = "AliasRep"
DEFS = "AliasRepDefs"
_TEMPORAL = frozenset({"always", "eventually", "leads_to", "temporal_forall", "temporal_exists",
                       "fairness", "step_expr_or_stutter", "step_expr_no_stutter", "plus_arrow"})
_IDENT = re.compile(r"[A-Za-z_]\w*")
Node = tree_sitter.Node
Piece = tuple[str, int]  # a piece of R's text and the column it starts at


@dataclass(frozen=True)
class RepresentationVariant:
    """One layout of R: its files (empty when not made), main module, cfg, and whether TLC
    confirmed it (`reason`: what TLC found, or why the variant was not made)."""

    kind: str
    files: Mapping[str, str]
    main: str
    cfg: ModelConfig
    verified: bool
    reason: str

    @property
    def made(self) -> bool:
        return bool(self.files)


@dataclass(frozen=True)
class _Fair:
    strong: bool
    bounds: tuple[tuple[str, Piece], ...]  # (bound name, its set), outermost first
    sub: Piece
    action: Piece


@dataclass
class _Parts:
    init: list[Piece] = field(default_factory=list)
    next: Piece | None = None
    fairness: list[_Fair] = field(default_factory=list)


class _Unsupported(ValueError):
    pass


def _text(src: bytes, node: Node) -> str:
    return src[node.start_byte:node.end_byte].decode("utf-8", "replace")


def _child(node: Node, name: str) -> Node:
    child = node.child_by_field_name(name)
    assert child is not None, f"{node.type} without {name}"
    return child


def _spec_parts(files: Mapping[str, str], cfg: ModelConfig) -> _Parts:
    """R's initial predicate, next-state action and fairness conjuncts (from the cfg's
    SPECIFICATION, conjunct by conjunct, through `\\A x \\in S :` and named formulas)."""
    if not cfg.specification:
        if not (cfg.init and cfg.next):
            raise _Unsupported("the cfg names no SPECIFICATION nor INIT and NEXT")
        return _Parts([(cfg.init, 0)], (cfg.next, 0))
    defs = top_definitions(files)
    if cfg.specification not in defs:
        raise _Unsupported(f"no module defines the specification {cfg.specification}")
    parts = _Parts()

    def temporal(node: Node, src: bytes, seen: frozenset[str]) -> bool:
        todo = [node]
        while todo:
            n = todo.pop()
            name = _text(src, n) if n.type == "identifier_ref" else ""
            if n.type in _TEMPORAL or (name in defs and name not in seen and defs[name][2] == 0
                                       and temporal(defs[name][0], defs[name][1], seen | {name})):
                return True
            todo.extend(n.children)
        return False

    def piece(node: Node | None, src: bytes) -> Piece:
        assert node is not None
        return _text(src, node), node.start_point[1]

    def collect(formula: Node, src: bytes, bounds: tuple[tuple[str, Piece], ...],
                seen: frozenset[str]) -> None:
        for node in conjunction_items(formula):
            conjunct(node, src, bounds, seen)

    def conjunct(node: Node, src: bytes, bounds: tuple[tuple[str, Piece], ...],
                 seen: frozenset[str]) -> None:
        name = _text(src, node) if node.type == "identifier_ref" else ""
        if node.type == "bounded_quantification" and getattr(
                node.child_by_field_name("quantifier"), "type", "") == "forall":
            inner = list(bounds)
            for bound in node.children_by_field_name("bound"):
                names = bound.children_by_field_name("intro")
                if any(n.type != "identifier" for n in names):
                    raise _Unsupported(f"the fairness quantifier {_text(src, bound)!r}")
                inner += [(_text(src, n), piece(bound.child_by_field_name("set"), src))
                          for n in names]
            collect(_child(node, "expression"), src, tuple(inner), seen)
        elif node.type == "fairness" and len(node.children) == 5:
            parts.fairness.append(_Fair(node.children[0].type == "SF_", bounds,
                                        piece(node.children[1], src),
                                        piece(node.children[3], src)))
        elif is_box_of_action(node) and not bounds:
            if parts.next is not None:
                raise _Unsupported("a second [][N]_v conjunct")
            parts.next = piece(_child(node, "rhs").named_children[0], src)
        elif name in defs and name not in seen and temporal(node, src, seen):
            if defs[name][2]:
                raise _Unsupported(f"the temporal conjunct {name} has parameters")
            collect(defs[name][0], defs[name][1], bounds, seen | {name})
        elif not bounds and not temporal(node, src, seen):
            parts.init.append(piece(node, src))
        else:
            raise _Unsupported(f"the conjunct {_text(src, node)[:80]!r} of the specification")

    body, src, _ = defs[cfg.specification]
    collect(body, src, (), frozenset({cfg.specification}))
    if not parts.init or parts.next is None:
        raise _Unsupported(f"{cfg.specification} is not `Init /\\ [][Next]_v /\\ fairness`")
    return parts


def _definition(head: str, text: Piece) -> str:
    """`head == text`; a text over several lines keeps its columns (bullets stay aligned)."""
    body, column = text
    return f"{head} ==\n{' ' * column}{body}" if "\n" in body else f"{head} == {body}"


def _params(names: Sequence[str]) -> str:
    return f"({', '.join(names)})" if names else ""


def _helper(main_text: str, main: str, parts: _Parts) -> str:
    """A copy of R's main module, renamed, with the specification's pieces as definitions."""
    assert parts.next is not None
    lines = [_definition(f"AliasInit_{i}", p) for i, p in enumerate(parts.init, 1)]
    lines += ["AliasInit == " + " /\\ ".join(f"AliasInit_{i}" for i in
                                             range(1, len(parts.init) + 1)),
              _definition("AliasNext", parts.next)]
    for k, fair in enumerate(parts.fairness, 1):
        names = [n for n, _ in fair.bounds]
        lines += [_definition(f"AliasSet_{k}_{j + 1}{_params(names[:j])}", domain)
                  for j, (_, domain) in enumerate(fair.bounds)]
        lines += [_definition(f"AliasAct_{k}{_params(names)}", fair.action),
                  _definition(f"AliasSub_{k}{_params(names)}", fair.sub)]
    src = main_text.encode("utf-8")
    module = next((m for m in parser().parse(src).root_node.children if m.type == "module"), None)
    end = module.children[-1] if module is not None and module.children else None
    if end is None or end.type != "double_line":
        raise _Unsupported(f"module {main} has no closing ====")
    text = (src[:end.start_byte].decode("utf-8") + "\n" + "\n\n".join(lines) + "\n"
            + src[end.start_byte:].decode("utf-8"))
    return re.sub(rf"(-{{4,}}\s*MODULE\s+){main}\b", rf"\g<1>{DEFS}", text, count=1)


def model_values_named(cfg: ModelConfig, constants: Sequence[str]
                  ) -> tuple[dict[Value, Value], list[str]]:
    """How AliasRep names each model value of R's cfg (a constant, or a CHOOSE over the set
    constant holding it, in TLC's order: first appearance in the cfg), and the definitions."""
    order: dict[str, int] = {}
    for word in (w for _, value in cfg.constants for w in _IDENT.findall(value)):
        order.setdefault(word, len(order))
    names: dict[Value, Value] = {}
    defs: list[str] = []
    for name, value in cfg.constants:
        try:
            parsed = parse_value(value)
        except ValueError:
            continue
        if name in constants and isinstance(parsed, ModelValue):
            names.setdefault(parsed, ModelValue(name))
        elif name in constants and isinstance(parsed, frozenset) and parsed and all(
                isinstance(v, ModelValue) for v in parsed):
            chain: list[str] = []
            for m in sorted(parsed, key=lambda v: order.get(str(v), 0)):
                rest = f" \\ {{{', '.join(chain)}}}" if chain else ""
                chain.append(f"AliasM_{name}_{len(chain) + 1}")
                defs.append(f"{chain[-1]} == CHOOSE AliasX \\in {name}{rest} : TRUE")
                names.setdefault(m, ModelValue(chain[-1]))
    return names, defs


def _module(layout: Layout, graph: StateGraph, parts: _Parts, constants: Sequence[str],
            mv_names: dict[Value, Value], prelude: Sequence[str]) -> str:
    """The text of AliasRep for one layout."""
    one = len(layout.variables) == 1
    variables = (*layout.variables, *([layout.counter] if layout.counter else []))
    tup = f"<<{', '.join(variables)}>>"
    elements = [to_tla(translate(enc[0] if one else Fn.tuple_of(enc), mv_names))
                for enc in map(layout.encode, graph.states)]

    def assign(prime: str) -> str:
        if one:
            return f"{layout.variables[0]}{prime} = AliasT"
        return " /\\ ".join(f"{v}{prime} = AliasT[{i}]" for i, v in enumerate(layout.variables, 1))

    step = f" /\\ {layout.counter}' = 1 - {layout.counter}" if layout.counter else ""
    primed = assign("'")
    choose = f"\\E AliasT \\in AliasStates : {primed}{step}"
    init = f"{layout.variables[0]} \\in AliasStates" if one else \
        f"\\E AliasT \\in AliasStates : {assign('')}"
    lines = [f"---- MODULE {MAIN} ----", "EXTENDS Integers",
             *([f"CONSTANTS {', '.join(constants)}"] if constants else []),
             f"VARIABLES {', '.join(variables)}", *prelude, *layout.definitions,
             f"AliasR == INSTANCE {DEFS} WITH " + ", ".join(f"{r} <- {e}" for r, e in layout.subs),
             "AliasStates == {\n    " + ",\n    ".join(elements) + "}",
             f"Init == {init}" + (f" /\\ {layout.counter} = 0" if layout.counter else "")
             + " /\\ AliasR!AliasInit",
             f"Next == {choose} /\\ AliasR!AliasNext"]
    fair = []
    for k, f in enumerate(parts.fairness, 1):
        params = [f"AliasB{j}" for j in range(1, len(f.bounds) + 1)]
        p, sub = _params(params), f"AliasR!AliasSub_{k}{_params(params)}"
        lines.append(f"AliasA_{k}{p} == {choose} /\\ AliasR!AliasAct_{k}{p} /\\ ({sub})' # {sub}")
        quants = "".join(f"\\A {b} \\in AliasR!AliasSet_{k}_{j + 1}{_params(params[:j])} : "
                         for j, b in enumerate(params))
        fair.append(f"({quants}{'SF' if f.strong else 'WF'}_{tup}(AliasA_{k}{p}))")
    if fair:
        lines.append("AliasFairness == " + " /\\ ".join(fair))
    lines += [f"Spec == Init /\\ [][Next]_{tup}" + (" /\\ AliasFairness" if fair else ""), "===="]
    return "\n".join(lines) + "\n"


def _variant_cfg(cfg: ModelConfig, files: Mapping[str, str], main: str, constants: Sequence[str]
                 ) -> tuple[ModelConfig, list[str]]:
    """R's cfg for AliasRep: SPECIFICATION Spec and R's constants. A constant overridden by a
    definition gets it in AliasRep (a literal only); values and overrides of R's definitions act
    in the copy of R's main module (`[AliasRepDefs]`)."""
    defs = top_definitions(files)
    allowed = standard_names() | TLA_KEYWORDS | cfg.model_values() | {"TRUE", "FALSE"}
    extra: list[str] = []
    qualify = re.compile(rf"^\s*(?:\[\s*{main}\s*\]\s*|(?!\[))")
    values = [(n, v if n in constants else qualify.sub(f"[{DEFS}] ", v)) for n, v in cfg.constants]
    overrides = []
    for name, target in cfg.overrides:
        if name in constants and not target.lstrip().startswith("["):
            found = defs.get(target)
            body = _text(found[1], found[0]) if found and found[2] == 0 else None
            if body is None or not all(w in allowed for w in _IDENT.findall(body)):
                raise _Unsupported(f"the cfg overrides {name} by {target}, not a literal")
            extra.append(f"{target} == {' '.join(body.split())}")
        overrides.append((name, target if name in constants else
                          qualify.sub(f"[{DEFS}] ", target)))
    return ModelConfig(constants=tuple(values), overrides=tuple(overrides),
                       specification="Spec", check_deadlock=cfg.check_deadlock), extra


def reference_graph(harness: Harness, files: Mapping[str, str], main: str, cfg: ModelConfig,
                    tlc_args: Sequence[str] = (), max_states: int = 2000
                    ) -> tuple[StateGraph, list[str]] | str:
    """R's reachable graph with its variables in R's declaration order, and R's constants in
    TLC's order of model values; or why it cannot be laid out."""
    found = explore(harness, SpecSource(main, dict(files)), cfg, tlc_args=tlc_args,
                    budget=max_states + 1)
    if found.graph is None:
        return (f"skipped: the reference's graph has more than {max_states} states"
                if found.verdict == Explored.OVER_BUDGET else
                f"the reference's graph cannot be explored ({found.verdict}: "
                f"{found.detail[:200]})")
    shape, graph = spec_shape(files, main), found.graph
    if sorted(shape.variables) == sorted(graph.variables):  # R's order, not TLC's
        at = [graph.variables.index(v) for v in shape.variables]
        graph = StateGraph(shape.variables, [tuple(s[i] for i in at) for s in graph.states],
                           graph.initial, graph.edges)
    listed = [n for n, _ in (*cfg.constants, *cfg.overrides) if n in shape.constants]
    return graph, list(dict.fromkeys([*listed, *shape.constants]))  # TLC's order of model values


def representation_variants(harness: Harness, files: Mapping[str, str], main: str,
                            cfg: ModelConfig, tlc_args: Sequence[str] = (), *,
                            kinds: Sequence[str] = ALL_KINDS, max_states: int = 2000,
                            check_fairness: bool = True,
                            makers: Mapping[str, LayoutMaker] | None = None
                            ) -> list[RepresentationVariant]:
    """One variant per kind of the reference (`main` among `files`, checked with `cfg`),
    checked by TLC: ok, and R's number of distinct states (history: up to twice as many).
    `check_fairness`: the check also has TLC evaluate the variant's fairness (as a property).
    `makers`: layouts of one's own by kind (generated ones), instead of the registered rules."""
    kinds = tuple(makers) if makers is not None else kinds

    def unmade(kind: str, why: str) -> RepresentationVariant:
        return RepresentationVariant(kind, {}, MAIN, cfg, False, why)

    found = reference_graph(harness, files, main, cfg, tlc_args, max_states)
    if isinstance(found, str):
        return [unmade(k, found) for k in kinds]
    graph, constants = found
    try:
        parts = _spec_parts(files, cfg)
        helper = _helper(files[f"{main}.tla"], main, parts)
        vcfg, overrides = _variant_cfg(cfg, files, main, constants)
    except _Unsupported as exc:
        return [unmade(k, f"unsupported: {exc}") for k in kinds]
    mv_names, mv_defs = model_values_named(cfg, constants)
    unnamed = sorted({str(a) for s in graph.states for v in s for a in atoms(v)
                      if isinstance(a, ModelValue) and a not in mv_names})
    out = []
    for kind in kinds:
        taken = set(constants) | standard_names() | TLA_KEYWORDS | set(graph.variables)
        make = makers[kind] if makers is not None else RULES[kind].layout
        layout = make(graph, taken, mv_names)
        if isinstance(layout, str) or unnamed:
            out.append(unmade(kind, layout if isinstance(layout, str) else
                              f"unsupported: no constant of the cfg names {', '.join(unnamed)}"))
            continue
        text = _module(layout, graph, parts, constants, mv_names, [*mv_defs, *overrides])
        vfiles = {**files, f"{DEFS}.tla": helper, f"{MAIN}.tla": text}
        fair = bool(parts.fairness) and check_fairness
        ok, why = _verify(harness, vfiles, vcfg, tlc_args, len(graph), layout.counter is not None,
                          fair)
        out.append(RepresentationVariant(kind, vfiles, MAIN, vcfg, ok, why))
    return out


def _verify(harness: Harness, files: Mapping[str, str], cfg: ModelConfig, tlc_args: Sequence[str],
            states: int, history: bool, fairness: bool) -> tuple[bool, str]:
    """TLC runs the variant (deadlock unchecked; with `fairness`, its fairness as a property):
    ok, and R's number of distinct states (history: up to twice as many)."""
    check = replace(cfg, check_deadlock=False, properties=("AliasFairness",) if fairness else ())
    result = harness.check(SpecSource(MAIN, dict(files)), check,
                           tlc_args=[a for a in tlc_args if a != "-deadlock"], compat=True)
    if result.verdict is not Verdict.OK or result.vacuous:
        return False, f"TLC: {result.verdict.value} {result.violated or result.detail[:300]}"
    n = result.distinct_states or 0
    if (states <= n <= 2 * states) if history else n == states:
        return True, f"{n} distinct states (the reference has {states})"
    return False, f"{n} distinct states, the reference has {states}"
