"""The Ray executor on a local 2-CPU Ray (loopback only): same verdicts as local grading,
killed actors replaced and their jobs retried, no JVM outliving its actor."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from alias_fixtures.grading.controls import seeded_mutants
from alias_fixtures.grading.executors import ExecutorError, GradeJob, GradeResult, make_executor
from alias_fixtures.grading.executors.local import LocalExecutor
from alias_fixtures.grading.executors.ray_pool import LOCAL_RAY_ENV, RayExecutor
from alias_fixtures.tasks.task import builtin_tasks
from alias_fixtures.tasks.variants import build_variant
from tlc_harness.behavior.mutants import behaves_differently
from tlc_harness.behavior.options import BehaviorOptions
from tlc_harness.tools.runner import Harness

for _name, _value in LOCAL_RAY_ENV.items():  # read when Ray is imported: loopback, no stats
    os.environ.setdefault(_name, _value)
ray = pytest.importorskip("ray", reason="Ray is not installed (pip install 'alias-bench[ray]')")

TASKS = ("hour_clock", "up_down_counter")
OPTIONS = BehaviorOptions(timeout=120)
HARNESS = {"tlc_timeout": 120}


@pytest.fixture(scope="session")
def ray_cluster() -> Iterator[str]:
    """A local Ray on loopback with 2 CPUs, started once for the session."""
    started = not ray.is_initialized()
    if started:
        ray.init(address="local", num_cpus=2, include_dashboard=False, object_store_memory=100 * 1024 * 1024,
                 log_to_driver=False)
    yield str(ray.get_runtime_context().gcs_address)
    if started:
        ray.shutdown()


def _jobs(harness: Harness) -> list[tuple[GradeJob, bool]]:
    """Per task: the reference against itself, its renamed copy against the original, the
    renamed variant's reference against itself, and a mutant — with whether it must pass."""
    jobs: list[tuple[GradeJob, bool]] = []
    tasks = {t.id: t for t in builtin_tasks()}
    for task_id in TASKS:
        task = tasks[task_id]
        original, check = build_variant(harness, task, "original")
        renamed, renamed_check = build_variant(harness, task, "random", seed="0")
        assert original is not None and check.verified
        assert renamed is not None and renamed_check.verified
        made, states = seeded_mutants(harness, task)
        assert states is not None
        mutant = next(m for m in made if behaves_differently(
            harness, task.modules, task.cfg, m, states, tlc_args=task.tlc_args))

        controls = [("self", original, original.reference_text(), True),
                    ("renamed", original, renamed.reference_text(), True),
                    ("random-self", renamed, renamed.reference_text(), True),
                    ("mutant", original, mutant.text, False)]
        # graded afresh each time (no grade cache): the local grades would otherwise be read
        # back by the actors, which then grade nothing and start no JVM
        jobs += [(GradeJob(f"{task_id}/{kind}", variant, reply, behavior=OPTIONS, timeout=120,
                           grade_cache=False), accept)
                 for kind, variant, reply, accept in controls]
    return jobs


def signature(result: GradeResult) -> tuple[Any, ...]:
    """What must not depend on where a case was graded (times left out)."""
    assert result.grades is not None, result.infra_error
    grades = result.grades.to_json()
    return (tuple((g, grades[g]["verdict"], grades[g]["passed"]) for g in grades),
            grades["name"].get("missing_names"), grades["behavior"].get("mapping"),
            result.covered, result.infra_error)


@pytest.fixture(scope="module")
def control_jobs(harness: Harness) -> list[tuple[GradeJob, bool]]:
    return _jobs(harness)


@pytest.fixture(scope="module")
def local_signatures(harness: Harness, control_jobs: list[tuple[GradeJob, bool]]
                     ) -> dict[str, tuple[Any, ...]]:
    executor = LocalExecutor(harness=lambda: harness)
    results = list(executor.grade_all(job for job, _ in control_jobs))
    executor.close()
    return {r.case_id: signature(r) for r in results}


@pytest.fixture(scope="module")
def pool(ray_cluster: str) -> Iterator[RayExecutor]:
    executor = RayExecutor(actors=2, harness_options=HARNESS)
    yield executor
    executor.close()


