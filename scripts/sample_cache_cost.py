"""What five samples cost against one with the grade cache: the reference model over a subset of
TLA+-Bench's release, one sample and five, in one run of this script on one machine.

    python scripts/sample_cache_cost.py [--release ../shared/corpus/tla-bench-release]
        [--every 20] [--offset 0] [--jobs 2] [--repeats 1] [--uncached]
        [--out scripts/results/sample_cache_cost.md]

Takes every `--every`-th system task of the release (ids in numeric order, from the
`--offset`-th),
and runs `pytest -n JOBS benchmarks/test_cases.py --alias-model reference` on them in the
original and random conditions with `--alias-samples 1`, then 5, each in a fresh temporary
folder (its own out folder, so its own variant cache, and its own `--alias-cache` root: nothing
is shared between the runs). `--repeats N` runs the pair N times, alternating, and the ratio is
the median's; `--uncached` also runs five samples with `--alias-no-grade-cache` (what they
cost before the cache). The reference model answers each sample with the same text, so the
five samples of a variant are one grade and four reads.

Each run's wall time is the whole pytest process (variant verification, grading, the report);
its CPU time is that of the pytest process and everything it started (less moved by other work
on a shared machine, which makes wall times of one configuration differ by 20% and more).
The grades of the five-sample run are checked against the one-sample run's: every sample of a
variant must have the verdicts its one sample had. The Markdown goes to `--out`, the numbers to
the same path with `.json`. Nothing of the corpus is copied: the files hold task ids and counts.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from results_files import publish, revision  # scripts/results_files.py, beside this one

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
RELEASE = ROOT.parent / "shared" / "corpus" / "tla-bench-release"
TARGET = 1.1  # issue 52: five samples cost at most 1.1 times one




def subset(release: Path, every: int, offset: int = 0) -> list[str]:
    """Every `every`-th system task id of the release from the `offset`-th, in numeric order."""
    from alias_fixtures.tasks.loaders import load_task_set

    ids = sorted((t.id for t in load_task_set(release).tasks), key=lambda i: (len(i), i))
    return ids[offset::every]


def run_bench(args: argparse.Namespace, tasks: list[str], samples: int, folder: Path,
              *extra: str) -> dict[str, Any]:
    """One benchmark run in `folder`; its wall time and what its records say."""
    out, cache = folder / "out", folder / "cache"
    select = " or ".join(f"test_case[{task}/" for task in tasks)
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n",
               str(args.jobs), "benchmarks/test_cases.py", "--alias-tasks", str(args.release),
               "--alias-model", "reference", "--alias-samples", str(samples),
               "--alias-out", str(out), "--alias-cache", str(cache),
               "--alias-timeout", str(args.timeout), "-k", select, *extra]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    began, cpu = time.monotonic(), _children_cpu()
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True,
                          check=False)
    seconds, cpu = time.monotonic() - began, _children_cpu() - cpu
    rows = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    cases = [r for r in rows if r.get("kind") == "case"]
    from alias_cli.cache_cmd import usage

    kinds = usage(cache)["kinds"]
    return {"samples": samples, "extra": list(extra), "seconds": round(seconds, 1),
            "cpu_seconds": round(cpu, 1),
            "exit": done.returncode, "cases": len(cases),
            "cached": sum(1 for c in cases if (c.get("grader") or {}).get("cached")),
            "infra_errors": sum(1 for c in cases if c.get("infra_error")),
            "behavior": dict(Counter(str(c["grades"].get("behavior", {}).get("verdict"))
                                     for c in cases if c.get("grades"))),
            "grade_entries": kinds.get("grades", {}).get("entries", 0),
            "grades": {c["id"]: {g: v.get("verdict") for g, v in c["grades"].items()}
                       for c in cases if c.get("grades")},
            "tail": done.stdout.strip().splitlines()[-1:]}


def _children_cpu() -> float:
    """CPU seconds (user and system) of this process's finished descendants: the run's
    pytest, its xdist workers and their JVMs, each counted once its parent has waited for it."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def disagreements(one: dict[str, Any], five: dict[str, Any]) -> list[str]:
    """Cases of the five-sample run whose verdicts differ from their variant's one sample."""
    first = {case.rsplit("/", 1)[0]: grades for case, grades in one["grades"].items()}
    return sorted(case for case, grades in five["grades"].items()
                  if first.get(case.rsplit("/", 1)[0]) not in (None, grades))


