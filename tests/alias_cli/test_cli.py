"""`alias-bench check`: text and JSON output, exit statuses."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from alias_cli.main import main
from tests.conftest import FIXTURES

V = FIXTURES / "verdicts"


@pytest.mark.tlc
def test_check_ok_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", str(V / "Ok.tla"), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["parse"]["ok"] is True
    assert data["parse"]["errors"] == []
    check = data["check"]
    assert check["verdict"] == "ok"
    assert (check["distinct_states"], check["generated_states"]) == (12, 24)
    assert check["violated"] is None
    assert check["seconds"] > 0
    assert len(data["toolchain"]["jar_sha256"]) == 64


@pytest.mark.tlc
def test_check_violation_text(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", str(V / "InvViolated.tla")]) == 1
    out = capsys.readouterr().out
    assert "invariant_violated (SmallCount)" in out
    assert "counterexample (4 states" in out


@pytest.mark.tlc
def test_check_parse_failure(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", str(V / "SemanticError.tla"), "--json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["parse"]["ok"] is False
    assert data["parse"]["errors"]
    assert data["check"]["verdict"] == "parse_error"


@pytest.mark.tlc
def test_check_with_explicit_cfg_and_flag(tmp_path: Path) -> None:
    cfg = tmp_path / "other.cfg"
    cfg.write_text("SPECIFICATION Spec\n")
    assert main(["check", str(V / "Deadlock.tla"), "--cfg", str(cfg)]) == 1
    assert main(["check", str(V / "Deadlock.tla"), "--cfg", str(cfg), "--tlc-arg=-deadlock"]) == 0


@pytest.mark.parametrize("argv", [
    ["check", "does-not-exist.tla"],
    ["check", str(V / "Ok.cfg")],
    ["check", str(V / "Ok.tla"), "--cfg", "missing.cfg"],
    ["check"],
    ["frobnicate"],
])
def test_usage_errors_exit_2(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    assert capsys.readouterr().err


@pytest.mark.tlc
def test_timeout_is_a_spec_failure(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", str(V / "Endless.tla"), "--timeout", "2", "--json"]) == 1
    assert json.loads(capsys.readouterr().out)["check"]["verdict"] == "timeout"


def test_split_writes_halves_and_training_sets(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["split", "--out", str(tmp_path), "--json"]) == 0
    split = json.loads(capsys.readouterr().out)
    assert split["seed"] == 20260926
    assert len(split["A"]) == 12 and len(split["B"]) == 12
    assert not set(split["A"]) & set(split["B"])
    rows = [json.loads(line) for line in (tmp_path / "train_A.jsonl").read_text().splitlines()]
    assert [r["task"] for r in rows] == split["A"]
    assert all(r["description"] and "---- MODULE" in r["reference"] for r in rows)
    assert main(["split", "--out", str(tmp_path / "again"), "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == split  # same seed, same halves


def test_rules_lists_every_rule_policy_and_reason_code(capsys: pytest.CaptureFixture[str]) -> None:
    from tlc_harness.behavior.rules import RULES
    from tlc_harness.behavior.verdicts import Reason, Soundness, ValueSource

    assert main(["rules", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [r["name"] for r in data["representation_rules"]] == list(RULES)
    assert data["policies"]["auto"] == ["graphs", "wrappers"]
    assert sorted(c for codes in data["verdicts"].values() for c in codes) == sorted(Reason)
    assert list(data["soundness_classes"]) == list(Soundness)
    assert list(data["value_sources"]) == list(ValueSource)
    assert "initial_states" in data["mapping_free_checks"]
    assert main(["rules"]) == 0
    text = capsys.readouterr().out
    assert all(name in text for name in RULES) and "tlc_forward" in text
    assert "mapping_free" in text and "output_assume" in text
