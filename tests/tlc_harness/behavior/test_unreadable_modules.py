"""Outputs whose source tree-sitter cannot read (here: PlusCal that mixes its two syntaxes in
a comment) get fresh module names from their header; the behavior grade reads them with their
comments blanked, and says `undecided` rather than guessing when even that fails; an output
that cannot be staged at all is `undecided` too."""

from __future__ import annotations

import pytest

from tlc_harness.behavior import engine as engine_module
from tlc_harness.behavior.engine import grade_behavior
from tlc_harness.behavior.options import ENGINES, BehaviorOptions
from tlc_harness.behavior.staging import Reference
from tlc_harness.source.cfg import parse_cfg
from tlc_harness.source.identifiers import analyze_module
from tlc_harness.source.rename import rename_module_names
from tlc_harness.source.tokens import blank_comments
from tlc_harness.tools.runner import Harness

TOGGLE = """---- MODULE {name} ----
EXTENDS Integers
{comment}
VARIABLES x
Init == x = 0
Next == x' = 1 - x
Spec == Init /\\ [][Next]_x
====
"""
MIXED_PLUSCAL = """(*--algorithm Loop
variables x = 0;
process (p \\in 1..2)
{
  A: x := 1;
}
end algorithm; *)"""
REF = Reference("Toggle", {"Toggle.tla": TOGGLE.format(name="Toggle", comment="")},
                parse_cfg("SPECIFICATION Spec\n"))


def _output(name: str = "Loop") -> str:
    return TOGGLE.format(name=name, comment=MIXED_PLUSCAL)


def test_the_fixture_is_one_tree_sitter_cannot_read() -> None:
    assert analyze_module(_output()).module == ""  # else this file tests nothing


def test_module_names_are_renamed_from_the_header() -> None:
    renamed = rename_module_names({"Loop.tla": _output()}, {"Loop": "AliasOut"})
    assert list(renamed) == ["AliasOut.tla"]
    assert "MODULE AliasOut ----" in renamed["AliasOut.tla"]
    assert "MODULE Loop" not in renamed["AliasOut.tla"]


@pytest.mark.parametrize("engine", ENGINES)
def test_such_an_output_is_graded_without_its_comments(harness: Harness, engine: str) -> None:
    # the comment is all tree-sitter stumbles on; TLC never reads it
    result = grade_behavior(harness, REF, {"Loop.tla": _output()}, "Loop",
                            BehaviorOptions(engine=engine))
    assert result.verdict == "ok", result.reason


def test_blanking_keeps_every_offset_outside_the_comments() -> None:
    text = _output() + '\n\\* é "(*" \nx == "(* not a comment" (* é (* nested *) *) 1\n'
    blanked = blank_comments(text)
    assert blanked.count("\n") == text.count("\n")
    assert len(blanked.encode()) == len(text.encode())
    assert '"(* not a comment"' in blanked and "nested" not in blanked and "algorithm" not in blanked
    assert analyze_module(blanked).module == "Loop"


@pytest.mark.parametrize("engine", ENGINES)
def test_an_output_unreadable_even_without_comments_is_undecided(
        harness: Harness, engine: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # both engines read the output's variables and constants with tree-sitter: without them,
    # any verdict but `undecided` would be the grader's guess
    monkeypatch.setattr(engine_module, "analyze_module", lambda _text: analyze_module(""))
    result = grade_behavior(harness, REF, {"Loop.tla": _output()}, "Loop",
                            BehaviorOptions(engine=engine))
    assert result.verdict == "undecided"
    assert "tree-sitter" in result.reason


def test_an_output_that_cannot_be_staged_is_undecided(harness: Harness) -> None:
    # the file's name and its header disagree: the main module cannot be given a fresh name
    result = grade_behavior(harness, REF, {"Loop.tla": TOGGLE.format(name="Other", comment="")},
                            "Loop",
                            BehaviorOptions(engine="graphs"))
    assert result.verdict == "undecided"
    assert "cannot be staged" in result.reason
