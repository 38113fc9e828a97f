"""Grading on a Ray cluster: a pool of actors, each owning a `Harness` (and its JVM workers).

The driver ships each verified variant and each reference self-check once (`ray.put`) and
sends jobs to idle actors, one job per actor at a time. An actor (or its node) that dies under
a job is replaced and the job is tried again, at most `retries` times; a job that keeps failing
becomes an infrastructure error. Interrupting the driver kills the actors that were busy; an
actor's JVMs die with it (the harness runs them in their own process group, watching their
parent), and `close()` shuts every actor's harness down before ending it.

Ray is imported only here, and only when a `ray` executor is made.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from dataclasses import replace
from types import ModuleType
from typing import Any

from alias_fixtures.grading.executors.base import (
    DEFAULT_RETRIES,
    RAY_MISSING,
    CoverageLedger,
    ExecutorError,
    GradeJob,
    GradeResult,
    failed_result,
    take_ready,
    variant_key,
)
from alias_fixtures.tasks.variants import Variant
from tlc_harness.behavior.options import BehaviorOptions
from tlc_harness.behavior.verdicts import BehaviorResult

LOCAL_RAY_ENV = {
    # a private single-node Ray listens and talks on loopback only
    "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0",
    "RAY_USAGE_STATS_ENABLED": "0",
}
LOCAL_RAY_INIT: dict[str, Any] = {
    "include_dashboard": False, "object_store_memory": 256 * 1024 * 1024,
}
START_TIMEOUT = 600.0   # seconds for the actors to start (placement, Java check)
CLOSE_GRACE = 30.0      # seconds for actors to close their harness before being killed


def import_ray(*, local: bool = False) -> ModuleType:
    """Ray, or a clear error naming the extra to install. `local`: set the loopback-only
    environment first (read by Ray when it is imported and by the processes it starts)."""
    if local:
        for name, value in LOCAL_RAY_ENV.items():
            os.environ.setdefault(name, value)
    try:
        import ray
    except ImportError as exc:
        raise ExecutorError(RAY_MISSING) from exc
    return ray


def start_local_ray(**init_options: Any) -> tuple[str, bool]:
    """A private Ray on this machine with this process as its driver: its address, and
    whether this call started it (False: this process was already connected to a Ray)."""
    ray = import_ray(local=True)
    started = not ray.is_initialized()
    if started:
        # "local": a new instance, even where `ray start` left a cluster this could join
        ray.init(address="local", **{**LOCAL_RAY_INIT, "log_to_driver": False,
                                     **init_options})
    return str(ray.get_runtime_context().gcs_address), started


def _connect(address: str | None, init_options: dict[str, Any]) -> tuple[ModuleType, bool]:
    """Ray connected to `address` (None: RAY_ADDRESS, else a private local Ray); whether this
    call made the connection (and so `close` ends it)."""
    local = address is None and not os.environ.get("RAY_ADDRESS")
    ray = import_ray(local=local)
    if ray.is_initialized():
        return ray, False
    try:
        if local:
            start_local_ray(**init_options)
        else:
            ray.init(address=address, **{"log_to_driver": False, **init_options})
    except (ConnectionError, RuntimeError, ValueError) as exc:
        where = address or os.environ.get("RAY_ADDRESS")
        raise ExecutorError(f"cannot connect to the Ray cluster at {where}: {exc}") from exc
    return ray, True


class GraderActor:
    """One Ray actor: a harness and its coverage caches; grades one job at a time."""

    def __init__(self, harness_options: dict[str, Any]) -> None:
        from alias_fixtures.grading.executors.local import Grader
        from tlc_harness.tools.runner import Harness

        self.harness = Harness(**harness_options)
        self.where = f"ray:{_node_ip()}:{os.getpid()}"
        self.grader = Grader(self.harness, self.where)

    def describe(self) -> dict[str, Any]:
        """Where the actor runs and with which Java and jar (checked by the driver)."""
        return {"where": self.where, "pid": os.getpid(), **self.harness.toolchain.describe()}

    def grade(self, variant: Variant, case_id: str, reply: str, grades: tuple[str, ...],
              behavior: BehaviorOptions, timeout: float | None,
              coverage: BehaviorResult | None, grade_cache: bool = True) -> GradeResult:
        from alias_fixtures.grading.executors.local import grade_job

        return grade_job(self.grader, GradeJob(case_id, variant, reply, grades, behavior,
                                               timeout, coverage, grade_cache))

    def shutdown(self) -> None:
        """Stop the harness's JVMs, then end this actor."""
        import ray

        self.harness.close()
        ray.actor.exit_actor()  # type: ignore[no-untyped-call]


def _node_ip() -> str:
    try:
        import ray

        return str(ray.util.get_node_ip_address())  # type: ignore[no-untyped-call]
    except Exception:  # noqa: BLE001 - only a label
        return "?"


