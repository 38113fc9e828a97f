"""Selecting tasks on the command line: a folder, a corpus layout, or the built-in suite."""

from __future__ import annotations

import argparse
from pathlib import Path

from alias_fixtures.tasks.loaders import DEFAULT_STYLE, load_tasks
from alias_fixtures.tasks.task import Task, TaskError, builtin_tasks, builtin_tasks_dir, load_task


def add_task_source(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--module", help="main module of a folder holding several .tla files")
    parser.add_argument("--cfg", help="cfg file of a folder holding several .cfg files")
    parser.add_argument("--layout", default="auto",
                        choices=("auto", "folders", "examples", "tlabench"),
                        help="layout of a task collection (default: guess)")
    parser.add_argument("--style", default=DEFAULT_STYLE,
                        help=f"TLA+-Bench description style ({DEFAULT_STYLE})")


def resolve_task(spec: str, args: argparse.Namespace) -> Task:
    """One task: a folder path, or the id of a built-in task."""
    path = Path(spec)
    if path.is_dir():
        return load_task(path, module=args.module, cfg=args.cfg)
    builtin = builtin_tasks_dir() / spec
    if builtin.is_dir():
        return load_task(builtin)
    known = ", ".join(t.id for t in builtin_tasks())
    raise TaskError(f"no task folder {spec!r}, and no built-in task of that id (built-in: {known})")


def resolve_tasks(source: str | None, args: argparse.Namespace) -> list[Task]:
    """Every task of a collection (default: the built-in suite)."""
    if source is None:
        return builtin_tasks()
    if args.module or args.cfg:
        return [load_task(source, module=args.module, cfg=args.cfg)]
    return load_tasks(source, layout=args.layout, style=args.style)
