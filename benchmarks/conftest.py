"""Fixtures of the benchmark: one harness per process, the variant cache, the run seed, and
the probes' model, tasks and row publishing (benchmarks/test_text_probes.py)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from alias_fixtures.models.cache import cached_if_remote
from alias_fixtures.models.registry import ModelAdapter, make_model
from alias_fixtures.plugin.entry import switch_on
from alias_fixtures.plugin.options import Settings, out_folder, probe_model, read_settings
from alias_fixtures.plugin.session import AliasSession
from alias_fixtures.plugin.slow_tests import SlowOptIn
from alias_fixtures.tasks.task import Task
from alias_fixtures.tasks.variants import VariantStore
from reports.probe_writer import attach_row
from reports.summary import PROBES_FOLDER
from tlc_harness.tools.runner import Harness


def pytest_configure(config: pytest.Config) -> None:
    """A run that collects the benchmark switches the ALIAS plugin on; the benchmark's slow
    tests are opt-in (`--alias-slow`, see `alias_fixtures.plugin.slow_tests`)."""
    switch_on(config)
    if not config.pluginmanager.has_plugin(SLOW_OPT_IN):
        config.pluginmanager.register(SlowOptIn(Path(__file__).resolve().parent), SLOW_OPT_IN)


SLOW_OPT_IN = "alias-slow-opt-in"
_PROBE_TASKS = pytest.StashKey[list[Task]]()


@pytest.fixture(scope="session")
def bench_harness(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Harness]:
    with Harness(tlc_timeout=300, tmp_root=str(tmp_path_factory.mktemp("bench"))) as h:
        yield h


@pytest.fixture(scope="session")
def run_seed(pytestconfig: pytest.Config) -> str:
    """The run seed of `--alias-seed` (the cases' seed too)."""
    return read_settings(pytestconfig).seed


@pytest.fixture(scope="session")
def variant_store(pytestconfig: pytest.Config, bench_harness: Harness) -> VariantStore:
    """The run's verified-variant cache, the one the cases use."""
    return VariantStore(read_settings(pytestconfig).variant_cache,
                        jar_sha256=bench_harness.toolchain.jar_sha256)


# -- probes ---------------------------------------------------------------------------------

def probe_tasks(config: pytest.Config) -> list[Task]:
    """The tasks of `--alias-tasks` (built-in by default), loaded once per process."""
    if _PROBE_TASKS not in config.stash:
        tasks = AliasSession.start(read_settings(config)).tasks
        config.stash[_PROBE_TASKS] = [tasks[t] for t in sorted(tasks)]
    return config.stash[_PROBE_TASKS]


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "probe_task" in metafunc.fixturenames:
        tasks = probe_tasks(metafunc.config)
        metafunc.parametrize("probe_task", tasks, ids=[t.id for t in tasks])


@pytest.fixture(scope="session")
def probe_settings(pytestconfig: pytest.Config) -> Settings:
    """The `--alias-*` options (seed, conditions, sampling) the probes share with the cases."""
    return read_settings(pytestconfig)


@pytest.fixture(scope="session")
def probe_spec(pytestconfig: pytest.Config) -> str:
    """The probes' model spec: `--alias-model`, else the offline `scripted` model."""
    return probe_model(pytestconfig)


@pytest.fixture(scope="session")
def probe_out(pytestconfig: pytest.Config, probe_spec: str) -> Path:
    """`<alias-out>/probes` of the probes' model: row files and proposed name maps."""
    return Path(out_folder(pytestconfig, probe_spec)) / PROBES_FOLDER


@pytest.fixture(scope="session")
def probe_adapter(pytestconfig: pytest.Config, probe_spec: str) -> Iterator[ModelAdapter]:
    """The probes' model; API models answer through the run's generation cache."""
    adapter = cached_if_remote(make_model(probe_spec),
                               Path(out_folder(pytestconfig, probe_spec)))
    yield adapter
    closer = getattr(adapter, "close", None)
    if callable(closer):
        closer()


@pytest.fixture
def publish_row(request: pytest.FixtureRequest) -> Callable[[dict[str, Any]], None]:
    """Attach a probe row to this test's report; the controller writes it to the probe file."""
    return lambda row: attach_row(request.node, row)
