"""The inspect_ai task and scorer (alias_fixtures.inspect_eval.tasks) and reports from inspect logs.

Offline: inspect's mock model (its outputs carry no module, so every grade fails at
extraction) and `alias/reference` (each variant's own reference, so every grade passes) on
two built-in tasks; the report built from the inspect log must give the same Table 1 as the
benchmark's own case runner for the same outputs.
"""

from __future__ import annotations

import csv
import hashlib
import json
import math
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

inspect_ai = pytest.importorskip(
    "inspect_ai", reason="the inspect extra is not installed (pip install 'alias-bench[inspect]')")

from inspect_ai.log import EvalLog  # noqa: E402
from inspect_ai.model import ModelOutput, ModelUsage, get_model  # noqa: E402

from alias_cli.main import main  # noqa: E402
from alias_fixtures.inspect_eval.cases import inspect_settings  # noqa: E402
from alias_fixtures.plugin.session import AliasSession, CaseSpec  # noqa: E402
from reports.inspect_log import inspect_records  # noqa: E402
from reports.results_file import ResultsWriter, read_lines  # noqa: E402

# bounded_fifo: hidden names in both conditions; peterson_mutex: the same prompt under both
# conditions, so only the sample tells its variants apart
TASKS = ("bounded_fifo", "peterson_mutex")
CONDITIONS = ("original", "random")
MOCK_TEXT = "Default output from mockllm/model"
N_BOOT = "200"
# inspect_ai's own warnings, not ALIAS's: anyio memory streams left to the garbage collector,
# and a tenacity argument it still passes
pytestmark = [
    pytest.mark.filterwarnings("ignore:The 'initial' parameter is deprecated:DeprecationWarning"),
    pytest.mark.filterwarnings("ignore:Unclosed <MemoryObject:ResourceWarning"),
    pytest.mark.filterwarnings("ignore:Exception ignored in.*MemoryObject"
                               ":pytest.PytestUnraisableExceptionWarning"),
]


def mock_model() -> Any:
    """inspect's mock model with its default text; usage given, so it counts no tokens
    (counting would download a tokenizer)."""
    def reply(*_: Any) -> ModelOutput:
        output = ModelOutput.from_content(model="mockllm", content=MOCK_TEXT)
        output.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
        return output

    return get_model("mockllm/model", custom_outputs=reply)


def run_eval(model: Any, log_dir: Path, out: Path, *, samples: int, log_format: str = "eval",
             **extra: Any) -> EvalLog:
    logs = inspect_ai.eval("alias_bench/tla_cir", model=model, log_dir=str(log_dir),
                           display="none", log_format=log_format,
                           task_args={"only": ",".join(TASKS), "samples": samples,
                                      "out": str(out)}, **extra)
    assert len(logs) == 1
    return logs[0]


@pytest.fixture(scope="module")
def out_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("alias-out")


@pytest.fixture(scope="module")
def mock_log(tmp_path_factory: pytest.TempPathFactory, out_dir: Path) -> EvalLog:
    return run_eval(mock_model(), tmp_path_factory.mktemp("mock-logs"), out_dir, samples=1,
                    log_format="json")


@pytest.fixture(scope="module")
def reference_log(tmp_path_factory: pytest.TempPathFactory, out_dir: Path) -> EvalLog:
    return run_eval("alias/reference", tmp_path_factory.mktemp("reference-logs"), out_dir,
                    samples=2)


@pytest.fixture(scope="module")
def native_results(tmp_path_factory: pytest.TempPathFactory, out_dir: Path) -> Path:
    """The benchmark's own session and `reference` model on the same cases, as a results file."""
    settings = inspect_settings({"model": "reference", "samples": 2, "out": str(out_dir)})
    session = AliasSession.start(settings)
    session.tasks = {t: session.tasks[t] for t in TASKS}
    path = tmp_path_factory.mktemp("native") / "results.jsonl"
    writer = ResultsWriter(path)
    try:
        writer.append(session.header())
        for case in session.cases():
            writer.append(session.run_case(case).record)
    finally:
        session.close()
    return path


def scores_of(log: EvalLog) -> list[tuple[str, int, Any]]:
    assert log.status == "success", log.error
    assert log.samples is not None
    return [(str(s.id), s.epoch, s.scores["alias_grades"]) for s in log.samples
            if s.scores is not None]


def table1_rows(folder: Path) -> list[list[str]]:
    """Table 1 without its model column (the two runs name their models differently)."""
    with (folder / "table1.csv").open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert rows
    return [[v for k, v in row.items() if k != "model"] for row in rows]


@pytest.mark.tlc
def test_mock_outputs_fail_at_extraction(mock_log: EvalLog) -> None:
    scores = scores_of(mock_log)
    assert sorted(i for i, _, _ in scores) == sorted(f"{t}/{c}" for t in TASKS
                                                     for c in CONDITIONS)
    for _, _, score in scores:
        assert score.value == {"parse": 0.0, "name": 0.0, "behavior": 0.0}
        record = score.metadata["alias_record"]
        assert {g: record["grades"][g]["verdict"] for g in ("parse", "name", "behavior")} \
            == dict.fromkeys(("parse", "name", "behavior"), "no_module")
        assert record["grades"]["behavior"]["covered"] is True
        assert record["model"] == "mockllm/model" and record["infra_error"] is None
        assert score.explanation.startswith("parse: no_module: no `---- MODULE")
        assert score.metadata["mapping"] is None and score.metadata["passed"] is False
    metrics = {s.name: s.metrics for s in mock_log.results.scores}
    assert metrics["parse"]["grouped_all"].value == 0.0


