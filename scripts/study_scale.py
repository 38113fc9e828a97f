"""Grade the corpus's real outputs as a study's script would, cold and warm, and project a study.

Run: `python scripts/study_scale.py [--corpus ../shared/corpus] [--passes cold,warm]
[--jobs 2] [--runner processes|xdist] [--order heaviest|manifest] [--timeout 60]
[--only SPEC_ID ...] [--manifest both|examples|release] [--out scripts/results]`.

Each output of `<corpus>/tla-bench-outputs/manifest.json` and `manifest_release.json` (193;
`--manifest examples` for the 75 of the first, whose results files have no suffix; the others
get `_both` or `_release`; a release output's reference is the release's spec of its id, as in
`real_outputs.py`) is graded in a Python process of its
own (`study_scale.py one ...`), as a user's shell loop would: the process loads the task, builds
and verifies its `original` variant (kept under `<cache root>/variants`), checks the reference
against itself when the behavior grade needs it, as a benchmark case does (`<root>/references`;
its seconds are the `reference_check` stage), explores graphs (`<root>/graphs`) and grades parse, name
and behavior (engine `auto`, as `scripts/real_outputs.py` does). Pass `cold` starts from an
empty cache root (a temporary folder, removed at the end); pass `warm` grades again on the root
`cold` filled. Passes `names-cold` and `names-warm` do the same with parse and the name grade
only (no reference self-check, no behavior grade; the task's `original` variant is still built
and verified, as the name grade needs it), on a cache root of their own, so that a full grade's
time can be set against a name-only grade's on the same outputs. `--passes` takes any of the
four, comma-separated, run in the order given (`warm` after `cold`, `names-warm` after
`names-cold`). `--jobs` processes run at once. With `--runner xdist` the outputs are graded
in one pytest run with `--jobs` xdist workers instead (`study_scale_cases.py`), each worker
loading the corpus and starting its JVMs once, as a study run through pytest does; its results
go to `study_scale_xdist.{json,md}`, with each worker's busy and idle seconds. `--order
heaviest` (the default) hands out the outputs of the tasks whose reference took TLC longest in
the corpus manifest first; `manifest` keeps the manifest's order.

`<out>/study_scale.json` and `<out>/study_scale.md` get, per pass: the wall time, the seconds
per output (mean, median, max), the outputs over 150 s, the sum of each stage's seconds over
the outputs (process start-up and loading, variant, reference check, parse, name, behavior, and
the behavior grade's own stages), the slowest outputs, whether every verdict agrees with the
other pass, and the projection of a 3,330-case study (111 tasks x 3 conditions x 10 samples)
at the pass's seconds per output on `--jobs` processes here, and on 8 nodes of as many; a
study's projection by whose work it is (`study_projection`: task work once per task, output
work once per case); and, where a full pass and its names pass both ran, the full grade's wall
time and summed seconds (variant, reference check, parse, name, behavior) against the
name-only grade's, with their ratio. Nothing is written into the corpus.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))  # the sibling scripts (real_outputs), run as a script or loaded
STUDY_TASKS = 111
STUDY_CASES = STUDY_TASKS * 3 * 10
RAY_NODES = 8
SLOW = 150.0  # seconds: the bound on one output
PLAN_ENV = "ALIAS_STUDY_PLAN"  # the xdist runner's plan file, read by study_scale_cases.py
RUNNERS = ("processes", "xdist")
PASSES = ("cold", "warm", "names-cold", "names-warm")
FILLS = {"warm": "cold", "names-warm": "names-cold"}  # a warm pass grades on the root this filled
ORDERS = ("heaviest", "manifest")
MANIFESTS = ("both", "examples", "release")  # as real_outputs.py's --manifest
NAME_ONLY = ("name",)  # a names pass's grades (parse always runs)
GRADED = ("variant", "reference_check", "parse", "name", "behavior")  # a grade's own seconds
GATE_CODES = ("reference_self_check", "reference_mismatch")  # the self-check refused the grade
STAGES = ("startup", "variant", "reference_check", "parse", "name", "behavior")


# ------------------------------------------------------------------------ one output, one process
def load_corpus(corpus: Path, manifest: str = "both"
                ) -> tuple[dict[tuple[str, str], Any], list[Any]]:
    """The outputs of `manifest` (`both`, `examples`: manifest.json, `release`:
    manifest_release.json) by (spec id, model), and their reference tasks: tlaplus/Examples
    models, TLA+-Bench's release specs."""
    from real_outputs import RELEASE, read_outputs

    from alias_fixtures.tasks.loaders import load_examples, load_task_set

    outputs = {o.key: o for o in read_outputs(corpus, manifest)}
    tasks = (load_examples(corpus / "tlaplus-examples", passing_only=False)
             if manifest != "release" else [])
    if manifest != "examples":
        tasks += load_task_set(corpus / RELEASE).tasks
    return outputs, tasks


