"""The wrapper engine and evaluation errors: when the forward check stops at an evaluation error
under every mapping, the output's own run decides whose fault it is. An output that runs on its
own is `no_mapping` (the mappings applied a reference function outside its domain), never a
`forward_fail`; an output whose own run fails is a `forward_fail`."""

from __future__ import annotations

from tlc_harness.behavior.engine import grade_behavior
from tlc_harness.behavior.options import BehaviorOptions
from tlc_harness.behavior.staging import Reference
from tlc_harness.source.cfg import parse_cfg
from tlc_harness.tools.runner import Harness

COUNTERS = """---- MODULE {name} ----
EXTENDS Integers
CONSTANT N
VARIABLE x
Init == x = [i \\in {ids} |-> 0]
Next == \\/ \\E i \\in {ids} : {guard} /\\ x' = [x EXCEPT ![i] = 1]
        \\/ (\\A i \\in {ids} : x[i] = 1) /\\ UNCHANGED x
Spec == Init /\\ [][Next]_x
Ok == x[0] \\in {{0, 1}}
====
"""
REF = Reference("Counters", {"Counters.tla": COUNTERS.format(
    name="Counters", ids="0..(N-1)", guard="x[i] = 0")},
    parse_cfg("CONSTANT N = 2\nSPECIFICATION Spec\nINVARIANT Ok\n"))
WRAPPERS = BehaviorOptions(engine="wrappers")


def _grade(harness: Harness, guard: str, options: BehaviorOptions = WRAPPERS) -> tuple[str, str]:
    files = {"Out.tla": COUNTERS.format(name="Out", ids="1..N", guard=guard)}
    result = grade_behavior(harness, REF, files, "Out", options)
    return result.verdict, result.reason


def test_errors_of_the_mappings_alone_are_no_mapping(harness: Harness) -> None:
    # the same counters numbered 1..N: the reference's `Ok` reads x[0], outside their domain
    verdict, reason = _grade(harness, "x[i] = 0")
    assert verdict == "no_mapping", reason
    assert "runs on its own" in reason


def test_the_graph_engine_maps_the_renumbered_counters(harness: Harness) -> None:
    assert _grade(harness, "x[i] = 0", BehaviorOptions(engine="graphs"))[0] == "ok"


def test_an_output_whose_own_run_fails_is_a_forward_fail(harness: Harness) -> None:
    # its own step reads x[i - 1], that is x[0] for the first counter
    verdict, reason = _grade(harness, "x[i - 1] = 0")
    assert verdict == "forward_fail", reason
    assert "own run" in reason


def test_an_assume_that_rejects_the_reference_values_is_no_mapping(harness: Harness) -> None:
    files = {"Out.tla": COUNTERS.format(name="Out", ids="1..N", guard="x[i] = 0").replace(
        "VARIABLE x", "ASSUME N > 5\nVARIABLE x")}
    result = grade_behavior(harness, REF, files, "Out", WRAPPERS)
    assert result.verdict == "no_mapping", result.reason
    assert "ASSUME" in result.reason
