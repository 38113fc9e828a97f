"""The behavior grade on references whose cfg overrides definitions (`<-`, `[Module]` values).

`tests/data/overrides/MCBag` overrides a constant through a definition built from another one
(`Items <- MCItems`), a constant operator (`Slot <- MCSlot`), a standard operator
(`Seq <- BoundedSeq`) and a defined operator by a model value in another module
(`Empty = [Bag]NoItem`); its specification formula is named like its module (`Bag`).
"""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.conftest import ROOT
from tlc_harness.behavior.search import SpecShape, candidate_mappings, infer_types, ranked_pairs
from tlc_harness.behavior.staging import Reference, definition_body
from tlc_harness.behavior.wrapper_engine import behavior_grade
from tlc_harness.source.cfg import parse_cfg
from tlc_harness.source.rename import rename_module_names, rename_modules
from tlc_harness.tools.runner import Harness

DATA = ROOT / "tests" / "data" / "overrides"
FILES = {p.name: p.read_text(encoding="utf-8") for p in sorted(DATA.glob("*.tla"))}
REF = Reference("MCBag", FILES, parse_cfg((DATA / "MCBag.cfg").read_text(encoding="utf-8")))

#: A model's answer: one module, named like a reference module, with its own names.
ANSWER = """---- MODULE Bag ----
EXTENDS Naturals, Sequences
CONSTANTS Things, Cap, Slot(_)
VARIABLES items, n
Init == items \\in {s \\in Seq(Things) : Len(s) = 0} /\\ n = 0
Put(t) == Len(items) < Cap /\\ items' = Append(items, Slot(t)) /\\ n' = n + 1
Take == items # <<>> /\\ items' = Tail(items) /\\ UNCHANGED n
Next == (\\E t \\in Things : Put(t)) \\/ Take
Bag == Init /\\ [][Next]_<<items, n>>
====
"""


def test_module_names_renamed_but_not_definitions_of_the_same_name() -> None:
    renamed = rename_module_names(FILES, {"Bag": "Sack"})
    assert set(renamed) == {"Sack.tla", "MCBag.tla"}
    assert renamed["Sack.tla"].startswith("---- MODULE Sack ----")
    assert "\nBag == Init" in renamed["Sack.tla"]  # the formula keeps its name
    assert "EXTENDS Sack\n" in renamed["MCBag.tla"]


def test_reference_with_overrides_accepted_against_itself(harness: Harness) -> None:
    result = behavior_grade(harness, REF, FILES, "MCBag")
    assert result.verdict == "ok", result.reason


def test_answer_with_other_names_accepted(harness: Harness) -> None:
    result = behavior_grade(harness, REF, {"Bag.tla": ANSWER}, "Bag")
    assert result.verdict == "ok", (result.reason, result.attempts)
    assert result.mapping == {"variables": {"bag": "items", "count": "n"},
                              "constants": {"Things": "Items", "Cap": "Cap", "Slot": "Slot"}}


def test_renamed_copy_read_through_the_definitions_at_the_same_place(harness: Harness) -> None:
    """Its `Frozen` (a Spec-shaped decoy) comes first and `Spec` is another formula; the
    copy's formula at the place of `Bag` (the cfg's SPECIFICATION) wins."""
    table = {"Init": "Strt", "Next": "Step", "Bag": "Sak", "Frozen": "Glacia", "Stay": "Halt",
             "MCBag": "MCSak", "Empty": "Vacnt", "Items": "Thngs", "MCItems": "MCThngs",
             "BoundedSeq": "LimitedSeq"}  # `[Bag]` and `Empty` reach the copy's Sak and Vacnt
    copy = rename_modules(FILES, table)
    result = behavior_grade(harness, REF, copy, "MCSak")
    assert result.verdict == "ok", result.reason


@pytest.mark.parametrize("change", [
    ("n' = n + 1", "n' = n + 2"),          # counts differently
    ("Len(items) < Cap", "Len(items) <= Cap"),  # holds one more item
    ("Append(items, Slot(t))", "Append(items, t)"),  # ignores the Slot operator
])
def test_answer_with_other_behavior_rejected(harness: Harness, change: tuple[str, str]) -> None:
    old, new = change
    assert old in ANSWER
    result = behavior_grade(harness, REF, {"Bag.tla": ANSWER.replace(old, new)}, "Bag")
    assert result.verdict in ("forward_fail", "reverse_fail"), result.reason


def test_identical_names_are_tried_first_whatever_the_inferred_types() -> None:
    ref = SpecShape("R", ("x",), ("Missing", "Nil"), frozenset(),
                    {"x": "any", "Missing": "str", "Nil": "any"})
    out = SpecShape("G", ("x",), ("Missing", "Nil"), frozenset(),
                    {"x": "any", "Missing": "int", "Nil": "any"})
    first = next(candidate_mappings(ref, out))
    assert first.constants == {"Missing": "Missing", "Nil": "Nil"}


@given(st.integers(1, 30), st.integers(1, 30))
def test_ranked_pairs_run_by_rank_sum_then_first_rank(n: int, m: int) -> None:
    product = sorted(itertools.product(range(n), range(m)), key=lambda ij: (sum(ij), ij))
    assert list(ranked_pairs(n, m)) == product


def test_many_constants_of_one_kind_give_candidates_at_once() -> None:
    # 14 model-value constants (btree in the corpus): their maps alone number 50,000, and the
    # product with the variables' maps once took over 20 GB before the first candidate.
    names = tuple(f"C{i}" for i in range(14))
    variables = tuple(f"v{i}" for i in range(8))
    ref = SpecShape("R", variables, names, frozenset())
    out = SpecShape("G", variables, names, frozenset())
    cands = list(candidate_mappings(ref, out, limit=5))
    assert len(cands) == 5
    assert cands[0].variables == {v: v for v in variables}
    assert cands[0].constants == {c: c for c in names}


@pytest.mark.parametrize(("text", "kind"), [
    ("f == [k \\in Keys |-> Missing]", "any"),   # `|->` is no comparison
    ("g == [Missing -> BOOLEAN]", "set"),
    ("h == x' = Missing - 1", "int"),
    ("i == x <= Missing", "int"),
])
def test_constant_type_from_its_uses(text: str, kind: str) -> None:
    assert infer_types({"M.tla": text}, [], ["Missing"], None)["Missing"] == kind


def test_definition_body_may_start_on_the_next_line() -> None:
    toolbox = ('---- MODULE MC ----\nEXTENDS Base\n\\* CONSTANT definitions\n'
               'const_1 == \n{"r1","r2"}\n----\nconst_2 ==\n  {4,5}\n\\* note\nX == 1\n====\n')
    assert definition_body({"MC.tla": toolbox}, "const_1") == '{"r1","r2"}'
    assert definition_body({"MC.tla": toolbox}, "const_2") == "{4,5}"
    assert definition_body({"MC.tla": toolbox}, "X") == "1"


def test_answer_whose_specification_has_no_initial_state_rejected(harness: Harness) -> None:
    """A run with no state is no evidence: forward fails (not vacuously passes, then reverse)."""
    vacuous = ANSWER.replace("Init == items", "Init == FALSE /\\ items")
    assert vacuous != ANSWER
    result = behavior_grade(harness, REF, {"Bag.tla": vacuous}, "Bag")
    assert result.verdict == "forward_fail", result.reason
    assert any("vacuous" in a.forward for a in result.attempts)
