"""`alias-bench regrade RESULTS.jsonl`: grade a run's saved outputs again, without the model.

Each case record names its saved output (`output_path`, checked against `output_sha256`) and
the prompt the model saw (`prompt_sha256`, checked against the rebuilt variant). The new
records go to a new results file (never the input), one line per case as soon as it is graded,
so an interrupted regrade keeps every finished case and `--resume` goes on from there. Cases
without a saved output (model errors, excluded variants) are copied as they were.
"""

from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import os
import signal
import sys
import time
import uuid
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from alias_cli.common import add_tool_options, fail
from alias_fixtures.plugin.values import setting_type
from reports.schema import GRADES
from tlc_harness.behavior.options import ENGINES

if TYPE_CHECKING:
    from alias_fixtures.grading.executors import GradeJob, GradeResult
    from alias_fixtures.tasks.task import Task
    from alias_fixtures.tasks.variants import Variant, Verification
    from tlc_harness.behavior.options import BehaviorOptions
    from tlc_harness.tools.runner import Harness

EXIT_OK, EXIT_INFRA, EXIT_INTERRUPTED = 0, 1, 130  # usage errors: 2, from `fail`
GRADE_FIELDS = ("grades", "module", "similarity", "infra_error", "traceback", "grader",
                "excluded", "regrade")
"""Fields of a case record that grading writes: dropped before a case is graded again."""


class RegradeError(ValueError):
    """The input cannot be regraded (unreadable, not a results file, unsafe output)."""


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "regrade", help="grade a run's saved outputs again (no model calls)",
        description="Grade the saved outputs of a benchmark run again, with the current grader "
        "(locally or on a Ray cluster), into a new results file and report. Exit status: 0 "
        "every case regraded, 1 some case ended as an infrastructure error, 2 bad input or "
        "usage, 130 interrupted (finished cases are kept: --resume goes on).")
    p.add_argument("results", type=Path, metavar="RESULTS.jsonl",
                   help="a results file written by a benchmark run (only read)")
    p.add_argument("--executor", default="local", metavar="local|ray|ray:ADDRESS",
                   help="where to grade: local (this machine), ray (a private Ray here, or "
                   "RAY_ADDRESS), ray:ADDRESS (an existing cluster); default local")
    p.add_argument("--workers", type=int, default=None,
                   help="graders: local processes (default 1) or Ray actors (default: the "
                   "cluster's CPUs)")
    p.add_argument("--out", type=Path,
                   help="folder of the new results file and report (default: regrade/ beside "
                   "the input)")
    p.add_argument("--resume", action="store_true",
                   help="keep the cases already in the new results file and grade the rest")
    p.add_argument("--no-grade-cache", action="store_true",
                   help="grade every output, even one whose grades the grade cache holds "
                   "(graded before under the same inputs and grader code)")
    p.add_argument("--engine", choices=ENGINES, default=None,
                   help="behavior-grade engine (default: the run's)")
    p.add_argument("--graph-budget", type=setting_type("graph-budget"), default=None,
                   help="most distinct states of a state graph (default: the run's)")
    p.add_argument("--mappings", type=setting_type("mappings"), default=None,
                   help="most mappings the wrapper engine tries (default: the run's)")
    p.add_argument("--timeout", type=setting_type("timeout"), default=None,
                   help="TLC time limit per run, seconds (default: the run's)")
    p.add_argument("--behavior-budget", type=setting_type("behavior-budget"), default=None,
                   metavar="SECONDS",
                   help="wall time one output's whole behavior grade may take, 0: no budget "
                   "(default: the run's, else 150)")
    p.add_argument("--tasks", default=None,
                   help="the run's tasks, when they moved (default: the run header's)")
    p.add_argument("--maps", default=None, help="meaningful-name maps (default: the run's)")
    p.add_argument("--no-report", action="store_true", help="do not write the report folder")
    add_tool_options(p)
    p.set_defaults(func=run)


# ------------------------------------------------------------------ input
@dataclass(frozen=True)
class RunInput:
    """The input results file: its first header and its case records."""

    path: Path
    header: dict[str, Any]
    cases: list[dict[str, Any]]


def case_key(record: dict[str, Any]) -> str:
    return f"{record['model']}::{record['id']}"


