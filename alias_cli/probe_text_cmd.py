"""Text probe kinds of `alias-bench probe`: continuation, similarity, propose-names.

Registered in :data:`alias_cli.probe_cmd.PROBES`. Each needs the `probes` extra (rouge-score,
sacrebleu, scipy, pandas).
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path
from typing import Any, TypeAlias

from alias_cli.common import ToolchainError, add_tool_options, fail, harness_from, print_json
from alias_cli.task_args import add_task_source, resolve_tasks
from alias_fixtures.models.registry import GenerationParams, ModelError, make_model
from alias_fixtures.tasks.task import Task, TaskError
from alias_fixtures.tasks.variants import Variant, VariantError, make_variant
from tlc_harness.source.cfg import CfgError
from tlc_harness.source.rename import RenameError

SubParsers: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"


def _add_tasks(p: argparse.ArgumentParser, default: str | None = "builtin") -> None:
    where = "'builtin' (default)" if default else "'builtin' (default: the run header's)"
    p.add_argument("--tasks", default=default, help=f"{where} or a task folder / collection")
    p.add_argument("--task", action="append", dest="task_ids", metavar="ID",
                   help="only this task id (repeatable)")
    add_task_source(p)


def _tasks(args: argparse.Namespace, source: str | None = None) -> list[Task]:
    source = source or args.tasks
    tasks = resolve_tasks(None if source == "builtin" else source, args)
    if args.task_ids:
        missing = sorted(set(args.task_ids) - {t.id for t in tasks})
        if missing:
            raise TaskError(f"no task {', '.join(missing)} among the {len(tasks)} tasks")
        tasks = [t for t in tasks if t.id in set(args.task_ids)]
    return tasks


def _write_rows(path: str, rows: list[dict[str, Any]]) -> None:
    """Write probe rows as JSONL (file replaced), for `alias-bench report --probe`."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


def _num(value: Any, digits: int = 3) -> str:
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return "—"
    return f"{value:.{digits}f}" if isinstance(value, float) else str(value)


# -- continuation ---------------------------------------------------------------------------
def register_continuation(probe_sub: SubParsers) -> None:
    p = probe_sub.add_parser(
        "continuation", help="does a model continue published reference files verbatim?",
        description="Show the model the first 40%% of each task's main module with its "
        "repository and path, and measure the longest run of TLA+ tokens its continuation "
        "shares with the real rest; the same for the task's random (renamed) variant. With "
        "--results, correlate the runs with each task's renaming decrease (Spearman).")
    p.add_argument("--model", required=True, help="model spec (e.g. openai:MODEL@URL)")
    _add_tasks(p)
    p.add_argument("--seed", default="0", help="run seed of the random renaming (0)")
    p.add_argument("--fraction", type=float, default=0.4, help="share of lines shown (0.4)")
    p.add_argument("--max-tokens", type=int, default=4096, help="reply token limit (4096)")
    p.add_argument("--results", help="results file: correlate with per-task renaming decrease")
    p.add_argument("--results-model", help="model of the results file (if it holds several)")
    p.add_argument("--out", help="write the rows to this JSONL file (replaced)")
    p.add_argument("--json", action="store_true", help="print JSON instead of text")
    p.set_defaults(func=run_continuation)


def run_continuation(args: argparse.Namespace) -> int:
    from alias_fixtures.probes.continuation import (
        continuation_correlation,
        continuation_probe,
        renaming_decrease,
    )
    from reports.records import StatsError, load_records

    if not 0 < args.fraction < 1:
        return fail("--fraction must lie between 0 and 1")
    try:
        tasks = _tasks(args)
        params = GenerationParams(temperature=0.0, top_p=1.0, max_tokens=args.max_tokens)
        model = make_model(args.model, params)
        rows = continuation_probe(tasks, model, seed=args.seed, fraction=args.fraction,
                                  params=params, model_name=args.model)
        correlation = None
        if args.results:
            decrease = renaming_decrease(load_records(args.results), model=args.results_model)
            correlation = continuation_correlation(rows, decrease)
    except (TaskError, CfgError, ModelError, StatsError, OSError) as exc:
        return fail(str(exc))
    if args.out:
        _write_rows(args.out, [r.to_json() for r in rows])
    if args.json:
        print_json({"rows": [r.to_json() for r in rows],
                    "correlation": None if correlation is None
                    else json.loads(correlation.to_json(orient="records"))})
    else:
        width = max((len(r.task) for r in rows), default=4)
        print(f"{'task':<{width}}  {'run':>5} {'frac':>6}  {'renamed':>7} {'frac':>6}  "
              f"{'tokens':>6}  path")
        for r in rows:
            print(f"{r.task:<{width}}  {_num(r.longest_run_original):>5} "
                  f"{_num(r.fraction_original):>6}  {_num(r.longest_run_renamed):>7} "
                  f"{_num(r.fraction_renamed):>6}  {r.remainder_tokens:>6}  {r.repo}: {r.path}"
                  + (f"  [{r.note}]" if r.note else ""))
        if correlation is not None:
            print("\nSpearman correlation with the renaming decrease (original − random):")
            for c in correlation.itertuples():
                print(f"  {c.measure:<22} vs {c.decrease:<18} rho {_num(c.rho):>6} "
                      f"p {_num(c.p):>6} ({c.tasks} tasks)")
    if args.out:
        print(f"wrote {len(rows)} rows to {args.out}")
    return 1 if any(r.longest_run_original is None for r in rows) else 0


