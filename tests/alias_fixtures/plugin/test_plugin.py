"""The pytest plugin end to end: inner pytest sessions with -n 2, asserting on the JSONL."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from alias_fixtures.tasks.task import builtin_tasks_dir
from reports.render import write_report
from reports.schema import CaseRecord, undeclared
from reports.stand_ins import stand_in

pytest_plugins = ["pytester"]

CASE_TEST = """
import pytest

@pytest.mark.alias_case
def test_case(alias_outcome):
    if not alias_outcome.passed:
        pytest.fail(alias_outcome.reason, pytrace=False)
"""


@pytest.fixture
def tasks(pytester: pytest.Pytester) -> Path:
    folder = pytester.path / "tasks"
    for task in ("hour_clock", "up_down_counter"):
        shutil.copytree(builtin_tasks_dir() / task, folder / task)
    pytester.makepyfile(test_bench=CASE_TEST)
    return folder


def records(out: Path) -> list[dict[str, object]]:
    lines = (out / "results.jsonl").read_text().splitlines()
    return [json.loads(line) for line in lines]


def run(pytester: pytest.Pytester, tasks: Path, *args: str) -> pytest.RunResult:
    return pytester.runpytest("-p", "no:cacheprovider", "--alias-tasks", str(tasks),
                              "--alias-out", str(pytester.path / "out"),
                              "--alias-cache", str(pytester.path / "cache"), *args)


@pytest.mark.tlc
def test_reference_run_with_xdist_writes_one_line_per_case(pytester: pytest.Pytester,
                                                            tasks: Path) -> None:
    result = run(pytester, tasks, "--alias-model", "reference", "--alias-samples", "2", "-n", "2",
                 "-v")
    result.assert_outcomes(passed=8)
    # each variant's cases go to one worker (`--dist loadgroup` unless the user chose)
    workers: dict[str, set[str]] = {}
    for line in result.outlines:
        if "PASSED" in line and "test_case[" in line and line.startswith("[gw"):
            case = line.split("test_case[", 1)[1].rsplit("]", 1)[0]
            workers.setdefault(case.rsplit("/", 1)[0], set()).add(line.split("]", 1)[0])
    assert sorted(workers) == [f"{t}/{c}" for t in ("hour_clock", "up_down_counter")
                               for c in ("original", "random")]
    assert all(len(w) == 1 for w in workers.values()), workers
    rows = records(pytester.path / "out")
    assert rows[0]["kind"] == "header"
    assert len(rows[0]["jar_sha256"]) == 64  # type: ignore[arg-type]
    cases = [r for r in rows if r["kind"] == "case"]
    assert sorted(str(r["id"]) for r in cases) == sorted(
        f"{t}/{c}/s{s}" for t in ("hour_clock", "up_down_counter")
        for c in ("original", "random") for s in (0, 1))
    for case in cases:
        grades = case["grades"]
        assert isinstance(grades, dict)
        assert all(grades[g]["passed"] for g in ("parse", "name", "behavior")), case
        assert case["schema_version"] == 1 and case["infra_error"] is None
        assert undeclared(case, CaseRecord) == [], "a field the record schema lacks"
        assert case["run_id"] == rows[0]["run_id"]
    assert rows[0]["stand_in"] == stand_in("reference")
    result.stdout.fnmatch_lines(["*ALIAS summary*", "*original*100.0%*"])
    # each variant's reference checked once, by one of the two workers, into --alias-cache
    assert len(list((pytester.path / "cache" / "references").glob("*.json"))) == 4
    assert list((pytester.path / "cache" / "graphs").glob("*.pickle"))
    # the reference's two identical replies to a variant are graded once, the other read
    assert len(list((pytester.path / "cache" / "grades").glob("*.json"))) == 4
    cached = sorted(str(r["id"]) for r in cases if r.get("grader") == {"cached": True})
    assert [c.rsplit("/", 1)[0] for c in cached] == sorted(
        f"{t}/{c}" for t in ("hour_clock", "up_down_counter") for c in ("original", "random"))


@pytest.mark.tlc
def test_resume_skips_recorded_cases(pytester: pytest.Pytester, tasks: Path) -> None:
    run(pytester, tasks, "--alias-model", "reference", "--alias-samples", "1",
        "-k", "hour_clock").assert_outcomes(passed=2)
    again = run(pytester, tasks, "--alias-model", "reference", "--alias-samples", "1",
                "--alias-resume")
    again.assert_outcomes(passed=2, deselected=2)
    cases = [r for r in records(pytester.path / "out") if r["kind"] == "case"]
    assert len(cases) == 4 and len({r["id"] for r in cases}) == 4
    done = run(pytester, tasks, "--alias-model", "reference", "--alias-samples", "1",
               "--alias-resume")
    assert done.ret == 0  # every case recorded: success, not pytest's "no tests" (5)
    done.stdout.fnmatch_lines(["*all selected cases were already recorded*"])


@pytest.mark.tlc
def test_model_failures_keep_exit_zero_unless_strict(pytester: pytest.Pytester,
                                                     tasks: Path) -> None:
    outputs = pytester.path / "outs.jsonl"
    lines = [{"task": t, "condition": c, "sample": 0, "text": "I cannot write TLA+."}
             for t in ("hour_clock", "up_down_counter") for c in ("original", "random")]
    outputs.write_text("".join(json.dumps(line) + "\n" for line in lines))
    model = f"replay:{outputs}"
    lenient = run(pytester, tasks, "--alias-model", model, "--alias-samples", "1")
    lenient.assert_outcomes(failed=4)
    assert lenient.ret == 0
    lenient.stdout.fnmatch_lines(["*parse: no_module*"])
    strict = run(pytester, tasks, "--alias-model", model, "--alias-samples", "1",
                 "--alias-strict")
    assert strict.ret == 1


@pytest.mark.tlc
def test_missing_output_is_an_error_not_a_failure(pytester: pytest.Pytester,
                                                  tasks: Path) -> None:
    outputs = pytester.path / "few.jsonl"
    outputs.write_text(json.dumps({"task": "hour_clock", "condition": "original", "sample": 0,
                                   "text": "nothing"}) + "\n")
    result = run(pytester, tasks, "--alias-model", f"replay:{outputs}", "--alias-samples", "1")
    result.assert_outcomes(failed=1, errors=3)
    assert result.ret == 1
    cases = [r for r in records(pytester.path / "out") if r["kind"] == "case"]
    assert sum(1 for r in cases if r["infra_error"]) == 3


def test_bad_options_fail_early(pytester: pytest.Pytester, tasks: Path) -> None:
    result = run(pytester, tasks, "--alias-conditions", "original,bogus")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*unknown*bogus*"])


@pytest.mark.tlc
def test_demo_model_shows_the_grading_artefact(pytester: pytest.Pytester, tasks: Path) -> None:
    """The bundled demo outputs: the run is healthy (exit 0) though some outputs are wrong."""
    # in a subprocess: in-process inner runs sharing one worker interfered here (see notes)
    result = pytester.runpytest_subprocess(
        "-p", "no:cacheprovider", "--alias-tasks", str(tasks), "--alias-out",
        str(pytester.path / "out"), "--alias-cache", str(pytester.path / "cache"),
        "--alias-model", "demo", "-n", "2")
    assert result.ret == 0
    cases = [r for r in records(pytester.path / "out") if r["kind"] == "case"]
    assert len(cases) == 20
    assert (pytester.path / "out" / "report" / "index.html").is_file()
    # `alias-bench report` writes the same report from the run's records, failure taxonomy
    # with its change between conditions included
    again = pytester.path / "again"
    write_report([pytester.path / "out" / "results.jsonl"], again)
    for path in (pytester.path / "out" / "report").iterdir():
        assert (again / path.name).read_bytes() == path.read_bytes(), path.name
    taxonomy = (again / "taxonomy.md").read_text(encoding="utf-8")
    assert "| demo | name | passed | original → random |" in taxonomy

    def rate(condition: str, grade: str) -> float:
        rows = [r for r in cases if r["condition"] == condition]
        return sum(bool(r["grades"][grade]["passed"]) for r in rows) / len(rows)  # type: ignore[index]

    assert rate("original", "behavior") == rate("random", "behavior")
    assert rate("random", "name") <= rate("original", "name")
