"""Bounding an infinite set must only remove behaviors: `tlc_harness.source.monotone`.

An output reading `Nat` is explored with `Nat` bounded to `0..B`. That shows only behaviors of
the output where every use of `Nat` is monotone (a smaller set makes the formula false, never
true). These cases read each use from the text; none runs TLC.
"""

from __future__ import annotations

import pytest

from tlc_harness.source.monotone import bound_adds_behaviors

HEAD = "---- MODULE Out ----\nEXTENDS Naturals, Sequences, FiniteSets\nVARIABLES x, q, f\n"
INIT = "Init == x = 0 /\\ q = <<>> /\\ f = [i \\in {1, 2} |-> 0]\n"
NAT = frozenset({"Nat"})


def _why(next_body: str, extra: str = "", bounded: frozenset[str] = NAT) -> str | None:
    text = f"{HEAD}{INIT}{extra}Next == {next_body}\n====\n"
    return bound_adds_behaviors({"Out.tla": text}, ("Init", "Next"), bounded)


@pytest.mark.parametrize("body", [
    "x' \\in Nat /\\ UNCHANGED <<q, f>>",
    "\\E v \\in Nat : x' = v /\\ UNCHANGED <<q, f>>",
    "f' \\in [{1, 2} -> Nat] /\\ UNCHANGED <<x, q>>",
    "q' \\in Seq(Nat) /\\ UNCHANGED <<x, f>>",
    "x' \\in SUBSET Nat \\cup {1} /\\ UNCHANGED <<q, f>>",
    "x' \\in {v \\in Nat : v < 3} /\\ UNCHANGED <<q, f>>",
    "x' \\in {v + 1 : v \\in Nat} /\\ UNCHANGED <<q, f>>",
    "(x > 3 => x' \\in Nat) /\\ UNCHANGED <<q, f>>",
    "~(x \\notin Nat) /\\ x' = 1 /\\ UNCHANGED <<q, f>>",   # two flips
    "\\/ x' \\in Nat \\ {1} /\\ UNCHANGED <<q, f>>\n        \\/ UNCHANGED <<x, q, f>>",
    "IF x > 3 THEN x' \\in Nat /\\ UNCHANGED <<q, f>> ELSE UNCHANGED <<x, q, f>>",
    "CASE x > 3 -> x' \\in Nat /\\ UNCHANGED <<q, f>> [] OTHER -> UNCHANGED <<x, q, f>>",
    "x' = x + 1 /\\ UNCHANGED <<q, f>>",      # no bounded set at all
])
def test_monotone_uses_keep_the_bound(body: str) -> None:
    assert _why(body) is None


@pytest.mark.parametrize(("body", "said"), [
    ("x \\notin Nat /\\ x' = 1 /\\ UNCHANGED <<q, f>>", "smaller set allows more"),
    ("~(x \\in Nat) /\\ x' = 1 /\\ UNCHANGED <<q, f>>", "smaller set allows more"),
    ("\\A v \\in Nat : v >= x", "smaller set allows more"),
    ("(x \\in Nat => x' = 1) /\\ UNCHANGED <<q, f>>", "smaller set allows more"),
    ("x' \\in {1, 2} \\ Nat /\\ UNCHANGED <<q, f>>", "smaller set allows more"),
    ("IF x \\in Nat THEN x' = 1 ELSE x' = 2", "IF condition"),
    ("CASE x \\in Nat -> x' = 1 [] OTHER -> x' = 2", "CASE guard"),
    ("x' = CHOOSE v \\in Nat : v > x", "operand of ="),
    ("x' = Cardinality({v \\in Nat : v < 3})", "operand of ="),
    ("x' = 1 /\\ f' = [v \\in Nat |-> 0] /\\ UNCHANGED q", "operand of ="),
    ("f' \\in [Nat -> {0}] /\\ UNCHANGED <<x, q>>", "domain of a set of functions"),
    ("q \\notin Seq({1}) /\\ UNCHANGED <<x, q, f>>", "smaller set allows more"),
])
def test_uses_a_bound_can_widen_are_refused(body: str, said: str) -> None:
    why = _why(body, bounded=frozenset({"Nat", "Seq"}))
    assert why is not None
    assert said in why


def test_seq_counts_only_when_it_is_bounded() -> None:
    body = "q \\notin Seq({1}) /\\ UNCHANGED <<x, q, f>>"
    assert _why(body, bounded=NAT) is None
    assert _why("x' \\in {Len(s) : s \\in Seq({1})} /\\ UNCHANGED <<q, f>>",
                bounded=frozenset({"Seq"})) is None


def test_uses_are_followed_through_definitions_and_arguments() -> None:
    extra = ("Values == Nat\nOutside(v) == v \\notin Values\nPick(S) == x' \\in S\n"
             "Fresh == \\E v \\in Values : Outside(v + 100)\n")
    assert _why("Pick(Nat) /\\ UNCHANGED <<q, f>>", extra) is None
    assert "smaller set allows more" in (_why("Fresh /\\ x' = 1 /\\ UNCHANGED <<q, f>>", extra)
                                         or "")
    assert "smaller set allows more" in (_why("Outside(x) /\\ x' = 1 /\\ UNCHANGED <<q, f>>",
                                              extra) or "")


def test_a_negated_use_in_init_counts_too() -> None:
    text = (f"{HEAD}Init == x \\notin Nat /\\ q = <<>> /\\ f = 0\n"
            "Next == UNCHANGED <<x, q, f>>\n====\n")
    assert bound_adds_behaviors({"Out.tla": text}, ("Init", "Next"), NAT) is not None


def test_an_invariant_or_liveness_that_search_does_not_explore_is_not_read() -> None:
    extra = "TypeOK == x \\notin Nat\n"
    assert _why("x' \\in Nat /\\ UNCHANGED <<q, f>>", extra) is None
    spec = (f"{HEAD}{INIT}Next == x' \\in Nat /\\ UNCHANGED <<q, f>>\n"
            "Spec == Init /\\ [][Next]_<<x, q, f>> /\\ WF_<<x, q, f>>(Next) "
            "/\\ <>(x \\notin Nat)\n====\n")
    assert bound_adds_behaviors({"Out.tla": spec}, ("Spec",), NAT) is None


def test_a_recursive_definition_is_followed_without_looping() -> None:
    extra = "RECURSIVE Sum(_)\nSum(S) == IF S = {} THEN 0 ELSE 1 + Sum(S \\ {CHOOSE e \\in S : TRUE})\n"
    assert _why("x' = Sum({1, 2}) /\\ UNCHANGED <<q, f>>", extra) is None
    assert _why("x' = Sum({v \\in Nat : v < 2}) /\\ UNCHANGED <<q, f>>", extra) is not None
