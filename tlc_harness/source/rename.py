"""Consistent identifier renaming (CIR) of a task: its modules and its cfg.

A rename map is applied by *name* over the whole task: every identifier token (definition or use,
in every task module, in `M!Op`, in `INSTANCE X WITH a <- b`, in EXTENDS/INSTANCE lists and in
the PlusCal algorithm inside the comment) whose name the map renames is replaced. Because TLA+
forbids shadowing and every new name is fresh, this is an alpha-renaming: the renamed task has
the same behaviours. Never touched: keywords, standard-module names and their operators, record
field names, strings, numbers and comments (other than PlusCal code).

Decisions (deliberate):
- PlusCal `pc` values are label strings. Labels and procedure names renamed in the algorithm are
  renamed in every task string literal equal to them too (`pc[self] = "Loop"`, `procedure |->
  "P"`), so the renamed module is still the translation of the renamed algorithm. This is the only
  exception to "strings are values"; a new label name never equals an existing string.
- In a task with a PlusCal algorithm, names the translator generates (`pc`, `stack`, `self`,
  `ProcSet`, `Init`, `Next`, `Spec`, `Termination`, `vars`, `Lbl_<n>`, ...) keep their names.
- Names are replaced by names of the same length (SANY reads the columns of `/\\` and `\\/`
  lists); a map that changes lengths is refused unless `allow_length_change=True`.
- Record fields of PlusCal `stack` frames keep the old variable names (they are values).
"""

from __future__ import annotations

import itertools
import random
import re
import string
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from tlc_harness.source.cfg import KEYWORDS as CFG_KEYWORDS
from tlc_harness.source.cfg import format_cfg, parse_cfg
from tlc_harness.source.header import header_module
from tlc_harness.source.identifiers import (
    RENAMEABLE_KINDS,
    ModuleIdentifiers,
    analyze_task,
    module_of_file,
    primary_kind,
)
from tlc_harness.source.stdlib import (
    PLUSCAL_KEYWORDS,
    PLUSCAL_TRANSLATION_NAMES,
    TLA_KEYWORDS,
    is_tla_identifier,
    reserved_new_names,
    standard_names,
)

__all__ = [
    "RenameError",
    "RenameMap",
    "TaskNames",
    "random_rename_map",
    "rename_cfg",
    "rename_modules",
    "renameable_names",
    "validate_map",
]

_AUTO_LABEL = re.compile(r"Lbl_\d+\Z")
_WORD = re.compile(r"[A-Za-z0-9_]+")
_EXHAUSTIVE_LIMIT = 3_000
_CFG_EXTRA_WORDS = frozenset({"TYPE", "TYPE_CONSTRAINT"})  # cfg keywords of older TLC builds


class RenameError(ValueError):
    """A rename map was refused; `problems` lists why."""

    def __init__(self, problems: Iterable[str]) -> None:
        self.problems = tuple(problems)
        super().__init__("rename refused:\n  " + "\n  ".join(self.problems))


@dataclass(frozen=True)
class RenameMap:
    """An injective map from old identifier names to new ones."""

    mapping: Mapping[str, str]

    def __post_init__(self) -> None:
        object.__setattr__(self, "mapping", MappingProxyType(dict(self.mapping)))

    def inverse(self) -> RenameMap:
        """The map that undoes this one."""
        inv = {new: old for old, new in self.mapping.items()}
        if len(inv) != len(self.mapping):
            raise RenameError(["the map is not injective, it has no inverse"])
        return RenameMap(inv)

    def __len__(self) -> int:
        return len(self.mapping)

    def __hash__(self) -> int:
        return hash(frozenset(self.mapping.items()))


