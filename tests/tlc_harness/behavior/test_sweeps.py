"""Parallel sweeps (`tlc_harness.behavior.sweeps`): the TLC runs of a sweep start ahead of their
turn, and a grade with any number of sweep jobs has the verdict of the one-after-another grade:
the graph engine's runs under each value of a free constant, and the wrapper engine's forward
checks under each mapping."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from dataclasses import replace

import pytest

from tlc_harness.behavior.engine import grade_behavior
from tlc_harness.behavior.options import BehaviorOptions
from tlc_harness.behavior.staging import Reference
from tlc_harness.behavior.sweeps import AUTO, Sweep, resolved_jobs, sweep_jobs
from tlc_harness.behavior.verdicts import BehaviorResult
from tlc_harness.source.cfg import parse_cfg
from tlc_harness.tools.runner import Harness


def test_one_job_runs_each_call_when_taken() -> None:
    calls: list[str] = []
    with Sweep[str](1) as sweep:
        sweep.ahead("a", lambda: calls.append("ahead") or "x")  # type: ignore[func-returns-value]
        assert calls == []  # nothing starts ahead with one job
        assert sweep.take("a", lambda: "now") == "now"
    assert sweep.details() == {}


def test_runs_started_ahead_are_handed_over_in_the_grade_s_order() -> None:
    with Sweep[int](2) as sweep:
        sweep.ahead(1, lambda: 10)
        sweep.ahead(2, lambda: 20)
        assert sweep.take(1, lambda: -1) == 10
        assert sweep.take(2, lambda: -2) == 20
        assert sweep.take(3, lambda: 30) == 30  # never started ahead: run when taken
    assert sweep.details() == {"sweep": {"jobs": 2, "ahead": 2, "unused": 0}}


def test_no_more_than_jobs_runs_at_once() -> None:
    running, most = 0, 0
    lock, release = threading.Lock(), threading.Event()

    def run() -> int:
        nonlocal running, most
        with lock:
            running += 1
            most = max(most, running)
        release.wait(5)
        with lock:
            running -= 1
        return 1

    with Sweep[int](2) as sweep:
        for key in range(5):
            sweep.ahead(key, run)
        time.sleep(0.2)
        release.set()
        assert [sweep.take(key, lambda: 0) for key in range(5)] == [1, 1, 0, 0, 0]
    assert most == 2


def test_a_run_never_taken_is_waited_for_and_counted() -> None:
    finished = threading.Event()

    def slow() -> int:
        time.sleep(0.2)
        finished.set()
        return 1

    with Sweep[int](2) as sweep:
        sweep.ahead("later", slow)
    assert finished.is_set()  # closing waited for it: no run outlives its grade
    assert sweep.details()["sweep"]["unused"] == 1


def test_a_run_s_error_reaches_the_grade_when_taken() -> None:
    def broken() -> int:
        raise RuntimeError("boom")

    with Sweep[int](2) as sweep:
        sweep.ahead("k", broken)
        with pytest.raises(RuntimeError, match="boom"):
            sweep.take("k", lambda: 0)


@pytest.mark.parametrize(("text", "jobs"), [("1", 1), ("4", 4), ("auto", AUTO), ("0", AUTO),
                                            (" Auto ", AUTO)])
def test_sweep_jobs_are_read(text: str, jobs: int) -> None:
    assert sweep_jobs(text) == jobs
    assert resolved_jobs(jobs) >= 1


def test_auto_is_this_process_share_of_the_cores(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("os.cpu_count", lambda: 6)
    assert [resolved_jobs(AUTO, n) for n in (1, 2, 4, 6, 12, 0)] == [6, 3, 1, 1, 1, 6]
    assert resolved_jobs(5, 4) == 5  # a number is taken as given


@pytest.mark.parametrize("text", ["-1", "two", "", "1.5"])
def test_bad_sweep_jobs_are_refused(text: str) -> None:
    with pytest.raises(ValueError, match="sweep jobs"):
        sweep_jobs(text)
    with pytest.raises(ValueError, match="sweep jobs"):
        BehaviorOptions(sweep_jobs=-1)


@pytest.fixture(scope="module")
def two_jvms(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Harness]:
    """A harness with a JVM for each of two runs at once."""
    with Harness(backend="pool", pool_size=2, tlc_timeout=120,
                 tmp_root=str(tmp_path_factory.mktemp("sweeps"))) as h:
        yield h


RING = """---- MODULE Ring ----
EXTENDS Integers
CONSTANT N
VARIABLE tok
Init == tok = 0
Next == tok' = (tok + 1) % N
Spec == Init /\\ [][Next]_tok
====
"""
REF = Reference("Ring", {"Ring.tla": RING}, parse_cfg("CONSTANT N = 3\nSPECIFICATION Spec\n"))
#: an output with a BOOLEAN and a number of its own, neither of which the reference gives: the
#: graph engine grades it under each of their values
SWEPT = """---- MODULE Out ----
EXTENDS Integers
CONSTANTS N, Forward, Skip
ASSUME Forward \\in BOOLEAN /\\ Skip \\in 0..2
VARIABLE tok
Init == tok = 0
Next == tok' = (tok + IF Forward THEN {if_true} ELSE {if_false}) % N
Spec == Init /\\ [][Next]_tok
====
"""
WRAPPED = """---- MODULE Out ----
EXTENDS Integers
CONSTANT N
VARIABLES a, b
Init == a = 0 /\\ b = 0
Next == /\\ a' = (a + 1) % N
        /\\ b' = {b_next}
