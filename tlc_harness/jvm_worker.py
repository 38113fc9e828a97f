"""A worker process hosting one JVM (JPype) that runs SANY and TLC on request.

Protocol: JSON lines. The first line on stdin configures the worker; it answers `{"ready": ...}`.
Then each request line gets exactly one answer line. SANY runs in one class loader for the worker's
life; every TLC run gets a fresh `URLClassLoader` (TLC keeps static state). Output of each run goes
to a file the parent names. The parent enforces time limits by killing this whole process.
Run as `python -m tlc_harness.jvm_worker`; never imported by the parent.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any


def _watch_parent(parent: int) -> None:
    """Exit at once if the parent process goes away (no orphaned JVMs)."""
    while True:
        time.sleep(0.5)
        if os.getppid() != parent:
            os._exit(70)


class _Jvm:
    def __init__(self, cfg: dict[str, Any]) -> None:
        import jpype

        self.jpype = jpype
        jpype.startJVM(cfg["libjvm"], *cfg["jvm_args"], convertStrings=True)
        self.System = jpype.JClass("java.lang.System")
        self.PrintStream = jpype.JClass("java.io.PrintStream")
        self.FileOutputStream = jpype.JClass("java.io.FileOutputStream")
        url_cls = jpype.JClass("java.net.URL")
        self.URLClassLoader = jpype.JClass("java.net.URLClassLoader")
        self.urls = jpype.JArray(url_cls)([jpype.JClass("java.io.File")(cfg["jar"]).toURI().toURL()])
        self.sany_loader = self.URLClassLoader(self.urls, None)
        self.java_version = str(self.System.getProperty("java.runtime.version"))
        self.sany_tmp = tempfile.mkdtemp(prefix="sany-tmp-", dir=Path.cwd())

    def _redirect(self, path: str) -> tuple[Any, Any, Any]:
        stream = self.PrintStream(self.FileOutputStream(path), True, "UTF-8")
        old = (self.System.out, self.System.err)
        self.System.setOut(stream)
        self.System.setErr(stream)
        return stream, old[0], old[1]

    def _restore(self, saved: tuple[Any, Any, Any]) -> None:
        stream, out, err = saved
        self.System.setOut(out)
        self.System.setErr(err)
        stream.flush()
        stream.close()

    def sany(self, req: dict[str, Any]) -> dict[str, Any]:
        jpype = self.jpype
        # SANY's loader lives as long as the worker and remembers where it unpacked the
        # standard modules, so it keeps one private folder for that.
        self.System.setProperty("java.io.tmpdir", self.sany_tmp)
        saved = self._redirect(req["out"])
        stream = saved[0]
        try:
            tool_io = jpype.JClass("util.ToolIO", loader=self.sany_loader)
            tool_io.setUserDir(req["dir"])
            tool_io.out = stream
            tool_io.err = stream
            tool_io.reset()
            spec_cls = jpype.JClass("tla2sany.modanalyzer.SpecObj", loader=self.sany_loader)
            driver = jpype.JClass("tla2sany.drivers.SANY", loader=self.sany_loader)
            spec = spec_cls(req["file"], None)
            stream.println("****** SANY2 Version 2.1 (in-process)")
            try:
                rc = int(driver.frontEndMain(spec, req["file"], stream))
                raised = None
            except jpype.JException as exc:
                rc, raised = 255, str(exc)
            errors: list[str] = []
            for errs in (spec.getInitErrors(), spec.getParseErrors(), spec.getSemanticErrors(),
                         spec.getGlobalContextErrors()):
                if errs is not None:
                    errors.extend(str(e) for e in errs.getAborts())
                    errors.extend(str(e) for e in errs.getErrors())
            if raised and not errors:
                errors.append(raised)
            return {"rc": rc, "errors": errors}
        finally:
            self._restore(saved)

    def tlc(self, req: dict[str, Any]) -> dict[str, Any]:
        jpype = self.jpype
        self.System.setProperty("java.io.tmpdir", req["tmp"])
        saved = self._redirect(req["out"])
        try:
            loader = self.URLClassLoader(self.urls, None)
            tool_io = jpype.JClass("util.ToolIO", loader=loader)
            tool_io.setUserDir(req["dir"])
            tlc_cls = jpype.JClass("tlc2.TLC", loader=loader)
            exit_status = jpype.JClass("tlc2.output.EC$ExitStatus", loader=loader)
            resolver = jpype.JClass("util.SimpleFilenameToStream", loader=loader)
            tlc = tlc_cls()
            if not tlc.handleParameters(jpype.JArray(jpype.JString)(req["args"])):
                return {"rc": 1}
            tlc.setResolver(resolver())
            code = int(tlc.process())
            return {"rc": int(exit_status.errorConstantToExitStatus(code))}
        finally:
            self._restore(saved)


def main() -> None:
    proto = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)  # anything else printed to fd 1 (JVM warnings) must not corrupt the protocol
    threading.Thread(target=_watch_parent, args=(os.getppid(),), daemon=True).start()
    cfg = json.loads(sys.stdin.readline())
    try:
        jvm = _Jvm(cfg)
    except Exception as exc:  # noqa: BLE001 - reported to the parent, which falls back
        proto.write(json.dumps({"ready": False, "error": repr(exc)}) + "\n")
        os._exit(1)
    proto.write(json.dumps({"ready": True, "java_version": jvm.java_version}) + "\n")
    for line in sys.stdin:
        req = json.loads(line)
        try:
            answer = jvm.sany(req) if req["op"] == "sany" else jvm.tlc(req)
        except Exception as exc:  # noqa: BLE001 - a JVM-side crash is reported, not raised
            answer = {"rc": None, "error": repr(exc)}
        proto.write(json.dumps(answer) + "\n")
    proto.flush()
    shutil.rmtree(jvm.sany_tmp, ignore_errors=True)
    os._exit(0)  # the RMI thread of TLC is non-daemon: do not wait for it


if __name__ == "__main__":
    main()
