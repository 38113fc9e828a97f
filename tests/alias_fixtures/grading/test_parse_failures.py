"""The class of a parse failure (`alias_fixtures.grading.parse_failures`): one crafted module per
class lands in it, from the text alone; SANY rejects every one of them, and the grade records
the class it gives (the `tlc` tests)."""

from __future__ import annotations

import pytest

from alias_fixtures.grading.grade import grade_output
from alias_fixtures.grading.parse_failures import PARSE_FAILURE_CLASSES, classify_parse_failure
from alias_fixtures.tasks.task import builtin_tasks
from alias_fixtures.tasks.variants import make_variant
from tlc_harness.tools.runner import Harness
from tlc_harness.tools.spec import SpecSource


def module(body: str, extends: str = "EXTENDS Naturals\n", name: str = "Out") -> str:
    return f"---- MODULE {name} ----\n{extends}VARIABLE x\n{body}\n====\n"


#: class -> (case name, module text, the evidence the class gives)
CRAFTED: dict[str, list[tuple[str, str, str]]] = {
    "pluscal_or_python": [
        ("pluscal assignment", module("Init == x = 0\nNext == x := x + 1"), "`:=` on line 5"),
        ("python", module("def Init():\n    return x == True\nNext == x' = x"),
         "`def` on line 4, `return` on line 5"),
    ],
    "syntax": [
        ("unclosed parenthesis", module("Init == x = 0\nNext == x' = (x + 1"),
         "lines 1 to 6 as a whole"),
        ("not equal written !=", module("Init == x != 0\nNext == x' = x"), "at line 4"),
    ],
    "unknown_module": [
        ("Booleans", module("Init == x = TRUE\nNext == x' = ~x", "EXTENDS Naturals, Booleans\n"),
         "Booleans"),
    ],
    "std_module_not_extended": [
        ("Cardinality", module("Init == x = 0\nNext == x' = Cardinality({x})"),
         "`Cardinality` (FiniteSets) on line 5"),
        ("plus without Naturals", module("Init == x = 0\nNext == x' = x + 1", ""),
         "`+` (Naturals) on line 4"),
        ("Nat without Naturals", module("Init == x \\in Nat\nNext == x' = x", "EXTENDS TLC\n"),
         "`Nat` (Naturals) on line 4"),
    ],
    "unknown_operator": [
        ("Max", module("Init == x = 0\nNext == x' = Max(x, 3)"), "`Max` on line 5"),
        ("used before defined", module("Init == x = Zero\nZero == 0\nNext == x' = x"),
         "`Zero` on line 4, before its definition ends"),
        ("recursive without RECURSIVE", module(
            "F(n) == IF n = 0 THEN 0 ELSE F(n - 1)\nInit == x = F(2)\nNext == x' = x"),
         "`F` on line 4, before its definition ends"),
    ],
    "other": [
        ("arity", module("F(a) == a\nInit == x = F(1, 2)\nNext == x' = x"), ""),
    ],
}
CASES = [pytest.param(cls, text, evidence, id=f"{cls}: {name}")
         for cls, cases in CRAFTED.items() for name, text, evidence in cases]


def test_every_class_has_a_crafted_case() -> None:
    assert list(CRAFTED) == list(PARSE_FAILURE_CLASSES)


@pytest.mark.parametrize(("cls", "text", "evidence"), CASES)
def test_a_crafted_module_lands_in_its_class(cls: str, text: str, evidence: str) -> None:
    found = classify_parse_failure({"Out.tla": text}, "Out")
    assert found.kind == cls, found
    assert evidence in found.evidence


def test_comments_are_read_as_sany_reads_them() -> None:
    """PlusCal and prose inside comments are not code: a module whose only mistake is an
    undefined operator is not `pluscal_or_python` for the algorithm in its comment."""
    text = module("(* --algorithm A { variables y = 0; { y := y + 1 } } *)\n"
                  "\\* if x then return True else None\nInit == x = 0\nNext == x' = Max(x)")
    assert classify_parse_failure({"Out.tla": text}, "Out").kind == "unknown_operator"


def test_the_replys_own_and_the_librarys_modules_exist() -> None:
    helper = "---- MODULE Helper ----\nEXTENDS FiniteSets\nSize(s) == Cardinality(s)\n====\n"
    main = module("Init == x = 0\nNext == x' = Size({x}) + Max(1, 2)",
                  "EXTENDS Naturals, Helper, TLAPS\n")
    found = classify_parse_failure({"Out.tla": main, "Helper.tla": helper}, "Out")
    assert found.kind == "unknown_operator" and "`Max`" in found.evidence


def test_a_standard_module_brings_what_it_extends() -> None:
    text = module("Init == x \\in Nat\nNext == x' = -x + 1 /\\ Foo", "EXTENDS Integers\n")
    assert classify_parse_failure({"Out.tla": text}, "Out").kind == "unknown_operator"


@pytest.mark.parametrize(("cls", "text", "evidence"), CASES)
def test_sany_rejects_the_crafted_module(harness: Harness, cls: str, text: str,
                                         evidence: str) -> None:
    parsed = harness.parse(SpecSource("Out", {"Out.tla": text}))
    assert not parsed.ok, (cls, parsed.errors)


def test_the_parse_grade_records_the_class(harness: Harness) -> None:
    variant = make_variant(next(t for t in builtin_tasks() if t.id == "hour_clock"), "original",
                           seed="0")
    name, text, _ = CRAFTED["std_module_not_extended"][0]
    graded = grade_output(harness, variant, f"```tla\n{text}\n```\n")
    details = graded.parse.to_json()
    assert (details["verdict"], details["failure_class"]) == ("parse_error",
                                                              "std_module_not_extended"), name
    assert details["failure_evidence"] == "`Cardinality` (FiniteSets) on line 5"