@dataclass(frozen=True)
class TaskNames:
    """What renaming needs to know about a task's modules (and optionally its cfg)."""

    analyzed: Mapping[str, ModuleIdentifiers]
    kinds: Mapping[str, frozenset[str]]  # every name defined in the task -> its kinds
    identifiers: frozenset[str]  # every identifier token of the task, and every cfg word
    existing: frozenset[str]  # identifiers plus record field names and string contents
    strings: frozenset[str]
    labels: frozenset[str]  # PlusCal labels and procedure names
    has_pluscal: bool
    task_modules: frozenset[str]
    cfg_words: frozenset[str] = field(default=frozenset())

    @classmethod
    def of(cls, modules: Mapping[str, str], cfg_text: str | None = None) -> TaskNames:
        """Analyze `modules` (file name -> source) and `cfg_text`."""
        analyzed = analyze_task(modules)
        kinds: dict[str, set[str]] = {}
        idents: set[str] = set()
        fields: set[str] = set()
        strings: set[str] = set()
        labels: set[str] = set()
        for info in analyzed.values():
            for name, ks in info.definition_kinds.items():
                kinds.setdefault(name, set()).update(ks)
            idents |= info.names()
            fields |= info.record_fields
            strings |= {s.value for s in info.strings}
            labels |= info.pluscal_labels
        cfg_words = frozenset(_WORD.findall(cfg_text or ""))
        return cls(
            analyzed=MappingProxyType(dict(analyzed)),
            kinds=MappingProxyType({n: frozenset(k) for n, k in kinds.items()}),
            identifiers=frozenset(idents | cfg_words),
            existing=frozenset(idents | cfg_words | fields | strings),
            strings=frozenset(strings),
            labels=frozenset(labels),
            has_pluscal=any(i.has_pluscal for i in analyzed.values()),
            task_modules=frozenset(i.module for i in analyzed.values()),
            cfg_words=cfg_words,
        )

    def fixed_names(self) -> frozenset[str]:
        """Defined names that are never renamed (standard, keywords, translator-generated)."""
        fixed = set(standard_names() | TLA_KEYWORDS)
        if self.has_pluscal:
            fixed |= PLUSCAL_TRANSLATION_NAMES
            fixed |= {n for n in self.kinds if _AUTO_LABEL.match(n)}
        return frozenset(fixed)

    def renameable(self, *, include_bound: bool = False) -> dict[str, str]:
        """Name -> primary kind of every name CIR renames in this task."""
        fixed = self.fixed_names()
        out: dict[str, str] = {}
        for name, ks in self.kinds.items():
            if name in fixed or not is_tla_identifier(name):
                continue
            if ks & RENAMEABLE_KINDS or include_bound:
                out[name] = primary_kind(ks)
        return dict(sorted(out.items()))


def renameable_names(modules: Mapping[str, str], *, include_bound: bool = False) -> dict[str, str]:
    """Name -> kind of every author-defined name of the task that CIR renames."""
    return TaskNames.of(modules).renameable(include_bound=include_bound)


def random_rename_map(
    modules: Mapping[str, str],
    seed: int | str,
    *,
    include_bound: bool = False,
    extra_reserved: Iterable[str] = (),
    keep: Iterable[str] = (),
    cfg_text: str | None = None,
) -> RenameMap:
    """A random same-length, same-shape fresh name for every renameable name (seeded)."""
    names = TaskNames.of(modules, cfg_text)
    keep_set = set(keep)
    targets = [n for n in names.renameable(include_bound=include_bound) if n not in keep_set]
    taken = set(names.existing) | _reserved(names.has_pluscal, extra_reserved) | PLUSCAL_KEYWORDS
    rng = random.Random(seed)
    mapping: dict[str, str] = {}
    for name in targets:  # sorted, so the stream of names is reproducible
        new = _fresh_name(name, rng, taken)
        taken.add(new)
        mapping[name] = new
    return RenameMap(mapping)


def _reserved(pluscal: bool, extra: Iterable[str] = ()) -> frozenset[str]:
    """Words no new name may be: TLA+, PlusCal and cfg keywords, standard names, `extra`."""
    return reserved_new_names(pluscal=pluscal, extra=extra) | CFG_KEYWORDS | _CFG_EXTRA_WORDS


def _shape(name: str, *, relaxed: bool) -> list[str]:
    """Character classes of a new name: same case per letter, digits for digits, `_` kept."""
    alnum = string.ascii_letters + string.digits
    out: list[str] = []
    for i, ch in enumerate(name):
        if relaxed and i > 0:
            out.append(alnum)
        elif ch.isupper():
            out.append(string.ascii_uppercase)
        elif ch.islower():
            out.append(string.ascii_lowercase)
        elif ch.isdigit():
            out.append(string.digits)
        else:
            out.append("_")
    return out


def _fresh_name(name: str, rng: random.Random, taken: set[str]) -> str:
    def ok(cand: str) -> bool:
        return cand != name and cand not in taken and is_tla_identifier(cand)

    for relaxed in (False, True):
        classes = _shape(name, relaxed=relaxed)
        size = 1
        for cls in classes:
            size *= len(cls)
        if size <= _EXHAUSTIVE_LIMIT:
            free = [c for c in ("".join(t) for t in itertools.product(*classes)) if ok(c)]
            if free:
                return rng.choice(free)
            continue
        for _ in range(500):
            cand = "".join(rng.choice(cls) for cls in classes)
            if ok(cand):
                return cand
    raise RenameError([f"no free name of length {len(name)} left for {name!r}"])


