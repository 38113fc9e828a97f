"""Parsing TLC's -tool output (canned text: no Java needed)."""

from __future__ import annotations

from tlc_harness.tools.interpret import interpret_tlc
from tlc_harness.tools.results import Verdict
from tlc_harness.tools.toolmsg import parse_state, parse_tool_output


def msg(code: int, body: str, sev: int = 0) -> str:
    return f"@!@!@STARTMSG {code}:{sev} @!@!@\n{body}\n@!@!@ENDMSG {code} @!@!@\n"


def test_nested_messages_and_plain_text() -> None:
    text = ("Parsing file X.tla\n" + msg(2262, "TLC2 Version 2.15")
            + "@!@!@STARTMSG 1000:1 @!@!@\nTLC threw an unexpected exception.\n: "
            + msg(5001, "error reading cfg") + "@!@!@ENDMSG 1000 @!@!@\n")
    out = parse_tool_output(text)
    assert [m.code for m in out.messages] == [2262, 1000]
    assert out.messages[1].children[0].code == 5001
    assert out.codes() == (2262, 1000, 5001)
    assert "Parsing file X.tla" in out.plain


def test_truncated_output_is_tolerated() -> None:
    out = parse_tool_output(msg(2185, "Starting") + "@!@!@STARTMSG 2200:0 @!@!@\nProgress(3)")
    assert out.codes() == (2185, 2200)
    assert out.messages[1].text == "Progress(3)"


def test_state_with_several_variables() -> None:
    state = parse_state("2: <Next line 5, col 9 to line 5, col 39 of module M>\n"
                        "/\\ x = 1\n/\\ q = << 1,\n   2 >>\n/\\ r = [a |-> 1]")
    assert state is not None
    assert state.number == 2
    assert state.variables == {"x": "1", "q": "<< 1, 2 >>", "r": "[a |-> 1]"}


def test_state_with_one_variable() -> None:
    state = parse_state("1: <Initial predicate>\nx = 0")
    assert state is not None
    assert state.variables == {"x": "0"}


def test_success_with_counts() -> None:
    text = (msg(2193, "Model checking completed. No error has been found.")
            + msg(2199, "1,024 states generated, 512 distinct states found, 0 states left on "
                  "queue.") + msg(2194, "The depth of the complete state graph search is 7."))
    result = interpret_tlc(0, text, parse_tool_output(text), seconds=1.0)
    assert result.verdict is Verdict.OK
    assert (result.generated_states, result.distinct_states, result.depth) == (1024, 512, 7)
    assert not result.vacuous


def test_english_never_decides() -> None:
    """A success sentence without the success code and exit 0 is not a pass."""
    text = "Model checking completed. No error has been found.\n"
    result = interpret_tlc(0, text, parse_tool_output(text), seconds=1.0)
    assert result.verdict is Verdict.INFRA_ERROR


def test_property_named_in_2110_is_property_violation() -> None:
    text = msg(2110, "Invariant AlwaysSafe is violated.", 1)
    result = interpret_tlc(12, text, parse_tool_output(text), seconds=1.0,
                           invariants=("TypeOK",), properties=("AlwaysSafe",))
    assert result.verdict is Verdict.PROPERTY_VIOLATED
    assert result.violated == "AlwaysSafe"


def test_unknown_exit_is_infrastructure() -> None:
    result = interpret_tlc(137, "", parse_tool_output(""), seconds=1.0)
    assert result.verdict is Verdict.INFRA_ERROR
    assert result.verdict.is_infrastructure
