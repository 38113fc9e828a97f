"""Representation controls: the reference with its state laid out otherwise (one record, a step
counter beside it, a derived variable dropped, booleans as 0/1 or strings, model values as
strings) must be accepted; the same layouts of a behavior mutant must be rejected.

Variants that TLC does not confirm are not graded; `representation_variants` reports why. A
mutant is laid out only when its graph is small enough (explored under the generator's state
budget first, so an unbounded mutant costs one bounded run).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from alias_fixtures.grading.controls import ControlResult, reference, seeded_mutants
from alias_fixtures.tasks.task import Task
from tlc_harness.behavior.engine import grade_behavior
from tlc_harness.behavior.graphs import explore
from tlc_harness.behavior.mutants import behaves_differently
from tlc_harness.behavior.options import BehaviorOptions
from tlc_harness.behavior.representations import (
    ALL_KINDS,
    RepresentationVariant,
    representation_variants,
)
from tlc_harness.tools.runner import Harness
from tlc_harness.tools.spec import SpecSource

MAX_STATES = 2000  # reachable states a reference (or mutant) may have to be laid out


def _graded(harness: Harness, task: Task, kind: str, must_accept: bool,
            variant: RepresentationVariant, detail: str,
            options: BehaviorOptions | None) -> ControlResult:
    # a control measures the grader, not a study's wall time: no per-output budget
    result = grade_behavior(harness, reference(task), variant.files, variant.main,
                            (options or BehaviorOptions()).without_budget())
    mapping = result.details.get("mapping_tla") or result.mapping
    text = "; ".join(x for x in (detail, result.reason, f"mapping: {mapping}" if mapping else "")
                     if x)
    return ControlResult(task.id, kind, must_accept, result.verdict, result.seconds, text)


def task_variants(harness: Harness, task: Task, files: Mapping[str, str] | None = None, *,
                  kinds: Sequence[str] = ALL_KINDS, max_states: int = MAX_STATES,
                  check_fairness: bool = True) -> list[RepresentationVariant]:
    """The representation variants of the task's reference (or of `files`, a mutant of it)."""
    return representation_variants(harness, dict(files or task.modules), task.main_module,
                                   task.cfg, task.tlc_args, kinds=kinds, max_states=max_states,
                                   check_fairness=check_fairness)


def representation_controls(harness: Harness, task: Task,
                            options: BehaviorOptions | None = None, *,
                            variants: Sequence[RepresentationVariant] | None = None
                            ) -> list[ControlResult]:
    """Every verified representation variant of the reference, graded (must be accepted)."""
    made = task_variants(harness, task) if variants is None else variants
    return [_graded(harness, task, f"representation:{v.kind}", True, v, v.reason, options)
            for v in made if v.verified]


def representation_mutant_controls(harness: Harness, task: Task, *, seed: int = 0,
                                   tries: int = 6, keep: int = 1,
                                   options: BehaviorOptions | None = None,
                                   kinds: Sequence[str] = ALL_KINDS,
                                   check_fairness: bool = True
                                   ) -> tuple[list[ControlResult], int]:
    """The layouts of up to `keep` mutants that behave differently (and have a verified
    variant), graded (must be rejected); and how many mutants were made."""
    made, states = seeded_mutants(harness, task, seed=seed, tries=tries)
    if states is None:
        return [], 0
    results: list[ControlResult] = []
    kept = 0
    for mutant in made:
        if kept >= keep:
            break
        files = {**task.modules, task.main_file: mutant.text}
        small = explore(harness, SpecSource(task.main_module, files), task.cfg,
                        tlc_args=task.tlc_args, budget=MAX_STATES + 1)
        if small.graph is None or not behaves_differently(
                harness, task.modules, task.cfg, mutant, states,
                tlc_args=task.tlc_args):
            continue
        verified = [v for v in task_variants(harness, task, files, kinds=kinds,
                                             check_fairness=check_fairness) if v.verified]
        kept += bool(verified)
        results += [_graded(harness, task, f"representation-mutant:{v.kind}", False, v,
                            f"{mutant.kind} at {mutant.site}", options) for v in verified]
    return results, len(made)