def task_key(task: Any) -> tuple[str, str]:
    """The (spec_dir, cfg) a corpus output names its reference task by (for a release spec,
    the release's folder name and the task's id)."""
    from real_outputs import RELEASE

    if "spec_dir" not in task.extra and "spec_id" in task.extra:
        return (RELEASE, str(task.id))
    return (str(task.extra.get("spec_dir")), str(task.extra.get("cfg")))


def task_of(out: Any, tasks: list[Any]) -> Any:
    """The task an output is graded against, or None."""
    return next((t for t in tasks if task_key(t) == (out.spec_dir, out.cfg)), None)


def order_work(outputs: list[Any], tasks: list[Any], order: str) -> list[tuple[str, str]]:
    """The (spec id, model) items in the order they are handed out. `heaviest`: the outputs of
    the tasks whose reference takes TLC longest (`Task.expected_seconds`, the only cost
    known before a cold run) first, a task's outputs together, ties by
    (spec id, model). Longest processing time first: xdist's loadgroup hands a worker its next
    group while it still works on the current one, so a heavy group at the end of the queue
    leaves the other worker idle. `manifest`: the manifest's order."""
    if order == "manifest":
        return [o.key for o in outputs]
    cost: dict[tuple[str, str], float] = {}
    for t in tasks:
        cost.setdefault(task_key(t), t.expected_seconds)  # the first, as task_of
    groups: dict[tuple[str, str], list[tuple[str, str]]] = {}
    for o in outputs:
        groups.setdefault((o.spec_dir, o.cfg), []).append(o.key)
    ranked = sorted(groups.items(), key=lambda g: (-cost.get(g[0], 0.0), min(g[1])))
    return [key for _, keys in ranked for key in sorted(keys)]


def grade_in_process(args: argparse.Namespace) -> dict[str, Any]:
    """Grade one output in this process; the row with each stage's seconds."""
    from tlc_harness.tools.runner import Harness

    loaded = time.monotonic()
    outputs, tasks = load_corpus(args.corpus, args.manifest)
    load = round(time.monotonic() - loaded, 3)
    grades = tuple(g for g in args.grades.split(",") if g) or None
    with Harness(tlc_timeout=args.timeout, pool_size=1) as harness:
        row = grade_row(outputs[(args.spec, args.model)], tasks, harness, Path(args.cache),
                        args.timeout, grades)
    row["stages"]["load"] = load
    return row


