"""Repo-local wiring only: the project's plugins register through pyproject entry points.

Here: the `tlc` marker (registered in pyproject), set on every test of tests/ and benchmarks/
that uses a fixture starting SANY or TLC, so that `tox -e fast` (`-m "not tlc and not slow"`)
runs the tests that need no JVM. A test that starts them another way (a CLI subprocess, an
inner pytest run, a harness of its own) carries the mark itself.
"""

from __future__ import annotations

import pytest

TLC_FIXTURES = frozenset({
    "harness",        # tests/conftest.py: a pooled-JVM harness
    "fresh_harness",  # tests/conftest.py: a fresh JVM per run
    "any_harness",    # tests/conftest.py: both
    "bench_harness",  # benchmarks/conftest.py (variant_store uses it too)
    "alias_outcome",  # the plugin's fixture of a benchmark case: grades its output
})


@pytest.hookimpl(tryfirst=True)  # before `-m` reads the marks
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if TLC_FIXTURES.intersection(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.tlc)
