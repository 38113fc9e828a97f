"""`alias-bench`: the command line. Each subcommand lives in its own module."""

from __future__ import annotations

import argparse
import importlib
import signal
import sys
from collections.abc import Sequence

#: subcommand -> (its module, its one-line help); a module is imported only when its
#: subcommand runs, so `alias-bench --help` and one-shot commands start at once.
COMMANDS: dict[str, tuple[str, str]] = {
    "check": ("alias_cli.check_cmd", "parse and model-check one TLA+ module"),
    "rename": ("alias_cli.rename_cmd", "make and verify a renamed (CIR) variant of a task"),
    "grade": ("alias_cli.grade_cmd", "grade one model output against a task"),
    "rules": ("alias_cli.rules_cmd",
              "list the behavior grade's representation rules, policies and verdicts"),
    "regrade": ("alias_cli.regrade_cmd", "grade a run's saved outputs again (no model calls)"),
    "tasks": ("alias_cli.tasks_cmd", "list tasks, their hidden names and identifier kinds"),
    "report": ("alias_cli.report_cmd",
               "rebuild the report (tables, stats.json, HTML) from results files"),
    "probe": ("alias_cli.probe_cmd", "contamination probes against a local model"),
    "split": ("alias_cli.split_cmd", "exposure split into halves A and B, with training sets"),
    "finetune": ("alias_cli.finetune_cmd", "LoRA fine-tuning on one half of the exposure split"),
    "experiment": ("alias_cli.experiment_cmd",
                   "the exposure experiment: split, train A and B, generate, grade, likelihood, "
                   "report"),
    "cache": ("alias_cli.cache_cmd", "show or clear the grader's cache"),
}
#: options before the subcommand that take a value (skipped when looking for the subcommand)
GLOBAL_VALUES = ("--cache",)


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser. Every subcommand's module is imported, or only `command`'s (another name,
    e.g. "", imports none: enough for the top-level help and for usage errors)."""
    parser = argparse.ArgumentParser(
        prog="alias-bench",
        description="ALIAS: run SANY/TLC, rename TLA+ tasks, grade model outputs.",
    )
    parser.add_argument("--cache", metavar="DIR", default=None,
                        help="root of the grader's cache: explored reference graphs, the "
                        "references' self-checks and the grades of outputs, shared by processes "
                        "and runs (default: "
                        "$XDG_CACHE_HOME/alias, else ~/.cache/alias)")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, (module, help_text) in COMMANDS.items():
        if command is None or command == name:
            importlib.import_module(module).register(sub)
        else:
            sub.add_parser(name, help=help_text)
    return parser


def command_of(argv: Sequence[str]) -> str:
    """The subcommand named on the command line ("" when there is none)."""
    skip = False
    for arg in argv:
        if skip:
            skip = False
        elif arg in GLOBAL_VALUES:
            skip = True
        elif not arg.startswith("-"):
            return arg
    return ""


def main(argv: Sequence[str] | None = None) -> int:
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `alias-bench ... | head` ends quietly
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(command_of(argv))
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse exits 2 on usage errors, 0 on --help
        return int(exc.code or 0)
    try:
        return int(args.func(args))
    except KeyboardInterrupt:
        print("alias-bench: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
