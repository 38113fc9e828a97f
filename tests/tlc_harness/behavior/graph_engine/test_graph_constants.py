"""Values for the output's own constants in the graph engine. A constant the reference lacks may
take the value of the reference's literal definition of the same name, once the reference's
constants are put in (`Node == 0 .. N-1`): that value is the reference's, and a failure under
it is the output's. Any other value is a guess: a failure under it is `no_mapping`, never a
`forward_fail` the grader made up, and an `ok` under it is `undecided` (`value_guessed`). A
BOOLEAN the reference has no value for takes each value: `ok` only when every value passes,
`undecided` (`value_by_trying`) when some do."""

from __future__ import annotations

import pytest

from tlc_harness.behavior.engine import grade_behavior
from tlc_harness.behavior.options import BehaviorOptions
from tlc_harness.behavior.staging import Reference
from tlc_harness.behavior.verdicts import Reason
from tlc_harness.source.cfg import parse_cfg
from tlc_harness.tools.runner import Harness

RING = """---- MODULE Ring ----
EXTENDS Integers
CONSTANT N
Node == 0 .. N-1
Max == 2
VARIABLE tok
Init == tok = 0
Next == tok' = (tok + 1) % N
Spec == Init /\\ [][Next]_tok
====
"""
REF = Reference("Ring", {"Ring.tla": RING}, parse_cfg("CONSTANT N = 3\nSPECIFICATION Spec\n"))
OUT = """---- MODULE Out ----
EXTENDS Integers, FiniteSets
CONSTANTS {constants}
VARIABLE tok
Init == tok = 0
Next == tok' = (tok + {step}) % Cardinality(Node)
Spec == Init /\\ [][Next]_tok
====
"""
GRAPHS = BehaviorOptions(engine="graphs")


def _grade(harness: Harness, constants: str, step: str) -> tuple[str, str]:
    files = {"Out.tla": OUT.format(constants=constants, step=step)}
    result = grade_behavior(harness, REF, files, "Out", GRAPHS)
    return result.verdict, result.reason


def test_a_same_name_definition_gives_the_reference_value(harness: Harness) -> None:
    assert _grade(harness, "Node", "1")[0] == "ok"


def test_a_failure_under_the_reference_value_is_the_output_s(harness: Harness) -> None:
    assert _grade(harness, "Node", "2")[0] == "forward_fail"


FIXED_RING = RING.replace("CONSTANT N\n", "").replace("0 .. N-1", "{0, 1, 2}").replace(
    "% N", "% 3")
FIXED_REF = Reference("Ring", {"Ring.tla": FIXED_RING}, parse_cfg("SPECIFICATION Spec\n"))


def _grade_fixed(harness: Harness, step: str) -> tuple[str, str]:
    # `Node` takes the reference's Node; `Step` can only take `Max == 2`, which the reference
    # defines for no constant of the output's
    files = {"Out.tla": OUT.format(constants="Node, Step", step=step)}
    result = grade_behavior(harness, FIXED_REF, files, "Out", GRAPHS)
    return result.verdict, result.reason


@pytest.mark.parametrize("step", ["Step", "Step + 1"])
def test_a_failure_under_a_guessed_value_is_no_mapping(harness: Harness, step: str) -> None:
    verdict, reason = _grade_fixed(harness, step)
    assert verdict == "no_mapping", reason
    assert "does not fix for Step" in reason


def test_an_ok_under_a_guessed_value_is_undecided(harness: Harness) -> None:
    files = {"Out.tla": OUT.format(constants="Node, Step", step="Step - 1")}
    result = grade_behavior(harness, FIXED_REF, files, "Out", GRAPHS)
    assert (result.verdict, result.code) == ("undecided", Reason.VALUE_GUESSED), result.reason
    assert "does not fix for Step (Step = Max)" in result.reason


def test_a_reference_constant_given_to_two_output_constants_is_a_guess(harness: Harness) -> None:
    # `Step` can take N only as `N` does too (or `Max == 2`): whatever it takes is a guess
    verdict, reason = _grade(harness, "N, Node, Step", "Step")
    assert verdict == "no_mapping", reason
    assert "does not fix for" in reason


BOOL_OUT = """---- MODULE Out ----
EXTENDS Integers
CONSTANTS N, {flag}
ASSUME {flag} \\in BOOLEAN
VARIABLE tok
Init == tok = 0
Next == tok' = (tok + IF {flag} THEN {if_true} ELSE {if_false}) % N
Spec == Init /\\ [][Next]_tok
====
"""


