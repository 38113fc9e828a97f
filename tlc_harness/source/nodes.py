"""Records of identifier analysis, scopes, and the tree-sitter-tlaplus parser."""

from __future__ import annotations

import functools
import threading
import warnings
from collections.abc import Iterator
from dataclasses import dataclass, field

import tree_sitter
import tree_sitter_tlaplus


@dataclass(frozen=True)
class Occurrence:
    """One identifier token: a definition or a use.

    `start`/`end` are byte offsets into the UTF-8 encoded source; `line` and `column` are 1-based
    (the column counts bytes). `qualifier` is the instance for `M!Op` (`"M"`) or the instanced
    module for the left side of `INSTANCE X WITH a <- b` (`"X"`). `in_pluscal` marks tokens of a
    PlusCal algorithm (inside a comment). `module` is the (possibly inner) module holding it.
    """

    name: str
    kind: str
    start: int
    end: int
    line: int
    column: int
    is_definition: bool
    qualifier: str | None = None
    in_pluscal: bool = False
    module: str = ""


@dataclass(frozen=True)
class StringLiteral:
    """A string literal; `start`/`end` span its content (without the quotes), in bytes."""

    value: str
    start: int
    end: int
    line: int
    column: int
    in_pluscal: bool = False


@functools.lru_cache(maxsize=1)
def language() -> tree_sitter.Language:
    """The TLA+ grammar."""
    with warnings.catch_warnings():
        # tree-sitter-tlaplus 1.5 hands out an int pointer, which tree-sitter 0.26 deprecates
        warnings.filterwarnings("ignore", "int argument support is deprecated", DeprecationWarning)
        return tree_sitter.Language(tree_sitter_tlaplus.language())


_local = threading.local()


def parser() -> tree_sitter.Parser:
    """One parser per thread (tree-sitter parsers are not thread-safe)."""
    parser: tree_sitter.Parser | None = getattr(_local, "parser", None)
    if parser is None:
        parser = _local.parser = tree_sitter.Parser(language())
    return parser


class Scope:
    """Names bound at one level, and the enclosing level."""

    __slots__ = ("names", "parent")

    def __init__(self, parent: Scope | None, names: dict[str, str] | None = None) -> None:
        self.parent = parent
        self.names: dict[str, str] = names if names is not None else {}

    def lookup(self, name: str) -> str | None:
        scope: Scope | None = self
        while scope is not None:
            kind = scope.names.get(name)
            if kind is not None:
                return kind
            scope = scope.parent
        return None


@dataclass
class ScanResult:
    """Raw result of one walk (see `identifiers.ModuleIdentifiers` for the public form)."""

    module: str = ""
    extends: list[str] = field(default_factory=list)
    instances: list[str] = field(default_factory=list)
    named_instances: dict[str, str] = field(default_factory=dict)
    public_instances: list[str] = field(default_factory=list)
    exports: dict[str, str] = field(default_factory=dict)
    occurrences: list[Occurrence] = field(default_factory=list)
    strings: list[StringLiteral] = field(default_factory=list)
    pluscal_labels: set[str] = field(default_factory=set)
    has_pluscal: bool = False
    inner_modules: list[str] = field(default_factory=list)
    unclassified: list[Occurrence] = field(default_factory=list)
    record_fields: set[str] = field(default_factory=set)


@dataclass(frozen=True)
class Ctx:
    """What the walk knows at a node: the scope, the module, whether inside PlusCal."""

    scope: Scope
    module: str = ""
    in_pluscal: bool = False


def descendants(node: tree_sitter.Node) -> Iterator[tree_sitter.Node]:
    """`node` and every node below it, in document order."""
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        stack.extend(reversed(n.children))
