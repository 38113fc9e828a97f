"""A folder's slow tests are opt-in (`alias_fixtures.plugin.slow_tests`): left out unless
`--alias-slow`, and the summary names what was left out and the command that runs it, with
and without xdist. No SANY or TLC: the inner tests are plain."""

from __future__ import annotations

import pytest

pytest_plugins = ["pytester"]

CONFTEST = '''
from pathlib import Path

from alias_fixtures.plugin.slow_tests import SlowOptIn


def pytest_configure(config):
    config.pluginmanager.register(SlowOptIn(Path(__file__).resolve().parent), "slow-opt-in")
'''
TESTS = '''
import pytest


def test_quick():
    pass


@pytest.mark.slow
def test_long():
    pass
'''


@pytest.fixture
def folder(pytester: pytest.Pytester) -> pytest.Pytester:
    bench = pytester.mkpydir("bench")
    (bench / "conftest.py").write_text(CONFTEST, encoding="utf-8")
    (bench / "test_controls.py").write_text(TESTS, encoding="utf-8")
    pytester.makeini("[pytest]\nmarkers =\n    slow: long\n")
    return pytester


@pytest.mark.parametrize("xdist", [[], ["-n", "2"]], ids=["alone", "xdist"])
def test_slow_tests_are_left_out_and_named(folder: pytest.Pytester, xdist: list[str]) -> None:
    result = folder.runpytest_subprocess("-p", "no:cacheprovider", *xdist, "bench")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines([
        "ALIAS bench: selected test_controls.py 1",
        "ALIAS bench: left out 1 slow test(s), opt-in: test_controls.py 1",
        "ALIAS run them with:  pytest -n auto bench/ --alias-slow",
    ])


def test_the_option_runs_them(folder: pytest.Pytester) -> None:
    result = folder.runpytest_subprocess("-p", "no:cacheprovider", "bench", "--alias-slow")
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(["ALIAS bench: slow tests included (--alias-slow)"])


def test_collect_only_prints_no_summary(folder: pytest.Pytester) -> None:
    result = folder.runpytest_subprocess("-p", "no:cacheprovider", "--collect-only", "bench")
    result.stdout.no_fnmatch_line("ALIAS*")
