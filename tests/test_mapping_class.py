"""The named class of mappings (`graph_engine.completeness.named_class`): a failure found
under mappings is a proof only where the class holds every mapping that could work."""

from __future__ import annotations

from tlc_harness.behavior.graph_engine.completeness import named_class
from tlc_harness.behavior.graphs import StateGraph
from tlc_harness.behavior.values import FALSE, TRUE, Value


def _cycle(variable: str, values: list[Value]) -> StateGraph:
    """One variable going round its values, from the first."""
    states = [(v,) for v in values]
    edges = [(i, (i + 1) % len(values)) for i in range(len(values))]
    return StateGraph((variable,), states, [0], edges)


def test_the_complement_of_a_named_boolean_is_in_the_class() -> None:
    ref = _cycle("locked", [FALSE, TRUE])
    out = _cycle("locked", [TRUE, FALSE])  # the output starts locked: its complement fits
    check = named_class(out, ref)
    assert not check.complete and "holds both ways" in check.why


def test_every_bijection_failing_is_a_proof() -> None:
    ref = _cycle("mode", ["a", "b", "c"])
    out = StateGraph(("mode",), [("x",), ("y",), ("z",)], [0], [(0, 1), (1, 0), (1, 2)])
    check = named_class(out, ref)
    assert check.complete and check.members == 6


def test_fewer_values_than_the_reference_fail_under_every_mapping() -> None:
    check = named_class(_cycle("x", ["a", "b"]), _cycle("x", ["a", "b", "c"]))
    assert check.complete
    # on part of the output's graph (bounded sets) the count says nothing
    assert not named_class(_cycle("x", ["a", "b"]), _cycle("x", ["a", "b", "c"]),
                           forward_only=True).complete


def test_shapes_the_class_does_not_cover() -> None:
    ref = _cycle("x", ["a", "b"])
    assert "no variable named x" in named_class(_cycle("y", ["a", "b"]), ref).why
    merged = named_class(_cycle("x", ["a", "b", "c"]), ref)  # h may merge two values
    assert not merged.complete
    counts = named_class(_cycle("x", [1, 2]), _cycle("x", [0, 1]))  # an offset may fit
    assert not counts.complete and "offset" in counts.why
    big = [f"v{i}" for i in range(8)]
    assert not named_class(_cycle("x", big), _cycle("x", [f"w{i}" for i in range(8)])).complete


def test_numbers_stand_for_themselves_where_both_sides_hold_numbers() -> None:
    # the same numbers, a different order of steps: the one member fails
    ref = _cycle("x", [0, 1, 2])
    out = StateGraph(("x",), [(0,), (2,), (1,)], [0], [(0, 1), (1, 2), (2, 0)])
    assert named_class(out, ref).complete
    # numbers for the reference's model values are values like any other
    assert not named_class(_cycle("x", [1, 2]), _cycle("x", ["p", "q"])).complete


def test_a_member_with_the_failing_mappings_image_fails_with_it() -> None:
    ref = _cycle("x", ["a", "b"])
    out = _cycle("x", ["a", "b"])
    assert not named_class(out, ref).complete  # the identity holds on the graphs
    # TLC found a failure under the identity (the reference's fairness, say); the other
    # bijection fails on the graphs: every member fails
    assert named_class(out, ref, found=[0, 1]).complete
