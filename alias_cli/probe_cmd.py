"""`alias-bench probe KIND ...`: contamination probes (likelihood; more kinds register here).

Each probe kind adds its own sub-subparser through a function in :data:`PROBES`
(``kind -> register(probe_sub)``); the function sets ``func`` on its parser. To add a kind,
write ``register_<kind>`` (here or in its own module) and add it to :data:`PROBES`.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Callable
from typing import Any, TypeAlias

from alias_cli import probe_text_cmd
from alias_cli.common import fail
from alias_cli.task_args import add_task_source, resolve_tasks
from alias_fixtures.tasks.task import TaskError
from reports.schema import CONDITIONS
from tlc_harness.source.cfg import CfgError

SubParsers: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"
ProbeRegistrar: TypeAlias = Callable[["argparse._SubParsersAction[argparse.ArgumentParser]"], None]


def register(sub: SubParsers) -> None:
    p = sub.add_parser("probe", help="contamination probes against a local model",
                       description="Probes of memorization: each KIND scores the tasks under "
                       "the original and renamed conditions.")
    probe_sub = p.add_subparsers(dest="probe_kind", required=True, metavar="KIND")
    for registrar in PROBES.values():
        registrar(probe_sub)


def _conditions(text: str) -> tuple[str, ...]:
    names = tuple(c.strip() for c in text.split(",") if c.strip())
    unknown = [c for c in names if c not in CONDITIONS]
    if not names or unknown:
        raise argparse.ArgumentTypeError(
            f"conditions are a comma-separated list of {', '.join(CONDITIONS)}"
            + (f" (unknown: {', '.join(unknown)})" if unknown else ""))
    return names


# -- likelihood -----------------------------------------------------------------------------

def register_likelihood(probe_sub: SubParsers) -> None:
    p = probe_sub.add_parser(
        "likelihood", help="mean token log-likelihood of each reference, per condition",
        description="Score description + reference of every task under each condition with a "
        "local causal LM (a folder holding a transformers model and a fast tokenizer; nothing "
        "is downloaded): mean log-probability per reference token, and over reference tokens "
        "outside renamed identifiers. Needs the 'likelihood' extra (torch, transformers).")
    p.add_argument("--model-dir", required=True, help="local folder of the model and tokenizer")
    p.add_argument("--model-name", help="name recorded in the rows (default: the folder's name)")
    p.add_argument("--tasks", default="builtin",
                   help="'builtin' (default) or a task folder / collection")
    p.add_argument("--task", action="append", dest="task_ids", metavar="ID",
                   help="score only this task id (repeatable)")
    p.add_argument("--conditions", type=_conditions, default=("original", "random"),
                   help="comma-separated conditions (default original,random)")
    p.add_argument("--maps", help="folder of <task_id>.json name maps (meaningful condition)")
    p.add_argument("--seed", default="0", help="run seed of the random renaming (0)")
    p.add_argument("--max-tokens", type=int, default=2048,
                   help="score the first N tokens of description + reference (2048)")
    p.add_argument("--device", default="cpu", help="torch device (cpu)")
    p.add_argument("--dtype", default="float32", choices=("float32", "bfloat16", "float16", "auto"),
                   help="weights dtype (float32)")
    p.add_argument("--out", help="write the rows to this JSONL file (replaced)")
    add_task_source(p)
    p.set_defaults(func=run_likelihood)


def run_likelihood(args: argparse.Namespace) -> int:
    from alias_fixtures.probes.likelihood import LikelihoodError, score_tasks

    if "meaningful" in args.conditions and not args.maps:
        return fail("the meaningful condition needs --maps")
    try:
        tasks = resolve_tasks(None if args.tasks == "builtin" else args.tasks, args)
        if args.task_ids:
            known = {t.id for t in tasks}
            missing = sorted(set(args.task_ids) - known)
            if missing:
                return fail(f"no task {', '.join(missing)} among the {len(tasks)} tasks")
            tasks = [t for t in tasks if t.id in set(args.task_ids)]
        rows = score_tasks(args.model_dir, tasks, args.conditions, args.seed,
                           max_tokens=args.max_tokens, out=args.out, model_name=args.model_name,
                           maps_dir=args.maps, device=args.device, dtype=args.dtype)
    except (TaskError, CfgError, LikelihoodError, OSError) as exc:
        return fail(str(exc))
    print_likelihood(rows, args.conditions)
    if args.out:
        print(f"wrote {len(rows)} rows to {args.out}")
    return 1 if any(r["error"] for r in rows) else 0


def _num(value: Any) -> str:
    return "—" if value is None or not math.isfinite(value) else f"{value:.4f}"


def print_likelihood(rows: list[dict[str, Any]], conditions: tuple[str, ...]) -> None:
    """Per task and condition the two means, then the per-condition means and differences."""
    from reports.likelihood_stats import condition_means, paired_difference
    from reports.records import StatsError

    width = max((len(str(r["task"])) for r in rows), default=4)
    print(f"{'task':<{width}}  {'condition':<10} {'mean':>8} {'tokens':>6} "
          f"{'outside':>8} {'tokens':>6}")
    for r in rows:
        note = f"  {r['error']}" if r["error"] else (
            "  (no reference token within the limit)" if not r["n_tokens"]
            else " (truncated)" if r["truncated"] else "")
        print(f"{r['task']:<{width}}  {r['condition']:<10} {_num(r['mean_logprob']):>8} "
              f"{r['n_tokens']:>6} {_num(r['mean_outside']):>8} {r['n_outside']:>6}{note}")
    if rows and rows[0]["max_tokens"] and any(r["truncated"] for r in rows):
        print(f"(first {rows[0]['max_tokens']} tokens scored)")
    for measure in ("mean_logprob", "mean_outside"):
        means = condition_means(rows, measure)
        if not means:
            continue
        print(f"{measure}: " + ", ".join(f"{m.condition} {m.mean:.4f} ({m.n_tasks} tasks)"
                                        for m in means))
        for other in conditions[1:]:
            if conditions[0] == other:
                continue
            try:
                d = paired_difference(rows, None, conditions[0], other, measure=measure)
            except StatsError as exc:
                print(f"  {conditions[0]} − {other}: {exc}", file=sys.stderr)
                continue
            print(f"  {d.cond_a} − {d.cond_b}: {d.mean:+.4f} nats/token "
                  f"(95% CI {d.ci_low:+.4f} to {d.ci_high:+.4f}, {d.n_tasks} tasks, "
                  f"seed {d.seed})")


PROBES: dict[str, ProbeRegistrar] = {
    "likelihood": register_likelihood,
    **probe_text_cmd.PROBES,  # continuation, similarity, propose-names
}
