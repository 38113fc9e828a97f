"""One output's time budget for its whole behavior grade (`BehaviorOptions.output_budget`).

When it runs out the verdict is `undecided` (`output_budget`), never a guess and never a pass;
a TLC run the deadline cut short is told apart from one that hit its own limit; a generous
budget changes no verdict; the reference's self-check and its cache key ignore the budget.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from alias_fixtures.grading.controls import reference, renamed_control, self_control
from alias_fixtures.grading.grade import ReferenceCoverage
from alias_fixtures.grading.reference_cache import reference_key
from alias_fixtures.plugin.options import OPTIONS, read_settings
from alias_fixtures.tasks.task import Task, builtin_tasks
from alias_fixtures.tasks.variants import original_variant
from tlc_harness.behavior.deadline import BudgetedHarness, Deadline, OutputBudgetExhausted
from tlc_harness.behavior.engine import grade_behavior
from tlc_harness.behavior.options import DEFAULT_OUTPUT_BUDGET, BehaviorOptions
from tlc_harness.behavior.verdicts import BehaviorResult, BehaviorVerdict, Reason, reasons_of
from tlc_harness.tools.results import CheckResult, Verdict
from tlc_harness.tools.runner import Harness, HarnessSettings

TASKS = {t.id: t for t in builtin_tasks()}
#: a mutant per task: one text replaced in the main module, which changes its behaviors
MUTANTS = {"hour_clock": ("IF hr = 11 THEN ~pm ELSE pm", "IF hr = 10 THEN ~pm ELSE pm"),
           "up_down_counter": ("/\\ count' = count - 1", "/\\ count' = 0")}


class StepClock:
    """A clock that stands still until told to jump."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def _grade(harness: Harness, task: Task, files: dict[str, str], options: BehaviorOptions,
           clock: Callable[[], float] | None = None) -> BehaviorResult:
    kw = {"clock": clock} if clock else {}
    return grade_behavior(harness, reference(task), files, task.main_module, options, **kw)


def _mutant(task: Task) -> dict[str, str]:
    old, new = MUTANTS[task.id]
    text = task.modules[task.main_file]
    assert old in text
    return {**task.modules, task.main_file: text.replace(old, new)}


# ------------------------------------------------------------------ the code and the options
def test_the_reason_code_is_an_undecided_one_with_a_meaning() -> None:
    assert Reason.OUTPUT_BUDGET.verdict is BehaviorVerdict.UNDECIDED
    assert Reason.OUTPUT_BUDGET in reasons_of(BehaviorVerdict.UNDECIDED)
    assert "budget" in Reason.OUTPUT_BUDGET.meaning
    assert Reason.OUTPUT_BUDGET is not Reason.TIME_BUDGET


def test_the_default_is_150_s_and_0_means_no_budget() -> None:
    assert DEFAULT_OUTPUT_BUDGET == 150.0
    assert BehaviorOptions().output_budget == 150.0
    assert BehaviorOptions(output_budget=0).output_budget is None
    assert BehaviorOptions(output_budget=0) == BehaviorOptions(output_budget=None)
    assert BehaviorOptions(output_budget=30).without_budget().output_budget is None
    with pytest.raises(ValueError, match="budget"):
        BehaviorOptions(output_budget=-1)


class _Config:
    """The pytest config `read_settings` reads: the given options, else the ini defaults."""

    def __init__(self, **given: str) -> None:
        self.given = given
        self.ini: dict[str, Any] = {f"alias_{n.replace('-', '_')}": d for n, d, _ in OPTIONS}

    def getoption(self, key: str) -> Any:
        return self.given.get(key)

    def getini(self, key: str) -> Any:
        return self.ini.get(key, False)


def test_the_benchmark_option_reaches_the_behavior_options() -> None:
    default = read_settings(_Config())  # type: ignore[arg-type]
    assert default.behavior_options().output_budget == DEFAULT_OUTPUT_BUDGET
    given = read_settings(_Config(alias_behavior_budget="12.5"))  # type: ignore[arg-type]
    assert given.behavior_options().output_budget == 12.5
    none = read_settings(_Config(alias_behavior_budget="0"))  # type: ignore[arg-type]
    assert none.behavior_options().output_budget is None
    with pytest.raises(pytest.UsageError, match="behavior-budget"):
        read_settings(_Config(alias_behavior_budget="-3"))  # type: ignore[arg-type]


# ------------------------------------------------------------------ the deadline
def test_no_deadline_never_runs_out() -> None:
    clock = StepClock()
    deadline = Deadline(None, clock)
    clock.now = 1e9
    deadline.enter("confirm")
    assert deadline.left() is None and deadline.limit(60.0) == 60.0
    assert deadline.details() == {}


