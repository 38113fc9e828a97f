"""Tests for the report folder (reports.render*) and `alias-bench report`.

The Markdown tables and stats.json of a fixed synthetic results file are snapshot-tested
(volatile fields filtered); the HTML page is checked for self-containment, escaping and
completeness; degenerate inputs must give notes, never NaN or a crash.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
from syrupy.assertion import SnapshotAssertion
from syrupy.filters import props

from alias_cli.main import main
from reports.render import write_report

FAST = 2000  # bootstrap resamples in tests
TASKS = ("alpha_clock", "beta_queue", "gamma_lock", "delta_mutex", "epsilon_ring")
HIDDEN = {"beta_queue": {"original": ["TypeOK"], "random": ["Qzvx"]},
          "gamma_lock": {"original": ["NoDeadlock", "Safe"], "random": ["Wrop", "Kelb"]}}
# Per task and condition, one string per sample: p/n/b = parse/name/behavior passes;
# "infra" = an infrastructure error; u = the behavior grade decided nothing (`undecided`).
# epsilon_ring is not covered by the behavior grade.
OUTCOMES: dict[str, dict[str, tuple[str, ...]]] = {
    "alpha_clock": {"original": ("pnb", "pnb", "pnb"), "random": ("pnb", "pn", "pnb")},
    "beta_queue": {"original": ("pnb", "pnb", "pb"), "random": ("pb", "pb", "pu")},
    "gamma_lock": {"original": ("pnb", "infra", "pb"), "random": ("pb", "pb", "")},
    "delta_mutex": {"original": ("pnb", "pnb", "pnb"), "random": ("pnb", "pnb", "infra")},
    "epsilon_ring": {"original": ("pn", "pn", "p"), "random": ("pn", "p", "p")},
}
SNAPSHOT_EXCLUDE = props("started", "path")


def header(model: str, **extra: Any) -> dict[str, Any]:
    """A run header like the benchmark writes (with a volatile timestamp and paths)."""
    return {"schema_version": 1, "kind": "header", "started": "2026-11-29T14:04:23+00:00",
            "git_commit": "b93fe01a1ebcd27c60fa8490ae1bbf8111348063", "git_dirty": False,
            "java": "/opt/java/bin/java", "java_version": "21.0.2",
            "jar_sha256": "58c6df9a1045beb341ee947bc640fe8d89988ad1d0b700e392aa8dd97502129a",
            "model": model, "provider": "mock", "model_id": model,
            "prompt_template_sha256": "2ff9a22fb32a01f4", "seeds": {"run": "0"},
            "conditions": ["original", "random"], "samples": 3, **extra}


def case(task: str, condition: str, sample: int, outcome: str, *, model: str = "mock-a"
         ) -> dict[str, Any]:
    """One case record; failures get realistic verdicts, behavior failures a trace."""
    hidden = HIDDEN.get(task, {}).get(condition, [])
    record: dict[str, Any] = {
        "schema_version": 1, "kind": "case", "id": f"{task}/{condition}/s{sample}",
        "model": model, "task": task, "condition": condition, "sample": sample,
        "hidden_names": hidden, "grades": {}, "infra_error": None,
        "output_path": f"run-123/outputs/{model}/{task}/{condition}/s{sample}.txt",
    }
    if outcome == "infra":
        record["infra_error"] = "TLC worker died (exit 137)"
        return record
    if outcome == "clock":
        record["infra_error"] = "wall-clock limit: the name grade's TLC run reached its limit"
        record["infra_kind"] = "wall_clock"
        return record
    parsed, covered = "p" in outcome, task != "epsilon_ring"
    name_ok, behavior_ok = "n" in outcome, "b" in outcome
    record["grades"] = {
        "parse": {"verdict": "ok" if parsed else "parse_error", "passed": parsed},
        "name": {"verdict": "ok" if name_ok else "config_bind_fail" if parsed and hidden
                 else "invariant_violated" if parsed else "parse_error",
                 "passed": name_ok, "missing_names": hidden if parsed and not name_ok else []},
        "behavior": {"verdict": "ok" if behavior_ok else "not_covered" if not covered
                     else "undecided" if "u" in outcome
                     else "forward_fail" if parsed else "parse_error",
                     "passed": behavior_ok, "covered": covered, "trace": []},
    }
    if parsed and covered and not behavior_ok and "u" not in outcome:
        behavior = record["grades"]["behavior"]
        behavior["reason"] = "forward check failed under all 2 mapping(s)"
        behavior["mapping"] = {"variables": {"hr": "clock"}, "constants": {}}
        behavior["trace"] = [
            {"number": 1, "action": "<Initial predicate>", "variables": {"clock": "1"}},
            {"number": 2, "action": "<Tick line 9, col 3 to line 9, col 30 of module AliasOut>",
             "variables": {"clock": "13"}}]
    return record


def write_run(path: Path, *, model: str = "mock-a",
              outcomes: Mapping[str, Mapping[str, Sequence[str]]] | None = None,
              extra_header: dict[str, Any] | None = None) -> Path:
    """A results file: a header, then one line per case."""
    lines = [header(model, **(extra_header or {}))]
    for task, by_condition in (OUTCOMES if outcomes is None else outcomes).items():
        for condition, samples in by_condition.items():
            lines += [case(task, condition, s, o, model=model) for s, o in enumerate(samples)]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def report_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The report of the synthetic run, written once."""
    folder = tmp_path_factory.mktemp("report")
    results = write_run(folder / "results.jsonl")
    write_report([results], folder / "out", n_boot=FAST)
    return folder / "out"