def read_input(path: Path) -> RunInput:
    """The header and case records of a results file; `RegradeError` says what is wrong."""
    from reports.records import StatsError, jsonl_values
    from reports.schema import RECORD_SCHEMA_VERSION as SCHEMA_VERSION

    if not path.is_file():
        raise RegradeError(f"{path}: no such results file")
    header: dict[str, Any] | None = None
    cases: list[dict[str, Any]] = []
    seen: dict[str, str] = {}
    try:
        for where, value in jsonl_values(path):
            if not isinstance(value, dict):
                raise RegradeError(f"{where}: a record must be a JSON object")
            if value.get("kind") == "header":
                header = header or value
                continue
            if value.get("kind") != "case":
                raise RegradeError(f"{where}: not a case record (kind {value.get('kind')!r})")
            if value.get("schema_version") != SCHEMA_VERSION:
                raise RegradeError(f"{where}: schema_version {value.get('schema_version')!r} "
                                   f"is not {SCHEMA_VERSION}")
            missing = [k for k in ("id", "model", "task", "condition", "sample") if k not in value]
            if missing:
                raise RegradeError(f"{where}: case record without {', '.join(missing)}")
            key = case_key(value)
            if key in seen:
                raise RegradeError(f"{where}: case {key} already recorded at {seen[key]}")
            seen[key] = where
            cases.append(value)
    except (StatsError, UnicodeDecodeError) as exc:
        raise RegradeError(str(exc)) from exc
    if header is None:
        raise RegradeError(f"{path}: no run header (not a results file of a benchmark run)")
    if not cases:
        raise RegradeError(f"{path}: no case records")
    return RunInput(path, header, cases)


def saved_output(record: dict[str, Any], results: Path) -> str | None:
    """The reply a case record names, if found and unchanged (`output_sha256`)."""
    named = record.get("output_path")
    if not isinstance(named, str) or not named:
        return None
    path = Path(named)
    candidates = [path] if path.is_absolute() else [Path.cwd() / path, results.parent / path]
    if "outputs" in path.parts:  # first the run's own outputs/ beside its results file
        candidates.insert(0, results.parent.joinpath(*path.parts[path.parts.index("outputs"):]))
    for candidate in candidates:
        if candidate.is_file():
            text = candidate.read_text(encoding="utf-8")
            expected = record.get("output_sha256")
            if expected and hashlib.sha256(text.encode()).hexdigest() != expected:
                continue
            return text
    return None


# ------------------------------------------------------------------ settings and variants
@dataclass
class Plan:
    """How this regrade grades: the run's settings with the command line's overrides."""

    tasks: str
    seed: str
    grades: tuple[str, ...]
    timeout: float
    engine: str
    budget: int
    mappings: int
    maps: str
    style: str
    cache: Path | None = None  # the per-task cache root (None: the default); never recorded
    output_budget: float | None = None  # seconds per output's behavior grade (None: none)
    category: str = "system"  # a TLA+-Bench release's specs that are tasks
    module_path: tuple[str, ...] = ()  # folders for a release's imported modules

    @classmethod
    def of(cls, header: dict[str, Any], *, tasks: str | None = None,
           timeout: float | None = None, engine: str | None = None, budget: int | None = None,
           mappings: int | None = None, maps: str | None = None,
           cache: Path | None = None, output_budget: float | None = None) -> Plan:
        """The header's settings; each keyword not None overrides one (`cache`: the cache
        root, which no header holds)."""
        from tlc_harness.behavior.options import DEFAULT_BUDGET, DEFAULT_LIMIT, DEFAULT_OUTPUT_BUDGET

        def pick(given: Any, key: str, default: Any) -> Any:
            return given if given is not None else header.get(key, default)

        return cls(tasks=str(pick(tasks, "tasks", "builtin")),
                   seed=str((header.get("seeds") or {}).get("run", "0")),
                   grades=tuple(header.get("grades") or GRADES),
                   timeout=float(pick(timeout, "tlc_timeout", 300.0)),
                   engine=str(pick(engine, "behavior_engine", "auto")),
                   budget=int(pick(budget, "graph_budget", DEFAULT_BUDGET)),
                   mappings=int(pick(mappings, "mapping_limit", DEFAULT_LIMIT)),
                   maps=str(pick(maps, "maps", "") or ""),
                   style=str(header.get("style") or "declarative_claude"), cache=cache,
                   output_budget=float(pick(output_budget, "behavior_budget",
                                            DEFAULT_OUTPUT_BUDGET) or 0) or None,
                   category=str(header.get("category") or "system"),
                   module_path=tuple(p for p in str(header.get("module_path") or "").split(
                       os.pathsep) if p))

    def behavior(self) -> BehaviorOptions:
        from tlc_harness.behavior.options import BehaviorOptions

        return BehaviorOptions(engine=self.engine, limit=self.mappings, budget=self.budget,
                               timeout=self.timeout, cache=self.cache,
                               output_budget=self.output_budget)

    def load_tasks(self) -> list[Task]:
        from alias_fixtures.tasks.loaders import load_sources, split_sources

        return list(load_sources(split_sources(self.tasks), style=self.style,
                                 category=self.category,
                                 module_path=self.module_path).tasks)

    def json(self) -> dict[str, Any]:
        data = dict(self.__dict__, grades=list(self.grades))
        del data["cache"]  # where results are cached never changes them
        return data


