"""One golden fixture spec per TLC verdict class, on both backends."""

from __future__ import annotations

import pytest

from tests.conftest import FIXTURES
from tlc_harness.tools.results import Verdict
from tlc_harness.tools.runner import Harness

V = FIXTURES / "verdicts"

# fixture -> (verdict, violated name, missing names, distinct states or None to skip)
GOLDEN = {
    "Ok": (Verdict.OK, None, (), 12),
    "InvViolated": (Verdict.INVARIANT_VIOLATED, "SmallCount", (), None),
    "InvInitial": (Verdict.INVARIANT_VIOLATED, "FlagSet", (), None),
    "Liveness": (Verdict.PROPERTY_VIOLATED, "Reaches2", (), None),
    "ActionProp": (Verdict.PROPERTY_VIOLATED, "Monotone", (), None),
    "Deadlock": (Verdict.DEADLOCK, None, (), 4),
    "Assume": (Verdict.ASSUMPTION_FAILED, None, (), None),
    "NoConst": (Verdict.CONFIG_BIND_FAIL, None, ("Procs",), None),
    "UndefinedInv": (Verdict.CONFIG_BIND_FAIL, None, ("SafetyInv",), None),
    "EvalError": (Verdict.EVAL_ERROR, None, (), None),
    "AssertFail": (Verdict.EVAL_ERROR, None, (), None),
    "ParseError": (Verdict.PARSE_ERROR, None, (), None),
    "SemanticError": (Verdict.PARSE_ERROR, None, (), None),
    "Vacuous": (Verdict.OK, None, (), 0),
}


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_golden_verdict(any_harness: Harness, name: str) -> None:
    verdict, violated, missing, distinct = GOLDEN[name]
    result = any_harness.check(V / f"{name}.tla")
    assert result.verdict is verdict, result.output[-2000:]
    assert result.violated == violated
    assert result.missing_names == missing
    if distinct is not None:
        assert result.distinct_states == distinct
    assert result.vacuous == (name == "Vacuous")
    assert result.to_json()["verdict"] == verdict.value


def test_counterexample_is_data(harness: Harness) -> None:
    result = harness.check(V / "InvViolated.tla")
    assert [s.variables for s in result.trace] == [{"count": str(i)} for i in range(4)]
    assert result.trace_kind == "finite"
    assert result.trace[0].action == "<Initial predicate>"


def test_liveness_trace_ends_in_stuttering(harness: Harness) -> None:
    result = harness.check(V / "Liveness.tla")
    assert result.trace_kind == "stuttering"
    assert result.exit_code == 13


def test_timeout_keeps_partial_counts(any_harness: Harness) -> None:
    result = any_harness.check(V / "Endless.tla", timeout=3)
    assert result.verdict is Verdict.TIMEOUT
    assert result.partial
    assert 2 <= result.seconds < 20


@pytest.mark.slow
def test_out_of_memory_is_resource_limit(tmp_path_factory: pytest.TempPathFactory) -> None:
    with Harness(backend="pool", heap="96m", tmp_root=str(tmp_path_factory.mktemp("oom"))) as h:
        result = h.check(V / "OutOfMemory.tla", timeout=120)
    assert result.verdict is Verdict.RESOURCE_LIMIT


def test_deadlock_flag_from_cfg_compat(harness: Harness) -> None:
    text = (V / "Deadlock.cfg").read_text() + "CHECK_DEADLOCK FALSE\n"
    from tlc_harness.source.cfg import parse_cfg

    result = harness.check(V / "Deadlock.tla", parse_cfg(text))
    assert result.verdict is Verdict.OK
    assert "-deadlock" in result.tlc_args