def grade_row(out: Any, tasks: list[Any], harness: Any, root: Path, timeout: float,
              grades: tuple[str, ...] | None = None) -> dict[str, Any]:
    """Grade one corpus output with `harness` on the cache root `root`; its row. `grades`:
    the grades to make (None: every one); without `behavior`, no reference self-check."""
    from alias_fixtures.grading.grade import ReferenceCoverage, grade_output
    from alias_fixtures.tasks.variants import VariantStore, build_variant
    from reports.schema import GRADES
    from tlc_harness.behavior.options import BehaviorOptions

    task = task_of(out, tasks)
    row: dict[str, Any] = {"spec_id": out.spec_id, "model": out.model, "stages": {}}
    if task is None:
        return {**row, "parse": "not_run", "name": "not_run", "behavior": "no_reference"}
    t0 = time.monotonic()
    store = VariantStore(root / "variants", jar_sha256=harness.toolchain.jar_sha256)
    plain, check = build_variant(harness, task, "original", store=store)
    row["stages"]["variant"] = round(time.monotonic() - t0, 3)
    if plain is None or not check.verified:
        return {**row, "parse": "not_run", "name": "not_run", "behavior": "no_reference"}
    variant = replace(plain, description=out.description) if out.description else plain
    options = BehaviorOptions(engine="auto", timeout=timeout, cache=root)
    wanted = grades or GRADES
    # the self-check, made when the behavior grade needs it; a names pass makes none
    coverage = ReferenceCoverage(harness, options) if "behavior" in wanted else None
    graded = grade_output(harness, variant, out.path.read_text(encoding="utf-8"),
                          coverage=coverage, grades=wanted, behavior=options, timeout=timeout)
    row.update(parse=graded.parse.verdict, name=graded.name.verdict,
               behavior=graded.behavior.verdict,
               behavior_code=graded.behavior.details.get("reason_code"))
    # a grade the self-check refused spent its seconds on that check; another excludes it
    checked = coverage.seconds if coverage is not None else 0.0
    refused = graded.behavior.details.get("reason_code") in GATE_CODES
    own = max(0.0, graded.behavior.seconds - checked) if refused else graded.behavior.seconds
    row["stages"].update(reference_check=round(checked, 3),
                         parse=round(graded.parse.seconds, 3), name=round(graded.name.seconds, 3),
                         behavior=round(own, 3))  # a grade not made: 0 s
    row["behavior_stages"] = graded.behavior.details.get("stage_seconds") or {}
    return row


def run_one(corpus: Path, spec: str, model: str, cache: Path, timeout: float,
            grades: tuple[str, ...] | None = None, manifest: str = "both") -> dict[str, Any]:
    """One output graded by a fresh process of this script; its row with the process's wall."""
    t0 = time.monotonic()
    proc = subprocess.run(  # noqa: S603 - this very script, with arguments it chose
        [sys.executable, str(Path(__file__).resolve()), "one", "--corpus", str(corpus),
         "--spec", spec, "--model", model, "--cache", str(cache), "--timeout", str(timeout),
         "--grades", ",".join(grades or ()), "--manifest", manifest],
        capture_output=True, text=True, check=False, cwd=HERE.parent)
    wall = time.monotonic() - t0
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
    if proc.returncode != 0 or not lines:
        return {"spec_id": spec, "model": model, "wall": round(wall, 3), "parse": "error",
                "name": "error", "behavior": "error", "stages": {},
                "error": (proc.stderr or proc.stdout)[-500:]}
    row: dict[str, Any] = json.loads(lines[-1])
    row["wall"] = round(wall, 3)
    accounted = sum(v for k, v in row["stages"].items() if k != "load")
    row["stages"]["startup"] = round(max(0.0, wall - accounted), 3)  # interpreter, imports, JVM
    return row


def run_xdist(name: str, work: list[tuple[str, str]], corpus: Path, cache: Path, jobs: int,
              timeout: float, grades: tuple[str, ...] | None = None,
              manifest: str = "both") -> list[dict[str, Any]]:
    """Every output graded in one pytest run with `jobs` xdist workers (study_scale_cases.py:
    one JVM pool and one corpus load per worker; a task's outputs on one worker, as a
    benchmark run groups a variant's cases, handed out in `work`'s order); the rows the
    workers wrote."""
    with tempfile.TemporaryDirectory(prefix="alias-study-rows-") as tmp:
        plan = Path(tmp) / "plan.json"
        plan.write_text(json.dumps({"corpus": str(corpus), "cache": str(cache),
                                    "timeout": timeout, "rows": tmp, "manifest": manifest,
                                    "grades": list(grades) if grades is not None else None,
                                    "items": [list(k) for k in work]}), encoding="utf-8")
        proc = subprocess.run(  # noqa: S603 - pytest on this folder's case file
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", str(jobs),
             "-p", "alias_fixtures.plugin.scheduling", "--dist", "loadgroup",
             str(HERE / "study_scale_cases.py")], env={**os.environ, PLAN_ENV: str(plan),
                                                        "PYTHONPATH": str(HERE.parent)},
            stdout=sys.stderr, check=False, cwd=HERE.parent)  # pytest's progress, as it goes
        rows = [json.loads(f.read_text(encoding="utf-8")) for f in sorted(Path(tmp).glob("row-*.json"))]
        if proc.returncode != 0 or len(rows) != len(work):
            raise SystemExit(f"{name}: the pytest run failed ({proc.returncode}); "
                             f"{len(rows)} of {len(work)} rows")
    return rows


