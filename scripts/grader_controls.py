"""Measure the behavior grader: coverage, positive controls accepted, mutants kept and rejected.

Run: `python scripts/grader_controls.py [--corpus ../shared/corpus/tlaplus-examples]
[--release ../shared/corpus/tla-bench-release [--every N]] [--out F]`.
On the built-in suite and (when given) the passing models of a tlaplus/Examples corpus and the
tasks of a TLA+-Bench release (its system specs with a cfg whose original passes TLC, as in
the benchmark; the study's Table J.1):
- coverage: tasks whose reference passes the behavior grade against itself;
- positives: renamed references (random CIR variant) and operator-renamed copies accepted;
- negatives: mutants generated, kept (different reachable-state count), rejected;
- median seconds and mean TLC runs per behavior grade, and which engine decided.
`--engine graphs|wrappers|auto` chooses the behavior-grade engine (auto). Prints one table and
writes it (Markdown) to --out.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from pathlib import Path

from alias_fixtures.grading.controls import (
    ControlResult,
    mutant_controls,
    operator_names,
    operator_renamed_control,
    renamed_control,
    self_control,
)
from alias_fixtures.tasks.loaders import load_examples, load_task_set, select_models
from alias_fixtures.tasks.task import Task, TaskError, builtin_tasks
from alias_fixtures.tasks.variants import check_original
from tlc_harness.behavior.options import ENGINES, BehaviorOptions
from tlc_harness.tools.results import Verdict
from tlc_harness.tools.runner import Harness

HERE = Path(__file__).resolve().parent


def _short(detail: str, head: int = 80, tail: int = 160) -> str:
    """A long detail's start and end (the end holds the verdict of the last TLC run)."""
    return detail if len(detail) <= head + tail else f"{detail[:head]} … {detail[-tail:]}"


