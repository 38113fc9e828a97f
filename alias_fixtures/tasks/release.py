"""TLA+-Bench's release as a task source.

The layout is TLA+-Bench's repository's: `dataset_release/` holds `manifest.jsonl` (one row per
spec: id, tier, category, source repository and path, descriptions, TLA+-Bench's renaming),
`specs/<tier>/<id>_<Module>.tla` with its `.cfg`, and `descriptions/<style>/<id>.txt`;
`data/tla_files/<owner>/<repo>/...` beside it mirrors the source repositories, and a spec's
`source_path` (relative to the repository's root) names its file there, so its folder is where
the modules it imports live.

A task owns its main module, the further top-level modules of its own file (each staged in a
file of its name: SANY of the 2020 jar reads only a file's first module), and every module
these import that is neither a standard module nor a module the tools supply. An imported
module is looked up, relative to the folder of the module that imports it:

1. among the release's specs of that name whose source folder is that folder;
2. in that folder of the `data/tla_files` tree;
3. among the release's specs of that name, if only one has it;
4. in each folder of the module path (`module_path`), in order.

A task is never staged with part of its modules: one whose module cannot be found is skipped,
naming the module, the file and line that import it, and where it was looked for.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from alias_fixtures.tasks.task import SkippedTask, Task, TaskError, TaskSet, read_task_file
from tlc_harness.source.cfg import CfgError, parse_cfg
from tlc_harness.source.modules import ModuleText, imported_modules, split_modules
from tlc_harness.source.stdlib import STANDARD_MODULES
from tlc_harness.tools.library import bundled_library

DEFAULT_STYLE = "declarative_gpt"
"""The description style every spec of the release has, the one TLA+-Bench's renamed
descriptions start from."""
CATEGORIES = ("system", "utility", "all")
DEFAULT_CATEGORY = "system"

#: Standard modules of TLA+ tools newer than the bundled 2020 jar. A task may import them
#: (they are never the task's own, never renamed); under the 2020 jar its verification then
#: fails, naming the module, and a newer jar (`ALIAS_TLA2TOOLS`) has it.
NEWER_STANDARD_MODULES = frozenset({"TLCExt", "_Possible", "Json", "IOUtils", "_TLCTrace",
                                    "_JsonTrace", "Apalache"})

_LICENCES = {"tlaplus": "MIT", "apalache-mc": "Apache-2.0", "pingcap": "Apache-2.0",
             "microsoft": "Apache-2.0"}


def supplied_modules() -> frozenset[str]:
    """Modules a task never owns: the jar's standard modules, newer tools' standard modules
    and the modules of the harness's library (TLAPS, CommunityModules operators)."""
    return STANDARD_MODULES | NEWER_STANDARD_MODULES | frozenset(bundled_library().modules)


@dataclass(frozen=True)
class ReleaseLayout:
    """Where a release's parts are: the dataset folder and the repository root beside it."""

    dataset: Path
    repo: Path

    @classmethod
    def find(cls, path: str | Path) -> ReleaseLayout | None:
        """The layout of `path`: a `dataset_release` folder itself (with `manifest.jsonl` and
        `specs/`), or a folder holding one (a TLA+-Bench checkout); None for neither."""
        root = Path(path)
        for dataset in (root, root / "dataset_release"):
            if (dataset / "manifest.jsonl").is_file() and (dataset / "specs").is_dir():
                return cls(dataset, dataset.parent)
        return None

    def data_folder(self, source_path: str | None) -> Path | None:
        """The folder of a spec's source file in the `data/tla_files` tree (which holds it
        only when some module of it is imported)."""
        return (self.repo / source_path).parent if source_path else None


@dataclass(frozen=True)
class _Located:
    """A module found for a task: its text, where it lives (for its own imports) and where it
    came from (for the task's record)."""

    name: str
    text: str
    folder: Path | None
    origin: str


@dataclass
class _GoldSpec:
    spec_id: str
    path: Path
    entry: Mapping[str, Any]
    modules: tuple[ModuleText, ...] = ()
    folder: Path | None = None


