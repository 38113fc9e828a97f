"""TLA+-Bench's release as a task source: layout, imports, nested modules, skipped tasks."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from alias_cli.task_args import add_task_id, add_task_source, resolve_task
from alias_fixtures.tasks.loaders import load_sources, load_task_set, split_sources
from alias_fixtures.tasks.release import ReleaseLayout, load_release
from alias_fixtures.tasks.task import TaskError

CLOCK = """---- MODULE {name} ----
EXTENDS Naturals{extends}
VARIABLE hr
Init == hr = 1
Next == hr' = IF hr = 12 THEN 1 ELSE hr + 1
Spec == Init /\\ [][Next]_hr
====
"""


def module(name: str, extends: str = "") -> str:
    return CLOCK.format(name=name, extends=f", {extends}" if extends else "")


class Release:
    """A small release in TLA+-Bench's layout, written under a temporary folder."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.dataset = root / "dataset_release"
        (self.dataset / "specs" / "gold").mkdir(parents=True)
        self.rows: list[dict[str, object]] = []

    def spec(self, spec_id: int, name: str, text: str, *, cfg: str | None = "SPECIFICATION Spec\n",
             folder: str = "data/tla_files/o/r/specs", category: str = "system",
             description: str | None = "A clock with hr.") -> None:
        gold = self.dataset / "specs" / "gold"
        (gold / f"{spec_id}_{name}.tla").write_text(text)
        if cfg is not None:
            (gold / f"{spec_id}_{name}.cfg").write_text(cfg)
        if description is not None:
            styled = self.dataset / "descriptions" / "declarative_gpt"
            styled.mkdir(parents=True, exist_ok=True)
            (styled / f"{spec_id}.txt").write_text(description)
        self.rows.append({"spec_id": spec_id, "tier": "gold", "category": category,
                          "source_repo": "tlaplus", "source_path": f"{folder}/{name}.tla",
                          "desc_declarative_claude": "Claude's text.", "perturbed_verified": True})
        (self.dataset / "manifest.jsonl").write_text(
            "".join(json.dumps(row) + "\n" for row in self.rows))

    def data(self, folder: str, name: str, text: str) -> None:
        path = self.root / folder
        path.mkdir(parents=True, exist_ok=True)
        (path / f"{name}.tla").write_text(text)


@pytest.fixture
def release(tmp_path: Path) -> Release:
    return Release(tmp_path / "tla_benchmark")


def test_the_layout_is_found_from_the_checkout_or_the_dataset_folder(release: Release) -> None:
    release.spec(1, "Clock", module("Clock"))
    for path in (release.root, release.dataset):
        layout = ReleaseLayout.find(path)
        assert layout is not None and layout.dataset == release.dataset
        assert layout.repo == release.root
    assert ReleaseLayout.find(release.root / "missing") is None


def test_an_imported_module_comes_from_the_spec_s_own_folder(release: Release) -> None:
    release.data("data/tla_files/o/r/specs", "Base", module("Base"))
    release.data("data/tla_files/o/r/other", "Base", module("Base", "Wrong"))
    release.spec(1, "Clock", module("Clock", "Base"))
    (task,) = load_release(release.root).tasks
    assert list(task.modules) == ["Clock.tla", "Base.tla"]
    assert "Wrong" not in task.modules["Base.tla"]
    assert task.extra["module_origins"]["Base"] == "data/tla_files/o/r/specs/Base.tla"
    assert task.published is True and task.description == "A clock with hr."


def test_a_spec_of_the_release_in_the_same_folder_wins_over_one_elsewhere(
        release: Release) -> None:
    release.spec(1, "Base", module("Base"), folder="data/tla_files/o/r/elsewhere")
    release.spec(2, "Base", module("Base", "Sequences"), folder="data/tla_files/o/r/specs")
    release.spec(3, "Clock", module("Clock", "Base"))
    tasks = {t.id: t for t in load_release(release.root).tasks}
    assert "Sequences" in tasks["3"].modules["Base.tla"]
    assert tasks["3"].extra["module_origins"]["Base"].endswith("(spec 2)")


def test_imports_are_followed_from_each_module_s_own_folder(release: Release) -> None:
    release.data("data/tla_files/o/r/specs", "Middle", module("Middle", "Leaf"))
    release.data("data/tla_files/o/r/specs", "Leaf", module("Leaf"))
    release.spec(1, "Clock", module("Clock", "Middle"))
    (task,) = load_release(release.root).tasks
    assert set(task.modules) == {"Clock.tla", "Middle.tla", "Leaf.tla"}


def test_a_missing_module_skips_the_task_naming_file_and_line(release: Release) -> None:
    release.spec(1, "Clock", module("Clock", "Nowhere"))
    release.spec(2, "Other", module("Other"))
    found = load_release(release.root)
    assert [t.id for t in found.tasks] == ["2"]
    (skipped,) = found.skipped
    assert skipped.id == "1"
    assert "1_Clock.tla:2" in skipped.reason and "Nowhere" in skipped.reason


def test_the_module_path_is_searched_last(release: Release, tmp_path: Path) -> None:
    extra = tmp_path / "extra"
    extra.mkdir()
    (extra / "Nowhere.tla").write_text(module("Nowhere"))
    release.spec(1, "Clock", module("Clock", "Nowhere"))
    (task,) = load_release(release.root, module_path=[extra]).tasks
    assert "Nowhere.tla" in task.modules


