"""The grader's positive and negative controls.

Positives must be accepted by the behavior grade: each reference against itself, each verified
renamed reference against the original, and copies whose operators (only) are renamed.
Negatives must be rejected: mutants that change one number, comparison, initial value, guard or
disjunct of a reference, kept only when TLC reports a different number of reachable states.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from alias_fixtures.tasks.task import Task
from alias_fixtures.tasks.variants import PROMPT_NAMES, build_variant, check_original
from tlc_harness.behavior.engine import grade_behavior
from tlc_harness.behavior.mutants import Mutant, behaves_differently, mutants
from tlc_harness.behavior.options import BehaviorOptions
from tlc_harness.behavior.staging import Reference
from tlc_harness.source.rename import random_rename_map, rename_modules, renameable_names
from tlc_harness.tools.runner import Harness


@dataclass(frozen=True)
class ControlResult:
    """One control: what the behavior grade said and whether that is what it must say."""

    task_id: str
    kind: str            # self | renamed | operators | mutant
    must_accept: bool
    verdict: str
    seconds: float
    detail: str = ""
    tlc_runs: int = 0
    engine: str = ""     # the engine that decided (graphs, or wrappers)

    @property
    def correct(self) -> bool:
        return (self.verdict == "ok") == self.must_accept

    def to_json(self) -> dict[str, Any]:
        return {**self.__dict__, "correct": self.correct}


def reference(task: Task) -> Reference:
    return Reference(task.main_module, dict(task.modules), task.cfg, task.tlc_args)


def _grade(harness: Harness, task: Task, kind: str, must_accept: bool, files: dict[str, str],
           main: str, detail: str = "", options: BehaviorOptions | None = None
           ) -> ControlResult:
    # a control measures the grader, not a study's wall time: no per-output budget
    result = grade_behavior(harness, reference(task), files, main,
                            (options or BehaviorOptions()).without_budget())
    return ControlResult(task.id, kind, must_accept, result.verdict, result.seconds,
                         (detail + "; " if detail else "") + result.reason, result.tlc_runs,
                         result.engine)


def self_control(harness: Harness, task: Task, options: BehaviorOptions | None = None
                 ) -> ControlResult:
    """The reference against itself (defines the grade's coverage)."""
    return _grade(harness, task, "self", True, dict(task.modules), task.main_module,
                  options=options)


def renamed_control(harness: Harness, task: Task, seed: int | str = 0,
                    options: BehaviorOptions | None = None) -> ControlResult | None:
    """The verified random variant's reference against the original (None: not verified)."""
    variant, check = build_variant(harness, task, "random", seed=seed)
    if variant is None or not check.verified:
        return None
    return _grade(harness, task, "renamed", True, dict(variant.modules), variant.main_module,
                  f"{len(variant.rename_map)} names renamed", options)


def operator_names(task: Task) -> list[str]:
    """Operators of the task that a copy may rename (not Init/Next/Spec)."""
    kinds = renameable_names(task.modules)
    return sorted(n for n, k in kinds.items() if k == "operator" and n not in PROMPT_NAMES)


def operator_renamed_control(harness: Harness, task: Task, chosen: list[str],
                             seed: int, options: BehaviorOptions | None = None
                             ) -> ControlResult:
    """A copy with the `chosen` operators renamed (same length, seeded) against the original."""
    keep = set(renameable_names(task.modules)) - set(chosen)
    mapping = random_rename_map(task.modules, seed, keep=keep, cfg_text=task.cfg_text).mapping
    files = rename_modules(task.modules, mapping)
    return _grade(harness, task, "operators", True, files, task.main_module,
                  "renamed " + ", ".join(f"{k}->{v}" for k, v in sorted(mapping.items())),
                  options)


#: a mutant's TLC run may take this many times the original's (and at least MUTANT_MIN_SECONDS);
#: a mutant that runs longer has blown up the state space and is not kept (its count is unknown)
MUTANT_TIME_FACTOR = 10
MUTANT_MIN_SECONDS = 20.0


def _seeded(harness: Harness, task: Task, seed: int, tries: int
            ) -> tuple[list[Mutant], int | None, float]:
    original = check_original(harness, task)
    if original.distinct_states is None:
        return [], None, 0.0
    rng = random.Random(f"{seed}:{task.id}")
    limit = max(MUTANT_MIN_SECONDS, MUTANT_TIME_FACTOR * original.seconds)
    return mutants(task.modules[task.main_file], rng, tries, cfg=task.cfg), \
        original.distinct_states, limit


def seeded_mutants(harness: Harness, task: Task, *, seed: int = 0, tries: int = 6
                   ) -> tuple[list[Mutant], int | None]:
    """The mutants of the task's main module (seeded per task), and the original's
    distinct-state count that a kept mutant must differ from (None: no mutant can be kept)."""
    made, states, _ = _seeded(harness, task, seed, tries)
    return made, states


def mutant_controls(harness: Harness, task: Task, *, seed: int = 0, tries: int = 6,
                    keep: int = 3, options: BehaviorOptions | None = None
                    ) -> tuple[list[ControlResult], int]:
    """Graded mutants of the main module that behave differently; and how many were made."""
    made, states, limit = _seeded(harness, task, seed, tries)
    if states is None:
        return [], 0
    results: list[ControlResult] = []
    for mutant in made:
        if len(results) >= keep:
            break
        if not behaves_differently(harness, task.modules, task.cfg, mutant, states,
                                   tlc_args=task.tlc_args, timeout=limit):
            continue
        files = {**task.modules, task.main_file: mutant.text}
        graded = _grade(harness, task, "mutant", False, files, task.main_module,
                        f"{mutant.kind} at {mutant.site}", options)
        results.append(graded)
    return results, len(made)