Spec == Init /\\ [][Next]_<<a, b>>
====
"""
PAIR = """---- MODULE Pair ----
EXTENDS Integers
CONSTANT N
VARIABLES x, y
Init == x = 0 /\\ y = 0
Next == /\\ y' = (y + 1) % N
        /\\ x' = IF y' = 0 THEN 1 - x ELSE x
Spec == Init /\\ [][Next]_<<x, y>>
====
"""
PAIR_REF = Reference("Pair", {"Pair.tla": PAIR}, parse_cfg("CONSTANT N = 3\nSPECIFICATION Spec\n"))


def _same_grade(a: BehaviorResult, b: BehaviorResult) -> None:
    """The parts of two grades that must agree: everything but times and the sweep's own
    counts."""
    assert (a.verdict, a.code, a.reason, a.mapping, a.tlc_runs) == \
        (b.verdict, b.code, b.reason, b.mapping, b.tlc_runs)
    drop = ("stage_seconds", "sweep", "inference_seconds", "budget_used")
    assert {k: v for k, v in a.details.items() if k not in drop} == \
        {k: v for k, v in b.details.items() if k not in drop}
    assert [(t.mapping, t.forward, t.reverse) for t in a.attempts] == \
        [(t.mapping, t.forward, t.reverse) for t in b.attempts]


@pytest.mark.parametrize(("if_true", "if_false"), [("1", "1"), ("1", "2"), ("2", "0")])
@pytest.mark.tlc
def test_a_graph_sweep_has_the_one_after_another_verdict(two_jvms: Harness, if_true: str,
                                                         if_false: str) -> None:
    files = {"Out.tla": SWEPT.format(if_true=if_true, if_false=if_false)}
    options = BehaviorOptions(engine="graphs")
    grade_behavior(two_jvms, REF, files, "Out", options)  # the reference's graph, cached
    alone = grade_behavior(two_jvms, REF, files, "Out", options)
    swept = grade_behavior(two_jvms, REF, files, "Out", replace(options, sweep_jobs=2))
    _same_grade(alone, swept)
    assert "sweep" not in alone.details
    assert swept.details["sweep"]["ahead"] >= 2  # the values' runs did start ahead


@pytest.mark.parametrize("b_next", ["IF a' = 0 THEN 1 - b ELSE b", "1 - b"])
@pytest.mark.tlc
def test_a_wrapper_sweep_has_the_one_after_another_verdict(two_jvms: Harness,
                                                           b_next: str) -> None:
    # the reference's `y` is the output's `a`: the identity-like bijection fails first
    files = {"Out.tla": WRAPPED.format(b_next=b_next)}
    options = BehaviorOptions(engine="wrappers")
    alone = grade_behavior(two_jvms, PAIR_REF, files, "Out", options)
    swept = grade_behavior(two_jvms, PAIR_REF, files, "Out", replace(options, sweep_jobs=2))
    _same_grade(alone, swept)
    assert len(alone.attempts) >= 2  # more than one mapping was checked
    assert swept.details["sweep"]["ahead"] >= 1
