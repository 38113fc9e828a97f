"""Finding Java and the jar; provenance for run headers."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import FIXTURES
from tlc_harness.tools.results import Verdict
from tlc_harness.tools.runner import Harness
from tlc_harness.tools.toolchain import ToolchainError, get_toolchain


@pytest.mark.tlc
def test_default_toolchain_describes_itself() -> None:
    tc = get_toolchain()
    info = tc.describe()
    assert len(info["jar_sha256"]) == 64
    assert "2020-01-30" in info["jar_version"]
    assert info["java_version"][0].isdigit()
    assert tc.legacy_cfg


@pytest.mark.tlc
def test_env_overrides(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    jar = get_toolchain().jar
    copy = tmp_path / "custom.jar"
    copy.write_bytes(jar.read_bytes())
    monkeypatch.setenv("ALIAS_TLA2TOOLS", str(copy))
    tc = get_toolchain()
    assert tc.jar == copy
    assert tc.jar_source == "ALIAS_TLA2TOOLS"
    monkeypatch.setenv("ALIAS_JAVA", str(tmp_path / "missing-java"))
    with pytest.raises(ToolchainError, match="ALIAS_JAVA"):
        get_toolchain()


def test_java_that_does_not_run_is_refused_early(tmp_path: Path) -> None:
    fake = tmp_path / "java"
    fake.write_text("#!/bin/sh\nexit 1\n")
    fake.chmod(0o755)
    with pytest.raises(ToolchainError, match="-version failed"):
        Harness(get_toolchain(java=str(fake)), backend="fresh", tmp_root=str(tmp_path))


@pytest.mark.tlc
def test_java_that_dies_mid_run_is_infrastructure_error(tmp_path: Path) -> None:
    real = get_toolchain().java
    fake = tmp_path / "java"
    fake.write_text(f'#!/bin/sh\ncase "$*" in *-version*) exec "{real}" "$@";; esac\nexit 137\n')
    fake.chmod(0o755)
    with Harness(get_toolchain(java=str(fake)), backend="fresh", tmp_root=str(tmp_path)) as h:
        result = h.check(FIXTURES / "verdicts" / "Ok.tla")
        parsed = h.parse(FIXTURES / "verdicts" / "Ok.tla")
    assert result.verdict is Verdict.INFRA_ERROR
    assert not parsed.ok
