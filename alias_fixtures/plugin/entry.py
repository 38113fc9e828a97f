"""The pytest entry point: adds the `--alias-*` options and loads nothing heavy.

The benchmark's hooks (`alias_fixtures.plugin.hooks`: the run session, tree-sitter, the JVM
pool) load only when a run switches ALIAS on, which it does in exactly three ways:

- it collects the `benchmarks/` folder (its conftest calls :func:`switch_on`);
- an `--alias-*` option is on the command line;
- the ini option `alias_enable = true` is set.
"""

from __future__ import annotations

import importlib

import pytest

from alias_fixtures.plugin.options import add_options

HOOKS_MODULE = "alias_fixtures.plugin.hooks"
HOOKS_NAME = "alias-bench"
ENABLE_INI = "alias_enable"


def pytest_addoption(parser: pytest.Parser) -> None:
    add_options(parser)
    parser.addini(ENABLE_INI, "switch the ALIAS benchmark plugin on for every run",
                  type="bool", default=False)


def wanted(config: pytest.Config) -> bool:
    """An `--alias-*` option on the command line, or `alias_enable` in the ini file."""
    given = any(str(arg).startswith("--alias-") for arg in config.invocation_params.args)
    return given or bool(config.getini(ENABLE_INI))


def switch_on(config: pytest.Config) -> None:
    """Load and register the benchmark's hooks (once; later calls do nothing)."""
    if config.pluginmanager.has_plugin(HOOKS_NAME):
        return
    config.pluginmanager.register(importlib.import_module(HOOKS_MODULE), HOOKS_NAME)


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    if wanted(config):
        switch_on(config)
