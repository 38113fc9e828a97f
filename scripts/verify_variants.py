"""Share of tasks whose randomly renamed (CIR) variant is verified by SANY and TLC.

Run: `python scripts/verify_variants.py [--corpus ../shared/corpus/tlaplus-examples] [--seed 0]`.
For the built-in suite and (when given) every passing model of a tlaplus/Examples corpus: make
the random variant through the project's own harness (the cfg compatibility rewrite included),
verify it (SANY ok, TLC ok, same distinct-state count), and list every failure with its cause.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from alias_fixtures.tasks.loaders import load_examples
from alias_fixtures.tasks.task import Task, builtin_tasks
from alias_fixtures.tasks.variants import build_variant
from tlc_harness.tools.runner import Harness

HERE = Path(__file__).resolve().parent


def verify(harness: Harness, name: str, tasks: list[Task], seed: str) -> tuple[str, list[str]]:
    ok = 0
    failures = []
    start = time.monotonic()
    for i, task in enumerate(tasks, 1):
        variant, check = build_variant(harness, task, "random", seed=seed)
        ok += check.verified
        state = "verified" if check.verified else f"NOT verified: {check.reason}"
        print(f"[{name} {i}/{len(tasks)}] {task.id}: {state} "
              f"({check.original_states} / {check.renamed_states} states, "
              f"{len(variant.rename_map) if variant else 0} names)", flush=True)
        if not check.verified:
            failures.append(f"- {name} {task.id}: {check.reason}")
    row = (f"| {name} | {len(tasks)} | {ok} | {100 * ok / max(len(tasks), 1):.1f}% | "
           f"{time.monotonic() - start:.0f} |")
    return row, failures


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--corpus", type=Path, help="a tlaplus/Examples corpus folder (optional)")
    ap.add_argument("--seed", default="0")
    ap.add_argument("--out", type=Path, default=HERE / "results" / "variants.md")
    args = ap.parse_args()
    rows, failures = [], []
    with Harness(tlc_timeout=300) as harness:
        suites = [("built-in", builtin_tasks())]
        if args.corpus:
            suites.append(("corpus", load_examples(args.corpus)))
        for name, tasks in suites:
            row, fails = verify(harness, name, tasks, args.seed)
            rows.append(row)
            failures += fails
    lines = ["# Verified random (CIR) variants", "",
             f"Command: `python scripts/verify_variants.py {' '.join(sys.argv[1:])}`", "",
             "| suite | tasks | verified | share | seconds |", "|---|---|---|---|---|", *rows,
             "", "Failures:", "", *(failures or ["- none"])]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
