"""Under `--dist loadgroup`, a case's xdist scope is its variant, read from its id (pytest 9.2
drops the group suffix xdist's own loadgroup puts in node ids)."""

from __future__ import annotations

import pytest

from alias_fixtures.plugin.scheduling import case_param, case_scope


@pytest.mark.parametrize(("nodeid", "scope"), [
    ("benchmarks/test_cases.py::test_case[hour_clock/original/s0]", "alias-case:hour_clock/original"),
    ("benchmarks/test_cases.py::test_case[hour_clock/original/s12]", "alias-case:hour_clock/original"),
    ("test_bench.py::test_case[a.b/random/s3]@a.b/random", "alias-case:a.b/random"),
    ("scripts/study_scale_cases.py::test_case[1522/claude-opus-4-5]", "alias-case:1522"),
    ("tests/test_x.py::test_case[plain]", None),
    ("tests/test_x.py::test_other[a/b/s0]", None),
    ("tests/test_x.py::test_y", None),
    ("tests/test_x.py::test_z[b.py::test_case[t/c/s0]-x]", None),  # a case's id as a parameter
], ids=["case", "case-s12", "xdist-suffix", "study-output", "one-part", "other-test", "no-params",
        "case-id-inside-a-parameter"])
def test_a_case_is_scoped_by_its_variant(nodeid: str, scope: str | None) -> None:
    assert case_scope(nodeid) == scope


def test_two_samples_share_a_scope_and_two_conditions_do_not() -> None:
    ids = [f"b.py::test_case[t/{c}/s{s}]" for c in ("original", "random") for s in (0, 1)]
    assert len({case_scope(i) for i in ids}) == 2


def test_only_a_case_s_own_id_is_read() -> None:
    assert case_param("b.py::test_case[t/c/s0]") == "t/c/s0"
    assert case_param("b.py::test_case[t/c/s0]@alias-case:t/c") == "t/c/s0"
    assert case_param("b.py::TestX::test_case[t/c/s0]") == "t/c/s0"
    assert case_param("b.py::test_other[x-test_case[t/c/s0]]") is None
    assert case_param("b.py::test_case") is None
