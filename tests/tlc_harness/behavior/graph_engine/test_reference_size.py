"""A reference whose own TLC run (its task variant's verification) counted more distinct states
than the graph budget is not explored to the budget again: the graph engine steps aside at once,
as the exploration would have."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from alias_fixtures.grading.grade import reference_of
from alias_fixtures.tasks.task import Task
from alias_fixtures.tasks.variants import VariantStore, build_variant
from tests.tlc_harness.behavior.test_self_check_pairing import RANGE as COUNTER
from tlc_harness.behavior.engine import grade_behavior
from tlc_harness.behavior.options import BehaviorOptions
from tlc_harness.behavior.staging import Reference, system_model
from tlc_harness.behavior.verdicts import BehaviorVerdict, Reason
from tlc_harness.source.cfg import ModelConfig, parse_cfg
from tlc_harness.tools.runner import Harness

#: the counter of the self-check tests, with an invariant and a model that starts from it
RANGE = COUNTER.replace("====\n", "TypeOK == x \\in Lo..Hi\nISpec == TypeOK /\\ [][Next]_x\n====\n")
CFG = "CONSTANTS\n  Lo = 0\n  Hi = 2\nSPECIFICATION Spec\nCHECK_DEADLOCK FALSE\n"
TASK = Task(id="range", modules={"Range.tla": RANGE}, main_module="Range", cfg_text=CFG,
            description="x counts up from Lo to Hi.")


def test_a_verified_variant_knows_its_models_size(harness: Harness, tmp_path: Path) -> None:
    store = VariantStore(tmp_path, jar_sha256=harness.toolchain.jar_sha256)
    variant, check = build_variant(harness, TASK, "original", store=store)
    assert check.verified and variant is not None
    assert variant.distinct_states == 3
    assert reference_of(variant).states == 3
    again, _ = build_variant(harness, TASK, "original", store=store)  # read back from the store
    assert again is not None and again.distinct_states == 3


def test_a_reference_known_to_be_over_budget_is_not_explored(harness: Harness) -> None:
    ref = Reference("Range", {"Range.tla": RANGE}, parse_cfg(CFG))
    out = {"Other.tla": RANGE.replace("Range", "Other")}
    graphs = BehaviorOptions(engine="graphs", timeout=120, budget=1000)
    explored = grade_behavior(harness, ref, out, "Other", graphs)
    assert explored.verdict is BehaviorVerdict.OK, explored.reason
    big = replace(ref, states=5000)  # as if its own run had counted 5,000 states
    skipped = grade_behavior(harness, big, out, "Other", graphs)
    assert skipped.verdict is BehaviorVerdict.UNDECIDED and skipped.code is Reason.STATE_BUDGET
    assert "5000 distinct states" in skipped.reason
    assert skipped.tlc_runs == 0  # not the reference's graph, nor the output's, nor a confirm
    # the wrappers decide it, as they would after an exploration over budget
    auto = grade_behavior(harness, big, out, "Other", replace(graphs, engine="auto"))
    assert auto.verdict is BehaviorVerdict.OK and auto.engine == "wrappers", auto.reason


def test_a_model_graded_from_init_instead_forgets_the_size() -> None:
    inductive = Reference("Range", {"Range.tla": RANGE},
                          ModelConfig(constants=(("Lo", "0"), ("Hi", "2")),
                                      specification="ISpec", invariants=("TypeOK",)), states=6)
    graded, why = system_model(inductive)
    assert why is not None and graded.cfg.specification == "Spec"
    assert graded.states is None  # another model, of another size