def strict_json(text: str) -> Any:
    """json.loads that rejects NaN and Infinity."""
    def reject(token: str) -> Any:
        raise ValueError(f"non-finite number {token} in JSON")
    return json.loads(text, parse_constant=reject)


# -- snapshots --------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["table1.md", "differences.md", "table2.md", "splits.md",
                                  "probes.md", "table1.csv", "differences.csv"])
def test_tables_match_snapshot(report_dir: Path, name: str, snapshot: SnapshotAssertion
                               ) -> None:
    assert (report_dir / name).read_text(encoding="utf-8") == snapshot


def test_stats_json_matches_snapshot(report_dir: Path, snapshot: SnapshotAssertion) -> None:
    stats = strict_json((report_dir / "stats.json").read_text(encoding="utf-8"))
    assert stats == snapshot(exclude=SNAPSHOT_EXCLUDE)


def test_stats_json_carries_settings_and_provenance(report_dir: Path) -> None:
    stats = strict_json((report_dir / "stats.json").read_text(encoding="utf-8"))
    assert stats["settings"] | {"exposure": None} == {
        "seed": 2026, "n_boot": FAST, "split_seed": 20260926, "level": 0.95, "margin": 5.0,
        "exposure": None}
    (run,) = stats["inputs"]
    assert run["cases"] == 30
    assert run["headers"][0]["jar_sha256"].startswith("58c6df9a")
    assert "java" not in run["headers"][0]  # only provenance fields, no machine paths
    assert stats["summary"]["infra_errors"] == 2
    assert not (report_dir / "table2.csv").exists()


def test_same_records_and_seed_give_identical_files(report_dir: Path, tmp_path: Path) -> None:
    again = tmp_path / "again"
    write_report([report_dir.parent / "results.jsonl"], again, n_boot=FAST)
    for path in report_dir.iterdir():
        assert (again / path.name).read_bytes() == path.read_bytes(), path.name


# -- HTML -------------------------------------------------------------------------------------

def test_html_is_self_contained(report_dir: Path) -> None:
    html = (report_dir / "index.html").read_text(encoding="utf-8")
    assert not re.search(r"""(src|href)\s*=\s*["']?\s*(https?:)?//""", html, re.I)
    assert not re.search(r"https?://", html)
    for tag in ("<script", "<link", "<iframe", "@import", "url("):
        assert tag not in html
    assert html.count("<svg") == 5  # pass rates (one model), the decrease, 3 taxonomy bars


