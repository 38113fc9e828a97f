"""`grade_output` on replies that bring their own helper modules (multi-module tasks)."""

from __future__ import annotations

from alias_fixtures.grading.grade import grade_output, own_modules
from alias_fixtures.tasks.task import builtin_tasks
from alias_fixtures.tasks.variants import make_variant
from tlc_harness.tools.runner import Harness

TASK = next(t for t in builtin_tasks() if t.id == "bank_transfer")  # BankTransfer EXTENDS BankLedger


def _fenced(*modules: str) -> str:
    return "Here it is.\n\n" + "".join(f"```tla\n{m}\n```\n" for m in modules)


def test_own_modules_follow_extends_and_instance_transitively() -> None:
    main = "---- MODULE A ----\nEXTENDS B\n====\n"
    others = {"B": "---- MODULE B ----\nI == INSTANCE C\n====\n",
              "C": "---- MODULE C ----\n====\n", "D": "---- MODULE D ----\n====\n"}
    assert list(own_modules(main, others)) == ["B", "C"]


def test_reply_with_its_own_copy_of_a_helper_module_is_graded(harness: Harness) -> None:
    variant = make_variant(TASK, "original", seed="0")
    main = variant.modules[f"{variant.main_module}.tla"]
    helpers = [t for f, t in variant.modules.items() if f != f"{variant.main_module}.tla"]
    graded = grade_output(harness, variant, _fenced(main, *helpers))
    assert [graded.parse.verdict, graded.name.verdict, graded.behavior.verdict] == [
        "ok", "ok", "ok"], (graded.parse.reason, graded.name.reason, graded.behavior.reason)


def test_reply_importing_a_reference_module_it_does_not_bring_is_refused(
        harness: Harness) -> None:
    variant = make_variant(TASK, "original", seed="0")
    graded = grade_output(harness, variant, _fenced(variant.modules[f"{variant.main_module}.tla"]))
    assert graded.parse.verdict == "forbidden_import"
