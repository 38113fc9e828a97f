"""Representation controls of the graph engine: every verified layout of a reference (one
record, a step counter, a derived variable dropped, booleans as 0/1 or strings, model values as
strings) is accepted; the same layouts of a behavior mutant are rejected.

One case per (task, layout); a layout the task does not allow (no boolean variable, ...) is
skipped with the generator's reason, and `record` and `history` are allowed by every task.
The whole suite takes about an hour on 2 cores, so CI runs a fixed sample of tasks; set
`ALIAS_FULL_CONTROLS=1` (or run `tox -e full`) for every built-in task.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest

from alias_fixtures.grading.controls import ControlResult
from alias_fixtures.grading.representation_controls import (
    representation_controls,
    representation_mutant_controls,
    task_variants,
)
from alias_fixtures.tasks.task import builtin_tasks
from tlc_harness.behavior.options import BehaviorOptions
from tlc_harness.behavior.representations import ALL_KINDS, RepresentationVariant
from tlc_harness.tools.runner import Harness

#: the fixed sample CI runs (a reference with a bag and model values, one with a boolean pair,
#: a PlusCal one with a derived variable)
CI_SAMPLE = ("bank_transfer", "hour_clock", "peterson_mutex")
TASKS = {t.id: t for t in builtin_tasks()
         if os.environ.get("ALIAS_FULL_CONTROLS") or t.id in CI_SAMPLE}
OPTIONS = BehaviorOptions(engine="graphs")
ALWAYS = ("record", "history")  # layouts every reference has
#: (task, layout) -> why the grader is wrong there (strict: a fixed grader turns them red)
WRONG_REJECTIONS: dict[tuple[str, str], str] = {}
WRONG_ACCEPTANCES: dict[tuple[str, str], str] = {}

_variants: dict[str, dict[str, RepresentationVariant]] = {}
_mutants: dict[str, tuple[list[ControlResult], int]] = {}


def _cases(known: dict[tuple[str, str], str]) -> Iterator[Any]:
    for task_id in sorted(TASKS):
        for kind in ALL_KINDS:
            why = known.get((task_id, kind))
            marks = [pytest.mark.xdist_group(task_id)]  # `--dist loadgroup`: made once
            marks += [pytest.mark.xfail(strict=True, reason=why)] if why else []
            yield pytest.param(task_id, kind, marks=marks, id=f"{task_id}-{kind}")


def variants_of(harness: Harness, task_id: str) -> dict[str, RepresentationVariant]:
    """The task's variants, made once per process (every layout of a task at once). Their
    fairness is not checked on its own: the grader's confirming run evaluates it."""
    if task_id not in _variants:
        made = task_variants(harness, TASKS[task_id], check_fairness=False)
        _variants[task_id] = {v.kind: v for v in made}
    return _variants[task_id]


@pytest.mark.parametrize(("task_id", "kind"), list(_cases(WRONG_REJECTIONS)))
def test_representation_variant_accepted(bench_harness: Harness, task_id: str,
                                         kind: str) -> None:
    variant = variants_of(bench_harness, task_id)[kind]
    if not variant.made and kind not in ALWAYS:
        pytest.skip(variant.reason)
    assert variant.verified, f"the {kind} variant is not verified: {variant.reason}"
    results = representation_controls(bench_harness, TASKS[task_id], OPTIONS,
                                      variants=[variant])
    assert len(results) == 1, "no representation variant was graded"
    assert results[0].correct, f"{results[0].verdict}: {results[0].detail}"


@pytest.mark.parametrize(("task_id", "kind"), list(_cases(WRONG_ACCEPTANCES)))
def test_representation_mutant_rejected(bench_harness: Harness, task_id: str,
                                        kind: str) -> None:
    if task_id not in _mutants:
        _mutants[task_id] = representation_mutant_controls(
            bench_harness, TASKS[task_id], seed=0, tries=6, keep=1, options=OPTIONS,
            check_fairness=False)
    results, made = _mutants[task_id]
    assert made > 0, "no mutation site"
    assert results, "no kept mutant has a verified representation variant"
    mine = [r for r in results if r.kind == f"representation-mutant:{kind}"]
    if not mine and kind not in ALWAYS:
        pytest.skip(f"the kept mutant has no {kind} layout")
    assert mine, f"the kept mutant has no verified {kind} layout"
    wrong = [f"{r.verdict}: {r.detail}" for r in mine if not r.correct]
    assert not wrong, wrong
