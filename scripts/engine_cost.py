"""Measure the cost of the behavior grade's engines (TLC runs, wall time) on the same cases.

Run: `python scripts/engine_cost.py [--engines wrappers,auto] [--tasks ID ...] [--no-demo]
[--corpus ../shared/corpus/tlaplus-examples [--max-seconds 5] [--only ID ...]] [--timeout 120]
[--out scripts/results/engine_cost.md]`. A quick try: `--tasks hour_clock --tasks bank_transfer`
(`--tasks` filters the demo outputs as well).

Cases, each graded by every engine of `--engines`, one engine after the other on one harness:
- the grader controls of the built-in suite: each reference against itself (self), its verified
  random renamed copy (renamed) and its kept mutants (mutant; 6 made, 2 kept);
- the demo run's outputs (`alias_fixtures/demo_outputs/outputs.jsonl`), graded as
  `scripts/make_demo_outputs.py` grades them (parse and behavior grades; the name grade does
  not depend on the engine and is skipped); a reply is demo-pass or demo-fail
  (forward_fail/reverse_fail) by the first engine's verdict, demo-other when its behavior grade
  says something else, and left out when it never reaches the behavior grade (no module,
  parse error);
- with `--corpus`, the same controls on the passing models of a tlaplus/Examples corpus.
Reported per engine and case group: cases, mean and max TLC runs per behavior grade, total and
median seconds per behavior grade; the wall-time ratio first engine / each other engine on the
failing cases (mutants and demo-fail) and overall; verdict agreement where both engines decide,
with every difference; and how `auto` grades were decided (graph engine, or a fallback to the
wrapper engine and why).

Timing is fair to the graph engine only with a warm reference-graph cache: before any timing,
each reference (and each demo variant's reference) is graded against itself once by the graph
engine into a fresh cache root, then each graph cache entry is checked (a hit costs no TLC run).
The time spent making controls (verifying renamed copies, screening mutants) and checking the
references' coverage is not counted: only the behavior grades are timed.
Writes a Markdown report to --out and one JSON row per case x engine beside it (.json).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from itertools import combinations
from pathlib import Path
from typing import Any

import alias_fixtures.grading.controls as controls
from alias_fixtures.grading.controls import ControlResult, mutant_controls, renamed_control, self_control
from alias_fixtures.grading.grade import ReferenceCoverage, grade_output, reference_of
from alias_fixtures.tasks.loaders import load_examples, select_models
from alias_fixtures.tasks.task import Task, TaskError, builtin_tasks
from alias_fixtures.tasks.variants import Variant, make_variant
from tlc_harness.behavior.engine import grade_behavior
from tlc_harness.behavior.graphs import explore, graph_cache
from tlc_harness.behavior.options import ENGINES, BehaviorOptions
from tlc_harness.behavior.staging import Reference
from tlc_harness.behavior.verdicts import DECIDED, FAILURES, BehaviorResult
from tlc_harness.tools.runner import Harness
from tlc_harness.tools.spec import SpecSource

HERE = Path(__file__).resolve().parent
DEMO = HERE.parent / "alias_fixtures" / "demo_outputs" / "outputs.jsonl"
SEED, TRIES, KEEP = 0, 6, 2   # as the brief of this measurement fixes them
DEMO_RUN_SEED = "0"           # the random condition's run seed of the demo outputs
FAILS = FAILURES
GROUPS = ("self", "renamed", "mutant", "demo-pass", "demo-fail", "demo-other")
FAILING = ("mutant", "demo-fail")


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def _cut(text: str, n: int = 200) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[:n - 1] + "…"


@dataclass
class Row:
    """One case graded by one engine."""

    suite: str          # built-in | corpus | demo
    case: str           # task/kind[/which]: the same for every engine
    task: str
    kind: str           # self | renamed | mutant | demo
    engine: str         # the engine asked for
    verdict: str
    seconds: float
    tlc_runs: int
    decided_by: str     # the engine that decided (graphs, or wrappers)
    reason: str
    fallback: str | None = None
    correct: bool | None = None   # controls: the verdict the control must get
    group: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        data = {k: v for k, v in self.__dict__.items() if k != "extra"}
        return {**data, "seconds": round(self.seconds, 3), "reason": _cut(self.reason, 600),
                **self.extra}


# ------------------------------------------------------------------------------ controls
class _Recorder:
    """Keeps the BehaviorResult behind each ControlResult (which does not carry `details`, so
    not the fallback reason): stands in for `grade_behavior` inside `alias_fixtures.grading.controls`
    while this script runs (the module is not changed on disk)."""

    def __init__(self) -> None:
        self.results: list[BehaviorResult] = []

    def __call__(self, *args: Any, **kw: Any) -> BehaviorResult:
        result = grade_behavior(*args, **kw)
        self.results.append(result)
        return result

    @contextlib.contextmanager
    def installed(self) -> Iterator[_Recorder]:
        saved = controls.grade_behavior
        controls.grade_behavior = self  # type: ignore[assignment]
        try:
            yield self
        finally:
            controls.grade_behavior = saved  # type: ignore[assignment]


def _control_rows(suite: str, engine: str, made: list[ControlResult],
                  results: list[BehaviorResult]) -> list[Row]:
    assert len(made) == len(results), "a control graded without grade_behavior"
    rows = []
    for ctl, res in zip(made, results, strict=True):
        which = ctl.detail.split("; ", 1)[0] if ctl.kind == "mutant" else ""
        rows.append(Row(suite, f"{ctl.task_id}/{ctl.kind}" + (f"/{which}" if which else ""),
                        ctl.task_id, ctl.kind, engine, ctl.verdict, ctl.seconds, ctl.tlc_runs,
                        ctl.engine, res.reason, res.details.get("fallback"), ctl.correct,
                        ctl.kind, _facts(res.details)))
    return rows


def _facts(details: dict[str, Any]) -> dict[str, Any]:
    keys = ("reference_states", "output_states", "inference_seconds", "mappings_checked")
    return {k: details[k] for k in keys if k in details}


def run_controls(harness: Harness, suite: str, tasks: list[Task],
                 options: dict[str, BehaviorOptions], recorder: _Recorder) -> list[Row]:
    rows: list[Row] = []
    for i, task in enumerate(tasks, 1):
        for engine, opts in options.items():
            t0 = time.monotonic()
            recorder.results.clear()
            made = [self_control(harness, task, options=opts)]
            ren = renamed_control(harness, task, seed=SEED, options=opts)
            made += [ren] if ren is not None else []
            muts, tried = mutant_controls(harness, task, seed=SEED, tries=TRIES, keep=KEEP,
                                          options=opts)
            made += muts
            got = _control_rows(suite, engine, made, recorder.results)
            rows += got
            wrong = sum(r.correct is False for r in got)
            log(f"[{suite} {i}/{len(tasks)}] {task.id} {engine}: {len(got)} controls "
                f"({len(muts)} mutants kept of {tried}), {wrong} wrong, "
                f"{sum(r.tlc_runs for r in got)} TLC runs, "
                f"{sum(r.seconds for r in got):.1f} s graded, {time.monotonic() - t0:.1f} s")
    return rows


# ----------------------------------------------------------------------------------- demo
def demo_replies(tasks: set[str] | None) -> list[dict[str, Any]]:
    with DEMO.open(encoding="utf-8") as fh:
        replies = [json.loads(line) for line in fh if line.strip()]
    return [r for r in replies if tasks is None or r["task"] in tasks]


def demo_variants(replies: list[dict[str, Any]]) -> dict[tuple[str, str], Variant]:
    tasks = {t.id: t for t in builtin_tasks()}
    return {(r["task"], r["condition"]): make_variant(tasks[r["task"]], r["condition"],
                                                      seed=DEMO_RUN_SEED) for r in replies}


def run_demo(harness: Harness, replies: list[dict[str, Any]],
             variants: dict[tuple[str, str], Variant], options: dict[str, BehaviorOptions]
             ) -> tuple[list[Row], list[str]]:
    notes: list[str] = []
    coverage = {e: ReferenceCoverage(harness, o) for e, o in options.items()}
    for (task, cond), variant in variants.items():  # coverage is checked before any timing
        seen = {e: c.check(variant).verdict for e, c in coverage.items()}
        if len({v == "ok" for v in seen.values()}) > 1:
            notes.append(f"demo {task}/{cond}: the reference's own coverage differs by engine: "
                         + ", ".join(f"{e} {v}" for e, v in seen.items()))
    rows: list[Row] = []
    skipped = 0
    for i, reply in enumerate(replies, 1):
        variant = variants[(reply["task"], reply["condition"])]
        case = f"{reply['task']}/{reply['condition']}/s{reply['sample']}"
        extra = {"condition": reply["condition"], "sample": reply["sample"],
                 "archetype": reply["archetype"]}
        for engine, opts in options.items():
            graded = grade_output(harness, variant, reply["text"], coverage=coverage[engine],
                                  grades=("parse", "behavior"), behavior=opts)
            grade = graded.behavior
            if "tlc_runs" not in grade.details:  # the behavior grade never ran
                skipped += engine == next(iter(options))
                log(f"[demo {i}/{len(replies)}] {case} {engine}: not behavior-graded "
                    f"({grade.verdict})")
                continue
            rows.append(Row("demo", case, reply["task"], "demo", engine, grade.verdict,
                            grade.seconds, int(grade.details["tlc_runs"]),
                            str(grade.details.get("engine", "")), grade.reason,
                            grade.details.get("fallback"), None, "", {**extra,
                                                                      **_facts(grade.details)}))
            log(f"[demo {i}/{len(replies)}] {case} {engine}: {grade.verdict}, "
                f"{grade.details['tlc_runs']} TLC runs, {grade.seconds:.1f} s")
    first = next(iter(options))
    by_case = {r.case: r.verdict for r in rows if r.engine == first}
    for r in rows:  # one group per case, by the first engine's verdict
        v = by_case.get(r.case, r.verdict)
        r.group = "demo-pass" if v == "ok" else "demo-fail" if v in FAILS else "demo-other"
    if skipped:
        notes.append(f"demo: {skipped} repl(ies) never reach the behavior grade (no module or "
                     "parse error) and are left out")
    return rows, notes


# ------------------------------------------------------------------------------- warm-up
def warm_cache(harness: Harness, refs: dict[str, Reference], options: BehaviorOptions
               ) -> tuple[int, int, list[str]]:
    """Grade each reference against itself with the graph engine (fills the cache), then check
    each entry: (hits, references with a behavior, misses with the reason)."""
    hits, misses, behaving = 0, [], 0
    for i, (name, ref) in enumerate(refs.items(), 1):
        t0 = time.monotonic()
        own = grade_behavior(harness, ref, dict(ref.files), ref.main, options)
        if not ref.cfg.has_behavior:
            log(f"[warm {i}/{len(refs)}] {name}: no behavior (nothing to cache)")
            continue
        behaving += 1
        found = explore(harness, SpecSource(ref.main, dict(ref.files)), ref.cfg,
                        tlc_args=ref.tlc_args, budget=options.budget, timeout=options.timeout,
                        cache=graph_cache(options.cache))
        if found.tlc_runs == 0:
            hits += 1
        else:
            misses.append(f"{name}: {found.verdict} {_cut(found.detail, 120)} (self grade "
                          f"{own.verdict}: {_cut(own.reason, 120)})")
        log(f"[warm {i}/{len(refs)}] {name}: self {own.verdict} by {own.engine}, "
            f"cache {'hit' if found.tlc_runs == 0 else 'MISS'}, {time.monotonic() - t0:.1f} s")
    return hits, behaving, misses


# -------------------------------------------------------------------------------- report
def _stats(rows: list[Row]) -> dict[str, Any]:
    runs, secs = [r.tlc_runs for r in rows], [r.seconds for r in rows]
    return {"n": len(rows), "mean_runs": statistics.fmean(runs) if runs else float("nan"),
            "max_runs": max(runs, default=0), "total_s": sum(secs),
            "median_s": statistics.median(secs) if secs else float("nan")}


def _stat_cells(s: dict[str, Any]) -> str:
    return (f"{s['n']} | {s['mean_runs']:.2f} | {s['max_runs']} | {s['total_s']:.1f} | "
            f"{s['median_s']:.2f}")


def _pairs(rows: list[Row], a: str, b: str, keep: Callable[[Row], bool] = lambda r: True
           ) -> list[tuple[Row, Row]]:
    """(a's row, b's row) of each case both engines graded, where `keep` holds for a's row."""
    mine = {r.case: r for r in rows if r.engine == b}
    return [(r, mine[r.case]) for r in rows if r.engine == a and r.case in mine and keep(r)]


