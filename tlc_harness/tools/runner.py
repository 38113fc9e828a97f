"""The harness: parse and model-check staged specs, in reusable JVM workers or fresh JVMs.

Every run gets its own temporary directory holding only the files it may see (the spec's own
files, plus the `tlc_harness/tools/library` modules it imports that neither they nor the jar have),
TLC's `-metadir` and `java.io.tmpdir` inside it, a wall-clock limit after which the JVM's
whole process is killed, and a capped heap. Results are frozen values; a spec's mistakes never raise.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any

from tlc_harness.source.cfg import ModelConfig, compat_for_legacy_tlc, format_cfg, parse_cfg
from tlc_harness.source.draws import drawn_operators
from tlc_harness.tools.cds import archive_for
from tlc_harness.tools.interpret import SANY_FINISHED, interpret_tlc
from tlc_harness.tools.library import ModuleLibrary, bundled_library
from tlc_harness.tools.pool import JvmPool, WorkerReply, WorkerUnavailable
from tlc_harness.tools.process import read_tail, run_process
from tlc_harness.tools.results import CheckResult, ParseResult, Verdict
from tlc_harness.tools.sany_output import read_sany_report
from tlc_harness.tools.spec import SpecSource
from tlc_harness.tools.toolchain import Toolchain, get_toolchain
from tlc_harness.tools.toolmsg import parse_tool_output

PARSE_TAIL = 20_000_000   # bytes of TLC output read for messages and traces
KEEP_OUTPUT = 100_000     # characters of raw output kept in a result
BACKENDS = ("auto", "pool", "fresh")


@dataclass(frozen=True)
class HarnessSettings:
    """Limits and choices for every run; overridable per call where it makes sense."""

    backend: str = "auto"
    tlc_timeout: float = 300.0
    sany_timeout: float = 60.0
    heap: str = "2g"
    workers: int = 1              # TLC -workers
    pool_size: int = 1            # JVM worker processes
    recycle_after: int = 150      # runs before a JVM worker is replaced
    keep_dirs: bool = False       # keep run directories (debugging)
    cds: bool = True              # class-data-sharing archive for fresh JVMs
    tlc_seed: int | None = 0      # TLC -seed: with tlc_fp, RandomElement & co. repeat
    tlc_fp: int | None = 0        # TLC -fp for specs that draw values (`source.draws`)
    tmp_root: str | None = None
    module_library: bool = True   # stage tlc_harness/tools/library modules the spec and jar lack


#: settings that never change a verdict (where and how the JVMs run)
UNDECIDING_SETTINGS = frozenset({"backend", "pool_size", "recycle_after", "keep_dirs", "cds",
                                 "tmp_root"})


def deciding_settings(settings: HarnessSettings) -> dict[str, Any]:
    """The settings that may change a run's verdict (time limits, heap, TLC's workers and
    seed, the module library), by name: what a cache of verdicts keys by."""
    return {f.name: getattr(settings, f.name) for f in fields(settings)
            if f.name not in UNDECIDING_SETTINGS}


class Harness:
    """Runs SANY and TLC for callers of this process; thread-safe; close() when done."""

    def __init__(self, toolchain: Toolchain | None = None, settings: HarnessSettings | None = None,
                 *, library: ModuleLibrary | None = None, **overrides: Any) -> None:
        self.toolchain = toolchain or get_toolchain()
        self.settings = replace(settings or HarnessSettings(), **overrides)
        if self.settings.backend not in BACKENDS:
            raise ValueError(f"backend must be one of {BACKENDS}, not {self.settings.backend!r}")
        _ = self.toolchain.java_version  # fail early and clearly on a Java that does not run
        # Modules the jar ships itself are never taken from the library.
        chosen = library if library is not None else bundled_library()
        self.module_library = (chosen.without(self.toolchain.standard_modules)
                               if self.settings.module_library else ModuleLibrary())
        self._pool: JvmPool | None = None
        self._pool_failed: str | None = None
        self._lock = threading.Lock()
        root = Path(self.settings.tmp_root or tempfile.gettempdir())
        self._log_dir = Path(tempfile.mkdtemp(prefix="alias-harness-", dir=root))

    # ------------------------------------------------------------------ lifecycle
    def close(self) -> None:
        """Stop JVM workers and remove the harness's scratch folder."""
        with self._lock:
            if self._pool is not None:
                self._pool.close()
                self._pool = None
        shutil.rmtree(self._log_dir, ignore_errors=True)

    def __enter__(self) -> Harness:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def backend_in_use(self) -> str:
        if self.settings.backend == "fresh" or self._pool_failed:
            return "fresh"
        return "pool" if self.toolchain.libjvm is not None else "fresh"

    def _get_pool(self) -> JvmPool | None:
        if self.backend_in_use == "fresh":
            return None
        with self._lock:
            if self._pool is None:
                self._pool = JvmPool(self._worker_config(), size=self.settings.pool_size,
                                     recycle_after=self.settings.recycle_after,
                                     log_dir=self._log_dir)
            return self._pool

    def _worker_config(self) -> dict[str, Any]:
        return {"libjvm": str(self.toolchain.libjvm), "jar": str(self.toolchain.jar),
                "jvm_args": self._jvm_flags(tlc=True, for_pool=True)}

    def _jvm_flags(self, *, tlc: bool, for_pool: bool = False) -> list[str]:
        flags = [f"-Xmx{self.settings.heap}", "-XX:+ExitOnOutOfMemoryError",
                 "-Djava.rmi.server.hostname=127.0.0.1", "-Dfile.encoding=UTF-8",
                 "-Dutil.ExecutionStatisticsCollector.id=off"]
        flags.append("-XX:+UseParallelGC" if tlc else "-XX:+UseSerialGC")
        if not tlc:
            flags.append("-XX:TieredStopAtLevel=1")
        major = self.toolchain.java_major
        if for_pool and major >= 22:
            flags.append("--enable-native-access=ALL-UNNAMED")
        if for_pool and major >= 9:  # lets the worker unexport what each TLC run leaves in RMI
            flags.append("--add-opens=java.rmi/sun.rmi.transport=ALL-UNNAMED")
        if not for_pool and self.settings.cds and major >= 11:
            archive = archive_for(self.toolchain)
            if archive is not None:
                flags += [f"-XX:SharedArchiveFile={archive}", "-Xshare:auto", "-Xlog:cds=off"]
        return flags

    # ------------------------------------------------------------------ staging
    def library_files(self, spec: SpecSource) -> dict[str, str]:
        """Library modules a run of `spec` gets: those it imports that neither its own files
        nor the jar have (file name -> text)."""
        return self.module_library.needed_by(spec.main, spec.files)

    @contextlib.contextmanager
    def _run_dir(self, spec: SpecSource, cfg_text: str | None = None,
                 library: Mapping[str, str] | None = None) -> Iterator[Path]:
        root = Path(self.settings.tmp_root or tempfile.gettempdir())
        run = Path(tempfile.mkdtemp(prefix="alias-run-", dir=root))
        try:
            (run / "tmp").mkdir()
            for name, text in {**(library or {}), **spec.files}.items():
                (run / name).write_text(text, encoding="utf-8")
            if cfg_text is not None:
                (run / f"{spec.main}.cfg").write_text(cfg_text, encoding="utf-8")
            yield run
        finally:
            if not self.settings.keep_dirs:
                shutil.rmtree(run, ignore_errors=True)

    def _java_env(self) -> dict[str, str]:
        drop = {"JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "JDK_JAVA_OPTIONS", "CLASSPATH"}
        return {k: v for k, v in os.environ.items() if k not in drop}

    def _pool_call(self, request: dict[str, Any], timeout: float) -> WorkerReply | None:
        """Run in a pooled JVM; None means the pool is unusable and a fresh JVM must be used."""
        pool = self._get_pool()
        if pool is None:
            return None
        try:
            return pool.call(request, timeout)
        except WorkerUnavailable as exc:
            self._pool_failed = str(exc)
            return None

    # ------------------------------------------------------------------ SANY
    def parse(self, spec: SpecSource | str | Path, *, timeout: float | None = None) -> ParseResult:
        """Parse the main module with SANY; semantic errors count as failure."""
        spec = _as_spec(spec)
        limit = timeout or self.settings.sany_timeout
        library = self.library_files(spec)
        used = tuple(name[:-4] for name in library)
        with self._run_dir(spec, library=library) as run:
            file = f"{spec.main}.tla"
            out = run / "sany.out"
            request = {"op": "sany", "dir": str(run), "file": file, "out": str(out),
                       "tmp": str(run / "tmp")}
            reply = self._pool_call(request, limit)
            if reply is not None and not reply.died:
                text, _ = read_tail(out, PARSE_TAIL)
                if reply.timed_out:
                    return _parse_result(spec.main, None, text, reply.seconds, "pool",
                                         infra=f"SANY did not finish within {limit:g} s",
                                         library=used)
                answer = reply.answer or {}
                errors = list(answer.get("errors") or [])
                rc = answer.get("rc")
                result = _parse_result(spec.main, rc, text, reply.seconds, "pool",
                                       extra_errors=errors, library=used)
                if answer.get("error") is None:
                    return result
            argv = [str(self.toolchain.java), *self._jvm_flags(tlc=False),
                    f"-Djava.io.tmpdir={run / 'tmp'}", "-cp", str(self.toolchain.jar),
                    "tla2sany.SANY", file]
            proc = run_process(argv, cwd=run, timeout=limit, env=self._java_env(),
                               log_name="sany.out", tail=PARSE_TAIL)
            infra = proc.error or (f"SANY did not finish within {limit:g} s"
                                   if proc.timed_out else None)
            return _parse_result(spec.main, proc.exit_code, proc.output, proc.seconds, "fresh",
                                 infra=infra, library=used)

    # ------------------------------------------------------------------ TLC
    def check(
        self,
        spec: SpecSource | str | Path,
        cfg: ModelConfig | str | Path | None = None,
        *,
        tlc_args: Sequence[str] = (),
        timeout: float | None = None,
        workers: int | None = None,
        compat: bool | None = None,
        read_graph: Callable[[Path], Any] | None = None,
    ) -> CheckResult:
        """Model-check the main module with `cfg` (default: `<Main>.cfg` beside a path).

        With `read_graph`, TLC also dumps the reachable graph (`-dump dot,actionlabels`) in the
        run's folder, and what `read_graph(path)` returns for a finished run is kept in
        `extras["graph"]` (the dump is read before the folder goes)."""
        path_cfg = Path(spec).with_suffix(".cfg") if isinstance(spec, (str, Path)) else None
        spec = _as_spec(spec)
        model = _as_cfg(cfg if cfg is not None else path_cfg)
        notes: list[str] = []
        args = list(tlc_args)
        if compat if compat is not None else self.toolchain.legacy_cfg:
            fixed = compat_for_legacy_tlc(model)
            model = fixed.cfg
            args = [*fixed.tlc_args, *[a for a in args if a not in fixed.tlc_args]]
            notes.extend(fixed.notes)
        limit = timeout or self.settings.tlc_timeout
        library = self.library_files(spec)
        used = tuple(name[:-4] for name in library)
        with self._run_dir(spec, format_cfg(model), library) as run:
            out = run / "tlc.out"
            seed = ([] if self.settings.tlc_seed is None or "-seed" in args
                    else ["-seed", str(self.settings.tlc_seed)])
            seed += self._fingerprint_args(spec, library, args, notes)
            dump = run / "alias-graph.dot"
            dump_args = ["-dump", "dot,actionlabels", str(dump)] if read_graph else []
            argv = ["-tool", "-metadir", str(run / "meta"),
                    "-workers", str(workers or self.settings.workers), *seed,
                    *dump_args, *args, "-config", f"{spec.main}.cfg", f"{spec.main}.tla"]
            request = {"op": "tlc", "dir": str(run), "args": argv, "out": str(out),
                       "tmp": str(run / "tmp")}
            reply = self._pool_call(request, limit)
            if reply is not None and reply.died:
                # Exit 3 is the worker's heap running out (-XX:+ExitOnOutOfMemoryError); the
                # fresh JVM, with a heap of its own, decides whether the spec itself is too big.
                notes.append(f"JVM worker died (exit {reply.exit_code}); re-ran in a fresh JVM")
                reply = None
            if reply is not None:
                answer = reply.answer or {}
                if answer.get("error"):
                    notes.append(f"JVM worker error: {answer['error']}")
                result = self._interpret(out, answer.get("rc"), reply.seconds,
                                         reply.timed_out, model, args, "pool", notes, used)
                if not (reply.timed_out and SANY_FINISHED not in result.message_codes):
                    return _with_graph(result, dump, read_graph)
                # parsing takes seconds, not the whole time limit: the worker stalled, not
                # the spec; a fresh JVM decides
                notes.append(f"JVM worker stalled before SANY finished ({reply.seconds:.0f} s);"
                             " re-ran in a fresh JVM")
            with contextlib.suppress(FileNotFoundError):
                out.unlink()
            shutil.rmtree(run / "meta", ignore_errors=True)
            java = [str(self.toolchain.java), *self._jvm_flags(tlc=True),
                    f"-Djava.io.tmpdir={run / 'tmp'}", "-cp", str(self.toolchain.jar), "tlc2.TLC"]
            proc = run_process([*java, *argv], cwd=run, timeout=limit, env=self._java_env(),
                               log_name="tlc.out", tail=PARSE_TAIL)
            if proc.error:
                return CheckResult(Verdict.INFRA_ERROR, None, proc.seconds, detail=proc.error,
                                   notes=tuple(notes), tlc_args=tuple(args), backend="fresh",
                                   library_modules=used)
            result = self._interpret(out, proc.exit_code, proc.seconds, proc.timed_out, model,
                                     args, "fresh", notes, used)
            return _with_graph(result, dump, read_graph)

    def _fingerprint_args(self, spec: SpecSource, library: Mapping[str, str],
                          args: Sequence[str], notes: list[str]) -> list[str]:
        """`-fp N` for a spec that draws values: TLC seeds its draws with `-seed` and the
        fingerprint of the state, whose polynomial it otherwise picks at random per run."""
        fp = self.settings.tlc_fp
        if fp is None or "-fp" in args:
            return []
        drawn = drawn_operators({**library, **spec.files})
        if not drawn:
            return []
        notes.append(f"the spec draws values ({', '.join(drawn)}): TLC's fingerprint "
                     f"polynomial fixed (-fp {fp}), so that its draws repeat from run to run")
        return ["-fp", str(fp)]

    def _interpret(self, out: Path, rc: int | None, seconds: float, timed_out: bool,
                   model: ModelConfig, args: Sequence[str], backend: str,
                   notes: list[str], library: tuple[str, ...] = ()) -> CheckResult:
        text, _ = read_tail(out, PARSE_TAIL)
        result = interpret_tlc(
            rc, text[-KEEP_OUTPUT:], parse_tool_output(text), seconds=seconds,
            timed_out=timed_out, invariants=model.invariants, properties=model.properties,
            known_names=list(model.referenced_names()),
        )
        return replace(result, notes=tuple(notes), tlc_args=tuple(args), backend=backend,
                       partial=timed_out, library_modules=library)


def _with_graph(result: CheckResult, dump: Path, read_graph: Callable[[Path], Any] | None
                ) -> CheckResult:
    """The result with the dumped graph read, for a run that finished and wrote one."""
    if read_graph is None or result.partial or not dump.is_file():
        return result
    return replace(result, extras={**result.extras, "graph": read_graph(dump)})


def _parse_result(module: str, rc: int | None, text: str, seconds: float, backend: str, *,
                  infra: str | None = None, extra_errors: Sequence[str] = (),
                  library: tuple[str, ...] = ()) -> ParseResult:
    errors, warnings = read_sany_report(text)
    for err in extra_errors:
        flat = " ".join(err.split())
        if flat and flat not in errors:
            errors.append(flat)
    if infra:
        errors.append(infra)
    if rc is not None and rc < 0:
        rc &= 0xFF  # the in-process driver's -1 is the 255 a fresh SANY exits with
    ok = infra is None and rc == 0 and not errors
    return ParseResult(ok=ok, module=module, errors=tuple(errors), warnings=tuple(warnings),
                       exit_code=rc, seconds=seconds, output=text[-KEEP_OUTPUT:],
                       infra_error=infra, backend=backend, library_modules=library)


def _as_spec(spec: SpecSource | str | Path) -> SpecSource:
    return spec if isinstance(spec, SpecSource) else SpecSource.from_path(spec)


def _as_cfg(cfg: ModelConfig | str | Path | None) -> ModelConfig:
    if isinstance(cfg, ModelConfig):
        return cfg
    if cfg is None:
        raise ValueError("a cfg is needed to model-check (none given, none beside the module)")
    path = Path(cfg)
    if not path.is_file():
        raise FileNotFoundError(f"cfg file {path} does not exist")
    return parse_cfg(path.read_text(encoding="utf-8", errors="replace"))
