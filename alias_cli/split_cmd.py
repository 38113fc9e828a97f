"""`alias-bench split`: the exposure experiment's halves A and B, and their training sets.

The study fine-tunes one model on half A and one on half B (split seed 20260926), so each task
is *seen* by one model and *unseen* by the other. This writes `split.json` (the halves) and
`train_A.jsonl` / `train_B.jsonl`: one object per task of the half, description -> reference
(the original condition's main module), as the study trained on.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from alias_cli.common import fail, print_json
from alias_cli.task_args import add_task_source, resolve_tasks
from alias_fixtures.tasks.task import TaskError
from reports.exposure import EXPOSURE_SEED, exposure_split
from reports.records import StatsError


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("split", help="exposure split into halves A and B, with training sets",
                       description=__doc__)
    p.add_argument("source", nargs="?", help="task folder or collection (default: built-in)")
    p.add_argument("--seed", type=int, default=EXPOSURE_SEED,
                   help=f"split seed ({EXPOSURE_SEED}, the study's)")
    p.add_argument("--out", default="alias-split", help="folder to write to (alias-split)")
    p.add_argument("--json", action="store_true", help="print the halves as JSON")
    add_task_source(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    try:
        tasks = {t.id: t for t in resolve_tasks(args.source, args)}
        half_a, half_b = exposure_split(tasks, seed=args.seed)
    except (TaskError, StatsError, OSError) as exc:
        return fail(str(exc))
    missing = sorted(t for t, task in tasks.items() if not task.description)
    if missing:
        return fail(f"{len(missing)} task(s) have no description, so they cannot be training "
                    f"pairs: {', '.join(missing[:10])}")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    split = {"seed": args.seed, "A": list(half_a), "B": list(half_b)}
    (out / "split.json").write_text(json.dumps(split, indent=1) + "\n")
    for name, half in (("A", half_a), ("B", half_b)):
        with (out / f"train_{name}.jsonl").open("w", encoding="utf-8") as fh:
            for task_id in half:
                task = tasks[task_id]
                fh.write(json.dumps({"task": task_id, "half": name,
                                     "description": task.description,
                                     "reference": task.modules[task.main_file]}) + "\n")
    if args.json:
        print_json(split)
    else:
        print(f"split seed {args.seed}: A {len(half_a)} tasks, B {len(half_b)} tasks")
        print(f"A: {', '.join(half_a)}\nB: {', '.join(half_b)}")
        print(f"written: {out / 'split.json'}, {out / 'train_A.jsonl'}, {out / 'train_B.jsonl'}")
    return 0
