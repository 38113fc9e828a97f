"""The soundness class of a decided verdict, and the sources of the constants' values it rests
on (no TLC run: the plan and the classifier work on source text and recorded facts)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tlc_harness.behavior.checks import halts_sooner, longest_run, too_small
from tlc_harness.behavior.engine import grade_behavior
from tlc_harness.behavior.graph_engine.constant_maps import finite_numbers, plan_constants
from tlc_harness.behavior.graphs import StateGraph
from tlc_harness.behavior.options import BehaviorOptions
from tlc_harness.behavior.search import assignments, constant_roles, named_alike, used_alike
from tlc_harness.behavior.soundness import classify
from tlc_harness.behavior.staging import Reference, constant_values, stage_output
from tlc_harness.behavior.verdicts import (
    BehaviorResult,
    BehaviorVerdict,
    Reason,
    Soundness,
    ValueSource,
)
from tlc_harness.source.cfg import ModelConfig
from tlc_harness.source.formulas import assumed_equalities
from tlc_harness.tools.runner import Harness

V, R, S = BehaviorVerdict, Reason, Soundness
COUNTER = """---- MODULE Counter ----
EXTENDS Naturals
CONSTANTS Max, Step
VARIABLE x
Init == x = 0
Next == x + Step <= Max /\\ x' = x + Step
Spec == Init /\\ [][Next]_x
====
"""
REF = Reference("Counter", {"Counter.tla": COUNTER},
                ModelConfig(constants=(("Max", "3"), ("Step", "1")), specification="Spec",
                            check_deadlock=False))
_OUT = COUNTER.replace("Counter", "Other")


def _const(value: str, source: ValueSource, paired: str | None = None,
           name: str = "") -> dict[str, str]:
    return {"value": value, "from": paired or name, "source": source.value}


#: every fact a decided verdict rests on, as an engine records it (a test drops or changes one)
FACTS: dict[str, Any] = {"constants": {}, "pairings": {"total": 1, "graded": 1, "failed": 1},
                         "mapping_class": "named_bijections", "own_run_error": "definitions"}


def _result(verdict: BehaviorVerdict, code: Reason | None = None, *,
            constants: dict[str, dict[str, str]] | None = None,
            pairings: dict[str, int] | None = None, drop: str = "",
            **facts: Any) -> BehaviorResult:
    details: dict[str, Any] = {**FACTS, **facts}
    if constants is not None:
        details["constants"] = constants
    if pairings is not None:
        details["pairings"] = pairings
    details.pop(drop, None)
    return BehaviorResult(verdict, None, "why", 0.0, code=code, details=details)


@pytest.mark.parametrize(("verdict", "code", "fact"), [
    (V.OK, None, "constants"),
    (V.FORWARD_FAIL, Reason.GRAPH_FORWARD, "constants"),
    (V.FORWARD_FAIL, Reason.GRAPH_FORWARD, "pairings"),
    (V.FORWARD_FAIL, Reason.GRAPH_FORWARD, "mapping_class"),
    (V.REVERSE_FAIL, Reason.TLC_REVERSE, "mapping_class"),
    (V.REVERSE_FAIL, Reason.TOO_FEW_STATES, "pairings"),
    (V.FORWARD_FAIL, Reason.OUTPUT_RUN_FAILS, "own_run_error"),
    (V.FORWARD_FAIL, Reason.OUTPUT_RUN_FAILS, "constants"),
])
def test_a_decided_verdict_without_one_of_its_facts_is_undecided(
        verdict: BehaviorVerdict, code: Reason | None, fact: str) -> None:
    assert classify(_result(verdict, code)).verdict is verdict  # with every fact: decided
    dropped = classify(_result(verdict, code, drop=fact))
    assert dropped.verdict is V.UNDECIDED, dropped.reason
    assert dropped.code is Reason.FACTS_MISSING


def test_a_failure_under_an_incomplete_class_of_mappings_is_no_mapping() -> None:
    graded = classify(_result(V.FORWARD_FAIL, Reason.TLC_FORWARD, mapping_class="incomplete"))
    assert (graded.verdict, graded.code) == (V.NO_MAPPING, Reason.MAPPING_CLASS_INCOMPLETE)
    kept = classify(_result(V.REVERSE_FAIL, Reason.TOO_FEW_STATES, mapping_class="incomplete"))
    assert kept.soundness is S.MAPPING_FREE  # a mapping-free check needs no class
    assert kept.details["mapping_basis"] == "any_mapping"


@pytest.mark.parametrize("mapping_class", ["named_bijections", "named_functions"])
def test_a_failure_under_a_complete_class_records_which_class(mapping_class: str) -> None:
    graded = classify(_result(V.FORWARD_FAIL, Reason.GRAPH_FORWARD, mapping_class=mapping_class))
    assert graded.verdict is V.FORWARD_FAIL and graded.soundness is S.JUSTIFIED
    assert graded.details["mapping_basis"] == mapping_class


@pytest.mark.parametrize(("error", "source", "paired", "decided"), [
    ("definitions", ValueSource.REFERENCE_CONSTANT, "N", True),
    ("no_initial_state", ValueSource.OUTPUT_ASSUME, None, True),
    ("unassigned_state", ValueSource.REFERENCE_CONSTANT, "N", False),
    ("other", ValueSource.REFERENCE_CONSTANT, "N", False),
    ("deadlock", ValueSource.REFERENCE_CONSTANT, "N", True),
    ("definitions", ValueSource.REFERENCE_CONSTANT, "Max", False),   # paired by position
    ("definitions", ValueSource.REFERENCE_COUNT, "Procs", False),    # a count the grader took
    # ... that the output's ASSUME names, under the only pairing: the reference's count
    ("definitions", ValueSource.REFERENCE_COUNT, "assumed Procs", True),
    ("definitions", ValueSource.OPAQUE_TOKEN, None, False),
])
def test_an_own_run_failure_decides_only_on_the_tasks_values_and_the_outputs_error(
        error: str, source: ValueSource, paired: str | None, decided: bool) -> None:
    const: dict[str, Any] = _const("3", source, (paired or "").removeprefix("assumed ") or None,
                                   "N")
    if paired is not None and paired.startswith("assumed "):
        const["named_by_assume"] = True
        # under one of two pairings the count is not the only meaning
        two = classify(_result(V.FORWARD_FAIL, Reason.OUTPUT_RUN_FAILS, own_run_error=error,
                               constants={"N": const},
                               pairings={"total": 2, "graded": 1, "failed": 1}))
        assert (two.verdict, two.code) == (V.UNDECIDED, Reason.OWN_RUN_LIMIT)
    graded = classify(_result(V.FORWARD_FAIL, Reason.OUTPUT_RUN_FAILS, own_run_error=error,
                              constants={"N": const}))
    if decided:
        assert graded.soundness is S.JUSTIFIED, graded.reason
        assert graded.details["mapping_basis"] == "own_run"
    else:
        assert (graded.verdict, graded.code) == (V.UNDECIDED, Reason.OWN_RUN_LIMIT)


# --------------------------------------------------------------------------- the class
def test_an_ok_under_the_references_values_is_justified() -> None:
    graded = classify(_result(V.OK, constants={
        "Max": _const("3", ValueSource.REFERENCE_CONSTANT, name="Max"),
        "Flag": _const("TRUE", ValueSource.EVERY_VALUE, name="Flag")}))
    assert graded.verdict is V.OK and graded.soundness is S.JUSTIFIED
    assert graded.to_json()["soundness"] == "justified"


def test_an_ok_under_a_guessed_value_is_undecided() -> None:
    graded = classify(_result(V.OK, constants={
        "Limit": _const("2", ValueSource.GUESSED, "2")}))
    assert graded.verdict is V.UNDECIDED and graded.code is R.VALUE_GUESSED
    assert graded.soundness is None and "Limit = 2" in graded.reason


def test_a_failure_of_an_output_without_constants_in_its_own_run_is_mapping_free() -> None:
    graded = classify(_result(V.FORWARD_FAIL, R.OUTPUT_RUN_FAILS, constants={}))
    assert graded.soundness is S.MAPPING_FREE
    # with constants, the failure rests on their values
    with_values = classify(_result(V.FORWARD_FAIL, R.OUTPUT_RUN_FAILS, constants={
        "Max": _const("3", ValueSource.REFERENCE_CONSTANT, name="Max")}))
    assert with_values.soundness is S.JUSTIFIED


def test_a_failure_under_a_guessed_value_is_not_decided() -> None:
    graded = classify(_result(V.FORWARD_FAIL, R.GRAPH_FORWARD, constants={
        "Limit": _const("2", ValueSource.GUESSED, "2")}))
    assert graded.verdict is V.NO_MAPPING and graded.code is R.CONSTANT_UNJUSTIFIED


@pytest.mark.parametrize("verdict", [V.OK, V.FORWARD_FAIL])
def test_a_verdict_under_a_few_numbers_tried_for_a_free_number_is_not_decided(
        verdict: BehaviorVerdict) -> None:
    graded = classify(_result(verdict, None if verdict is V.OK else R.GRAPH_FORWARD, constants={
        "Jump": _const("2", ValueSource.VALUES_TRIED, "2")}))
    assert not graded.verdict.decided and graded.soundness is None


def test_a_failure_under_every_value_of_a_free_constant_is_enumerated() -> None:
    graded = classify(_result(V.REVERSE_FAIL, R.GRAPH_REVERSE, constants={
        "Max": _const("3", ValueSource.REFERENCE_CONSTANT, name="Max"),
        "Debug": _const("TRUE", ValueSource.EVERY_VALUE, name="Debug")}))
    assert graded.soundness is S.ENUMERATED


@pytest.mark.parametrize(("pairings", "names_agree", "verdict", "soundness"), [
    # the only pairing there is: justified
    ({"total": 1, "graded": 1, "failed": 1}, False, V.FORWARD_FAIL, S.JUSTIFIED),
    # several pairings, the output's constants named as the reference's: justified
    ({"total": 2, "graded": 1, "failed": 1}, True, V.FORWARD_FAIL, S.JUSTIFIED),
    # several, named otherwise, every one failed: enumerated
    ({"total": 2, "graded": 2, "failed": 2}, False, V.FORWARD_FAIL, S.ENUMERATED),
    # several, named otherwise, one not graded or not failed: the failure is not justified
    ({"total": 3, "graded": 3, "failed": 2}, False, V.NO_MAPPING, None),
    ({"total": 4, "graded": 3, "failed": 3}, False, V.NO_MAPPING, None),
])
def test_a_failure_under_one_pairing_of_constants_needs_that_pairing_justified(
        pairings: dict[str, int], names_agree: bool, verdict: BehaviorVerdict,
        soundness: Soundness | None) -> None:
    constants = {"Max": _const("3", ValueSource.REFERENCE_CONSTANT,
                               "Max" if names_agree else "Limit", "Max"),
                 "Step": _const("1", ValueSource.REFERENCE_CONSTANT,
                                "Step" if names_agree else "Stride", "Step")}
    graded = classify(_result(V.FORWARD_FAIL, R.TLC_FORWARD, constants=constants,
                              pairings=pairings))
    assert graded.verdict is verdict and graded.soundness is soundness
    if verdict is V.NO_MAPPING:
        assert graded.code is R.PAIRING_AMBIGUOUS and "Max <- Limit" in graded.reason


def test_a_failure_under_constants_named_alike_is_justified() -> None:
    constants = {"InitPrimers": {**_const("5", ValueSource.REFERENCE_CONSTANT, "PRIMER"),
                                 "named_alike": True}}
    graded = classify(_result(V.FORWARD_FAIL, R.GRAPH_FORWARD, constants=constants,
                              pairings={"total": 12, "graded": 3, "failed": 1}))
    assert graded.verdict is V.FORWARD_FAIL and graded.soundness is S.JUSTIFIED


def test_verdicts_that_decide_nothing_keep_no_class() -> None:
    for verdict, code in ((V.UNDECIDED, R.TIME_BUDGET), (V.NO_MAPPING, R.NO_CANDIDATE),
                          (V.NOT_COVERED, R.REFERENCE_FAILS)):
        assert classify(_result(verdict, code)).soundness is None
        with pytest.raises(ValueError, match="decides nothing"):
            BehaviorResult(verdict, None, "", 0.0, code=code, soundness=S.JUSTIFIED)


def test_an_ok_is_only_justified() -> None:
    with pytest.raises(ValueError, match="only justified"):
        BehaviorResult(V.OK, None, "", 0.0, soundness=S.ENUMERATED)


@pytest.mark.parametrize(("sources", "targets", "alike"), [
    # one name holds the other, letters only and case aside
    (("InitPrimers", "InitDNA"), ("DNA", "PRIMER"),
     {("InitPrimers", "PRIMER"), ("InitDNA", "DNA")}),
    (("NumNodes",), ("Nodes", "Max"), {("NumNodes", "Nodes")}),
    # identical names are paired as such, not as alike; two letters say nothing
    (("N", "Max"), ("N", "MaxVal"), {("Max", "MaxVal")}),
    (("Np",), ("N", "P"), set()),
    # one name alike with two of the other side is no evidence for either
    (("MaxCount",), ("Max", "Count"), set()),
    # expressions among the targets (counts, numbers) are not names
    (("Procs",), ("1..Procs", "2"), set()),
])
def test_names_that_hold_each_other_pair_constants_by_meaning(
        sources: tuple[str, ...], targets: tuple[str, ...],
        alike: set[tuple[str, str]]) -> None:
    assert named_alike(sources, targets) == alike


def test_a_pairing_by_names_alike_comes_before_a_pairing_by_position() -> None:
    maps = assignments(("InitPrimers", "InitDNA"), ("DNA", "PRIMER"), {}, {}, by_meaning=True)
    assert maps[0] == {"InitPrimers": "PRIMER", "InitDNA": "DNA"}
    assert assignments(("InitPrimers", "InitDNA"), ("DNA", "PRIMER"), {}, {})[0] == {
        "InitPrimers": "DNA", "InitDNA": "PRIMER"}  # variables keep positions first


# ----------------------------------------------------------------- sources in the plan
def _plan(out: str) -> Any:
    values, unsupported = constant_values(REF)
    assert unsupported is None
    return plan_constants(REF, stage_output({"Other.tla": out}, "Other", REF), values)


def test_constants_paired_with_the_references_take_its_values_as_their_source() -> None:
    out = COUNTER.replace("Counter", "Other").replace("CONSTANTS Max, Step",
                                                      "CONSTANTS Max, Stride")
    plan = _plan(out.replace("Step", "Stride"))
    sources = plan.sources(plan.groups[0][0])
    assert sources["Max"] == {"value": "3", "from": "Max", "source": "reference_constant"}
    assert sources["Stride"]["source"] == "reference_constant"
    assert sources["Stride"]["from"] in ("Step", "Max")
    assert plan.pairings == 2  # Max and Stride could take either number


def test_a_boolean_swept_for_every_value_and_an_unused_constant_say_so() -> None:
    out = COUNTER.replace("Counter", "Other").replace(
        "CONSTANTS Max, Step", "CONSTANTS Max, Step, Debug, Spare").replace(
        "x' = x + Step", "x' = x + Step /\\ (Debug \\/ ~Debug)")
    plan = _plan(out)
    group = plan.groups[0]
    assert plan.sources(group[0])["Spare"]["source"] == "unused"
    # a BOOLEAN no reference constant stands for: one value alone is not the reference's
    assert plan.sources(group[0])["Debug"]["source"] == "guessed"
    assert plan.sources(group[0], ["Debug"])["Debug"]["source"] == "every_value"


#: the reference's counter with a bound only its own invariant reads
BOUNDED = COUNTER.replace("Counter", "Other").replace(
    "CONSTANTS Max, Step", "CONSTANTS Max, Step, Limit").replace(
    "====", "TypeOK == x \\in 0..Limit\n====")


def test_a_constant_only_an_invariant_reads_takes_any_value() -> None:
    plan = _plan(BOUNDED)
    assert plan.sources(plan.groups[0][0])["Limit"]["source"] == "not_read"
    # read by Next, it is a free parameter again
    plan = _plan(BOUNDED.replace("x + Step <= Max", "x + Step <= Max /\\ x < Limit"))
    assert all(plan.sources(m)["Limit"]["source"] != "not_read"
               for group in plan.groups for m in group)
    # named by an ASSUME, it takes values as any constant does (one the ASSUME must admit),
    # and whichever it takes is no guess
    plan = _plan(BOUNDED.replace("VARIABLE x", "ASSUME Limit \\in Nat\nVARIABLE x"))
    assert all(plan.sources(m)["Limit"] == {**plan.sources(m)["Limit"], "source": "not_read",
                                            "named_by_assume": True}
               for group in plan.groups for m in group)
    assert all("Limit" not in plan.guessed(m) for group in plan.groups for m in group)


def test_an_output_whose_extra_constant_only_an_invariant_reads_is_graded(
        harness: Harness) -> None:
    graded = _grade(harness, BOUNDED)
    assert graded.verdict is V.OK and graded.soundness is S.JUSTIFIED, graded.reason
    assert graded.details["constants"]["Limit"]["source"] == "not_read"
    wrong = _grade(harness, BOUNDED.replace("x = 0", "x \\in {0, 1}"))
    assert wrong.verdict is V.FORWARD_FAIL and wrong.soundness is S.JUSTIFIED, wrong.reason
    # an ASSUME on it admits the value it takes: the same verdicts
    typed = BOUNDED.replace("VARIABLE x", "ASSUME Limit \\in Nat /\\ Limit > 0\nVARIABLE x")
    graded = _grade(harness, typed)
    assert graded.verdict is V.OK and graded.soundness is S.JUSTIFIED, graded.reason
    assert graded.details["constants"]["Limit"]["source"] == "not_read"
    # an ASSUME TLC cannot evaluate on the values tried rejects them: nothing is decided
    odd = BOUNDED.replace("VARIABLE x", "ASSUME Limit \\subseteq Nat\nVARIABLE x")
    graded = _grade(harness, odd)
    assert not graded.verdict.decided, graded.reason


def test_an_own_run_failing_under_a_value_an_assume_reads_is_not_decided() -> None:
    # the ASSUME is evaluated on that value, and may be what stopped the run
    failed = classify(_result(V.FORWARD_FAIL, R.OUTPUT_RUN_FAILS, constants={
        "Limit": {**_const("0", ValueSource.NOT_READ, "0"), "named_by_assume": True}}))
    assert failed.verdict is V.UNDECIDED and failed.code is R.OWN_RUN_LIMIT
    # a constant no ASSUME names is never evaluated: the failure stands
    plain = classify(_result(V.FORWARD_FAIL, R.OUTPUT_RUN_FAILS, constants={
        "Limit": _const('"unused"', ValueSource.NOT_READ, '"unused"')}))
    assert plain.verdict is V.FORWARD_FAIL and plain.soundness is S.JUSTIFIED


def test_assumed_equalities_are_read_from_every_assume_and_never_from_comments() -> None:
    module = """---- MODULE M ----
