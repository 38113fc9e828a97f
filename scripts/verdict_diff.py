"""Record every behavior-related verdict on the built-in material, and compare two records: a
refactor of the behavior grader that changes no verdict shows no difference.

`snapshot --out DIR [--engines auto,graphs,wrappers] [--parts controls,demo] [--tasks ID,ID]
[--timeout 120] [--jobs 1] [--resume]` grades with the code it imports into DIR/builtin_verdicts.json
({"meta", "cases": {id: {verdict, engine, reason, tlc_runs, seconds}}}):
- controls: per engine and built-in task, the controls of scripts/grader_controls.py (seed 0;
  mutants: tries 3, keep 1), `controls/<engine>/<task>/<kind>[/<n>]`; and the representation
  controls of benchmarks/test_representation_controls.py's CI sample, `representation/<task>/..`;
- demo: each reply of alias_fixtures/demo_outputs/outputs.jsonl graded by `grade_output` against
  its variant (seed 0), one coverage cache per engine,
  `demo/<engine>/<task>/<condition>/s<n>/{parse,name,behavior}`; variants: `variants/<task>/<cond>`.
Each finished unit (engine x task, variant, reply x engine) is appended to
DIR/builtin_verdicts.partial.jsonl, which `--resume` continues. `--jobs N`: N units at once on one
harness of N JVM workers. To grade an older checkout (a fresh XDG_CACHE_HOME for each run, so no
run reads the other's reference-graph cache; the meta names the packages graded and their commit):
    PYTHONPATH=/path/to/old/checkout python scripts/verdict_diff.py snapshot --out before
    python scripts/verdict_diff.py snapshot --out after

`compare BEFORE AFTER [--markdown FILE] [--allow-missing]` (imports nothing of the project) reads
each folder's builtin_verdicts.json and real_outputs.json (scripts/real_outputs.py), or the
partial file of an unfinished run, and prints the cases per part, each verdict that differs with
both reasons, the cases on one side only and (informational) same verdicts decided by another
engine. Exit 1 when a verdict differs or (without --allow-missing) a case is on one side only.
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import itertools
import json
import random
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the project is imported by `snapshot` only: `compare` runs on any checkout
    from alias_fixtures.grading.controls import ControlResult
    from alias_fixtures.grading.grade import ReferenceCoverage
    from alias_fixtures.tasks.task import Task
    from alias_fixtures.tasks.variants import Variant
    from tlc_harness.tools.runner import Harness

Case = dict[str, Any]
Rows = list[tuple[str, Case]]
Work = Callable[["Harness"], Rows]
ENGINES, PARTS = ("auto", "graphs", "wrappers"), ("controls", "demo")
CI_SAMPLE = ("bank_transfer", "hour_clock", "peterson_mutex")  # a fixed sample of layouts
SNAPSHOT, PARTIAL = "builtin_verdicts.json", "builtin_verdicts.partial.jsonl"
REAL, REAL_PARTIAL = "real_outputs.json", "real_outputs.partial.jsonl"
REASON, SHOWN = 300, 200


def case(verdict: object, reason: object = "", engine: object = "", tlc_runs: object = None,
         seconds: float = 0.0) -> Case:
    """One recorded verdict (`str()` of a verdict is its value, a StrEnum member's too)."""
    return {"verdict": str(verdict), "engine": str(engine or ""),
            "reason": str(reason or "")[:REASON],
            "tlc_runs": tlc_runs if isinstance(tlc_runs, int) else None,
            "seconds": round(seconds, 2)}


def _control(r: ControlResult) -> Case:
    return case(r.verdict, r.detail, r.engine, r.tlc_runs, r.seconds)


def _numbered(base: str, results: list[ControlResult]) -> Rows:
    """`base/<kind>` of each control, `base/<kind>/<n>` where a kind repeats."""
    seen: dict[str, int] = {}
    rows: Rows = []
    for r in results:
        n = seen[r.kind] = seen.get(r.kind, -1) + 1
        many = sum(x.kind == r.kind for x in results) > 1
        rows.append((f"{base}/{r.kind}" + (f"/{n}" if many else ""), _control(r)))
    return rows


def _steps(base: str, steps: list[tuple[str, Callable[[], Rows]]]) -> Rows:
    """Each step's rows; a step that raises is recorded as verdict `error` (never stops)."""
    rows: Rows = []
    for name, step in steps:
        try:
            rows += step()
        except Exception as exc:  # noqa: BLE001 - a crash is a result too
            rows.append((f"{base}/{name}", case("error", f"{type(exc).__name__}: {exc}")))
    return rows


def controls_unit(task: Task, engine: str, timeout: float, harness: Harness) -> Rows:
    from alias_fixtures.grading import controls as c
    from tlc_harness.behavior.options import BehaviorOptions
    options = BehaviorOptions(engine=engine, timeout=timeout)
    base = f"controls/{engine}/{task.id}"

    def renamed() -> Rows:
        r = c.renamed_control(harness, task, seed=0, options=options)
        return ([(f"{base}/renamed", case("not_verified", "no verified random variant"))]
                if r is None else _numbered(base, [r]))

    def operators() -> Rows:  # chosen as scripts/grader_controls.py chooses them
        ops = c.operator_names(task)
        if not ops:
            return []
        rng = random.Random(f"0:{task.id}")
        chosen = rng.sample(ops, k=max(1, len(ops) // 2))
        return _numbered(base, [c.operator_renamed_control(harness, task, chosen,
                                                           rng.randrange(2**32), options)])

    def mutants() -> Rows:
        results, made = c.mutant_controls(harness, task, seed=0, tries=3, keep=1,
                                          options=options)
        return [(f"{base}/mutants_made", case(made)),
                *((f"{base}/{r.kind}/{i}", _control(r)) for i, r in enumerate(results))]

    return _steps(base, [("self", lambda: _numbered(base, [c.self_control(harness, task,
                                                                          options)])),
                         ("renamed", renamed), ("operators", operators), ("mutant", mutants)])


def representation_unit(task: Task, harness: Harness) -> Rows:
    """As benchmarks/test_representation_controls.py grades one task (engine graphs)."""
    from alias_fixtures.grading import representation_controls as rc
    from tlc_harness.behavior.options import BehaviorOptions
    options, base = BehaviorOptions(engine="graphs"), f"representation/{task.id}"

    def layouts() -> Rows:
        made = rc.task_variants(harness, task, check_fairness=False)
        rows = [(f"{base}/variant:{v.kind}", case("verified" if v.verified else "made"
                                                  if v.made else "not_made", v.reason))
                for v in made]
        return rows + _numbered(base, rc.representation_controls(harness, task, options,
                                                                 variants=made))

    def mutants() -> Rows:
        results, made = rc.representation_mutant_controls(
            harness, task, seed=0, tries=6, keep=1, options=options, check_fairness=False)
        return [(f"{base}/mutants_made", case(made)), *_numbered(base, results)]

    return _steps(base, [("layouts", layouts), ("mutants", mutants)])


class Demo:
    """The demo replies' variants (built and verified once) and per-engine coverage caches,
    shared by threads (each reference's self check is made once, under a lock)."""

    def __init__(self, tasks: dict[str, Task], timeout: float) -> None:
        self.tasks, self.timeout = tasks, timeout
        self._built: dict[tuple[str, str], tuple[Variant | None, Case]] = {}
        self._coverage: dict[str, ReferenceCoverage] = {}
        self._locks: dict[tuple[str, ...], threading.Lock] = {}
        self._guard = threading.Lock()

    def _lock(self, *key: str) -> threading.Lock:
        with self._guard:
            return self._locks.setdefault(key, threading.Lock())

    def variant(self, harness: Harness, task: str, condition: str) -> tuple[Variant | None, Case]:
        from alias_fixtures.tasks.variants import build_variant
        with self._lock(task, condition):
            if (task, condition) not in self._built:
                t0 = time.monotonic()
                variant, check = build_variant(harness, self.tasks[task], condition)
                verdict = "no_variant" if variant is None else (
                    "verified" if check.verified else "not_verified")
                self._built[(task, condition)] = (variant, case(
                    verdict, check.reason, seconds=time.monotonic() - t0))
            return self._built[(task, condition)]

    def variant_unit(self, task: str, condition: str, harness: Harness) -> Rows:
        return [(f"variants/{task}/{condition}", self.variant(harness, task, condition)[1])]

    def reply_unit(self, reply: dict[str, Any], engine: str, harness: Harness) -> Rows:
        from alias_fixtures.grading.grade import ReferenceCoverage, grade_output
        from tlc_harness.behavior.options import BehaviorOptions
        options = BehaviorOptions(engine=engine, timeout=self.timeout)
        base = f"demo/{engine}/{reply['task']}/{reply['condition']}/s{reply['sample']}"
        variant, check = self.variant(harness, reply["task"], reply["condition"])
        if variant is None:
            return [(f"{base}/{g}", case("no_variant", check["reason"]))
                    for g in ("parse", "name", "behavior")]
        with self._lock(engine):
            coverage = self._coverage.setdefault(engine, ReferenceCoverage(harness, options))
        with self._lock(engine, reply["task"], reply["condition"]):
            coverage.check(variant)  # filled before threads share it (as make_demo_outputs)
        g = grade_output(harness, variant, reply["text"], coverage=coverage, behavior=options,
                         timeout=self.timeout)
        d = g.behavior.details
        return [(f"{base}/parse", case(g.parse.verdict, g.parse.reason, seconds=g.parse.seconds)),
                (f"{base}/name", case(g.name.verdict, g.name.reason, seconds=g.name.seconds)),
                (f"{base}/behavior", case(g.behavior.verdict, g.behavior.reason, d.get("engine"),
                                          d.get("tlc_runs"), g.behavior.seconds))]


def code_meta() -> dict[str, Any]:
    """Where the graded code comes from: its packages' folders and their checkout's commit."""
    import alias_fixtures
    import reports
    import tlc_harness
    root = Path(str(tlc_harness.__file__)).resolve().parent.parent

    def git(*argv: str) -> str:
        done = subprocess.run(["git", "-C", str(root), *argv], capture_output=True, text=True,
                              check=False)
        return done.stdout.strip() if done.returncode == 0 else ""
    diff = git("diff", "HEAD")
    return {"code_root": str(root), "commit": git("rev-parse", "--short", "HEAD") or "unknown",
            "dirty": bool(git("status", "--porcelain", "--untracked-files=no")),
            "diff_sha256": hashlib.sha256(diff.encode()).hexdigest()[:16] if diff else "",
            "packages": {m.__name__: str(Path(str(m.__file__)).resolve().parent)
                         for m in (tlc_harness, alias_fixtures, reports)}}


def snapshot(ap: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    from alias_fixtures.tasks.task import builtin_tasks
    from tlc_harness.tools.runner import Harness
    engines, parts, wanted = _split(args.engines), _split(args.parts), _split(args.tasks)
    if bad := [e for e in engines if e not in ENGINES] + [p for p in parts if p not in PARTS]:
        ap.error(f"unknown engine or part: {', '.join(bad)}")
    tasks = {t.id: t for t in builtin_tasks()}
    if unknown := [t for t in wanted if t not in tasks]:
        ap.error(f"--tasks: no built-in task {', '.join(unknown)}")
    wanted = wanted or sorted(tasks)
    meta = {"date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"), **code_meta(),
            "command": " ".join(["python", *sys.argv]), "engines": engines, "parts": parts,
            "tasks": wanted, "timeout": args.timeout, "jobs": args.jobs}
    print(f"grading with the code in {meta['packages']} (commit {meta['commit']}"
          f"{', dirty' if meta['dirty'] else ''})", flush=True)
    demo_file = Path(meta["packages"]["alias_fixtures"]) / "demo_outputs" / "outputs.jsonl"
    meta["demo_sha256"] = hashlib.sha256(demo_file.read_bytes()).hexdigest()[:16]
    replies = [r for r in map(json.loads, demo_file.read_text(encoding="utf-8").splitlines())
               if r["task"] in wanted]
    args.out.mkdir(parents=True, exist_ok=True)
    partial = args.out / PARTIAL
    done: dict[str, dict[str, Case]] = {}  # unit -> its cases
    if args.resume and partial.is_file():
        for item in map(json.loads, partial.read_text(encoding="utf-8").splitlines()):
            done[item["unit"]] = item["cases"]
    units: list[tuple[str, Work]] = []
    if "controls" in parts:
        units += [(f"controls/{e}/{t}", functools.partial(controls_unit, tasks[t], e,
                                                           args.timeout))
                  for e in engines for t in wanted]
        units += [(f"representation/{t}", functools.partial(representation_unit, tasks[t]))
                  for t in CI_SAMPLE if t in wanted]
    if "demo" in parts:
        demo = Demo(tasks, args.timeout)
        units += [(f"variants/{t}/{c}", functools.partial(demo.variant_unit, t, c))
                  for t, c in sorted({(r["task"], r["condition"]) for r in replies})]
        units += [(f"demo/{e}/{r['task']}/{r['condition']}/s{r['sample']}",
                   functools.partial(demo.reply_unit, r, e)) for e in engines for r in replies]
    todo = [u for u in units if u[0] not in done]
    print(f"{len(todo)} units to grade ({len(units) - len(todo)} done before)", flush=True)
    started, lock, counter = time.monotonic(), threading.Lock(), itertools.count(1)
    with Harness(tlc_timeout=args.timeout, pool_size=args.jobs) as harness, \
            partial.open("a" if args.resume else "w", encoding="utf-8") as log:
        meta["jar"] = harness.toolchain.jar_version

        def run(unit: tuple[str, Work]) -> None:
            key, work = unit
            try:
                rows = work(harness)
            except Exception as exc:  # noqa: BLE001 - recorded, never stops the run
                rows = [(key, case("error", f"{type(exc).__name__}: {exc}"))]
            with lock:
                i, done[key] = next(counter), dict(rows)
                log.write(json.dumps({"unit": key, "cases": done[key]}) + "\n")
                log.flush()
                for cid, c in rows or [(key, case("(no case)"))]:
                    print(f"[{i}/{len(todo)}] {cid} {c['verdict']} {c['seconds']:.1f}s",
                          flush=True)

        with ThreadPoolExecutor(max_workers=args.jobs) as pool:
            list(pool.map(run, todo))
    meta.update(wall_seconds=round(time.monotonic() - started), units=len(units),
                units_resumed=len(units) - len(todo))
    # the cases of this run's units (a resumed partial file may hold other units too)
    cases = dict(sorted(kv for u, _ in units for kv in done.get(u, {}).items()))
    (args.out / SNAPSHOT).write_text(json.dumps({"meta": meta, "cases": cases}, indent=1) + "\n",
                                     encoding="utf-8")
    print(f"{len(cases)} cases in {meta['wall_seconds']} s; wrote {args.out / SNAPSHOT}")
    return 0


def _split(text: str) -> list[str]:
    return [x.strip() for x in text.split(",") if x.strip()]


def load(folder: Path) -> tuple[dict[str, Case], list[str]]:
    """The folder's cases (built-in and real outputs), and notes on what was read."""
    cases: dict[str, Case] = {}
    notes: list[str] = []
    if (folder / SNAPSHOT).is_file():
        data = json.loads((folder / SNAPSHOT).read_text(encoding="utf-8"))
        cases.update(data["cases"])
        m = data["meta"]
        notes.append(f"{SNAPSHOT}: {m['date']}, code {m['code_root']} commit {m['commit']}"
                     f"{'+dirty' if m['dirty'] else ''}, demo {m['demo_sha256']}")
    elif (folder / PARTIAL).is_file():
        for line in (folder / PARTIAL).read_text(encoding="utf-8").splitlines():
            cases.update(json.loads(line)["cases"])
        notes.append(f"{PARTIAL} (no {SNAPSHOT}: an unfinished run)")
    rows: list[dict[str, Any]] = []
    if (folder / REAL).is_file():
        rows = json.loads((folder / REAL).read_text(encoding="utf-8"))["rows"]
        notes.append(f"{REAL}: {len(rows)} rows")
    elif (folder / REAL_PARTIAL).is_file():
        lines = (folder / REAL_PARTIAL).read_text(encoding="utf-8").splitlines()
        rows = [r for r in map(json.loads, lines) if "coverage" not in r]
        notes.append(f"{REAL_PARTIAL} (no {REAL}: an unfinished run): {len(rows)} rows")
    for r in rows:  # a later row of the same (spec, model, engine) wins, as in real_outputs.py
        base = f"real/{r['engine']}/{r['spec_id']}/{r['model']}"
        cases[f"{base}/reference"] = case(r.get("reference_task"), r.get("reference_reason"))
        cases[f"{base}/parse"] = case(r.get("parse"))
        cases[f"{base}/name"] = case(r.get("name"), r.get("name_reason"))
        cases[f"{base}/behavior"] = case(r.get("behavior"), r.get("behavior_reason"),
                                         tlc_runs=r.get("tlc_runs"))
    return cases, notes


def compare(args: argparse.Namespace) -> int:
    (before, b_notes), (after, a_notes) = load(args.before), load(args.after)
    both = sorted(set(before) & set(after))
    differ = [k for k in both if before[k]["verdict"] != after[k]["verdict"]]
    moved = [k for k in both if k not in differ and before[k]["engine"] != after[k]["engine"]]
    only_b, only_a = sorted(set(before) - set(after)), sorted(set(after) - set(before))
    out = ["# Verdict comparison", "", f"- before: `{args.before}`",
           *(f"  - {n}" for n in b_notes), f"- after: `{args.after}`",
           *(f"  - {n}" for n in a_notes), "", "## Cases per part", "",
           "| part | compared | verdict differs | before only | after only |",
           "|---|---|---|---|---|"]
    for part in sorted({k.split("/", 1)[0] for k in [*before, *after]}):
        n = [sum(k.split("/", 1)[0] == part for k in ks) for ks in (both, differ, only_b, only_a)]
        out.append(f"| {part} | " + " | ".join(map(str, n)) + " |")

    def cut(text: str) -> str:
        return " ".join(text.split())[:SHOWN]
    out += ["", f"## Verdicts that differ ({len(differ)})", ""]
    for k in differ:
        b, a = before[k], after[k]
        out += [f"- `{k}`: {b['verdict']} -> {a['verdict']}", f"  - before: {cut(b['reason'])}",
                f"  - after: {cut(a['reason'])}"]
    for side, keys, cases in (("before", only_b, before), ("after", only_a, after)):
        out += ["", f"## Only in {side} ({len(keys)})", ""]
        out += [f"- `{k}`: {cases[k]['verdict']}" for k in keys]
    out += ["", f"## Same verdict, another deciding engine ({len(moved)}, informational)", ""]
    out += [f"- `{k}`: {after[k]['verdict']}, {before[k]['engine'] or '-'} -> "
            f"{after[k]['engine'] or '-'}" for k in moved]
    failed = bool(differ) or (bool(only_b or only_a) and not args.allow_missing)
    out += ["", f"Result: {'DIFFERENT' if failed else 'SAME'}: {len(both)} cases compared, "
            f"{len(differ)} verdicts differ, {len(only_b) + len(only_a)} on one side only."]
    text = "\n".join(out) + "\n"
    print(text, end="")
    if args.markdown:
        args.markdown.write_text(text, encoding="utf-8")
    return 1 if failed else 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="command", required=True)
    snap = sub.add_parser("snapshot", help=f"grade the built-in material into DIR/{SNAPSHOT}")
    snap.add_argument("--out", type=Path, required=True, metavar="DIR")
    snap.add_argument("--engines", default=",".join(ENGINES))
    snap.add_argument("--parts", default=",".join(PARTS))
    snap.add_argument("--tasks", default="", help="only these built-in tasks (ID,ID: a try)")
    snap.add_argument("--timeout", type=float, default=120.0, help="TLC limit per run (120 s)")
    snap.add_argument("--jobs", type=int, default=1, help="units graded at once (1)")
    snap.add_argument("--resume", action="store_true", help="skip the units already recorded")
    comp = sub.add_parser("compare", help="compare two snapshot folders")
    comp.add_argument("before", type=Path)
    comp.add_argument("after", type=Path)
    comp.add_argument("--markdown", type=Path, metavar="FILE", help="also write the report here")
    comp.add_argument("--allow-missing", action="store_true",
                      help="cases on one side only do not fail the comparison")
    args = ap.parse_args()
    if args.command == "compare":
        return compare(args)
    if args.jobs < 1:
        snap.error("--jobs must be at least 1")
    return snapshot(snap, args)


if __name__ == "__main__":
    sys.exit(main())