def test_a_runs_limit_is_its_own_or_the_time_left() -> None:
    clock = StepClock()
    deadline = Deadline(100.0, clock)
    assert deadline.limit(60.0) == 60.0
    clock.now = 90.0
    assert deadline.limit(60.0) == pytest.approx(10.0)
    clock.now = 100.0
    with pytest.raises(OutputBudgetExhausted, match="inference"):
        deadline.enter("inference")
    assert deadline.details() == {"budget_seconds": 100.0, "budget_used": 100.0,
                                  "budget_exhausted": True, "budget_stage": "inference"}


def _inner(verdict: Verdict, calls: list[float | None]) -> Any:
    """A stand-in for a harness: every run ends with `verdict`; `calls` gets each limit."""
    def check(*_: Any, timeout: float | None = None, **__: Any) -> CheckResult:
        calls.append(timeout)
        return CheckResult(verdict, None, 1.0, partial=verdict is Verdict.TIMEOUT)
    return SimpleNamespace(toolchain=None, settings=HarnessSettings(tlc_timeout=60.0),
                           module_library=None, check=check)


def test_a_run_stopped_by_its_own_limit_keeps_its_time_out() -> None:
    calls: list[float | None] = []
    harness = BudgetedHarness(_inner(Verdict.TIMEOUT, calls), Deadline(1000.0, StepClock()))
    result = harness.check("M.tla", timeout=30.0)
    assert result.verdict is Verdict.TIMEOUT and calls == [30.0]  # its own verdict
    assert harness.check("M.tla").verdict is Verdict.TIMEOUT and calls[-1] == 60.0
    assert harness.runs == 2 and harness.deadline.exhausted is None


def test_a_run_the_deadline_stopped_is_no_time_out_of_the_spec() -> None:
    clock = StepClock()
    calls: list[float | None] = []
    harness = BudgetedHarness(_inner(Verdict.TIMEOUT, calls), Deadline(100.0, clock))
    harness.deadline.enter("confirm")
    clock.now = 95.0
    with pytest.raises(OutputBudgetExhausted, match="confirm"):
        harness.check("M.tla", timeout=30.0)
    assert calls == [pytest.approx(5.0)] and harness.deadline.exhausted == "confirm"


def test_a_run_that_ends_within_a_cut_limit_stands() -> None:
    clock = StepClock()
    calls: list[float | None] = []
    harness = BudgetedHarness(_inner(Verdict.INVARIANT_VIOLATED, calls), Deadline(100.0, clock))
    clock.now = 95.0
    assert harness.check("M.tla").verdict is Verdict.INVARIANT_VIOLATED
    clock.now = 100.0
    with pytest.raises(OutputBudgetExhausted):  # no time left: no run starts
        harness.check("M.tla")
    assert len(calls) == 1


