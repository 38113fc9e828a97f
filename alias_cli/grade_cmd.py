"""`alias-bench grade --task TASK OUTPUT`: grade one model output by parse, name and behavior."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from alias_cli.common import (
    ToolchainError,
    add_tool_options,
    cache_from,
    fail,
    harness_from,
    print_json,
)
from alias_cli.task_args import add_task_id, add_task_source, resolve_task
from alias_fixtures.grading.grade import CaseGrades, Grade, ReferenceCoverage, grade_output, reference_of
from alias_fixtures.grading.grade_cache import GradeCache
from alias_fixtures.plugin.values import setting_type
from alias_fixtures.tasks.task import TaskError
from alias_fixtures.tasks.variants import VariantError, build_variant
from reports.schema import CONDITIONS
from tlc_harness.behavior.options import (
    DEFAULT_BUDGET,
    DEFAULT_LIMIT,
    DEFAULT_OUTPUT_BUDGET,
    ENGINES,
    BehaviorOptions,
)
from tlc_harness.behavior.search import Candidate
from tlc_harness.behavior.sweeps import resolved_jobs, sweep_jobs
from tlc_harness.behavior.wrapper_modules import wrapper_texts
from tlc_harness.source.cfg import CfgError, format_cfg


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("grade", help="grade one model output against a task",
                       description="Grade a model's output (raw reply text or a .tla file) "
                       "against a task's variant: parse (SANY), name (TLC with the variant's "
                       "cfg) and behavior (refinement both ways against the variant's reference). "
                       "Exit status: 0 correct under --primary, 1 not correct, 2 error.")
    p.add_argument("output", help="the model's output: a .tla file or a text file with the reply")
    p.add_argument("--task", required=True, help="a task folder, the id of a built-in task, or a "
                   "collection (a TLA+-Bench release, a corpus) with --id")
    p.add_argument("--condition", choices=CONDITIONS,
                   default="original")
    p.add_argument("--maps", help="folder of <task_id>.json name maps (meaningful condition)")
    p.add_argument("--seed", default="0", help="run seed of the renamed variant (0)")
    p.add_argument("--primary", choices=("name", "behavior"), default="behavior",
                   help="which grade decides the exit status (behavior)")
    p.add_argument("--engine", choices=ENGINES, default="auto",
                   help="behavior-grade engine: graphs (state graphs, mapping inferred in "
                   "memory), wrappers (variable bijections checked by TLC), auto (graphs "
                   "within --graph-budget, else wrappers; the default)")
    p.add_argument("--graph-budget", type=setting_type("graph-budget"), default=DEFAULT_BUDGET,
                   help=f"most distinct states of the reference's state graph "
                   f"({DEFAULT_BUDGET}; an output's may have 4 times as many)")
    p.add_argument("--mappings", type=setting_type("mappings"), default=DEFAULT_LIMIT,
                   help=f"most mappings the wrapper engine tries ({DEFAULT_LIMIT})")
    p.add_argument("--timeout", type=setting_type("timeout"), default=300.0,
                   help="TLC time limit per run (300)")
    p.add_argument("--behavior-budget", type=setting_type("behavior-budget"),
                   default=DEFAULT_OUTPUT_BUDGET, metavar="SECONDS",
                   help=f"wall time the whole behavior grade may take ({DEFAULT_OUTPUT_BUDGET:g}; "
                   "every TLC run's limit is cut to the time left, "
                   f"and when it runs out the grade is undecided: output_budget); 0: no budget")
    p.add_argument("--sweep-jobs", type=sweep_jobs, default=1, metavar="N",
                   help="TLC runs of a sweep (the values of an output's free constant, the "
                   "wrapper engine's mappings) run at once, each in its own JVM (1: one after "
                   "another, the default; auto: one per core); never changes a verdict")
    p.add_argument("--no-grade-cache", action="store_true",
                   help="grade the output even when the grade cache (grades/ under the cache "
                   "root) holds its grades: the same variant, module text, options, jar and "
                   "grader code")
    p.add_argument("--explain", action="store_true",
                   help="also print the wrapper modules and cfgs of the last mapping tried")
    p.add_argument("--json", action="store_true", help="print JSON instead of text")
    add_task_source(p)
    add_task_id(p)
    add_tool_options(p)
    p.set_defaults(func=run)


def read_reply(path: Path) -> str:
    """A model's reply from a file: any size is graded (an oversized reply is `too_large`), but
    no more than enough to tell is read."""
    from alias_fixtures.grading.extract import MAX_REPLY_CHARS

    with path.open("rb") as handle:  # OSError (missing, unreadable) is the user's mistake
        data = handle.read(4 * MAX_REPLY_CHARS + 8)  # UTF-8: at most 4 bytes a character
    return data.decode("utf-8", "replace")


def run(args: argparse.Namespace) -> int:
    try:
        task = resolve_task(args.task, args)
        reply = read_reply(Path(args.output))
        jobs = resolved_jobs(args.sweep_jobs)
        with harness_from(args, tlc_timeout=args.timeout, pool_size=jobs) as harness:
            variant, check = build_variant(harness, task, args.condition, seed=args.seed,
                                           maps_dir=args.maps)
            if variant is None or not check.verified:
                return fail(f"the {args.condition} variant of {task.id} is not verified: "
                            f"{check.reason}")
            options = BehaviorOptions(engine=args.engine, limit=args.mappings,
                                      budget=args.graph_budget, timeout=args.timeout,
                                      cache=cache_from(args), output_budget=args.behavior_budget,
                                      sweep_jobs=jobs)
            grading = grade_output if args.no_grade_cache else GradeCache().grade
            grades = grading(harness, variant, reply, coverage=ReferenceCoverage(harness, options),
                             behavior=options, timeout=args.timeout)
    except (TaskError, VariantError, CfgError, ToolchainError, OSError, ValueError) as exc:
        return fail(str(exc))
    explain = {}
    mapping = grades.behavior.details.get("mapping")
    if args.explain and mapping and grades.module_name:
        spec_files = {f"{grades.module_name}.tla": reply}
        from alias_fixtures.grading.extract import extract_module

        ext = extract_module(reply)
        if ext.text:
            spec_files = {f"{grades.module_name}.tla": ext.text}
        cand = Candidate(mapping["variables"], mapping["constants"],
                         tuple(mapping.get("definitions", ())), labels=not mapping.get("inferred"),
                         model_values=tuple(mapping.get("model_values", ())))
        explain = wrapper_texts(reference_of(variant), spec_files, grades.module_name, cand)
    if args.json:
        data = {"task": task.id, "condition": args.condition, "module": grades.module_name,
                **grades.to_json(), "notes": list(grades.notes), "cached": grades.cached}
        if explain:
            data["explain"] = explain
        print_json(data)
    else:
        print(render(task.id, args.condition, grades))
        if not explain and args.explain:
            print("(no mapping was tried, nothing to explain)")
        for name, text in explain.items():
            print(f"\n---- {name} ----\n{text}")
        if args.explain:
            print(f"\n---- variant cfg ----\n{format_cfg(variant.cfg)}")
    if grades.infra_error:
        return 2
    primary = grades.behavior if args.primary == "behavior" else grades.name
    return 0 if primary.passed else 1


def _line(label: str, grade: Grade) -> str:
    return f"{label:<9}{grade.verdict:<18}{grade.seconds:6.2f} s  {grade.reason}".rstrip()


def render(task_id: str, condition: str, grades: CaseGrades) -> str:
    lines = [f"task {task_id} ({condition}), output module {grades.module_name or '-'}",
             _line("parse", grades.parse), _line("name", grades.name),
             _line("behavior", grades.behavior)]
    details = grades.behavior.details
    mapping = details.get("mapping")
    if details.get("engine"):
        sizes = (f", graphs of {details['output_states']} (output) and "
                 f"{details['reference_states']} (reference) states"
                 if details.get("output_states") else "")
        fallback = f"; wrappers decided: {details['fallback']}" if details.get("fallback") else ""
        lines.append(f"  engine: {details['engine']}, {details.get('tlc_runs', 0)} TLC run(s)"
                     f"{sizes}{fallback}")
    if details.get("stage_seconds"):
        lines.append("  stages: " + ", ".join(f"{stage} {seconds:.2f} s" for stage, seconds
                                             in details["stage_seconds"].items()))
    if details.get("reason_code"):
        lines.append(f"  reason code: {details['reason_code']}")
    if details.get("soundness"):
        lines.append(f"  soundness: {details['soundness']}")
    if details.get("mapping_basis"):
        lines.append(f"  mapping basis: {details['mapping_basis']}"
                     + (f" (found by {details['mapping_source']})"
                        if details.get("mapping_source") else ""))
    if details.get("mapping_class") and not grades.behavior.passed:
        lines.append(f"  mapping class: {details['mapping_class']}: "
                     f"{str(details.get('mapping_class_reason', ''))[:300]}")
    if details.get("any_mapping") and not grades.behavior.passed:
        lines.append(f"  every state mapping ({details.get('any_mapping_kind', '-')}): "
                     f"{details['any_mapping']}: {str(details.get('any_mapping_reason', ''))[:300]}")
    if details.get("constants"):
        lines.append("  constants: " + ", ".join(
            f"{name} = {c['value'][:40]} ({c['source']}"
            + (f" of {c['from']})" if c["from"] not in (c["value"], name, None) else ")")
            for name, c in details["constants"].items()))
    if details.get("reference_model"):
        lines.append(f"  reference model: {details['reference_model']}")
    if mapping and grades.behavior.passed:
        pairs = {**mapping["variables"], **{r: g for g, r in mapping["constants"].items()}}
        lines.append("  mapping: " + ", ".join(f"{r} -> {g}" for r, g in pairs.items()))
        for definition in mapping.get("definitions", ()):
            lines.append(f"    where {definition[:300]}")
        if details.get("hidden"):
            lines.append("  hidden output variables: " + ", ".join(details["hidden"]))
    if not grades.behavior.passed:
        lines += _counterexample(details)
    for note in grades.notes:
        lines.append(f"  note: {note}")
    if grades.cached:
        lines.append("  read from the grade cache: graded before under the same inputs, "
                     "seconds of that run (--no-grade-cache grades again)")
    return "\n".join(lines)


#: how a witness state's reference image follows the one before, as the table shows it
_IMAGE_STEPS = {"initial": "initial", "not_initial": "NOT INITIAL", "step": "step",
                "stutter": "stutter", "no_step": "NO STEP"}


def _counterexample(details: dict[str, Any]) -> list[str]:
    """The behavior grade's counterexample as a table, step by step; for a behavior of the
    output with its `reference_image`, the reference state each step maps to beside it."""
    trace = details.get("trace") or []
    if not trace:
        return []
    names = sorted({k for s in trace for k in s["variables"]})
    head = ["#", "action", *names]
    rows = [[str(s["number"]), s["action"][:28], *[s["variables"].get(n, "")[:24]
                                                   for n in names]] for s in trace[:20]]
    image = details.get("reference_image")
    images: list[Any] | None = (image if isinstance(image, list) and len(image) == len(trace)
                                else None)
    if images is not None:
        ref_names = list(dict.fromkeys(k for s in images if s for k in s["variables"]))
        head += ["| maps to", *ref_names]
        for row, state in zip(rows, images, strict=False):
            row += (["| NO STATE", *[""] * len(ref_names)] if state is None else
                    [f"| {_IMAGE_STEPS.get(state.get('step'), '')}",
                     *[state["variables"].get(n, "")[:24] for n in ref_names]])
    widths = [max(len(r[i]) for r in [head, *rows]) for i in range(len(head))]
    whose = {"output": " — the output's behavior, whose image leaves the reference",
             "reference": " — the reference's behavior, which the output cannot follow"}
    lines = ["  counterexample (shortest found)"
             f"{whose.get(str(details.get('trace_of')), '')}:"]
    for row in [head, *rows]:
        lines.append(("    " + "  ".join(c.ljust(w) for c, w in zip(row, widths,
                                                                strict=False))).rstrip())
    if images is not None:
        lines.append("    (right of |: the reference state each output state maps to; NO "
                     "STATE, NO STEP or NOT INITIAL marks where the image leaves the reference)")
    return lines
