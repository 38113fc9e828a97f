"""A cfg may list one name twice (`PROPERTY Termination` in two places): TLC checks it, once.
The forward wrapper names each of the reference's checks once (`AliasRef_prop_<name>`), or
SANY refuses the wrapper ("already defined") and the reference graded against itself is a
`parse_error` (TLA+-Bench's 1595, FairSeq)."""

from __future__ import annotations

import pytest

from tlc_harness.behavior.engine import grade_behavior
from tlc_harness.behavior.options import BehaviorOptions
from tlc_harness.behavior.search import candidate_mappings
from tlc_harness.behavior.staging import Reference, constant_values, stage_output
from tlc_harness.behavior.verdicts import BehaviorVerdict
from tlc_harness.behavior.wrapper_modules import FORWARD, forward_wrapper
from tlc_harness.source.cfg import parse_cfg
from tlc_harness.tools.runner import Harness

LOOP = """---- MODULE Loop ----
EXTENDS Naturals
VARIABLE x
Init == x = 0
Next == x < 3 /\\ x' = x + 1
Spec == Init /\\ [][Next]_x /\\ WF_x(Next)
Done == <>(x = 3)
Small == x <= 3
====
"""
REF = Reference("Loop", {"Loop.tla": LOOP}, parse_cfg(
    "SPECIFICATION Spec\nPROPERTY Done\nINVARIANT Small\nPROPERTY Done\nINVARIANT Small\n"
    "CHECK_DEADLOCK FALSE\n"))


def test_the_wrapper_defines_each_check_once() -> None:
    staged = stage_output({"Loop.tla": LOOP}, "Loop", REF)
    values, _ = constant_values(REF)
    cand = next(iter(candidate_mappings(staged.ref_shape, staged.out_shape, limit=1,
                                        const_maps=[{}])))
    src, cfg = forward_wrapper(REF, staged, cand, values)
    text = src.files[f"{FORWARD}.tla"]
    assert text.count("AliasRef_prop_Done ==") == 1
    assert text.count("AliasRef_inv_Small ==") == 1
    assert cfg.properties.count("AliasRef_prop_Done") == 1


@pytest.mark.parametrize("engine", ["graphs", "wrappers"])
def test_the_reference_against_itself_passes(harness: Harness, engine: str) -> None:
    graded = grade_behavior(harness, REF, {"Loop.tla": LOOP}, "Loop",
                            BehaviorOptions(engine=engine, timeout=120))
    assert graded.verdict is BehaviorVerdict.OK, graded.reason