def test_controls_graded_on_ray_as_locally(pool: RayExecutor, harness: Harness,
                                           control_jobs: list[tuple[GradeJob, bool]],
                                           local_signatures: dict[str, tuple[Any, ...]]) -> None:
    results = list(pool.grade_all(job for job, _ in control_jobs))
    assert sorted(r.case_id for r in results) == sorted(local_signatures)
    must_pass = {job.case_id: accept for job, accept in control_jobs}
    for result in results:
        assert result.worker.startswith("ray:") and result.attempts == 1
        assert signature(result) == local_signatures[result.case_id], result.case_id
        assert result.grades is not None
        assert result.grades.behavior.passed is must_pass[result.case_id], result.case_id
    assert {t["jar_sha256"] for t in pool.toolchains} == {harness.toolchain.jar_sha256}


def test_killed_actors_are_replaced_and_their_jobs_retried(
        pool: RayExecutor, control_jobs: list[tuple[GradeJob, bool]],
        local_signatures: dict[str, tuple[Any, ...]]) -> None:
    before = pool.replaced
    jobs = [job for job, _ in control_jobs if job.case_id.startswith("hour_clock/")]
    results: list[GradeResult] = []
    for result in pool.grade_all(jobs):
        if not results:  # the other actor is mid-grade: kill every actor of the pool
            for handle in pool.actors:
                if handle is not None:
                    ray.kill(handle)
        results.append(result)
    assert sorted(r.case_id for r in results) == sorted(j.case_id for j in jobs)  # each once
    assert pool.replaced > before
    assert any(r.attempts > 1 for r in results)
    for result in results:
        assert result.infra_error is None
        assert signature(result) == local_signatures[result.case_id], result.case_id


def _descendants(pid: int) -> set[int]:
    """Processes below `pid` (from /proc)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(entry.name))
    found, todo = set(), [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.add(child)
            todo.append(child)
    return found


def _gone(pids: set[int], timeout: float = 60.0) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if not any(Path(f"/proc/{p}").exists() for p in pids):
            return True
        time.sleep(0.5)
    return False


def _until_dead(handle: Any, timeout: float = 60.0) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            ray.get(handle.describe.remote(), timeout=10)
        except ray.exceptions.RayActorError:
            return
        time.sleep(0.5)
    raise AssertionError("the killed actor still answers")


def test_failing_job_becomes_infra_error_and_no_jvm_outlives_its_actor(
        pool: RayExecutor, control_jobs: list[tuple[GradeJob, bool]],
        local_signatures: dict[str, tuple[Any, ...]]) -> None:
    pool.close()  # this test needs the cluster's CPUs for its own pools
    job = control_jobs[0][0]
    single = RayExecutor(actors=1, harness_options=HARNESS, retries=0)
    try:
        first = single.grade(job)
        assert signature(first) == local_signatures[job.case_id]
        actor = single.actors[0]
        assert actor is not None
        jvms = _descendants(ray.get(actor.describe.remote())["pid"])
        assert jvms, "the actor's harness started no JVM worker"
        ray.kill(actor)  # SIGKILL: the actor cannot close its harness
        _until_dead(actor)
        assert _gone(jvms), f"JVM processes outlived their killed actor: {jvms}"
        # the dead actor is handed the job; no retries are allowed: an infrastructure error
        failed = single.grade(job)
        assert failed.grades is None and failed.attempts == 1
        assert failed.infra_error is not None and "grader failed" in failed.infra_error
        # the replacement grades again, and a graceful close ends its JVMs
        again = single.grade(job)
        assert signature(again) == local_signatures[job.case_id]
        replacement = single.actors[0]
        assert replacement is not None
        jvms = _descendants(ray.get(replacement.describe.remote())["pid"])
        assert jvms
    finally:
        single.close()
    assert _gone(jvms), f"JVM processes outlived a closed pool: {jvms}"


def test_bad_executor_spec_is_refused() -> None:
    with pytest.raises(ExecutorError, match="local, ray or ray:ADDRESS"):
        make_executor("slurm")
    with pytest.raises(ExecutorError):
        make_executor("ray:")
