"""Loaders for public layouts: a tlaplus/Examples checkout and the TLA+-Bench release.

- tlaplus/Examples: `specifications/<dir>/manifest.json` files (upstream layout), or a folder with
  one top-level `manifest.json` list and `examples/<spec_dir>/` (the layout of shared/corpus).
  These tasks have no descriptions.
- TLA+-Bench: `specs/gold/<id>_<Module>.tla` + `.cfg`, `descriptions/<style>/<id>.txt` (or the
  manifest's `desc_<style>` field), `manifest.jsonl`.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from alias_fixtures.tasks.task import Task, TaskError, _read, load_task_dir, task_modules
from tlc_harness.source.cfg import compat_for_legacy_tlc, parse_cfg
from tlc_harness.tools.spec import module_name_of

DEFAULT_STYLE = "declarative_claude"


def _task_id(spec_dir: str, cfg_file: str) -> str:
    return f"{spec_dir.replace('/', '.')}.{Path(cfg_file).stem}"


def _examples_task(folder: Path, spec_dir: str, module_file: str, cfg_file: str,
                   extra: dict[str, Any]) -> Task:
    tid = _task_id(spec_dir, cfg_file)
    tla = {p.name: _read(tid, p) for p in sorted(folder.glob("*.tla"))}
    if module_file not in tla:
        raise TaskError(f"task {tid}: {folder / module_file} does not exist")
    cfg_text = _read(tid, folder / cfg_file)
    cfg = parse_cfg(cfg_text)
    tlc_args = compat_for_legacy_tlc(cfg).tlc_args if cfg.check_deadlock is False else ()
    return Task(id=tid, main_module=module_file[:-4], modules=task_modules(module_file, tla),
                cfg_text=cfg_text, tlc_args=tuple(tlc_args),
                source=f"tlaplus/Examples {spec_dir}", licence="MIT",
                pluscal="--algorithm" in tla[module_file] or "--fair" in tla[module_file],
                expected_distinct_states=extra.get("distinct_states"), root=folder, extra=extra)


def shared_corpus(checkout: str | Path) -> Path | None:
    """`../shared/corpus` beside a checkout (or `$ALIAS_SHARED_CORPUS`), if it is there."""
    env = os.environ.get("ALIAS_SHARED_CORPUS")
    path = Path(env) if env else Path(checkout).resolve().parent / "shared" / "corpus"
    return path if path.is_dir() else None


def load_examples(root: str | Path, *, passing_only: bool = True) -> list[Task]:
    """Tasks from a tlaplus/Examples checkout or a shared/corpus-style manifest."""
    root = Path(root)
    top = root / "manifest.json"
    tasks: list[Task] = []
    if top.is_file() and isinstance(data := json.loads(top.read_text()), list):
        for entry in data:
            if passing_only and not entry.get("passes"):
                continue
            folder = root / "examples" / entry["spec_dir"]
            tasks.append(_examples_task(folder, entry["spec_dir"], entry["module"], entry["cfg"],
                                        dict(entry)))
        return tasks
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
                spec_dir = manifest.parent.name
                extra = {"distinct_states": model.get("distinctStates"), **model}
                tasks.append(_examples_task(root / module_path.parent, spec_dir,
                                            module_path.name, cfg_path.name, extra))
    if not tasks and not (root / "specifications").is_dir():
        raise TaskError(f"{root} is neither a tlaplus/Examples checkout nor a corpus manifest")
    return tasks


def _jsonl(path: Path) -> Iterable[dict[str, Any]]:
    for number, line in enumerate(path.read_text().splitlines(), 1):
        if line.strip():
            try:
                yield json.loads(line)
            except json.JSONDecodeError as exc:
                raise TaskError(f"{path}:{number}: not JSON: {exc}") from exc


def load_tlabench(root: str | Path, *, style: str = DEFAULT_STYLE, tier: str = "gold") -> list[Task]:
    """Tasks from the TLA+-Bench release layout; `style` picks the description variant."""
    root = Path(root)
    manifest = root / "manifest.jsonl"
    entries = {str(e["spec_id"]): e for e in _jsonl(manifest)} if manifest.is_file() else {}
    tasks = []
    for tla in sorted((root / "specs" / tier).glob("*.tla")):
        spec_id, _, _ = tla.stem.partition("_")
        cfg = tla.with_suffix(".cfg")
        if not cfg.is_file():
            continue
        text = _read(spec_id, tla)
        module = module_name_of(text)
        if module is None:
            raise TaskError(f"task {spec_id}: {tla} has no MODULE header")
        desc_file = root / "descriptions" / style / f"{spec_id}.txt"
        entry = entries.get(spec_id, {})
        description = (_read(spec_id, desc_file) if desc_file.is_file()
                       else entry.get(f"desc_{style}"))
        tasks.append(Task(id=spec_id, main_module=module, modules={f"{module}.tla": text},
                          cfg_text=_read(spec_id, cfg), description=description,
                          source=f"TLA+-Bench {entry.get('source_repo', '')}".strip(),
                          tags=tuple(t for t in (entry.get("category"), tier) if t),
                          root=tla.parent, extra={"style": style, **entry}))
    if not tasks:
        raise TaskError(f"{root}: no specs/{tier}/<id>_<Module>.tla with a .cfg beside it")
    return tasks


def load_tasks(source: str | Path, *, layout: str = "auto", style: str = DEFAULT_STYLE) -> list[Task]:
    """Tasks from a folder in any supported layout (`auto` guesses from its contents)."""
    root = Path(source)
    if not root.exists():
        raise TaskError(f"{root} does not exist")
    if layout == "auto":
        if (root / "specs").is_dir() and (root / "manifest.jsonl").is_file():
            layout = "tlabench"
        elif (root / "specifications").is_dir() or (root / "manifest.json").is_file():
            layout = "examples"
        else:
            layout = "folders"
    if layout == "tlabench":
        return load_tlabench(root, style=style)
    if layout == "examples":
        return load_examples(root)
    if layout == "folders":
        return load_task_dir(root)
    raise TaskError(f"unknown layout {layout!r} (auto, folders, examples, tlabench)")


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
