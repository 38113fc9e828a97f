"""References whose model is not the system's behaviors, by both engines: a model that starts
from one of its own INVARIANTs where the module has an `Init` of its own checks that the
invariant is inductive, and is graded against the same model from `Init`; a system whose
initial predicate is also an invariant is graded as usual; a constant model is not covered."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from alias_cli.main import main
from tlc_harness.behavior.engine import grade_behavior
from tlc_harness.behavior.options import ENGINES, BehaviorOptions
from tlc_harness.behavior.staging import Reference
from tlc_harness.source.cfg import parse_cfg
from tlc_harness.tools.runner import Harness

TICK = """---- MODULE Tick ----
EXTENDS Naturals
VARIABLE x
Init == x = 0
Next == x' = (x + 1) % 3
Inv == x \\in 0..2
ISpec == Inv /\\ [][Next]_x
Spec == Init /\\ [][Next]_x
====
"""
#: the same clock whose initial predicate is its invariant, as an hour clock's `HCini`
CLOCK = """---- MODULE Tick ----
EXTENDS Naturals
VARIABLE x
Ini == x \\in 0..2
Next == x' = (x + 1) % 3
Clock == Ini /\\ [][Next]_x
====
"""


#: a clock that starts at 1: it refines the wide clock's ISpec (every state is in Inv) but
#: not its system, which starts at 0
FROM_ONE = TICK.replace("Init == x = 0", "Init == x = 1")


@pytest.mark.parametrize("engine", ENGINES)
def test_a_model_of_an_inductive_invariant_is_graded_against_the_systems_spec(
        harness: Harness, engine: str) -> None:
    ref = Reference("Tick", {"Tick.tla": TICK},
                    parse_cfg("SPECIFICATION ISpec\nINVARIANT Inv\n"))
    result = grade_behavior(harness, ref, {"Tick.tla": TICK}, "Tick",
                            BehaviorOptions(engine=engine))
    assert result.verdict == "ok", result.reason
    assert "SPECIFICATION Spec" in result.details["reference_model"]
    late = grade_behavior(harness, ref, {"Tick.tla": FROM_ONE}, "Tick",
                          BehaviorOptions(engine=engine))
    # the graphs prove it (the output is the reference's own text, its names the same); the
    # wrapper engine tries no value translation, so its failure proves nothing
    expected = "forward_fail" if engine != "wrappers" else "no_mapping"
    assert late.verdict == expected, late.reason


@pytest.mark.parametrize("engine", ENGINES)
def test_without_a_spec_formula_the_system_is_init_and_next(harness: Harness,
                                                             engine: str) -> None:
    bare = TICK.replace("Spec == Init /\\ [][Next]_x\n", "").replace("ISpec", "IS")
    ref = Reference("Tick", {"Tick.tla": bare}, parse_cfg("INIT Inv\nNEXT Next\nINVARIANT Inv\n"))
    result = grade_behavior(harness, ref, {"Tick.tla": bare}, "Tick",
                            BehaviorOptions(engine=engine))
    assert result.verdict == "ok", result.reason
    assert "INIT Init NEXT Next" in result.details["reference_model"]


@pytest.mark.parametrize("engine", ENGINES)
def test_a_system_whose_initial_predicate_is_invariant_is_graded(harness: Harness,
                                                                 engine: str) -> None:
    ref = Reference("Tick", {"Tick.tla": CLOCK},
                    parse_cfg("SPECIFICATION Clock\nINVARIANT Ini\n"))
    result = grade_behavior(harness, ref, {"Tick.tla": CLOCK}, "Tick",
                            BehaviorOptions(engine=engine))
    assert result.verdict == "ok", result.reason


@pytest.mark.parametrize("engine", ENGINES)
def test_a_constant_model_is_not_covered(harness: Harness, engine: str) -> None:
    ref = Reference("Tick", {"Tick.tla": TICK}, parse_cfg("CONSTANT\n"))
    result = grade_behavior(harness, ref, {"Tick.tla": TICK}, "Tick",
                            BehaviorOptions(engine=engine))
    assert result.verdict == "not_covered", result.reason
    assert result.tlc_runs == 0


#: a graph drawn at random once per run, as SpanTreeRandom's `Edges`
RANDOM = """---- MODULE Walk ----
EXTENDS Naturals, TLC
\\* RandomElement in a comment does not count
Edges == RandomElement(SUBSET {1, 2, 3})
VARIABLE x
Init == x = 0
Next == x' = IF x \\in Edges THEN 0 ELSE (x + 1) % 4
====
"""


@pytest.mark.parametrize("engine", ENGINES)
def test_a_reference_drawing_values_at_random_is_not_covered(harness: Harness,
                                                             engine: str) -> None:
    ref = Reference("Walk", {"Walk.tla": RANDOM}, parse_cfg("INIT Init\nNEXT Next\n"))
    result = grade_behavior(harness, ref, {"Walk.tla": RANDOM}, "Walk",
                            BehaviorOptions(engine=engine))
    assert result.verdict == "not_covered", result.reason
    assert "RandomElement" in result.reason and result.tlc_runs == 0
    plain = RANDOM.replace("RandomElement(SUBSET {1, 2, 3})", "{2}")
    ref = Reference("Walk", {"Walk.tla": plain}, parse_cfg("INIT Init\nNEXT Next\n"))
    result = grade_behavior(harness, ref, {"Walk.tla": plain}, "Walk",
                            BehaviorOptions(engine=engine))
    assert result.verdict == "ok", result.reason


@pytest.mark.tlc
def test_grade_says_which_model_it_graded_against(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    task = tmp_path / "tick"
    task.mkdir()
    (task / "Tick.tla").write_text(TICK)
    (task / "MCTick.cfg").write_text("SPECIFICATION ISpec\nINVARIANT Inv\n")
    output = tmp_path / "out.tla"
    output.write_text(TICK)
    code = main(["grade", str(output), "--task", str(task), "--module", "Tick.tla",
                 "--cfg", "MCTick.cfg"])
    shown = capsys.readouterr().out
    assert code == 0, shown
    assert re.search(r"^behavior\s+ok", shown, re.M), shown
    assert "reference model: the reference's model checks that its invariant Inv is " \
           "inductive" in shown
