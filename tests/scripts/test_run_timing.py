"""scripts/run_timing.py: a run's time from its records, and the projection."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from tests.conftest import ROOT

SCRIPT = ROOT / "scripts" / "run_timing.py"


@pytest.fixture(scope="module")
def rt() -> ModuleType:
    spec = importlib.util.spec_from_file_location("run_timing", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _case(task: str, seconds: float, name: float, behavior: float) -> dict[str, Any]:
    return {"kind": "case", "task": task, "seconds": seconds,
            "grades": {"parse": {"seconds": 0.5}, "name": {"seconds": name},
                       "behavior": {"seconds": behavior}}}


def _write(folder: Path, *records: dict[str, Any]) -> Path:
    folder.mkdir()
    (folder / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    return folder


def test_sums_quantiles_slowest_and_projection(rt: ModuleType, tmp_path: Path) -> None:
    run = _write(tmp_path / "run",
                 {"kind": "header", "task_count": 3,
                  "preparation": {"seconds": 100.0, "variants": 6, "verified_now": 6}},
                 _case("a", 10.0, 4.0, 5.0), _case("a", 20.0, 9.0, 10.0),
                 _case("b", 30.0, 10.0, 12.0))
    headers, cases = rt.read_records([run])
    got = rt.summarize(headers, cases, processes=2, cases_wanted=60, top=1)
    assert got["case_seconds"]["sum"] == 60.0 and got["case_seconds"]["median"] == 20.0
    assert got["grades"]["name"]["max"] == 10.0
    assert got["outside_grades"] == pytest.approx(60.0 - 1.5 - 23.0 - 27.0)
    assert got["slowest_tasks"] == [("a", 30.0)]
    # 60 cases x 20 s mean / 2 processes + the cold preparation
    assert got["projection_seconds"] == pytest.approx(600.0 + 100.0)
    text = rt.render(got, ["run"])
    assert "2 tasks (the run's header lists 3 tasks)" in text
    assert "not a random sample" in text  # tasks missing: the run stopped early


def test_grades_read_from_the_cache_add_no_grade_seconds(rt: ModuleType, tmp_path: Path) -> None:
    cached = {**_case("a", 0.2, 4.0, 5.0), "grader": {"cached": True}}
    run = _write(tmp_path / "run", {"kind": "header", "task_count": 1},
                 _case("a", 10.0, 4.0, 5.0), cached)
    headers, cases = rt.read_records([run])
    got = rt.summarize(headers, cases, processes=1, cases_wanted=2, top=1)
    assert got["cached"] == 1 and got["grades"]["name"]["n"] == 1
    assert got["grades"]["name"]["sum"] == 4.0  # the cached case's 4 s were the other's
    assert got["case_seconds"]["sum"] == pytest.approx(10.2)
    assert "1 read their grades from the grade cache" in rt.render(got, ["run"])


def test_a_warm_preparation_adds_nothing_and_bad_input_is_refused(tmp_path: Path) -> None:
    run = _write(tmp_path / "run",
                 {"kind": "header", "task_count": 1,
                  "preparation": {"seconds": 3.0, "variants": 2, "verified_now": 0}},
                 _case("a", 8.0, 2.0, 2.0))
    ok = subprocess.run([sys.executable, str(SCRIPT), str(run), "--cases", "4",
                         "--processes", "1"], capture_output=True, text=True, check=True)
    assert "4 cases of this mix at 1 processes: 0.0 h" in ok.stdout
    assert "0 verified by SANY/TLC in that run" in ok.stdout
    missing = subprocess.run([sys.executable, str(SCRIPT), str(tmp_path / "none")],
                             capture_output=True, text=True)
    assert missing.returncode != 0 and "no results file" in missing.stderr
    (tmp_path / "bad.jsonl").write_text("{not json\n")
    broken = subprocess.run([sys.executable, str(SCRIPT), str(tmp_path / "bad.jsonl")],
                            capture_output=True, text=True)
    assert broken.returncode != 0 and "bad.jsonl:1: not JSON" in broken.stderr
