"""`alias-bench rename TASK`: make a renamed variant, verify it with SANY and TLC, write it."""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path

from alias_cli.common import ToolchainError, add_tool_options, fail, harness_from, print_json
from alias_cli.task_args import add_task_id, add_task_source, resolve_task
from alias_fixtures.tasks.task import TaskError
from alias_fixtures.tasks.variants import Variant, VariantError, Verification, build_variant
from tlc_harness.source.cfg import CfgError
from tlc_harness.source.rename import RenameError


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("rename", help="make and verify a renamed (CIR) variant of a task",
                       description="Rename every author-defined identifier of a task "
                       "consistently, verify the variant (SANY ok, TLC ok, same distinct-state "
                       "count) and write it. Exit status: 0 verified, 1 not verified, 2 error.")
    p.add_argument("task", help="a task folder, or the id of a built-in task")
    p.add_argument("--condition", choices=("random", "meaningful"), default="random")
    p.add_argument("--maps", help="folder of <task_id>.json name maps (meaningful condition)")
    p.add_argument("--seed", default="0", help="run seed; the task's seed derives from it (0)")
    p.add_argument("--out", help="folder to write the renamed task to (default: ./<id>.<cond>)")
    p.add_argument("--force", action="store_true", help="overwrite a non-empty --out folder")
    p.add_argument("--timeout", type=float, default=300.0, help="TLC time limit in s (300)")
    p.add_argument("--json", action="store_true", help="print JSON instead of text")
    add_task_source(p)
    add_task_id(p)
    add_tool_options(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    try:
        task = resolve_task(args.task, args)
        out = Path(args.out or f"{task.id}.{args.condition}")
        if task.root is not None and out.resolve() == task.root.resolve():
            return fail("--out must not be the task's own folder (task files are never written)")
        if out.exists() and any(out.iterdir()) and not args.force:
            return fail(f"{out} exists and is not empty (use --force to overwrite)")
        with harness_from(args, tlc_timeout=args.timeout) as harness:
            variant, check = build_variant(harness, task, args.condition, seed=args.seed,
                                           maps_dir=args.maps)
    except (TaskError, VariantError, RenameError, CfgError, ToolchainError, OSError) as exc:
        return fail(str(exc))
    if variant is not None and check.verified:
        write_variant(variant, out, source=task.id)
    report = {"task": task.id, "condition": args.condition, "seed": args.seed,
              "verified": check.verified, "original_states": check.original_states,
              "renamed_states": check.renamed_states, "reason": check.reason,
              "map": dict(variant.rename_map) if variant else {},
              "out": str(out) if check.verified else None}
    if args.json:
        print_json(report)
    else:
        print(render(report, variant, check))
    return 0 if check.verified else 1


def write_variant(variant: Variant, out: Path, *, source: str) -> None:
    """Write a renamed task folder (modules, cfg, description, task.toml, the map)."""
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    for name, text in variant.modules.items():
        (out / name).write_text(text, encoding="utf-8")
    (out / f"{variant.main_module}.cfg").write_text(variant.cfg_text, encoding="utf-8")
    if variant.description is not None:
        (out / "description.md").write_text(variant.description + "\n", encoding="utf-8")
    (out / "rename_map.json").write_text(json.dumps(dict(variant.rename_map), indent=1) + "\n")
    toml = [f'id = "{variant.task_id}.{variant.condition}"', f'module = "{variant.main_module}"',
            f'cfg = "{variant.main_module}.cfg"',
            "tlc_args = [" + ", ".join(json.dumps(a) for a in variant.tlc_args) + "]",
            f'source = "ALIAS {variant.condition} variant of task {source}"']
    (out / "task.toml").write_text("\n".join(toml) + "\n", encoding="utf-8")


def render(report: dict[str, object], variant: Variant | None, check: Verification) -> str:
    lines = [f"task {report['task']} ({report['condition']}, seed {report['seed']}): "
             + ("VERIFIED" if check.verified else "NOT VERIFIED")]
    lines.append(f"  distinct states: original {check.original_states}, "
                 f"renamed {check.renamed_states}")
    if check.reason:
        lines.append(f"  reason: {check.reason}")
    if variant:
        width = max((len(k) for k in variant.rename_map), default=0)
        lines += [f"  {old:<{width}} -> {new}" for old, new in sorted(variant.rename_map.items())]
    if report.get("out"):
        lines.append(f"written to {report['out']}")
    return "\n".join(lines)