def test_html_has_every_section_and_task(report_dir: Path) -> None:
    html = (report_dir / "index.html").read_text(encoding="utf-8")
    for anchor in ("provenance", "table1", "plots", "differences", "table2", "splits",
                   "hidden_split", "disagreements", "upper_bound", "tasks"):
        assert f'id="{anchor}"' in html
    for task in TASKS:
        assert f'id="task-{task}"' in html
    assert "b93fe01a1ebc" in html
    assert "2ff9a22fb32a01f4" in html
    assert "&lt;Tick line 9" in html  # the counterexample, escaped
    assert "Qzvx" in html
    assert "TLC worker died" in html


def test_html_escapes_text_from_records(tmp_path: Path) -> None:
    evil = "<script>alert(1)</script>"
    outcomes = {"t1": {"original": ("pnb",), "random": ("pn",)},
                "t2": {"original": ("pnb",), "random": ("pnb",)}}
    results = write_run(tmp_path / "r.jsonl", model=evil, outcomes=outcomes)
    index = write_report([results], tmp_path / "out", n_boot=FAST)
    html = index.read_text(encoding="utf-8")
    assert "<script" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html


def test_html_shows_a_behavior_verdicts_soundness_class_and_constants(tmp_path: Path) -> None:
    outcomes = {"t1": {"original": ("pnb",), "random": ("pn",)},
                "t2": {"original": ("pnb",), "random": ("pnb",)}}
    results = write_run(tmp_path / "r.jsonl", outcomes=outcomes)
    lines = [json.loads(line) for line in results.read_text(encoding="utf-8").splitlines()]
    for line in lines:
        behavior = line.get("grades", {}).get("behavior")
        if behavior and behavior["verdict"] in ("ok", "forward_fail"):
            behavior["soundness"] = "justified" if behavior["passed"] else "enumerated"
            behavior["constants"] = {"Hours": {"value": "1..12", "from": "1..12",
                                               "source": "output_assume"}}
    results.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    html = write_report([results], tmp_path / "out", n_boot=FAST).read_text(encoding="utf-8")
    assert '<span class="muted">justified</span>' in html
    assert '<span class="muted">enumerated</span>' in html
    assert "<code>Hours</code> = 1..12 (output_assume)" in html


# -- degenerate input -------------------------------------------------------------------------

DEGENERATE: dict[str, tuple[dict[str, dict[str, tuple[str, ...]]], dict[str, str]]] = {
    "one task": ({"solo": {"original": ("pnb", "p"), "random": ("pb", "p")}},
                 {"differences.md": "at least two tasks", "splits.md": "at least two tasks"}),
    "all zeros": ({t: {"original": ("", ""), "random": ("", "")} for t in TASKS[:3]},
                  {"differences.md": "no task differs", "table1.md": "| 0.0 |"}),
    "only original": ({t: {"original": ("pnb", "p")} for t in TASKS[:3]},
                      {"differences.md": "only the 'original' condition",
                       "splits.md": "no renaming decrease"}),
    "no original": ({t: {"random": ("pnb", "p")} for t in TASKS[:3]},
                    {"differences.md": "no 'original' condition"}),
    "only infra errors": ({t: {"original": ("infra",), "random": ("infra",)}
                           for t in TASKS[:3]},
                          {"table1.md": "no task is covered",
                           "splits.md": "6 × TLC worker died (exit 137)"}),
    "no cases": ({}, {"table1.md": "no case records", "differences.md": "no case records"}),
}


@pytest.mark.parametrize("kind", list(DEGENERATE))
def test_degenerate_input_gives_notes_not_nan(kind: str, tmp_path: Path) -> None:
    outcomes, expected = DEGENERATE[kind]
    results = write_run(tmp_path / "r.jsonl", outcomes=outcomes)
    index = write_report([results], tmp_path / "out", n_boot=FAST)
    assert index.is_file()
    texts = {p.name: p.read_text(encoding="utf-8") for p in index.parent.iterdir()}
    strict_json(texts["stats.json"])
    for name, text in texts.items():
        assert not re.search(r"\bnan\b", text, re.I), name
    for name, fragment in expected.items():
        assert fragment in texts[name], (name, texts[name])
    for task in {t for t in outcomes}:
        assert f'id="task-{task}"' in texts["index.html"]


