"""The executor interface: grading jobs, grade results, the coverage ledger, and how a result
is written into a case record (every executor shares these)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Protocol

from alias_fixtures.grading.grade import CaseGrades
from alias_fixtures.tasks.variants import Variant
from reports.schema import GRADES, WALL_CLOCK
from tlc_harness.behavior.options import BehaviorOptions

if TYPE_CHECKING:
    from tlc_harness.behavior.verdicts import BehaviorResult

EXECUTORS = ("local", "ray")
DEFAULT_RETRIES = 2
"""Times a job is tried again after its grader (actor, process, node) died under it."""
RAY_MISSING = "the ray executor needs Ray: pip install 'alias-bench[ray]'"


class ExecutorError(RuntimeError):
    """An executor cannot be made or started (bad spec, Ray missing, no cluster)."""


@dataclass(frozen=True)
class GradeJob:
    """One output to grade against one verified variant."""

    case_id: str
    variant: Variant
    reply: str
    grades: tuple[str, ...] = GRADES
    behavior: BehaviorOptions = field(default_factory=BehaviorOptions)
    timeout: float | None = None
    coverage: BehaviorResult | None = None  # the reference's own check, when already known
    grade_cache: bool = True  # read and keep the grades in the grade cache (`grade_cache`)

    @property
    def coverage_key(self) -> tuple[str, str, str, BehaviorOptions]:
        return (*variant_key(self.variant), self.behavior)

    @property
    def wants_coverage(self) -> bool:
        return "behavior" in self.grades


@dataclass(frozen=True)
class GradeResult:
    """What grading one job gave; `grades` is None only when grading itself crashed."""

    case_id: str
    grades: CaseGrades | None
    coverage: BehaviorResult | None = None
    infra_error: str | None = None
    traceback: str | None = None
    attempts: int = 1
    seconds: float = 0.0
    worker: str = ""
    wall_clock: bool = False  # `infra_error` says a wall-clock limit ended a grade twice

    @property
    def covered(self) -> bool | None:
        return None if self.coverage is None else self.coverage.passed


class GradingExecutor(Protocol):
    """Grades jobs; `grade_all` yields results in completion order."""

    name: str

    def grade(self, job: GradeJob) -> GradeResult:
        """Grade one job and wait for its result."""

    def grade_all(self, jobs: Iterable[GradeJob]) -> Iterator[GradeResult]:
        """Grade many jobs, each result as soon as it is known (not in job order)."""

    def close(self) -> None:
        """Stop the graders (and their JVMs); interrupted work is dropped, never recorded."""


def variant_key(variant: Variant) -> tuple[str, str, str]:
    """What identifies a variant's reference (as `ReferenceCoverage` keys it)."""
    return variant.task_id, variant.condition, str(sorted(variant.rename_map.items()))


def parse_executor(spec: str) -> tuple[str, str | None]:
    """`local` -> ("local", None); `ray` -> ("ray", None); `ray:ADDRESS` -> ("ray", ADDRESS)."""
    kind, _, address = spec.strip().partition(":")
    if kind not in EXECUTORS or (kind == "local" and address) or (
            kind == "ray" and ":" in spec and not address):
        raise ExecutorError(f"executor must be local, ray or ray:ADDRESS, not {spec!r}")
    return kind, address or None


def require_ray(spec: str) -> None:
    """Fail early (before any case) when a ray executor is asked for and Ray is missing."""
    from importlib.util import find_spec

    if parse_executor(spec)[0] == "ray" and find_spec("ray") is None:
        raise ExecutorError(RAY_MISSING)


class CoverageLedger:
    """Reference self-checks learned from results, shipped with later jobs of that variant.

    While the first job of a variant is computing its coverage, other jobs of that variant
    wait (`ready` is false), so each reference is checked once per executor, not per grader."""

    def __init__(self) -> None:
        self.known: dict[tuple[Any, ...], BehaviorResult] = {}
        self._computing: set[tuple[Any, ...]] = set()

    def ready(self, job: GradeJob) -> bool:
        key = job.coverage_key
        return not job.wants_coverage or key in self.known or key not in self._computing

    def claim(self, job: GradeJob) -> GradeJob:
        """The job as it is sent: with the known coverage, or marked as computing it."""
        if not job.wants_coverage or job.coverage is not None:
            return job
        known = self.known.get(job.coverage_key)
        if known is not None:
            return replace(job, coverage=known)
        self._computing.add(job.coverage_key)
        return job

    def settle(self, job: GradeJob, result: GradeResult | None) -> None:
        """A sent job ended (`result` None: it failed and will be tried again)."""
        key = job.coverage_key
        if result is not None and result.coverage is not None:
            self.known.setdefault(key, result.coverage)
        self._computing.discard(key)


def take_ready(pending: list[tuple[GradeJob, int]], ledger: CoverageLedger
               ) -> tuple[GradeJob, int] | None:
    """Remove and return the first pending (job, attempt) whose coverage is not being computed."""
    for index, (job, attempt) in enumerate(pending):
        if ledger.ready(job):
            del pending[index]
            return job, attempt
    return None


def failed_result(job: GradeJob, why: str, attempts: int) -> GradeResult:
    """A job that kept failing: an infrastructure error, never dropped and never a pass."""
    return GradeResult(job.case_id, None, None, f"grader failed {attempts} time(s): {why}",
                       attempts=attempts)


def apply_result(record: dict[str, Any], result: GradeResult, grades: tuple[str, ...]) -> None:
    """Write a result's grade fields into a case record (as local grading always has)."""
    if result.grades is None:
        record["infra_error"] = result.infra_error or "grading failed"
        if result.traceback:
            record["traceback"] = result.traceback
        return
    record["grades"] = result.grades.to_json()
    if result.grades.cached:  # graded before, under the same key: its seconds are that run's
        record["grader"] = {**record.get("grader", {}), "cached": True}
    if "behavior" in grades and result.covered is not None:
        # coverage belongs to the reference: recorded even when the output failed early
        record["grades"]["behavior"]["covered"] = result.covered
    record["module"] = result.grades.module_name
    record["infra_error"] = result.infra_error  # the tools', or a wall-clock limit's
    if result.wall_clock:  # out of every rate, listed (reports.records)
        record["infra_kind"] = WALL_CLOCK


__all__ = ["DEFAULT_RETRIES", "EXECUTORS", "RAY_MISSING", "CoverageLedger", "ExecutorError",
           "GradeJob", "GradeResult", "GradingExecutor", "apply_result", "failed_result",
           "parse_executor", "require_ray", "take_ready", "variant_key"]
