"""Tests of `alias_fixtures.grading.extract`: one TLA+ module out of a model's raw reply."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from alias_fixtures.grading.extract import (
    UNICODE_TO_ASCII,
    extract_module,
    forbidden_imports,
    to_ascii,
)
from alias_fixtures.tasks.task import builtin_tasks, task_modules
from tlc_harness.source.cfg import parse_cfg
from tlc_harness.tools.results import Verdict
from tlc_harness.tools.runner import Harness
from tlc_harness.tools.spec import SpecSource

SMALL = """---- MODULE Small ----
EXTENDS Naturals
VARIABLE x
Init == x = 0
Next == x' = (x + 1) % 3
Spec == Init /\\ [][Next]_x
====
"""
HELPER = """---- MODULE Helper ----
Double(n) == 2 * n
====
"""
UNICODE_SPEC = """---- MODULE Uni ----
EXTENDS Naturals
VARIABLES x, y
Init ≜ ∧ x = 0
       ∧ y ∈ {0, 1}
Next ≜ ∨ ∧ x < 3
         ∧ x′ = x + 1
         ∧ y′ = y
       ∨ ∧ x ≥ 3
         ∧ ∨ y = 0
           ∨ y = 1
         ∧ x′ = 0
         ∧ y′ = [i ∈ {1} ↦
                  1 - y][1]
Spec ≜ Init ∧ □[Next]_⟨x, y⟩
Inv ≜ ∀ i ∈ {1, 2} : ∃ j ∈ {1} : i ≠ j ∨ x ≤ 3
Msg ≜ “done”
====
"""
ASCII_TWIN = """---- MODULE Uni ----
EXTENDS Naturals
VARIABLES x, y
Init == /\\ x = 0
        /\\ y \\in {0, 1}
Next == \\/ /\\ x < 3
           /\\ x' = x + 1
           /\\ y' = y
        \\/ /\\ x >= 3
           /\\ \\/ y = 0
              \\/ y = 1
           /\\ x' = 0
           /\\ y' = 1 - y