CONSTANTS N, Hours, M, K
ASSUME N = 5
ASSUME /\\ Hours = 1 .. 12
       /\\ M \\in Nat
       /\\ 3 = K
ASSUMPTION Bound == N = 3
\\* ASSUME M = 4
(* ASSUME K = 9 *)
====
"""
    assert assumed_equalities({"M.tla": module}) == {
        "N": ("5", "3"), "Hours": ("1 .. 12",), "K": ("3",)}


def test_a_constant_its_own_assume_fixes_takes_that_value() -> None:
    out = COUNTER.replace("Counter", "Other").replace(
        "CONSTANTS Max, Step", "CONSTANTS Max, Step, Width\nASSUME Width = 2").replace(
        "x' = x + Step", "x' = x + Step /\\ Width > 1")
    plan = _plan(out)
    sources = plan.sources(plan.groups[0][0])
    assert sources["Width"] == {"value": "2", "from": "2", "source": "output_assume"}
    assert plan.guessed(plan.groups[0][0]) == []
    # named as a reference constant, the constant takes the task's value (its ASSUME may
    # then reject it); two different equalities fix nothing
    assert _plan(out.replace("ASSUME Width = 2", "ASSUME Max = 7")).sources(
        _plan(out.replace("ASSUME Width = 2", "ASSUME Max = 7")).groups[0][0])["Max"][
        "source"] == "reference_constant"
    twice = _plan(out.replace("ASSUME Width = 2", "ASSUME Width = 2 /\\ Width = 3"))
    assert "Width" not in twice.assumed


def test_a_count_of_a_reference_constant_is_a_value_only_where_nothing_else_stands_for_it(
        ) -> None:
    # the output enumerates what the reference counts: `Slots` is `1..Max`
    alone = _OUT.replace("CONSTANTS Max, Step", "CONSTANTS Slots, Step").replace(
        "x + Step <= Max", "x + Step <= Cardinality(Slots)").replace(
        "EXTENDS Naturals", "EXTENDS Naturals, FiniteSets")
    plan = _plan(alone)
    sources = [plan.sources(group[0])["Slots"] for group in plan.groups]
    assert {"value": "1..3", "from": "1..Max", "source": "reference_count"} in sources
    # `1..Step` counts what the output's own `Step` stands for: not a value of `Slots`
    assert {"value": "1..1", "from": "1..Step", "source": "guessed"} in sources
    # beside an output constant paired with `Max` itself, the set is something else
    both = _plan(DEGENERATE["empty_set"])
    assert both.sources(both.groups[0][0])["Extra"]["source"] == "guessed"


START_REF = Reference(
    "Counter", {"Counter.tla": COUNTER.replace("CONSTANTS Max, Step", "CONSTANTS Max, Step, Start")
                .replace("x = 0", "x = Start")},
    ModelConfig(constants=(("Max", "3"), ("Step", "1"), ("Start", "0")), specification="Spec",
                check_deadlock=False))
#: an output with a mode it names by a constant used only as a symbol (`Idle`)
TOKEN_OUT = _OUT.replace("CONSTANTS Max, Step", "CONSTANTS Max, Step, Idle").replace(
    "VARIABLE x", "VARIABLES x, mode").replace("Init == x = 0", "Init == x = 0 /\\ mode = Idle").replace(
    "x' = x + Step", "x' = x + Step /\\ mode' \\in {Idle, mode}").replace(
    "[][Next]_x", "[][Next]_<<x, mode>>")


def test_an_opaque_token_is_a_model_value_of_its_own_not_a_reference_number() -> None:
    # `Idle` would pair with the reference's `Start` (a number) by position; it only names
    values, _ = constant_values(START_REF)
    plan = plan_constants(START_REF, stage_output({"Other.tla": TOKEN_OUT}, "Other", START_REF),
                          values)
    assert plan.sources(plan.groups[0][0])["Idle"] == {
        "value": "Idle", "from": "Idle", "source": "opaque_token"}


# -------------------------------------------------------------------- graded with TLC
def _grade(harness: Harness, out: str) -> BehaviorResult:
    return grade_behavior(harness, REF, {"Other.tla": out}, "Other",
                          BehaviorOptions(engine="auto", timeout=120))


def test_a_graded_ok_and_failure_carry_their_class_and_sources(harness: Harness) -> None:
    same = COUNTER.replace("Counter", "Other")
    graded = _grade(harness, same)
    assert graded.verdict is V.OK and graded.soundness is S.JUSTIFIED
    assert graded.details["constants"]["Max"]["source"] == "reference_constant"
    # each stage the grade went through is timed (no confirming run: the reference has no
    # fairness nor property, and the exploration of its graph checked it, `test_own_checks`)
    assert set(graded.details["stage_seconds"]) == {"reference_graph", "output_graph",
                                                     "inference"}
    assert "forward_decided" in graded.details
    wrong = _grade(harness, same.replace("x = 0", "x \\in {0, 1}"))
    assert wrong.verdict is V.FORWARD_FAIL and wrong.soundness is S.JUSTIFIED


def test_an_output_with_a_value_its_assume_gives_is_graded_under_it(harness: Harness) -> None:
    out = COUNTER.replace("Counter", "Other").replace(
        "CONSTANTS Max, Step", "CONSTANTS Max, Step, Start\nASSUME Start = 0").replace(
        "x = 0", "x = Start")
    graded = _grade(harness, out)
    assert graded.verdict is V.OK and graded.soundness is S.JUSTIFIED, graded.reason
    assert graded.details["constants"]["Start"]["source"] == "output_assume"
    # a value the output fixes that gives other behaviors is the output's failure
    off = _grade(harness, out.replace("ASSUME Start = 0", "ASSUME Start = 1"))
    assert off.verdict is V.FORWARD_FAIL and off.soundness is S.JUSTIFIED, off.reason


def _graph(states: int, initial: list[int], edges: list[tuple[int, int]]) -> StateGraph:
    return StateGraph(("x",), [(i,) for i in range(states)], initial, edges)


@pytest.mark.parametrize(("out", "small"), [
    (_graph(4, [0], [(0, 1), (1, 2), (2, 3)]), None),               # as many of each
    (_graph(5, [0, 4], [(0, 1), (1, 2), (2, 3), (4, 0)]), None),    # more is fine
    (_graph(4, [0], [(0, 1), (1, 2)]), "steps"),                    # a step fewer
    (_graph(3, [0], [(0, 1), (1, 2), (2, 0)]), "reachable states"),
    (_graph(4, [], []), "initial states"),
])
def test_an_output_with_fewer_states_or_steps_cannot_cover_the_reference(
        out: StateGraph, small: str | None) -> None:
    ref = _graph(4, [0], [(0, 1), (1, 2), (2, 3)])
    found = too_small(out, ref)
    assert (found is None) if small is None else (found is not None and small in found)


def test_an_output_too_small_for_any_mapping_is_a_mapping_free_reverse_failure(
        harness: Harness) -> None:
    # strings where the reference counts: no mapping of the grammar, and too few states
    out = COUNTER.replace("Counter", "Other").replace("x = 0", 'x = "lo"').replace(
        "x + Step <= Max /\\ x' = x + Step", "x = \"lo\" /\\ x' = \"hi\" /\\ Step <= Max")
    graded = _grade(harness, out)
    assert graded.verdict is V.REVERSE_FAIL and graded.code is R.TOO_FEW_STATES, graded.reason
    assert graded.soundness is S.MAPPING_FREE


@pytest.mark.parametrize(("edges", "longest"), [
    ([], 0),
    ([(0, 1), (1, 2), (2, 3)], 3),
    ([(0, 1), (0, 2), (1, 3), (2, 3)], 2),                 # a diamond
    ([(0, 1), (1, 2), (2, 1)], None),                      # a cycle: forever
])
def test_the_longest_run_of_a_graph(edges: list[tuple[int, int]], longest: int | None) -> None:
    assert longest_run(_graph(4, [0], edges)) == longest


@given(st.sets(st.tuples(st.integers(0, 5), st.integers(0, 5)).filter(lambda e: e[0] != e[1]),
               max_size=12))
@settings(max_examples=200, deadline=None)
def test_the_longest_run_is_the_longest_path_or_none_on_a_cycle(
        edges: set[tuple[int, int]]) -> None:
    graph = _graph(6, [0], sorted(edges))

    def walk(state: int, seen: tuple[int, ...]) -> int | None:  # every simple path
        best = 0
        for a, b in edges:
            if a == state:
                if b in seen:
                    return None
                further = walk(b, (*seen, b))
                if further is None:
                    return None
                best = max(best, further + 1)
        return best
    runs = [walk(s, (s,)) for s in range(6)]
    assert longest_run(graph) == (None if None in runs else max(runs))


def test_an_output_whose_behaviors_halt_sooner_cannot_cover_the_reference() -> None:
    cycle = _graph(3, [0], [(0, 1), (1, 2), (2, 0)])
    chain = _graph(5, [0], [(0, 1), (1, 2), (2, 3), (3, 4)])
    found = halts_sooner(chain, cycle)
    assert found is not None and "forever" in found
    assert halts_sooner(cycle, chain) is None                # going on forever covers any length
    assert halts_sooner(chain, chain) is None
    short = _graph(5, [0, 3], [(0, 1), (1, 2), (3, 4)])
    assert halts_sooner(short, chain) is not None            # 2 steps against 4


CLOCK = """---- MODULE Clock ----
EXTENDS Naturals
VARIABLE hr
Init == hr = 0
Next == hr' = (hr + 1) % 4
Spec == Init /\\ [][Next]_hr
====
"""


def test_an_output_that_halts_where_the_reference_goes_on_is_a_mapping_free_failure(
        harness: Harness) -> None:
    ref = Reference("Clock", {"Clock.tla": CLOCK}, ModelConfig(specification="Spec"))
    # more states and steps than the reference, but it stops; names for numbers: no mapping
    # of the grammar
    out = CLOCK.replace("Clock", "Other").replace("hr = 0", 'hr = "a"').replace(
        "(hr + 1) % 4", 'CASE hr = "a" -> "b" [] hr = "b" -> "c" [] hr = "c" -> "d" '
        '[] hr = "d" -> "e" [] OTHER -> "f"').replace("Next ==", 'Next == hr # "f" /\\')
    graded = grade_behavior(harness, ref, {"Other.tla": out}, "Other",
                            BehaviorOptions(engine="graphs", timeout=120))
    assert graded.verdict is V.REVERSE_FAIL and graded.code is R.HALTS_SOONER, graded.reason
    assert graded.soundness is S.MAPPING_FREE
    # the same under a pairing of constants the grade cannot justify is no verdict
    ambiguous = classify(_result(V.REVERSE_FAIL, R.HALTS_SOONER, constants={
        "A": _const("1", ValueSource.REFERENCE_CONSTANT, "X"),
        "B": _const("2", ValueSource.REFERENCE_CONSTANT, "Y")},
        pairings={"total": 2, "graded": 2, "failed": 1}))
    assert ambiguous.verdict is V.NO_MAPPING and ambiguous.code is R.PAIRING_AMBIGUOUS


# ---------------------------------------------------- degenerate-value negatives (controls)
DEGENERATE = {
    # right only when a constant nothing gives a value is 1
    "one_copy": _OUT.replace("CONSTANTS Max, Step", "CONSTANTS Max, Step, Copies").replace(
        "x + Step <= Max /\\ x' = x + Step", "x + Step * Copies <= Max /\\ x' = x + Step * Copies"),
    # right only when a set nothing gives a value is empty
    "empty_set": _OUT.replace("CONSTANTS Max, Step", "CONSTANTS Max, Step, Extra").replace(
        "x' = x + Step", "x' \\in {x + Step} \\cup {e \\in Extra : e <= Max}"),
    # right only when a token-like constant equals the data value 0
    "token_is_data": _OUT.replace("CONSTANTS Max, Step", "CONSTANTS Max, Step, Zero").replace(
        "x = 0", "x = Zero"),
}


@pytest.mark.parametrize("name", sorted(DEGENERATE))
def test_an_output_right_only_under_a_degenerate_value_does_not_pass(
        harness: Harness, name: str) -> None:
    # equivalent under one admissible value, so neither an `ok` nor a failure is honest
    graded = _grade(harness, DEGENERATE[name])
    assert not graded.verdict.decided, graded.reason
    assert graded.soundness is None


def test_an_output_with_an_opaque_token_is_graded_under_a_fresh_model_value(
        harness: Harness) -> None:
    graded = grade_behavior(harness, START_REF, {"Other.tla": TOKEN_OUT}, "Other",
                            BehaviorOptions(engine="auto", timeout=120))
    assert graded.verdict is V.OK and graded.soundness is S.JUSTIFIED, graded.reason
    assert graded.details["constants"]["Idle"]["source"] == "opaque_token"


# ------------------------------------------- numbers the output's ASSUME bounds to a small set
def _with_copies(assume: str, next_: str) -> str:
    return _OUT.replace("CONSTANTS Max, Step", f"CONSTANTS Max, Step, Copies\nASSUME {assume}") \
        .replace("x + Step <= Max /\\ x' = x + Step", next_)


def test_a_number_its_assume_bounds_is_graded_under_every_value_of_the_set(
        harness: Harness) -> None:
    # right whichever number of the set the user gives it: a justified ok
    same = _grade(harness, _with_copies("Copies \\in 1..3",
                                        "x + Step <= Max /\\ x' = x + Step /\\ Copies > 0"))
    assert same.verdict is V.OK and same.soundness is S.JUSTIFIED, same.reason
    assert same.details["constants"]["Copies"]["source"] == "every_value"
    # wrong under every number of the set: an enumerated failure
    off = _grade(harness, _with_copies("Copies \\in {1, 2} /\\ Copies \\in Nat",
                                       "x + Step + Copies <= Max /\\ x' = x + Step + Copies"))
    assert off.verdict is V.FORWARD_FAIL and off.soundness is S.ENUMERATED, off.reason
    assert "Copies in {1, 2}" in off.reason
    # right under one number of the set only: found by trying, no verdict
    some = _grade(harness, _with_copies("Copies \\in 1..2", "x + Step * Copies <= Max /\\ "
                                        "x' = x + Step * Copies"))
    assert some.verdict is V.UNDECIDED and some.code is R.VALUE_BY_TRYING, some.reason
    # a set of one number fixes the value, as an equality does
    one = _grade(harness, _with_copies("Copies \\in {1}", "x + Step * Copies <= Max /\\ "
                                       "x' = x + Step * Copies"))
    assert one.verdict is V.OK and one.soundness is S.JUSTIFIED, one.reason
    assert one.details["constants"]["Copies"]["source"] == "output_assume"


def test_the_numbers_of_the_literal_sets_an_assume_names() -> None:
    assert finite_numbers(["1..3"]) == ("1", "2", "3")
    assert finite_numbers(["{2, 0}", "Nat"]) == ("0", "2")
    assert finite_numbers(["0..5", "{5, 7}"]) == ("5",)          # the sets' common numbers
    assert finite_numbers(["Nat"]) is None and finite_numbers(["1..100"]) is None
    assert finite_numbers(["{}"]) is None


# ------------------------------------------------------------- constants paired by their uses
def test_roles_of_constants_by_their_uses() -> None:
    files = {"M.tla": "CONSTANTS N, Max, Step, Procs, Flag, Null\n"
                      "Node == 0..N-1\nNext == x < Max /\\ x' = x + Step /\\ p \\in Procs\n"
                      "Other == IF Flag THEN y = Null ELSE TRUE  \\* Null < 3 said in a comment\n"}
    roles = constant_roles(files, ["N", "Max", "Step", "Procs", "Flag", "Null"])
    assert roles == {"N": "range", "Max": "bound", "Step": "operand", "Procs": "set"}


def test_constants_of_one_role_on_each_side_are_used_alike() -> None:
    out_roles, ref_roles = {"Limit": "bound", "Inc": "operand"}, {"Max": "bound", "Step": "operand"}
    ints = {"Limit": "int", "Inc": "int", "Max": "int", "Step": "int"}
    found = used_alike(["Inc", "Limit"], ["Max", "Step"], out_roles, ref_roles, ints, ints)
    assert found == {("Limit", "Max"), ("Inc", "Step")}
    # two of one role on a side: the uses do not say which is which
    two = used_alike(["Inc", "Limit"], ["Max", "Step"], out_roles,
                     {"Max": "bound", "Step": "bound"}, ints, ints)
    assert two == set()


def test_an_output_whose_constants_are_paired_by_their_uses_is_decided(
        harness: Harness) -> None:
    # the names say nothing and the positions mislead; the uses pair Limit with Max (a bound)
    # and Inc with Step (an operand)
    out = _OUT.replace("CONSTANTS Max, Step", "CONSTANTS Inc, Limit").replace(
        "x + Step <= Max /\\ x' = x + Step", "x + Inc <= Limit /\\ x' = x + Inc")
    graded = _grade(harness, out)
    assert graded.verdict is V.OK and graded.soundness is S.JUSTIFIED, graded.reason
    assert graded.details["constants"]["Limit"]["from"] == "Max"
    assert graded.details["constants"]["Limit"].get("used_alike") is True
    # a failure under that pairing is justified, not ambiguous
    wrong = _grade(harness, out.replace("x = 0", "x = 1"))
    assert wrong.verdict is V.FORWARD_FAIL and wrong.soundness is S.JUSTIFIED, wrong.reason


def test_what_stops_the_outputs_own_run_is_read_from_tlcs_codes() -> None:
    from tlc_harness.behavior.own_run import OwnRunError, own_run_error
    assert own_run_error("eval_error", (2190, 1000, 2103)) is OwnRunError.DEFINITIONS
    assert own_run_error("eval_error", (2102, 2186)) is OwnRunError.UNASSIGNED_STATE
    assert own_run_error("eval_error", (2190, 2109, 2217)) is OwnRunError.UNASSIGNED_STATE
    assert own_run_error("vacuous", ()) is OwnRunError.NO_INITIAL_STATE
    assert own_run_error("deadlock", (2114,)) is OwnRunError.DEADLOCK
    assert own_run_error("config_bind_fail", (2222,)) is OwnRunError.OTHER
    assert not OwnRunError.UNASSIGNED_STATE.decides and OwnRunError.DEFINITIONS.decides
