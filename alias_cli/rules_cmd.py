"""`alias-bench rules`: what the behavior grade applies, from its registries: the representation
rules (with the tasks their controls run on), the engine policies, the graph engine's retries,
the verdicts with their reason codes, the soundness classes and the sources of constants'
values."""

from __future__ import annotations

import argparse
import textwrap
from typing import Any

from alias_cli.common import print_json


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("rules", help="list the behavior grade's representation rules, policies "
                       "and verdicts",
                       description="List what the behavior grade applies: each representation "
                       "rule (when it applies, what it converts, what in the grade undoes it, "
                       "the built-in tasks its controls run on), the engines each "
                       "--behavior-engine choice tries in order, the graph engine's retries, "
                       "and every verdict with its reason codes.")
    p.add_argument("--json", action="store_true", help="print JSON instead of text")
    p.set_defaults(func=run)


def registry() -> dict[str, Any]:
    """The registries as plain data."""
    from tlc_harness.behavior.checks import MAPPING_FREE
    from tlc_harness.behavior.graph_engine.grade import RETRIES
    from tlc_harness.behavior.policy import POLICIES
    from tlc_harness.behavior.rules import RULES
    from tlc_harness.behavior.verdicts import (
        BehaviorVerdict,
        Reason,
        Soundness,
        ValueSource,
        reasons_of,
    )

    return {
        "representation_rules": [
            {"name": r.name, "applies": r.applies, "converts": r.converts,
             "undone_by": list(r.undone_by), "control_tasks": list(r.control_tasks)}
            for r in RULES.values()],
        "policies": {name: [s.engine for s in steps] for name, steps in POLICIES.items()},
        "graph_retries": dict(RETRIES),
        "mapping_free_checks": dict(MAPPING_FREE),
        "verdicts": {v.value: [c.value for c in reasons_of(v)] for v in BehaviorVerdict},
        "reason_codes": {c.value: c.meaning for c in Reason},
        "soundness_classes": {c.value: c.meaning for c in Soundness},
        "value_sources": {s.value: s.meaning for s in ValueSource},
    }


def _wrap(label: str, text: str) -> list[str]:
    return textwrap.wrap(text, width=96, initial_indent=f"    {label:<12}",
                         subsequent_indent=" " * 16)


def run(args: argparse.Namespace) -> int:
    data = registry()
    if args.json:
        print_json(data)
        return 0
    lines = ["Representation rules (controls: `benchmarks/test_representation_controls.py`)"]
    for rule in data["representation_rules"]:
        lines += [f"  {rule['name']}", *_wrap("applies:", rule["applies"]),
                  *_wrap("converts:", rule["converts"]),
                  *_wrap("undone by:", ", ".join(rule["undone_by"])),
                  *_wrap("controls:", ", ".join(rule["control_tasks"]))]
    lines += ["", "Engine policies (--behavior-engine: the engines tried, in order)"]
    lines += [f"  {name:<10}{' -> '.join(steps)}" for name, steps in data["policies"].items()]
    lines += ["", "Graph engine retries"]
    for name, what in data["graph_retries"].items():
        lines += [f"  {name}", *_wrap("", what)]
    lines += ["", "Checks that need no mapping (a reverse failure under any mapping)"]
    for name, what in data["mapping_free_checks"].items():
        lines += [f"  {name}", *_wrap("", what)]
    lines += ["", "Verdicts and their reason codes"]
    for verdict, codes in data["verdicts"].items():
        lines.append(f"  {verdict}")
        lines += [f"    {code:<24}{data['reason_codes'][code]}" for code in codes]
    lines += ["", "Soundness classes (every decided verdict has one; an ok only justified)"]
    lines += [f"  {name:<22}{what}" for name, what in data["soundness_classes"].items()]
    lines += ["", "Sources of the values an output's constants take"]
    lines += [f"  {name:<22}{what}" for name, what in data["value_sources"].items()]
    print("\n".join(lines))
    return 0