====
"""


def _parses(harness: Harness, text: str) -> bool:
    return harness.parse(SpecSource.from_text(text)).ok


# ------------------------------------------------------------------------- verdicts
@pytest.mark.parametrize("reply", ["", "  \n\t\n", "\ufeff", "\r\n\r\n"])
def test_empty_reply(reply: str) -> None:
    got = extract_module(reply)
    assert (got.verdict, got.module_name, got.text) == ("empty", None, None)


def test_no_header_is_no_module_with_a_hint() -> None:
    body = "Sure! Here it is:\n```tla\nVARIABLE x\nInit == x = 0\nNext == x' = x\n```\n"
    got = extract_module(body)
    assert got.verdict == "no_module"
    assert got.text is None
    assert any("Init and Next without a module" in n for n in got.notes)
    assert extract_module("I cannot help with that.").notes == ("no MODULE header",)


@pytest.mark.parametrize("fence", ["```tla", "```tlaplus", "```TLA+", "```", "~~~", "````tla",
                                   "~~~ tla"])
def test_fenced_block_with_prose_around(fence: str) -> None:
    close = re.sub(r"[^`~]", "", fence)
    reply = f"Here is the spec.\n\n{fence}\n{SMALL}{close}\n\nIt counts modulo 3. ====\n"
    got = extract_module(reply)
    assert got.ok
    assert got.module_name == "Small"
    assert got.text == SMALL
    assert "taken from a fenced code block" in got.notes


def test_unfenced_module_with_trailing_prose_after_footer() -> None:
    reply = "Explanation first.\n\n" + SMALL.replace("====\n", "==== the end, prose follows\n")
    reply += "More prose with = signs ==== and MODULE words.\n"
    got = extract_module(reply)
    assert got.text == SMALL
    assert "taken from unfenced text" in got.notes


def test_footer_in_comments_and_strings_is_not_the_end() -> None:
    text = SMALL.replace("Spec ==", '(* ==== not the end *)\nS == "===="\n\\* ====\nSpec ==')
    assert extract_module(text).text == text


def test_nested_module_is_kept_inside_the_outer_one() -> None:
    inner = "---- MODULE Inner ----\nK == 1\n====\n"
    text = SMALL.replace("Spec ==", inner + "Spec ==")
    got = extract_module(text)
    assert got.module_name == "Small"
    assert got.text == text
    assert got.other_modules == {}


def test_missing_footer_is_added(harness: Harness) -> None:
    reply = "```tla\n" + SMALL.replace("====\n", "") + "```\nDone."
    got = extract_module(reply)
    assert got.text == SMALL
    assert "added missing ==== footer" in got.notes
    assert _parses(harness, got.text)


def test_footer_hidden_in_a_comment_is_added(harness: Harness) -> None:
    """Three corpus outputs end with `\\* ====...`: SANY sees no footer."""
    raw = SMALL.replace("====\n", "\\* ============\n")
    assert not _parses(harness, raw)
    got = extract_module(raw)
    assert got.text is not None
    assert got.text.endswith("\\* ============\n====\n")
    assert _parses(harness, got.text)


@pytest.mark.parametrize("header", ["--- MODULE Small ---", "---- MODULE Small",
                                    "-- MODULE Small --", "------ MODULE Small -"])
def test_header_sany_rejects_is_rewritten(harness: Harness, header: str) -> None:
    raw = SMALL.replace("---- MODULE Small ----", header)
    assert not harness.parse(SpecSource("Small", {"Small.tla": raw})).ok
    got = extract_module(raw)
    assert got.text == SMALL
    assert any("rewrote header" in n for n in got.notes)
    assert _parses(harness, got.text)


def test_windows_line_endings_and_bom(harness: Harness) -> None:
    reply = "\ufeffHere:\r\n```tla\r\n" + SMALL.replace("\n", "\r\n") + "```\r\n"
    got = extract_module(reply)
    assert got.text == SMALL
    assert {"dropped byte-order mark", "converted Windows line endings"} <= set(got.notes)
    assert _parses(harness, got.text)


# ------------------------------------------------------------------------- several modules
def test_prefer_names_the_module() -> None:
    reply = f"```tla\n{HELPER}```\n```tla\n{SMALL}```\n"
    got = extract_module(reply, prefer="Helper")
    assert got.module_name == "Helper"
    assert got.other_modules == {"Small": SMALL}
    assert "2 modules found; took Helper (named Helper)" in got.notes


def test_init_next_module_beats_a_larger_helper() -> None:
    big = HELPER.replace("Double(n) == 2 * n", "Double(n) == 2 * n\n" + "\\* padding\n" * 30)
    got = extract_module(f"```\n{big}```\ntext\n```\n{SMALL}```", prefer="Absent")
    assert got.module_name == "Small"
    assert "2 modules found; took Small (defines Init and Next)" in got.notes
    assert "no module named Absent; took Small" in got.notes


def test_the_module_importing_the_others_is_the_specification() -> None:
    # the helper holds Init and Next and is larger; the module that INSTANCEs it is the spec
    core = SMALL.replace("Small", "Core").replace("Spec ==", "\\* padding\n" * 20 + "Spec ==")
    top = ("---- MODULE Top ----\nEXTENDS Naturals\nVARIABLE x\nC == INSTANCE Core\n"
           "TopSpec == C!Spec\n====\n")
    for reply in (f"```\n{core}```\n```\n{top}```\n", top + "\n" + core):
        got = extract_module(reply)
        assert got.module_name == "Top"
        assert set(got.other_modules) == {"Core"}
        assert "2 modules found; took Top (imports the others)" in got.notes
    # a chain: Top EXTENDS Mid EXTENDS Core
    mid = "---- MODULE Mid ----\nEXTENDS Core\nK == 1\n====\n"
    got = extract_module(core + mid + top.replace("C == INSTANCE Core", "").replace(
        "EXTENDS Naturals", "EXTENDS Naturals, Mid").replace("C!Spec", "Spec"))
    assert got.module_name == "Top"
    assert set(got.other_modules) == {"Core", "Mid"}


def test_two_specifications_on_one_helper_fall_back_to_init_and_next() -> None:
    # Core is imported; of the two that import it, the one with Init and Next is taken
    core = HELPER.replace("Helper", "Core")
    lone = "---- MODULE Lone ----\nEXTENDS Core\nK == Double(2)\n" + "\\* pad\n" * 40 + "====\n"
    spec = SMALL.replace("EXTENDS Naturals", "EXTENDS Naturals, Core")
    got = extract_module(core + lone + spec)
    assert got.module_name == "Small"
    assert "3 modules found; took Small (not imported by another; defines Init and Next)" \
        in got.notes


def test_prefer_wins_over_the_importing_module() -> None:
    core = SMALL.replace("Small", "Core")
    top = "---- MODULE Top ----\nEXTENDS Core\n====\n"
    assert extract_module(core + top, prefer="Core").module_name == "Core"


def test_largest_then_first_when_nothing_else_decides() -> None:
    other = HELPER.replace("Helper", "Other")
    got = extract_module(HELPER + "\n" + other)
    assert got.module_name == "Helper"
    assert set(got.other_modules) == {"Other"}
    got = extract_module(HELPER + other.replace("2 * n", "2 * n + 0"))
    assert got.module_name == "Other"


def test_same_named_modules_are_all_recorded() -> None:
    draft = SMALL.replace("% 3", "% 2")
    got = extract_module(f"Draft:\n```\n{draft}```\nFinal:\n```\n{SMALL}```\n")
    assert got.module_name == "Small"
    assert got.text == draft  # same size: the first
    assert list(got.other_modules.values()) == [SMALL]


# ------------------------------------------------------------------------- Unicode
def test_to_ascii_keeps_ascii_text() -> None:
    assert to_ascii(SMALL) == (SMALL, 0)


@pytest.mark.parametrize("symbol", sorted(UNICODE_TO_ASCII))
def test_every_mapped_symbol_becomes_ascii(symbol: str) -> None:
    out, count = to_ascii(f"A == x {symbol} y")
    assert out.isascii()
    assert count == 1


def test_to_ascii_strings_spaces_and_leftovers() -> None:
    out, count = to_ascii("S == “café”\u00a0\\* naïve – ok ✓")
    assert out == 'S == "cafe" \\* naive - ok ?'
    assert count == 7


def test_unicode_spec_keeps_bullet_alignment(harness: Harness) -> None:
    got = extract_module(UNICODE_SPEC)
    assert got.text is not None
    assert got.text.isascii()
    assert any(n.startswith("converted ") and n.endswith(" Unicode symbols") for n in got.notes)
    lines = got.text.splitlines()
    assert lines[3].index("/\\") == lines[4].index("/\\") == 8      # Init's list
    assert lines[5].index("\\/") == lines[8].index("\\/") == 8      # Next's disjuncts
    assert {ln.index("/\\") for ln in lines[6:8]} == {11}
    assert lines[9].index("\\/") == lines[10].index("\\/") == 14    # nested disjunction
    assert lines[13].index("1 - y") > lines[12].index("/\\")       # continuation moved along
    assert 'Msg == "done"' in lines


def test_naive_unicode_conversion_breaks_but_ours_parses(harness: Harness) -> None:
    naive = "".join(UNICODE_TO_ASCII.get(c, c) for c in UNICODE_SPEC)
    assert not _parses(harness, naive)  # `\/` and `/\` lists out of line: precedence conflict
    text = extract_module(UNICODE_SPEC).text
    assert text is not None
    assert _parses(harness, text)


def test_converted_unicode_spec_has_the_ascii_twins_states(harness: Harness) -> None:
    cfg = parse_cfg("INIT Init\nNEXT Next\n")
    text = extract_module(UNICODE_SPEC).text
    assert text is not None
    ours = harness.check(SpecSource.from_text(text), cfg)
    twin = harness.check(SpecSource.from_text(ASCII_TWIN), cfg)
    assert ours.verdict is twin.verdict is Verdict.OK
    assert ours.distinct_states == twin.distinct_states == 8


# ------------------------------------------------------------------------- Hypothesis
PROSE = st.text(alphabet=st.sampled_from(list("abcdefgh XYZ.,:;!?()'\"\n\t0123456789")),
                max_size=200)
MODULES = sorted({text for task in builtin_tasks() for text in task.modules.values()})


@settings(max_examples=150, deadline=None)
@given(module=st.sampled_from([SMALL, *MODULES]), before=PROSE, after=PROSE,
       fence=st.sampled_from(["", "```tla", "```tlaplus", "```", "~~~", "````"]),
       crlf=st.booleans(), bom=st.booleans())
def test_module_wrapped_in_prose_and_fences_is_found(module: str, before: str, after: str,
                                                     fence: str, crlf: bool, bom: bool) -> None:
    close = re.sub(r"[^`~]", "", fence)
    body = f"{fence}\n{module}{close}\n" if fence else module
    reply = ("\ufeff" if bom else "") + f"{before}\n{body}\n{after}"
    if crlf:
        reply = reply.replace("\n", "\r\n")
    got = extract_module(reply)
    assert got.verdict == "ok"
    assert got.text == module
    assert got.module_name is not None
    assert f"MODULE {got.module_name} " in module


# ------------------------------------------------------------------------- forbidden imports
def test_forbidden_imports_units() -> None:
    text = "---- MODULE G ----\nEXTENDS Naturals, Ref\nR == INSTANCE Other\nINSTANCE Ref\n====\n"
    assert forbidden_imports(text, ["Ref", "Other", "Unused"]) == ("Ref", "Other")
    assert forbidden_imports(SMALL, ["Small", "Naturals"]) == ("Naturals",)
    assert forbidden_imports(SMALL, ["Small"]) == ()  # its own name is legitimate
    nested = "---- MODULE G ----\n---- MODULE Ref ----\nK == 1\n====\nI == INSTANCE Ref\n====\n"
    assert forbidden_imports(nested, ["Ref"]) == ()  # its own inner module


# ------------------------------------------------------------------------- real outputs
def _manifest(corpus: Path) -> list[dict[str, object]]:
    folder = corpus / "tla-bench-outputs"
    if not (folder / "manifest.json").is_file():
        pytest.skip("tla-bench-outputs is absent from the shared corpus")
    entries: list[dict[str, object]] = json.loads(
        (folder / "manifest.json").read_text(encoding="utf-8"))
    return entries


def _reference_modules(corpus: Path, entry: dict[str, object]) -> list[str]:
    """The gold module and the modules it imports from its folder of the local corpus."""
    ref = entry["reference"]
    assert isinstance(ref, dict)
    folder = (corpus / str(ref["path"])).parent
    if not folder.is_dir():
        return [str(entry["gold_module"])]
    available = {p.name: p.read_text("utf-8", "replace") for p in folder.glob("*.tla")}
    return [Path(name).stem for name in task_modules(str(ref["module_file"]), available)]


@pytest.mark.corpus
def test_real_output_that_extends_its_reference(corpus: Path) -> None:
    hits = []
    for entry in _manifest(corpus):
        raw = (corpus / "tla-bench-outputs" / str(entry["generation_path"])).read_text("utf-8")
        text = extract_module(raw).text
        assert text is not None
        bad = forbidden_imports(text, _reference_modules(corpus, entry))
        if bad:
            hits.append((entry["model"], entry["spec_id"], bad))
    # 928: `EXTENDS HourClock`, the module the gold HourClock2 extends (TLA+-Bench graded it
    # correct). 1559: `INSTANCE Peterson`, a module the gold Lock instances; the output's own
    # `LOCAL MODULE Peterson` is not TLA+, so the name can only reach the reference's module.
    assert sorted(hits) == [("gemini-2-5-pro", "1559", ("Peterson",)),
                            ("gemini-2-5-pro", "928", ("HourClock",))]


@pytest.mark.corpus
def test_every_real_output_extracts_and_parses_at_least_as_often(
        corpus: Path, harness: Harness, capsys: pytest.CaptureFixture[str]) -> None:
    raw_ok = ext_ok = 0
    entries = _manifest(corpus)
    for entry in entries:
        raw = (corpus / "tla-bench-outputs" / str(entry["generation_path"])).read_text("utf-8")
        got = extract_module(raw)
        assert got.verdict == "ok"
        assert got.text is not None
        assert got.text.isascii()
        assert got.module_name == entry["gen_module"]
        raw_pass, ext_pass = _parses(harness, raw), _parses(harness, got.text)
        assert ext_pass or not raw_pass, (entry["generation_path"], got.notes)
        raw_ok, ext_ok = raw_ok + raw_pass, ext_ok + ext_pass
    with capsys.disabled():
        print(f"\n[extract] {len(entries)} outputs: raw parses {raw_ok}, extracted {ext_ok}")
    assert len(entries) == 75
    assert ext_ok >= raw_ok