def _grade_flag(harness: Harness, if_true: str, if_false: str, flag: str = "Forward"
                ) -> tuple[str, str]:
    files = {"Out.tla": BOOL_OUT.format(flag=flag, if_true=if_true, if_false=if_false)}
    result = grade_behavior(harness, REF, files, "Out", GRAPHS)
    return result.verdict, result.reason


@pytest.mark.parametrize(("if_true", "if_false"), [("1", "2"), ("2", "1")])
def test_an_ok_under_one_boolean_value_only_is_undecided(harness: Harness, if_true: str,
                                                         if_false: str) -> None:
    # the reference has no boolean, nor does the task say which value the output means: a
    # pass under the one value that happens to work was found by trying
    files = {"Out.tla": BOOL_OUT.format(flag="Forward", if_true=if_true, if_false=if_false)}
    result = grade_behavior(harness, REF, files, "Out", GRAPHS)
    assert (result.verdict, result.code) == ("undecided", Reason.VALUE_BY_TRYING), result.reason
    assert "some values of Forward only" in result.reason


def test_an_ok_under_every_boolean_value_stands(harness: Harness) -> None:
    verdict, reason = _grade_flag(harness, "1", "1")
    assert verdict == "ok", reason
    assert "under every value of Forward" in reason


def test_a_failure_under_every_boolean_value_is_the_output_s(harness: Harness) -> None:
    verdict, reason = _grade_flag(harness, "2", "0")  # steps by 2, or never moves
    assert verdict in ("forward_fail", "reverse_fail"), reason
    assert "under every value of Forward" in reason


def test_an_unused_constant_takes_any_value(harness: Harness) -> None:
    files = {"Out.tla": OUT.format(constants="Node, Unused", step="1")}
    assert grade_behavior(harness, REF, files, "Out", GRAPHS).verdict == "ok"
    files = {"Out.tla": OUT.format(constants="Node, Unused", step="2")}
    verdict = grade_behavior(harness, REF, files, "Out", GRAPHS)
    assert verdict.verdict == "forward_fail", verdict.reason  # its value changes nothing


SET_RING = RING.replace("CONSTANT N\n", "CONSTANT Procs\n").replace(
    "0 .. N-1", "0 .. Cardinality(Procs)-1").replace("% N", "% Cardinality(Procs)").replace(
    "EXTENDS Integers", "EXTENDS Integers, FiniteSets")
SET_REF = Reference("Ring", {"Ring.tla": SET_RING},
                    parse_cfg("CONSTANT Procs = {p1, p2, p3}\nSPECIFICATION Spec\n"))
COUNT_OUT = OUT.replace("Cardinality(Node)", "NumProcs").replace(
    "CONSTANTS {constants}", "CONSTANT NumProcs\nASSUME NumProcs \\in Nat")


@pytest.mark.parametrize(("step", "expected"), [("1", "ok"), ("2", "forward_fail")])
def test_a_count_of_a_reference_set_is_the_reference_s_value(harness: Harness, step: str,
                                                              expected: str) -> None:
    # `NumProcs` is the number of the reference's `Procs`: a failure under it is the output's
    files = {"Out.tla": COUNT_OUT.format(step=step)}
    result = grade_behavior(harness, SET_REF, files, "Out", GRAPHS)
    assert result.verdict == expected, result.reason


@pytest.mark.parametrize(("step", "expected"), [("1", "ok"), ("2", "forward_fail")])
def test_a_set_as_large_as_a_reference_number_is_the_reference_s_value(
        harness: Harness, step: str, expected: str) -> None:
    # `Procs` enumerates what the reference's `N` counts: `1..N` is the reference's value
    files = {"Out.tla": OUT.replace("Cardinality(Node)", "Cardinality(Procs)").format(
        constants="Procs", step=step)}
    result = grade_behavior(harness, REF, files, "Out", GRAPHS)
    assert result.verdict == expected, result.reason


def test_a_boolean_named_as_the_reference_s_keeps_its_value(harness: Harness) -> None:
    # `Fwd` is the reference's own parameter here: FALSE, as its cfg says, and no other value;
    # the output's only BOOLEAN `Forward` plays the role of the reference's only BOOLEAN `Fwd`
    ref_text = RING.replace("CONSTANT N\n", "CONSTANTS N, Fwd\n").replace(
        "(tok + 1)", "(tok + IF Fwd THEN 1 ELSE 2)")
    ref = Reference("Ring", {"Ring.tla": ref_text},
                    parse_cfg("CONSTANTS N = 3\n Fwd = FALSE\nSPECIFICATION Spec\n"))
    inverted = {"Out.tla": BOOL_OUT.format(flag="Fwd", if_true="2", if_false="1")}
    assert grade_behavior(harness, ref, inverted, "Out", GRAPHS).verdict == "forward_fail"
    # `Forward` plays the role of `Fwd` (the only BOOLEAN of each): under Fwd's value it passes
    renamed = {"Out.tla": BOOL_OUT.format(flag="Forward", if_true="1", if_false="2")}
    assert grade_behavior(harness, ref, renamed, "Out", GRAPHS).verdict == "ok"
    # with the opposite meaning it passes under the other value only: found by trying, and
    # not a failure either (the output may mean `Backward`)
    opposite = {"Out.tla": BOOL_OUT.format(flag="Forward", if_true="2", if_false="1")}
    result = grade_behavior(harness, ref, opposite, "Out", GRAPHS)
    assert (result.verdict, result.code) == ("undecided", Reason.VALUE_BY_TRYING), result.reason


