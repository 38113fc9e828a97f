"""Probe rows of pytest runs: tests attach them to their reports, the controller writes them.

A probe test (benchmarks/test_text_probes.py) adds a user property ``alias_probe_row`` holding
one JSON row; under xdist it rides on the test report to the controller. :class:`ProbeRowsPlugin`
(registered by the controller or the only process) appends each row to
``<folder>/<kind>.jsonl``, a file it replaces on its first row of that kind in the session, so
`alias-bench report --probe` (and the run's own report) read it.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from reports.probe_rows import check_row
from reports.results_file import ResultsWriter

PROBE_PROPERTY = "alias_probe_row"


def attach_row(item: pytest.Item, row: dict[str, Any]) -> None:
    """Attach one probe row to the running test's report."""
    check_row(row, item.nodeid)
    item.user_properties.append((PROBE_PROPERTY, json.dumps(row)))


@dataclass(eq=False)  # a plugin object must stay hashable for pytest's plugin manager
class ProbeRowsPlugin:
    """Controller-side writer of probe rows; the folder is resolved at the first row."""

    folder_of: Callable[[], Path]
    writers: dict[str, ResultsWriter] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=dict)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.when != "call":
            return
        for name, value in report.user_properties:
            if name == PROBE_PROPERTY:
                self.write(json.loads(str(value)))

    def write(self, row: dict[str, Any]) -> None:
        kind = str(row["kind"])
        if kind not in self.writers:
            path = self.folder_of() / f"{kind}.jsonl"
            path.unlink(missing_ok=True)
            self.writers[kind] = ResultsWriter(path)
        self.writers[kind].append(row)
        self.counts[kind] = self.counts.get(kind, 0) + 1

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if not self.counts:
            return
        terminalreporter.section("ALIAS probes")
        for kind, writer in self.writers.items():
            terminalreporter.write_line(f"{self.counts[kind]} {kind} row(s): {writer.path}")
        files = " ".join(f"--probe {w.path}" for w in self.writers.values())
        terminalreporter.write_line(f"report: alias-bench report RESULTS.jsonl {files}")