def run_suite(harness: Harness, name: str, tasks: list[Task], args: argparse.Namespace,
              log: list[str], *, originals: bool = False) -> dict[str, object]:
    """Every control of every task; `originals`: a task whose original model does not pass
    TLC (the benchmark excludes it: a reference that deadlocks or violates its own invariant
    is no reference) is listed with its verdict and left out."""
    covered: list[str] = []
    results: list[ControlResult] = []
    failures: list[str] = []
    made_total = 0
    excluded: list[str] = []
    for i, task in enumerate(tasks, 1):
        t0 = time.monotonic()
        if originals:
            run = check_original(harness, task)
            if run.verdict is not Verdict.OK:
                excluded.append(task.id)
                log.append(f"- {name}: {task.id}: not a task of the study: its original does not "
                           f"pass TLC ({run.verdict.value})")
                print(f"[{name} {i}/{len(tasks)}] {task.id}: original {run.verdict.value}, "
                      "left out", flush=True)
                continue
        # no per-output budget: the controls measure the grader, not a study's wall time
        options = BehaviorOptions(engine=args.engine, limit=args.mappings, timeout=args.timeout,
                                  output_budget=None)
        own = self_control(harness, task, options)
        results.append(own)
        if not own.correct or args.coverage_only:
            if not own.correct:
                failures.append(f"{task.id}: self -> {own.verdict}: {_short(own.detail)}")
            else:
                covered.append(task.id)
            print(f"[{name} {i}/{len(tasks)}] {task.id}: self {own.verdict}, "
                  f"{time.monotonic() - t0:.1f} s", flush=True)
            continue
        covered.append(task.id)
        ren = renamed_control(harness, task, seed=args.seed, options=options)
        if ren is not None:
            results.append(ren)
        ops = operator_names(task)
        if ops:
            rng = random.Random(f"{args.seed}:{task.id}")
            chosen = rng.sample(ops, k=max(1, len(ops) // 2))
            results.append(operator_renamed_control(harness, task, chosen, rng.randrange(2**32),
                                                    options))
        muts, made = mutant_controls(harness, task, seed=args.seed, tries=args.tries,
                                     keep=args.keep, options=options)
        made_total += made
        results.extend(muts)
        bad = [r for r in results if r.task_id == task.id and not r.correct]
        failures += [f"{task.id}: {r.kind} -> {r.verdict}: {_short(r.detail)}" for r in bad]
        print(f"[{name} {i}/{len(tasks)}] {task.id}: {len(muts)} mutants kept of {made}, "
              f"{len(bad)} wrong, {time.monotonic() - t0:.1f} s", flush=True)
    by_kind = {k: [r for r in results if r.kind == k] for k in ("renamed", "operators", "mutant")}
    tasks = [t for t in tasks if t.id not in excluded]
    behaving = [t for t in tasks if t.cfg.has_behavior]
    log += [f"- {name}: {f}" for f in failures]
    seconds = [r.seconds for r in results]
    return {
        "suite": name, "tasks": len(tasks), "covered": len(covered),
        "behaving": len(behaving), "covered_behaving": len(set(covered) & {t.id for t in behaving}),
        "renamed": f"{sum(r.correct for r in by_kind['renamed'])}/{len(by_kind['renamed'])}",
        "operators": f"{sum(r.correct for r in by_kind['operators'])}/"
                     f"{len(by_kind['operators'])}",
        "mutants": f"{sum(r.correct for r in by_kind['mutant'])}/{len(by_kind['mutant'])} "
                   f"(of {made_total} made)",
        "median_s": statistics.median(seconds) if seconds else float("nan"),
        "mean_runs": statistics.mean(r.tlc_runs for r in results) if results else float("nan"),
        "by_graphs": f"{sum(r.engine == 'graphs' for r in results)}/{len(results)}",
    }


def _select_corpus(ap: argparse.ArgumentParser, args: argparse.Namespace,
                   log: list[str]) -> list[Task]:
    """The corpus models to measure (checked before any JVM starts: a typo fails at once)."""
    try:
        corpus, left_out = select_models(load_examples(args.corpus), only=args.only,
                                         max_seconds=args.max_seconds,
                                         min_seconds=args.min_seconds)
    except TaskError as exc:
        ap.error(f"--only: {exc}")
    log += left_out
    return corpus


def _select_release(ap: argparse.ArgumentParser, args: argparse.Namespace,
                    log: list[str]) -> list[Task]:
    """The release's tasks to measure: every task (or `--only`), every `--every`-th of them
    in id order; specs the loader skips are listed with their reason."""
    try:
        loaded = load_task_set(str(args.release))
    except TaskError as exc:
        ap.error(f"--release: {exc}")
    log += [f"- release: {s.id}: not a task: {s.reason}" for s in loaded.skipped]
    tasks = sorted(loaded.tasks, key=lambda t: (len(t.id), t.id))
    if args.only:
        unknown = set(args.only) - {t.id for t in tasks}
        if unknown:
            ap.error(f"--only: not a task of the release: {', '.join(sorted(unknown))}")
        tasks = [t for t in tasks if t.id in args.only]
    return tasks[::args.every]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--corpus", type=Path, help="a tlaplus/Examples corpus folder (optional)")
    ap.add_argument("--release", type=Path,
                    help="a TLA+-Bench release (its checkout or dataset_release folder)")
    ap.add_argument("--every", type=int, default=1,
                    help="only every N-th task of --release, in id order (a sample; 1)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--tries", type=int, default=6, help="mutants made per task (6)")
    ap.add_argument("--keep", type=int, default=3, help="kept mutants graded per task (3)")
    ap.add_argument("--timeout", type=float, default=120.0, help="TLC limit per run (120 s)")
    ap.add_argument("--max-seconds", type=float, default=None,
                    help="only corpus models whose manifest TLC time is at most this")
    ap.add_argument("--min-seconds", type=float, default=None,
                    help="only corpus models whose manifest TLC time is more than this")
    ap.add_argument("--coverage-only", action="store_true",
                    help="grade each reference against itself only (no other control)")
    ap.add_argument("--mappings", type=int, default=60,
                    help="most mappings the wrapper engine tries (60)")
    ap.add_argument("--engine", choices=ENGINES, default="auto",
                    help="behavior-grade engine (auto: graphs within the graph budget)")
    ap.add_argument("--only", action="append", default=[], metavar="ID",
                    help="only this corpus model (repeatable; ids as in the failures list)")
    ap.add_argument("--no-builtin", action="store_true", help="leave out the built-in suite")
    ap.add_argument("--out", type=Path, default=HERE / "results" / "grader_controls.md")
    args = ap.parse_args()
    if args.only and not (args.corpus or args.release):
        ap.error("--only needs --corpus or --release")
    if args.only and args.corpus and args.release:
        ap.error("--only with one of --corpus and --release")
    if args.every < 1:
        ap.error("--every must be at least 1")
    log: list[str] = []
    rows = []
    corpus = _select_corpus(ap, args, log) if args.corpus else None
    release = _select_release(ap, args, log) if args.release else None
    started = time.monotonic()
    with Harness(tlc_timeout=args.timeout) as harness:
        if not args.no_builtin:
            rows.append(run_suite(harness, "built-in", builtin_tasks(), args, log))
        if corpus is not None:
            rows.append(run_suite(harness, "corpus", corpus, args, log))
        if release is not None:
            rows.append(run_suite(harness, "TLA+-Bench release", release, args, log,
                                  originals=True))
    lines = ["# Behavior-grader controls", "",
             f"Command: `python scripts/grader_controls.py {' '.join(sys.argv[1:])}`", "",
             f"Behavior engine: `{args.engine}`.", "",
             "| suite | tasks | covered (self ok) | covered, models with a behavior "
             "| renamed accepted | operator-renamed accepted "
             "| mutants rejected (kept of made) | median s per grade | mean TLC runs per "
             "grade | decided by the graph engine |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['suite']} | {r['tasks']} | {r['covered']} | "
                     f"{r['covered_behaving']}/{r['behaving']} | {r['renamed']} | "
                     f"{r['operators']} | {r['mutants']} | {float(str(r['median_s'])):.2f} | "
                     f"{float(str(r['mean_runs'])):.2f} | {r['by_graphs']} |")
    lines += ["", f"Wall time: {time.monotonic() - started:.0f} s on {os.cpu_count()} cores. "
              "A model with a behavior is one whose cfg names a SPECIFICATION or INIT and NEXT "
              "(the others are constant models, which the behavior grade reports as "
              "`not_covered`)."]
    lines += ["", "Failures (each a task outside coverage or a wrong control):", ""]
    lines += log or ["- none"]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