# -- similarity -----------------------------------------------------------------------------
def register_similarity(probe_sub: SubParsers) -> None:
    p = probe_sub.add_parser(
        "similarity", help="ROUGE-L and BLEU of saved outputs against their references",
        description="Per model and condition, mean ROUGE-L F1 and BLEU (over TLA+ tokens) of "
        "each case's output module against the reference of its variant. Uses a record's "
        "`similarity` when present; otherwise reads the output from its `output_path`.")
    p.add_argument("results", help="results file (results.jsonl)")
    _add_tasks(p, default=None)
    p.add_argument("--seed", help="run seed of the random renaming (default: the run header's)")
    p.add_argument("--maps", help="folder of <task_id>.json name maps (meaningful condition)")
    p.add_argument("--recompute", action="store_true", help="ignore recorded similarity values")
    p.add_argument("--out", help="write one similarity row per case to this JSONL file "
                   "(replaced), for `alias-bench report --probe`")
    p.add_argument("--json", action="store_true", help="print JSON instead of text")
    p.set_defaults(func=run_similarity)


def _output_file(recorded: str, results: Path) -> Path | None:
    path = Path(recorded)
    candidates = [path, results.parent / path]
    if "outputs" in path.parts:
        candidates.append(results.parent.joinpath(*path.parts[path.parts.index("outputs"):]))
    return next((c for c in candidates if c.is_file()), None)


def run_similarity(args: argparse.Namespace) -> int:
    from alias_fixtures.grading.extract import extract_module
    from reports.results_file import read_lines
    from reports.similarity import (
        format_similarity_table,
        similarity,
        similarity_row,
        similarity_table,
    )

    results = Path(args.results)
    if not results.is_file():
        return fail(f"no results file {results}")
    lines = read_lines(results)
    header = next((r for r in lines if r.get("kind") == "header"), {})
    seed = args.seed if args.seed is not None else str(header.get("seeds", {}).get("run", "0"))
    rows: list[dict[str, Any]] = []
    cases = [r for r in lines if r.get("kind") == "case"]
    need = args.recompute or any(not isinstance(r.get("similarity"), dict) for r in cases)
    try:
        tasks = {t.id: t for t in _tasks(args, args.tasks or header.get("tasks") or "builtin")} \
            if need else {}
    except (TaskError, CfgError, OSError) as exc:
        return fail(str(exc))
    variants: dict[tuple[str, str], Variant | None] = {}
    for record in cases:
        row = dict(record)
        if args.recompute or not isinstance(record.get("similarity"), dict):
            row["similarity"] = _recompute(record, results, tasks, variants, seed, args.maps,
                                           extract_module, similarity)
        rows.append(row)
    table = similarity_table(rows)
    if args.out:
        _write_rows(args.out, [similarity_row(str(r.get("model", "")), str(r["task"]),
                                              str(r["condition"]), int(r.get("sample") or 0),
                                              r["similarity"]) for r in rows])
    if args.json:
        print_json(json.loads(table.to_json(orient="records")))
    else:
        print(format_similarity_table(table))
    return 0


