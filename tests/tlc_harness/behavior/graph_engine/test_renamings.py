"""The class of renamings (`graph_engine.renamings`): one renaming of each sort's atoms,
applied pointwise everywhere; a failure under all of them is a failure under every natural
mapping, decided where the named class (bijections of whole values) is too large."""

from __future__ import annotations

import itertools

from tests.tlc_harness.behavior.graph_engine.test_mapping_class import _round
from tlc_harness.behavior import checks
from tlc_harness.behavior.graph_engine.renamings import KIND, renaming_class
from tlc_harness.behavior.graphs import StateGraph
from tlc_harness.behavior.values import Fn, Value

REF = _round(("idle", "wait", "crit"))


def _renumbered(graph: StateGraph, order: tuple[int, ...], names: dict[str, str]) -> StateGraph:
    """`graph` with process k called order[k-1] and each phase renamed by `names`."""
    def each(value: Value) -> Value:
        assert isinstance(value, Fn)
        return Fn([(order[int(str(k)) - 1], names[str(v)]) for k, v in value.items])
    return StateGraph(graph.variables, [(each(s[0]),) for s in graph.states], graph.initial,
                      graph.edges)


def test_a_changed_behavior_fails_under_every_renaming() -> None:
    out = _round(("i", "w", "c"), swap=True)  # process 3 never leaves phase b
    check = renaming_class(out, REF)
    # processes 1..3 index pc (identities) and the phases are names: 3! x 3! members
    assert check.complete and check.kind == KIND and check.members == 36
    assert "no natural mapping works" in check.why


def test_a_renamed_and_renumbered_output_has_members_holding_both_ways() -> None:
    out = _renumbered(REF, (2, 3, 1), {"idle": "i", "wait": "w", "crit": "c"})
    check = renaming_class(out, REF)
    # the processes are interchangeable: more members than TLC is asked to decide hold
    # both ways on the graphs, so the class is not complete; those kept are true holders
    assert not check.complete and not check.rest_for_tlc and "holds both ways" in check.why
    assert len(check.holders) == 4
    for image in check.holders:
        assert checks.forward(out, REF, list(image)).ok and checks.reverse(out, REF, list(image)).ok


def test_every_member_is_checked_by_brute_force() -> None:
    """The class's verdict agrees with trying every pair of bijections by hand."""
    out = _round(("i", "w", "c"), swap=True)
    index = REF.index()
    passing = 0
    for procs in itertools.permutations((1, 2, 3)):
        for phases in itertools.permutations(("idle", "wait", "crit")):
            names = dict(zip(("i", "w", "c"), phases, strict=True))
            image = [index.get((Fn([(procs[int(str(k)) - 1], names[str(v)])
                                    for k, v in s[0].items]),), -1)
                     for s in out.states if isinstance(s[0], Fn)]
            if -1 not in image and checks.forward(out, REF, image).ok and \
                    checks.reverse(out, REF, image).ok:
                passing += 1
    assert passing == 0 and renaming_class(out, REF).complete


def test_shapes_the_class_does_not_cover() -> None:
    ref = StateGraph(("x",), [(0,), (1,)], [0], [(0, 1)])
    out = StateGraph(("y",), [(0,), (1,)], [0], [(0, 1)])
    assert "no variable named x" in renaming_class(out, ref).why
    shifted = StateGraph(("x",), [(1,), (2,)], [0], [(0, 1)])  # counts stand for themselves
    assert not renaming_class(shifted, ref).complete
    more = StateGraph(("x",), [("a",), ("b",), ("c",)], [0], [(0, 1), (1, 2)])
    assert not renaming_class(more, StateGraph(("x",), [("a",), ("b",)], [0], [(0, 1)])).complete
