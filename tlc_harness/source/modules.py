"""The modules of a `.tla` file: its top-level modules apart, and what each imports.

A file may hold several top-level modules one after another (the first is the file's own;
SANY 2.1 of the 2020 jar reads only that one) and modules nested inside a module (which SANY
reads as part of it). `split_modules` gives each top-level module its own text, so that each
can be staged in a file of its name; nested modules stay where they are. `imported_modules`
lists the modules a text EXTENDS or INSTANCEs, read with tree-sitter, so comments, strings and
a module's own nested modules never count.
"""

from __future__ import annotations

from dataclasses import dataclass

from tree_sitter import Node

from tlc_harness.source.nodes import parser


@dataclass(frozen=True)
class ModuleText:
    """One top-level module of a file: its name, its text, the line its header is on."""

    name: str
    text: str
    line: int


@dataclass(frozen=True)
class ModuleImport:
    """A module named after EXTENDS or INSTANCE, with the (1-based) line that names it."""

    name: str
    line: int


def _name_of(src: bytes, module: Node) -> str | None:
    for child in module.children:
        if child.type == "identifier":
            return src[child.start_byte:child.end_byte].decode("utf-8", "replace")
    return None


def split_modules(source: str) -> tuple[ModuleText, ...]:
    """The top-level modules of `source`, in file order. The first keeps the text before it
    (a file's leading comment) and ends at its closing line; every later one is its own text
    from its header to its closing line. A source with no module gives ()."""
    src = source.encode("utf-8")
    root = parser().parse(src).root_node
    modules = [c for c in root.children if c.type == "module"]
    out: list[ModuleText] = []
    for index, node in enumerate(modules):
        name = _name_of(src, node)
        if name is None:
            continue
        start = 0 if index == 0 else node.start_byte
        text = src[start:node.end_byte].decode("utf-8", "replace").rstrip() + "\n"
        out.append(ModuleText(name, text, node.start_point[0] + 1))
    return tuple(out)


def defined_modules(source: str) -> frozenset[str]:
    """Every module `source` defines, top-level and nested."""
    src = source.encode("utf-8")
    found: set[str] = set()
    todo = [parser().parse(src).root_node]
    while todo:
        node = todo.pop()
        if node.type == "module" and (name := _name_of(src, node)) is not None:
            found.add(name)
        todo.extend(node.children)
    return frozenset(found)


def imported_modules(source: str) -> tuple[ModuleImport, ...]:
    """The modules `source` EXTENDS or INSTANCEs, first mention first, less the modules it
    defines itself (nested or further top-level modules of the same file)."""
    src = source.encode("utf-8")
    found: dict[str, int] = {}
    todo = [parser().parse(src).root_node]
    while todo:
        node = todo.pop()
        refs: list[Node] = []
        if node.type == "extends":
            refs = [c for c in node.children if c.type == "identifier_ref"]
        elif node.type == "instance":
            refs = [c for c in node.children if c.type == "identifier_ref"][:1]
        for ref in refs:
            name = src[ref.start_byte:ref.end_byte].decode("utf-8", "replace")
            line = ref.start_point[0] + 1
            found[name] = min(found.get(name, line), line)
        todo.extend(reversed(node.children))
    own = defined_modules(source)
    ordered = sorted(found.items(), key=lambda item: item[1])
    return tuple(ModuleImport(name, line) for name, line in ordered if name not in own)