@pytest.mark.tlc
def test_reference_passes_every_grade(reference_log: EvalLog) -> None:
    scores = scores_of(reference_log)
    assert len(scores) == len(TASKS) * len(CONDITIONS) * 2
    for sample_id, epoch, score in scores:
        assert score.value == {"parse": 1.0, "name": 1.0, "behavior": 1.0}, score.explanation
        record = score.metadata["alias_record"]
        assert record["id"] == f"{sample_id}/s{epoch - 1}"
        assert record["model"] == "alias/reference"
        assert all(record["grades"][g]["passed"] for g in ("parse", "name", "behavior"))
        assert score.metadata["mapping"]["variables"]
        assert score.metadata["tlc_runs"] >= 1 and score.metadata["counterexample"] is None
    for metric in reference_log.results.scores:
        assert {k: m.value for k, m in metric.metrics.items() if k.startswith("grouped")} \
            == {"grouped_original": 1.0, "grouped_random": 1.0, "grouped_all": 1.0}


@pytest.mark.tlc
def test_sample_metadata(reference_log: EvalLog) -> None:
    assert reference_log.samples is not None
    empty_map = hashlib.sha256(b"[]").hexdigest()[:16]
    for sample in reference_log.samples:
        meta = sample.metadata
        record = sample.scores["alias_grades"].metadata["alias_record"]
        assert (meta["task"], meta["condition"]) == (record["task"], record["condition"])
        assert meta["hidden_names"] == record["hidden_names"] != []
        assert meta["prompt_sha256"] == record["prompt_sha256"]
        assert (meta["rename_map_sha256"] == empty_map) == (meta["condition"] == "original")
    assert reference_log.eval.metadata["alias_excluded"] == []
    assert reference_log.eval.config.epochs == 2


@pytest.mark.tlc
def test_report_from_the_log_matches_the_native_run(reference_log: EvalLog, native_results: Path,
                                                    tmp_path: Path) -> None:
    log_path = Path(reference_log.location)
    assert main(["report", str(log_path), "--out", str(tmp_path / "inspect"),
                 "--n-boot", N_BOOT]) == 0
    assert main(["report", str(native_results), "--out", str(tmp_path / "native"),
                 "--n-boot", N_BOOT]) == 0
    rows = table1_rows(tmp_path / "inspect")
    assert rows == table1_rows(tmp_path / "native")
    # (the behavior bounds' columns are empty on the parse and name rows)
    assert all(cell in ("100.0", str(len(TASKS)), "") for row in rows for cell in row[1:])
    assert (tmp_path / "inspect" / "index.html").is_file()
    verdicts = {r["id"]: {g: r["grades"][g]["verdict"] for g in r["grades"]}
                for r in read_lines(native_results) if r.get("kind") == "case"}
    from_log = {r["id"]: {g: r["grades"][g]["verdict"] for g in r["grades"]}
                for r in inspect_records(log_path) if r.get("kind") == "case"}
    assert from_log == verdicts and len(from_log) == len(TASKS) * len(CONDITIONS) * 2


@pytest.mark.tlc
def test_json_log_reads_as_records(mock_log: EvalLog) -> None:
    path = Path(mock_log.location)
    assert path.suffix == ".json"
    records = inspect_records(path)
    header, cases = records[0], records[1:]
    assert header["kind"] == "header" and header["model"] == "mockllm/model"
    assert header["samples"] == 1 and header["inspect"]["status"] == "success"
    assert header["jar_sha256"] and header["prompt_template_sha256"]
    assert [c["kind"] for c in cases] == ["case"] * len(TASKS) * len(CONDITIONS)
    json.dumps(records)  # a results file holds JSON


@pytest.mark.tlc
def test_failed_samples_stay_in_the_denominator(tmp_path: Path, out_dir: Path) -> None:
    def broken(*_: Any) -> ModelOutput:
        raise RuntimeError("the model is down")

    log = run_eval(get_model("mockllm/model", custom_outputs=broken), tmp_path, out_dir,
                   samples=1, fail_on_error=False, retry_on_error=0)
    cases = [r for r in inspect_records(log.location) if r["kind"] == "case"]
    assert len(cases) == len(TASKS) * len(CONDITIONS)
    assert all(c["infra_error"].startswith("inspect: ") and "the model is down" in
               c["infra_error"] for c in cases)
    assert main(["report", log.location, "--out", str(tmp_path / "r"), "--n-boot", N_BOOT]) == 0
    assert "0.0" in (tmp_path / "r" / "table1.md").read_text(encoding="utf-8")


def test_settings_fail_early() -> None:
    with pytest.raises(ValueError, match="conditions"):
        inspect_settings({"conditions": "original,renamed"})
    with pytest.raises(ValueError, match="unknown ALIAS setting"):
        inspect_settings({"temperatur": 0.2})
    with pytest.raises(ValueError, match="maps"):
        inspect_settings({"conditions": ["original", "meaningful"]})
    settings = inspect_settings({"conditions": ["original"], "samples": "3", "seed": 7})
    assert (settings.conditions, settings.samples, settings.seed) == (("original",), 3, "7")
    assert not math.isnan(settings.timeout)


def test_nothing_else_imports_inspect_at_start_up() -> None:
    code = ("import sys, alias_cli.main, alias_fixtures.plugin.hooks, alias_fixtures.plugin.session, "
            "reports.render, reports.results_file, alias_cli.report_cmd\n"
            "assert 'inspect_ai' not in sys.modules, 'inspect_ai imported'")
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)


@pytest.mark.tlc
def test_case_spec_of_an_epoch(reference_log: EvalLog) -> None:
    assert reference_log.samples is not None
    ids = {s.scores["alias_grades"].metadata["alias_record"]["id"]
           for s in reference_log.samples}
    assert ids == {CaseSpec(t, c, k).id for t in TASKS for c in CONDITIONS for k in (0, 1)}
