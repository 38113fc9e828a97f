"""Local grading: in this process with the caller's harness, or in a few worker processes.

`grade_job` is the one grading function of every executor (the Ray actors call it too): it
runs `grading.grade_output` (through the grader's grade cache, `grade_cache`, unless the job
turns it off) and the reference's own behavior check, and turns a crash into an
infrastructure error with its traceback, as the benchmark always recorded it. A grade that a
wall-clock limit ended is graded once more; one that ends so again makes the case an
infrastructure outcome (`grade_cache.wall_limit`): its grades are kept, it never passes, and
its record says `infra_kind: wall_clock`, which the report leaves out of every rate and lists.
"""

from __future__ import annotations

import os
import time
import traceback
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import replace
from typing import Any

from alias_fixtures.grading.executors.base import (
    DEFAULT_RETRIES,
    CoverageLedger,
    GradeJob,
    GradeResult,
    failed_result,
    take_ready,
    variant_key,
)
from alias_fixtures.grading.grade import ReferenceCoverage, grade_output
from alias_fixtures.grading.grade_cache import GradeCache, decided_by_a_clock, wall_limit
from alias_fixtures.tasks.variants import Variant
from tlc_harness.behavior.options import BehaviorOptions
from tlc_harness.behavior.verdicts import BehaviorResult
from tlc_harness.tools.runner import Harness


class ShippedCoverage(ReferenceCoverage):
    """Reference self-checks that came with the jobs; those not shipped are computed here."""

    def __init__(self, harness: Harness, options: BehaviorOptions | None = None) -> None:
        super().__init__(harness, options)
        self.shipped: dict[tuple[str, str, str], BehaviorResult] = {}

    def add(self, variant: Variant, result: BehaviorResult) -> None:
        self.shipped[variant_key(variant)] = result

    def check(self, variant: Variant) -> BehaviorResult:
        shipped = self.shipped.get(variant_key(variant))
        return shipped if shipped is not None else super().check(variant)


class Grader:
    """A harness, its coverage caches (one per behavior options) and its grade cache: what
    grades jobs."""

    def __init__(self, harness: Harness, where: str = "") -> None:
        self.harness = harness
        self.where = where or f"local:{os.getpid()}"
        self._coverage: dict[BehaviorOptions, ShippedCoverage] = {}
        self.grade_cache = GradeCache()

    def coverage(self, options: BehaviorOptions) -> ShippedCoverage:
        if options not in self._coverage:
            self._coverage[options] = ShippedCoverage(self.harness, options)
        return self._coverage[options]

    def grade(self, job: GradeJob) -> GradeResult:
        return grade_job(self, job)


def grade_job(grader: Grader, job: GradeJob) -> GradeResult:
    """Grade one job: the grades, the reference's coverage, or a crash as an infra error."""
    start = time.monotonic()
    coverage = grader.coverage(job.behavior)
    try:
        if job.coverage is not None:
            coverage.add(job.variant, job.coverage)
        grading = grader.grade_cache.grade if job.grade_cache else grade_output
        grades = grading(grader.harness, job.variant, job.reply, coverage=coverage,
                         grades=job.grades, behavior=job.behavior, timeout=job.timeout)
        attempts = 1
        if decided_by_a_clock(grades):
            # a wall-clock guard, not the output, ended a grade: once more (the grade cache
            # keeps no such grade), and if it ends so again the case is an infra outcome
            attempts = 2
            grades = grading(grader.harness, job.variant, job.reply, coverage=coverage,
                             grades=job.grades, behavior=job.behavior, timeout=job.timeout)
        own = coverage.check(job.variant) if job.wants_coverage else None
    except Exception as exc:  # noqa: BLE001 - any crash here is the harness's, recorded
        return GradeResult(job.case_id, None, None, f"{type(exc).__name__}: {exc}",
                           traceback.format_exc(limit=8), seconds=time.monotonic() - start,
                           worker=grader.where)
    clock = None if grades.infra_error else wall_limit(grades)
    return GradeResult(job.case_id, grades, own, grades.infra_error or clock,
                       attempts=attempts, seconds=time.monotonic() - start,
                       worker=grader.where, wall_clock=clock is not None)


# ------------------------------------------------------------------ worker processes
_PROCESS_GRADER: Grader | None = None


