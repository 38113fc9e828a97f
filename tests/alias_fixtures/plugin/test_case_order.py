"""The order in which a run hands out its cases: the tasks whose model costs TLC most first, as
their metadata says (`Task.expected_seconds`), then by id; tasks that say nothing (the built-in
suite) keep the order of their ids."""

from __future__ import annotations

from typing import Any

import pytest

from alias_fixtures.inspect_eval.cases import inspect_settings
from alias_fixtures.plugin.session import AliasSession
from alias_fixtures.tasks.task import Task, builtin_tasks


def _task(name: str, **extra: Any) -> Task:
    return Task(name, name, {f"{name}.tla": ""}, "", extra=extra)


@pytest.mark.parametrize(("extra", "seconds"), [
    ({}, 0.0),
    ({"seconds": 12.5, "distinct_states": 100}, 12.5),
    # a recorded run that counted no state stopped at an error: it says nothing of the model
    ({"seconds": 1.4, "distinct_states": None}, 0.0),
    ({"seconds": 1.4, "distinct_states": None,
      "upstream_expected": {"runtime": "00:00:40"}}, 40.0),
    ({"seconds": 46.5, "distinct_states": 25617,
      "upstream_expected": {"runtime": "00:00:20"}}, 46.5),
    ({"upstream_expected": {"runtime": "01:02:03"}}, 3723.0),
    ({"seconds": "soon", "distinct_states": 3, "upstream_expected": {"runtime": "long"}}, 0.0),
    ({"upstream_expected": None}, 0.0),
], ids=["nothing", "local", "local_failed", "upstream", "larger_local", "hours", "garbage",
        "none"])
def test_expected_seconds_read_the_recorded_costs(extra: dict[str, Any], seconds: float) -> None:
    assert _task("T", **extra).expected_seconds == seconds


def _session(tasks: list[Task]) -> AliasSession:
    settings = inspect_settings({"model": "reference", "samples": 2,
                                 "conditions": ["original", "random"]})
    return AliasSession(settings, {t.id: t for t in tasks})


def test_the_costliest_tasks_come_first_with_their_cases_together() -> None:
    session = _session([_task("a"), _task("b", seconds=5.0, distinct_states=1),
                        _task("c", upstream_expected={"runtime": "00:01:00"}),
                        _task("d", seconds=5.0, distinct_states=1)])
    ids = [c.id for c in session.cases()]
    assert [i.split("/")[0] for i in ids[::4]] == ["c", "b", "d", "a"]
    assert ids[:4] == ["c/original/s0", "c/original/s1", "c/random/s0", "c/random/s1"]


def test_the_builtin_suite_keeps_the_order_of_its_ids() -> None:
    tasks = builtin_tasks()
    assert all(t.expected_seconds == 0.0 for t in tasks)
    cases = _session(tasks).cases()
    assert [c.task for c in cases[::4]] == sorted(t.id for t in tasks)
