"""A long-lived JVM worker must not fill its heap with what earlier TLC runs left behind."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import FIXTURES
from tlc_harness.tools.pool import WorkerReply
from tlc_harness.tools.results import CheckResult, Verdict
from tlc_harness.tools.runner import Harness

OK = FIXTURES / "verdicts" / "Ok.tla"


@pytest.mark.tlc
def test_many_runs_fit_in_a_small_heap(tmp_path: Path) -> None:
    # Before the worker released each run's class loader (JPype's class cache, RMI exports and
    # management beans all kept it), a 64 MB heap ran out after a few dozen runs.
    with Harness(backend="pool", heap="64m", recycle_after=1000, tmp_root=str(tmp_path)) as h:
        for run in range(60):
            result = h.check(OK)
            assert result.verdict is Verdict.OK, (run, result.notes, result.detail)
            assert result.backend == "pool", (run, result.notes)


@pytest.mark.tlc
def test_worker_out_of_memory_is_rerun_in_a_fresh_jvm(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    with Harness(backend="pool", tmp_root=str(tmp_path)) as h:
        monkeypatch.setattr(h, "_pool_call", lambda request, timeout: WorkerReply(
            None, 1.0, died=True, exit_code=3))
        result = h.check(OK)
    assert result.verdict is Verdict.OK
    assert result.backend == "fresh"
    assert any("exit 3" in note for note in result.notes)


def _timed_out_after(output: str, tmp_path: Path,
                     monkeypatch: pytest.MonkeyPatch) -> CheckResult:
    """A check whose pool worker times out after printing `output`."""
    def timed_out(request: dict[str, str], timeout: float) -> WorkerReply:
        Path(request["out"]).write_text(output)
        return WorkerReply(None, timeout, timed_out=True)

    with Harness(backend="pool", tmp_root=str(tmp_path)) as h:
        monkeypatch.setattr(h, "_pool_call", timed_out)
        return h.check(OK)


@pytest.mark.tlc
def test_worker_stalled_before_sany_finished_is_rerun_in_a_fresh_jvm(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # a worker that times out before TLC's SANY said it finished stalled itself: parsing a
    # module takes seconds, so the time-out is not the spec's
    result = _timed_out_after("@!@!@STARTMSG 2262:0 @!@!@\nTLC2\n@!@!@ENDMSG 2262 @!@!@\n"
                              "Parsing file M.tla\n", tmp_path, monkeypatch)
    assert result.verdict is Verdict.OK
    assert result.backend == "fresh"
    assert any("stalled" in note for note in result.notes)


@pytest.mark.tlc
def test_a_time_out_while_checking_stays_a_time_out(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    result = _timed_out_after("@!@!@STARTMSG 2219:0 @!@!@\nSANY finished.\n"
                              "@!@!@ENDMSG 2219 @!@!@\n@!@!@STARTMSG 2185:0 @!@!@\n"
                              "Starting...\n@!@!@ENDMSG 2185 @!@!@\n", tmp_path, monkeypatch)
    assert result.verdict is Verdict.TIMEOUT
    assert result.backend == "pool"
