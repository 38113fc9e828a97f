"""One typed subprocess wrapper: own session, time limit, process-group kill, tail-capped output."""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

DEFAULT_TAIL = 1_000_000
GRACE_SECONDS = 2.0


@dataclass(frozen=True)
class ProcessResult:
    """What a finished (or killed) process left behind."""

    argv: tuple[str, ...]
    exit_code: int | None
    output: str
    seconds: float
    timed_out: bool
    truncated: bool
    error: str | None = None


def die_with_parent() -> None:  # pragma: no cover - runs in the child
    """Ask Linux to SIGKILL this child when the Python parent dies."""
    if sys.platform.startswith("linux"):
        with contextlib.suppress(Exception):
            ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


def kill_group(proc: subprocess.Popen[bytes], grace: float = GRACE_SECONDS) -> None:
    """TERM the process group, wait `grace` seconds, then KILL it; reap the leader."""
    for sig, wait in ((signal.SIGTERM, grace), (signal.SIGKILL, 10.0)):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, sig)
        try:
            proc.wait(timeout=wait)
            break
        except subprocess.TimeoutExpired:
            continue
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)  # stragglers that outlived the leader


def read_tail(path: Path, limit: int) -> tuple[str, bool]:
    """The last `limit` bytes of a file as text, and whether it was cut."""
    try:
        size = path.stat().st_size
        with path.open("rb") as fh:
            if size > limit:
                fh.seek(size - limit)
            data = fh.read()
    except OSError:
        return "", False
    return data.decode("utf-8", "replace"), size > limit


def run_process(
    argv: Sequence[str],
    *,
    cwd: Path,
    timeout: float,
    env: Mapping[str, str] | None = None,
    tail: int = DEFAULT_TAIL,
    log_name: str = "process.log",
) -> ProcessResult:
    """Run `argv` in `cwd` with stdout+stderr going to a log file there; never leave it running."""
    log = cwd / log_name
    start = time.monotonic()
    timed_out = False
    with log.open("wb") as sink:
        try:
            proc = subprocess.Popen(
                list(argv), cwd=cwd, env=dict(env) if env is not None else None,
                stdin=subprocess.DEVNULL, stdout=sink, stderr=subprocess.STDOUT,
                start_new_session=True, preexec_fn=die_with_parent,
            )
        except OSError as exc:
            return ProcessResult(tuple(argv), None, "", 0.0, False, False, f"cannot start: {exc}")
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
            kill_group(proc)
        except BaseException:
            kill_group(proc, grace=0.0)
            raise
        finally:
            # the leader is gone; make sure no child of its group survives
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, signal.SIGKILL)
    seconds = time.monotonic() - start
    output, truncated = read_tail(log, tail)
    code = None if timed_out else proc.returncode
    return ProcessResult(tuple(argv), code, output, seconds, timed_out, truncated)
