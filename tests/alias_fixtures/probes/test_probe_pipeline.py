"""Probe rows end to end: the scripted model, the rows the commands write, the row writer."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from alias_cli.main import main
from alias_fixtures.models.propose_names import names_prompt, parse_name_map
from alias_fixtures.models.registry import GenerationRequest, ModelError, make_model
from alias_fixtures.models.scripted import continue_file
from alias_fixtures.probes.continuation import continuation_prompt, reference_location, split_prefix
from alias_fixtures.tasks.task import builtin_tasks
from reports.probe_rows import read_probe_files
from reports.probe_writer import PROBE_PROPERTY, ProbeRowsPlugin

TASK = {t.id: t for t in builtin_tasks()}["hour_clock"]


def test_scripted_model_recalls_files_and_names() -> None:
    model = make_model("scripted")
    original = TASK.modules[TASK.main_file]
    prefix, rest = split_prefix(original)
    prompt = continuation_prompt(prefix, reference_location(TASK))
    reply = model.generate(GenerationRequest(TASK.id, "continuation:original", 0, prompt)).text
    assert reply == f"```tla\n{rest}```\n"
    renamed_prefix = prefix.replace("hr", "qz")
    assert continue_file(original, f"intro\n\n{renamed_prefix}") == rest  # the original's rest
    names = parse_name_map(model.generate(GenerationRequest(
        TASK.id, "propose-names", 0, names_prompt(TASK))).text)
    assert names["hr"] == "hrVariable" and names["WallClock"] == "WallClockModule"
    answer = model.generate(GenerationRequest(TASK.id, "random", 0, "Write ...")).text
    assert original.strip() in answer
    with pytest.raises(ModelError, match="knows no task"):
        model.generate(GenerationRequest("no_such_task", "original", 0, "Write ..."))


def _report(rows: list[dict[str, Any]]) -> pytest.TestReport:
    props = [(PROBE_PROPERTY, json.dumps(r)) for r in rows]
    return pytest.TestReport("t::x", ("t", 0, "x"), {}, "passed", None, "call",
                             user_properties=props)


def test_row_writer_replaces_files_then_appends(tmp_path: Path) -> None:
    stale = tmp_path / "probes" / "continuation.jsonl"
    stale.parent.mkdir()
    stale.write_text('{"old": 1}\n', encoding="utf-8")
    plugin = ProbeRowsPlugin(lambda: tmp_path / "probes")
    rows = [{"schema_version": 1, "kind": "continuation", "model": "m", "task": t}
            for t in ("a", "b")]
    plugin.pytest_runtest_logreport(_report(rows[:1]))
    plugin.pytest_runtest_logreport(_report(rows[1:]))
    setup = _report(rows)
    setup.when = "setup"
    plugin.pytest_runtest_logreport(setup)  # only the call phase carries rows
    lines = [json.loads(line) for line in stale.read_text(encoding="utf-8").splitlines()]
    assert lines == rows and plugin.counts == {"continuation": 2}


def test_probe_commands_write_rows_the_report_reads(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    continuation, names = tmp_path / "cont.jsonl", tmp_path / "names.jsonl"
    assert main(["probe", "continuation", "--model", "scripted", "--task", TASK.id,
                 "--task", "two_phase_commit", "--out", str(continuation)]) == 0
    assert main(["probe", "propose-names", "--model", "scripted", "--task", TASK.id,
                 "--out", str(tmp_path / "maps"), "--rows", str(names)]) == 0
    capsys.readouterr()
    probes = read_probe_files([continuation, names])
    (cont, _) = probes.of("continuation")
    assert cont["model"] == "scripted" and cont["task"] == "hour_clock"
    assert cont["fraction_original"] == 1.0
    (row,) = probes.of("proposed_names")
    assert row["kept"] == len(row["map"]) == 5 and row["dropped"] == 2
    assert row["verified"] is None and row["error"] is None


def test_similarity_command_writes_rows(tmp_path: Path) -> None:
    records = [{"kind": "header", "tasks": "builtin", "seeds": {"run": "0"}}]
    records += [{"schema_version": 1, "kind": "case", "model": "m", "task": TASK.id,
                 "condition": "original", "sample": s, "infra_error": None,
                 "similarity": {"rouge_l": 0.5 * s, "bleu": 0.25}} for s in (1, 2)]
    results = tmp_path / "results.jsonl"
    results.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    out = tmp_path / "sim.jsonl"
    assert main(["probe", "similarity", str(results), "--json", "--out", str(out)]) == 0
    rows = read_probe_files([out]).of("similarity")
    assert [(r["sample"], r["similarity"]["rouge_l"]) for r in rows] == [(1, 0.5), (2, 1.0)]
