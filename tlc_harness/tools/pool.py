"""Parent side of the JVM workers: start, call with a time limit, recycle, kill."""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import queue
import select
import signal
import subprocess
import sys
import threading
import time
import weakref
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tlc_harness.tools.process import die_with_parent, kill_group

STARTUP_TIMEOUT = 120.0
_LIVE: weakref.WeakSet[JvmWorker] = weakref.WeakSet()


class WorkerUnavailable(RuntimeError):
    """The worker could not start or died during a request (not a time-out)."""


@dataclass(frozen=True)
class WorkerReply:
    """A worker's answer, or how waiting for it ended."""

    answer: dict[str, Any] | None
    seconds: float
    timed_out: bool = False
    died: bool = False
    exit_code: int | None = None


class JvmWorker:
    """One worker process hosting one JVM; one request at a time."""

    def __init__(self, config: dict[str, Any], *, recycle_after: int, log_dir: Path) -> None:
        self.config = config
        self.recycle_after = recycle_after
        self.log_dir = log_dir
        self.proc: subprocess.Popen[bytes] | None = None
        self.runs = 0
        self.java_version: str | None = None
        self._buffer = b""
        _LIVE.add(self)

    def _start(self) -> None:
        log = (self.log_dir / f"jvm-worker-{os.getpid()}-{id(self)}.log").open("ab")
        env = {k: v for k, v in os.environ.items() if k != "JAVA_TOOL_OPTIONS"}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tlc_harness.tools.jvm_worker"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log, env=env,
            start_new_session=True, preexec_fn=die_with_parent,
            cwd=self.log_dir,
        )
        log.close()
        self._buffer = b""
        self.runs = 0
        reply = self._exchange(self.config, STARTUP_TIMEOUT)
        if reply.answer is None or not reply.answer.get("ready"):
            self.stop()
            why = reply.answer.get("error") if reply.answer else "no answer"
            raise WorkerUnavailable(f"JVM worker did not start: {why}")
        self.java_version = reply.answer.get("java_version")

    def _exchange(self, message: dict[str, Any], timeout: float) -> WorkerReply:
        assert self.proc is not None
        assert self.proc.stdin is not None
        assert self.proc.stdout is not None
        start = time.monotonic()
        try:
            self.proc.stdin.write((json.dumps(message) + "\n").encode())
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            return WorkerReply(None, 0.0, died=True, exit_code=self.proc.poll())
        fd = self.proc.stdout.fileno()
        deadline = start + timeout
        while b"\n" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                return WorkerReply(None, time.monotonic() - start, timed_out=True)
            ready, _, _ = select.select([fd], [], [], min(left, 1.0))
            if not ready:
                continue
            chunk = os.read(fd, 65536)
            if not chunk:
                code = self.proc.wait(timeout=10)
                return WorkerReply(None, time.monotonic() - start, died=True, exit_code=code)
            self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        return WorkerReply(json.loads(line), time.monotonic() - start)

    def call(self, request: dict[str, Any], timeout: float) -> WorkerReply:
        """Send one request; on time-out or death the worker is killed and restarts next call."""
        if self.proc is None or self.proc.poll() is not None or self.runs >= self.recycle_after:
            self.stop()
            self._start()
        self.runs += 1
        try:
            reply = self._exchange(request, timeout)
        except BaseException:
            self.stop()
            raise
        if reply.timed_out or reply.died:
            self.stop()
        return reply

    def stop(self) -> None:
        """Kill the worker's whole process group (the JVM lives inside it)."""
        proc, self.proc = self.proc, None
        if proc is None:
            return
        with contextlib.suppress(OSError):
            if proc.stdin:
                proc.stdin.close()
        if proc.poll() is None:
            kill_group(proc, grace=0.0)
        else:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, signal.SIGKILL)
        if proc.stdout:
            proc.stdout.close()


class JvmPool:
    """A fixed number of workers shared by threads of one process."""

    def __init__(self, config: dict[str, Any], *, size: int, recycle_after: int, log_dir: Path):
        self.size = size
        self._idle: queue.Queue[JvmWorker] = queue.Queue()
        for _ in range(size):
            self._idle.put(JvmWorker(config, recycle_after=recycle_after, log_dir=log_dir))
        self._all = list(self._idle.queue)
        self._lock = threading.Lock()

    def call(self, request: dict[str, Any], timeout: float) -> WorkerReply:
        worker = self._idle.get()
        try:
            return worker.call(request, timeout)
        finally:
            self._idle.put(worker)

    def close(self) -> None:
        with self._lock:
            for worker in self._all:
                worker.stop()


@atexit.register
def _stop_all() -> None:
    for worker in list(_LIVE):
        worker.stop()
