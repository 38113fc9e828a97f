"""The ALIAS pytest plugin: one test case per (task, condition, sample).

Registered by `alias_fixtures.plugin.entry` once a run switches ALIAS on (its docstring says
when); registering it starts the run's session.

Hooks stay thin and delegate to `AliasSession`. Variants are built and verified once, by the
controller (or the only process) before xdist workers start; workers reuse them from the cache.
Each case's record rides on its test report (`user_properties`); only the controller writes
results (see `reports.plugin`); the probe tests' rows likewise (see `reports.probe_writer`).
Grading goes to the `--alias-executor` (`alias_fixtures.grading.executors`); with xdist and a private
Ray, the controller starts Ray and hands its address to the workers (`workerinput`).
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import pytest

from alias_fixtures.plugin import scheduling
from alias_fixtures.plugin.options import out_folder, probe_model, read_settings
from alias_fixtures.plugin.session import AliasSession, CaseOutcome, CaseSpec, TaskSourceError
from reports.schema import RECORD_PROPERTY

SCHEDULING = "alias-scheduling"
SESSION_KEY = pytest.StashKey[AliasSession]()
_STARTED = pytest.StashKey[bool]()
RAY_ADDRESS_INPUT = "alias_ray_address"


class AliasInfraError(RuntimeError):
    """The harness (not the model) failed on a case: reported as a test error."""


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "alias_case: one ALIAS benchmark case")
    config.stash[SESSION_KEY] = _start_session(config)
    if not hasattr(config, "workerinput"):
        _group_by_variant(config)
        from reports.probe_writer import ProbeRowsPlugin
        from reports.summary import PROBES_FOLDER

        config.pluginmanager.register(ProbeRowsPlugin(
            lambda: Path(out_folder(config, probe_model(config))) / PROBES_FOLDER),
            "alias-probe-rows")


def _group_by_variant(config: pytest.Config) -> None:
    """With xdist and no `--dist` of the user's: `loadgroup`, so that each variant's cases go
    to one worker (`alias_fixtures.plugin.scheduling`) and its reference self-check is made
    once, by the worker that grades its cases, while the other workers grade other variants
    instead of waiting for that check's lock."""
    if not config.pluginmanager.is_registered(scheduling):
        config.pluginmanager.register(scheduling, SCHEDULING)
    chosen = any(str(a).startswith("--dist") or str(a) == "-d"
                 for a in config.invocation_params.args)
    if getattr(config.option, "dist", "no") == "load" and not chosen:
        config.option.dist = "loadgroup"


def _start_session(config: pytest.Config) -> AliasSession:
    try:
        alias = AliasSession.start(read_settings(config))
    except TaskSourceError as exc:
        raise pytest.UsageError(str(exc)) from exc
    workerinput = getattr(config, "workerinput", {})
    alias.ray_address = workerinput.get(RAY_ADDRESS_INPUT)
    if _private_ray(alias) and not workerinput:
        from alias_fixtures.grading.executors.ray_pool import LOCAL_RAY_ENV

        for name, value in LOCAL_RAY_ENV.items():  # before xdist starts its workers
            os.environ.setdefault(name, value)
    return alias


def _private_ray(alias: AliasSession) -> bool:
    """`--alias-executor ray` without an address (nor RAY_ADDRESS): a Ray started here."""
    return alias.settings.executor == "ray" and not os.environ.get("RAY_ADDRESS")


def _session(config: pytest.Config) -> AliasSession:
    if SESSION_KEY not in config.stash:
        config.stash[SESSION_KEY] = _start_session(config)
    return config.stash[SESSION_KEY]


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_setupnodes(config: pytest.Config, specs: list[Any]) -> None:
    """With xdist and a private Ray: the controller starts it before any worker process is
    spawned, so that every worker inherits the environment Ray sets (its auth token)."""
    if SESSION_KEY in config.stash and _private_ray(config.stash[SESSION_KEY]):
        alias = config.stash[SESSION_KEY]
        if not alias.ray_address:
            alias.ray_address = alias.local_ray_address(max(1, len(specs)))


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    """With xdist and a private Ray: the controller starts it once, every worker joins it."""
    config = node.config
    if SESSION_KEY in config.stash and _private_ray(config.stash[SESSION_KEY]):
        alias = config.stash[SESSION_KEY]
        if not alias.ray_address:
            workers = getattr(config.option, "numprocesses", None)
            alias.ray_address = alias.local_ray_address(
                workers if isinstance(workers, int) else 1)
        node.workerinput[RAY_ADDRESS_INPUT] = alias.ray_address


