"""What a study costs per grade: the reference model over TLA+-Bench's release graded with
every grade and with parse and name only, side by side in one run of this script on one
machine, per stage and per task; with `--loaded`, the full grade again beside two busy
processes, its verdicts compared with the quiet run's.

    python scripts/study_cost.py [--release ../shared/corpus/tla-bench-release]
        [--tasks 1009,1034 | --every 1 [--offset 0]] [--model reference] [--jobs 2]
        [--timeout 300] [--loaded] [--out scripts/results/study_cost.md]

The variants are prepared (built and verified by TLC) once, by a first pytest run that grades
nothing but parsing; every measured run starts from a copy of that variant cache, with its own
out folder and its own `--alias-cache` root (no explored graph, self-check or grade is shared
between runs), and runs `pytest -n JOBS benchmarks/test_cases.py --alias-samples 1` over the
original and random conditions. A run's wall time is its pytest process's; its CPU time that
of the pytest process and everything it started (`os.wait4`), not the busy processes'.

A case's seconds are the record's: its grades, and outside them the model and, for the first
case of a variant, the reference's self-check (the behavior grade's coverage), which the
parse-and-name run does not make. `--model reference:distinct` writes a comment into each
output, so that no output is the reference's text and every stage of the behavior grade runs
(the worst case: every output right); plain `reference` outputs are the reference's own
modules, whose behavior grade is the self-check. The Markdown goes to `--out`, the numbers to
the same path with `.json`. Nothing of the corpus is copied: the files hold task ids, verdicts
and seconds.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from results_files import publish, revision  # scripts/results_files.py, beside this one
from sample_cache_cost import subset  # the release's task ids in numeric order

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
RELEASE = ROOT.parent / "shared" / "corpus" / "tla-bench-release"
TARGET = 1.5  # issue 52: the full grade costs at most 1.5 times the parse-and-name grade
#: the release tasks that took two thirds of a reference-model run's time
HEAVIEST = ("1009", "1010", "1072", "1125", "1077", "1034")
PASSES = {"names": "parse,name", "full": "parse,name,behavior"}
STUDY_CASES = 3300  # 110 tasks x 3 conditions x 5 samples x 2 models
BUSY = "while True: pass"


def run_pass(args: argparse.Namespace, tasks: list[str], folder: Path, grades: str,
             variants: Path | None, busy: int = 0) -> dict[str, Any]:
    """One benchmark run in `folder` (its variant cache a copy of `variants`), beside `busy`
    busy processes; its wall and CPU seconds and its case records."""
    out, cache = folder / "out", folder / "cache"
    folder.mkdir(parents=True, exist_ok=True)
    if variants is not None:
        shutil.copytree(variants, out / "cache" / "variants")
    select = " or ".join(f"test_case[{task}/" for task in tasks)
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n",
               str(args.jobs), "benchmarks/test_cases.py", "--alias-tasks", str(args.release),
               "--alias-model", args.model, "--alias-samples", "1", "--alias-grades", grades,
               "--alias-primary", "behavior" if "behavior" in grades else "name",
               "--alias-out", str(out), "--alias-cache", str(cache),
               "--alias-timeout", str(args.timeout), "-k", select]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    hogs = [subprocess.Popen([sys.executable, "-c", BUSY]) for _ in range(busy)]
    try:
        began = time.monotonic()
        with (folder / "pytest.log").open("w") as log:
            child = subprocess.Popen(command, cwd=ROOT, env=env, stdout=log,
                                     stderr=subprocess.STDOUT)
            _, status, usage = os.wait4(child.pid, 0)
        seconds = time.monotonic() - began
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait()
    results = out / "results.jsonl"
    if not results.is_file():
        log = (folder / "pytest.log").read_text().strip().splitlines()
        raise SystemExit(f"the {grades} run wrote no results: " + "\n".join(log[-15:]))
    rows = [json.loads(line) for line in results.read_text().splitlines()]
    header = next((r for r in rows if r.get("kind") == "header"), {})
    tail = (folder / "pytest.log").read_text().strip().splitlines()[-1:]
    return {"grades": grades, "busy": busy, "seconds": round(seconds, 1),
            "cpu_seconds": round(usage.ru_utime + usage.ru_stime, 1),
            "exit": os.waitstatus_to_exitcode(status), "tail": tail,
            "preparation": header.get("preparation"),
            "cases": [case_row(r) for r in rows if r.get("kind") == "case"]}


def case_row(record: dict[str, Any]) -> dict[str, Any]:
    """A case's seconds by stage and its verdicts, from its record."""
    grades = record.get("grades") or {}
    stages: dict[str, float] = {}
    for grade in ("parse", "name"):
        if grade in grades and grades[grade].get("seconds") is not None:
            stages[grade] = grades[grade]["seconds"]
    behavior = grades.get("behavior") or {}
    if behavior.get("verdict") not in (None, "not_run"):
        inner = behavior.get("stage_seconds") or {}
        for stage, value in inner.items():
            stages[f"behavior: {stage}"] = value
        rest = (behavior.get("seconds") or 0.0) - sum(inner.values())
        if rest > 0.0005:
            stages["behavior: other"] = rest
    total = record.get("seconds") or 0.0
    stages["outside the grades"] = max(0.0, total - sum(
        (grades.get(g) or {}).get("seconds") or 0.0 for g in ("parse", "name", "behavior")))
    return {"id": record["id"], "task": record["task"], "condition": record["condition"],
            "seconds": total, "stages": {k: round(v, 3) for k, v in stages.items()},
            "verdicts": {g: v.get("verdict") for g, v in grades.items()},
            "behavior_code": behavior.get("reason_code"),
            "graded_as": behavior.get("graded_as"),
            "output_graph_from": behavior.get("output_graph_from"),
            "infra_error": record.get("infra_error")}