def collect(args: argparse.Namespace) -> dict[str, Any]:
    tasks = subset(args.release, args.every, args.offset)
    print(f"tasks: {', '.join(tasks)}", file=sys.stderr)
    runs: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="alias-sample-cost-") as scratch:
        for repeat in range(args.repeats):
            for samples in (1, 5):
                folder = Path(scratch) / f"r{repeat}-s{samples}"
                runs.append({"repeat": repeat, **run_bench(args, tasks, samples, folder)})
                print(f"repeat {repeat}, {samples} sample(s): {runs[-1]['seconds']} s, "
                      f"{runs[-1]['cases']} cases, {runs[-1]['cached']} cached",
                      file=sys.stderr)
        if args.uncached:
            folder = Path(scratch) / "uncached-s5"
            runs.append({"repeat": None, **run_bench(args, tasks, 5, folder,
                                                     "--alias-no-grade-cache")})
            print(f"uncached, 5 samples: {runs[-1]['seconds']} s", file=sys.stderr)
    paired = [r for r in runs if r["repeat"] is not None]
    pairs = [(r1, r5) for r1 in paired for r5 in paired
             if r1["repeat"] == r5["repeat"] and (r1["samples"], r5["samples"]) == (1, 5)]
    ratios = [round(r5["seconds"] / r1["seconds"], 3) for r1, r5 in pairs]
    cpu_ratios = [round(r5["cpu_seconds"] / r1["cpu_seconds"], 3) for r1, r5 in pairs]
    return {"when": datetime.now(UTC).isoformat(timespec="seconds"), "commit": revision(),
            "machine": platform.node(), "cores": os.cpu_count(),
            "load_before": os.getloadavg()[0], "jobs": args.jobs, "timeout": args.timeout,
            "every": args.every, "offset": args.offset, "tasks": tasks, "runs": runs, "ratios": ratios,
            "ratio": statistics.median(ratios), "cpu_ratios": cpu_ratios,
            "cpu_ratio": statistics.median(cpu_ratios),
            "disagreements": sorted({d for r1, r5 in pairs for d in disagreements(r1, r5)})}


def markdown(data: dict[str, Any]) -> str:
    verdict = "meets" if data["ratio"] <= TARGET else "misses"
    lines = ["# Five samples against one, with the grade cache", "",
             f"`python scripts/sample_cache_cost.py --every {data['every']} --offset "
             f"{data.get('offset', 0)} --jobs {data['jobs']}` at {data['commit']}, "
             f"{data['when']}, {data['cores']} cores (load {data['load_before']:.1f} when it "
             f"began). The reference model over every {data['every']}th system task of "
             f"TLA+-Bench's release from position {data.get('offset', 0)} "
             f"({', '.join(data['tasks'])}; {len(data['tasks'])} tasks), original and random "
             f"conditions, TLC limit {data['timeout']:g} s, each run with a fresh out folder "
             "and cache root.", "",
             f"**5 samples / 1 sample = {data['ratio']:.3f}** (median of "
             f"{', '.join(f'{r:.3f}' for r in data['ratios'])}); the target is at most "
             f"{TARGET}: it {verdict} it. In CPU seconds of the runs' processes (less "
             f"moved by other work on the machine than wall time): "
             f"**{data['cpu_ratio']:.3f}** (median of "
             f"{', '.join(f'{r:.3f}' for r in data['cpu_ratios'])}).", "",
             "| run | samples | wall s | CPU s | cases | graded from the cache | grade entries | "
             "infra errors | behavior verdicts | pytest |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---|---|"]
    for run in data["runs"]:
        label = (f"repeat {run['repeat']}" if run["repeat"] is not None
                 else "no grade cache")
        verdicts = ", ".join(f"{k} {v}" for k, v in sorted(run["behavior"].items()))
        lines.append(f"| {label} | {run['samples']} | {run['seconds']:.1f} | "
                     f"{run['cpu_seconds']:.1f} | {run['cases']} | "
                     f"{run['cached']} | {run['grade_entries']} | {run['infra_errors']} | "
                     f"{verdicts} | {' '.join(run['tail'])} (exit {run['exit']}) |")
    lines += ["", "A skipped case is a variant the run excludes before any model call (its "
              "original does not pass TLC); `failed` is a case whose behavior grade is not "
              "`ok` (`not_covered`, `undecided`). "
              "Every sample of the five-sample runs has its variant's verdicts of the "
              "one-sample run" if not data["disagreements"] else
              f"Samples whose verdicts differ from their variant's one sample: "
              f"{', '.join(data['disagreements'])}", ""]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--release", type=Path, default=RELEASE)
    parser.add_argument("--every", type=int, default=20)
    parser.add_argument("--offset", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=300.0)
    parser.add_argument("--uncached", action="store_true",
                        help="also run five samples with --alias-no-grade-cache")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    data = collect(args)
    text = markdown(data)
    publish(text, data, args.out)


if __name__ == "__main__":
    main()
