"""Fixtures shared by the project's own tests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy  # noqa: F401 - see below
import pytest
import scipy.stats  # noqa: F401 - see below

from alias_fixtures.tasks.loaders import shared_corpus as find_shared_corpus
from tlc_harness.tools.runner import Harness

# numpy and scipy.stats are imported before any test runs: pytester's in-process runs drop the
# modules first imported inside them, and numpy's C extensions cannot be loaded twice in one
# process, so a second inner run that grades or reports (the graph engine's search uses numpy,
# the report's statistics scipy.stats, which loads numpy.fft) failed when such a test ran
# without another test having imported them first.
ROOT = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).resolve().parent / "fixtures"


def shared_corpus() -> Path | None:
    """`../shared/corpus` beside the checkout (or ALIAS_SHARED_CORPUS), if present."""
    return find_shared_corpus(ROOT)


@pytest.fixture(scope="session")
def corpus() -> Path:
    path = shared_corpus()
    if path is None:
        pytest.skip("../shared/corpus is absent (set ALIAS_SHARED_CORPUS to point at it)")
    return path


@pytest.fixture(scope="session")
def harness(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Harness]:
    """A pooled-JVM harness for the whole session."""
    with Harness(backend="pool", tlc_timeout=120,
                 tmp_root=str(tmp_path_factory.mktemp("pool"))) as h:
        yield h


@pytest.fixture(scope="session")
def fresh_harness(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Harness]:
    """A harness that starts a fresh JVM for every run."""
    with Harness(backend="fresh", tlc_timeout=120,
                 tmp_root=str(tmp_path_factory.mktemp("fresh"))) as h:
        yield h


@pytest.fixture(params=["pool", "fresh"])
def any_harness(request: pytest.FixtureRequest) -> Harness:
    """Both backends: every verdict test runs on each."""
    name = "harness" if request.param == "pool" else "fresh_harness"
    return request.getfixturevalue(name)  # type: ignore[no-any-return]
