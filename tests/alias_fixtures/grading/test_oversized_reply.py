"""An oversized reply is the model's failure: graded `too_large` and recorded, never exit 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from alias_cli.main import main
from alias_fixtures.grading.extract import MAX_REPLY_CHARS, extract_module
from alias_fixtures.grading.grade import grade_output
from alias_fixtures.tasks.task import builtin_tasks
from alias_fixtures.tasks.variants import make_variant
from tlc_harness.tools.runner import Harness

MODULE = "---- MODULE HourClock ----\nVARIABLE hr\nInit == hr = 1\nNext == hr' = hr\n====\n"


def test_a_reply_over_the_limit_is_too_large() -> None:
    padded = MODULE + "x" * (MAX_REPLY_CHARS + 1 - len(MODULE))
    got = extract_module(padded)
    assert got.verdict == "too_large" and got.text is None
    assert extract_module(MODULE + "x" * (MAX_REPLY_CHARS - len(MODULE) - 10)).verdict == "ok"


def test_too_large_is_a_parse_verdict(harness: Harness) -> None:
    task = next(t for t in builtin_tasks() if t.id == "hour_clock")
    grades = grade_output(harness, make_variant(task, "original", seed="0"),
                          "(* *)" * (MAX_REPLY_CHARS // 4))
    assert [grades.parse.verdict, grades.name.verdict, grades.behavior.verdict] == \
        ["too_large"] * 3
    assert not grades.parse.passed


@pytest.mark.tlc
def test_grade_json_on_a_20_mb_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    big = tmp_path / "reply.txt"
    with big.open("w", encoding="utf-8") as handle:
        handle.write(MODULE)
        for _ in range(20):
            handle.write("\\* " + "y" * (1024 * 1024) + "\n")
    code = main(["grade", str(big), "--task", "hour_clock", "--json"])
    report = json.loads(capsys.readouterr().out)
    assert code == 1, report
    assert report["parse"]["verdict"] == "too_large"