def by_task(run: dict[str, Any]) -> dict[str, dict[str, float]]:
    """Seconds per task and stage, summed over the task's cases (both conditions)."""
    out: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for case in run["cases"]:
        for stage, value in case["stages"].items():
            out[case["task"]][stage] += value
        out[case["task"]]["case"] += case["seconds"]
    return {t: dict(s) for t, s in out.items()}


def verdict_diffs(quiet: dict[str, Any], loaded: dict[str, Any]) -> list[dict[str, Any]]:
    """Cases whose verdicts differ between two runs of the same grades."""
    theirs = {c["id"]: c for c in loaded["cases"]}
    return [{"id": c["id"], "quiet": c["verdicts"], "loaded": theirs.get(c["id"], {}).get(
        "verdicts")} for c in quiet["cases"]
        if theirs.get(c["id"], {}).get("verdicts") != c["verdicts"]]


def collect(args: argparse.Namespace) -> dict[str, Any]:
    tasks = args.tasks.split(",") if args.tasks else subset(args.release, args.every,
                                                            args.offset)
    print(f"tasks: {', '.join(tasks)}", file=sys.stderr)
    runs: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory(prefix="alias-study-cost-") as scratch:
        variants = args.variants
        if variants is None or not variants.is_dir():
            prepared = Path(scratch) / "prepare"
            runs["prepare"] = run_pass(args, tasks, prepared, "parse,name", None)
            made = prepared / "out" / "cache" / "variants"
            if variants is not None:  # kept for the next run of the same tasks
                shutil.copytree(made, variants)
            variants = made
            print(f"prepared: {runs['prepare']['seconds']} s", file=sys.stderr)
        else:
            runs["prepare"] = {"seconds": 0.0, "from": str(variants)}
        order = ["names", "full"] if not args.full_first else ["full", "names"]
        for name in [p for p in order if p in args.passes.split(",")]:
            runs[name] = run_pass(args, tasks, Path(scratch) / name, PASSES[name], variants)
            print(f"{name}: {runs[name]['seconds']} s, {len(runs[name]['cases'])} cases",
                  file=sys.stderr)
        if args.loaded:
            runs["full_loaded"] = run_pass(args, tasks, Path(scratch) / "loaded", PASSES["full"],
                                           variants, busy=2)
            print(f"full, loaded: {runs['full_loaded']['seconds']} s", file=sys.stderr)
    graded = {k: sum(c["seconds"] for c in runs[k]["cases"]) if k in runs else 0.0
              for k in ("names", "full")}
    both = "names" in runs and "full" in runs
    return {"command": "python scripts/study_cost.py " + " ".join(sys.argv[1:]),
            "when": datetime.now(UTC).isoformat(timespec="seconds"), "commit": revision(),
            "machine": platform.node(), "cores": os.cpu_count(),
            "load_before": os.getloadavg()[0], "jobs": args.jobs, "timeout": args.timeout,
            "model": args.model, "tasks": tasks, "runs": runs,
            "ratio_wall": round(runs["full"]["seconds"] / runs["names"]["seconds"], 3)
            if both else None,
            "ratio_cpu": round(runs["full"]["cpu_seconds"] / runs["names"]["cpu_seconds"], 3)
            if both else None,
            "ratio_cases": round(graded["full"] / graded["names"], 3)
            if both and graded["names"] else None,
            "per_task": {k: by_task(runs[k]) if k in runs else {} for k in ("names", "full")},
            "loaded_diffs": verdict_diffs(runs["full"], runs["full_loaded"])
            if "full_loaded" in runs else None}


