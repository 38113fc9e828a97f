"""Why SANY rejected an output, read from the output itself: its class for the failure taxonomy.

The class comes from the project's own reading of the text as SANY reads it (every comment
blanked, PlusCal algorithms too, so lines and columns stay): tree-sitter-tlaplus's parse tree,
the modules it names, and the identifier resolution against the standard modules
(`tlc_harness.source`). SANY's English messages are never read. The first class that holds, in
SANY's own order (it parses a module before it loads the modules it names, and resolves names
last):

- ``pluscal_or_python``: PlusCal or Python statements where TLA+ is expected: an ``:=``
  assignment, or two statement words of PlusCal or Python (``begin``, ``while``, ``def``, ...)
  inside the regions tree-sitter cannot parse;
- ``syntax``: any other region tree-sitter cannot parse (an ERROR or a MISSING node);
- ``unknown_module``: EXTENDS or INSTANCE names a module that is no standard module, no module
  of the reply and none of the harness's module library (`tlc_harness.tools.library`);
- ``std_module_not_extended``: a name or an operator symbol a standard module defines
  (``Cardinality``, ``Nat``, ``+``, ``\\o``) used where no module the output imports, directly
  or through the modules it imports, brings it;
- ``unknown_operator``: a name used that nothing defines (not the output, not a module it
  imports, no standard module);
- ``other``: none of these: a semantic error this reading does not name (an operator's arity,
  a level error, a name defined twice, a layout SANY reads differently from tree-sitter).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import tree_sitter

from tlc_harness.source.identifiers import analyze_task, module_of_file
from tlc_harness.source.modules import imported_modules
from tlc_harness.source.nodes import descendants, parser
from tlc_harness.source.stdlib import (
    STANDARD_EXPORTS,
    STANDARD_EXTENDS,
    STANDARD_MODULES,
    standard_exports,
)
from tlc_harness.source.tokens import blank_comments
from tlc_harness.tools.library import bundled_library

PARSE_FAILURE_CLASSES = ("pluscal_or_python", "syntax", "unknown_module",
                         "std_module_not_extended", "unknown_operator", "other")
"""The classes of a ``parse_error``, in the order they are tried."""

#: Statement words of PlusCal and Python that TLA+ never writes (its own are upper case) and
#: prose seldom does; two of them in the regions tree-sitter cannot parse mark a program.
STATEMENT_WORDS = frozenset({
    "begin", "while", "either", "await", "goto", "skip", "elsif", "macro", "procedure",
    "algorithm", "--algorithm", "--fair", "def", "elif", "import", "lambda", "return", "self",
    "True", "False", "None",
})
ASSIGNMENT = ":="

#: tree-sitter-tlaplus node types of the operators and sets a standard module defines.
STANDARD_SYMBOLS: Mapping[str, tuple[str, str]] = {
    "plus": ("+", "Naturals"), "minus": ("-", "Naturals"), "mul": ("*", "Naturals"),
    "pow": ("^", "Naturals"), "lt": ("<", "Naturals"), "gt": (">", "Naturals"),
    "leq": ("<=", "Naturals"), "geq": (">=", "Naturals"), "mod": ("%", "Naturals"),
    "div": ("\\div", "Naturals"), "dots_2": ("..", "Naturals"),
    "nat_number_set": ("Nat", "Naturals"), "negative": ("-", "Integers"),
    "int_number_set": ("Int", "Integers"), "slash": ("/", "Reals"),
    "real_number_set": ("Real", "Reals"), "circ": ("\\o", "Sequences"),
    "map_to": (":>", "TLC"), "compose": ("@@", "TLC"), "oplus": ("(+)", "Bags"),
    "ominus": ("(-)", "Bags"), "sqsubseteq": ("\\sqsubseteq", "Bags"),
}


@dataclass(frozen=True)
class ParseFailure:
    """The class of one parse failure and what shows it (a name, a module, a place)."""

    kind: str
    evidence: str = ""


def classify_parse_failure(files: Mapping[str, str], main: str) -> ParseFailure:
    """The class of the parse failure of the spec ``main`` made of ``files`` (file name ->
    text: the output's module and its own helper modules, as SANY was given them)."""
    texts = {module_of_file(f): blank_comments(t) for f, t in files.items() if f.endswith(".tla")}
    order = [main, *sorted(set(texts) - {main})]
    trees = {m: parser().parse(texts[m].encode("utf-8")) for m in order if m in texts}
    for check in (_program, _syntax):
        for module, tree in trees.items():
            found = check(tree, texts[module].encode("utf-8"))
            if found is not None:
                return found
    library = bundled_library().modules
    modules = _reached(texts, library)
    unknown = [m for m in modules if m not in texts and m not in library
               and m not in STANDARD_MODULES]
    if unknown:
        return ParseFailure("unknown_module", ", ".join(unknown))
    visible = {m for m in modules if m in STANDARD_MODULES}
    visible |= {base for m in visible for base in _standard_bases(m)}
    sources = {**{f"{m}.tla": t for m, t in texts.items()},
               **{f"{m}.tla": library[m] for m in modules if m in library and m not in texts}}
    analyzed = analyze_task(sources)
    defined = {name for info in analyzed.values() for name in info.definitions}
    names = {name for m in visible for name in standard_exports(m)} | defined
    for module in order:
        info = analyzed[f"{module}.tla"]
        for occ in info.references:
            if occ.kind == "standard" and occ.name not in names:
                return ParseFailure("std_module_not_extended",
                                    f"`{occ.name}` ({_exporter(occ.name)}) on line {occ.line}")
        found = _symbol(trees[module], visible)
        if found is not None:
            return found
    for module in order:
        for occ in analyzed[f"{module}.tla"].unresolved:
            return ParseFailure("unknown_operator", f"`{occ.name}` on line {occ.line}")
        found = _not_yet_defined(trees[module], texts[module].encode("utf-8"))
        if found is not None:
            return found
    return ParseFailure("other")


def _program(tree: tree_sitter.Tree, src: bytes) -> ParseFailure | None:
    """PlusCal or Python where TLA+ is expected: an ``:=`` anywhere, or two statement words
    in the regions tree-sitter cannot parse."""
    words: dict[str, int] = {}
    for node in descendants(tree.root_node):
        if node.type == ASSIGNMENT and not node.is_missing:
            return ParseFailure("pluscal_or_python", f"`:=` on line {node.start_point[0] + 1}")
        if node.type == "ERROR":
            for leaf in descendants(node):
                text = _text(src, leaf)
                if leaf.child_count == 0 and text in STATEMENT_WORDS:
                    words.setdefault(text, leaf.start_point[0] + 1)
    if len(words) >= 2:
        shown = sorted(words.items(), key=lambda item: item[1])[:3]
        return ParseFailure("pluscal_or_python",
                            ", ".join(f"`{w}` on line {line}" for w, line in shown))
    return None


def _syntax(tree: tree_sitter.Tree, src: bytes) -> ParseFailure | None:
    """The first region tree-sitter cannot parse that holds no other, if any."""
    for node in descendants(tree.root_node):
        if _broken(node) and not any(_broken(n) for n in descendants(node) if n != node):
            line, column = node.start_point
            if node.parent is None or node.parent.type == "source_file":
                last = node.end_point[0] + (node.end_point[1] > 0)  # 1-based, a final newline not a line
                return ParseFailure("syntax", f"lines {line + 1} to {last} as a whole")
            what = f"missing `{node.type}`" if node.is_missing else \
                f"`{' '.join(_text(src, node).split())[:30]}`"
            return ParseFailure("syntax", f"{what} at line {line + 1}, col {column + 1}")
    return None


def _broken(node: tree_sitter.Node) -> bool:
    return node.type == "ERROR" or node.is_missing


def _not_yet_defined(tree: tree_sitter.Tree, src: bytes) -> ParseFailure | None:
    """An operator used before its definition ends (in its own body, or above it) that no
    RECURSIVE declares: where it is used, SANY knows no operator of that name."""
    for module in (n for n in descendants(tree.root_node) if n.type == "module"):
        units = [u for c in module.children
                 for u in (c.children if c.type in ("local_definition", "recursive_declaration")
                           else [c])]
        recursive = {_text(src, name) for c in module.children if c.type == "recursive_declaration"
                     for d in c.children if (name := d.child_by_field_name("name")) is not None}
        ends: dict[str, int] = {}
        for unit in units:
            name = unit.child_by_field_name("name") if unit.type == "operator_definition" else None
            if name is not None:
                ends.setdefault(_text(src, name), unit.end_byte)
        for node in _own_nodes(module):
            text = _text(src, node) if node.type == "identifier_ref" else ""
            if text in ends and node.start_byte < ends[text] and text not in recursive:
                return ParseFailure("unknown_operator", f"`{text}` on line "
                                    f"{node.start_point[0] + 1}, before its definition ends")
    return None


def _own_nodes(module: tree_sitter.Node) -> list[tree_sitter.Node]:
    """The nodes of ``module`` outside the modules nested in it."""
    out, todo = [], list(module.children)
    while todo:
        node = todo.pop()
        if node.type != "module":
            out.append(node)
            todo.extend(node.children)
    return sorted(out, key=lambda n: n.start_byte)


def _symbol(tree: tree_sitter.Tree, visible: Iterable[str]) -> ParseFailure | None:
    """The first standard operator symbol (or ``Nat``, ``Int``, ``Real``) whose module is not
    among the ``visible`` standard modules."""
    seen = set(visible)
    for node in descendants(tree.root_node):
        symbol = STANDARD_SYMBOLS.get(node.type)
        if symbol is not None and symbol[1] not in seen and not node.is_missing:
            return ParseFailure("std_module_not_extended",
                                f"`{symbol[0]}` ({symbol[1]}) on line {node.start_point[0] + 1}")
    return None


def _reached(texts: Mapping[str, str], library: Mapping[str, str]) -> list[str]:
    """Every module the spec's modules import, through its own and the library's modules, in
    the order first named."""
    found: dict[str, None] = {}
    todo = list(texts)
    done: set[str] = set()
    while todo:
        module = todo.pop(0)
        if module in done:
            continue
        done.add(module)
        text = texts.get(module, library.get(module))
        if text is None:
            continue
        for imported in imported_modules(text):
            found.setdefault(imported.name)
            todo.append(imported.name)
    return [m for m in found if m not in texts]


def _standard_bases(module: str) -> set[str]:
    """The standard modules ``module`` extends, transitively (``Reals``: ``Integers``,
    ``Naturals``)."""
    bases = set(STANDARD_EXTENDS.get(module, ()))
    return bases.union(*(_standard_bases(b) for b in bases))


def _exporter(name: str) -> str:
    """The standard module that defines ``name`` itself."""
    return next(m for m, names in STANDARD_EXPORTS.items() if name in names)


def _text(src: bytes, node: tree_sitter.Node) -> str:
    return src[node.start_byte:node.end_byte].decode("utf-8", "replace")
