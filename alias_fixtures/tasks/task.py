"""Tasks: an English description, reference modules and the TLC cfg that checks them.

On disk a task is a folder. With a `task.toml` it names its main module, cfg, TLC flags and
metadata; without one, a folder holding exactly one `.tla`, one `.cfg` (and optionally
`description.md`) is a task, or `module=`/`cfg=` say which files to use. Loaders for a
tlaplus/Examples checkout and the TLA+-Bench release layout live in `corpus_loaders`.
Tasks are read-only: nothing here ever writes into a task folder.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from tlc_harness.source.cfg import CfgError, ModelConfig, parse_cfg
from tlc_harness.tools.spec import SpecInputError, SpecSource, module_name_of, read_text

METADATA_FILE = "task.toml"
DESCRIPTION_FILE = "description.md"
_IMPORT = re.compile(r"\b(?:EXTENDS|INSTANCE)\b([^\n]*)")
_NAME = re.compile(r"[A-Za-z0-9_]+")


def _seconds(value: Any) -> float:
    try:
        return max(0.0, float(value))
    except (TypeError, ValueError):
        return 0.0


class TaskError(ValueError):
    """A task folder or file is missing or broken; the message names the task and the file."""


@dataclass(frozen=True)
class SkippedTask:
    """A task of a collection that cannot be loaded, and why (the file and line at fault)."""

    id: str
    reason: str


@dataclass(frozen=True)
class TaskSet:
    """The tasks a collection holds, and the ones it holds that cannot be loaded: one bad task
    never stops a collection."""

    tasks: tuple[Task, ...] = ()
    skipped: tuple[SkippedTask, ...] = ()

    def __add__(self, other: TaskSet) -> TaskSet:
        return TaskSet((*self.tasks, *other.tasks), (*self.skipped, *other.skipped))


@dataclass(frozen=True)
class Task:
    """One benchmark task; `modules` maps file name -> text for the task's own modules."""

    id: str
    main_module: str
    modules: Mapping[str, str]
    cfg_text: str
    description: str | None = None
    tlc_args: tuple[str, ...] = ()
    source: str = ""
    licence: str = ""
    tags: tuple[str, ...] = ()
    pluscal: bool = False
    expected_distinct_states: int | None = None
    root: Path | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)
    #: whether the reference has been public (a model may have read it): True for the
    #: published corpora, False for tasks written for ALIAS and never published, None unknown
    published: bool | None = None

    @property
    def cfg(self) -> ModelConfig:
        return parse_cfg(self.cfg_text)

    @property
    def expected_seconds(self) -> float:
        """What the task's metadata says its model costs TLC, in seconds (0 when it says
        nothing): the larger of a recorded run's `seconds` (only a run that counted states:
        one that stopped at an error says nothing of the model) and upstream's expected
        runtime (`upstream_expected.runtime`, hh:mm:ss), as a tlaplus/Examples manifest
        records them. It orders work, heaviest first; it never decides anything."""
        counted = self.extra.get("distinct_states") is not None
        local = _seconds(self.extra.get("seconds")) if counted else 0.0
        upstream = self.extra.get("upstream_expected")
        runtime = str(upstream.get("runtime") or "") if isinstance(upstream, Mapping) else ""
        parts = runtime.split(":")
        clock = (sum(int(p) * 60 ** k for k, p in enumerate(reversed(parts)))
                 if len(parts) == 3 and all(p.isdigit() for p in parts) else 0)
        return max(local, float(clock))

    @property
    def main_file(self) -> str:
        return f"{self.main_module}.tla"

    def spec(self) -> SpecSource:
        """The reference as a staged spec (main module plus the task's other modules)."""
        return SpecSource(self.main_module, dict(self.modules))

    def module_names(self) -> frozenset[str]:
        return frozenset(Path(name).stem for name in self.modules)


def task_modules(main_file: str, available: Mapping[str, str]) -> dict[str, str]:
    """The main module plus the modules it imports, transitively, from `available`."""
    out: dict[str, str] = {}
    todo = [main_file]
    while todo:
        name = todo.pop()
        if name in out or name not in available:
            continue
        out[name] = available[name]
        for line in _IMPORT.findall(_strip_comments(available[name])):
            todo.extend(f"{m}.tla" for m in _NAME.findall(line))
    return {main_file: out.pop(main_file), **dict(sorted(out.items()))}


def _strip_comments(text: str) -> str:
    text = re.sub(r"\(\*.*?\*\)", " ", text, flags=re.S)
    return re.sub(r"\\\*[^\n]*", " ", text)


def read_task_file(task_id: str, path: Path) -> str:
    try:
        return read_text(path)
    except SpecInputError as exc:
        raise TaskError(f"task {task_id}: {exc}") from exc


