"""A worker process hosting one JVM (JPype) that runs SANY and TLC on request.

Protocol: JSON lines. The first line on stdin configures the worker; it answers `{"ready": ...}`.
Then each request line gets exactly one answer line. SANY runs in one class loader for the worker's
life; every TLC run gets a fresh `URLClassLoader` (TLC keeps static state). Output of each run goes
to a file the parent names. The parent enforces time limits by killing this whole process.
Run as `python -m tlc_harness.tools.jvm_worker`; never imported by the parent.
"""

from __future__ import annotations

import contextlib
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
        self.Class = jpype.JClass("java.lang.Class")
        self.String = jpype.JClass("java.lang.String")
        self.Integer = jpype.JClass("java.lang.Integer")
        self.ClassArray = jpype.JArray(self.Class)
        self.Void = jpype.JClass("java.lang.Void")
        self.Boolean = jpype.JClass("java.lang.Boolean")
        self.MethodHandles = jpype.JClass("java.lang.invoke.MethodHandles")
        self.MethodType = jpype.JClass("java.lang.invoke.MethodType")
        self.StringArrayClass = jpype.JArray(jpype.JString)([]).getClass()
        self.ArrayList = jpype.JClass("java.util.ArrayList")
        self.ManagementFactory = jpype.JClass("java.lang.management.ManagementFactory")
        self.ObjectName = jpype.JClass("javax.management.ObjectName")
        self.ObjectArray = jpype.JArray(jpype.JObject)
        self.rmi_targets = self._rmi_targets()
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

    def _method_type(self, ret: Any, *params: Any) -> Any:
        return self.MethodType.methodType(ret, self.ClassArray(list(params)))

    def _tlc_entry(self, loader: Any) -> Any:
        """A method handle `(String[]) -> int` that runs one TLC inside `loader`.

        It does `t = new TLC(); if (!t.handleParameters(args)) return -1;
        t.setResolver(new SimpleFilenameToStream()); return t.process();` without any object of
        a TLC class reaching Python: JPype caches a wrapper type for the class of every object
        it sees, for the JVM's life, and that cache would keep each run's class loader, classes
        and TLC's static state alive (the heap filled up after a hundred or so runs).
        """
        mh = self.MethodHandles
        lookup = mh.publicLookup()

        def cls(name: str) -> Any:
            return self.Class.forName(name, True, loader)

        mtype = self._method_type
        tlc, args = cls("tlc2.TLC"), self.StringArrayClass
        resolver = cls("util.SimpleFilenameToStream")
        void, boolean, integer = self.Void.TYPE, self.Boolean.TYPE, self.Integer.TYPE
        new_tlc = lookup.findConstructor(tlc, mtype(void))
        handle_parameters = lookup.findVirtual(tlc, "handleParameters", mtype(boolean, args))
        files = cls("util.FilenameToStream")
        set_resolver = lookup.findVirtual(tlc, "setResolver", mtype(void, files))
        process = lookup.findVirtual(tlc, "process", mtype(integer))
        new_resolver = lookup.findConstructor(resolver, mtype(void)).asType(mtype(files))
        with_resolver = mh.collectArguments(set_resolver, 1, new_resolver)   # (TLC) void
        run = mh.foldArguments(process, with_resolver)                       # (TLC) int
        run = mh.dropArguments(run, 1, self.ClassArray([args]))              # (TLC, String[]) int
        refused = mh.dropArguments(mh.constant(integer, self.Integer.valueOf(-1)), 0,
                                   self.ClassArray([tlc, args]))
        checked = mh.guardWithTest(handle_parameters, run, refused)          # (TLC, String[]) int
        return mh.collectArguments(checked, 0, new_tlc)                      # (String[]) int

    def tlc(self, req: dict[str, Any]) -> dict[str, Any]:
        jpype = self.jpype
        self.System.setProperty("java.io.tmpdir", req["tmp"])
        saved = self._redirect(req["out"])
        loader = self.URLClassLoader(self.urls, None)
        try:
            tool_io = self.Class.forName("util.ToolIO", True, loader)
            tool_io.getMethod("setUserDir", self.ClassArray([self.String])).invoke(
                None, self.ObjectArray([jpype.JString(req["dir"])]))
            argv = jpype.JArray(jpype.JString)(req["args"])
            code = int(self._tlc_entry(loader).invokeWithArguments(self.ObjectArray([argv])))
            if code == -1:
                return {"rc": 1}
            status = self.Class.forName("tlc2.output.EC$ExitStatus", True, loader).getMethod(
                "errorConstantToExitStatus", self.ClassArray([self.Integer.TYPE]),
            ).invoke(None, self.ObjectArray([self.Integer.valueOf(code)]))
            return {"rc": int(status)}
        finally:
            self._restore(saved)
            self._release(loader)
            loader.close()

    def _release(self, loader: Any) -> None:
        """Drop what a finished TLC run left registered JVM-wide, so its loader can be collected.

        TLC registers management beans and exports its fingerprint sets over RMI and leaves both
        behind; either keeps the run's classes and tables alive.
        """
        jpype = self.jpype
        server = self.ManagementFactory.getPlatformMBeanServer()
        for name in server.queryNames(self.ObjectName("tlc2*:*"), None):
            with contextlib.suppress(jpype.JException):
                server.unregisterMBean(name)
        if self.rmi_targets is None:
            return
        table, lock, impl_class, unexport = self.rmi_targets
        with jpype.synchronized(lock):
            targets = list(self.ArrayList(table.values()))
        for target in targets:
            with contextlib.suppress(jpype.JException):
                owner = impl_class.invokeWithArguments(self.ObjectArray([target]))
                if loader.equals(owner.getClassLoader()):
                    unexport.invokeWithArguments(self.ObjectArray([target, jpype.JBoolean(True)]))

    def _rmi_targets(self) -> tuple[Any, Any, Any, Any] | None:
        """RMI's export table and handles to unexport an entry without Python seeing the object.

        Needs `--add-opens java.rmi/sun.rmi.transport`; without it, None: runs still work, and the
        parent's recycling and fresh-JVM re-run after an out-of-memory death remain.
        """
        jpype = self.jpype
        try:
            mh = self.MethodHandles
            lookup = mh.lookup()
            table_cls = self.Class.forName("sun.rmi.transport.ObjectTable")
            target_cls = self.Class.forName("sun.rmi.transport.Target")

            def field(name: str) -> Any:
                found = table_cls.getDeclaredField(name)
                found.setAccessible(True)
                return found.get(None)

            get_impl = target_cls.getDeclaredMethod("getImpl", self.ClassArray([]))
            get_impl.setAccessible(True)
            remote = self.Class.forName("java.rmi.Remote")
            obj = self.Class.forName("java.lang.Object")
            unexport = table_cls.getDeclaredMethod(
                "unexportObject", self.ClassArray([remote, self.Boolean.TYPE]))
            impl = lookup.unreflect(get_impl)                                    # (Target) Remote
            get_class = lookup.findVirtual(obj, "getClass", self._method_type(self.Class))
            impl_class = mh.filterReturnValue(impl.asType(self._method_type(obj, target_cls)),
                                              get_class)                         # (Target) Class
            drop = mh.collectArguments(lookup.unreflect(unexport), 0, impl)     # (Target, bool)
            return field("objTable"), field("tableLock"), impl_class, drop
        except jpype.JException:
            return None


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