# ---------------------------------------------------------------------------------- the passes
def pass_grades(name: str) -> tuple[str, ...] | None:
    """The grades a pass makes: a names pass parse and the name grade, another every one."""
    return NAME_ONLY if name.startswith("names") else None


def grade_pass(name: str, work: list[tuple[str, str]], corpus: Path, cache: Path, jobs: int,
               timeout: float, runner: str = "processes",
               manifest: str = "both") -> dict[str, Any]:
    grades = pass_grades(name)
    started, began_at = time.monotonic(), time.time()
    if runner == "xdist":
        rows = run_xdist(name, work, corpus, cache, jobs, timeout, grades, manifest)
        return {"pass": name, "runner": runner, "wall": round(time.monotonic() - started, 1),
                "began_at": began_at, "jobs": jobs,
                "grades": list(grades) if grades is not None else None,
                "rows": sorted(rows, key=lambda r: (r["spec_id"], r["model"]))}
    rows: list[dict[str, Any]] = []

    def one(item: tuple[str, str]) -> None:
        row = run_one(corpus, item[0], item[1], cache, timeout, grades, manifest)
        rows.append(row)
        print(f"[{name} {len(rows)}/{len(work)}] {row['spec_id']} {row['model']}: "
              f"{row['behavior']} in {row['wall']:.1f} s", file=sys.stderr, flush=True)

    with ThreadPoolExecutor(max_workers=jobs) as pool:  # submitted, so started, in work's order
        list(pool.map(one, work))
    return {"pass": name, "runner": runner, "wall": round(time.monotonic() - started, 1),
            "began_at": began_at, "jobs": jobs,
            "grades": list(grades) if grades is not None else None,
            "rows": sorted(rows, key=lambda r: (r["spec_id"], r["model"]))}


def summary(result: dict[str, Any]) -> dict[str, Any]:
    rows = result["rows"]
    walls = [r["wall"] for r in rows] or [0.0]
    stages: Counter[str] = Counter()
    inner: Counter[str] = Counter()
    for r in rows:
        stages.update({k: v for k, v in r["stages"].items() if k != "load"})
        stages["startup"] += r["stages"].get("load", 0.0)  # loading the corpus: start-up too
        inner.update(r.get("behavior_stages") or {})
    per_case = result["wall"] * result["jobs"] / max(1, len(rows))  # core-seconds per output
    extra = {"workers": workers(result)} if result.get("runner") == "xdist" else {}
    return {"outputs": len(rows), "wall": result["wall"], "mean": statistics.mean(walls),
            "median": statistics.median(walls), "max": max(walls),
            "over_150": [f"{r['spec_id']} {r['model']} ({r['wall']:.0f} s)" for r in rows
                         if r["wall"] > SLOW],
            "stages": {k: round(stages[k], 1) for k in STAGES},
            "graded_seconds": round(sum(stages[k] for k in GRADED), 1),
            "behavior_stages": {k: round(v, 1) for k, v in inner.most_common()},
            "slowest": [f"{r['spec_id']} {r['model']}: {r['wall']:.0f} s ({r['behavior']})"
                        for r in sorted(rows, key=lambda r: -r["wall"])[:5]],
            "projection_hours_here": round(STUDY_CASES * per_case / result["jobs"] / 3600, 2),
            f"projection_minutes_{RAY_NODES}_nodes": round(
                STUDY_CASES * per_case / (result["jobs"] * RAY_NODES) / 60, 1),
            **study_projection(rows, result["jobs"]), **extra}


