"""`alias-bench regrade` on a saved demo run: verdicts reproduced locally and on Ray, resume,
interruption, missing outputs and bad input files."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterable, Iterator
from importlib.util import find_spec
from pathlib import Path
from typing import Any

import pytest

from alias_cli.main import main
from alias_fixtures.grading.executors import GradeJob, GradeResult
from alias_fixtures.grading.executors.local import LocalExecutor
from alias_fixtures.grading.executors.ray_pool import LOCAL_RAY_ENV
from reports.schema import CaseRecord, undeclared
from tests.conftest import ROOT

for _name, _value in LOCAL_RAY_ENV.items():  # read when Ray is imported: loopback, no stats
    os.environ.setdefault(_name, _value)
HAS_RAY = find_spec("ray") is not None
needs_ray = pytest.mark.skipif(not HAS_RAY, reason="Ray is not installed "
                               "(pip install 'alias-bench[ray]')")
pytest_plugins = ["pytester"]
SELECT = "hour_clock or up_down_counter"   # 2 tasks x 2 conditions x 2 samples = 8 cases


@pytest.fixture(scope="session")
def ray_cluster() -> Iterator[str]:
    """A local Ray on loopback with 2 CPUs, started once for the session."""
    ray = pytest.importorskip("ray", reason="Ray is not installed")
    started = not ray.is_initialized()
    if started:
        ray.init(address="local", num_cpus=2, include_dashboard=False, object_store_memory=100 * 1024 * 1024,
                 log_to_driver=False)
    yield str(ray.get_runtime_context().gcs_address)
    if started:
        ray.shutdown()


def cases(path: Path) -> dict[str, dict[str, Any]]:
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    return {r["id"]: r for r in rows if r["kind"] == "case"}


def verdicts(path: Path) -> dict[str, tuple[Any, ...]]:
    return {i: (tuple((g, v["verdict"], v["passed"]) for g, v in r["grades"].items()),
                r["grades"].get("behavior", {}).get("covered"), r["infra_error"])
            for i, r in cases(path).items()}


@pytest.fixture(scope="module")
def saved_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A demo run of 8 cases, by the benchmark with -n 2; with Ray there, graded on a private
    Ray that the run's xdist controller starts and its workers join."""
    out = tmp_path_factory.mktemp("demo-run")
    executor = ["--alias-executor", "ray"] if HAS_RAY else []
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
         "benchmarks/test_cases.py", "--alias-model", "demo", "--alias-samples", "2",
         "--alias-out", str(out), "-n", "2", "-k", SELECT, *executor],
        cwd=ROOT, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return out / "results.jsonl"


@pytest.mark.tlc
def test_benchmark_records_say_where_they_were_graded(saved_run: Path) -> None:
    records = cases(saved_run)
    assert len(records) == 8
    header = json.loads(saved_run.read_text().splitlines()[0])
    assert header["kind"] == "header" and header["behavior_engine"] == "auto"
    if HAS_RAY:
        assert header["executor"] == "ray"
        assert {r["grader"]["executor"] for r in records.values()} == {"ray"}
        assert all(r["grader"]["attempts"] == 1 for r in records.values())
    outcomes = {r["grades"]["behavior"]["passed"] for r in records.values()}
    assert outcomes == {True, False}  # the demo model gets some right, some wrong


