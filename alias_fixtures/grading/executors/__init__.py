"""Grading executors: where a case's output is graded — in this process, or on a Ray cluster.

An executor takes grading jobs (a verified variant, the model's reply, the grades wanted) and
gives grade results: the frozen `CaseGrades` of `alias_fixtures.grading.grade`, the reference's own
behavior check (coverage), or an infrastructure error. Every executor grades with the same
function (`local.grade_job`), so verdicts do not depend on where a case was graded.

`make_executor("local" | "ray" | "ray:ADDRESS", ...)` picks one; Ray is imported only for the
`ray` executors.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from alias_fixtures.grading.executors.base import (
    DEFAULT_RETRIES,
    EXECUTORS,
    RAY_MISSING,
    CoverageLedger,
    ExecutorError,
    GradeJob,
    GradeResult,
    GradingExecutor,
    apply_result,
    failed_result,
    parse_executor,
    require_ray,
    take_ready,
    variant_key,
)

if TYPE_CHECKING:
    from tlc_harness.tools.runner import Harness


def make_executor(spec: str, *, harness: Callable[[], Harness] | None = None,
                  harness_options: dict[str, Any] | None = None, workers: int | None = None,
                  retries: int = DEFAULT_RETRIES, ray_init: dict[str, Any] | None = None,
                  expected_jar_sha256: str | None = None) -> GradingExecutor:
    """An executor from its spec. `harness`: the caller's own harness, used by an in-process
    local executor; `harness_options`: `Harness(**options)` for graders in other processes;
    `workers`: graders (local processes, Ray actors; default 1 local, the cluster's CPUs);
    `expected_jar_sha256`: the tla2tools jar every Ray actor must have (verdicts comparable)."""
    kind, address = parse_executor(spec)
    options = dict(harness_options or {})
    if kind == "local":
        from alias_fixtures.grading.executors.local import LocalExecutor

        return LocalExecutor(harness=harness, harness_options=options, processes=workers or 1,
                             retries=retries)
    from alias_fixtures.grading.executors.ray_pool import RayExecutor

    return RayExecutor(address, actors=workers, harness_options=options, retries=retries,
                       init_options=ray_init, expected_jar_sha256=expected_jar_sha256)


__all__ = [
    "CoverageLedger",
    "DEFAULT_RETRIES",
    "EXECUTORS",
    "ExecutorError",
    "GradeJob",
    "GradeResult",
    "GradingExecutor",
    "RAY_MISSING",
    "apply_result",
    "failed_result",
    "make_executor",
    "parse_executor",
    "require_ray",
    "take_ready",
    "variant_key",
]
