"""The behavior grade's stages and boundary, in memory: no JVM, each contract in milliseconds.

The verdict type and its reason codes, the policy that orders the engines, the staged output,
the constant plan (which never changes the values it is given), the output's model, and the
confirming stage (with a scripted harness).
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest

from tlc_harness.behavior import engine as engine_module
from tlc_harness.behavior.graph_engine.confirm import confirm
from tlc_harness.behavior.graph_engine.constant_maps import plan_constants
from tlc_harness.behavior.graph_engine.describe import describe, substitutions
from tlc_harness.behavior.graph_engine.output_graph import output_budget, output_model
from tlc_harness.behavior.options import ENGINES, BehaviorOptions
from tlc_harness.behavior.policy import POLICIES, Job, StepAside
from tlc_harness.behavior.search import Candidate
from tlc_harness.behavior.staging import Reference, constant_values, stage_output
from tlc_harness.behavior.verdicts import (
    DECIDED,
    FAILURES,
    BehaviorResult,
    BehaviorVerdict,
    Reason,
    reasons_of,
)
from tlc_harness.source.cfg import ModelConfig
from tlc_harness.tools.results import CheckResult, Verdict

COUNTER = """---- MODULE Counter ----
EXTENDS Naturals
CONSTANT Max
VARIABLE x
Init == x = 0
Next == x < Max /\\ x' = x + 1
Spec == Init /\\ [][Next]_x
====
"""
REF = Reference("Counter", {"Counter.tla": COUNTER},
                ModelConfig(constants=(("Max", "3"),), specification="Spec"))


# ---------------------------------------------------------------------------- verdicts
def test_a_verdict_other_than_ok_needs_its_reason_code() -> None:
    with pytest.raises(ValueError, match="needs a reason code"):
        BehaviorResult("forward_fail", None, "why", 0.0)
    with pytest.raises(ValueError, match="takes no reason code"):
        BehaviorResult("ok", None, "", 0.0, code=Reason.TLC_FORWARD)
    with pytest.raises(ValueError, match="explains forward_fail"):
        BehaviorResult("undecided", None, "", 0.0, code=Reason.TLC_FORWARD)
    with pytest.raises(ValueError, match="maybe"):
        BehaviorResult("maybe", None, "", 0.0, code=Reason.TLC_FORWARD)


def test_a_result_reads_its_verdict_as_the_enum_and_writes_plain_strings() -> None:
    result = BehaviorResult("reverse_fail", None, "too few", 1.0, code="graph_reverse")
    assert result.verdict is BehaviorVerdict.REVERSE_FAIL and result.code is Reason.GRAPH_REVERSE
    assert result.verdict == "reverse_fail"  # old comparisons with strings still hold
    data = json.loads(json.dumps(result.to_json()))
    assert (data["verdict"], data["reason_code"], data["passed"]) == \
        ("reverse_fail", "graph_reverse", False)
    changed = dataclasses.replace(result, verdict="no_mapping", code=Reason.VALUES_DISAGREE)
    assert changed.verdict is BehaviorVerdict.NO_MAPPING


def test_every_reason_code_belongs_to_one_verdict_other_than_ok() -> None:
    assert not reasons_of(BehaviorVerdict.OK)
    listed = [code for v in BehaviorVerdict for code in reasons_of(v)]
    assert sorted(listed) == sorted(Reason)
    assert all(code.meaning for code in Reason)
    assert DECIDED == {BehaviorVerdict.OK, *FAILURES}
    assert BehaviorVerdict.FORWARD_FAIL.decided and not BehaviorVerdict.UNDECIDED.decided


# ------------------------------------------------------------------------------ policy
def test_every_engine_choice_has_a_policy_of_registered_engines() -> None:
    assert set(POLICIES) == set(ENGINES)
    for steps in POLICIES.values():
        assert steps and all(step.engine in engine_module.ENGINES for step in steps)


class _Scripted:
    def __init__(self, name: str, answer: BehaviorResult | StepAside) -> None:
        self.name, self.answer, self.calls = name, answer, 0

    def grade(self, job: Job) -> BehaviorResult | StepAside:
        self.calls += 1
        return self.answer


def _job(engine: str) -> Job:
    return Job(None, REF, {}, "Out", BehaviorOptions(engine=engine))  # type: ignore[arg-type]


def test_a_step_aside_hands_over_to_the_next_engine(monkeypatch: pytest.MonkeyPatch) -> None:
    aside = StepAside("a graph over budget", Reason.STATE_BUDGET, tlc_runs=2)
    decided = BehaviorResult("ok", {"variables": {}}, "refines", 1.0, tlc_runs=3)
    graphs, wrappers = _Scripted("graphs", aside), _Scripted("wrappers", decided)
    monkeypatch.setattr(engine_module, "ENGINES", {"graphs": graphs, "wrappers": wrappers})
    result = engine_module.run_policy(_job("auto"))
    assert result.passed and result.tlc_runs == 5
    assert result.details["fallback"] == "a graph over budget"
    assert (graphs.calls, wrappers.calls) == (1, 1)


def test_the_last_step_aside_is_undecided_with_its_code(monkeypatch: pytest.MonkeyPatch) -> None:
    aside = StepAside("a graph over budget", Reason.STATE_BUDGET, tlc_runs=2,
                      details={"reference_states": 9})
    wrappers = _Scripted("wrappers", BehaviorResult("ok", None, "", 0.0))
    monkeypatch.setattr(engine_module, "ENGINES",
                        {"graphs": _Scripted("graphs", aside), "wrappers": wrappers})
    result = engine_module.run_policy(_job("graphs"))
    assert (result.verdict, result.code, result.engine, result.tlc_runs) == \
        ("undecided", Reason.STATE_BUDGET, "graphs", 2)
    assert result.reason == "the graph engine cannot grade this: a graph over budget"
    assert result.details == {"reference_states": 9} and wrappers.calls == 0


def test_a_decided_first_step_is_the_verdict(monkeypatch: pytest.MonkeyPatch) -> None:
    first = BehaviorResult("forward_fail", None, "a step", 0.5, code=Reason.GRAPH_FORWARD)
    wrappers = _Scripted("wrappers", BehaviorResult("ok", None, "", 0.0))
    monkeypatch.setattr(engine_module, "ENGINES",
                        {"graphs": _Scripted("graphs", first), "wrappers": wrappers})
    assert engine_module.run_policy(_job("auto")) is first and wrappers.calls == 0


# ----------------------------------------------------------------------------- staging
def test_the_staged_output_is_frozen_and_finds_a_spec_shaped_formula() -> None:
    out = COUNTER.replace("Counter", "Clock").replace("Init ==", "Start ==").replace(
        "Next ==", "Tick ==").replace("Spec == Init /\\ [][Next]_x", "Run == Start /\\ [][Tick]_x")
    staged = stage_output({"Clock.tla": out}, "Clock", REF)
    assert (staged.out_main, staged.out_init, staged.out_next, staged.out_spec) == \
        ("AliasOut", "Start", "Tick", "Run")
    assert staged.module_table == {"Clock": "AliasOut"}
    with pytest.raises(dataclasses.FrozenInstanceError):
        staged.out_init = "Init"  # type: ignore[misc]


def test_the_staged_output_without_next_says_so() -> None:
    out = "---- MODULE Half ----\nVARIABLE x\nInit == x = 0\n====\n"
    staged = stage_output({"Half.tla": out}, "Half", REF)
    assert (staged.out_init, staged.out_next) == ("Init", None)


# ---------------------------------------------------------------------- constant plan
def test_the_constant_plan_leaves_the_values_it_is_given_unchanged() -> None:
    out = COUNTER.replace("Counter", "Other").replace("CONSTANT Max", "CONSTANTS Limit, Debug")
    out = out.replace("x < Max", "x < Limit /\\ (Debug \\/ ~Debug)")
    values, unsupported = constant_values(REF)
    assert unsupported is None
    before = dict(values.literals)
    staged = stage_output({"Other.tla": out}, "Other", REF)
    plan = plan_constants(REF, staged, values)
    assert values.literals == before  # the plan adds to a copy
    assert {"TRUE", "FALSE"} <= set(plan.values.literals)
    assert plan.groups, "no constant map"
    first = plan.groups[0]
    assert [m["Debug"] for m in first] == ["TRUE", "FALSE"]  # a BOOLEAN takes both values
    assert {m["Limit"] for m in first} == {"Max"}
    assert plan.guessed(first[0]) == []  # Limit pairs with the reference's Max
    with pytest.raises(dataclasses.FrozenInstanceError):
        plan.groups = ()  # type: ignore[misc]


@pytest.mark.parametrize(("flags", "ref_flags", "first", "stands"), [
    # one BOOLEAN each: the reference's value comes first and an `ok` under it stands
    (("Dbg",), {"Fwd": "FALSE"}, {"Dbg": "FALSE"}, [True, False]),
    # two each, both TRUE (a renamed pair of failure switches): TRUE, TRUE only
    (("A", "B"), {"F": "TRUE", "G": "TRUE"}, {"A": "TRUE", "B": "TRUE"},
     [True, False, False, False]),
    # TRUE and FALSE: either way round is a pairing of the output's with the reference's
    (("A", "B"), {"F": "TRUE", "G": "FALSE"}, {"A": "TRUE", "B": "FALSE"},
     [True, True, False, False]),
    # an output BOOLEAN more than the reference has: none of its values is the reference's
    (("A", "B"), {"F": "TRUE"}, {"A": "TRUE", "B": "TRUE"}, [False] * 4),
])
def test_boolean_values_of_reference_constants_come_first_and_stand(
        flags: tuple[str, ...], ref_flags: dict[str, str], first: dict[str, str],
        stands: list[bool]) -> None:
    declared = ", ".join(("Max", *ref_flags))
    ref_text = COUNTER.replace("CONSTANT Max", f"CONSTANTS {declared}").replace(
        "x < Max", "x < Max /\\ " + " /\\ ".join(f"({f} \\/ ~{f})" for f in ref_flags))
    cfg = ModelConfig(constants=(("Max", "3"), *ref_flags.items()), specification="Spec")
    ref = Reference("Counter", {"Counter.tla": ref_text}, cfg)
    out = COUNTER.replace("Counter", "Other").replace(
        "CONSTANT Max", f"CONSTANTS Limit, {', '.join(flags)}").replace(
        "x < Max", "x < Limit /\\ " + " /\\ ".join(f"({f} \\/ ~{f})" for f in flags))
    values, unsupported = constant_values(ref)
    assert unsupported is None
    plan = plan_constants(ref, stage_output({"Other.tla": out}, "Other", ref), values)
    group = plan.groups[0]
    assert {f: group[0][f] for f in flags} == first
    assert [plan.plays_roles(m) for m in group] == stands


def test_no_constant_map_is_an_empty_plan() -> None:
    out = COUNTER.replace("Counter", "Other").replace("CONSTANT Max", "CONSTANTS A, B, C")
    out = out.replace("x < Max /\\ x' = x + 1", "x' \\in A \\cup B \\cup C")
    staged = stage_output({"Other.tla": out}, "Other", dataclasses.replace(
        REF, cfg=ModelConfig(constants=(("Max", "{p1, p2}"),), specification="Spec")))
    values, _ = constant_values(REF)
    plan = plan_constants(REF, staged, dataclasses.replace(values, literals={"Max": "{p1, p2}"}))
    assert plan.groups == ()


# ------------------------------------------------------------------- the output's model
def test_the_output_model_gives_a_value_a_cfg_cannot_hold_through_a_definition() -> None:
    out = COUNTER.replace("Counter", "Other").replace("CONSTANT Max", "CONSTANTS Max, Procs")
    staged = stage_output({"Other.tla": out}, "Other", REF)
    values, _ = constant_values(REF)
    values = dataclasses.replace(values, literals={**values.literals, "1..Max": "1..3"})
    model = output_model(REF, staged, values, {"Max": "Max", "Procs": "1..Max"})
    assert dict(model.cfg.constants) == {"Max": "3"}
    assert dict(model.cfg.overrides) == {"Procs": "AliasVal_Procs"}
    assert model.definitions == ("AliasVal_Procs == 1..3",)
    assert model.cfg.specification == "Spec"


def test_the_output_budget_follows_the_reference_within_a_cap() -> None:
    assert output_budget(10, 50_000) == 5_000
    assert output_budget(1_000, 50_000) == 20_000
    assert output_budget(100_000, 50_000) == 200_000


# ---------------------------------------------------------------------------- confirm
class _Harness:
    """Answers TLC runs from a script, recording the wrapper modules it is given."""

    def __init__(self, *verdicts: Verdict) -> None:
        self.verdicts = list(verdicts)
        self.specs: list[Any] = []

    def check(self, spec: Any, cfg: ModelConfig, **_: Any) -> CheckResult:
        self.specs.append((spec, cfg))
        return CheckResult(self.verdicts.pop(0), 0, 0.1, detail="cannot evaluate")


FAIR = REF.files["Counter.tla"].replace("Spec == Init /\\ [][Next]_x",
                                        "Spec == Init /\\ [][Next]_x /\\ WF_x(Next)")
FAIR_REF = dataclasses.replace(REF, files={"Counter.tla": FAIR})


def test_confirm_retries_without_the_references_fairness_when_tlc_cannot_evaluate_it() -> None:
    staged = stage_output({"Counter.tla": FAIR}, "Counter", FAIR_REF)
    values, _ = constant_values(FAIR_REF)
    harness = _Harness(Verdict.EVAL_ERROR, Verdict.OK)
    done = confirm(harness, FAIR_REF, staged, Candidate({"x": "x"}, {"Max": "Max"}),  # type: ignore[arg-type]
                   values, None)
    assert (done.check.verdict, done.tlc_runs, done.fairness_checked) == (Verdict.OK, 2, False)
    assert "without the reference's fairness" in done.note
    first, second = (spec.files["AliasForward.tla"] for spec, _ in harness.specs)
    assert "AliasRef!Spec" in first and "AliasRef!Init /\\ [][AliasRef!Next]_" in second


def test_confirm_runs_once_when_tlc_answers() -> None:
    staged = stage_output({"Counter.tla": FAIR}, "Counter", FAIR_REF)
    values, _ = constant_values(FAIR_REF)
    done = confirm(_Harness(Verdict.PROPERTY_VIOLATED), FAIR_REF, staged,  # type: ignore[arg-type]
                   Candidate({"x": "x"}), values, None)
    assert (done.check.verdict, done.tlc_runs, done.fairness_checked) == \
        (Verdict.PROPERTY_VIOLATED, 1, True)


# --------------------------------------------------------------------------- describe
def test_a_mapping_reads_as_one_line_and_as_tla() -> None:
    cand = Candidate({"x": "st.x", "y": "y"}, {"N": "Cardinality(Procs)", "Max": "Max"})
    assert describe(cand, frozenset({"Max"})) == "x <- st.x, N = Cardinality(Procs)"
    text = substitutions(cand, frozenset({"Max"}), frozenset())
    assert text.endswith("INSTANCE Reference WITH x <- st.x,\n    y <- y,\n    Max <- Max")
    assert "\\* the output's constant N is given Cardinality(Procs)" in text
