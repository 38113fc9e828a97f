"""The rule each numeric run setting's value must follow, one table shared by the plugin's
options (argparse `type=` at registration, and `options.check_settings` for ini values and the
inspect task's parameters) and the CLI's arguments (`alias-bench grade`, `regrade`).

No pytest import: the CLI reads it too.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class ValueRule:
    """How a setting's text becomes its value, and what the value must satisfy."""

    convert: Callable[[str], float]   # int or float
    holds: Callable[[float], bool]
    problem: str                      # said when it does not hold


VALUE_RULES: dict[str, ValueRule] = {  # option name (without `--alias-`) -> rule
    "samples": ValueRule(int, lambda v: v >= 1, "must be at least 1"),
    "turns": ValueRule(int, lambda v: v >= 1, "must be at least 1"),
    "mappings": ValueRule(int, lambda v: v >= 1, "must be at least 1"),
    "graph-budget": ValueRule(int, lambda v: v >= 2, "must be at least 2"),
    "behavior-budget": ValueRule(float, lambda v: v >= 0,
                                 "must be 0 (no budget) or more seconds"),
    "timeout": ValueRule(float, lambda v: v > 0, "must be more than 0 seconds"),
}


def value_problem(name: str, value: float) -> str | None:
    """What is wrong with a setting's value, or None (also for a setting without a rule)."""
    rule = VALUE_RULES.get(name)
    return None if rule is None or rule.holds(value) else rule.problem


def setting_type(name: str) -> Callable[[str], float]:
    """An argparse `type=` for the setting: its value, or ArgumentTypeError with the problem
    (argparse prints `argument --NAME: PROBLEM` and exits 2)."""
    rule = VALUE_RULES[name]

    def parse(text: str) -> float:
        try:
            value = rule.convert(text)
        except ValueError:
            kind = "a whole number" if rule.convert is int else "a number"
            raise argparse.ArgumentTypeError(f"must be {kind}, not {text!r}") from None
        if not rule.holds(value):
            raise argparse.ArgumentTypeError(rule.problem)
        return value

    parse.__name__ = name
    return parse
