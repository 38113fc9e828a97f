"""The benchmark: one test per (task, condition, sample).

A case passes when the model's output is correct under the primary grade (`--alias-primary`,
behavior by default) and fails with a one-line reason otherwise. A harness problem (a variant
that could not be verified, a model that could not be reached, a crash) is a test *error*.
"""

from __future__ import annotations

import pytest

from alias_fixtures.plugin.session import CaseOutcome


@pytest.mark.alias_case
def test_case(alias_outcome: CaseOutcome) -> None:
    if not alias_outcome.passed:
        pytest.fail(alias_outcome.reason, pytrace=False)