def test_a_count_given_to_a_constant_of_unknown_type_is_a_guess(harness: Harness) -> None:
    # `Top` is only assigned: nothing says it is a set, so `1..N` for it is a guess
    files = {"Out.tla": """---- MODULE Out ----
EXTENDS Integers
CONSTANTS N, Top
VARIABLE tok
Init == tok = Top
Next == tok' = (tok + 2) % N
Spec == Init /\\ [][Next]_tok
====
"""}
    result = grade_behavior(harness, REF, files, "Out", GRAPHS)
    assert result.verdict == "no_mapping", result.reason
    assert "does not fix for Top" in result.reason


PLUSCAL_REF = """---- MODULE Two ----
EXTENDS Integers
{algorithm}
VARIABLE done
ProcSet == (1..2)
Init == done = {{}}
Next == \\E p \\in ProcSet \\ done : done' = done \\cup {{p}}
Spec == Init /\\ [][Next]_done
====
"""
ALGORITHM = """(* --algorithm Two
process (P \\in 1..2) begin A: skip; end process;
end algorithm; *)"""
PROCS_OUT = """---- MODULE Out ----
EXTENDS Integers
CONSTANT Procs
VARIABLE done
Init == done = {{}}
Next == \\E p \\in Procs \\ done : done' = {step}
Spec == Init /\\ [][Next]_done
====
"""


@pytest.mark.parametrize(("pluscal", "step", "name", "expected"), [
    (True, "done \\cup {p}", "Procs", "ok"),
    (True, "Procs", "Procs", "forward_fail"),  # every process at once
    # a set the reference merely defines: its value only where the names pair them
    (False, "Procs", "Procs", "forward_fail"),
    (False, "Procs", "Workers", "no_mapping"),  # a guess
])
def test_the_processes_of_a_pluscal_reference_are_its_value(
        harness: Harness, pluscal: bool, step: str, name: str, expected: str) -> None:
    text = PLUSCAL_REF.format(algorithm=ALGORITHM if pluscal else "")
    ref = Reference("Two", {"Two.tla": text},
                    parse_cfg("SPECIFICATION Spec\nCHECK_DEADLOCK FALSE\n"))
    files = {"Out.tla": PROCS_OUT.format(step=step).replace("Procs", name)}
    result = grade_behavior(harness, ref, files, "Out", GRAPHS)
    assert result.verdict == expected, result.reason


@pytest.mark.parametrize(("nxt", "expected"), [
    ("\\E p \\in Procs \\ done : p # \"none\" /\\ done' = done \\cup {p}", "ok"),
    ("\\E p \\in Procs : done = {} /\\ p # \"none\" /\\ done' = {p}", "reverse_fail"),
])
def test_processes_the_grader_numbered_become_model_values_where_numbers_fail(
        harness: Harness, nxt: str, expected: str) -> None:
    # TLC stops at `1 # "none"`: the output runs with model values for its processes, and
    # the value translation pairs them with the reference's numbers
    ref = Reference("Two", {"Two.tla": PLUSCAL_REF.format(algorithm=ALGORITHM)},
                    parse_cfg("SPECIFICATION Spec\nCHECK_DEADLOCK FALSE\n"))
    files = {"Out.tla": f"""---- MODULE Out ----
CONSTANT Procs
VARIABLE done
Init == done = {{}}
Next == {nxt}
Spec == Init /\\ [][Next]_done
====
"""}
    result = grade_behavior(harness, ref, files, "Out", GRAPHS)
    assert result.verdict == expected, result.reason
    assert result.details["model_values_for"] == ["Procs"]


