"""The benchmark's long tests are opt-in: `pytest -n auto benchmarks/` runs in minutes.

A folder's conftest registers :class:`SlowOptIn` for itself (benchmarks/conftest.py does).
Its tests marked `slow` (the corpus controls, the wrapper engine's mutant controls, the
representation controls) are deselected unless `--alias-slow` (or the ini option
`alias_slow = true`) is given, and the session's summary says what ran and the exact command
that runs what was left out. Tests outside the folder are not touched (`tox -e fast` leaves
out the project's own slow tests with `-m "not slow"`).

Under xdist every worker collects and deselects; the controller learns the selected tests from
`pytest_xdist_node_collection_finished` and what was left out from the first worker's
`workeroutput`, and alone prints the summary.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

SLOW_MARK = "slow"
OPTION = "--alias-slow"
DEST = "alias_slow"
_LEFT_OUT = "alias_slow_left_out"  # workeroutput key: {file: count} of deselected tests


def wanted(config: pytest.Config) -> bool:
    """`--alias-slow` on the command line, or `alias_slow = true` in the ini file."""
    return bool(config.getoption(DEST, default=None) or config.getini(DEST))


def _file(nodeid: str) -> str:
    return nodeid.split("::", 1)[0]


@dataclass(eq=False)  # a plugin object must stay hashable for pytest's plugin manager
class SlowOptIn:
    """Deselects the folder's slow tests unless asked for, and summarizes the selection."""

    folder: Path
    ran: Counter[str] = field(default_factory=Counter)       # file -> tests selected
    left_out: Counter[str] = field(default_factory=Counter)  # file -> slow tests deselected
    _seen_nodes: bool = False

    def _mine(self, item: pytest.Item) -> bool:
        return item.path.is_relative_to(self.folder)

    @pytest.hookimpl(trylast=True)  # after -k and -m: what is left is what runs
    def pytest_collection_modifyitems(self, config: pytest.Config,
                                      items: list[pytest.Item]) -> None:
        if not wanted(config):
            slow = [i for i in items if self._mine(i) and i.get_closest_marker(SLOW_MARK)]
            if slow:
                config.hook.pytest_deselected(items=slow)
                gone = set(map(id, slow))
                items[:] = [i for i in items if id(i) not in gone]
                self.left_out.update(_file(i.nodeid) for i in slow)
        workeroutput = getattr(config, "workeroutput", None)
        if workeroutput is not None:
            workeroutput[_LEFT_OUT] = dict(self.left_out)
        else:
            self.ran.update(_file(i.nodeid) for i in items if self._mine(i))

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_node_collection_finished(self, node: Any, ids: list[str]) -> None:
        if not self._seen_nodes:  # every worker collects the same tests
            self._seen_nodes = True
            self.ran.update(_file(i) for i in ids
                            if (Path(node.config.rootpath) / _file(i)).is_relative_to(
                                self.folder))

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: Any) -> None:
        if not self.left_out:
            self.left_out.update(getattr(node, "workeroutput", {}).get(_LEFT_OUT, {}))

    def pytest_terminal_summary(self, terminalreporter: Any, config: pytest.Config) -> None:
        if hasattr(config, "workerinput") or config.option.collectonly:
            return
        for line in self.summary_lines(config):
            terminalreporter.write_line(line)

    def summary_lines(self, config: pytest.Config) -> list[str]:
        """What ran of the folder, what was left out, and the command that runs the rest."""
        if not self.ran and not self.left_out:
            return []
        folder = self._shown(config)
        lines = [f"ALIAS {folder}: selected " + _counts(self.ran)]
        if not self.left_out:
            if wanted(config):
                lines.append(f"ALIAS {folder}: slow tests included ({OPTION})")
            return lines
        lines.append(f"ALIAS {folder}: left out {sum(self.left_out.values())} slow test(s), "
                     f"opt-in: {_counts(self.left_out)}")
        lines.append(f"ALIAS run them with:  pytest -n auto {folder}/ {OPTION}")
        corpus = [f for f in self.left_out if "corpus" in Path(f).name]
        for name in corpus:
            lines.append(f"ALIAS the corpus controls alone:  pytest -n auto {name} {OPTION}"
                         "  (needs ../shared/corpus beside the checkout, or "
                         "ALIAS_SHARED_CORPUS)")
        return lines

    def _shown(self, config: pytest.Config) -> str:
        try:
            return str(self.folder.relative_to(config.rootpath))
        except ValueError:
            return str(self.folder)


def _counts(counts: Counter[str]) -> str:
    return ", ".join(f"{Path(name).name} {n}" for name, n in sorted(counts.items())) or "none"
