"""Every built-in task, original and randomly renamed, must be verified by SANY and TLC."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from alias_fixtures.tasks.task import Task, builtin_tasks
from alias_fixtures.tasks.variants import VariantStore, build_variant, check_original
from tlc_harness.tools.results import Verdict
from tlc_harness.tools.runner import Harness

TASKS = {t.id: t for t in builtin_tasks()}


@pytest.mark.parametrize("task_id", sorted(TASKS))
def test_reference_passes_with_expected_states(bench_harness: Harness, task_id: str) -> None:
    task: Task = TASKS[task_id]
    result = check_original(bench_harness, task)
    assert result.verdict is Verdict.OK, result.detail
    assert not result.vacuous
    assert result.distinct_states == task.expected_distinct_states


@pytest.mark.parametrize("task_id", sorted(TASKS))
def test_random_variant_is_verified(bench_harness: Harness, variant_store: VariantStore,
                                    run_seed: str, task_id: str) -> None:
    task = TASKS[task_id]
    variant, check = build_variant(bench_harness, task, "random", seed=run_seed,
                                   store=variant_store)
    assert check.verified, check.reason
    assert variant is not None
    assert variant.rename_map
    assert check.renamed_states == task.expected_distinct_states


@pytest.mark.slow  # 15 variants built and verified, up to a minute: opt-in, run by CI
@settings(max_examples=15, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(task_id=st.sampled_from(sorted(TASKS)), seed=st.integers(0, 2**63))
def test_any_accepted_map_keeps_the_state_count(bench_harness: Harness, task_id: str,
                                               seed: int) -> None:
    """Hypothesis draws rename maps (through their seeds): an accepted map is always verified."""
    task = TASKS[task_id]
    variant, check = build_variant(bench_harness, task, "random", seed=seed)
    assert variant is not None, check.reason  # make_variant only builds maps validate_map accepts
    assert check.verified, check.reason
    assert check.renamed_states == check.original_states == task.expected_distinct_states
