"""`alias-bench tasks [DIR]`: list tasks with their hidden required names and identifier kinds."""

from __future__ import annotations

import argparse
from collections import Counter

from alias_cli.common import fail, print_json
from alias_cli.task_args import add_task_source, resolve_task_set
from alias_fixtures.tasks.descriptions import task_name_report
from alias_fixtures.tasks.task import TaskError
from tlc_harness.source.cfg import CfgError
from tlc_harness.source.rename import renameable_names


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("tasks", help="list tasks, their hidden names and identifier kinds",
                       description="List the tasks of a folder or corpus (default: the built-in "
                       "suite) with their hidden required names (cfg names the description never "
                       "states) and the kinds of their identifiers.")
    p.add_argument("source", nargs="?", help="task folder or collection (default: built-in)")
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    add_task_source(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    try:
        found = resolve_task_set(args.source, args)
        tasks = list(found.tasks)
        reports = [task_name_report(t, renameable_names(t.modules)) for t in tasks]
    except (TaskError, CfgError, OSError) as exc:
        return fail(str(exc))
    if args.json:
        print_json([{"task": r.task_id, "module": t.main_module,
                     "has_description": t.description is not None,
                     "hidden_names": [{"name": h.name, "kind": h.kind,
                                       "identifier_kind": h.identifier_kind} for h in r.hidden],
                     "identifier_kinds": r.kind_counts} for r, t in zip(reports, tasks, strict=False)]
                   + [{"task": s.id, "skipped": s.reason} for s in found.skipped])
        return 0
    width = max((len(t.id) for t in tasks), default=4)
    print(f"{'task':<{width}}  {'module':<20} hidden  domain conv abbr  hidden names")
    kinds: Counter[str] = Counter()
    for report, task in zip(reports, tasks, strict=False):
        counts = report.kind_counts
        kinds.update(counts)
        names = ", ".join(f"{h.name} ({h.kind})" for h in report.hidden)
        print(f"{task.id:<{width}}  {task.main_module:<20} {len(report.hidden):>6}  "
              f"{counts.get('domain', 0):>6} {counts.get('convention', 0):>4} "
              f"{counts.get('abbreviation', 0):>4}  {names}")
    with_hidden = sum(1 for r in reports if r.hidden)
    print(f"{len(tasks)} tasks; {with_hidden} with at least one hidden name "
          f"({sum(len(r.hidden) for r in reports)} hidden names); identifier kinds: "
          + ", ".join(f"{k} {v}" for k, v in sorted(kinds.items())))
    for skipped in found.skipped:
        print(f"skipped {skipped.id}: {skipped.reason}")
    if found.skipped:
        print(f"{len(found.skipped)} task(s) skipped: they cannot be loaded (above)")
    return 0