@dataclass
class _Resolver:
    """Finds the modules a task imports (see the module docstring for the order)."""

    layout: ReleaseLayout
    gold: Mapping[str, list[_GoldSpec]]
    module_path: tuple[Path, ...]
    supplied: frozenset[str] = field(default_factory=supplied_modules)

    def find(self, name: str, folder: Path | None) -> _Located | None:
        specs = self.gold.get(name, [])
        for spec in specs:
            if folder is not None and spec.folder == folder:
                return self._from_gold(name, spec)
        if folder is not None and (folder / f"{name}.tla").is_file():
            return self._from_file(name, folder / f"{name}.tla")
        if len(specs) == 1:
            return self._from_gold(name, specs[0])
        for entry in self.module_path:
            if (entry / f"{name}.tla").is_file():
                return self._from_file(name, entry / f"{name}.tla")
        return None

    def _from_gold(self, name: str, spec: _GoldSpec) -> _Located:
        text = next(m.text for m in spec.modules if m.name == name)
        return _Located(name, text, spec.folder, f"{self.shown(spec.path)} (spec {spec.spec_id})")

    def _from_file(self, name: str, path: Path) -> _Located:
        text = read_task_file(name, path)
        own = split_modules(text)
        if own and own[0].name == name:
            text = own[0].text
        return _Located(name, text, path.parent, self.shown(path))

    def shown(self, path: Path) -> str:
        try:
            return str(path.relative_to(self.layout.repo))
        except ValueError:
            return str(path)

    def looked_in(self, folder: Path | None) -> str:
        places = ["the release's specs"]
        if folder is not None:
            places.append(self.shown(folder))
        places += [str(p) for p in self.module_path]
        return ", ".join(places)


def _jsonl(path: Path) -> Iterator[dict[str, Any]]:
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if line.strip():
            try:
                yield json.loads(line)
            except json.JSONDecodeError as exc:
                raise TaskError(f"{path}:{number}: not JSON: {exc}") from exc


def _gold_specs(layout: ReleaseLayout, tier: str) -> list[_GoldSpec]:
    entries = {str(e["spec_id"]): e for e in _jsonl(layout.dataset / "manifest.jsonl")}
    specs = []
    for path in sorted((layout.dataset / "specs" / tier).glob("*.tla")):
        spec_id = path.stem.partition("_")[0]
        entry = entries.get(spec_id, {})
        specs.append(_GoldSpec(spec_id, path, entry,
                               folder=layout.data_folder(entry.get("source_path"))))
    return sorted(specs, key=lambda s: (int(s.spec_id) if s.spec_id.isdigit() else 0, s.spec_id))


def load_release(root: str | Path, *, category: str = DEFAULT_CATEGORY,
                 style: str = DEFAULT_STYLE, tier: str = "gold",
                 module_path: Sequence[str | Path] = ()) -> TaskSet:
    """The release's tasks of `category` (system, utility or all) with `style` descriptions;
    a spec that cannot be a task is skipped with its reason (see the module docstring)."""
    if category not in CATEGORIES:
        raise TaskError(f"unknown category {category!r} (one of {', '.join(CATEGORIES)})")
    layout = ReleaseLayout.find(root)
    if layout is None:
        raise TaskError(f"{root}: not a TLA+-Bench release (no manifest.jsonl and specs/ in it "
                        "or in its dataset_release/)")
    specs = _gold_specs(layout, tier)
    if not specs:
        raise TaskError(f"{layout.dataset / 'specs' / tier}: no <id>_<Module>.tla specs")
    index: dict[str, list[_GoldSpec]] = {}
    for spec in specs:
        try:
            spec.modules = split_modules(read_task_file(spec.spec_id, spec.path))
        except TaskError:
            continue  # a spec that cannot be read is skipped below, with its reason
        for module in spec.modules:
            index.setdefault(module.name, []).append(spec)
    resolver = _Resolver(layout, index, tuple(Path(p) for p in module_path))
    tasks: list[Task] = []
    skipped: list[SkippedTask] = []
    for spec in specs:
        if category != "all" and spec.entry.get("category", category) != category:
            continue
        try:
            tasks.append(_task(spec, layout, resolver, style, tier))
        except TaskError as exc:
            skipped.append(SkippedTask(spec.spec_id, str(exc)))
    return TaskSet(tuple(tasks), tuple(skipped))


