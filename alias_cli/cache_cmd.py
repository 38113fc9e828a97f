"""`alias-bench cache show|clear`: the grader's cache's root, size and entries; emptying it."""

from __future__ import annotations

import argparse
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

from alias_cli.common import cache_from, fail, print_json

KINDS = ("graphs", "references", "grades")
"""The kinds of entry the grader writes: `clear` removes only these; `show` lists anything
else under the root too."""
OTHER = "other"


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("cache", help="show or clear the grader's cache",
                       description="The grader's cache (the global --cache root, else "
                       "$XDG_CACHE_HOME/alias or ~/.cache/alias): explored reference graphs, "
                       "the references' self-checks and the grades of outputs, keyed by "
                       "content. It never changes a verdict; clearing it only costs time.")
    actions = p.add_subparsers(dest="action", required=True, metavar="ACTION")
    show = actions.add_parser("show", help="the root, and each kind's entries and bytes")
    show.add_argument("--json", action="store_true", help="print JSON instead of text")
    show.set_defaults(func=_guarded(run_show))
    clear = actions.add_parser("clear", help="remove the grader's entries (asks nothing)")
    clear.add_argument("--kind", choices=(*KINDS, "all"), default="all",
                       help="which entries to remove (default: all, every kind the grader "
                       "writes; nothing else under the root is touched)")
    clear.set_defaults(func=_guarded(run_clear))


def _guarded(command: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
    def run(args: argparse.Namespace) -> int:
        try:
            return command(args)
        except OSError as exc:  # a root that cannot be read or removed
            return fail(str(exc))
    return run


def kinds_of(root: Path) -> dict[str, list[Path]]:
    """The paths of each kind under `root`: the grader's kinds (always listed), every other
    folder as a kind of its own, and loose files as `other`."""
    kinds: dict[str, list[Path]] = {k: [root / k] if (root / k).exists() else [] for k in KINDS}
    for path in sorted(root.iterdir()) if root.is_dir() else []:
        if path.name not in KINDS:
            kinds.setdefault(path.name if path.is_dir() else OTHER, []).append(path)
    return kinds


def usage(root: Path) -> dict[str, Any]:
    """The root, and entries and bytes per kind and in all."""
    from tlc_harness.tools.disk_cache import folder_usage

    kinds: dict[str, dict[str, Any]] = {}
    for name, paths in kinds_of(root).items():
        counts = [folder_usage(p) for p in paths]
        kinds[name] = {"path": str(root / name if name != OTHER else root),
                       "entries": sum(c[0] for c in counts), "bytes": sum(c[1] for c in counts)}
    total = {"entries": sum(k["entries"] for k in kinds.values()),
             "bytes": sum(k["bytes"] for k in kinds.values())}
    return {"root": str(root), "exists": root.is_dir(), "kinds": kinds, "total": total}


def run_show(args: argparse.Namespace) -> int:
    from tlc_harness.tools.disk_cache import cache_root

    data = usage(cache_root(cache_from(args)))
    if args.json:
        print_json(data)
        return 0
    print(f"cache root: {data['root']}" + ("" if data["exists"] else " (absent)"))
    for name, kind in [*data["kinds"].items(), ("total", data["total"])]:
        print(f"  {name:<12}{kind['entries']:>8} entries {kind['bytes']:>14,} bytes")
    return 0


def run_clear(args: argparse.Namespace) -> int:
    from tlc_harness.tools.disk_cache import cache_root

    root = cache_root(cache_from(args))
    data = usage(root)
    removed = False
    for name in KINDS if args.kind == "all" else (args.kind,):
        folder = root / name
        if not folder.exists():
            continue
        if folder.is_dir():
            shutil.rmtree(folder, ignore_errors=True)  # other processes may remove some too
        else:
            folder.unlink(missing_ok=True)
        kind, removed = data["kinds"][name], True
        print(f"removed {name}: {kind['entries']} entries, {kind['bytes']:,} bytes "
              f"({kind['path']})")
    if not removed:
        print(f"nothing to remove under {root}")
    others = [name for name in data["kinds"] if name not in KINDS]
    if others:  # a root given by mistake (a home folder) loses nothing but the grader's own
        print(f"kept what the grader did not write: {', '.join(others)}")
    return 0
