"""Identifier analysis of TLA+ modules with tree-sitter-tlaplus.

`analyze_module(source)` finds every definition of an author-defined identifier and every use of
an identifier, each with its byte span, and classifies each use by a scope resolver. PlusCal code
inside the `--algorithm` comment is code (tree-sitter-tlaplus parses it); other comments, strings,
numbers, keywords and record field names are not identifiers. `analyze_task(modules)` resolves
the names one module takes from another task module (EXTENDS, INSTANCE, `M!Op`, `WITH a <- b`).

Kinds of definitions: see `DEFINITION_KINDS`. A use gets the kind of the definition it resolves
to, `"module"` for a module name after EXTENDS/INSTANCE, `"standard"` for a name exported by a
standard module, or `"unresolved"`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from tlc_harness.source.nodes import Occurrence, StringLiteral
from tlc_harness.source.scan import scan_source
from tlc_harness.source.stdlib import STANDARD_MODULES, TLA_KEYWORDS, standard_exports
from tlc_harness.source.stdlib import standard_operator_names as standard_operator_names

__all__ = [
    "DEFINITION_KINDS",
    "RENAMEABLE_KINDS",
    "STANDARD_MODULES",
    "TLA_KEYWORDS",
    "ModuleIdentifiers",
    "Occurrence",
    "StringLiteral",
    "analyze_module",
    "analyze_task",
    "module_of_file",
    "standard_operator_names",
]

#: Definition kinds, in the order that picks a name's primary kind when it has several.
DEFINITION_KINDS: tuple[str, ...] = (
    "module", "constant", "variable", "procedure", "process", "label", "macro", "function",
    "instance", "operator", "theorem", "assumption", "algorithm", "parameter", "bound",
)
#: Kinds whose names CIR renames by default (parameters and bound variables only on request).
RENAMEABLE_KINDS: frozenset[str] = frozenset(DEFINITION_KINDS) - {"parameter", "bound"}


@dataclass(frozen=True)
class ModuleIdentifiers:
    """Identifiers of one `.tla` source (its first module and any inner modules).

    - `module`: name of the first module; `inner_modules`: names of modules nested in it.
    - `extends`: the first module's EXTENDS list; `instances`: every module named after
      INSTANCE; `named_instances`: instance name -> module (`M == INSTANCE X`);
      `public_instances`: modules of top-level unnamed, non-LOCAL INSTANCEs (re-exported).
    - `definitions`: name -> primary kind (`primary_kind`); `definition_kinds`: name -> all kinds.
    - `exports`: top-level non-LOCAL definitions of the first module (name -> kind).
    - `occurrences`: every identifier token, sorted by offset; `strings`: string literals.
    - `pluscal_labels`: PlusCal labels and procedure names (the values `pc` can hold).
    - `record_fields`: names used as record fields (never identifiers).
    - `unclassified`: identifier tokens in positions the analyzer does not know (expected empty).
    """

    module: str
    extends: tuple[str, ...]
    instances: tuple[str, ...]
    named_instances: Mapping[str, str]
    public_instances: tuple[str, ...]
    definitions: Mapping[str, str]
    definition_kinds: Mapping[str, frozenset[str]]
    exports: Mapping[str, str]
    occurrences: tuple[Occurrence, ...]
    strings: tuple[StringLiteral, ...]
    pluscal_labels: frozenset[str]
    has_pluscal: bool
    inner_modules: tuple[str, ...]
    unclassified: tuple[Occurrence, ...]
    record_fields: frozenset[str]

    @property
    def references(self) -> tuple[Occurrence, ...]:
        """Uses (not definitions)."""
        return tuple(o for o in self.occurrences if not o.is_definition)

    @property
    def unresolved(self) -> tuple[Occurrence, ...]:
        """Uses the resolver could not attribute to any definition."""
        return tuple(o for o in self.references if o.kind == "unresolved")

    def names(self) -> frozenset[str]:
        """Every identifier that occurs in the source (definitions and uses)."""
        return frozenset(o.name for o in self.occurrences)


def primary_kind(kinds: frozenset[str] | set[str]) -> str:
    """The kind that describes a name best when it is defined several ways."""
    for kind in DEFINITION_KINDS:
        if kind in kinds:
            return kind
    return "unresolved"


def analyze_module(source: str) -> ModuleIdentifiers:
    """Definitions and uses of identifiers in one module's source text."""
    scan = scan_source(source)
    kinds: dict[str, set[str]] = {}
    for occ in scan.occurrences:
        if occ.is_definition:
            kinds.setdefault(occ.name, set()).add(occ.kind)
    frozen_kinds = {name: frozenset(ks) for name, ks in kinds.items()}
    return ModuleIdentifiers(
        module=scan.module,
        extends=tuple(scan.extends),
        instances=tuple(dict.fromkeys(scan.instances)),
        named_instances=MappingProxyType(dict(scan.named_instances)),
        public_instances=tuple(scan.public_instances),
        definitions=MappingProxyType({n: primary_kind(ks) for n, ks in frozen_kinds.items()}),
        definition_kinds=MappingProxyType(frozen_kinds),
        exports=MappingProxyType(dict(scan.exports)),
        occurrences=tuple(scan.occurrences),
        strings=tuple(scan.strings),
        pluscal_labels=frozenset(scan.pluscal_labels),
        has_pluscal=scan.has_pluscal,
        inner_modules=tuple(scan.inner_modules),
        unclassified=tuple(scan.unclassified),
        record_fields=frozenset(scan.record_fields),
    )


