"""A long-lived JVM worker must not fill its heap with what earlier TLC runs left behind."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import FIXTURES
from tlc_harness.tools.pool import WorkerReply
from tlc_harness.tools.results import Verdict
from tlc_harness.tools.runner import Harness

OK = FIXTURES / "verdicts" / "Ok.tla"


def test_many_runs_fit_in_a_small_heap(tmp_path: Path) -> None:
    # Before the worker released each run's class loader (JPype's class cache, RMI exports and
    # management beans all kept it), a 64 MB heap ran out after a few dozen runs.
    with Harness(backend="pool", heap="64m", recycle_after=1000, tmp_root=str(tmp_path)) as h:
        for run in range(60):
            result = h.check(OK)
            assert result.verdict is Verdict.OK, (run, result.notes, result.detail)
            assert result.backend == "pool", (run, result.notes)


def test_worker_out_of_memory_is_rerun_in_a_fresh_jvm(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    with Harness(backend="pool", tmp_root=str(tmp_path)) as h:
        monkeypatch.setattr(h, "_pool_call", lambda request, timeout: WorkerReply(
            None, 1.0, died=True, exit_code=3))
        result = h.check(OK)
    assert result.verdict is Verdict.OK
    assert result.backend == "fresh"
    assert any("exit 3" in note for note in result.notes)
