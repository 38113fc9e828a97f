"""The graph engine reads a function indexed by processes whole or not at all.

An output with one more process than the reference, its extra process out of sight, refines the
reference both ways up to stuttering (a barrier waits for it, and it can always catch up), so
a mapping that reads only some processes' entries would accept it; such mappings are refused.
Numbering the same processes differently is still accepted.
"""

from __future__ import annotations

import pytest

from tlc_harness.behavior.engine import grade_behavior
from tlc_harness.behavior.options import BehaviorOptions
from tlc_harness.behavior.staging import Reference
from tlc_harness.source.cfg import parse_cfg
from tlc_harness.tools.runner import Harness

BARRIER = """---- MODULE {name} ----
EXTENDS Integers
CONSTANT N
VARIABLE pc
Procs == {procs}
Init == pc = [p \\in Procs |-> "wait"]
Arrive(p) == pc[p] = "wait" /\\ pc' = [pc EXCEPT ![p] = "done"]
Release == (\\A p \\in Procs : pc[p] = "done") /\\ pc' = [p \\in Procs |-> "wait"]
Next == (\\E p \\in Procs : Arrive(p)) \\/ Release
Spec == Init /\\ [][Next]_pc
====
"""
CFG = "CONSTANT N = 3\nSPECIFICATION Spec\n"
REF = Reference("Barrier", {"Barrier.tla": BARRIER.format(name="Barrier", procs="1..N")},
                parse_cfg(CFG))


def _grade(harness: Harness, procs: str) -> str:
    files = {"Out.tla": BARRIER.format(name="Out", procs=procs)}
    options = BehaviorOptions(engine="graphs")
    return grade_behavior(harness, REF, files, "Out", options).verdict


@pytest.mark.parametrize("procs", ["0..N", "1..(N+1)", "{0} \\cup (1..N)"])
def test_an_extra_hidden_process_is_not_accepted(harness: Harness, procs: str) -> None:
    assert _grade(harness, procs) != "ok"


@pytest.mark.parametrize("procs", ["1..N", "0..(N-1)", "{7, 8, 9}"])
def test_the_same_processes_numbered_otherwise_are_accepted(harness: Harness, procs: str) -> None:
    assert _grade(harness, procs) == "ok"