CYCLE = Reference("Cycle", {"Cycle.tla": """---- MODULE Cycle ----
EXTENDS Integers
VARIABLE tok
Init == tok = 0
Next == tok' = (tok + 1) % 3
Spec == Init /\\ [][Next]_tok
====
"""}, parse_cfg("SPECIFICATION Spec\nCHECK_DEADLOCK FALSE\n"))
JUMP_OUT = """---- MODULE Out ----
EXTENDS Integers
CONSTANT Jump
ASSUME Jump \\in Nat
VARIABLE tok
Init == tok = 0
Next == {next}
Spec == Init /\\ [][Next]_tok
====
"""


def _grade_jump(harness: Harness, nxt: str) -> tuple[str, str]:
    files = {"Out.tla": JUMP_OUT.format(next=nxt)}
    result = grade_behavior(harness, CYCLE, files, "Out", GRAPHS)
    return result.verdict, result.reason


def test_an_ok_under_one_of_the_numbers_tried_is_undecided(harness: Harness) -> None:
    # the reference has no number for `Jump`: the output passes under 1 only, a value found
    # by trying (the task gives none)
    verdict, reason = _grade_jump(harness, "tok' = (tok + Jump) % 3")
    assert verdict == "undecided", reason
    assert "some values of Jump only" in reason


def test_a_step_forbidden_under_every_number_tried_decides_nothing(harness: Harness) -> None:
    # `Jump \in Nat` admits numbers never tried: a failure under 0..3 is not one under every
    # admissible value (the soundness class `enumerated` needs all of them)
    verdict, reason = _grade_jump(harness, "tok' = IF tok < Jump THEN tok + 1 ELSE (tok + 2) % 3")
    assert verdict == "no_mapping", reason
    assert "does not fix for Jump" in reason
    assert "under every value of Jump (Jump in {0, 1, 2, 3" in reason


def test_behaviors_missing_under_every_number_tried_are_no_mapping(harness: Harness) -> None:
    # a bound too small to follow the reference may be the number's fault
    verdict, reason = _grade_jump(harness, "tok < Jump /\\ tok < 1 /\\ tok' = tok + 1")
    assert verdict == "no_mapping", reason
    assert "does not fix for Jump" in reason


SWITCH = Reference("Switch", {"Switch.tla": """---- MODULE Switch ----
VARIABLE v
Init == v = "yes"
Next == v' = IF v = "yes" THEN "no" ELSE "yes"
Spec == Init /\\ [][Next]_v
====
"""}, parse_cfg("SPECIFICATION Spec\n"))
SYMBOL_OUT = """---- MODULE Out ----
CONSTANTS Aye, Nay
VARIABLE v
TypeOK == v \\in {{Aye, Nay}}
Init == {init}
Next == v' = IF v = Aye THEN Nay ELSE Aye
Spec == Init /\\ [][Next]_v
====
"""


@pytest.mark.parametrize(("init", "expected"), [("v = Aye", "ok"),
                                                ("v \\in {Aye, Nay}", "forward_fail")])
def test_constants_used_as_symbols_are_model_values(harness: Harness, init: str,
                                                    expected: str) -> None:
    # the reference has no constants: `Aye` and `Nay` are model values, and any two distinct
    # ones behave alike, so a failure under them is the output's
    files = {"Out.tla": SYMBOL_OUT.format(init=init)}
    result = grade_behavior(harness, SWITCH, files, "Out", GRAPHS)
    assert result.verdict == expected, result.reason
    if expected == "ok":
        assert "is a model value" in result.details["mapping_tla"]


OWNER = Reference("Owner", {"Owner.tla": """---- MODULE Owner ----
CONSTANTS Procs, First
VARIABLE owner
Init == owner = First
Next == \\E p \\in Procs : owner' = p
Spec == Init /\\ [][Next]_owner
====
"""}, parse_cfg("CONSTANTS Procs = {p1, p2, p3}\n First = p1\nSPECIFICATION Spec\n"))
NUMBERED_OUT = """---- MODULE Out ----
EXTENDS Naturals
CONSTANTS N, Start
ASSUME N \\in Nat /\\ Start \\in 1..N
VARIABLE owner
Init == owner = Start
Next == \\E i \\in 1..N : owner' = {target}
Spec == Init /\\ [][Next]_owner
====
"""


@pytest.mark.parametrize(("target", "expected"), [("i", "ok"),
                                                  ("(owner % N) + 1", "reverse_fail")])
def test_numbered_processes_stand_for_the_reference_s_model_values(
        harness: Harness, target: str, expected: str) -> None:
    # `N` counts the reference's `Procs`; `Start` is a number where the reference's `First`
    # is a model value: each number stands for one model value, and `Start` takes each in turn
    files = {"Out.tla": NUMBERED_OUT.format(target=target)}
    result = grade_behavior(harness, OWNER, files, "Out", GRAPHS)
    assert result.verdict == expected, result.reason
