"""scripts/dev_report.py: the rows of real_outputs.json as case records (crafted rows, no
corpus), and the failure taxonomy of the 193 development outputs (the corpus's texts for the
parse classes; snapshot of its tables)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from syrupy.assertion import SnapshotAssertion

from reports.records import load_records
from reports.render import write_report
from reports.taxonomy import STAGES, class_counts, taxonomy_frame
from tests.conftest import ROOT

SCRIPT = ROOT / "scripts" / "dev_report.py"
RESULTS = ROOT / "scripts" / "results" / "real_outputs.json"


@pytest.fixture(scope="module")
def dev() -> ModuleType:
    spec = importlib.util.spec_from_file_location("dev_report", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def row(**fields: Any) -> dict[str, Any]:
    base = {"spec_id": "42", "model": "m", "engine": "auto", "parse": "ok",
            "name": "config_bind_fail", "name_reason": "not defined or without value: X "
            "(hidden name)", "behavior": "forward_fail", "behavior_code": "graph_forward",
            "mapping_basis": "any_mapping", "soundness": "justified",
            "reference_task": "T.T", "reference_runs": True}
    return {**base, **fields}


def test_a_row_becomes_a_case_record(dev: ModuleType) -> None:
    record = dev.case_record(row(), None, "r", {})
    assert (record["id"], record["task"], record["condition"], record["sample"]) == (
        "42/original/s0", "42", "original", 0)
    grades = record["grades"]
    assert grades["behavior"] | {"covered": True} == grades["behavior"]
    assert grades["behavior"]["mapping_basis"] == "any_mapping"
    assert "missing_names" not in grades["name"]  # never read from the reason's text
    assert record["hidden_names"] == []


def test_a_row_without_a_running_reference_is_not_covered(dev: ModuleType) -> None:
    record = dev.case_record(row(name="not_run", behavior="no_reference", reference_runs=False,
                                 reference_reason="TLC: timeout"), None, "r", {})
    assert record["grades"]["behavior"] == {
        "verdict": "not_covered", "passed": False, "covered": False,
        "reason": "no reference runs: TLC: timeout"}


@pytest.mark.parametrize(("own", "covered"), [("ok", True), ("not_covered", False),
                                              ("undecided", None)])
def test_a_parse_failures_coverage_is_its_references_self_check(
        dev: ModuleType, own: str, covered: bool | None) -> None:
    record = dev.case_record(row(parse="parse_error", name="parse_error",
                                 behavior="parse_error"), None, "r",
                             {"T.T": {"verdict": own, "reason": "…"}})
    assert record["grades"]["behavior"].get("covered") is covered
    assert "failure_class" not in record["grades"]["parse"]  # no corpus: no text to read


def test_a_grade_that_raised_is_an_infrastructure_error(dev: ModuleType) -> None:
    record = dev.case_record(row(behavior="error", behavior_reason="KeyError: x"), None, "r",
                             {})
    assert record["infra_error"] == "the grade raised: KeyError: x"


@pytest.fixture(scope="module")
def dev_report(dev: ModuleType, corpus: Path, tmp_path_factory: pytest.TempPathFactory
               ) -> Path:
    out = tmp_path_factory.mktemp("dev_report")
    data = json.loads(RESULTS.read_text(encoding="utf-8"))
    paths = dev.write_records(dev.dev_records(data, corpus), out / "records")
    write_report(paths, out, n_boot=2000)
    return out


@pytest.mark.corpus
def test_every_development_output_is_in_one_class_per_stage(dev_report: Path) -> None:
    paths = sorted((dev_report / "records").glob("*.jsonl"))
    frame = taxonomy_frame(map(str, paths))
    records = load_records(paths)
    assert len(frame) == len(records) == 193
    for stage in STAGES:
        counts = class_counts(frame, stage)
        assert counts["count"].sum() == 193
        for model, part in counts.groupby("model"):
            assert part["count"].sum() == (records["model"] == model).sum()
            passed = part.loc[part["key"] == "passed", "count"].sum()
            assert passed == records.loc[records["model"] == model, f"{stage}_pass"].sum()
    parse_errors = frame[frame["parse_class"] == "unclassified"]
    assert parse_errors.empty, parse_errors  # every parse failure classified from its text


@pytest.mark.corpus
def test_the_development_outputs_taxonomy_matches_snapshot(dev_report: Path,
                                                           snapshot: SnapshotAssertion) -> None:
    text = (dev_report / "taxonomy.md").read_text(encoding="utf-8")
    assert text.split("## Failure taxonomy: change")[0] == snapshot


def test_a_row_keeping_the_name_fields_places_its_name_failure(dev: ModuleType) -> None:
    row = {"spec_id": "1", "model": "m", "parse": "ok", "name": "config_bind_fail",
           "name_reason": "not defined or without value: Safe (hidden name)",
           "name_details": {"missing_names": ["Safe"], "missing_hidden": ["Safe"],
                            "vacuous": False, "violated": None},
           "behavior": "ok", "reference_runs": True}
    grade = dev.name_grade(row)
    assert grade["missing_hidden"] == ["Safe"] and not grade["passed"]
    vacuous = dev.name_grade({**row, "name": "ok", "name_details": {"vacuous": True}})
    assert not vacuous["passed"]
