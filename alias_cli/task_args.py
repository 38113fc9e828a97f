"""Selecting tasks on the command line: a folder, a corpus layout, or the built-in suite."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from alias_fixtures.tasks.loaders import LAYOUTS, load_sources, split_sources
from alias_fixtures.tasks.release import CATEGORIES, DEFAULT_CATEGORY, DEFAULT_STYLE
from alias_fixtures.tasks.task import (
    Task,
    TaskError,
    TaskSet,
    builtin_tasks,
    builtin_tasks_dir,
    load_task,
)


def add_task_source(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--module", help="main module of a folder holding several .tla files")
    parser.add_argument("--cfg", help="cfg file of a folder holding several .cfg files")
    parser.add_argument("--layout", default="auto", choices=LAYOUTS,
                        help="layout of a task collection (default: guess)")
    parser.add_argument("--style", default=DEFAULT_STYLE,
                        help=f"TLA+-Bench description style (default: {DEFAULT_STYLE})")
    parser.add_argument("--category", default=DEFAULT_CATEGORY, choices=CATEGORIES,
                        help=f"TLA+-Bench release: which specs are tasks (default: "
                        f"{DEFAULT_CATEGORY})")
    parser.add_argument("--module-path", action="append", default=[], metavar="DIR",
                        help="a folder where a TLA+-Bench release's imported modules are looked "
                        "up after the release's own (repeatable)")


def add_task_id(parser: argparse.ArgumentParser) -> None:
    """`--id`: one task of the collection `--task` names (a TLA+-Bench release, a corpus)."""
    parser.add_argument("--id", dest="task_id", metavar="ID",
                        help="the id of one task of the collection --task names (a TLA+-Bench "
                        "release or a corpus folder); without it --task is one task's folder")


def resolve_task(spec: str, args: argparse.Namespace) -> Task:
    """One task: a folder path, the id of a built-in task, or (`--id`) one task of the
    collection `spec` names."""
    path = Path(spec)
    wanted = getattr(args, "task_id", None)
    if wanted is not None:
        found = resolve_task_set(spec, args)
        for task in found.tasks:
            if task.id == wanted:
                return task
        for skipped in found.skipped:
            if skipped.id == wanted:
                raise TaskError(f"task {wanted} of {spec} cannot be used: {skipped.reason}")
        sample = ", ".join(t.id for t in found.tasks[:8])
        more = f", ... ({len(found.tasks)} in all)" if len(found.tasks) > 8 else ""
        raise TaskError(f"{spec} holds no task {wanted!r} (its tasks: {sample or 'none'}{more})")
    if path.is_dir():
        return load_task(path, module=args.module, cfg=args.cfg)
    builtin = builtin_tasks_dir() / spec
    if builtin.is_dir():
        return load_task(builtin)
    known = ", ".join(t.id for t in builtin_tasks())
    raise TaskError(f"no task folder {spec!r}, and no built-in task of that id (built-in: {known})")


def resolve_task_set(source: str | None, args: argparse.Namespace) -> TaskSet:
    """Every task of a collection (default: the built-in suite; several comma-separated), and
    the ones it holds that cannot be loaded, with why."""
    if source is None:
        return TaskSet(tuple(builtin_tasks()))
    if args.module or args.cfg:
        return TaskSet((load_task(source, module=args.module, cfg=args.cfg),))
    return load_sources(split_sources(source), layout=args.layout, style=args.style,
                        category=args.category, module_path=args.module_path)


def resolve_tasks(source: str | None, args: argparse.Namespace) -> list[Task]:
    """The loadable tasks of a collection; a skipped one is named on stderr with why."""
    found = resolve_task_set(source, args)
    for skipped in found.skipped:
        print(f"alias-bench: task {skipped.id} skipped: {skipped.reason}", file=sys.stderr)
    return list(found.tasks)
