"""The name grade's run serves as the output's graph where both explore the same model
(`own_model_run`): the same verdicts with one TLC run fewer, and never where the models differ."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from alias_fixtures.grading.grade import ReferenceCoverage, grade_output, reference_of
from alias_fixtures.tasks.task import builtin_tasks
from alias_fixtures.tasks.variants import Variant, build_variant, make_variant
from tlc_harness.behavior.engine import grade_behavior
from tlc_harness.behavior.graph_engine.forward_on_graphs import (
    DECIDED_ON_GRAPHS,
    forward_on_graphs,
)
from tlc_harness.behavior.graphs import Explored
from tlc_harness.behavior.options import BehaviorOptions
from tlc_harness.behavior.own_model_run import OwnModelRun, same_model, shareable_model
from tlc_harness.behavior.staging import Reference
from tlc_harness.source.cfg import ModelConfig
from tlc_harness.tools.results import Verdict
from tlc_harness.tools.runner import Harness

TASKS = {t.id: t for t in builtin_tasks()}


def _variant(task: str) -> Variant:
    return make_variant(TASKS[task], "original", seed="0")


def _reply(variant: Variant, edit: tuple[str, str] | None = None) -> str:
    """The reference's modules as a reply, a comment under the main module's header (so the
    output is not the reference's text), and `edit` applied to the main module."""
    main = variant.modules[f"{variant.main_module}.tla"].replace("\n", "\n\\* mine\n", 1)
    if edit is not None:
        assert edit[0] in main
        main = main.replace(*edit)
    others = [t for f, t in variant.modules.items() if f != f"{variant.main_module}.tla"]
    return "".join(f"```tla\n{m}\n```\n" for m in (main, *others))


def test_a_model_with_a_constraint_symmetry_or_option_is_not_shared() -> None:
    plain = ModelConfig(constants=(("N", "3"),), specification="Spec")
    assert shareable_model(plain, ("-deadlock",))
    assert not shareable_model(ModelConfig(constraints=("Bound",)), ())
    assert not shareable_model(ModelConfig(symmetry="Perms"), ())
    assert not shareable_model(ModelConfig(view="View"), ())
    assert not shareable_model(plain, ("-fp", "0"))


def test_same_model_reads_values_and_behavior_not_order_nor_model_value_names() -> None:
    given = ModelConfig(constants=(("N", "3"), ("P", "{p1, p2}"), ("p1", "p1")),
                        specification="Spec", invariants=("TypeOK",))
    explored = ModelConfig(constants=(("P", "{p1, p2}"), ("N", "3")), specification="Spec")
    assert same_model(given, explored)
    assert not same_model(given, ModelConfig(constants=(("P", "{p1, p2}"), ("N", "4")),
                                             specification="Spec"))
    assert not same_model(given, ModelConfig(constants=explored.constants, init="Init",
                                             next="Next"))


def test_a_dump_over_the_budget_is_over_it_whatever_its_size(tmp_path: Path) -> None:
    dump = tmp_path / "g.dot"
    dump.write_text('strict digraph DiskGraph {\n1 [label="/\\\\ x = 0",style = filled]\n'
                    '2 [label="/\\\\ x = 1"]\n3 [label="/\\\\ x = 2"]\n'
                    '1 -> 2 [label="A"];\n2 -> 3 [label="A"];\n}\n')
    run = OwnModelRun({}, "M", ModelConfig(), dump)
    whole = run.exploration(budget=10, cap=100)
    assert whole.verdict is Verdict.OK and whole.graph is not None and len(whole.graph) == 3
    assert run.exploration(budget=3, cap=100).verdict is Explored.OVER_BUDGET
    assert run.exploration(budget=2, cap=2).verdict is Explored.OVER_BUDGET


@pytest.mark.parametrize("task", ["bank_transfer", "counting_semaphore", "lock_server"])
def test_the_name_grades_run_is_the_outputs_graph_with_the_same_verdict(
        harness: Harness, task: str) -> None:
    variant = _variant(task)
    coverage = ReferenceCoverage(harness, BehaviorOptions(), on_disk=False)
    graded = grade_output(harness, variant, _reply(variant), coverage=coverage)
    assert graded.name.verdict == "ok"
    shared = graded.behavior
    assert shared.details.get("output_graph_from") == "name_grade"
    files = dict(variant.modules)
    files[f"{variant.main_module}.tla"] = files[f"{variant.main_module}.tla"].replace(
        "\n", "\n\\* mine\n", 1)
    alone = grade_behavior(harness, reference_of(variant), files, variant.main_module,
                           BehaviorOptions())
    assert "output_graph_from" not in alone.details
    assert (shared.verdict, shared.reason, shared.details.get("mapping")) == (
        alone.verdict, alone.reason, alone.to_json().get("mapping"))
    assert shared.details["tlc_runs"] == alone.tlc_runs - 1


@pytest.mark.parametrize("broken", ["vacuous", "invariant"])
def test_a_run_that_is_vacuous_or_finds_a_violation_is_not_offered(
        harness: Harness, broken: str) -> None:
    variant = _variant("counting_semaphore")
    main = variant.modules[f"{variant.main_module}.tla"]
    init = next(line for line in main.splitlines() if line.startswith("Init"))
    # the output never starts (a vacuous pass), or breaks its invariant at once
    edit = (init, init + " /\\ FALSE") if broken == "vacuous" else ("TypeOK ==",
                                                                      "TypeOK == FALSE /\\")
    coverage = ReferenceCoverage(harness, BehaviorOptions(), on_disk=False)
    graded = grade_output(harness, variant, _reply(variant, edit), coverage=coverage)
    assert graded.name.details["vacuous"] if broken == "vacuous" else \
        graded.name.verdict == "invariant_violated"
    assert "output_graph_from" not in graded.behavior.details


@pytest.mark.parametrize("before", ["", "\\* a licence above the header\n"])
def test_the_references_own_modules_are_graded_by_its_self_check(harness: Harness,
                                                                  before: str) -> None:
    """Text above a module's header is no module's: the reply is still the reference."""
    variant = _variant("bank_transfer")
    coverage = ReferenceCoverage(harness, BehaviorOptions(), on_disk=False)
    text = "".join(f"```tla\n{before}{t}\n```\n" for t in variant.modules.values())
    graded = grade_output(harness, variant, text, coverage=coverage)
    own = coverage.check(variant)
    assert graded.behavior.details.get("graded_as") == "self_check"
    assert (graded.behavior.verdict, graded.behavior.reason) == (own.verdict, own.reason)


@pytest.mark.parametrize("task", ["bank_transfer", "up_down_counter", "vending_machine"])
def test_a_verified_reference_without_fairness_is_confirmed_on_the_graphs(
        harness: Harness, task: str) -> None:
    """Its forward direction needs no TLC run: the verdict is the one TLC's confirming run
    gives, with the runs of the name grade alone."""
    variant, verification = build_variant(harness, TASKS[task], "random", seed=0)
    assert variant is not None and verification.verified and variant.distinct_states
    coverage = ReferenceCoverage(harness, BehaviorOptions(), on_disk=False)
    graded = grade_output(harness, variant, _reply(variant), coverage=coverage)
    assert graded.behavior.verdict == "ok", graded.behavior.reason
    assert graded.behavior.details.get("forward_decided") == DECIDED_ON_GRAPHS
    assert graded.behavior.details["tlc_runs"] == 0
    # the same output against the unverified variant: the exploration of the reference's
    # graph checked its invariants itself (`test_own_checks`), to the same verdict
    plain = replace(variant, distinct_states=None)
    again = grade_output(harness, plain, _reply(plain), coverage=coverage)
    assert again.behavior.details.get("forward_decided") == DECIDED_ON_GRAPHS
    assert (again.behavior.verdict, again.behavior.details.get("mapping")) == (
        graded.behavior.verdict, graded.behavior.details.get("mapping"))


def test_fairness_or_a_property_keeps_the_confirming_run() -> None:
    spec = ("---- MODULE M ----\nVARIABLE x\nInit == x = 0\nNext == x' = 1 - x\n"
            "Spec == Init /\\ [][Next]_x\nFair == Spec /\\ WF_x(Next)\nLive == <>(x = 1)\n====\n")
    ref = Reference("M", {"M.tla": spec}, ModelConfig(specification="Spec"), states=2)
    assert forward_on_graphs(ref, whole=True)
    assert not forward_on_graphs(ref, whole=False)
    assert not forward_on_graphs(replace(ref, states=None), whole=True)
    assert not forward_on_graphs(replace(ref, cfg=ModelConfig(specification="Fair")), whole=True)
    assert not forward_on_graphs(replace(ref, cfg=ModelConfig(specification="Spec",
                                                              properties=("Live",))), whole=True)
    assert forward_on_graphs(replace(ref, cfg=ModelConfig(init="Init", next="Next")), whole=True)
    # its own run saw one state of each symmetry class: an invariant may fail on another
    assert not forward_on_graphs(replace(ref, cfg=ModelConfig(specification="Spec",
                                                              symmetry="Perms")), whole=True)