def validate_map(
    modules: Mapping[str, str],
    mapping: Mapping[str, str],
    cfg_text: str | None = None,
    *,
    allow_length_change: bool = False,
    names: TaskNames | None = None,
) -> list[str]:
    """Problems that make `mapping` unsafe for this task (empty list: the map is fine)."""
    names = names or TaskNames.of(modules, cfg_text)
    fixed = names.fixed_names()
    reserved = _reserved(names.has_pluscal)
    problems: list[str] = []
    seen: dict[str, str] = {}
    for old, new in mapping.items():
        if new in seen and seen[new] != old:
            problems.append(f"{seen[new]!r} and {old!r} both map to {new!r} (not injective)")
        seen[new] = old
        if old == new:
            continue
        if old in fixed:
            problems.append(f"{old!r} is a keyword, standard or generated name; it keeps its name")
        elif old not in names.kinds:
            problems.append(f"{old!r} is not a name defined in the task")
        if not is_tla_identifier(new):
            what = "a TLA+ keyword" if new in TLA_KEYWORDS else "not a valid TLA+ identifier"
            problems.append(f"new name {new!r} for {old!r} is {what}")
        elif new in reserved:
            problems.append(f"new name {new!r} for {old!r} is a reserved or standard name")
        elif new in names.identifiers and new not in mapping:
            problems.append(f"new name {new!r} for {old!r} collides with an existing name")
        if old in names.labels and new in names.strings and new not in mapping:
            problems.append(f"new label name {new!r} for {old!r} equals an existing string")
        if not allow_length_change and len(new) != len(old):
            problems.append(f"{old!r} -> {new!r} changes the length (breaks /\\ \\/ layout)")
    return problems


def rename_modules(
    modules: Mapping[str, str],
    mapping: Mapping[str, str] | RenameMap,
    *,
    allow_length_change: bool = False,
) -> dict[str, str]:
    """Renamed sources keyed by their new file names (`Foo.tla` -> `Bar.tla` if Foo is renamed).

    Raises `RenameError` when `validate_map` finds problems.
    """
    table = dict(mapping.mapping if isinstance(mapping, RenameMap) else mapping)
    names = TaskNames.of(modules)
    problems = validate_map(modules, table, allow_length_change=allow_length_change, names=names)
    if problems:
        raise RenameError(problems)
    table = {old: new for old, new in table.items() if old != new}
    out: dict[str, str] = {}
    for fname, source in modules.items():
        info = names.analyzed[fname]
        edits = [(o.start, o.end, table[o.name]) for o in info.occurrences if o.name in table]
        edits += [(s.start, s.end, table[s.value]) for s in info.strings
                  if s.value in table and s.value in names.labels]
        out[_renamed_file(fname, info.module, table)] = _apply(source, edits)
    return out


def rename_module_names(modules: Mapping[str, str], table: Mapping[str, str]) -> dict[str, str]:
    """Sources with only *module* names renamed (headers, EXTENDS, INSTANCE), files to match.

    Operators, variables and the like that share a module's name keep it: TLA+ keeps modules
    and definitions in separate name spaces (`SimpleAllocator == ...` in module SimpleAllocator).
    """
    table = {old: new for old, new in table.items() if old != new}
    names = TaskNames.of(modules)
    out: dict[str, str] = {}
    for fname, source in modules.items():
        info = names.analyzed[fname]
        data = source.encode("utf-8")
        spans = _module_name_spans(data)
        edits = [(o.start, o.end, table[o.name]) for o in info.occurrences
                 if o.name in table and any(a <= o.start < b for a, b in spans)]
        module = info.module
        header = header_module(source)
        if not module and header is not None:
            # tree-sitter read no module here (a syntax it does not know): the header decides
            module = header.group(1)
            start = len(source[: header.start(1)].encode("utf-8"))
            if module in table and all(s != start for s, _, _ in edits):
                edits.append((start, start + len(module.encode("utf-8")), table[module]))
        out[_renamed_file(fname, module, table)] = _apply(source, edits)
    return out


_MODULE_CLAUSE = re.compile(rb"\b(?:MODULE|INSTANCE)\s+\w+|\bEXTENDS\s+\w+(?:\s*,\s*\w+)*")


def _module_name_spans(data: bytes) -> list[tuple[int, int]]:
    """Byte spans of the places that name modules: headers, EXTENDS lists, after INSTANCE."""
    return [(m.start(), m.end()) for m in _MODULE_CLAUSE.finditer(data)]


def _renamed_file(fname: str, module: str, table: Mapping[str, str]) -> str:
    stem = module_of_file(fname)
    if stem != module or module not in table:
        return fname
    return fname[: len(fname) - len(stem) - 4] + table[module] + ".tla"


def _apply(source: str, edits: list[tuple[int, int, str]]) -> str:
    data = source.encode("utf-8")
    parts: list[bytes] = []
    pos = 0
    for start, end, new in sorted(edits):
        if start < pos:
            raise RenameError([f"overlapping edits at byte {start}"])
        parts += [data[pos:start], new.encode("utf-8")]
        pos = end
    parts.append(data[pos:])
    return b"".join(parts).decode("utf-8")


def rename_cfg(cfg_text: str, mapping: Mapping[str, str] | RenameMap) -> str:
    """The cfg with every referenced name renamed (model values keep their names).

    Uses `tlc_harness.source.cfg`; the result is that module's normal form (comments dropped).
    """
    table = dict(mapping.mapping if isinstance(mapping, RenameMap) else mapping)
    return format_cfg(parse_cfg(cfg_text).rename(table))