def test_a_run_never_taken_that_the_deadline_cut_leaves_the_verdict_s_record(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A sweep's run started ahead and never taken may be cut by the deadline while the grade
    decides without it: the verdict stands and its record says the budget did not run out."""
    import tlc_harness.behavior.engine as engine

    clock = StepClock()

    def decided_while_an_unused_run_ran_out(harness: BudgetedHarness, *_: Any) -> BehaviorResult:
        clock.now = 200.0
        try:  # on the sweep's thread: the error stays in a future nobody takes
            harness.deadline.exhaust()
        except OutputBudgetExhausted:
            pass
        return BehaviorResult(BehaviorVerdict.FORWARD_FAIL, None, "a step", 1.0,
                              code=Reason.TLC_FORWARD)

    monkeypatch.setattr(engine, "_graded", decided_while_an_unused_run_ran_out)
    result = grade_behavior(SimpleNamespace(toolchain=None, settings=None,  # type: ignore[arg-type]
                                            module_library=None), None, {}, "M",  # type: ignore[arg-type]
                            BehaviorOptions(output_budget=150.0), clock=clock)
    assert result.verdict is BehaviorVerdict.FORWARD_FAIL
    assert result.details["budget_exhausted"] is False and "budget_stage" not in result.details
    assert result.details["budget_used"] == 200.0


# ------------------------------------------------------------------ grades
def test_a_tiny_budget_makes_a_positive_control_undecided(harness: Harness,
                                                         tmp_path: Path) -> None:
    task = TASKS["hour_clock"]
    for budget in (0.001, 1e-9):
        result = _grade(harness, task, dict(task.modules),
                        BehaviorOptions(output_budget=budget, cache=tmp_path))
        assert result.verdict is BehaviorVerdict.UNDECIDED and not result.passed
        assert result.code is Reason.OUTPUT_BUDGET and result.soundness is None
        assert result.details["budget_exhausted"] is True
        assert result.details["budget_seconds"] == budget
        assert result.to_json()["reason_code"] == "output_budget"


def test_the_grader_controls_run_without_a_budget(harness: Harness, tmp_path: Path) -> None:
    """A control measures the grader, not a study's wall time: a budget that would stop any
    output's grade at once leaves the controls' verdicts as they are."""
    task = TASKS["hour_clock"]
    tiny = BehaviorOptions(output_budget=1e-9, cache=tmp_path)
    own = self_control(harness, task, tiny)
    renamed = renamed_control(harness, task, options=tiny)
    assert own.correct and own.verdict is BehaviorVerdict.OK
    assert renamed is not None and renamed.correct


def test_a_budget_that_runs_out_after_the_first_tlc_run_is_undecided(
        harness: Harness, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    task = TASKS["hour_clock"]
    clock = StepClock()
    own = harness.check
    runs: list[str] = []

    def first_run_spends_it_all(*args: Any, **kw: Any) -> CheckResult:
        result = own(*args, **kw)
        runs.append(result.verdict.value)
        clock.now = 1000.0
        return result

    monkeypatch.setattr(harness, "check", first_run_spends_it_all)
    options = BehaviorOptions(output_budget=150.0, cache=tmp_path)  # a fresh graph cache
    for files in (dict(task.modules), _mutant(task)):  # a positive and a negative control
        clock.now = 0.0
        result = _grade(harness, task, files, options, clock)
        assert result.verdict is BehaviorVerdict.UNDECIDED, result.reason
        assert result.code is Reason.OUTPUT_BUDGET
        assert result.details["budget_stage"] in ("output_graph", "inference")
    assert runs[0] == "ok" and len(runs) == 2  # the reference's graph, then the mutant's


@pytest.mark.parametrize("task_id", sorted(MUTANTS))
def test_a_generous_budget_changes_no_verdict(harness: Harness, task_id: str) -> None:
    task = TASKS[task_id]
    for files, verdict in ((dict(task.modules), BehaviorVerdict.OK),
                           (_mutant(task), None)):
        free = _grade(harness, task, files, BehaviorOptions(output_budget=None))
        bounded = _grade(harness, task, files, BehaviorOptions(output_budget=600.0))
        assert (bounded.verdict, bounded.code, bounded.soundness) == \
            (free.verdict, free.code, free.soundness)
        if verdict is not None:
            assert bounded.verdict is verdict
        else:
            assert bounded.verdict in (BehaviorVerdict.FORWARD_FAIL, BehaviorVerdict.REVERSE_FAIL)
        assert bounded.details["budget_seconds"] == 600.0
        assert bounded.details["budget_exhausted"] is False
        assert 0 < bounded.details["budget_used"] < 600.0
        assert "budget_seconds" not in free.details


def test_the_self_check_and_its_cache_key_ignore_the_budget(harness: Harness) -> None:
    variant = original_variant(TASKS["up_down_counter"])
    keys = {reference_key(harness, variant, BehaviorOptions(output_budget=b))
            for b in (None, 0.001, 150.0, 600.0)}
    assert len(keys) == 1
    coverage = ReferenceCoverage(harness, BehaviorOptions(output_budget=1e-9), on_disk=False)
    own = coverage.check(variant)
    assert own.passed, own.reason  # the task's self-check runs without the output's budget
    assert "budget_seconds" not in own.details


def test_the_sweep_jobs_option_reaches_the_behavior_options() -> None:
    assert read_settings(_Config()).behavior_options().sweep_jobs == 1  # type: ignore[arg-type]
    given = read_settings(_Config(alias_sweep_jobs="3"))  # type: ignore[arg-type]
    assert given.behavior_options().sweep_jobs == 3
    auto = read_settings(_Config(alias_sweep_jobs="auto"))  # type: ignore[arg-type]
    assert auto.behavior_options().sweep_jobs >= 1  # one per core of this machine
    with pytest.raises(pytest.UsageError, match="sweep jobs"):
        read_settings(_Config(alias_sweep_jobs="-2"))  # type: ignore[arg-type]


def test_auto_sweep_jobs_share_the_cores_among_xdist_workers(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("os.cpu_count", lambda: 8)
    worker = _Config(alias_sweep_jobs="auto")
    worker.workerinput = {"workercount": 4}  # type: ignore[attr-defined]
    assert read_settings(worker).sweep_jobs == 2  # type: ignore[arg-type]
    alone = read_settings(_Config(alias_sweep_jobs="auto"))  # type: ignore[arg-type]
    assert alone.sweep_jobs == 8
    many = _Config(alias_sweep_jobs="auto")
    many.workerinput = {"workercount": 16}  # type: ignore[attr-defined]
    assert read_settings(many).sweep_jobs == 1  # type: ignore[arg-type]
    given = _Config(alias_sweep_jobs="3")
    given.workerinput = {"workercount": 4}  # type: ignore[attr-defined]
    assert read_settings(given).sweep_jobs == 3  # type: ignore[arg-type]  # as asked
