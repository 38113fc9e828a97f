"""Where a benchmark run's time went, and what a study of that size would take.

Run: `python scripts/run_timing.py OUT [OUT ...] [--processes 2] [--cases 3300] [--top 10]
[--out F]`, OUT a benchmark run's out folder (its `results.jsonl`) or the file itself.

Reads every header and case record (nothing is run): the variants' preparation when the header
records it (seconds, variants, how many SANY/TLC verified in that run, the rest from the
cache); per case, the seconds of the whole case and of each grade (parse, name, behavior; a
case whose grades came from the grade cache, `grader.cached`, has its case seconds but no
grade seconds: those are the run's that graded it);
their sum, median, 90th percentile and maximum; the tasks that took longest; and a projection:
`--cases` cases of the same mix at `--processes` processes is `cases x mean case seconds /
processes`, plus the preparation when a cold one is recorded. The projection assumes the
measured cases are a fair sample of the study's tasks (a run cut short over tasks in id order
is not, and says so) and the machine's load is the same.
"""

from __future__ import annotations

import argparse
import json
import statistics
from collections import defaultdict
from pathlib import Path
from typing import Any

GRADES = ("parse", "name", "behavior")


def read_records(paths: list[Path]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The headers and case records of the results files `paths` (folders or files)."""
    headers: list[dict[str, Any]] = []
    cases: list[dict[str, Any]] = []
    for path in paths:
        file = path / "results.jsonl" if path.is_dir() else path
        if not file.is_file():
            raise SystemExit(f"run_timing: no results file at {file}")
        for number, line in enumerate(file.read_text(encoding="utf-8").splitlines(), 1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as exc:
                raise SystemExit(f"run_timing: {file}:{number}: not JSON ({exc})") from exc
            kind = record.get("kind")
            (headers if kind == "header" else cases if kind == "case" else []).append(record)
    return headers, cases


def _quantiles(values: list[float]) -> dict[str, float]:
    if not values:
        return {"n": 0, "sum": 0.0, "median": 0.0, "p90": 0.0, "max": 0.0, "mean": 0.0}
    ordered = sorted(values)
    p90 = ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))]
    return {"n": len(values), "sum": sum(values), "median": statistics.median(values),
            "p90": p90, "max": ordered[-1], "mean": statistics.fmean(values)}


def summarize(headers: list[dict[str, Any]], cases: list[dict[str, Any]], *, processes: int,
              cases_wanted: int, top: int) -> dict[str, Any]:
    """The figures `render` prints (see the module docstring)."""
    case_seconds = [float(c.get("seconds") or 0.0) for c in cases]
    graded_here = [c for c in cases if not (c.get("grader") or {}).get("cached")]
    per_grade = {g: _quantiles([float(c["grades"][g].get("seconds") or 0.0) for c in graded_here
                                if isinstance(c.get("grades", {}).get(g), dict)])
                 for g in GRADES}
    by_task: dict[str, float] = defaultdict(float)
    for c, s in zip(cases, case_seconds, strict=True):
        by_task[str(c.get("task"))] += s
    preparations = [h["preparation"] for h in headers if isinstance(h.get("preparation"), dict)]
    cold = [p for p in preparations if p.get("verified_now")]
    whole = _quantiles(case_seconds)
    projection = cases_wanted * whole["mean"] / max(1, processes)
    if cold:
        projection += max(float(p["seconds"]) for p in cold)
    tasks = {str(c.get("task")) for c in cases}
    listed = max((int(h.get("task_count") or 0) for h in headers), default=0)
    graded = sum(q["sum"] for q in per_grade.values())
    return {"cases": len(cases), "cached": len(cases) - len(graded_here), "tasks": len(tasks),
            "tasks_in_header": listed,
            "outside_grades": whole["sum"] - graded,
            "case_seconds": whole, "grades": per_grade, "preparations": preparations,
            "slowest_tasks": sorted(by_task.items(), key=lambda kv: -kv[1])[:top],
            "processes": processes, "cases_wanted": cases_wanted,
            "projection_seconds": projection}


def render(summary: dict[str, Any], sources: list[str]) -> str:
    """Markdown of `summary`."""
    w = summary["case_seconds"]
    lines = [f"# Run timing: {', '.join(sources)}", "",
             f"{summary['cases']} cases over {summary['tasks']} tasks "
             f"(the run's header lists {summary['tasks_in_header']} tasks)"
             + (f"; {summary['cached']} read their grades from the grade cache (no grade "
                "seconds of theirs below)" if summary.get("cached") else "") + ".", ""]
    for p in summary["preparations"]:
        lines.append(f"- preparation: {p.get('variants')} variants in {p.get('seconds')} s, "
                     f"{p.get('verified_now')} verified by SANY/TLC in that run, the rest from "
                     "the cache")
    if not summary["preparations"]:
        lines.append("- preparation: not recorded in the header (a run before it was)")
    lines += ["", "| seconds per | n | sum | mean | median | p90 | max |",
              "|---|---|---|---|---|---|---|",
              f"| case | {w['n']} | {w['sum']:.0f} | {w['mean']:.1f} | {w['median']:.1f} | "
              f"{w['p90']:.1f} | {w['max']:.1f} |"]
    for grade, q in summary["grades"].items():
        lines.append(f"| {grade} grade | {q['n']} | {q['sum']:.0f} | {q['mean']:.1f} | "
                     f"{q['median']:.1f} | {q['p90']:.1f} | {q['max']:.1f} |")
    lines.append(f"| outside the grades (the model, a reference's first self-check) | | "
                 f"{summary['outside_grades']:.0f} | | | | |")
    lines += ["", "Slowest tasks (seconds over their cases): " + ", ".join(
        f"{t} {s:.0f}" for t, s in summary["slowest_tasks"]), ""]
    hours = summary["projection_seconds"] / 3600
    partial = summary["tasks"] < summary["tasks_in_header"]
    lines.append(f"Projection: {summary['cases_wanted']} cases of this mix at "
                 f"{summary['processes']} processes: {hours:.1f} h"
                 + (" (from a run that stopped before its last tasks: the tasks measured are "
                    "the first in the run's order, not a random sample)" if partial else "")
                 + ".")
    return "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("runs", nargs="+", type=Path, help="a run's out folder or results file")
    ap.add_argument("--processes", type=int, default=2, help="processes of the projection (2)")
    ap.add_argument("--cases", type=int, default=3300,
                    help="cases of the projection (3300: 110 tasks x 3 conditions x 5 samples "
                    "x 2 models)")
    ap.add_argument("--top", type=int, default=10, help="slowest tasks listed (10)")
    ap.add_argument("--out", type=Path, help="also write the Markdown here")
    args = ap.parse_args()
    if args.processes < 1 or args.cases < 1:
        ap.error("--processes and --cases must be at least 1")
    headers, cases = read_records(args.runs)
    if not cases:
        ap.error("no case records in the results given")
    text = render(summarize(headers, cases, processes=args.processes, cases_wanted=args.cases,
                            top=args.top), [str(p) for p in args.runs])
    if args.out:
        args.out.write_text(text, encoding="utf-8")
    print(text, end="")


if __name__ == "__main__":
    main()
