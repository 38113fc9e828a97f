"""A reference variable the output does not hold may be derived from the output's other state
(a lookup table), but only when no unused variable or field of the output could hold it: else
a wrong field would be hidden behind the table and a wrong output accepted."""

from __future__ import annotations

import pytest

from tlc_harness.behavior.engine import grade_behavior
from tlc_harness.behavior.options import BehaviorOptions
from tlc_harness.behavior.staging import Reference
from tlc_harness.behavior.verdicts import BehaviorVerdict, Reason
from tlc_harness.source.cfg import ModelConfig, parse_cfg
from tlc_harness.tools.runner import Harness

SHOP = """---- MODULE Shop ----
EXTENDS Integers
VARIABLES stock, cash
Init == stock = 2 /\\ cash = 0
Next == stock > 0 /\\ stock' = stock - 1 /\\ cash' = cash + 1
Spec == Init /\\ [][Next]_<<stock, cash>>
====
"""
REF = Reference("Shop", {"Shop.tla": SHOP}, parse_cfg("SPECIFICATION Spec\nCHECK_DEADLOCK FALSE\n"))
PACKED = """---- MODULE Out ----
EXTENDS Integers
VARIABLE st
Init == st = [stock |-> 2{cash}]
Next == st.stock > 0 /\\ st' = [stock |-> st.stock - 1{cash_next}]
Spec == Init /\\ [][Next]_st
====
"""
GRAPHS = BehaviorOptions(engine="graphs")


def _grade(harness: Harness, cash: str, cash_next: str) -> str:
    files = {"Out.tla": PACKED.format(cash=cash, cash_next=cash_next)}
    result = grade_behavior(harness, REF, files, "Out", GRAPHS)
    return result.verdict


def test_a_variable_the_output_derives_is_read_through_a_table(harness: Harness) -> None:
    assert _grade(harness, "", "") == "ok"  # cash = 2 - stock: the output need not hold it


def test_a_field_that_holds_it_correctly_is_used(harness: Harness) -> None:
    assert _grade(harness, ", cash |-> 0", ", cash |-> st.cash + 1") == "ok"


@pytest.mark.parametrize("start", ["1", "5"])
def test_a_wrong_field_is_not_hidden_behind_a_table(harness: Harness, start: str) -> None:
    # the output's own cash is wrong: deriving the reference's cash from stock would hide it
    assert _grade(harness, f", cash |-> {start}", ", cash |-> st.cash + 1") != "ok"


# ------------------------------------------------ a named observable computed, the output's own unread
ANNOUNCE = """---- MODULE Announce ----
EXTENDS Naturals
VARIABLES count, announced
Init == count = 0 /\\ announced = FALSE
Next == count < 3 /\\ count' = count + 1 /\\ announced' = (count' = 3)
Spec == Init /\\ [][Next]_<<count, announced>>
====
"""


def test_an_observable_recomputed_while_the_outputs_own_goes_unread_is_no_ok(
        harness: Harness) -> None:
    ref = Reference("Announce", {"Announce.tla": ANNOUNCE}, ModelConfig(
        specification="Spec", check_deadlock=False))
    # the output announces (as 0/1) a step early: only a mapping that computes `announced`
    # from `count`, ignoring the output's own `announced`, makes the graphs agree
    early = ANNOUNCE.replace("Announce", "Other").replace("announced = FALSE", "announced = 0") \
        .replace("announced' = (count' = 3)", "announced' = IF count' >= 2 THEN 1 ELSE 0")
    graded = grade_behavior(harness, ref, {"Other.tla": early}, "Other",
                            BehaviorOptions(engine="graphs", timeout=120))
    assert graded.verdict is BehaviorVerdict.UNDECIDED, graded.reason
    assert graded.code is Reason.OBSERVABLE_RECOMPUTED
    # announcing on time (as 0/1) is read as it is: an ok
    timely = early.replace("count' >= 2", "count' = 3")
    graded = grade_behavior(harness, ref, {"Other.tla": timely}, "Other",
                            BehaviorOptions(engine="graphs", timeout=120))
    assert graded.verdict is BehaviorVerdict.OK, graded.reason


# ------------------------------------- an observable read from the output's own variable of its name
LOCK = """---- MODULE Lock ----
CONSTANT Procs
VARIABLES pc, lock
Init == lock = 1 /\\ pc = [p \\in Procs |-> "idle"]
Acquire(p) == pc[p] = "idle" /\\ lock = 1 /\\ lock' = 0 /\\ pc' = [pc EXCEPT ![p] = "cs"]
Release(p) == pc[p] = "cs" /\\ lock' = 1 /\\ pc' = [pc EXCEPT ![p] = "idle"]
Next == \\E p \\in Procs : Acquire(p) \\/ Release(p)
Spec == Init /\\ [][Next]_<<pc, lock>>
====
"""
#: the lock holds the process that has it, or "free": more values than the reference's 0/1
HOLDER = LOCK.replace("Lock", "Other").replace("lock = 1 /\\ pc", 'lock = "free" /\\ pc') \
    .replace("lock = 1 /\\ lock' = 0", "lock = \"free\" /\\ lock' = p") \
    .replace("lock' = 1 /\\ pc'", "lock' = \"free\" /\\ pc'")


def _lock_grade(harness: Harness, out: str):  # type: ignore[no-untyped-def]
    ref = Reference("Lock", {"Lock.tla": LOCK}, ModelConfig(
        constants=(("Procs", "{p1, p2}"), ("p1", "p1"), ("p2", "p2")), specification="Spec",
        check_deadlock=False))
    return grade_behavior(harness, ref, {"Other.tla": out}, "Other",
                          BehaviorOptions(engine="graphs", timeout=120))


def test_an_observable_the_outputs_own_variable_determines_is_read_from_it(
        harness: Harness) -> None:
    graded = _lock_grade(harness, HOLDER)
    assert graded.verdict is BehaviorVerdict.OK, graded.reason
    assert "[lock]" in graded.mapping["variables"]["lock"]  # a table over the output's own lock


def test_an_own_variable_that_does_not_determine_the_observable_is_not_read(
        harness: Harness) -> None:
    # the output's lock says "free" one step too late (after release the process waits in
    # "out" with the lock still held): the reference's lock is computed from pc, not read
    late = HOLDER.replace("lock' = \"free\" /\\ pc' = [pc EXCEPT ![p] = \"idle\"]",
                          "lock' = lock /\\ pc' = [pc EXCEPT ![p] = \"out\"]") \
        .replace("Next == \\E p \\in Procs : Acquire(p) \\/ Release(p)",
                 "Leave(p) == pc[p] = \"out\" /\\ lock' = \"free\" /\\ pc' = [pc EXCEPT ![p] = \"idle\"]\n"
                 "Next == \\E p \\in Procs : Acquire(p) \\/ Release(p) \\/ Leave(p)")
    graded = _lock_grade(harness, late)
    assert graded.verdict is not BehaviorVerdict.OK, graded.reason