def test_standard_library_and_newer_tool_modules_are_never_owned(release: Release) -> None:
    release.spec(1, "Clock", module("Clock", "TLC, TLAPS, Functions, TLCExt"))
    (task,) = load_release(release.root).tasks
    assert list(task.modules) == ["Clock.tla"]


def test_modules_after_the_main_module_get_files_of_their_own(release: Release) -> None:
    text = module("Clock", "Helper") + "\n" + module("Helper")
    release.spec(1, "Clock", text)
    (task,) = load_release(release.root).tasks
    assert list(task.modules) == ["Clock.tla", "Helper.tla"]
    assert "MODULE Helper" not in task.modules["Clock.tla"]
    assert task.modules["Helper.tla"].startswith("---- MODULE Helper ----")


def test_a_nested_module_stays_inside_its_module(release: Release) -> None:
    text = ("---- MODULE Outer ----\nEXTENDS Naturals\nVARIABLE x\n"
            "---- MODULE Inner ----\nVARIABLE y\nStep == y' = y\n====\n"
            "I == INSTANCE Inner WITH y <- x\nInit == x = 0\nNext == I!Step\n"
            "Spec == Init /\\ [][Next]_x\n====\n")
    release.spec(1, "Outer", text)
    (task,) = load_release(release.root).tasks
    assert list(task.modules) == ["Outer.tla"] and "MODULE Inner" in task.modules["Outer.tla"]


@pytest.mark.parametrize(("change", "expected"), [
    ({"cfg": None}, "no cfg beside it"),
    ({"cfg": "SPECIFICATION Spec\nINVARIANT = x\n"}, "1_Clock.cfg:2"),
    ({"description": None}, "no declarative_gpt description"),
])
def test_a_task_that_cannot_load_is_skipped_with_its_reason(
        release: Release, change: dict[str, str | None], expected: str) -> None:
    release.spec(1, "Clock", module("Clock"), **change)  # type: ignore[arg-type]
    release.spec(2, "Other", module("Other"))
    found = load_release(release.root)
    assert [t.id for t in found.tasks] == ["2"]
    assert expected in found.skipped[0].reason


def test_categories_and_styles_are_chosen(release: Release) -> None:
    release.spec(1, "Clock", module("Clock"))
    release.spec(2, "Util", module("Util"), category="utility")
    assert [t.id for t in load_release(release.root).tasks] == ["1"]
    assert [t.id for t in load_release(release.root, category="utility").tasks] == ["2"]
    assert [t.id for t in load_release(release.root, category="all").tasks] == ["1", "2"]
    (claude, _) = load_release(release.root, category="all", style="declarative_claude").tasks
    assert claude.description == "Claude's text."
    with pytest.raises(TaskError, match="unknown category"):
        load_release(release.root, category="tools")


def test_several_sources_load_into_one_set(release: Release, tmp_path: Path) -> None:
    release.spec(1, "Clock", module("Clock"))
    found = load_sources(split_sources(f"builtin, {release.root}"))
    ids = {t.id for t in found.tasks}
    assert "1" in ids and "hour_clock" in ids
    published = {t.id: t.published for t in found.tasks}
    assert published["1"] is True and published["hour_clock"] is False
    with pytest.raises(TaskError, match="in both"):
        load_sources([release.root, release.root])


def test_a_broken_task_folder_is_skipped_not_fatal(tmp_path: Path) -> None:
    for name, cfg in (("good", "SPECIFICATION Spec\n"), ("bad", "SPECIFICATION\n")):
        (tmp_path / name).mkdir()
        (tmp_path / name / "Clock.tla").write_text(module("Clock"))
        (tmp_path / name / "Clock.cfg").write_text(cfg)
    found = load_task_set(tmp_path)
    assert [t.id for t in found.tasks] == ["good"]
    assert found.skipped[0].id == "bad" and "line 1" in found.skipped[0].reason


@pytest.mark.corpus
def test_the_release_in_the_shared_corpus_loads(corpus: Path) -> None:
    found = load_release(corpus / "tla-bench-release")
    assert len(found.tasks) == 145
    assert [(s.id, "no cfg" in s.reason) for s in found.skipped] == [("1142", True)]
    tasks = {t.id: t for t in found.tasks}
    # EWD998ChanID's folder has its own EWD998Chan, not the release's spec 1331 of another folder
    assert tasks["1072"].extra["module_origins"]["EWD998Chan"] == (
        "data/tla_files/tlaplus/Examples/specifications/ewd998/EWD998Chan.tla")
    assert list(tasks["1009"].modules) == ["BufferedRandomAccessFile.tla",
                                          "RandomAccessFile.tla", "Common.tla"]
    assert all(t.description for t in found.tasks)


def test_one_task_of_a_release_is_picked_by_id(release: Release) -> None:
    release.spec(1, "Clock", module("Clock"))
    release.spec(2, "Broken", module("Broken", "Nowhere"))
    parser = argparse.ArgumentParser()
    add_task_source(parser)
    add_task_id(parser)
    picked = resolve_task(str(release.root), parser.parse_args(["--id", "1"]))
    assert (picked.id, picked.main_module) == ("1", "Clock")
    with pytest.raises(TaskError, match="task 2 of .* cannot be used: .*Nowhere"):
        resolve_task(str(release.root), parser.parse_args(["--id", "2"]))
    with pytest.raises(TaskError, match="holds no task '9' \\(its tasks: 1\\)"):
        resolve_task(str(release.root), parser.parse_args(["--id", "9"]))
