"""`alias-bench`: the command line. Each subcommand lives in its own module."""

from __future__ import annotations

import argparse
import signal
import sys
from collections.abc import Sequence

from . import (
    check_cmd,
    experiment_cmd,
    finetune_cmd,
    grade_cmd,
    probe_cmd,
    regrade_cmd,
    rename_cmd,
    report_cmd,
    split_cmd,
    tasks_cmd,
)

EXIT_OK, EXIT_FAIL, EXIT_ERROR = 0, 1, 2


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="alias-bench",
        description="ALIAS: run SANY/TLC, rename TLA+ tasks, grade model outputs.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    check_cmd.register(sub)
    rename_cmd.register(sub)
    grade_cmd.register(sub)
    regrade_cmd.register(sub)
    tasks_cmd.register(sub)
    report_cmd.register(sub)
    probe_cmd.register(sub)
    split_cmd.register(sub)
    finetune_cmd.register(sub)
    experiment_cmd.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `alias-bench ... | head` ends quietly
    parser = build_parser()
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
