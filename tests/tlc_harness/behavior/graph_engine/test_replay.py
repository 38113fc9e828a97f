"""Replaying a witness with TLC: the states of a forward failure are followed through the
output's own Init and Next; a sequence that is not a behavior is told apart."""

from __future__ import annotations

from tlc_harness.behavior.engine import grade_behavior
from tlc_harness.behavior.graph_engine.replay import replay
from tlc_harness.behavior.options import BehaviorOptions
from tlc_harness.behavior.staging import Reference
from tlc_harness.behavior.values import ModelValue
from tlc_harness.behavior.verdicts import BehaviorVerdict
from tlc_harness.source.cfg import ModelConfig
from tlc_harness.tools.runner import Harness
from tlc_harness.tools.spec import SpecSource

PASSING = """---- MODULE Token ----
EXTENDS Naturals
CONSTANT Procs
VARIABLES holder, passes
Init == holder \\in Procs /\\ passes = 0
Next == passes < 3 /\\ holder' \\in Procs \\ {holder} /\\ passes' = passes + 1
====
"""
SPEC = SpecSource("Token", {"Token.tla": PASSING})
CFG = ModelConfig(constants=(("Procs", "{p1, p2}"),), init="Init", next="Next")
P1, P2 = ModelValue("p1"), ModelValue("p2")


def _replay(harness: Harness, states: list[tuple[object, ...]]) -> bool | None:
    return replay(harness, SPEC, CFG, ("holder", "passes"), states,  # type: ignore[arg-type]
                  "Init", "Next", timeout=60).replayed


def test_a_behavior_of_the_spec_is_replayed(harness: Harness) -> None:
    assert _replay(harness, [(P1, 0), (P2, 1), (P1, 2)]) is True
    assert _replay(harness, [(P2, 0)]) is True            # an initial state alone


def test_states_that_are_no_behavior_are_told_apart(harness: Harness) -> None:
    assert _replay(harness, [(P1, 0), (P2, 2)]) is False   # a step Next does not take
    assert _replay(harness, [(P1, 1)]) is False            # not an initial state
    assert _replay(harness, [(P1, 0), (P1, 1)]) is False   # the token stays


def test_a_step_past_the_end_is_no_behavior(harness: Harness) -> None:
    assert _replay(harness, [(P1, 0), (P2, 1), (P1, 2), (P2, 3), (P1, 4)]) is False


def test_a_forward_failure_of_the_graph_engine_carries_its_replayed_witness(
        harness: Harness) -> None:
    ref = Reference("Token", dict(SPEC.files), ModelConfig(
        constants=(("Procs", "{p1, p2, p3}"),), init="Init", next="Next",
        check_deadlock=False))
    # the token may stay where it is: a step the reference does not take
    out = PASSING.replace("Token", "Other").replace("Procs \\ {holder}", "Procs")
    graded = grade_behavior(harness, ref, {"Other.tla": out}, "Other",
                            BehaviorOptions(engine="graphs", timeout=120))
    assert graded.verdict is BehaviorVerdict.FORWARD_FAIL, graded.reason
    assert graded.details["witness_replayed"] is True, graded.details.get("replay")
    assert "replay" in graded.details["stage_seconds"]
