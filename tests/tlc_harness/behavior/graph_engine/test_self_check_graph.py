"""A reference graded against itself reuses its own graph as the output's: the same module
under the same model explores to the same states, so the self-check pays one exploration;
anything else (another module text, a model with overrides or a CONSTRAINT) explores the
output's own."""

from __future__ import annotations

from tlc_harness.behavior.engine import grade_behavior
from tlc_harness.behavior.options import BehaviorOptions
from tlc_harness.behavior.staging import Reference
from tlc_harness.behavior.verdicts import BehaviorVerdict
from tlc_harness.source.cfg import ModelConfig
from tlc_harness.tools.runner import Harness

RING = """---- MODULE Ring ----
EXTENDS Naturals
CONSTANT N
VARIABLES pos, laps
Init == pos \\in 0..N-1 /\\ laps = 0
Next == pos' = (pos + 1) % N /\\ laps' = IF pos = N - 1 THEN (laps + 1) % 2 ELSE laps
Spec == Init /\\ [][Next]_<<pos, laps>>
Small == laps < 2
====
"""
MODEL = ModelConfig(constants=(("N", "3"),), specification="Spec")
GRAPHS = BehaviorOptions(engine="graphs", timeout=120)


def _self_check(harness: Harness, model: ModelConfig) -> dict[str, object]:
    ref = Reference("Ring", {"Ring.tla": RING}, model)
    graded = grade_behavior(harness, ref, {"Ring.tla": RING}, "Ring", GRAPHS)
    assert graded.verdict is BehaviorVerdict.OK, graded.reason
    return graded.details


def test_a_reference_against_itself_reuses_its_graph(harness: Harness) -> None:
    details = _self_check(harness, MODEL)
    assert details.get("output_graph_reused") is True
    assert details["output_states"] == details["reference_states"] == 6


def test_a_copy_under_another_model_explores_its_own(harness: Harness) -> None:
    bounded = ModelConfig(constants=(("N", "3"),), specification="Spec", constraints=("Small",))
    assert "output_graph_reused" not in _self_check(harness, bounded)
    ref = Reference("Ring", {"Ring.tla": RING}, MODEL)
    other = RING.replace("Ring", "Other")  # the same text under another name
    graded = grade_behavior(harness, ref, {"Other.tla": other}, "Other", GRAPHS)
    assert graded.verdict is BehaviorVerdict.OK and "output_graph_reused" not in graded.details


#: processes named by model values the cfg declares beside the set (`p1 = p1`)
TOKENS = """---- MODULE Tokens ----
CONSTANT Procs
VARIABLE holder
Init == holder \\in Procs
Next == \\E p \\in Procs \\ {holder} : holder' = p
Spec == Init /\\ [][Next]_holder
====
"""


def test_model_values_the_cfg_declares_do_not_stop_the_reuse(harness: Harness) -> None:
    model = ModelConfig(constants=(("p1", "p1"), ("p2", "p2"), ("Procs", "{p1, p2}")),
                        specification="Spec")
    ref = Reference("Tokens", {"Tokens.tla": TOKENS}, model)
    graded = grade_behavior(harness, ref, {"Tokens.tla": TOKENS}, "Tokens", GRAPHS)
    assert graded.verdict is BehaviorVerdict.OK, graded.reason
    assert graded.details.get("output_graph_reused") is True
