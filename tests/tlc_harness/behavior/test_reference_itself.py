"""A reference graded against itself under the identity mapping: its reverse checks are
`F => F` and make no TLC run (`reverse_liveness.the_reference_itself`); the forward run,
which tells whether TLC explores the reference within the limits, is still made. A copy
under another module name, or any other mapping, is checked both ways as before."""

from __future__ import annotations

import pytest

from tests.tlc_harness.behavior.test_soundness import CLOCK
from tlc_harness.behavior.engine import grade_behavior
from tlc_harness.behavior.options import BehaviorOptions
from tlc_harness.behavior.reverse_liveness import CHECKED, ITSELF, the_reference_itself
from tlc_harness.behavior.search import Candidate
from tlc_harness.behavior.staging import Reference, stage_output
from tlc_harness.behavior.verdicts import BehaviorResult, BehaviorVerdict
from tlc_harness.source.cfg import ModelConfig
from tlc_harness.tools.runner import Harness

FAIR = CLOCK.replace("Spec == Init /\\ [][Next]_hr", "Spec == Init /\\ [][Next]_hr /\\ WF_hr(Next)")
REF = Reference("Clock", {"Clock.tla": FAIR}, ModelConfig(specification="Spec"))
IDENTITY = Candidate({"hr": "hr"})


def _grade(harness: Harness, files: dict[str, str], main: str, engine: str) -> BehaviorResult:
    return grade_behavior(harness, REF, files, main,
                          BehaviorOptions(engine=engine, timeout=120, self_check=True))


def test_only_the_reference_own_modules_under_the_identity_are_itself() -> None:
    staged = stage_output(REF.files, REF.main, REF)
    assert the_reference_itself(REF, staged, REF.files, REF.main, IDENTITY)
    other = {"Other.tla": FAIR.replace("Clock", "Other")}
    assert not the_reference_itself(REF, stage_output(other, "Other", REF), other, "Other",
                                    IDENTITY)
    edited = {"Clock.tla": FAIR.replace("% 4", "% 5")}
    assert not the_reference_itself(REF, stage_output(edited, "Clock", REF), edited, "Clock",
                                    IDENTITY)
    for cand in (Candidate({"hr": "(hr + 1) % 4"}), Candidate({}),
                 Candidate({"hr": "hr"}, definitions=("T == 1",)),
                 Candidate({"hr": "hr"}, model_values=("a",))):
        assert not the_reference_itself(REF, staged, REF.files, REF.main, cand), cand


@pytest.mark.parametrize("engine", ["wrappers", "graphs"])
def test_the_reference_against_itself_makes_no_reverse_run(harness: Harness,
                                                           engine: str) -> None:
    itself = _grade(harness, dict(REF.files), REF.main, engine)
    assert itself.verdict is BehaviorVerdict.OK, itself.reason
    assert itself.details["reverse_liveness"] == CHECKED
    assert itself.details["reverse_liveness_reason"] == ITSELF
    stages = itself.details["stage_seconds"]
    assert "reverse" not in stages and "reverse_liveness" not in stages, stages
    assert "forward" in stages or "confirm" in stages, stages  # the forward run is made
    # a copy under another module name is checked both ways, as any output
    copy = _grade(harness, {"Other.tla": FAIR.replace("Clock", "Other")}, "Other", engine)
    assert copy.verdict is BehaviorVerdict.OK, copy.reason
    assert copy.details["reverse_liveness"] == CHECKED
    assert copy.details["reverse_liveness_reason"] != ITSELF
    assert "reverse_liveness" in copy.details["stage_seconds"]
    assert copy.tlc_runs > itself.tlc_runs