def _start_process(options: dict[str, Any]) -> None:
    """Initializer of a worker process: its own harness, closed when the process exits."""
    from multiprocessing.util import Finalize

    global _PROCESS_GRADER  # noqa: PLW0603 - one grader per worker process
    harness = Harness(**options)
    _PROCESS_GRADER = Grader(harness, f"process:{os.getpid()}")
    Finalize(harness, harness.close, exitpriority=10)


def _grade_in_process(job: GradeJob) -> GradeResult:
    assert _PROCESS_GRADER is not None, "worker process without a grader"
    return grade_job(_PROCESS_GRADER, job)


class LocalExecutor:
    """Grading on this machine: in-process (`processes=1`) or in `processes` worker processes."""

    name = "local"

    def __init__(self, *, harness: Callable[[], Harness] | None = None,
                 harness_options: dict[str, Any] | None = None, processes: int = 1,
                 retries: int = DEFAULT_RETRIES) -> None:
        if processes < 1:
            raise ValueError("processes must be at least 1")
        self.processes = processes
        self.retries = retries
        self._harness_factory = harness
        self._harness_options = dict(harness_options or {})
        self._own_harness: Harness | None = None
        self._grader: Grader | None = None
        self._pool: ProcessPoolExecutor | None = None
        self.ledger = CoverageLedger()

    def _in_process(self) -> Grader:
        if self._grader is None:
            if self._harness_factory is not None:
                harness = self._harness_factory()
            else:
                harness = self._own_harness = Harness(**self._harness_options)
            self._grader = Grader(harness)
        return self._grader

    def grade(self, job: GradeJob) -> GradeResult:
        if self.processes == 1:
            return self._in_process().grade(job)
        return next(iter(self.grade_all([job])))

    def grade_all(self, jobs: Iterable[GradeJob]) -> Iterator[GradeResult]:
        if self.processes == 1:
            grader = self._in_process()
            for job in jobs:
                yield grader.grade(job)
            return
        yield from self._grade_in_pool(list(jobs))

    def _new_pool(self) -> ProcessPoolExecutor:
        import multiprocessing

        # spawn: the parent may hold JVM worker threads, which a fork would copy half-way
        return ProcessPoolExecutor(self.processes, mp_context=multiprocessing.get_context("spawn"),
                                   initializer=_start_process, initargs=(self._harness_options,))

    def _grade_in_pool(self, jobs: list[GradeJob]) -> Iterator[GradeResult]:
        pending: list[tuple[GradeJob, int]] = [(job, 0) for job in jobs]
        running: dict[Future[GradeResult], tuple[GradeJob, int]] = {}
        try:
            while pending or running:
                if self._pool is None:
                    self._pool = self._new_pool()
                while len(running) < self.processes and (ready := take_ready(pending,
                                                                             self.ledger)):
                    job, attempt = ready
                    sent = self.ledger.claim(job)
                    running[self._pool.submit(_grade_in_process, sent)] = (sent, attempt)
                done, _ = wait(list(running), return_when=FIRST_COMPLETED)
                for future in done:
                    job, attempt = running.pop(future)
                    try:
                        result = future.result()
                    except BrokenProcessPool as exc:  # a worker process died
                        self.ledger.settle(job, None)
                        self._discard_pool()
                        if attempt < self.retries:
                            pending.insert(0, (job, attempt + 1))
                        else:
                            yield failed_result(job, f"worker process died ({exc})", attempt + 1)
                        continue
                    self.ledger.settle(job, result)
                    yield replace(result, attempts=attempt + 1)
        finally:
            if running:  # interrupted: stop the work still running
                self._discard_pool(kill=True)

    def _discard_pool(self, *, kill: bool = False) -> None:
        pool, self._pool = self._pool, None
        if pool is None:
            return
        if kill:
            # concurrent.futures has no public way to stop running work; its worker processes
            # are ended here, and their JVMs die with them (each JVM watches its parent)
            for process in list(getattr(pool, "_processes", {}).values()):
                process.terminate()
        pool.shutdown(wait=not kill, cancel_futures=True)

    def close(self) -> None:
        self._discard_pool()
        self._grader = None
        if self._own_harness is not None:
            self._own_harness.close()
            self._own_harness = None