@dataclass
class Variants:
    """Verified variants, from the input run's cache when it has them, else built here."""

    harness: Harness
    plan: Plan
    input_cache: Path
    out_cache: Path
    tasks: dict[str, Task] = field(default_factory=dict)
    _built: dict[tuple[str, str], tuple[Variant | None, Verification]] = field(
        default_factory=dict)

    @classmethod
    def of(cls, harness: Harness, plan: Plan, run_input: RunInput, out_cache: Path) -> Variants:
        return cls(harness, plan, run_input.path.parent / "cache" / "variants", out_cache,
                   {t.id: t for t in plan.load_tasks()})

    def get(self, task_id: str, condition: str) -> tuple[Variant | None, Verification | str]:
        from alias_fixtures.tasks.variants import VariantError, VariantStore, build_variant

        if task_id not in self.tasks:
            return None, f"task {task_id} is not among the tasks of {self.plan.tasks}"
        key = (task_id, condition)
        if key not in self._built:
            task, jar = self.tasks[task_id], self.harness.toolchain.jar_sha256
            maps = self.plan.maps or None
            extra = ""
            if condition == "meaningful" and maps and (Path(maps) / f"{task_id}.json").is_file():
                extra = (Path(maps) / f"{task_id}.json").read_text(encoding="utf-8")
            kept = VariantStore(self.input_cache, jar_sha256=jar)
            hit = kept.get(kept.key(task, condition, self.plan.seed, extra))
            try:
                self._built[key] = hit or build_variant(
                    self.harness, task, condition, seed=self.plan.seed, maps_dir=maps,
                    store=VariantStore(self.out_cache, jar_sha256=jar))
            except VariantError as exc:
                return None, str(exc)
        return self._built[key]


# ------------------------------------------------------------------ progress
class Progress:
    """Cases done, rate and time left, on one line of stderr (a line every 10 s off a tty)."""

    def __init__(self, total: int, done: int = 0, stream: TextIO | None = None) -> None:
        self.total, self.done, self.start_done = total, done, done
        self.stream = stream or sys.stderr
        self.tty = self.stream.isatty()
        self.start = self.last = time.monotonic()

    def advance(self, count: int = 1) -> None:
        self.done += count
        now = time.monotonic()
        if self.tty or now - self.last >= 10 or self.done == self.total:
            self.last = now
            self._show()

    def line(self) -> str:
        elapsed = max(time.monotonic() - self.start, 1e-9)
        graded = self.done - self.start_done
        rate = graded / elapsed * 60
        left = self.total - self.done
        eta = "--:--" if not graded else _clock(left / (graded / elapsed))
        width = 24
        filled = int(width * self.done / self.total) if self.total else width
        return (f"regrade [{'#' * filled}{'.' * (width - filled)}] {self.done}/{self.total} "
                f"cases  {rate:.1f}/min  ETA {eta}")

    def _show(self) -> None:
        self.stream.write(("\r" if self.tty else "") + self.line() + ("" if self.tty else "\n"))
        self.stream.flush()

    def finish(self) -> None:
        if self.tty:
            self.stream.write("\n")
            self.stream.flush()


