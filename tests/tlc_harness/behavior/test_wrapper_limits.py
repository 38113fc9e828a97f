"""The wrapper engine skips mappings whose forward run can only stop at the same limit.

A forward run explores the output's states under its constants' values; the mapping is only
checked on them. Once one run under some constants stopped at TLC's time or memory limit,
another mapping under the same constants cannot pass, and its failure could not decide
either: it is skipped. Reference constraints are evaluated on the mapped state, so they make
the explored states depend on the mapping; then nothing is skipped.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from tlc_harness.behavior.search import candidate_mappings
from tlc_harness.behavior.staging import Reference, stage_output
from tlc_harness.behavior.verdicts import BehaviorVerdict, Reason
from tlc_harness.behavior.wrapper_engine import behavior_grade
from tlc_harness.source.cfg import ModelConfig, parse_cfg
from tlc_harness.tools.results import CheckResult, Verdict

REF_TEXT = """---- MODULE Pair ----
EXTENDS Naturals
CONSTANT Max
VARIABLES x, y
Init == x = 0 /\\ y = 0
Next == \\/ x < Max /\\ x' = x + 1 /\\ UNCHANGED y
        \\/ y < Max /\\ y' = y + 1 /\\ UNCHANGED x
Spec == Init /\\ [][Next]_<<x, y>>
====
"""

OUT_TEXT = """---- MODULE Twins ----
EXTENDS Naturals
CONSTANT Top
VARIABLES a, b
Init == a = 0 /\\ b = 0
Next == \\/ a < Top /\\ a' = a + 1 /\\ UNCHANGED b
        \\/ b < Top /\\ b' = b + 1 /\\ UNCHANGED a
Spec == Init /\\ [][Next]_<<a, b>>
====
"""

CFG = parse_cfg("CONSTANT Max = 3\nSPECIFICATION Spec\n")
REF = Reference("Pair", {"Pair.tla": REF_TEXT}, CFG)


class _Scripted:
    """Answers every TLC run with one verdict, counting the runs."""

    def __init__(self, verdict: Verdict) -> None:
        self.verdict = verdict
        self.runs: list[ModelConfig] = []

    def check(self, spec: Any, cfg: ModelConfig, **_: Any) -> CheckResult:
        self.runs.append(cfg)
        return CheckResult(self.verdict, None, 0.1, detail="scripted")


def _candidates(ref: Reference) -> int:
    staged = stage_output({"Twins.tla": OUT_TEXT}, "Twins", ref)
    return len(list(candidate_mappings(staged.ref_shape, staged.out_shape)))


def test_the_example_has_two_mappings_under_one_constant_map() -> None:
    assert _candidates(REF) == 2


@pytest.mark.parametrize("verdict", [Verdict.TIMEOUT, Verdict.RESOURCE_LIMIT])
def test_a_limit_under_some_constants_skips_their_other_mappings(verdict: Verdict) -> None:
    harness = _Scripted(verdict)
    result = behavior_grade(harness, REF, {"Twins.tla": OUT_TEXT}, "Twins")  # type: ignore[arg-type]
    assert len(harness.runs) == 1
    assert result.verdict is BehaviorVerdict.UNDECIDED
    assert result.details["skipped_after_limit"] == 1
    assert result.code in (Reason.TIME_BUDGET, Reason.RESOURCE_LIMIT)


def test_an_infrastructure_error_skips_nothing() -> None:
    """A crashed JVM says nothing about the states: the next mapping gets its run."""
    harness = _Scripted(Verdict.INFRA_ERROR)
    result = behavior_grade(harness, REF, {"Twins.tla": OUT_TEXT}, "Twins")  # type: ignore[arg-type]
    assert len(harness.runs) == 2
    assert "skipped_after_limit" not in result.details


def test_reference_constraints_make_every_mapping_run() -> None:
    """A reference constraint is checked on the mapped state, so another mapping explores
    other states and may finish."""
    bounded = dataclasses.replace(REF, files={"Pair.tla": REF_TEXT.replace(
        "====", "Small == x + y < 4\n====")}, cfg=dataclasses.replace(CFG, constraints=("Small",)))
    harness = _Scripted(Verdict.TIMEOUT)
    result = behavior_grade(harness, bounded, {"Twins.tla": OUT_TEXT}, "Twins")  # type: ignore[arg-type]
    assert len(harness.runs) == 2
    assert result.verdict is BehaviorVerdict.UNDECIDED
    assert "skipped_after_limit" not in result.details


def test_failures_skip_nothing() -> None:
    """Quick failures of the forward run are the mapping's: every mapping is tried."""
    harness = _Scripted(Verdict.INVARIANT_VIOLATED)
    result = behavior_grade(harness, REF, {"Twins.tla": OUT_TEXT}, "Twins")  # type: ignore[arg-type]
    assert len(harness.runs) == 2
    assert result.verdict is BehaviorVerdict.FORWARD_FAIL


def test_a_wrapper_sany_rejects_under_every_mapping_is_no_verdict() -> None:
    """The output parses alone; a wrapper that does not parse is the grader's limit, never a
    failure of the output (nor `no_mapping`: no run compared the two)."""
    harness = _Scripted(Verdict.PARSE_ERROR)
    result = behavior_grade(harness, REF, {"Twins.tla": OUT_TEXT}, "Twins")  # type: ignore[arg-type]
    assert len(harness.runs) == 2  # both mappings tried
    assert result.verdict is BehaviorVerdict.UNDECIDED
    assert result.code is Reason.TLC_ERROR_WRAPPER
    # a real failure under the same mappings stays a failure (the class rule then rules on it)
    failing = behavior_grade(_Scripted(Verdict.INVARIANT_VIOLATED), REF,  # type: ignore[arg-type]
                             {"Twins.tla": OUT_TEXT}, "Twins")
    assert failing.verdict is BehaviorVerdict.FORWARD_FAIL
