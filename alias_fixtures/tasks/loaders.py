"""Loaders for public layouts: a tlaplus/Examples checkout and the TLA+-Bench release.

- tlaplus/Examples: `specifications/<dir>/manifest.json` files (upstream layout), or a folder with
  one top-level `manifest.json` list and `examples/<spec_dir>/` (the layout of shared/corpus).
  These tasks have no descriptions.
- TLA+-Bench's release: `alias_fixtures.tasks.release`.

`load_task_set` reads one source of any layout, `load_sources` several; a task that cannot be
loaded is skipped with its reason and never stops the others.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from alias_fixtures.tasks.release import (
    DEFAULT_CATEGORY,
    DEFAULT_STYLE,
    ReleaseLayout,
    load_release,
)
from alias_fixtures.tasks.task import (
    SkippedTask,
    Task,
    TaskError,
    TaskSet,
    builtin_tasks,
    read_task_file,
    task_dir_set,
    task_modules,
)
from tlc_harness.source.cfg import CfgError, compat_for_legacy_tlc, parse_cfg


def _task_id(spec_dir: str, cfg_file: str) -> str:
    return f"{spec_dir.replace('/', '.')}.{Path(cfg_file).stem}"


def _examples_task(folder: Path, spec_dir: str, module_file: str, cfg_file: str,
                   extra: dict[str, Any]) -> Task:
    tid = _task_id(spec_dir, cfg_file)
    tla = {p.name: read_task_file(tid, p) for p in sorted(folder.glob("*.tla"))}
    if module_file not in tla:
        raise TaskError(f"task {tid}: {folder / module_file} does not exist")
    cfg_text = read_task_file(tid, folder / cfg_file)
    cfg = parse_cfg(cfg_text)
    tlc_args = compat_for_legacy_tlc(cfg).tlc_args if cfg.check_deadlock is False else ()
    return Task(id=tid, main_module=module_file[:-4], modules=task_modules(module_file, tla),
                cfg_text=cfg_text, tlc_args=tuple(tlc_args),
                source=f"tlaplus/Examples {spec_dir}", licence="MIT",
                pluscal="--algorithm" in tla[module_file] or "--fair" in tla[module_file],
                expected_distinct_states=extra.get("distinct_states"), root=folder, extra=extra,
                published=True)


def shared_corpus(checkout: str | Path) -> Path | None:
    """`../shared/corpus` beside a checkout (or `$ALIAS_SHARED_CORPUS`), if it is there."""
    env = os.environ.get("ALIAS_SHARED_CORPUS")
    path = Path(env) if env else Path(checkout).resolve().parent / "shared" / "corpus"
    return path if path.is_dir() else None


def load_examples(root: str | Path, *, passing_only: bool = True) -> list[Task]:
    """Tasks from a tlaplus/Examples checkout or a shared/corpus-style manifest; raises
    TaskError on the first model that cannot be loaded (`examples_set` skips it instead)."""
    found = examples_set(root, passing_only=passing_only)
    if found.skipped:
        raise TaskError(found.skipped[0].reason)
    return list(found.tasks)


def examples_set(root: str | Path, *, passing_only: bool = True) -> TaskSet:
    """Tasks from a tlaplus/Examples checkout or a shared/corpus-style manifest, a model that
    cannot be loaded skipped with its reason."""
    root = Path(root)
    top = root / "manifest.json"
    tasks: list[Task] = []
    skipped: list[SkippedTask] = []

    def add(folder: Path, spec_dir: str, module: str, cfg: str, extra: dict[str, Any]) -> None:
        try:
            tasks.append(_examples_task(folder, spec_dir, module, cfg, extra))
        except (TaskError, CfgError) as exc:
            skipped.append(SkippedTask(_task_id(spec_dir, cfg), str(exc)))

    if top.is_file() and isinstance(data := json.loads(top.read_text()), list):
        for entry in data:
            if passing_only and not entry.get("passes"):
                continue
            add(root / "examples" / entry["spec_dir"], entry["spec_dir"], entry["module"],
                entry["cfg"], dict(entry))
        return TaskSet(tuple(tasks), tuple(skipped))
    for manifest in sorted(root.glob("specifications/*/manifest.json")):
        spec = json.loads(manifest.read_text())
        for module in spec.get("modules", []):
            for model in module.get("models", []):
                ok = model.get("result") == "success" and "exhaustive" in model.get("mode", "")
                if passing_only and not ok:
                    continue
                module_path, cfg_path = Path(module["path"]), Path(model["path"])
                if module_path.parent != cfg_path.parent:
                    continue
                extra = {"distinct_states": model.get("distinctStates"), **model}
                add(root / module_path.parent, manifest.parent.name, module_path.name,
                    cfg_path.name, extra)
    if not tasks and not skipped and not (root / "specifications").is_dir():
        raise TaskError(f"{root} is neither a tlaplus/Examples checkout nor a corpus manifest")
    return TaskSet(tuple(tasks), tuple(skipped))


def load_tlabench(root: str | Path, *, style: str = DEFAULT_STYLE, tier: str = "gold",
                  category: str = DEFAULT_CATEGORY) -> list[Task]:
    """The tasks of a TLA+-Bench release (`release.load_release`), skipped ones left out."""
    return list(load_release(root, style=style, tier=tier, category=category).tasks)


BUILTIN = "builtin"
LAYOUTS = ("auto", "folders", "examples", "tlabench")


def layout_of(root: Path) -> str:
    """The layout `auto` finds in `root`."""
    if ReleaseLayout.find(root) is not None:
        return "tlabench"
    if (root / "specifications").is_dir() or (root / "manifest.json").is_file():
        return "examples"
    return "folders"


def load_task_set(source: str | Path, *, layout: str = "auto", style: str = DEFAULT_STYLE,
                  category: str = DEFAULT_CATEGORY, module_path: Sequence[str | Path] = ()
                  ) -> TaskSet:
    """The tasks of one source (`builtin` or a folder in any supported layout; `auto` guesses
    from its contents); a task that cannot be loaded is skipped with its reason."""
    if str(source) == BUILTIN:
        return TaskSet(tuple(builtin_tasks()))
    root = Path(source)
    if not root.exists():
        raise TaskError(f"{root} does not exist")
    if layout not in LAYOUTS:
        raise TaskError(f"unknown layout {layout!r} ({', '.join(LAYOUTS)})")
    if layout == "auto":
        layout = layout_of(root)
    if layout == "tlabench":
        return load_release(root, style=style, category=category, module_path=module_path)
    if layout == "examples":
        return examples_set(root)
    return task_dir_set(root)


def load_sources(sources: Iterable[str | Path], **options: Any) -> TaskSet:
    """The tasks of several sources in one set (`load_task_set` for each, with `options`).
    Two sources that both hold a task id are an error: a run must know which is which."""
    found = TaskSet()
    origin: dict[str, str] = {}
    for source in sources:
        part = load_task_set(source, **options)
        for task in part.tasks:
            if task.id in origin:
                raise TaskError(f"task id {task.id} is in both {origin[task.id]} and {source}")
            origin[task.id] = str(source)
        found = found + part
    return found


def split_sources(text: str) -> list[str]:
    """Task sources given as one text: comma-separated (`builtin,path/to/release`)."""
    return [part.strip() for part in text.split(",") if part.strip()]


def load_tasks(source: str | Path, *, layout: str = "auto", style: str = DEFAULT_STYLE,
               category: str = DEFAULT_CATEGORY) -> list[Task]:
    """The loadable tasks of one source (`load_task_set` says which were skipped and why)."""
    return list(load_task_set(source, layout=layout, style=style, category=category).tasks)


def select_models(tasks: list[Task], *, only: Iterable[str] = (),
                  max_seconds: float | None = None, min_seconds: float | None = None
                  ) -> tuple[list[Task], list[str]]:
    """The corpus models to measure, by id and by their manifest TLC time, and a note line per
    group left out. Raises TaskError for an id that is not among `tasks` (a typo fails before
    any JVM starts)."""
    only = set(only)
    unknown = sorted(only - {t.id for t in tasks})
    if unknown:
        raise TaskError(f"no passing corpus model {', '.join(unknown)}")
    chosen = [t for t in tasks if t.id in only] if only else list(tasks)
    notes: list[str] = []
    if max_seconds is not None:
        slow = [t.id for t in chosen if float(t.extra.get("seconds", 0)) > max_seconds]
        chosen = [t for t in chosen if t.id not in slow]
        notes.append(f"- corpus: {len(slow)} model(s) over {max_seconds:g} s left out: "
                     + ", ".join(slow))
    if min_seconds is not None:
        fast = [t.id for t in chosen if float(t.extra.get("seconds", 0)) <= min_seconds]
        chosen = [t for t in chosen if t.id not in fast]
        notes.append(f"- corpus: {len(fast)} model(s) of {min_seconds:g} s or less left out")
    return chosen, notes
