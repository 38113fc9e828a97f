"""`--slow-sample K` (the root conftest): CI keeps a fixed one in K of the slow tests, the ones
marked `slow(ci=True)` always, and says how many ran; without it every slow test runs. No SANY
or TLC: the inner tests are plain."""

from __future__ import annotations

import shutil
import sys

import pytest

from tests.conftest import ROOT

pytest_plugins = ["pytester"]

COUNT = 40
TESTS = f'''
import pytest


def test_quick():
    pass


@pytest.mark.slow(ci=True)
def test_always():
    pass


@pytest.mark.slow
@pytest.mark.parametrize("n", range({COUNT}))
def test_long(n):
    pass
'''


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    shutil.copy(ROOT / "conftest.py", pytester.path / "conftest.py")
    pytester.makepyfile(test_suite=TESTS)
    pytester.makeini("[pytest]\nmarkers =\n    slow: long\n    tlc: starts TLC\n")
    return pytester


def _expected(every: int) -> int:
    sys.path.insert(0, str(ROOT))
    try:
        from conftest import in_sample  # the root conftest under test
    finally:
        sys.path.remove(str(ROOT))
    return sum(in_sample(f"test_suite.py::test_long[{n}]", every) for n in range(COUNT))


@pytest.mark.parametrize("xdist", [[], ["-n", "2"]], ids=["alone", "xdist"])
def test_a_fixed_sample_runs_and_is_counted(project: pytest.Pytester, xdist: list[str]) -> None:
    kept = _expected(4)
    assert 0 < kept < COUNT
    result = project.runpytest_subprocess("-p", "no:cacheprovider", *xdist, "--slow-sample", "4")
    result.assert_outcomes(passed=2 + kept)
    result.stdout.fnmatch_lines([f"ALIAS slow tests: a fixed sample of {kept} of {COUNT} "
                                 "ran (--slow-sample 4); `tox -e full` runs them all"])


def test_the_sample_is_the_same_every_run(project: pytest.Pytester) -> None:
    def chosen() -> list[str]:
        result = project.runpytest_subprocess("-p", "no:cacheprovider", "--collect-only", "-q",
                                              "--slow-sample", "3")
        return [line for line in result.outlines if "::" in line]
    first = chosen()
    assert first == chosen()
    assert "test_suite.py::test_always" in first and "test_suite.py::test_quick" in first


def test_without_the_option_every_slow_test_runs(project: pytest.Pytester) -> None:
    result = project.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=COUNT + 2)
    assert "fixed sample" not in result.stdout.str()


def test_a_bad_count_is_refused(project: pytest.Pytester) -> None:
    result = project.runpytest_subprocess("-p", "no:cacheprovider", "--slow-sample", "0")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--slow-sample*'0' is not a whole number of at least 1*"])