def load_task(folder: str | Path, *, module: str | None = None, cfg: str | None = None,
              task_id: str | None = None) -> Task:
    """Load one task folder (see the module docstring for the accepted shapes)."""
    root = Path(folder)
    tid = task_id or root.name
    if not root.is_dir():
        raise TaskError(f"task {tid}: {root} is not a folder")
    meta: dict[str, Any] = {}
    meta_path = root / METADATA_FILE
    if meta_path.is_file():
        try:
            meta = tomllib.loads(read_task_file(tid, meta_path))
        except tomllib.TOMLDecodeError as exc:
            raise TaskError(f"task {tid}: {meta_path} is not valid TOML: {exc}") from exc
        tid = task_id or str(meta.get("id", tid))
    module_name = module or meta.get("module")
    cfg_name = cfg or meta.get("cfg")
    tla_files = sorted(p.name for p in root.glob("*.tla"))
    if module_name is None:
        if len(tla_files) != 1:
            raise TaskError(f"task {tid}: {root} holds {len(tla_files)} .tla files; say which is "
                            f"the main module (--module M or `module` in {METADATA_FILE})")
        module_name = tla_files[0][:-4]
    module_name = str(module_name).removesuffix(".tla")
    if cfg_name is None:
        cfgs = sorted(p.name for p in root.glob("*.cfg"))
        if len(cfgs) != 1:
            raise TaskError(f"task {tid}: {root} holds {len(cfgs)} .cfg files; say which "
                            f"(--cfg F.cfg or `cfg` in {METADATA_FILE})")
        cfg_name = cfgs[0]
    main_file = f"{module_name}.tla"
    if not (root / main_file).is_file():
        raise TaskError(f"task {tid}: main module file {root / main_file} does not exist")
    cfg_path = root / str(cfg_name)
    if not cfg_path.is_file():
        raise TaskError(f"task {tid}: cfg file {cfg_path} does not exist")
    available = {name: read_task_file(tid, root / name) for name in tla_files}
    header = module_name_of(available[main_file])
    if header != module_name:
        raise TaskError(f"task {tid}: {main_file} declares MODULE {header}, not {module_name}")
    cfg_text = read_task_file(tid, cfg_path)
    try:
        parse_cfg(cfg_text)
    except CfgError as exc:
        raise TaskError(f"task {tid}: {cfg_path}: {exc}") from exc
    desc_path = root / str(meta.get("description", DESCRIPTION_FILE))
    description = read_task_file(tid, desc_path).strip() if desc_path.is_file() else None
    known = {"id", "module", "cfg", "tlc_args", "source", "licence", "tags", "pluscal",
             "expected_distinct_states", "description", "published"}
    published = meta.get("published")
    if published is not None and not isinstance(published, bool):
        raise TaskError(f"task {tid}: {meta_path}: `published` must be true or false")
    return Task(
        id=tid, main_module=module_name, modules=task_modules(main_file, available),
        cfg_text=cfg_text, description=description,
        tlc_args=tuple(meta.get("tlc_args", ())), source=str(meta.get("source", "")),
        licence=str(meta.get("licence", "")), tags=tuple(meta.get("tags", ())),
        pluscal=bool(meta.get("pluscal", "--algorithm" in available[main_file])),
        expected_distinct_states=meta.get("expected_distinct_states"), root=root,
        extra={k: v for k, v in meta.items() if k not in known}, published=published,
    )


def is_task_folder(path: Path) -> bool:
    if (path / METADATA_FILE).is_file():
        return True
    return len(list(path.glob("*.tla"))) == 1 and len(list(path.glob("*.cfg"))) == 1


def load_task_dir(folder: str | Path) -> list[Task]:
    """Every task folder directly under `folder` (or `folder` itself if it is one); raises
    TaskError on the first that cannot be loaded (`task_dir_set` skips it instead)."""
    found = task_dir_set(folder)
    if found.skipped:
        raise TaskError(found.skipped[0].reason)
    return list(found.tasks)


def task_dir_set(folder: str | Path) -> TaskSet:
    """Every task folder directly under `folder` (or `folder` itself if it is one); a folder
    that cannot be loaded, or that repeats another's id, is skipped with its reason."""
    root = Path(folder)
    if not root.is_dir():
        raise TaskError(f"{root} is not a folder")
    folders = [root] if is_task_folder(root) else [
        p for p in sorted(root.iterdir()) if p.is_dir() and is_task_folder(p)]
    tasks: list[Task] = []
    skipped: list[SkippedTask] = []
    seen: dict[str, Path | None] = {}
    for path in folders:
        try:
            task = load_task(path)
        except TaskError as exc:
            skipped.append(SkippedTask(path.name, str(exc)))
            continue
        if task.id in seen:
            skipped.append(SkippedTask(task.id, f"task id {task.id} is used by both "
                                                f"{seen[task.id]} and {task.root}"))
            continue
        seen[task.id] = task.root
        tasks.append(task)
    return TaskSet(tuple(tasks), tuple(skipped))


def builtin_tasks_dir() -> Path:
    """The folder of the built-in suite shipped with the package."""
    return Path(str(resources.files("alias_fixtures") / "builtin_tasks"))


def builtin_tasks() -> list[Task]:
    return load_task_dir(builtin_tasks_dir())