def _begin(config: pytest.Config, case_ids: list[str]) -> None:
    """Controller only, once: verify the selected variants, then start the results file.
    `--collect-only` verifies nothing and writes nothing (no results file, no report)."""
    if (SESSION_KEY not in config.stash or hasattr(config, "workerinput")
            or _STARTED in config.stash or config.option.collectonly):
        return
    config.stash[_STARTED] = True
    alias = config.stash[SESSION_KEY]
    pairs = sorted({(i.split("/")[0], i.split("/")[1]) for i in case_ids})
    # the workers wait for their first case meanwhile: as many verifications at once
    workers = getattr(config.option, "numprocesses", None)
    stored = alias.stored_variant_count()
    began = time.monotonic()
    alias.verify_variants(pairs, jobs=max(workers if isinstance(workers, int) else 1,
                                          alias.settings.sweep_jobs))
    alias.preparation = {"seconds": round(time.monotonic() - began, 3), "variants": len(pairs),
                         "verified_now": alias.stored_variant_count() - stored}
    excluded = [(t, c, alias.variant(t, c)[1].reason) for t, c in pairs
                if not alias.variant(t, c)[1].verified]
    from reports.plugin import start_results

    start_results(config, alias.results_path, alias.header(), total=len(case_ids),
                  resume=alias.settings.resume, strict=alias.settings.strict,
                  report_dir=alias.out / "report", prices=alias.prices)
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    if reporter is not None:
        reporter.write_line(f"ALIAS: {len(case_ids)} cases ({len(pairs)} task/condition "
                            f"variants, model {alias.settings.model}); variants verified in "
                            f"{alias.preparation['seconds']:.0f} s "
                            f"({alias.preparation['verified_now']} by TLC, the rest from the "
                            "cache), "
                            f"{len(excluded)} excluded; {len(alias.skipped)} task(s) of the "
                            "sources skipped")
        for task, cond, why in excluded:
            reporter.write_line(f"ALIAS: excluded {task}/{cond}: {why}")
        for skipped in alias.skipped:
            reporter.write_line(f"ALIAS: task {skipped.id} skipped (cannot be loaded): "
                                f"{skipped.reason}")


def _case_ids(items: list[pytest.Item]) -> list[str]:
    out = []
    for item in items:
        spec = getattr(item, "callspec", None)
        case = spec.params.get("alias_case") if spec else None
        if isinstance(case, CaseSpec):
            out.append(case.id)
    return out


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Drop recorded cases when resuming; without xdist, begin with the selected cases."""
    _deselect_recorded(config, items)
    ids = _case_ids(items)
    if ids and not hasattr(config, "workerinput"):
        _begin(config, ids)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_node_collection_finished(node: Any, ids: list[str]) -> None:
    """With xdist: the controller learns the selected cases before any is scheduled."""
    cases = [c for c in map(scheduling.case_param, ids) if c is not None and c.count("/") == 2]
    if cases:
        _begin(node.config, cases)


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "alias_case" not in metafunc.fixturenames:
        return
    cases = _session(metafunc.config).cases()
    metafunc.parametrize("alias_case", cases, ids=[c.id for c in cases])


def _deselect_recorded(config: pytest.Config, items: list[pytest.Item]) -> None:
    if SESSION_KEY not in config.stash or not config.stash[SESSION_KEY].settings.resume:
        return
    from reports.results_file import recorded_ids

    done = recorded_ids(config.stash[SESSION_KEY].results_path)
    keep: list[pytest.Item] = []
    skip: list[pytest.Item] = []
    for item in items:
        spec = getattr(item, "callspec", None)
        case = spec.params.get("alias_case") if spec else None
        (skip if isinstance(case, CaseSpec) and case.id in done else keep).append(item)
    if skip:
        config.hook.pytest_deselected(items=skip)
        items[:] = keep


@pytest.fixture
def alias_outcome(request: pytest.FixtureRequest, alias_case: CaseSpec) -> CaseOutcome:
    """Generate and grade one case; its record is attached to the report."""
    alias = _session(request.config)
    variant, check = alias.variant(alias_case.task, alias_case.condition)
    if variant is None or not check.verified:
        pytest.skip(f"variant excluded (not verified): {check.reason}")
    outcome = alias.run_case(alias_case)
    request.node.user_properties.append((RECORD_PROPERTY, json.dumps(outcome.record)))
    if outcome.infra_error:
        raise AliasInfraError(outcome.infra_error)
    return outcome


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Resuming a run whose every case is recorded is success, not pytest's `no tests` (5)."""
    config = session.config
    if exitstatus != pytest.ExitCode.NO_TESTS_COLLECTED or SESSION_KEY not in config.stash:
        return
    alias = config.stash[SESSION_KEY]
    if not alias.settings.resume:
        return
    from reports.results_file import recorded_ids

    done = recorded_ids(alias.results_path) if alias.results_path.is_file() else set()
    if done:
        session.exitstatus = pytest.ExitCode.OK
        reporter = config.pluginmanager.get_plugin("terminalreporter")
        if reporter is not None:
            reporter.write_line(f"ALIAS: all selected cases were already recorded "
                                f"({len(done)} in {alias.results_path}); nothing to run")


def pytest_unconfigure(config: pytest.Config) -> None:
    if SESSION_KEY in config.stash:
        config.stash[SESSION_KEY].close()
