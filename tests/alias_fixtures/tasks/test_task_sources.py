"""Task sources in the benchmark and the CLI: several in one run, a bad task never stops one."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from alias_cli.main import main as cli_main
from alias_fixtures.tasks.task import builtin_tasks_dir

pytest_plugins = ["pytester"]

CASE_TEST = """
import pytest

@pytest.mark.alias_case
def test_case(alias_outcome):
    if not alias_outcome.passed:
        pytest.fail(alias_outcome.reason, pytrace=False)
"""


def two_sources(root: Path) -> tuple[Path, Path]:
    """Two task folders: one good task in each, and a broken task beside the second."""
    first, second = root / "first", root / "second"
    shutil.copytree(builtin_tasks_dir() / "hour_clock", first / "hour_clock")
    shutil.copytree(builtin_tasks_dir() / "up_down_counter", second / "up_down_counter")
    broken = second / "broken"
    broken.mkdir()
    (broken / "Broken.tla").write_text("---- MODULE Broken ----\n====\n")
    (broken / "Broken.cfg").write_text("SPECIFICATION\n")
    return first, second


@pytest.mark.tlc
def test_a_run_takes_several_sources_and_skips_a_broken_task(pytester: pytest.Pytester) -> None:
    first, second = two_sources(pytester.path)
    pytester.makepyfile(test_bench=CASE_TEST)
    out = pytester.path / "out"
    result = pytester.runpytest("-p", "no:cacheprovider", "--alias-tasks", f"{first},{second}",
                                "--alias-model", "reference", "--alias-samples", "1",
                                "--alias-conditions", "original", "--alias-out", str(out),
                                "--alias-cache", str(pytester.path / "cache"))
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(["*1 task(s) of the sources skipped*",
                                 "*task broken skipped (cannot be loaded)*Broken.cfg*line 1*"])
    lines = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    header = next(r for r in lines if r["kind"] == "header")
    assert [s["task"] for s in header["skipped_tasks"]] == ["broken"]
    cases = [r for r in lines if r["kind"] == "case"]
    assert {r["task"]: r["published"] for r in cases} == {"hour_clock": False,
                                                         "up_down_counter": False}
    # cold: both variants verified by TLC now, and the time it took, shown and recorded
    result.stdout.fnmatch_lines(["*variants verified in * s (2 by TLC, the rest from the cache)*"])
    assert header["preparation"]["variants"] == 2
    assert header["preparation"]["verified_now"] == 2
    assert header["preparation"]["seconds"] > 0
    # warm: the same run again (same out folder, its variant cache) reads both from it
    again = pytester.runpytest("-p", "no:cacheprovider", "--alias-tasks", f"{first},{second}",
                               "--alias-model", "reference", "--alias-samples", "1",
                               "--alias-conditions", "original", "--alias-out", str(out),
                               "--alias-cache", str(pytester.path / "cache"))
    again.stdout.fnmatch_lines(["*variants verified in * s (0 by TLC, the rest from the cache)*"])


def test_a_missing_source_is_a_usage_error_not_a_crash(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_bench=CASE_TEST)
    result = pytester.runpytest("-p", "no:cacheprovider", "--alias-tasks",
                                str(pytester.path / "nowhere"))
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--alias-tasks*nowhere*does not exist*"])


def test_alias_bench_tasks_lists_skipped_tasks_and_goes_on(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    first, second = two_sources(tmp_path)
    assert cli_main(["tasks", f"{first},{second}"]) == 0
    out = capsys.readouterr().out
    assert "hour_clock" in out and "up_down_counter" in out
    assert "skipped broken:" in out and "Broken.cfg" in out
