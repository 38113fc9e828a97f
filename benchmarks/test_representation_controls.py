"""Representation controls, generated from the rule registry (`tlc_harness.behavior.rules`):
every verified layout of a reference under each representation rule (one record, a step
counter, a derived variable dropped, booleans as 0/1 or strings, model values as strings, ...)
is accepted; the same layouts of a behavior mutant are rejected.

One case per (rule, task). CI runs each rule on its own `control_tasks`, where the layout must
be made and verified (a rule whose controls cannot be made fails); `ALIAS_FULL_CONTROLS=1` (or
`tox -e full`) runs every rule on every built-in task, skipping a task the rule does not apply
to, with the generator's reason.
"""

from __future__ import annotations

import importlib
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
from tlc_harness.behavior.representations import RepresentationVariant
from tlc_harness.behavior.rules import RULES
from tlc_harness.tools.runner import Harness

FULL = bool(os.environ.get("ALIAS_FULL_CONTROLS"))
#: the tasks CI runs: every rule's control tasks
CI_SAMPLE = tuple(sorted({t for rule in RULES.values() for t in rule.control_tasks}))
TASKS = {t.id: t for t in builtin_tasks() if FULL or t.id in CI_SAMPLE}
OPTIONS = BehaviorOptions(engine="graphs")
#: (task, layout) -> why the grader is wrong there (strict: a fixed grader turns them red)
WRONG_REJECTIONS: dict[tuple[str, str], str] = {}
WRONG_ACCEPTANCES: dict[tuple[str, str], str] = {}

_variants: dict[str, dict[str, RepresentationVariant]] = {}
_mutants: dict[str, tuple[list[ControlResult], int]] = {}


def _cases(known: dict[tuple[str, str], str]) -> Iterator[Any]:
    for kind, rule in RULES.items():
        for task_id in sorted(TASKS) if FULL else rule.control_tasks:
            why = known.get((task_id, kind))
            marks = [pytest.mark.slow]  # up to minutes each: opt-in (--alias-slow), run by CI
            marks += [pytest.mark.xfail(strict=True, reason=why)] if why else []
            yield pytest.param(task_id, kind, marks=marks, id=f"{task_id}-{kind}")


def _must_apply(task_id: str, kind: str) -> bool:
    """Whether the rule's layout must be made for the task: it is one of its control tasks."""
    return task_id in RULES[kind].control_tasks


def test_every_rule_has_control_tasks_among_the_built_in_tasks() -> None:
    known = {t.id for t in builtin_tasks()}
    for rule in RULES.values():
        assert rule.control_tasks, rule.name
        assert set(rule.control_tasks) <= known, (rule.name, rule.control_tasks)


def test_every_rule_names_the_pieces_of_the_grade_that_undo_it() -> None:
    for rule in RULES.values():
        for dotted in rule.undone_by:
            module, _, name = dotted.rpartition(".")
            found = importlib.import_module(f"tlc_harness.behavior.{module}")
            assert hasattr(found, name), f"{rule.name}: {dotted} does not exist"


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
    if not variant.made and not _must_apply(task_id, kind):
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
    if not mine and not _must_apply(task_id, kind):
        pytest.skip(f"the kept mutant has no {kind} layout")
    assert mine, f"the kept mutant has no verified {kind} layout"
    wrong = [f"{r.verdict}: {r.detail}" for r in mine if not r.correct]
    assert not wrong, wrong