def module_of_file(file_name: str) -> str:
    """`Foo` for `Foo.tla` or `dir/Foo.tla`."""
    base = file_name.replace("\\", "/").rsplit("/", 1)[-1]
    return base[:-4] if base.endswith(".tla") else base


def analyze_task(modules: Mapping[str, str]) -> dict[str, ModuleIdentifiers]:
    """Analyze every module of a task (file name -> source) and resolve cross-module uses."""
    analyzed = {fname: analyze_module(src) for fname, src in modules.items()}
    by_module: dict[str, ModuleIdentifiers] = {}
    for info in analyzed.values():
        by_module.setdefault(info.module, info)
        for inner in info.inner_modules:
            by_module.setdefault(inner, info)
    resolver = _TaskResolver(by_module)
    return {fname: resolver.resolve(info) for fname, info in analyzed.items()}


class _TaskResolver:
    """Exports of task and standard modules, used to resolve names across modules."""

    def __init__(self, by_module: Mapping[str, ModuleIdentifiers]) -> None:
        self._by_module = by_module
        self._cache: dict[str, dict[str, str]] = {}

    def exports(self, module: str, _seen: frozenset[str] = frozenset()) -> dict[str, str]:
        """Names a module makes visible to a module that EXTENDS or INSTANCEs it."""
        if module in self._cache:
            return self._cache[module]
        if module in _seen:
            return {}
        out: dict[str, str] = {}
        info = self._by_module.get(module)
        if info is None:
            if module in STANDARD_MODULES:
                out = dict.fromkeys(standard_exports(module), "standard")
        elif info.module == module:
            for imported in (*info.extends, *info.public_instances):
                out.update(self.exports(imported, _seen | {module}))
            out.update(info.exports)
        else:  # an inner module: approximate by the definitions of its file
            out.update(info.definitions)
        self._cache[module] = out
        return out

    def resolve(self, info: ModuleIdentifiers) -> ModuleIdentifiers:
        """Re-classify the unresolved uses of one module with the other modules' exports."""
        visible: dict[str, str] = {}
        for imported in (*info.extends, *info.instances):
            visible.update(self.exports(imported))
        new_occs: list[Occurrence] = []
        for occ in info.occurrences:
            if occ.kind == "unresolved":
                kind = self._kind_for(occ, info, visible)
                if kind is not None:
                    occ = dataclasses.replace(occ, kind=kind)
            new_occs.append(occ)
        return dataclasses.replace(info, occurrences=tuple(new_occs))

    def _kind_for(
        self, occ: Occurrence, info: ModuleIdentifiers, visible: Mapping[str, str]
    ) -> str | None:
        if occ.qualifier is None:
            return visible.get(occ.name)
        target = info.named_instances.get(occ.qualifier, occ.qualifier)
        found = self.exports(target).get(occ.name)
        if found is None and target in self._by_module:
            # `Op!lab` (a label inside a definition) or an inner-module name
            found = self._by_module[target].definitions.get(occ.name)
        return found