def _task(spec: _GoldSpec, layout: ReleaseLayout, resolver: _Resolver, style: str,
          tier: str) -> Task:
    shown = resolver.shown(spec.path)
    if not spec.modules:
        raise TaskError(f"{shown}:1: no `---- MODULE Name ----` module in the file")
    modules, origins = _owned_modules(spec, resolver)
    cfg_path = spec.path.with_suffix(".cfg")
    if not cfg_path.is_file():
        raise TaskError(f"{shown}: no cfg beside it ({cfg_path.name})")
    cfg_text = read_task_file(spec.spec_id, cfg_path)
    try:
        parse_cfg(cfg_text)
    except CfgError as exc:
        raise TaskError(f"{resolver.shown(cfg_path)}:{exc.line}: {exc}") from exc
    description = _description(layout, spec, style)
    entry = spec.entry
    main = spec.modules[0]
    repo = str(entry.get("source_repo") or "")
    extra: dict[str, Any] = {
        **{k: v for k, v in entry.items() if not str(k).startswith("desc_")},
        "style": style, "module_origins": origins,
        "desc_perturbed": entry.get("desc_perturbed"),
    }
    return Task(id=spec.spec_id, main_module=main.name, modules=modules, cfg_text=cfg_text,
                description=description, source=f"TLA+-Bench {repo}".strip(),
                licence=_LICENCES.get(repo, f"as its source repository ({repo or 'unknown'})"),
                tags=tuple(t for t in (entry.get("category"), tier) if t),
                pluscal="--algorithm" in main.text or "--fair" in main.text,
                root=spec.path.parent, extra=extra, published=True)


def _owned_modules(spec: _GoldSpec, resolver: _Resolver
                   ) -> tuple[dict[str, str], dict[str, str]]:
    """The task's modules (file name -> text, the main module first) and where each came
    from; raises TaskError naming a module that cannot be found."""
    shown = resolver.shown(spec.path)
    files = {f"{m.name}.tla": m.text for m in spec.modules}
    origins = {m.name: f"{shown}:{m.line}" for m in spec.modules}
    todo: list[tuple[str, Path | None, str]] = [(m.text, spec.folder, shown)
                                                for m in spec.modules]
    while todo:
        text, folder, where = todo.pop(0)
        for imported in imported_modules(text):
            name = imported.name
            if f"{name}.tla" in files or name in resolver.supplied:
                continue
            found = resolver.find(name, folder)
            if found is None:
                raise TaskError(f"{where}:{imported.line}: module {name} (EXTENDS/INSTANCE) "
                                f"is not in {resolver.looked_in(folder)}")
            files[f"{name}.tla"] = found.text
            origins[name] = found.origin
            todo.append((found.text, found.folder, found.origin))
    return files, origins


def _description(layout: ReleaseLayout, spec: _GoldSpec, style: str) -> str:
    path = layout.dataset / "descriptions" / style / f"{spec.spec_id}.txt"
    if path.is_file():
        return read_task_file(spec.spec_id, path).strip()
    text = spec.entry.get(f"desc_{style}")
    if isinstance(text, str) and text.strip():
        return text.strip()
    raise TaskError(f"spec {spec.spec_id}: no {style} description "
                    f"(descriptions/{style}/{spec.spec_id}.txt, or desc_{style} in the manifest)")


def release_ids(tasks: Iterable[Task]) -> list[str]:
    """Task ids in the release's order (numeric)."""
    return sorted((t.id for t in tasks), key=lambda i: (int(i) if i.isdigit() else 0, i))
