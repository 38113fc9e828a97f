"""TLA+ modules that real specifications import and the bundled 2020 jar lacks.

The folder holds the TLAPS proof pragmas, statements of the TLAPS library's theorems (TLC does
not check proofs) and CommunityModules operators written as plain TLA+ that TLC evaluates.
A run sees a library module only when neither its own files nor the jar have a module of that
name, and only the ones its main module reaches through EXTENDS and INSTANCE.
"""

from __future__ import annotations

import functools
import hashlib
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from importlib import resources
from types import MappingProxyType
from typing import Any

_BLOCK_COMMENT = re.compile(r"\(\*.*?\*\)", re.S)
_LINE_COMMENT = re.compile(r"\\\*[^\n]*")
_STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"')
_EXTENDS = re.compile(r"\bEXTENDS\s+([A-Za-z0-9_]+(?:\s*,\s*[A-Za-z0-9_]+)*)")
_INSTANCE = re.compile(r"\bINSTANCE\s+([A-Za-z0-9_]+)")
_NAME = re.compile(r"[A-Za-z0-9_]+")


def imported_modules(text: str) -> tuple[str, ...]:
    """Module names a TLA+ source EXTENDS or INSTANCEs (comments and strings skipped)."""
    code = _STRING.sub('""', _LINE_COMMENT.sub(" ", _BLOCK_COMMENT.sub(" ", text)))
    names: list[str] = []
    for hit in _EXTENDS.finditer(code):
        names.extend(_NAME.findall(hit.group(1)))
    names.extend(hit.group(1) for hit in _INSTANCE.finditer(code))
    return tuple(dict.fromkeys(names))


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class ModuleLibrary:
    """Library modules by name (module name -> source text)."""

    modules: Mapping[str, str] = field(default_factory=dict)
    shadowed: tuple[str, ...] = ()   # bundled modules left out because the jar has its own

    def __post_init__(self) -> None:
        object.__setattr__(self, "modules", MappingProxyType(dict(sorted(self.modules.items()))))

    def without(self, names: Iterable[str]) -> ModuleLibrary:
        """This library less the modules named in `names` (e.g. the jar's standard modules)."""
        drop = set(names)
        kept = {n: t for n, t in self.modules.items() if n not in drop}
        gone = sorted(set(self.shadowed) | (drop & set(self.modules)))
        return ModuleLibrary(kept, tuple(gone))

    def needed_by(self, main: str, files: Mapping[str, str]) -> dict[str, str]:
        """Library modules a run of `main` uses, as file name -> text, in name order.

        `files` are the run's own files (file name -> text); a module they hold is never taken
        from the library. Imports are followed from `main` through the run's own files and
        through the library modules taken."""
        own = {name[:-4]: text for name, text in files.items() if name.endswith(".tla")}
        taken: dict[str, str] = {}
        todo = [main]
        seen: set[str] = set()
        while todo:
            name = todo.pop()
            if name in seen:
                continue
            seen.add(name)
            text = own.get(name)
            if text is None and name in self.modules:
                text = taken[name] = self.modules[name]
            if text is not None:
                todo.extend(imported_modules(text))
        return {f"{name}.tla": taken[name] for name in sorted(taken)}

    @property
    def sha256(self) -> str:
        """One hash over every module's name and text."""
        digest = hashlib.sha256()
        for name, text in self.modules.items():
            digest.update(f"{name}\0{_sha256(text)}\n".encode())
        return digest.hexdigest()

    def describe(self) -> dict[str, Any]:
        """Provenance for run headers: each module's sha256, a hash over all, jar-shadowed names."""
        return {"sha256": self.sha256,
                "modules": {name: _sha256(text) for name, text in self.modules.items()},
                "shadowed_by_jar": list(self.shadowed)}


@functools.lru_cache(maxsize=1)
def bundled_library() -> ModuleLibrary:
    """The modules shipped in this folder (`tlc_harness/tools/library/*.tla`)."""
    folder = resources.files(__name__)
    modules = {}
    for entry in folder.iterdir():
        if entry.name.endswith(".tla") and entry.is_file():
            modules[entry.name[:-4]] = entry.read_text(encoding="utf-8")
    return ModuleLibrary(modules)
