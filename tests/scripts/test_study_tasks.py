"""The task-set tables of scripts/study_tasks.py, built from synthetic per-task data (no TLC)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from tests.conftest import ROOT

SCRIPT = ROOT / "scripts" / "study_tasks.py"


@pytest.fixture(scope="module")
def st() -> ModuleType:
    spec = importlib.util.spec_from_file_location("study_tasks", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _desc(used: int, kept: int, lowercase: int = 0) -> dict[str, Any]:
    return {"renamed": 1, "kept_lowercase": lowercase, "kept_module": 0, "forced_cfg": 0,
            "domain_used": used, "domain_words_kept": kept, "kept_names": [],
            "forced_names": []}


def _row(task_id: str, verified: bool, *, reason: str | None = None,
         loss: dict[str, Any] | None = None, hidden: int = 0,
         renamed: dict[str, str] | None = None, modules: int = 1,
         tlabench: dict[str, Any] | None = None) -> dict[str, Any]:
    ok = verified or not (reason or "").startswith("the original does not pass")
    row: dict[str, Any] = {
        "id": task_id, "module": f"M{task_id}", "verified": verified, "reason": reason,
        "original_ok": ok, "modules": [f"M{task_id}", *(f"N{i}" for i in range(modules - 1))],
        "hidden": [{"name": f"H{i}", "kind": ("constant", "invariant")[i % 2],
                    "identifier_kind": "convention" if i == 0 else "domain"}
                   for i in range(hidden)],
        "renamed": renamed if renamed is not None else {"counter": "domain", "x": "abbreviation"},
        "tlabench": tlabench or {"verified": True, "fail_stage": None, "error": None,
                                 "module": f"M{task_id}", "length_changed": 0},
        "descriptions": {"alias": _desc(2, 2, lowercase=1),
                         "tlabench_map_alias_rule": _desc(2, 1),
                         "tlabench_text": {"domain_used": 2, "domain_words_kept": 0,
                                           "damaged": ["counter"]}},
    }
    if loss is not None:
        row["loss"] = loss
    return row


def _loss(verdict: str, **extra: Any) -> dict[str, Any]:
    return {"verdict": verdict, "codes": [], "tlc_args": [], "distinct_states": 3, **extra}


@pytest.fixture
def data() -> dict[str, Any]:
    failed = "the original does not pass TLC ({})"
    not_theirs = {"verified": False, "fail_stage": "tlc", "error": "Semantic errors:",
                  "module": "M6", "length_changed": 0}
    rows = [
        _row("1", True, hidden=5),
        _row("2", True, hidden=1),
        _row("3", False, reason=failed.format("deadlock"), loss=_loss("deadlock", codes=[2114])),
        _row("4", False, reason=failed.format("parse_error"),
             loss=_loss("parse_error", missing_modules=["TLCExt"], module_copies={"TLCExt": []},
                        copy_imports={"TLCExt": []})),
        _row("1399", False, reason=failed.format("config_bind_fail"),
             loss=_loss("config_bind_fail")),
        _row("6", True, modules=2, tlabench=not_theirs, renamed={"Lock": "domain"}),
        _row("7", False, reason="TLC on the renamed task: deadlock", loss=_loss("ok")),
    ]
    return {"provenance": {"command": "python scripts/study_tasks.py", "date": "today",
                           "git_commit": "abc", "seed": "0", "tlc_timeout": 300,
                           "wall_seconds": 1},
            "system_ids": ["1", "2", "3", "4", "1399", "6", "7", "8"],
            "skipped": [{"id": "8", "reason": "8_M.tla: no cfg beside it (8_M.cfg)"}],
            "tlabench_verified": ["1", "2", "3", "4", "1399", "7", "8"],
            "tlabench_maps": {"1": {"a": "abbreviation", "Init": "convention"},
                              "6": {"Lock": "domain", "the": "domain"},
                              "8": {"counter": "domain"}},
            "not_loaded": [{"id": "8", "hidden": [], "descriptions": {}}],
            "tasks": rows}


def test_funnel_counts_each_stage_and_names_every_loss(st: ModuleType,
                                                       data: dict[str, Any]) -> None:
    text = "\n".join(st.funnel_table(data))
    assert "| system specs in the release | 146 | 8 | |" in text
    assert "| ... with a cfg (tasks loaded) | - | 7 | skipped: 8: no cfg |" in text
    assert "| ... whose original passes SANY and TLC here (2020 jar) | - | 4 | 3 fail" in text
    assert "| ... whose random variant is verified | 111 | 3 | 1 lost after" in text
    causes = {r["id"]: st.loss_cause(r) for r in data["tasks"] if not r["verified"]}
    assert causes["3"][0].startswith("deadlock: the behaviors end")
    assert causes["4"][:2] == ("missing module TLCExt",
                               "newer jar (a standard module of current TLA+ tools)")
    assert causes["1399"][2].startswith("PROPERTY Prop")  # the recorded note
    assert causes["7"][1] == "ALIAS's renamer"
    for task_id in causes:
        assert f"| {task_id} | M{task_id} |" in text


def test_a_note_for_another_verdict_is_not_applied(st: ModuleType) -> None:
    row = _row("1399", False, reason="the original does not pass TLC (eval_error)",
               loss=_loss("eval_error", message="boom"))
    assert st.loss_cause(row) == ("unexplained: eval_error", "?", "boom")


def test_deadlock_with_deadlock_checking_off_is_not_blamed_on_the_cfg(st: ModuleType) -> None:
    row = _row("3", False, reason="the original does not pass TLC (deadlock)",
               loss=_loss("deadlock", tlc_args=["-deadlock"]))
    assert st.loss_cause(row)[0].startswith("unexplained")


def test_original_ok(st: ModuleType) -> None:
    assert st.original_ok(True, None)
    assert not st.original_ok(False, "the original does not pass TLC (deadlock)")
    assert st.original_ok(False, "distinct-state counts differ")


def test_agreement_lists_both_differences(st: ModuleType, data: dict[str, Any]) -> None:
    text = "\n".join(st.agreement_table(data))
    assert "| ALIAS verified | 2 | 1 |" in text
    assert "| ALIAS not verified | 4 | 0 |" in text
    assert "| not loaded (no cfg) | 1 | 0 |" in text
    assert "| 1399 | a variable as a PROPERTY rejected" in text
    assert "| 8 | not a task: no cfg" in text
    assert ("| 6 | tlc: Semantic errors: | 2 task modules, renamed here by one map; renames 1 "
            "name(s) ALIAS keeps: the |") in text


def test_hidden_names_over_both_task_sets(st: ModuleType, data: dict[str, Any]) -> None:
    ours = st.hidden_summary([r for r in data["tasks"] if r["verified"]])
    assert ours == {"tasks": 3, "hidden_tasks": 2, "hidden_5": 1, "hidden_total": 6,
                    "hidden_constant": 4, "hidden_invariant": 2, "hidden_property": 0,
                    "hidden_constraint": 0, "hidden_conventions": 2}
    assert [r["id"] for r in st.study_set(data)] == ["1", "2", "3", "4", "1399", "7", "8"]
    assert "| tasks with five or more | 29 | 1 | 1 |" in st.hidden_table(data)


def test_identifier_kinds(st: ModuleType, data: dict[str, Any]) -> None:
    assert st.kinds_summary([{"a": "domain", "b": "convention"}, {"c": "domain"}]) == {
        "total": 3, "domain": 2, "convention": 1, "abbreviation": 0}
    text = "\n".join(st.kinds_table(data))
    assert "| renamed identifiers | 1,788 | 5 | 3 |" in text  # 2 + 2 + 1; maps of 1 and 8


def test_descriptions(st: ModuleType, data: dict[str, Any]) -> None:
    rows = [r for r in data["tasks"] if r["verified"]]
    assert st.description_summary(rows, "alias") == {
        "descriptions": 3, "domain_used": 6, "domain_kept": 6, "damage": 3}
    assert st.description_summary(rows, "tlabench_text")["damage"] == 3
    text = "\n".join(st.description_table(data))
    assert "| ... whose words survive renaming | 199 of 219 (91%) | 6 of 6 (100%) |" in text


def test_whole_word_report_reads_a_renamed_text(st: ModuleType) -> None:
    description = "Each process waits at the barrier; the counter counts arrivals."
    renamed = "Each Qwertyu waits at the barrier; the Xcvbnmz counts arrivals."
    report = st.whole_word_report(description, renamed,
                                  {"process": "Qwertyu", "counter": "Xcvbnmz"}, (), ())
    assert report == {"domain_used": 2, "domain_words_kept": 0,
                      "damaged": ["counter", "process"]}
    kept = st.whole_word_report(description, renamed, {"process": "Qwertyu"}, ("process",), ())
    assert kept["damaged"] == []  # a cfg name is renamed by part 1: no damage part 2 avoids


def test_split_halves_are_the_exposure_split(st: ModuleType) -> None:
    ids = [str(i) for i in range(111)]
    data = {"tasks": [{"id": i, "verified": True} for i in ids], "tlabench_verified": ids[:10]}
    table, halves = st.split_table(data)
    assert (len(halves["A"]), len(halves["B"])) == (55, 56)
    assert (len(halves["study_set_A"]), len(halves["study_set_B"])) == (5, 5)
    assert "| half A | 55 | 55 | 5 |" in table


def test_render_has_every_table(st: ModuleType, data: dict[str, Any]) -> None:
    text = st.render(data)
    for n in range(1, 7):
        assert f"## {n}. " in text
    assert "ALIAS's half A: " in text


def test_a_spec_without_cfg_is_measured_from_the_record(st: ModuleType, tmp_path: Path) -> None:
    for folder, text in (("declarative_gpt", "The counter grows."),
                         ("perturbed", "The Xcvbnmz grows.")):
        (tmp_path / "descriptions" / folder).mkdir(parents=True)
        (tmp_path / "descriptions" / folder / "8.txt").write_text(text)
    row = st._record_only(tmp_path, {"spec_id": 8, "module": "M",
                                     "rename_map": {"counter": "Xcvbnmz"}})
    assert row["hidden"] == []
    assert row["descriptions"]["tlabench_text"]["domain_used"] == 1
    assert row["descriptions"]["tlabench_map_alias_rule"]["kept_lowercase"] == 1
    json.dumps(row)  # the raw data stays JSON