class RayExecutor:
    """A pool of `GraderActor`s on a Ray cluster (`address` None: a private local Ray)."""

    name = "ray"

    def __init__(self, address: str | None = None, *, actors: int | None = None,
                 harness_options: dict[str, Any] | None = None,
                 retries: int = DEFAULT_RETRIES, init_options: dict[str, Any] | None = None,
                 expected_jar_sha256: str | None = None,
                 start_timeout: float = START_TIMEOUT) -> None:
        self.ray, self._connected_here = _connect(address, dict(init_options or {}))
        self.retries = retries
        self.harness_options = dict(harness_options or {})
        cpus = int(self.ray.cluster_resources().get("CPU", 1))
        self.size = actors if actors is not None else max(1, cpus)
        if self.size < 1:
            raise ExecutorError("a Ray pool needs at least one actor")
        self._actor_class = self.ray.remote(num_cpus=1, max_restarts=0)(GraderActor)
        self.actors: list[Any | None] = [None] * self.size
        self.ledger = CoverageLedger()
        self._variant_refs: dict[tuple[str, str, str], Any] = {}
        self._coverage_refs: dict[tuple[Any, ...], Any] = {}
        self.replaced = 0
        try:
            self.toolchains = self._start(start_timeout, expected_jar_sha256)
        except BaseException:
            self.close()
            raise

    # ------------------------------------------------------------------ actors
    def _spawn(self, slot: int) -> Any:
        handle = self._actor_class.options(scheduling_strategy="SPREAD").remote(
            self.harness_options)
        self.actors[slot] = handle
        return handle

    def _start(self, timeout: float, expected_jar: str | None) -> list[dict[str, Any]]:
        exc_types = self.ray.exceptions
        handles = [self._spawn(slot) for slot in range(self.size)]
        try:
            described: list[dict[str, Any]] = self.ray.get(
                [h.describe.remote() for h in handles], timeout=timeout)
        except exc_types.GetTimeoutError as exc:
            raise ExecutorError(
                f"{self.size} grader actor(s) did not start within {timeout:.0f} s (each needs "
                f"1 CPU; the cluster has {self.ray.cluster_resources().get('CPU', 0):g})") from exc
        except exc_types.RayError as exc:
            raise ExecutorError("a grader actor could not start (does every node have the "
                                "project installed with the `jdk` extra, or Java?): "
                                f"{exc}") from exc
        jars = {d["jar_sha256"] for d in described} | ({expected_jar} if expected_jar else set())
        if len(jars) > 1:
            raise ExecutorError("the nodes run different tla2tools jars (sha256 "
                                f"{', '.join(sorted(jars))}): verdicts would not be comparable")
        return described

    def _kill(self, slot: int) -> None:
        handle, self.actors[slot] = self.actors[slot], None
        if handle is not None:
            try:
                self.ray.kill(handle, no_restart=True)
            except Exception:  # noqa: BLE001, S110 - already gone
                pass

    def _actor(self, slot: int) -> Any:
        handle = self.actors[slot]
        return handle if handle is not None else self._spawn(slot)

    # ------------------------------------------------------------------ jobs
    def _submit(self, slot: int, job: GradeJob) -> Any:
        key = variant_key(job.variant)
        if key not in self._variant_refs:
            self._variant_refs[key] = self.ray.put(job.variant)
        coverage = None
        if job.coverage is not None:
            if job.coverage_key not in self._coverage_refs:
                self._coverage_refs[job.coverage_key] = self.ray.put(job.coverage)
            coverage = self._coverage_refs[job.coverage_key]
        return self._actor(slot).grade.remote(self._variant_refs[key], job.case_id, job.reply,
                                              job.grades, job.behavior, job.timeout, coverage,
                                              job.grade_cache)

    def grade(self, job: GradeJob) -> GradeResult:
        return next(iter(self.grade_all([job])))

    def grade_all(self, jobs: Iterable[GradeJob]) -> Iterator[GradeResult]:
        errors = self.ray.exceptions
        lost = (errors.RayActorError, errors.WorkerCrashedError, errors.NodeDiedError,
                errors.ObjectLostError, errors.OutOfMemoryError, errors.RaySystemError)
        pending: list[tuple[GradeJob, int]] = [(job, 0) for job in jobs]
        running: dict[Any, tuple[int, GradeJob, int]] = {}
        idle = list(range(self.size))[::-1]
        try:
            while pending or running:
                while idle and (ready := take_ready(pending, self.ledger)):
                    job, attempt = ready
                    slot = idle.pop()
                    sent = self.ledger.claim(job)
                    running[self._submit(slot, sent)] = (slot, sent, attempt)
                done, _ = self.ray.wait(list(running), num_returns=1)
                for ref in done:
                    slot, job, attempt = running.pop(ref)
                    try:
                        result: GradeResult = self.ray.get(ref)
                    except (*lost, errors.RayTaskError) as exc:
                        self.ledger.settle(job, None)
                        if isinstance(exc, lost):  # the grader is gone: a fresh one takes over
                            self._kill(slot)
                            self.replaced += 1
                        idle.append(slot)
                        if attempt < self.retries:
                            pending.insert(0, (job, attempt + 1))
                        else:
                            yield failed_result(job, _short(exc), attempt + 1)
                        continue
                    idle.append(slot)
                    self.ledger.settle(job, result)
                    yield replace(result, attempts=result.attempts + attempt)
        finally:
            for slot, _, _ in running.values():  # interrupted: stop the work still running
                self._kill(slot)

    def close(self) -> None:
        """Close every actor's harness (JVMs), end the actors, and leave a Ray started here."""
        live = [h for h in self.actors if h is not None]
        if live:
            try:
                self.ray.wait([h.shutdown.remote() for h in live], num_returns=len(live),
                              timeout=CLOSE_GRACE)
            except Exception:  # noqa: BLE001, S110 - the actors are killed below anyway
                pass
        for slot in range(len(self.actors)):
            self._kill(slot)
        self._variant_refs.clear()
        self._coverage_refs.clear()
        if self._connected_here and self.ray.is_initialized():
            self.ray.shutdown()
            self._connected_here = False


def _short(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0][:300] if text else ''}"

