"""Parallel sweeps: TLC runs a grade will make one after another, started ahead of their turn.

A grade sweeps where several TLC runs are independent: the output's graph under each value of
its free constants (graph engine), the forward check under each mapping candidate (wrapper
engine). `Sweep` starts the next few of them at once, at most `jobs`, and hands each result
over when the grade reaches that run in its own order, which stays the order of a grade
without a sweep. Every run is a pure function of its inputs, so the verdict is the same with
any `jobs` (a run near its time limit may stop on a busy machine either way). A run started
ahead that the grade never reaches (it decided before) is waited for and counted as
`unused`; with `jobs` 1 nothing starts ahead and the grade is the plain sequential one.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Hashable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, Generic, TypeVar

T = TypeVar("T")

#: `jobs` that means one per core of this machine
AUTO = 0


def sweep_jobs(value: str | int) -> int:
    """`--sweep-jobs` as a number of runs at once: a positive number, or `auto` (or 0) for
    the machine's cores."""
    text = str(value).strip().lower()
    if text in ("auto", "0"):
        return AUTO
    try:
        jobs = int(text)
    except ValueError:
        raise ValueError(f"sweep jobs must be a positive number or 'auto', not {value!r}") \
            from None
    if jobs < 1:
        raise ValueError(f"sweep jobs must be a positive number or 'auto', not {value!r}")
    return jobs


def resolved_jobs(jobs: int, sharers: int = 1) -> int:
    """`jobs` with `AUTO` replaced by this process's share of the machine's cores: all of them,
    or their `sharers`-th part when as many processes grade at once (xdist workers), so that
    `auto` never asks for more JVMs than there are cores. A number is taken as given."""
    if jobs > 0:
        return jobs
    return max(1, (os.cpu_count() or 1) // max(1, sharers))


class Sweep(Generic[T]):
    """Runs keyed by the caller, started ahead (`ahead`) and taken in the grade's order
    (`take`); use it as a context manager so that runs never taken are waited for."""

    def __init__(self, jobs: int) -> None:
        self.jobs = resolved_jobs(jobs)
        self._pool = ThreadPoolExecutor(self.jobs, thread_name_prefix="alias-sweep") \
            if self.jobs > 1 else None
        self._started: dict[Hashable, Future[T]] = {}
        self.ahead_taken = 0  # runs started ahead that the grade then used
        self.unused = 0  # runs started ahead that it never reached

    def __enter__(self) -> Sweep[T]:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def ahead(self, key: Hashable, run: Callable[[], T]) -> None:
        """Start `run` now, unless `jobs` is 1, it started already, or `jobs` runs are
        running or waiting to be taken."""
        if self._pool is None or key in self._started:
            return
        if sum(not f.done() for f in self._started.values()) >= self.jobs:
            return
        self._started[key] = self._pool.submit(run)

    def take(self, key: Hashable, run: Callable[[], T]) -> T:
        """The result of the run for `key`: the one started ahead, or `run()` now."""
        started = self._started.pop(key, None)
        if started is None:
            return run()
        self.ahead_taken += 1
        return started.result()

    def close(self) -> None:
        """Wait for the runs still going (their processes end with them) and drop the ones
        not started; count those never taken."""
        if self._pool is None:
            return
        for future in self._started.values():
            future.cancel()
        self._pool.shutdown(wait=True)
        self.unused += sum(not f.cancelled() for f in self._started.values())
        self._started.clear()

    def details(self) -> dict[str, Any]:
        """What a verdict records of the sweep (nothing when nothing ran ahead)."""
        if self._pool is None or not (self.ahead_taken or self.unused):
            return {}
        return {"sweep": {"jobs": self.jobs, "ahead": self.ahead_taken, "unused": self.unused}}
