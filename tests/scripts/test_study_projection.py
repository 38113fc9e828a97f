"""The study-scale script's projection by whose work it is (scripts/study_scale.py)."""

from __future__ import annotations

import importlib.util
from types import ModuleType

import pytest

from tests.conftest import ROOT

SCRIPT = ROOT / "scripts" / "study_scale.py"


@pytest.fixture(scope="module")
def study_scale() -> ModuleType:
    spec = importlib.util.spec_from_file_location("study_scale", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _row(spec: str, variant: float, reference: float, behavior: float) -> dict[str, object]:
    return {"spec_id": spec, "stages": {"variant": variant, "reference_check": reference,
                                        "parse": 0.5, "name": 0.5, "behavior": behavior}}


def test_task_work_counts_once_per_task_and_output_work_once_per_case(
        study_scale: ModuleType) -> None:
    rows = [_row("1", 10.0, 50.0, 2.0),   # computed the task's work
            _row("1", 0.0, 40.0, 4.0),    # waited for it
            _row("2", 4.0, 16.0, 0.0)]
    got = study_scale.study_projection(rows, jobs=2)
    assert got["task_seconds_mean"] == 40.0        # (60 + 20) / 2 tasks
    assert got["output_seconds_mean"] == 3.0       # (3 + 5 + 1) / 3 outputs
    seconds = 111 * 40.0 + 3330 * 3.0
    assert got["study_hours_here"] == round(seconds / 2 / 3600, 2)
    assert got["study_minutes_8_nodes"] == round(seconds / 16 / 60, 1)


def test_no_rows_project_nothing(study_scale: ModuleType) -> None:
    assert study_scale.study_projection([], jobs=2)["study_hours_here"] == 0.0


def test_a_release_output_is_graded_against_the_release_spec_of_its_id(
        study_scale: ModuleType) -> None:
    from types import SimpleNamespace

    example = SimpleNamespace(id="Paxos.MC", extra={"spec_dir": "Paxos", "cfg": "MC.cfg"})
    release = SimpleNamespace(id="1500", extra={"spec_id": 1500, "category": "system"})
    tasks = [example, release]
    out = SimpleNamespace(spec_dir="tla-bench-release", cfg="1500")
    assert study_scale.task_of(out, tasks) is release
    assert study_scale.task_of(SimpleNamespace(spec_dir="Paxos", cfg="MC.cfg"), tasks) is example
    assert study_scale.task_of(SimpleNamespace(spec_dir="tla-bench-release", cfg="9"),
                               tasks) is None
