"""The grader's controls, which CI gates on: positives accepted, mutants rejected.

Each control runs under both behavior engines: `auto` (the state graphs, and the wrappers where
a graph is over budget) and `wrappers`; a control that the graph engine decides must be decided
by it (the built-in references bounded by a CONSTRAINT are the ones handed over).

The renamed and mutant controls are `slow`: `pytest benchmarks/` leaves them out unless
`--alias-slow`; `tox -e tests` (CI) passes it, so CI gates on every control here."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from alias_fixtures.grading.controls import (
    mutant_controls,
    operator_names,
    operator_renamed_control,
    renamed_control,
    self_control,
)
from alias_fixtures.tasks.task import builtin_tasks
from tlc_harness.behavior.options import BehaviorOptions
from tlc_harness.tools.runner import Harness

TASKS = {t.id: t for t in builtin_tasks()}
WITH_OPERATORS = sorted(t for t in TASKS if operator_names(TASKS[t]))
ENGINES = ("auto", "wrappers")
#: the front door checks each reference against itself with `auto`; the wrappers engine's
#: self controls are `slow` (opt-in, run by CI) to keep `pytest benchmarks/` in minutes
SELF_ENGINES = ("auto", pytest.param("wrappers", marks=pytest.mark.slow))


def _decided_by(engine: str) -> str:
    """`auto` decides every built-in positive on the graphs (a reference bounded by a
    CONSTRAINT too: the output's graph is cut where its image leaves it)."""
    return "wrappers" if engine == "wrappers" else "graphs"


@pytest.mark.parametrize("engine", SELF_ENGINES)
@pytest.mark.parametrize("task_id", sorted(TASKS))
def test_reference_accepted_against_itself(bench_harness: Harness, task_id: str,
                                           engine: str) -> None:
    result = self_control(bench_harness, TASKS[task_id], BehaviorOptions(engine=engine))
    assert result.correct, result.detail
    assert result.engine == _decided_by(engine), result.detail


@pytest.mark.slow  # seconds to a minute each: opt-in in a benchmark run (--alias-slow), run by CI
@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("task_id", sorted(TASKS))
def test_renamed_reference_accepted(bench_harness: Harness, run_seed: str, task_id: str,
                                    engine: str) -> None:
    result = renamed_control(bench_harness, TASKS[task_id], seed=run_seed,
                             options=BehaviorOptions(engine=engine))
    assert result is not None, "the random variant is not verified"
    assert result.correct, result.detail
    assert result.engine == _decided_by(engine), result.detail


@pytest.mark.slow  # one test of 12 grades, a minute: opt-in, run by CI
@settings(max_examples=12, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(data=st.data())
def test_operator_renamed_copy_accepted(bench_harness: Harness, data: st.DataObject) -> None:
    task = TASKS[data.draw(st.sampled_from(WITH_OPERATORS), label="task")]
    names = operator_names(task)
    chosen = data.draw(st.lists(st.sampled_from(names), min_size=1, unique=True), label="ops")
    seed = data.draw(st.integers(0, 2**32), label="seed")
    result = operator_renamed_control(bench_harness, task, chosen, seed)
    assert result.correct, result.detail


@pytest.mark.slow  # a failing output costs many TLC runs, up to minutes: opt-in, run by CI
@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("task_id", sorted(TASKS))
def test_mutants_rejected(bench_harness: Harness, task_id: str, engine: str) -> None:
    results, made = mutant_controls(bench_harness, TASKS[task_id], seed=0, tries=6, keep=2,
                                    options=BehaviorOptions(engine=engine))
    assert made > 0, "no mutation site"
    assert results, f"none of the {made} mutants behaves differently: nothing was checked"
    wrong = [r.detail for r in results if not r.correct]
    assert not wrong, wrong
