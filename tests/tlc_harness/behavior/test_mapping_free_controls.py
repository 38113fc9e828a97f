"""Controls for the checks that need no mapping, generated from their registry
(`checks.MAPPING_FREE`): for each check a negative (an output the check must fail, as a
`mapping_free` reverse failure of its own kind) and a positive (an output of the same shape
the check must leave alone). A check added to the registry without controls fails here."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from tests.tlc_harness.behavior.graph_engine.test_initial_states import FREE
from tests.tlc_harness.behavior.graph_engine.test_initial_states import REF as LAMP_REF
from tests.tlc_harness.behavior.graph_engine.test_stored_constants import SMALL
from tests.tlc_harness.behavior.test_soundness import CLOCK, COUNTER
from tests.tlc_harness.behavior.test_soundness import REF as COUNTER_REF
from tlc_harness.behavior.checks import MAPPING_FREE
from tlc_harness.behavior.engine import grade_behavior
from tlc_harness.behavior.options import BehaviorOptions
from tlc_harness.behavior.staging import Reference
from tlc_harness.behavior.verdicts import BehaviorResult, BehaviorVerdict, Reason, Soundness
from tlc_harness.source.cfg import ModelConfig
from tlc_harness.tools.runner import Harness

CLOCK_REF = Reference("Clock", {"Clock.tla": CLOCK}, ModelConfig(specification="Spec"))


@dataclass(frozen=True)
class Control:
    """A check's controls: the reference, an output the check must fail (`negative`), one it
    must not (`positive`), and how its failure is recorded."""

    ref: Reference
    negative: str
    positive: str
    code: Reason
    marker: str | None = None   # `mapping_free_check` in the record, where the check sets it
    #: the class of the failure: the class of every mapping keeps its constants' class
    soundness: Soundness = Soundness.MAPPING_FREE


CONTROLS: dict[str, Control] = {
    # strings where the reference counts: no mapping of the grammar, and two states of four
    "too_small": Control(
        COUNTER_REF,
        COUNTER.replace("Counter", "Other").replace("x = 0", 'x = "lo"').replace(
            "x + Step <= Max /\\ x' = x + Step", "x = \"lo\" /\\ x' = \"hi\" /\\ Step <= Max"),
        COUNTER.replace("Counter", "Other"), Reason.TOO_FEW_STATES),
    # names for numbers that stop after four steps where the reference goes round forever
    "halts_sooner": Control(
        CLOCK_REF,
        CLOCK.replace("Clock", "Other").replace("hr = 0", 'hr = "a"').replace(
            "(hr + 1) % 4", 'CASE hr = "a" -> "b" [] hr = "b" -> "c" [] hr = "c" -> "d" '
            '[] hr = "d" -> "e" [] OTHER -> "f"').replace("Next ==", 'Next == hr # "f" /\\'),
        CLOCK.replace("Clock", "Other"), Reason.HALTS_SOONER),
    # a free step size its Init does not read: one initial state of two, or both
    "initial_states": Control(
        LAMP_REF, FREE.replace("on \\in BOOLEAN", "on = TRUE"), FREE, Reason.TOO_FEW_STATES,
        marker="initial_states"),
    # names for numbers: four hours and four steps, but the fourth leads back to the second
    # (not isomorphic to the clock), or to the first (isomorphic)
    "any_mapping": Control(
        CLOCK_REF, CLOCK.replace("Clock", "Other").replace("hr = 0", 'hr = "a"').replace(
            "(hr + 1) % 4", 'CASE hr = "a" -> "b" [] hr = "b" -> "c" [] hr = "c" -> "d" '
            '[] OTHER -> "b"'),
        CLOCK.replace("Clock", "Other").replace("hr = 0", 'hr = "a"').replace(
            "(hr + 1) % 4", 'CASE hr = "a" -> "b" [] hr = "b" -> "c" [] hr = "c" -> "d" '
            '[] OTHER -> "a"'), Reason.NO_STATE_MAPPING, soundness=Soundness.JUSTIFIED),
    # a free constant stored where nothing reads it: two hours where the clock has four, or
    # four (each graph under a model value for it)
    "stored_only": Control(
        CLOCK_REF, SMALL, SMALL.replace('ELSE "a"', 'ELSE IF hr = "b" THEN "c" ELSE IF hr = '
                                        '"c" THEN "d" ELSE "a"'),
        Reason.TOO_FEW_STATES, marker="stored_only"),
}


def _grade(harness: Harness, control: Control, out: str) -> BehaviorResult:
    return grade_behavior(harness, control.ref, {"Other.tla": out}, "Other",
                          BehaviorOptions(engine="auto", timeout=120))


def test_every_mapping_free_check_has_controls() -> None:
    assert set(CONTROLS) == set(MAPPING_FREE)


@pytest.mark.parametrize("check", sorted(MAPPING_FREE))
def test_the_check_fails_its_negative_control(harness: Harness, check: str) -> None:
    control = CONTROLS[check]
    graded = _grade(harness, control, control.negative)
    assert graded.verdict is BehaviorVerdict.REVERSE_FAIL, graded.reason
    assert graded.code is control.code and graded.soundness is control.soundness
    assert graded.details.get("mapping_free_check") == control.marker


@pytest.mark.parametrize("check", sorted(MAPPING_FREE))
def test_the_check_leaves_its_positive_control_alone(harness: Harness, check: str) -> None:
    control = CONTROLS[check]
    graded = _grade(harness, control, control.positive)
    assert graded.code not in (Reason.TOO_FEW_STATES, Reason.HALTS_SOONER,
                               Reason.NO_STATE_MAPPING), graded.reason
    assert graded.soundness is not Soundness.MAPPING_FREE
    assert graded.details.get("mapping_basis") != "any_mapping"
