"""Which xdist worker grades which case: the cases of one variant go to one worker.

A variant's reference self-check and its graphs are made once, under a lock (see
`alias_fixtures.grading.reference_cache`); cases of one variant spread over several workers
would wait for that lock while other variants' cases wait for a worker. xdist's `--dist
loadgroup` groups tests by their `xdist_group` marks, but it carries the group in the node id,
which pytest 9.2 no longer lets a plugin change (the marks are then silently ignored). So a case
is grouped by its own id instead: `...::test_case[<task>/<condition>/s<n>]` belongs to
`<task>/<condition>`. Any other test keeps loadgroup's scope.

This module is a pytest plugin: the benchmark's hooks use it, and a run of other cases shaped
the same way (`-p alias_fixtures.plugin.scheduling`) can too. It acts under `--dist
loadgroup`, which a benchmark run takes by default with `-n`.
"""

from __future__ import annotations

from typing import Any

import pytest

CASE = "test_case"  # the test function of a case


def case_param(nodeid: str) -> str | None:
    """The parameter id of a case's node id (`...::test_case[<id>]`, perhaps followed by
    xdist's `@<group>`); None for any other test, whatever its parameters hold."""
    head, bracket, rest = nodeid.partition("[")
    if not bracket or head.rsplit("::", 1)[-1] != CASE or "]" not in rest:
        return None
    return rest.rsplit("]", 1)[0]


def case_scope(nodeid: str) -> str | None:
    """The group of a case's node id: its parameter's id up to the last `/` (the task and
    condition of `task/condition/s0`); None for any other test."""
    param = case_param(nodeid)
    return f"alias-case:{param.rsplit('/', 1)[0]}" if param and "/" in param else None


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    if config.getvalue("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadGroupScheduling

    class CaseScheduling(LoadGroupScheduling):  # type: ignore[misc]
        """loadgroup, with a case's scope read from its id."""

        def _split_scope(self, nodeid: str) -> str:
            return case_scope(nodeid) or str(super()._split_scope(nodeid))

    return CaseScheduling(config, log)
