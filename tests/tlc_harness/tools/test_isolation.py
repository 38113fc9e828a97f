"""Every run is isolated and every Java process ends, even when the caller dies."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from tests.conftest import FIXTURES
from tlc_harness.tools.results import Verdict
from tlc_harness.tools.runner import Harness

ENDLESS = FIXTURES / "verdicts" / "Endless.tla"


def processes_touching(marker: str) -> list[int]:
    """Live processes whose command line or working directory mentions `marker`."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            cmd = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            cwd = str((entry / "cwd").readlink())
            state = (entry / "stat").read_text().split()[2]
        except OSError:
            continue
        if state != "Z" and (marker in cmd or marker in cwd):
            found.append(int(entry.name))
    return found


def wait_gone(marker: str, seconds: float = 10.0) -> list[int]:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        left = processes_touching(marker)
        if not left:
            return []
        time.sleep(0.2)
    return processes_touching(marker)


@pytest.mark.parametrize("backend", ["pool", "fresh"])
@pytest.mark.tlc
def test_timeout_kills_and_cleans(backend: str, tmp_path: Path) -> None:
    with Harness(backend=backend, tmp_root=str(tmp_path)) as h:
        result = h.check(ENDLESS, timeout=2)
        assert result.verdict is Verdict.TIMEOUT
        assert wait_gone(str(tmp_path / "alias-run-")) == []
        again = h.check(FIXTURES / "verdicts" / "Ok.tla")  # a killed worker is replaced
        assert again.verdict is Verdict.OK
    assert wait_gone(str(tmp_path)) == []
    assert list(tmp_path.iterdir()) == []  # run dirs and worker scratch removed


def test_run_sees_only_its_files(harness: Harness, tmp_path: Path) -> None:
    (tmp_path / "Secret.tla").write_text("---- MODULE Secret ----\nS == 1\n====\n")
    from tlc_harness.tools.spec import SpecSource

    spec = SpecSource("Peek", {"Peek.tla": "---- MODULE Peek ----\nEXTENDS Secret\n====\n"})
    result = harness.parse(spec)
    assert not result.ok
    assert result.infra_error is None, result.infra_error  # SANY ran and could not find Secret
    assert result.exit_code not in (None, 0)
    assert result.errors, "the parse failure names no error"


CHILD = textwrap.dedent("""
    import signal, sys, time
    # A shell that starts jobs in the background makes them ignore SIGINT; this child must
    # behave like a program the user interrupts, whatever started the test run.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    from tlc_harness.tools.runner import Harness
    h = Harness(backend=sys.argv[1], tmp_root=sys.argv[2])
    print("started", flush=True)
    h.check(sys.argv[3], timeout=120)
""")


@pytest.mark.parametrize("backend", ["pool", "fresh"])
@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGINT])
@pytest.mark.tlc
def test_no_java_survives_its_caller(backend: str, sig: signal.Signals, tmp_path: Path) -> None:
    child = subprocess.Popen([sys.executable, "-c", CHILD, backend, str(tmp_path), str(ENDLESS)],
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert child.stdout is not None
    try:
        child.stdout.readline()
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not any(
                p != child.pid for p in processes_touching(str(tmp_path))):
            time.sleep(0.2)
        time.sleep(1.0)  # let TLC get going
        assert any(p != child.pid for p in processes_touching(str(tmp_path))), "no JVM started"
        child.send_signal(sig)
        child.wait(timeout=30)
    finally:  # a failure here must not leave the child to later tests
        if child.poll() is None:
            child.kill()
            child.wait()
        child.stdout.close()
    assert wait_gone(str(tmp_path)) == []
