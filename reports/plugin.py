"""The report plugin: the controller collects case records, writes them, and summarizes.

Workers attach each case's record to its test report. `start_results` (called once, by the
controller or the only process) registers a `ResultsPlugin` object that appends records to the
results file as they arrive, prints a compact summary at the end and writes the report folder.
Workers never register it, so they write and print nothing.
"""

from __future__ import annotations

import json
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from reports.results_file import ResultsWriter, read_lines
from reports.schema import RECORD_PROPERTY
from reports.turn_cost import PriceTable


def record_of(report: pytest.TestReport) -> dict[str, Any] | None:
    for name, value in report.user_properties:
        if name == RECORD_PROPERTY:
            data: dict[str, Any] = json.loads(str(value))
            return data
    return None


@dataclass(eq=False)  # a plugin object must stay hashable for pytest's plugin manager
class ResultsPlugin:
    """Controller-side state and hooks of one benchmark run."""

    writer: ResultsWriter
    total: int
    strict: bool
    report_dir: Path
    run_id: str = ""
    prices: PriceTable | None = None  # the feedback track's cost; None: the stored cost_usd
    records: list[dict[str, Any]] = field(default_factory=list)
    written: set[str] = field(default_factory=set)
    model_failures: set[str] = field(default_factory=set)
    harness_failures: set[str] = field(default_factory=set)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        record = record_of(report)
        if report.failed and (record is None or report.when != "call"):
            self.harness_failures.add(report.nodeid)
        elif report.failed:
            self.model_failures.add(report.nodeid)
        if record is None or report.nodeid in self.written:
            return
        if report.when == "setup" and report.passed:
            return  # the call phase comes next and says how the case ended
        self.written.add(report.nodeid)
        if self.run_id:
            record.setdefault("run_id", self.run_id)
        self.writer.append(record)
        self.records.append(record)

    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        only_model = (exitstatus == pytest.ExitCode.TESTS_FAILED and not self.harness_failures
                      and session.testsfailed == len(self.model_failures))
        if only_model and not self.strict:
            session.exitstatus = pytest.ExitCode.OK

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        from reports.summary import summary_lines, write_report

        tr = terminalreporter
        tr.section("ALIAS summary")
        tr.write_line(f"cases graded in this session: {len(self.records)} of {self.total} "
                      "selected")
        everything = [r for r in read_lines(self.writer.path) if r.get("kind") == "case"]
        for line in summary_lines(everything):
            tr.write_line(line)
        tr.write_line(f"records: {self.writer.path}")
        if self.model_failures and not self.strict:
            tr.write_line(f"{len(self.model_failures)} case(s) failed on the model's output; "
                          "the run itself is healthy (--alias-strict turns these into a "
                          "failing exit status)")
        try:
            tr.write_line(f"report: {write_report(self.writer.path, self.report_dir, self.prices)}")
        except Exception as exc:  # noqa: BLE001 - a report problem must not hide the results
            tr.write_line(f"report not written: {type(exc).__name__}: {exc}")


def start_results(config: pytest.Config, path: Path, header: dict[str, Any], *, total: int,
                  resume: bool, strict: bool, report_dir: Path,
                  prices: PriceTable | None = None) -> ResultsPlugin:
    """Begin (or, resuming, continue) a results file and register the controller plugin;
    ``prices`` (the run's price table) prices the report's feedback-track cost."""
    if path.exists() and path.stat().st_size and not resume:
        # a new run never overwrites: the earlier results are kept beside it
        stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(path.stat().st_mtime))
        kept = path.with_name(f"{path.stem}.{stamp}{path.suffix}")
        path.rename(kept)
        reporter = config.pluginmanager.get_plugin("terminalreporter")
        if reporter is not None:
            reporter.write_line(f"ALIAS: earlier results kept as {kept} "
                                "(--alias-resume continues a run instead)")
    writer = ResultsWriter(path)
    header = {**header, "run_id": header.get("run_id") or uuid.uuid4().hex[:12]}
    writer.append(header)
    plugin = ResultsPlugin(writer, total, strict, report_dir, run_id=header["run_id"],
                           prices=prices)
    config.pluginmanager.register(plugin, "alias-results")
    return plugin