@pytest.mark.tlc
def test_regrade_locally_reproduces_the_verdicts(saved_run: Path, tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    before = saved_run.read_bytes()
    code = main(["regrade", str(saved_run), "--out", str(tmp_path / "local"), "--workers", "2"])
    assert code == 0, capsys.readouterr().err
    assert saved_run.read_bytes() == before  # the input is only read
    new = tmp_path / "local" / "results.jsonl"
    assert verdicts(new) == verdicts(saved_run)
    assert {r["regrade"]["executor"] for r in cases(new).values()} == {"local"}
    new_header = json.loads(new.read_text().splitlines()[0])
    old_header = json.loads(saved_run.read_text().splitlines()[0])
    assert new_header["run_id"] != old_header["run_id"]
    assert new_header["regrade"]["source_run_id"] == old_header["run_id"]
    for record in cases(new).values():
        assert record["run_id"] == new_header["run_id"]
        assert undeclared(record, CaseRecord) == [], "a field the record schema lacks"
    captured = capsys.readouterr()
    assert "regrade [" in captured.err and "8/8 cases" in captured.err  # the progress line
    assert (tmp_path / "local" / "report").is_dir(), captured.out


@needs_ray
@pytest.mark.tlc
def test_regrade_on_ray_reproduces_the_verdicts(saved_run: Path, tmp_path: Path,
                                                ray_cluster: str,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["regrade", str(saved_run), "--out", str(tmp_path / "ray"),
                 "--executor", "ray", "--no-report"])
    assert code == 0, capsys.readouterr().err
    new = tmp_path / "ray" / "results.jsonl"
    assert verdicts(new) == verdicts(saved_run)
    workers = {r["regrade"]["worker"] for r in cases(new).values()}
    assert all(w.startswith("ray:") for w in workers)


def _copy_run(saved_run: Path, folder: Path, task: str) -> Path:
    """A copy of the run with the cases of one task, whose records name the copy's outputs."""
    shutil.copytree(saved_run.parent, folder, ignore=shutil.ignore_patterns("report"))
    results = folder / "results.jsonl"
    lines = results.read_text().replace(str(saved_run.parent), str(folder)).splitlines()
    results.write_text("".join(line + "\n" for line in lines
                               if json.loads(line).get("task") in (None, task)))
    return results


@pytest.mark.tlc
def test_interrupted_regrade_keeps_finished_cases_and_resume_grades_the_rest(
        saved_run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    graded: list[str] = []
    stop_after = [2]
    real = LocalExecutor.grade_all

    def counting(self: LocalExecutor, jobs: Iterable[GradeJob]) -> Iterator[GradeResult]:
        for result in real(self, jobs):
            graded.append(result.case_id)
            if len(graded) == stop_after[0]:
                raise KeyboardInterrupt  # Ctrl-C while the second case is being recorded
            yield result

    monkeypatch.setattr(LocalExecutor, "grade_all", counting)
    run = _copy_run(saved_run, tmp_path / "run", "hour_clock")  # 4 cases
    missing = cases(run)["hour_clock/random/s1"]
    Path(missing["output_path"]).unlink()
    out = tmp_path / "again"
    assert main(["regrade", str(run), "--out", str(out), "--no-report"]) == 130
    kept = (out / "results.jsonl").read_text().splitlines()
    assert len(kept) == 1 + 1 + 1  # the header, the missing output's case, one graded case
    assert "interrupted" in capsys.readouterr().err
    # without --resume an existing regrade is refused
    assert main(["regrade", str(run), "--out", str(out), "--no-report"]) == 2
    assert "--resume" in capsys.readouterr().err
    graded.clear()
    stop_after[0] = 0
    assert main(["regrade", str(run), "--out", str(out), "--no-report", "--resume"]) == 1
    lines = (out / "results.jsonl").read_text().splitlines()
    assert lines[:3] == kept  # finished cases are kept as they were
    assert len(graded) == 4 - 1 - 1 and len(lines) == 1 + 4
    new = cases(out / "results.jsonl")
    assert "missing or changed" in new[missing["id"]]["infra_error"]  # recorded, not dropped
    assert {i: v for i, v in verdicts(out / "results.jsonl").items() if i != missing["id"]} == {
        i: v for i, v in verdicts(saved_run).items() if i in new and i != missing["id"]}
    # a finished regrade, resumed, grades nothing
    graded.clear()
    assert main(["regrade", str(run), "--out", str(out), "--no-report", "--resume"]) == 1
    assert graded == [] and (out / "results.jsonl").read_text().splitlines() == lines
    assert "regrading 0 of 4 cases" in capsys.readouterr().err


@pytest.mark.parametrize(("content", "message"), [
    (None, "no such results file"),
    ("this is not json\n", "not JSON"),
    ('{"kind": "header", "schema_version": 1}\n', "no case records"),
    ('{"schema_version": 1, "kind": "case", "id": "a/original/s0", "model": "demo", '
     '"task": "a", "condition": "original", "sample": 0}\n', "no run header"),
    ('{"kind": "likelihood", "task": "a"}\n', "not a case record"),
    ('[1, 2]\n', "must be a JSON object"),
])
def test_bad_input_file_is_a_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                         content: str | None, message: str) -> None:
    path = tmp_path / "results.jsonl"
    if content is not None:
        path.write_text(content)
    assert main(["regrade", str(path), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("alias-bench: ") and message in err


@pytest.mark.tlc
def test_output_folder_of_the_input_is_refused(saved_run: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    before = saved_run.read_bytes()
    assert main(["regrade", str(saved_run), "--out", str(saved_run.parent)]) == 2
    assert "is the input file" in capsys.readouterr().err
    assert saved_run.read_bytes() == before
    assert main(["regrade", str(saved_run), "--executor", "ray:"]) == 2
    assert "executor must be" in capsys.readouterr().err


def test_ray_executor_without_ray_says_what_to_install(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "ray" else real(name, *a))
    assert main(["regrade", str(tmp_path / "results.jsonl"), "--executor", "ray"]) == 2
    assert "pip install 'alias-bench[ray]'" in capsys.readouterr().err


def test_benchmark_refuses_an_unknown_executor(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("-p", "no:cacheprovider", "--alias-model", "demo",
                                "--alias-executor", "slurm")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--alias-executor: executor must be local, ray or ray:ADDRESS*"])
