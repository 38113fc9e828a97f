"""Task folders and corpus loaders: shapes accepted, clear errors, read-only."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from alias_fixtures.tasks.loaders import load_examples, load_tasks, load_tlabench
from alias_fixtures.tasks.task import TaskError, builtin_tasks, load_task, load_task_dir, task_modules
from tlc_harness.tools.runner import Harness

CLOCK = "---- MODULE Clock ----\nEXTENDS Naturals\nVARIABLE h\nInit == h = 1\n" \
        "Next == h' = IF h = 3 THEN 1 ELSE h + 1\nSpec == Init /\\ [][Next]_h\n====\n"


def test_builtin_suite_shape() -> None:
    tasks = builtin_tasks()
    assert len(tasks) >= 20
    assert len({t.id for t in tasks}) == len(tasks)
    for task in tasks:
        assert task.description, task.id
        assert len(task.description) > 200, task.id
        assert task.main_file in task.modules
        assert task.expected_distinct_states
        assert task.licence == "MIT"
    assert sum(t.pluscal for t in tasks) >= 1
    assert any(len(t.modules) > 1 for t in tasks)


def test_plain_folder_is_a_task(tmp_path: Path) -> None:
    (tmp_path / "Clock.tla").write_text(CLOCK)
    (tmp_path / "Clock.cfg").write_text("SPECIFICATION Spec\n")
    (tmp_path / "description.md").write_text("A clock.\n")
    task = load_task(tmp_path)
    assert (task.main_module, task.description, task.id) == ("Clock", "A clock.", tmp_path.name)


def test_several_files_need_module_and_cfg(tmp_path: Path) -> None:
    (tmp_path / "Clock.tla").write_text(CLOCK)
    (tmp_path / "Other.tla").write_text("---- MODULE Other ----\n====\n")
    (tmp_path / "Clock.cfg").write_text("SPECIFICATION Spec\n")
    with pytest.raises(TaskError, match="2 .tla files"):
        load_task(tmp_path)
    task = load_task(tmp_path, module="Clock", cfg="Clock.cfg")
    assert list(task.modules) == ["Clock.tla"]  # Other is not imported


@pytest.mark.parametrize(("files", "message"), [
    ({"Clock.tla": CLOCK}, "0 .cfg files"),
    ({"Clock.tla": CLOCK, "Clock.cfg": "SPECIFICATION Spec\nBOGUS x\n"}, "Clock.cfg"),
    ({"Clock.tla": CLOCK.replace("MODULE Clock", "MODULE Clack"), "Clock.cfg": "INIT Init\n"},
     "declares MODULE Clack"),
    ({"task.toml": "module = \n", "Clock.tla": CLOCK}, "not valid TOML"),
    ({"task.toml": 'module = "Nope"\ncfg = "Nope.cfg"\n'}, "Nope.tla does not exist"),
])
def test_broken_tasks_name_task_and_file(tmp_path: Path, files: dict[str, str],
                                         message: str) -> None:
    folder = tmp_path / "broken"
    folder.mkdir()
    for name, text in files.items():
        (folder / name).write_text(text)
    with pytest.raises(TaskError, match=message) as info:
        load_task(folder)
    assert "broken" in str(info.value)


def test_imports_are_followed_transitively() -> None:
    files = {"A.tla": "---- MODULE A ----\nEXTENDS B\n====\n",
             "B.tla": "---- MODULE B ----\nI == INSTANCE C\n====\n",
             "C.tla": "---- MODULE C ----\n====\n", "D.tla": "---- MODULE D ----\n====\n"}
    assert list(task_modules("A.tla", files)) == ["A.tla", "B.tla", "C.tla"]


def test_duplicate_ids_are_refused(tmp_path: Path) -> None:
    for name in ("one", "two"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "Clock.tla").write_text(CLOCK)
        (tmp_path / name / "Clock.cfg").write_text("INIT Init\nNEXT Next\n")
        (tmp_path / name / "task.toml").write_text('id = "same"\n')
    with pytest.raises(TaskError, match="used by both"):
        load_task_dir(tmp_path)


def test_examples_corpus_loader(corpus: Path) -> None:
    tasks = load_examples(corpus / "tlaplus-examples")
    assert len(tasks) == 81
    assert all(t.description is None for t in tasks)
    assert any("-deadlock" in t.tlc_args for t in tasks)


def test_examples_checkout_layout(tmp_path: Path) -> None:
    spec = tmp_path / "specifications" / "Clock"
    spec.mkdir(parents=True)
    (spec / "Clock.tla").write_text(CLOCK)
    (spec / "Clock.cfg").write_text("SPECIFICATION Spec\n")
    manifest = {"modules": [{"path": "specifications/Clock/Clock.tla", "models": [
        {"path": "specifications/Clock/Clock.cfg", "mode": "exhaustive search",
         "result": "success", "distinctStates": 3}]}]}
    (spec / "manifest.json").write_text(json.dumps(manifest))
    (task,) = load_tasks(tmp_path)
    assert (task.id, task.expected_distinct_states) == ("Clock.Clock", 3)


def test_tlabench_layout(tmp_path: Path) -> None:
    gold = tmp_path / "specs" / "gold"
    gold.mkdir(parents=True)
    (gold / "17_Clock.tla").write_text(CLOCK)
    (gold / "17_Clock.cfg").write_text("SPECIFICATION Spec\n")
    (tmp_path / "manifest.jsonl").write_text(json.dumps(
        {"spec_id": 17, "desc_intent_gpt": "An intent.", "source_repo": "x/y"}) + "\n")
    styled = tmp_path / "descriptions" / "declarative_gpt"
    styled.mkdir(parents=True)
    (styled / "17.txt").write_text("A declarative text.")
    (task,) = load_tasks(tmp_path)
    assert (task.id, task.main_module, list(task.modules)) == ("17", "Clock", ["Clock.tla"])
    assert task.description == "A declarative text."
    (other,) = load_tlabench(tmp_path, style="intent_gpt")
    assert other.description == "An intent."


def test_a_verification_cut_short_by_a_limit_is_cached_under_its_limits(
        harness: Harness, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A limit says nothing about the variant but is hit again under the same limits: it is
    kept under them, and a run with larger limits checks again
    (tests/alias_fixtures/tasks/test_variant_limits.py)."""
    import dataclasses

    from alias_fixtures.tasks.variants import VariantStore, build_variant, check_original
    from tlc_harness.tools.results import Verdict

    task = next(t for t in builtin_tasks() if t.id == "barrier_sync")
    limited = dataclasses.replace(check_original(harness, task), verdict=Verdict.RESOURCE_LIMIT)
    store = VariantStore(tmp_path / "variants")
    _, verification = build_variant(harness, task, "random", store=store, original=limited)
    assert not verification.verified and verification.limited
    assert [p.name[:6] for p in (tmp_path / "variants").glob("*.json")] == ["limit-"]
    assert build_variant(harness, task, "random", store=store)[1] == verification
    monkeypatch.setattr(harness, "settings", dataclasses.replace(harness.settings, heap="3g"))
    _, again = build_variant(harness, task, "random", store=store)
    assert again.verified and len(list((tmp_path / "variants").glob("*.json"))) == 2