def report(rows: list[Row], engines: list[str], args: argparse.Namespace, warm: str,
           notes: list[str], wall: float) -> list[str]:
    lines = ["# Behavior engines: cost on the same cases", "",
             f"Command: `python scripts/engine_cost.py {' '.join(sys.argv[1:])}`  ",
             f"Date: {datetime.now().astimezone().isoformat(timespec='seconds')}; "
             f"{os.cpu_count()} cores; TLC limit {args.timeout:g} s per run; "
             f"wall time {wall:.0f} s.", "",
             f"Reference-graph cache: {warm}", "",
             "Seconds are those of the behavior grades alone (making the controls and checking "
             "coverage is not counted). Groups: demo-pass / demo-fail (forward_fail or "
             f"reverse_fail) / demo-other by the verdict of `{engines[0]}`.", "",
             "## Per group", "",
             "| suite | group | engine | cases | mean TLC runs | max TLC runs | total s "
             "| median s |", "|---|---|---|---:|---:|---:|---:|---:|"]
    suites = list(dict.fromkeys(r.suite for r in rows))
    for suite in suites:
        for group in GROUPS:
            for engine in engines:
                sel = [r for r in rows if r.suite == suite and r.group == group
                       and r.engine == engine]
                if sel:
                    lines.append(f"| {suite} | {group} | {engine} | {_stat_cells(_stats(sel))} |")
    lines += ["", "## Overall", "",
              "| engine | cases | mean TLC runs | max TLC runs | total s | median s "
              "| failing cases | mean TLC runs, failing | total s, failing | wrong controls |",
              "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for engine in engines:
        mine = [r for r in rows if r.engine == engine]
        fail = _stats([r for r in mine if r.group in FAILING])
        wrong = sum(r.correct is False for r in mine)
        lines.append(f"| {engine} | {_stat_cells(_stats(mine))} | {fail['n']} | "
                     f"{fail['mean_runs']:.2f} | {fail['total_s']:.1f} | {wrong} |")
    lines += ["", "Goals: `auto` at most 3 TLC runs per behavior grade on average; `wrappers` at "
              "least 3x the wall time of `auto` on the failing cases."]
    if len(engines) > 1:
        lines += ["", "## Wall-time ratios (cases both engines graded)", "",
                  "| ratio | failing cases | s, failing | ratio, failing | all cases | s, all "
                  "| ratio, all |", "|---|---:|---:|---:|---:|---:|---:|"]
        for other in engines[1:]:
            cells = []
            for keep in (lambda r: r.group in FAILING), (lambda r: True):
                both = _pairs(rows, engines[0], other, keep)
                sa, sb = sum(x.seconds for x, _ in both), sum(y.seconds for _, y in both)
                cells += [str(len(both)), f"{sa:.1f} / {sb:.1f}",
                          f"{sa / sb:.2f}x" if sb else "-"]
            lines.append(f"| {engines[0]} / {other} | " + " | ".join(cells) + " |")
        lines += ["", "## Verdict agreement (cases where both engines decide: ok, forward_fail, "
                  "reverse_fail)", ""]
        diffs: list[str] = []
        for a, b in combinations(engines, 2):
            both = [(x, y) for x, y in _pairs(rows, a, b)
                    if x.verdict in DECIDED and y.verdict in DECIDED]
            same = sum(x.verdict == y.verdict for x, y in both)
            side = sum((x.verdict == "ok") == (y.verdict == "ok") for x, y in both)
            undecided = [(x, y) for x, y in _pairs(rows, a, b)
                         if (x.verdict in DECIDED) != (y.verdict in DECIDED)]
            lines.append(f"- {a} vs {b}: {same}/{len(both)} identical, {side}/{len(both)} "
                         f"agree on pass or fail; {len(undecided)} case(s) "
                         "decided by one engine only" + (": " + "; ".join(
                             f"{x.case} ({a} {x.verdict}, {b} {y.verdict})"
                             for x, y in undecided) if undecided else ""))
            diffs += [f"- {x.case} ({x.group}): {a} **{x.verdict}** ({_cut(x.reason)}) vs {b} "
                      f"**{y.verdict}** ({_cut(y.reason)})" for x, y in both
                      if x.verdict != y.verdict]
        lines += ["", "Differences:", "", *(diffs or ["- none"])]
    lines += ["", "## Who decided", ""]
    for engine in engines:
        if engine == "wrappers":
            continue
        mine = [r for r in rows if r.engine == engine]
        by = Counter(r.decided_by for r in mine)
        lines.append(f"- {engine}: {by.get('graphs', 0)} decided by the graph engine, "
                     f"{sum(r.fallback is not None for r in mine)} fell back to the wrapper "
                     f"engine (of {len(mine)})")
        reasons = Counter(_cut(r.fallback, 120) for r in mine if r.fallback is not None)
        lines += [f"  - {n} x {why}" for why, n in reasons.most_common()]
        cannot = Counter(_cut(r.reason, 120) for r in mine
                         if r.decided_by == "graphs" and r.verdict not in DECIDED)
        lines += [f"  - graph engine, not decided: {n} x {why}" for why, n in cannot.items()]
    wrong = [r for r in rows if r.correct is False]
    lines += ["", "## Wrong controls", "", *([f"- {r.case} [{r.engine}]: {r.verdict}: "
                                             f"{_cut(r.reason)}" for r in wrong] or ["- none"])]
    lines += ["", "## Notes", "", *(notes or ["- none"])]
    return lines


# ---------------------------------------------------------------------------------- main
def _select_corpus(ap: argparse.ArgumentParser, args: argparse.Namespace,
                   notes: list[str]) -> list[Task]:
    """The corpus models to measure (checked before any JVM starts: a typo fails at once)."""
    try:
        corpus, left_out = select_models(load_examples(args.corpus), only=args.only,
                                         max_seconds=args.max_seconds)
    except TaskError as exc:
        ap.error(f"--only: {exc}")
    notes += left_out
    return corpus


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--engines", default="wrappers,auto",
                    help="comma-separated engines, run in this order (wrappers,auto); the first "
                         "is the numerator of the wall-time ratios")
    ap.add_argument("--tasks", action="append", default=[], metavar="ID",
                    help="only this built-in task, for the controls and the demo outputs "
                         "(repeatable)")
    ap.add_argument("--no-demo", action="store_true", help="leave out the demo outputs")
    ap.add_argument("--no-builtin", action="store_true",
                    help="leave out the built-in suite's controls")
    ap.add_argument("--corpus", type=Path, help="a tlaplus/Examples corpus folder (optional)")
    ap.add_argument("--max-seconds", type=float, default=None,
                    help="only corpus models whose manifest TLC time is at most this")
    ap.add_argument("--only", action="append", default=[], metavar="ID",
                    help="only this corpus model (repeatable)")
    ap.add_argument("--timeout", type=float, default=120.0, help="TLC limit per run (120 s)")
    ap.add_argument("--out", type=Path, default=HERE / "results" / "engine_cost.md")
    args = ap.parse_args()
    engines = [e.strip() for e in args.engines.split(",") if e.strip()]
    if not engines or set(engines) - set(ENGINES) or len(set(engines)) != len(engines):
        ap.error(f"--engines: distinct names among {', '.join(ENGINES)}")
    if args.only and not args.corpus:
        ap.error("--only needs --corpus")
    tasks = builtin_tasks()
    unknown = sorted(set(args.tasks) - {t.id for t in tasks})
    if unknown:
        ap.error(f"--tasks: no built-in task {', '.join(unknown)}")
    if args.tasks:
        tasks = [t for t in tasks if t.id in args.tasks]
    notes: list[str] = []
    corpus = _select_corpus(ap, args, notes) if args.corpus else []
    replies = [] if args.no_demo else demo_replies(set(args.tasks) if args.tasks else None)
    variants = demo_variants(replies)

    started = time.monotonic()
    rows: list[Row] = []
    with tempfile.TemporaryDirectory(prefix="engine-cost-graphs-") as cache, \
            Harness(tlc_timeout=args.timeout) as harness:
        options = {e: BehaviorOptions(engine=e, timeout=args.timeout, cache=Path(cache))
                   for e in engines}
        refs = {t.id: controls.reference(t) for t in
                [*([] if args.no_builtin else tasks), *corpus]}
        refs |= {f"demo {t}/{c}": reference_of(v) for (t, c), v in variants.items()}
        hits, behaving, misses = warm_cache(
            harness, refs, BehaviorOptions(engine="graphs", timeout=args.timeout,
                                           cache=Path(cache)))
        warm = (f"a fresh folder, warmed before timing by grading each of {len(refs)} "
                f"reference(s) against itself with the graph engine; {hits}/{behaving} "
                f"references with a behavior then answered from the cache (warm)"
                + ("" if not misses else "; not cached: " + "; ".join(misses)))
        log(f"cache: {hits}/{behaving} warm")
        recorder = _Recorder()
        with recorder.installed():
            if not args.no_builtin:
                rows += run_controls(harness, "built-in", tasks, options, recorder)
            if corpus:
                rows += run_controls(harness, "corpus", corpus, options, recorder)
        if replies:
            demo_rows, demo_notes = run_demo(harness, replies, variants, options)
            rows += demo_rows
            notes += [f"- {n}" for n in demo_notes]
    wall = time.monotonic() - started
    lines = report(rows, engines, args, warm, notes, wall)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    args.out.with_suffix(".json").write_text(
        json.dumps([r.to_json() for r in rows], indent=1, ensure_ascii=False) + "\n",
        encoding="utf-8")
    print("\n".join(lines))
    log(f"wrote {args.out} and {args.out.with_suffix('.json')}")


if __name__ == "__main__":
    main()