def workers(result: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Each xdist worker's outputs, busy seconds (its rows' walls), idle seconds (the pass's
    wall less busy: start-up, loading, waiting for work or for the others to finish), and its
    first start and last end in seconds after the pass began."""
    began = result.get("began_at") or min((r["began_at"] for r in result["rows"]
                                           if "began_at" in r), default=0.0)
    mine: dict[str, list[dict[str, Any]]] = {}
    for r in result["rows"]:
        mine.setdefault(str(r.get("worker", "main")), []).append(r)
    return {w: {"outputs": len(rs), "busy": round(sum(r["wall"] for r in rs), 1),
                "idle": round(result["wall"] - sum(r["wall"] for r in rs), 1),
                "first_start": round(min(r.get("began_at", began) for r in rs) - began, 1),
                "last_end": round(max(r.get("ended_at", began) for r in rs) - began, 1)}
            for w, rs in sorted(mine.items())}


def study_projection(rows: list[dict[str, Any]], jobs: int) -> dict[str, Any]:
    """A study's core-seconds split by whose work they are: each task's (its variant and its
    reference's self-check: the most any of its outputs paid, since the others read it from
    the cache or waited for it) once per task, each output's (parse, name, behavior) once
    per case; projected for 111 tasks and 3,330 cases on `jobs` cores, here and on 8 nodes
    (the corpus has about two outputs per task, a study thirty)."""
    per_task: dict[str, float] = {}
    for r in rows:
        task = r["stages"].get("variant", 0.0) + r["stages"].get("reference_check", 0.0)
        per_task[r["spec_id"]] = max(per_task.get(r["spec_id"], 0.0), task)
    output = [sum(r["stages"].get(k, 0.0) for k in ("parse", "name", "behavior")) for r in rows]
    task_mean = statistics.mean(per_task.values()) if per_task else 0.0
    output_mean = statistics.mean(output) if output else 0.0
    seconds = STUDY_TASKS * task_mean + STUDY_CASES * output_mean
    return {"task_seconds_mean": round(task_mean, 2), "output_seconds_mean": round(output_mean, 2),
            "study_hours_here": round(seconds / jobs / 3600, 2),
            f"study_minutes_{RAY_NODES}_nodes": round(seconds / (jobs * RAY_NODES) / 60, 1)}


def agreement(passes: list[dict[str, Any]]) -> list[str]:
    """Outputs whose verdicts differ between passes (the cache must never change one): a full
    pass against the first full pass on parse, name and behavior, a names pass against the
    first names pass on parse and name, and the first names pass against the first full pass
    on parse and name (a grade made alone must not differ from one made with the others)."""
    def verdicts(p: dict[str, Any], grades: tuple[str, ...]) -> dict[tuple[str, str], Any]:
        return {(r["spec_id"], r["model"]): tuple(r[g] for g in grades) for r in p["rows"]}

    def differ(a: dict[str, Any], b: dict[str, Any], grades: tuple[str, ...]) -> list[str]:
        one, other = verdicts(a, grades), verdicts(b, grades)
        return [f"{k[0]} {k[1]}: {a['pass']} {one[k]} vs {b['pass']} {other.get(k)}"
                for k in one if one[k] != other.get(k)]

    full = [p for p in passes if pass_grades(p["pass"]) is None]
    names = [p for p in passes if pass_grades(p["pass"]) is not None]
    found: list[str] = []
    for p in full[1:]:
        found += differ(full[0], p, ("parse", "name", "behavior"))
    for p in names[1:]:
        found += differ(names[0], p, ("parse", "name"))
    if full and names:
        found += differ(full[0], names[0], ("parse", "name"))
    return found


def render(meta: dict[str, Any], passes: list[dict[str, Any]]) -> str:
    how = ("one process each" if meta.get("runner", "processes") == "processes"
           else "in one pytest run with xdist")
    order = ("heaviest tasks first" if meta.get("order", "manifest") == "heaviest"
             else "in the manifest's order")
    names = ", ".join(p["pass"] for p in passes)
    lines = [f"# A study's scale: the corpus outputs graded {how}, {order} ({names})", "",
             f"`{meta['command']}` on {meta['date']}, commit {meta['commit']}, "
             f"{meta['jobs']} {'processes' if how.startswith('one') else 'workers'} at once, "
             f"TLC limit {meta['timeout']:g} s.", "",
             "| pass | outputs | wall | mean s/output | median | max | over 150 s | "
             f"3,330 cases here (h) | on {RAY_NODES} nodes (min) |",
             "|---|---|---|---|---|---|---|---|---|"]
    for p in passes:
        s = p["summary"]
        lines.append(f"| {p['pass']} | {s['outputs']} | {s['wall']:.0f} s | {s['mean']:.1f} | "
                     f"{s['median']:.1f} | {s['max']:.0f} | {len(s['over_150'])} | "
                     f"{s['projection_hours_here']} | "
                     f"{s[f'projection_minutes_{RAY_NODES}_nodes']} |")
    lines += ["", "A study's projection by whose work it is: each task's variant and reference "
              "self-check once per task (the most any of its outputs paid), each output's parse, "
              "name and behavior grade once per case; 111 tasks and 3,330 cases, perfectly "
              f"spread over {meta['jobs']} cores (start-up left out):", "",
              "| pass | task s (mean) | output s (mean) | study here (h) | "
              f"on {RAY_NODES} nodes (min) |", "|---|---|---|---|---|"]
    for p in passes:
        s = p["summary"]
        if "study_hours_here" in s:
            lines.append(f"| {p['pass']} | {s['task_seconds_mean']} | "
                         f"{s['output_seconds_mean']} | {s['study_hours_here']} | "
                         f"{s[f'study_minutes_{RAY_NODES}_nodes']} |")
    lines += ["", "Seconds per stage, summed over the outputs (`startup`: the interpreter, "
              "imports, loading the corpus and the JVM):", "",
              "| pass | " + " | ".join(STAGES) + " | behavior's own stages |",
              "|---|" + "---|" * (len(STAGES) + 1)]
    for p in passes:
        s = p["summary"]
        inner = ", ".join(f"{k} {v}" for k, v in s["behavior_stages"].items())
        lines.append(f"| {p['pass']} | " + " | ".join(str(s["stages"][k]) for k in STAGES)
                     + f" | {inner} |")
    lines.append("")
    for p in passes:
        s = p["summary"]
        lines.append(f"Slowest outputs, {p['pass']}: " + "; ".join(s["slowest"]) + ".")
        if s["over_150"]:
            lines.append(f"Over 150 s, {p['pass']}: " + ", ".join(s["over_150"]) + ".")
        if s.get("workers"):
            lines.append(f"Workers, {p['pass']}: " + "; ".join(
                f"{w} busy {v['busy']:.0f} s, idle {v['idle']:.0f} s ({v['outputs']} outputs, "
                f"{v['first_start']:.0f} s to {v['last_end']:.0f} s)"
                for w, v in s["workers"].items()) + ".")
    differ = meta["verdicts_differ"]
    lines += ["", "Verdicts identical in every pass." if not differ else
              "Verdicts that differ between passes: " + "; ".join(differ) + ".", ""]
    lines += against_names(passes)
    return "\n".join(lines)


def against_names(passes: list[dict[str, Any]]) -> list[str]:
    """The section setting each full pass (cold, warm) against its names pass, where both ran:
    wall time and the outputs' summed seconds (variant, reference check, parse, name,
    behavior), with full / name-only; nothing when no pair ran."""
    by_name = {p["pass"]: p["summary"] for p in passes}
    pairs = [(full, by_name[full], by_name[f"names-{full}"]) for full in ("cold", "warm")
             if full in by_name and f"names-{full}" in by_name]
    if not pairs:
        return []

    def ratio(a: float, b: float) -> str:
        return f"{a / b:.2f}" if b else "n/a"

    lines = ["## Full grade against a name-only grade", "",
             "Wall time, and seconds summed over the outputs (variant, reference check, parse, "
             "name, behavior; start-up left out), of the full grade and of parse and the name "
             "grade alone on the same outputs:", "",
             "| pass | full wall | name-only wall | ratio | full summed s | name-only summed s "
             "| ratio |", "|---|---|---|---|---|---|---|"]
    for pass_, full, names in pairs:
        fs, ns = full.get("graded_seconds", 0.0), names.get("graded_seconds", 0.0)
        lines.append(f"| {pass_} | {full['wall']:.0f} s | {names['wall']:.0f} s | "
                     f"{ratio(full['wall'], names['wall'])} | {fs} | {ns} | {ratio(fs, ns)} |")
    return [*lines, ""]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="mode")
    child = sub.add_parser("one", help="grade one output in this process (used by the passes)")
    child.add_argument("--corpus", type=Path, required=True)
    child.add_argument("--spec", required=True)
    child.add_argument("--model", required=True)
    child.add_argument("--cache", required=True)
    child.add_argument("--timeout", type=float, default=60.0)
    child.add_argument("--grades", default="",
                       help="comma-separated grades to make (default: every one)")
    child.add_argument("--manifest", default="both", choices=MANIFESTS)
    ap.add_argument("--corpus", type=Path, default=None,
                    help="the shared corpus folder (default: ../shared/corpus beside the checkout)")
    ap.add_argument("--passes", default="cold,warm",
                    help="comma-separated, run in this order: cold, warm (on cold's cache), "
                    "names-cold, names-warm (on names-cold's): parse and the name grade only")
    ap.add_argument("--order", default="heaviest", choices=ORDERS,
                    help="heaviest: the outputs of the tasks whose reference took TLC longest "
                    "(the corpus manifest's seconds) first; manifest: the manifest's order")
    ap.add_argument("--jobs", type=int, default=2, help="outputs graded at once (2)")
    ap.add_argument("--runner", default="processes", choices=RUNNERS,
                    help="processes: one Python process per output (a shell loop); xdist: "
                    "one pytest run with --jobs workers, each keeping its JVMs")
    ap.add_argument("--timeout", type=float, default=60.0, help="TLC limit per run (60 s)")
    ap.add_argument("--only", action="append", default=[], metavar="SPEC_ID")
    ap.add_argument("--manifest", default="both", choices=MANIFESTS,
                    help="the outputs graded: both (193), examples (manifest.json, 75: the "
                    "files without a suffix), release (manifest_release.json, 118)")
    ap.add_argument("--out", type=Path, default=HERE / "results")
    args = ap.parse_args()
    if args.mode == "one":
        print(json.dumps(grade_in_process(args)))
        return
    from real_outputs import _commit

    from alias_fixtures.tasks.loaders import shared_corpus

    corpus = args.corpus or shared_corpus(HERE.parent)
    if corpus is None or not (corpus / "tla-bench-outputs").is_dir():
        ap.error(f"--corpus: no tla-bench-outputs under {corpus}")
    passes = [p.strip() for p in args.passes.split(",") if p.strip()]
    if not passes or any(p not in PASSES for p in passes):
        ap.error(f"--passes: comma-separated, of {', '.join(PASSES)}")
    if len(set(passes)) != len(passes):
        ap.error("--passes: a pass given twice")
    for name in passes:
        fill = FILLS.get(name)
        if fill and fill not in passes[:passes.index(name)]:
            ap.error(f"--passes: {name} grades on the cache {fill} fills; give {fill} before it")
    by_key, tasks = load_corpus(corpus, args.manifest)
    outputs = list(by_key.values())  # the manifest's order
    if args.only:
        outputs = [o for o in outputs if o.spec_id in args.only]
    work = order_work(outputs, tasks, args.order)
    roots: dict[str, Path] = {}  # a cold pass's fresh cache root, by pass
    results = []
    try:
        for name in passes:
            if name not in FILLS:
                roots[name] = Path(tempfile.mkdtemp(prefix="alias-study-cache-"))
            root = roots[FILLS.get(name, name)]
            result = grade_pass(name, work, corpus, root, args.jobs, args.timeout, args.runner,
                                args.manifest)
            result["summary"] = summary(result)
            results.append(result)
    finally:
        for root in roots.values():
            shutil.rmtree(root, ignore_errors=True)
    meta = {"command": "python scripts/study_scale.py " + " ".join(sys.argv[1:]),
            "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"), "commit": _commit(),
            "jobs": args.jobs, "timeout": args.timeout, "runner": args.runner,
            "order": args.order, "manifest": args.manifest, "work": [list(k) for k in work],
            "verdicts_differ": agreement(results)}
    stem = "study_scale" if args.runner == "processes" else f"study_scale_{args.runner}"
    stem += "" if args.manifest == "examples" else f"_{args.manifest}"
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / f"{stem}.json").write_text(json.dumps({"meta": meta, "passes": results},
                                                      indent=1), encoding="utf-8")
    (args.out / f"{stem}.md").write_text(render(meta, results), encoding="utf-8")
    print(f"wrote {args.out / f'{stem}.md'}", file=sys.stderr)


if __name__ == "__main__":
    main()
