"""`alias-bench check MODULE.tla [--cfg F]`: parse with SANY, then model-check with TLC."""

from __future__ import annotations

import argparse
from pathlib import Path

from alias_cli.common import ToolchainError, add_tool_options, fail, harness_from, print_json
from tlc_harness.source.cfg import CfgError
from tlc_harness.tools.results import CheckResult, ParseResult, Verdict
from tlc_harness.tools.spec import SpecInputError, SpecSource


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("check", help="parse and model-check one TLA+ module",
                       description="Parse MODULE.tla with SANY and check it with TLC. Exit status: "
                       "0 the check passed, 1 the spec failed, 2 usage or infrastructure error.")
    p.add_argument("module", help="the .tla file (other .tla files beside it may be imported)")
    p.add_argument("--cfg", help="TLC model (default: MODULE.cfg beside the module)")
    p.add_argument("--timeout", type=float, default=300.0, help="TLC time limit in s (300)")
    p.add_argument("--workers", type=int, default=1, help="TLC -workers (1)")
    p.add_argument("--tlc-arg", action="append", default=[], metavar="ARG",
                   help="extra TLC argument, e.g. --tlc-arg=-deadlock (repeatable)")
    p.add_argument("--json", action="store_true", help="print JSON instead of text")
    add_tool_options(p, backend="fresh")  # one run: a JVM worker would not pay for itself
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    module = Path(args.module)
    cfg = Path(args.cfg) if args.cfg else module.with_suffix(".cfg")
    if module.suffix != ".tla":
        return fail(f"{module}: expected a .tla file")
    if not module.is_file():
        return fail(f"{module}: no such file")
    if not cfg.is_file():
        return fail(f"no cfg: {cfg} does not exist (give one with --cfg)")
    try:
        spec = SpecSource.from_path(module)
        with harness_from(args, tlc_timeout=args.timeout, workers=args.workers) as harness:
            # TLC parses the module itself: SANY runs on its own only to list the errors TLC
            # stopped at (one JVM, not two, for a module that parses).
            checked = harness.check(spec, cfg, tlc_args=args.tlc_arg)
            if checked.verdict in (Verdict.PARSE_ERROR, Verdict.INFRA_ERROR):
                parsed = harness.parse(spec)
            else:
                parsed = ParseResult(True, spec.main, (), (), None, 0.0, "",
                                     backend=checked.backend, parsed_by="tlc")
            tools = harness.toolchain.describe()
    except (SpecInputError, ToolchainError, CfgError, OSError) as exc:
        return fail(str(exc))
    if args.json:
        print_json({"module": spec.main, "parse": parsed.to_json(), "check": checked.to_json(),
                    "toolchain": tools})
    else:
        print(render(parsed, checked))
    if parsed.infra_error or checked.verdict is Verdict.INFRA_ERROR:
        return 2
    return 0 if parsed.ok and checked.passed else 1


def render(parsed: ParseResult, checked: CheckResult) -> str:
    """A short human-readable report."""
    took = "by TLC, in the check" if parsed.parsed_by == "tlc" else f"{parsed.seconds:.2f} s"
    lines = [f"parse  {'ok' if parsed.ok else 'FAILED'}  ({took})"]
    lines += [f"  error: {e}" for e in parsed.errors[:10]]
    lines += [f"  warning: {w}" for w in parsed.warnings[:5]]
    verdict = checked.verdict.value
    if checked.violated:
        verdict += f" ({checked.violated})"
    if checked.missing_names:
        verdict += f" (missing: {', '.join(checked.missing_names)})"
    if checked.vacuous:
        verdict += " (VACUOUS: no initial state)"
    counts = ""
    if checked.distinct_states is not None:
        counts = f"  {checked.distinct_states:,} distinct / {checked.generated_states or 0:,} " \
                 f"generated states" + (f", depth {checked.depth}" if checked.depth else "")
        if checked.partial:
            counts += " (partial)"
    lines.append(f"check  {verdict}{counts}  ({checked.seconds:.2f} s, {checked.backend})")
    if checked.detail and not checked.passed:
        lines.append("  " + checked.detail.strip().replace("\n", "\n  ")[:1500])
    for note in checked.notes:
        lines.append(f"  note: {note}")
    if checked.trace:
        lines.append(f"  counterexample ({len(checked.trace)} states, {checked.trace_kind}):")
        for state in checked.trace[:30]:
            vals = ", ".join(f"{k} = {v}" for k, v in state.variables.items())
            lines.append(f"    {state.number}: {state.action[:60]}  {vals[:200]}")
    return "\n".join(lines)