def _fmt(value: float) -> str:
    return f"{value:,.1f}"


def _ratio(value: float, base: float | None) -> str:
    return f"{value / base:.2f}" if base else "-"


def markdown(data: dict[str, Any]) -> str:
    runs, names, full = data["runs"], data["per_task"]["names"], data["per_task"]["full"]
    for key in ("names", "full"):  # a pass not run: no cases
        runs.setdefault(key, {"grades": PASSES[key], "busy": 0, "seconds": 0.0,
                              "cpu_seconds": 0.0, "tail": ["not run"], "cases": []})
    verdict = ("meets" if data["ratio_wall"] <= TARGET else "misses") \
        if data["ratio_wall"] is not None else "was not measured against"
    lines = ["# What a study costs: every grade against parse and name", "",
             f"`{data['command']}` at {data['commit']}, {data['when']}, {data['cores']} cores (load "
             f"{data['load_before']:.1f} when it began). The model `{data['model']}` over "
             f"TLA+-Bench's release ({len(data['tasks'])} tasks), original and random "
             f"conditions, one sample, TLC limit {data['timeout']:g} s; the variants prepared "
             f"once ({_fmt(runs['prepare']['seconds'])} s; 0: read from an earlier run's), "
             "each run from a copy of them with empty caches.", "",
             (f"**Full grade / parse and name = {data['ratio_wall']:.2f}** in wall time "
              f"(CPU {data['ratio_cpu']:.2f}; the cases' own seconds "
              f"{data['ratio_cases'] or 0:.2f}); the target is at most {TARGET}: it {verdict} "
              "it." if data["ratio_wall"] is not None else
              "Only the passes named by `--passes` ran: no ratio."),
             "", "| run | grades | busy processes | wall s | CPU s | cases | infra errors | "
             "behavior verdicts | pytest |", "|---|---|---:|---:|---:|---:|---:|---|---|"]
    for key in ("names", "full", "full_loaded"):
        if key not in runs:
            continue
        run = runs[key]
        counts = Counter(str(c["verdicts"].get("behavior")) for c in run["cases"])
        lines.append(f"| {key} | {run['grades']} | {run['busy']} | {_fmt(run['seconds'])} | "
                     f"{_fmt(run['cpu_seconds'])} | {len(run['cases'])} | "
                     f"{sum(1 for c in run['cases'] if c['infra_error'])} | "
                     f"{', '.join(f'{k} {v}' for k, v in sorted(counts.items()))} | "
                     f"{' '.join(run['tail'])} |")
    stages: dict[str, dict[str, float]] = {}
    for key in ("names", "full"):
        for case in runs[key]["cases"]:
            for stage, value in case["stages"].items():
                stages.setdefault(stage, {"names": 0.0, "full": 0.0})[key] += value
    lines += ["", "Seconds by stage, summed over the cases (`outside the grades`: the model and "
              "the reference's self-check, made once per variant by the full grade):", "",
              "| stage | parse and name | full |", "|---|---:|---:|"]
    for stage, value in sorted(stages.items(), key=lambda kv: -kv[1]["full"]):
        lines.append(f"| {stage} | {_fmt(value['names'])} | {_fmt(value['full'])} |")
    heavy = sorted(full, key=lambda t: -full[t]["case"])[:6]
    lines += ["", "The six tasks whose full grade cost most (seconds over both conditions):",
              "", "| task | parse and name | full | ratio | full by stage |",
              "|---|---:|---:|---:|---|"]
    for task in heavy:
        mine = full[task]
        parts = ", ".join(f"{k} {v:.1f}" for k, v in sorted(mine.items(), key=lambda kv: -kv[1])
                          if k != "case" and v >= 0.05)
        base = names.get(task, {}).get("case")
        lines.append(f"| {task} | {_fmt(base) if base else 'not run'} | {_fmt(mine['case'])} | "
                     f"{_ratio(mine['case'], base)} "
                     f"| {parts} |")
    mean_full = statistics.fmean(c["seconds"] for c in runs["full"]["cases"]) \
        if runs["full"]["cases"] else 0.0
    mean_names = statistics.fmean(c["seconds"] for c in runs["names"]["cases"]) \
        if runs["names"]["cases"] else 0.0
    hours = STUDY_CASES / 3600 / data["jobs"]
    names_part = (f" ({mean_names * hours:.1f} h with parse and name)"
                  if runs["names"]["cases"] else "")
    lines += ["", f"At this mix, {STUDY_CASES:,} cases take {mean_full * hours:.1f} h "
              f"on {data['jobs']} processes with every grade{names_part}, "
              f"{mean_full * hours / 8:.1f} h on 8 such nodes "
              f"(the cases' mean seconds: {mean_full:.1f} with every grade"
              + (f", {mean_names:.1f} with parse and name" if names_part else "")
              + "; a study's variants share one self-check among all their samples and "
              "models, so this charges it more than a study does)."]
    if data["loaded_diffs"] is not None:
        diffs = data["loaded_diffs"]
        lines += ["", "Beside two busy processes the full grade gives "
                  + ("the same verdicts for every case." if not diffs else
                     f"other verdicts for {len(diffs)} case(s): " + "; ".join(
                         f"{d['id']} {d['quiet']} -> {d['loaded']}" for d in diffs))]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--release", type=Path, default=RELEASE)
    parser.add_argument("--tasks", help="comma-separated task ids (default: --every)")
    parser.add_argument("--heaviest", action="store_true",
                        help=f"the six heaviest tasks: {','.join(HEAVIEST)}")
    parser.add_argument("--every", type=int, default=1)
    parser.add_argument("--offset", type=int, default=0)
    parser.add_argument("--model", default="reference",
                        help="reference, or reference:distinct (no output is the reference's "
                        "text: every stage runs)")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=300.0)
    parser.add_argument("--loaded", action="store_true",
                        help="also run the full grade beside two busy processes")
    parser.add_argument("--variants", type=Path,
                        help="a folder of prepared variants: read if it exists, else made and "
                        "kept there (the variant cache of a run over the same tasks)")
    parser.add_argument("--passes", default="names,full",
                        help="which of names,full to run (both: the ratio)")
    parser.add_argument("--full-first", action="store_true",
                        help="run the full grade before the parse-and-name one")
    parser.add_argument("--out", type=Path)
    parser.add_argument("--render", type=Path,
                        help="write the Markdown again from a results .json, running nothing")
    args = parser.parse_args()
    if args.render:
        data = json.loads(args.render.read_text(encoding="utf-8"))
        data.setdefault("command", "python scripts/study_cost.py (a run before it was recorded)")
        publish(markdown(data), data, args.out)
        return
    if args.heaviest:
        args.tasks = ",".join(HEAVIEST)
    data = collect(args)
    publish(markdown(data), data, args.out)


if __name__ == "__main__":
    main()
