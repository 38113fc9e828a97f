"""The two bijections of BOOLEAN: a boolean may stand for the reference's complement."""

from __future__ import annotations

from tlc_harness.behavior.translation import boolean_polarities, exact_tables
from tlc_harness.behavior.values import FALSE, TRUE


def test_both_polarities_of_a_boolean_are_translations() -> None:
    both = frozenset({TRUE, FALSE})
    assert list(exact_tables(both, both)) == [{}, {TRUE: FALSE, FALSE: TRUE}]


def test_zero_one_read_either_way_round() -> None:
    tables = list(exact_tables(frozenset({0, 1}), frozenset({TRUE, FALSE})))
    assert {0: FALSE, 1: TRUE} in tables
    assert {0: TRUE, 1: FALSE} in tables


def test_no_complement_outside_the_values_the_reference_holds() -> None:
    # an output that is always TRUE where the reference is always TRUE: FALSE is not R's
    assert boolean_polarities({TRUE: TRUE}, {TRUE}) == [{TRUE: TRUE}]
    assert list(exact_tables(frozenset({TRUE}), frozenset({TRUE}))) == [{}]