def _recompute(record: dict[str, Any], results: Path, tasks: dict[str, Task],
               variants: dict[tuple[str, str], Variant | None], seed: str, maps: str | None,
               extract: Any, measure: Any) -> dict[str, float] | None:
    """Similarity of one case from its saved output, or None (no output, module or reference)."""
    task = tasks.get(str(record.get("task")))
    recorded = record.get("output_path")
    if task is None or not isinstance(recorded, str) or record.get("infra_error"):
        return None
    output = _output_file(recorded, results)
    if output is None:
        return None
    key = (task.id, str(record.get("condition")))
    if key not in variants:
        try:
            variants[key] = make_variant(task, key[1], seed=seed, maps_dir=maps)
        except (VariantError, RenameError):
            variants[key] = None
    variant = variants[key]
    module = extract(output.read_text(encoding="utf-8", errors="replace"))
    if variant is None or not module.ok:
        return None
    result: dict[str, float] = measure(module.text, variant.modules[f"{variant.main_module}.tla"])
    return result


# -- propose-names --------------------------------------------------------------------------
def register_propose_names(probe_sub: SubParsers) -> None:
    p = probe_sub.add_parser(
        "propose-names", help="let a model propose meaningful names (maps for `meaningful`)",
        description="Ask a model for a meaningful new name for each renameable identifier of "
        "each task, sanitize the answer and write <out>/<task_id>.json, the name map of the "
        "meaningful condition. With --verify, build and verify each variant (SANY and TLC).")
    p.add_argument("--model", required=True, help="model spec (e.g. anthropic:MODEL)")
    _add_tasks(p)
    p.add_argument("--out", required=True, help="folder for the <task_id>.json maps")
    p.add_argument("--force", action="store_true", help="overwrite existing maps")
    p.add_argument("--allow-layout-change", action="store_true",
                   help="keep new names of another length left of multi-line /\\ \\/ lists")
    p.add_argument("--verify", action="store_true", help="verify each meaningful variant")
    p.add_argument("--rows", help="write one row per task to this JSONL file (replaced), for "
                   "`alias-bench report --probe`")
    p.add_argument("--timeout", type=float, default=300.0, help="TLC time limit in s (300)")
    p.add_argument("--json", action="store_true", help="print JSON instead of text")
    add_tool_options(p)
    p.set_defaults(func=run_propose_names)


def run_propose_names(args: argparse.Namespace) -> int:
    from alias_fixtures.models.propose_names import (
        ProposalError,
        proposal_row,
        propose_names,
        write_name_map,
    )
    from alias_fixtures.tasks.variants import build_variant

    try:
        tasks = _tasks(args)
        model = make_model(args.model, GenerationParams(temperature=0.0, top_p=1.0))
    except (TaskError, CfgError, ModelError, OSError) as exc:
        return fail(str(exc))
    report: list[dict[str, Any]] = []
    proposals: dict[str, Any] = {}
    for task in tasks:
        entry: dict[str, Any] = {"task": task.id}
        try:
            proposal = propose_names(task, model, keep_layout=not args.allow_layout_change)
            proposals[task.id] = proposal
            entry.update(proposal.to_json())
            entry["path"] = str(write_name_map(proposal, args.out, overwrite=args.force))
        except (ModelError, ProposalError, OSError) as exc:
            entry["error"] = str(exc)
        report.append(entry)
    if args.verify:
        try:
            with harness_from(args, tlc_timeout=args.timeout) as harness:
                for entry in report:
                    if "error" not in entry:
                        task = next(t for t in tasks if t.id == entry["task"])
                        check = build_variant(harness, task, "meaningful", maps_dir=args.out)[1]
                        entry["verified"], entry["reason"] = check.verified, check.reason
        except ToolchainError as exc:
            return fail(str(exc))
    if args.rows:
        by_id = {t.id: t for t in tasks}
        _write_rows(args.rows, [proposal_row(
            args.model, by_id[e["task"]], proposals.get(e["task"]), verified=e.get("verified"),
            reason=e.get("reason"), error=e.get("error")) for e in report])
    if args.json:
        print_json(report)
    else:
        for e in report:
            if "error" in e:
                print(f"{e['task']}: error: {e['error']}")
                continue
            verified = "" if "verified" not in e else (
                "; verified" if e["verified"] else f"; NOT verified: {e['reason']}")
            print(f"{e['task']}: {len(e['map'])} names -> {e['path']}{verified}")
            for old, why in e["dropped"].items():
                print(f"  dropped {old}: {why}")
            for old, what in e["fixed"].items():
                print(f"  fixed {old}: {what}")
            if e["unproposed"]:
                print(f"  no name proposed for: {', '.join(e['unproposed'])}")
    failed = any("error" in e or e.get("verified") is False for e in report)
    return 1 if failed else 0


PROBES = {
    "continuation": register_continuation,
    "similarity": register_similarity,
    "propose-names": register_propose_names,
}
