"""Specs that draw values: found from their tokens, and checked by TLC the same in every run."""

from __future__ import annotations

import pytest

from tlc_harness.source.cfg import parse_cfg
from tlc_harness.source.draws import drawn_operators
from tlc_harness.tools.runner import Harness, HarnessSettings, deciding_settings
from tlc_harness.tools.spec import SpecSource

#: each state's one successor is drawn from 1..1000: how long the chain of states runs before
#: it repeats one depends on every draw (with TLC's polynomial picked at random, four runs
#: gave 56, 80, 49 and 25 distinct states)
DRAWS = """---- MODULE Draws ----
EXTENDS Naturals, TLC
VARIABLE x
Init == x = 0
Next == x' = RandomElement(1..1000)
====
"""
CFG = parse_cfg("INIT Init\nNEXT Next\n")


def _files(text: str) -> dict[str, str]:
    return {"M.tla": f"---- MODULE M ----\nEXTENDS TLC, Randomization\n{text}\n===="}


@pytest.mark.parametrize(("text", "drawn"), [
    ("Op == RandomElement(1..3)", ("RandomElement",)),
    ("Op == RandomSubset(2, 1..3) \\cup RandomElement({1})", ("RandomElement", "RandomSubset")),
    ("Op == TestRandomSetOfSubsets(2, 3, 1..4)", ("TestRandomSetOfSubsets",)),
    ("\\* RandomElement in a line comment\nOp == 1", ()),
    ("(* RandomElement(S) in a block comment *)\nOp == 1", ()),
    ('Op == "RandomElement"', ()),
    ("Op == RandomElements(1..3)", ()),  # another name
])
def test_drawing_operators_are_read_from_code_only(text: str, drawn: tuple[str, ...]) -> None:
    assert drawn_operators(_files(text)) == drawn


def test_only_modules_are_read() -> None:
    assert drawn_operators({"M.cfg": "CONSTANT N <- RandomElement", "Draws.tla": DRAWS}) \
        == ("RandomElement",)
    assert drawn_operators({"M.cfg": "CONSTANT N <- RandomElement"}) == ()


def test_the_fingerprint_setting_decides_verdicts() -> None:
    assert deciding_settings(HarnessSettings())["tlc_fp"] == 0
    assert HarnessSettings().tlc_seed == 0


def test_a_spec_that_draws_is_checked_the_same_in_every_run(any_harness: Harness) -> None:
    spec = SpecSource("Draws", {"Draws.tla": DRAWS})
    runs = [any_harness.check(spec, CFG) for _ in range(3)]
    assert {(r.verdict.value, r.distinct_states) for r in runs} == {("ok", runs[0].distinct_states)}
    assert all(any("-fp 0" in note for note in r.notes) for r in runs)


def test_both_backends_draw_alike(harness: Harness, fresh_harness: Harness) -> None:
    spec = SpecSource("Draws", {"Draws.tla": DRAWS})
    assert harness.check(spec, CFG).distinct_states == \
        fresh_harness.check(spec, CFG).distinct_states


def test_a_spec_that_draws_nothing_is_run_as_before(harness: Harness) -> None:
    spec = SpecSource("Still", {"Still.tla": DRAWS.replace("Draws", "Still").replace(
        "RandomElement(1..1000)", "x")})
    result = harness.check(spec, CFG)
    assert result.distinct_states == 1
    assert not any("-fp" in note for note in result.notes)


def test_a_given_fp_or_none_is_left_alone(harness: Harness,
                                          tmp_path_factory: pytest.TempPathFactory) -> None:
    spec = SpecSource("Draws", {"Draws.tla": DRAWS})
    given = harness.check(spec, CFG, tlc_args=("-fp", "5"))
    assert given.verdict.value == "ok" and not any("-fp 0" in n for n in given.notes)
    with Harness(backend="fresh", tlc_fp=None,
                 tmp_root=str(tmp_path_factory.mktemp("nofp"))) as unpinned:
        assert not any("-fp" in note for note in unpinned.check(spec, CFG).notes)