def _clock(seconds: float) -> str:
    minutes, secs = divmod(int(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


# ------------------------------------------------------------------ the command
def _out_file(args: argparse.Namespace) -> Path:
    from alias_fixtures.plugin.session import RESULTS_FILE

    results: Path = args.results
    out: Path = args.out if args.out is not None else results.parent / "regrade"
    target = out / RESULTS_FILE
    if target.resolve() == results.resolve():
        raise RegradeError(f"{target} is the input file: choose another --out")
    if target.exists() and target.stat().st_size and not args.resume:
        raise RegradeError(f"{target} already exists: --resume goes on with it, or choose "
                           "another --out")
    return target


def _header(run_input: RunInput, plan: Plan, harness: Harness, spec: str) -> dict[str, Any]:
    import platform

    from alias_fixtures.plugin.provenance import git_state

    commit, dirty = git_state(Path(__file__).resolve().parent)
    old = run_input.header
    return {**old, "run_id": uuid.uuid4().hex[:12],
            "started": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
            "git_commit": commit, "git_dirty": dirty, "python": platform.python_version(),
            "platform": platform.platform(), **harness.toolchain.describe(),
            "executor": spec, "behavior_engine": plan.engine, "graph_budget": plan.budget,
            "mapping_limit": plan.mappings, "tlc_timeout": plan.timeout, "maps": plan.maps,
            "behavior_budget": plan.output_budget,
            "regrade": {"source": str(run_input.path), "source_started": old.get("started"),
                        "source_run_id": old.get("run_id"),
                        "source_git_commit": old.get("git_commit"),
                        "source_jar_sha256": old.get("jar_sha256")}}


def _fresh(record: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in record.items() if k not in GRADE_FIELDS}


def run(args: argparse.Namespace) -> int:
    from alias_cli.common import ToolchainError, cache_from, harness_from
    from alias_fixtures.grading.executors import ExecutorError, require_ray
    from alias_fixtures.tasks.task import TaskError

    try:
        require_ray(args.executor)
        if args.workers is not None and args.workers < 1:
            raise RegradeError("--workers must be at least 1")
        run_input = read_input(args.results)
        target = _out_file(args)
        plan = Plan.of(run_input.header, tasks=args.tasks, timeout=args.timeout,
                       engine=args.engine, budget=args.graph_budget, mappings=args.mappings,
                       maps=args.maps, cache=cache_from(args),
                       output_budget=args.behavior_budget)
        harness = harness_from(args, tlc_timeout=plan.timeout)
    except (RegradeError, ExecutorError, ToolchainError, OSError, ValueError) as exc:
        return fail(str(exc))
    try:
        return _regrade(args, run_input, target, plan, harness)
    except (RegradeError, ExecutorError, TaskError) as exc:
        return fail(str(exc))
    finally:
        harness.close()


def _regrade(args: argparse.Namespace, run_input: RunInput, target: Path, plan: Plan,
             harness: Harness) -> int:
    from alias_fixtures.grading.executors import make_executor, parse_executor
    from reports.results_file import ResultsWriter, read_lines

    done = {case_key(r) for r in read_lines(target) if r.get("kind") == "case"} \
        if args.resume else set()
    variants = Variants.of(harness, plan, run_input, target.parent / "cache" / "variants")
    writer = ResultsWriter(target)
    headers = [r for r in read_lines(target) if r.get("kind") == "header"]
    if not headers:  # a new file; resuming continues the run its header names
        headers = [_header(run_input, plan, harness, args.executor)]
        writer.append(headers[0])
    run_id = str(headers[0].get("run_id") or "")
    todo = [r for r in run_input.cases if case_key(r) not in done]
    progress = Progress(len(run_input.cases), len(run_input.cases) - len(todo))
    print(f"alias-bench: regrading {len(todo)} of {len(run_input.cases)} cases of "
          f"{run_input.path} ({len(done)} already in {target}) with {args.executor}",
          file=sys.stderr)
    jobs: list[GradeJob] = []
    by_key: dict[str, tuple[dict[str, Any], GradeJob]] = {}
    for record in todo:
        prepared = prepare_case(record, run_input.path, variants, plan)
        if isinstance(prepared, dict):  # copied as it was, or an infrastructure error
            writer.append({**prepared, "run_id": run_id} if run_id else prepared)
            progress.advance()
            continue
        prepared = replace(prepared, grade_cache=not args.no_grade_cache)
        jobs.append(prepared)
        by_key[prepared.case_id] = (record, prepared)
    if jobs:
        kind, _ = parse_executor(args.executor)
        executor = make_executor(
            args.executor, harness=lambda: harness, workers=args.workers,
            harness_options={"tlc_timeout": plan.timeout, "heap": args.heap,
                             "backend": args.backend},
            expected_jar_sha256=harness.toolchain.jar_sha256 if kind == "ray" else None)
        previous = signal.signal(signal.SIGTERM, _interrupt)  # `kill`: as Ctrl-C
        try:
            for result in executor.grade_all(jobs):
                record, job = by_key[result.case_id]
                new = _graded(record, job, result, plan, args.executor, run_input.path)
                writer.append({**new, "run_id": run_id} if run_id else new)
                progress.advance()
        except KeyboardInterrupt:  # the busy graders were stopped; finished cases are kept
            progress.finish()
            print(f"alias-bench: interrupted; {progress.done} of {progress.total} cases are "
                  f"recorded in {target} (--resume goes on)", file=sys.stderr)
            return EXIT_INTERRUPTED
        finally:
            signal.signal(signal.SIGTERM, previous)
            executor.close()
    progress.finish()
    regraded = [r for r in read_lines(target) if r.get("kind") == "case"]
    _summarize(target, regraded, args.no_report)
    before = {case_key(r): r.get("infra_error") for r in run_input.cases}
    new_errors = [r for r in regraded if r.get("infra_error") and not before.get(case_key(r))]
    if new_errors:
        print(f"alias-bench: {len(new_errors)} case(s) could not be regraded (infra_error), "
              f"e.g. {new_errors[0]['id']}: {new_errors[0]['infra_error']}", file=sys.stderr)
    return EXIT_INFRA if new_errors else EXIT_OK


def _interrupt(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt


def prepare_case(record: dict[str, Any], results: Path, variants: Variants, plan: Plan
                 ) -> dict[str, Any] | GradeJob:
    """A job for a case, or its record when it cannot be graded (copied or infra error)."""
    from alias_fixtures.grading.executors import GradeJob
    from alias_fixtures.tasks.prompts import render_prompt

    if not record.get("output_path"):  # no output: a model error or an excluded variant
        return {**record, "regrade": {"source": str(results), "copied": True}}
    new = {**_fresh(record), "grades": {}, "regrade": {"source": str(results)}}
    variant, check = variants.get(record["task"], record["condition"])
    if variant is None or isinstance(check, str) or not check.verified:
        why = check if isinstance(check, str) else check.reason
        return {**new, "infra_error": f"variant not verified: {why}", "excluded": True}
    prompt = hashlib.sha256(render_prompt(variant.description).encode()).hexdigest()[:16]
    if record.get("prompt_sha256") not in (None, prompt):
        return {**new, "infra_error": "regrade: the rebuilt variant's prompt differs from the "
                "one the model saw (other seed, tasks or maps?)"}
    reply = saved_output(record, results)
    if reply is None:
        return {**new, "infra_error": f"regrade: saved output {record['output_path']} is "
                "missing or changed (output_sha256)"}
    return GradeJob(case_key(record), variant, reply, grades=plan.grades,
                    behavior=plan.behavior(), timeout=plan.timeout)


def _graded(record: dict[str, Any], job: GradeJob, result: GradeResult, plan: Plan,
            executor: str, results: Path) -> dict[str, Any]:
    from alias_fixtures.grading.executors import apply_result
    from alias_fixtures.plugin.session import output_similarity

    new = {**_fresh(record), "grades": {}, "infra_error": None}
    apply_result(new, result, plan.grades)
    if result.grades is not None:
        new["similarity"] = output_similarity(job.variant, job.reply)
    new["regrade"] = {"source": str(results), "executor": executor, "worker": result.worker,
                      "attempts": result.attempts, "seconds": round(result.seconds, 3)}
    return new


def _summarize(target: Path, regraded: list[dict[str, Any]], no_report: bool) -> None:
    from reports.summary import summary_lines, write_report

    for line in summary_lines(regraded):
        print(line)
    print(f"records: {target}")
    if not no_report:
        try:
            print(f"report: {write_report(target, target.parent / 'report')}")
        except Exception as exc:  # noqa: BLE001 - a report problem must not hide the results
            print(f"report not written: {type(exc).__name__}: {exc}")