def test_a_case_a_wall_clock_ended_is_listed_and_in_no_rate(tmp_path: Path) -> None:
    outcomes = {t: {"original": ("pnb", "pnb"), "random": ("pn", "pnb")} for t in TASKS[:3]}
    with_clock = {**outcomes, TASKS[0]: {"original": ("pnb", "clock"), "random": ("pn", "pnb")}}
    texts = {}
    for label, run in (("plain", outcomes), ("clock", with_clock)):
        results = write_run(tmp_path / f"{label}.jsonl", outcomes=run)
        index = write_report([results], tmp_path / label, n_boot=FAST)
        texts[label] = {p.name: p.read_text(encoding="utf-8") for p in index.parent.iterdir()}
    assert f"mock-a/{TASKS[0]}/original/1" in texts["clock"]["splits.md"]
    assert "left out of every rate" in texts["clock"]["splits.md"]
    # its task's original rate is its one other sample's, as if it had never been run
    assert texts["clock"]["table1.md"] == texts["plain"]["table1.md"]


# -- the command line -------------------------------------------------------------------------

def test_cli_combines_two_runs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    first = write_run(tmp_path / "a.jsonl", model="mock-a")
    second = write_run(tmp_path / "b.jsonl", model="mock-b", outcomes={
        t: {c: tuple("pn" if t == "epsilon_ring" else "pnb" for _ in s) for c, s in by.items()}
        for t, by in OUTCOMES.items()})
    out = tmp_path / "combined"
    assert main(["report", str(first), str(second), "--out", str(out), "--n-boot", "2000",
                 "--seed", "7"]) == 0
    printed = capsys.readouterr().out
    assert "| mock-a correct, name |" in printed
    assert "| mock-b correct, name |" in printed
    assert str(out / "index.html") in printed
    stats = strict_json((out / "stats.json").read_text(encoding="utf-8"))
    assert stats["summary"]["models"] == ["mock-a", "mock-b"]
    assert stats["settings"]["seed"] == 7
    assert {r["model"] for r in stats["sections"]["differences"]["rows"]} == {"mock-a", "mock-b"}
    assert "seed 7" in (out / "differences.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("how", ["option", "headers"])
def test_exposure_pair_gives_table2(how: str, tmp_path: Path) -> None:
    marks: Sequence[dict[str, Any]] = ({}, {}) if how == "option" else (
        {"exposure_half": "A"}, {"exposure_half": "B"})
    first = write_run(tmp_path / "a.jsonl", model="qwen-a", extra_header=dict(marks[0]))
    second = write_run(tmp_path / "b.jsonl", model="qwen-b", extra_header=dict(marks[1]))
    argv = ["report", str(first), str(second), "--out", str(tmp_path / "out"),
            "--n-boot", "2000"]
    if how == "option":
        argv += ["--exposure", "A=qwen-a,B=qwen-b,label=qwen"]
    assert main(argv) == 0
    table2 = (tmp_path / "out" / "table2.md").read_text(encoding="utf-8")
    assert "exposure effect" in table2
    assert "split seed 20260926" in table2
    rows = (tmp_path / "out" / "table2.csv").read_text(encoding="utf-8").splitlines()
    assert len(rows) == 1 + 3  # header, then parse, name and behavior for original − random
    assert rows[1].startswith("qwen," if how == "option" else "qwen-a / qwen-b,")


@pytest.mark.parametrize(("content", "message"), [
    (None, "no such results file"),
    ("not json\n", "not JSON"),
    ('{"kind": "case", "schema_version": 9}\n', "schema_version 9"),
    (b"\xff\xfe\x00binary", "cannot read"),
])
def test_cli_unreadable_input_exits_2(content: str | bytes | None, message: str,
                                      tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                      ) -> None:
    path = tmp_path / "r.jsonl"
    if isinstance(content, bytes):
        path.write_bytes(content)
    elif content is not None:
        path.write_text(content, encoding="utf-8")
    assert main(["report", str(path), "--out", str(tmp_path / "out")]) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "out" / "index.html").exists()


@pytest.mark.parametrize("spec", ["A=x", "A=x,B=x", "A=x,C=y", "A=x,B=y,A=z"])
def test_cli_rejects_a_malformed_exposure_option(spec: str, tmp_path: Path) -> None:
    path = write_run(tmp_path / "r.jsonl")
    assert main(["report", str(path), "--exposure", spec]) == 2
