"""Index shifts: processes numbered `0..N-1` in one spec and `1..N` in the other are the same
processes. The translation may carry the output's indexes onto the reference's by `k |-> k + c`
where every integer of a part is an index, never a counter; end to end, a reference re-indexed
refines it both ways and the same re-indexing of a behavior mutant does not."""

from __future__ import annotations

import pytest

from tlc_harness.behavior.engine import grade_behavior
from tlc_harness.behavior.features import index_sets
from tlc_harness.behavior.graphs import StateGraph
from tlc_harness.behavior.options import BehaviorOptions
from tlc_harness.behavior.staging import Reference
from tlc_harness.behavior.translation import exact_tables, index_shifts
from tlc_harness.behavior.values import FALSE, TRUE, Fn, Value
from tlc_harness.source.cfg import ModelConfig
from tlc_harness.tools.runner import Harness


def fn(pairs: dict[int, Value]) -> Fn:
    return Fn(pairs.items())


def test_shifts_pair_ranges_of_one_size_that_start_apart() -> None:
    zero, one, two = frozenset({0, 1, 2}), frozenset({1, 2, 3}), frozenset({1, 2})
    assert index_shifts([zero], [one]) == [{0: 1, 1: 2, 2: 3}]
    assert index_shifts([one], [zero]) == [{1: 0, 2: 1, 3: 2}]
    assert index_shifts([zero], [zero]) == []          # the same indexes: nothing to shift
    assert index_shifts([zero], [two]) == []           # another number of processes
    assert index_shifts([frozenset({0, 2, 3})], [one]) == []  # not consecutive
    assert index_shifts([frozenset({0, "a"})], [two]) == []   # not all integers


def test_index_sets_are_the_common_domains_of_function_variables() -> None:
    graph = StateGraph(("flag", "turn", "queue"),
                       [(fn({0: FALSE, 1: TRUE}), 0, Fn.tuple_of([])),
                        (fn({0: TRUE, 1: TRUE}), 1, Fn.tuple_of([1]))], [0], [(0, 1)])
    # a sequence whose length changes has no common domain: its positions are not indexes
    assert index_sets(graph) == [frozenset({0, 1})]


def test_a_part_of_indexes_is_shifted_and_a_part_with_other_numbers_is_not() -> None:
    shift = [{0: 1, 1: 2}]
    turns = frozenset({0, 1}), frozenset({1, 2})
    assert list(exact_tables(*turns)) == []                    # integers stand for themselves
    assert list(exact_tables(*turns, shifts=shift)) == [{0: 1, 1: 2}]
    flags = (frozenset({fn({0: FALSE, 1: TRUE}), fn({0: TRUE, 1: TRUE})}),
             frozenset({fn({1: FALSE, 2: TRUE}), fn({1: TRUE, 2: TRUE})}))
    assert list(exact_tables(*flags, shifts=shift)) == [{0: 1, 1: 2}]
    # a counter that runs to 2 is no index of a set `0..1`
    counts = frozenset({0, 1, 2}), frozenset({1, 2, 3})
    assert list(exact_tables(*counts, shifts=shift)) == []
    # a shift of every integer the values hold, or none
    mixed = frozenset({fn({0: 5}), fn({1: 5})}), frozenset({fn({1: 6}), fn({2: 6})})
    assert list(exact_tables(*mixed, shifts=shift)) == []


RING = """---- MODULE Ring ----
EXTENDS Naturals
CONSTANT N
VARIABLES holder, passes
Init == holder = 0 /\\ passes = [i \\in 0..N-1 |-> 0]
Next == /\\ passes[holder] < 2
        /\\ passes' = [passes EXCEPT ![holder] = @ + 1]
        /\\ holder' = (holder + 1) % N
Spec == Init /\\ [][Next]_<<holder, passes>>
====
"""
REF = Reference("Ring", {"Ring.tla": RING},
                ModelConfig(constants=(("N", "3"),), specification="Spec", check_deadlock=False))
#: the same ring, its processes numbered from 1
SHIFTED = RING.replace("Ring", "Other").replace("holder = 0", "holder = 1").replace(
    "0..N-1", "1..N").replace("(holder + 1) % N", "(holder % N) + 1")


def _grade(harness: Harness, out: str) -> object:
    return grade_behavior(harness, REF, {"Other.tla": out}, "Other",
                          BehaviorOptions(engine="graphs", timeout=120))


def test_a_ring_numbered_from_one_refines_the_ring_numbered_from_zero(harness: Harness) -> None:
    graded = _grade(harness, SHIFTED)
    assert graded.verdict.value == "ok", graded.reason  # type: ignore[attr-defined]
    assert graded.soundness.value == "justified"  # type: ignore[attr-defined]


def test_the_ring_visited_in_another_order_is_the_ring_renumbered(harness: Harness) -> None:
    # 1 -> 3 -> 2: the processes index `passes`, so they are identities, and this is the
    # reference's ring with processes 2 and 3 renumbered in `holder` and in `passes` alike
    graded = _grade(harness, SHIFTED.replace("(holder % N) + 1",
                                             "IF holder = 1 THEN 3 ELSE holder - 1"))
    assert graded.verdict.value == "ok", graded.reason  # type: ignore[attr-defined]
    assert graded.details["mapping_source"] == "a member of the named class"  # type: ignore[attr-defined]


@pytest.mark.parametrize("mutant", [
    SHIFTED.replace("(holder % N) + 1", "(holder % N) + 1 /\\ holder # 2"),  # one stops early
    SHIFTED.replace("passes[holder] < 2", "passes[holder] < 3"),            # one more pass
])
def test_a_renumbered_ring_that_behaves_otherwise_fails(harness: Harness, mutant: str) -> None:
    graded = _grade(harness, mutant)
    # a failure where the class of mappings holds every one that could work; else no
    # mapping (another offset or renumbering of the processes might fit): never an ok
    assert graded.verdict.value in ("forward_fail", "reverse_fail", "no_mapping"), graded.reason  # type: ignore[attr-defined]
    if graded.verdict.value == "no_mapping":  # type: ignore[attr-defined]
        assert graded.code.value == "mapping_class_incomplete", graded.reason  # type: ignore[union-attr]
