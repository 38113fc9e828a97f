"""Repo-local wiring only: the project's plugins register through pyproject entry points.

Here: the `tlc` marker (registered in pyproject), set on every test of tests/ and benchmarks/
that uses a fixture starting SANY or TLC, so that `tox -e fast` (`-m "not tlc and not slow"`)
runs the tests that need no JVM. A test that starts them another way (a CLI subprocess, an
inner pytest run, a harness of its own) carries the mark itself.

And `--slow-sample K`: of the tests marked `slow` that are selected, only a fixed one in K
runs (those whose node id's CRC-32 is a multiple of K, and every one marked
`slow(ci=True)`), so that the README's test command (CI) fits its time while `tox -e full`
runs them all. The summary says how many ran of how many.
"""

from __future__ import annotations

import argparse
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

TLC_FIXTURES = frozenset({
    "harness",        # tests/conftest.py: a pooled-JVM harness
    "fresh_harness",  # tests/conftest.py: a fresh JVM per run
    "any_harness",    # tests/conftest.py: both
    "bench_harness",  # benchmarks/conftest.py (variant_store uses it too)
    "alias_outcome",  # the plugin's fixture of a benchmark case: grades its output
})


SAMPLE_OPTION = "--slow-sample"
_WORKER_KEY = "alias_slow_sample"


def _every(text: str) -> int:
    try:
        every = int(text)
    except ValueError:
        every = 0
    if every < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of at least 1")
    return every


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(SAMPLE_OPTION, type=_every, default=1, metavar="K",
                     help="run a fixed one in K of the selected tests marked slow (by a hash "
                          "of the node id; slow(ci=True) always): CI's tier. 1 (default): all")


@pytest.hookimpl(tryfirst=True)  # before `-m` reads the marks
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if TLC_FIXTURES.intersection(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.tlc)


def in_sample(nodeid: str, every: int) -> bool:
    """Whether the slow test `nodeid` is in the fixed one-in-`every` sample."""
    return zlib.crc32(nodeid.encode("utf-8")) % every == 0


@dataclass(eq=False)  # a plugin object must stay hashable for pytest's plugin manager
class SlowSample:
    """Keeps a fixed one in `every` of the selected slow tests and says so in the summary."""

    every: int
    counts: tuple[int, int] | None = None  # (slow tests kept, slow tests selected)

    @pytest.hookimpl(wrapper=True)  # after every other plugin's selection (-m, -k, opt-ins)
    def pytest_collection_modifyitems(self, config: pytest.Config,
                                      items: list[pytest.Item]) -> Iterator[None]:
        yield
        slow = [i for i in items if (mark := i.get_closest_marker("slow")) is not None
                and not mark.kwargs.get("ci")]
        gone = [i for i in slow if not in_sample(i.nodeid, self.every)]
        if gone:
            config.hook.pytest_deselected(items=gone)
            dropped = set(map(id, gone))
            items[:] = [i for i in items if id(i) not in dropped]
        self.counts = (len(slow) - len(gone), len(slow))
        workeroutput = getattr(config, "workeroutput", None)
        if workeroutput is not None:
            workeroutput[_WORKER_KEY] = self.counts

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: Any) -> None:
        counts = getattr(node, "workeroutput", {}).get(_WORKER_KEY)
        if counts is not None and self.counts is None:  # every worker keeps the same sample
            self.counts = (int(counts[0]), int(counts[1]))

    def pytest_terminal_summary(self, terminalreporter: Any, config: pytest.Config) -> None:
        if self.counts is not None and not hasattr(config, "workerinput"):
            kept, total = self.counts
            terminalreporter.write_line(
                f"ALIAS slow tests: a fixed sample of {kept} of {total} ran ({SAMPLE_OPTION} "
                f"{self.every}); `tox -e full` runs them all")


def pytest_configure(config: pytest.Config) -> None:
    every = int(config.getoption(SAMPLE_OPTION))
    if every > 1:
        config.pluginmanager.register(SlowSample(every), "alias-slow-sample")
