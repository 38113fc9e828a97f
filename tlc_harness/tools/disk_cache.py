"""The cache on disk of work that depends only on a task: one root, atomic writes, key locks.

The root is `$XDG_CACHE_HOME/alias` (else `~/.cache/alias`) unless the caller names another;
each kind of entry has its own folder under it (`graphs`, `references`). Entries are keyed by
a hash of everything that decides them, so processes and machines may share a root: a write
goes to a temporary file in the entry's folder and is renamed over the entry, and a process
computing a missing entry holds a lock on its key while it does, so another process asking for
the same key waits and then reads it. An entry that cannot be read is treated as missing; a
folder that cannot be written only means nothing is kept.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import tempfile
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any, TypeVar

ROOT_NAME = "alias"
T = TypeVar("T")


def default_root() -> Path:
    """`$XDG_CACHE_HOME/alias`, else `~/.cache/alias`."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / ROOT_NAME


def cache_root(root: str | Path | None = None) -> Path:
    """`root` when given, else the default root."""
    return Path(root) if root else default_root()


def source_digest(root: Path, suffixes: tuple[str, ...] = (".py", ".tla")) -> str:
    """A sha256 of the files under `root` with these suffixes: each one's path below `root`
    and its bytes, in sorted order (what keys an entry by the code that decided it)."""
    digest = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*") if p.suffix in suffixes):
        digest.update(path.relative_to(root).as_posix().encode() + b"\0")
        digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()


def atomic_write(path: Path, data: bytes) -> None:
    """Write `data` to `path` through a temporary file in the same folder, renamed over it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        os.fchmod(fd, 0o644)  # readable by whoever shares the root (mkstemp makes it private)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        Path(tmp).replace(path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


@contextlib.contextmanager
def key_lock(folder: Path, key: str) -> Iterator[bool]:
    """Hold the lock of `key` in `folder` (other processes and threads wait for it); yields
    False, holding nothing, when there is no lock to take (a folder only read, a file system
    without locks)."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        # read-only: another user's lock file can be locked too
        fd = os.open(folder / f".{key}.lock", os.O_RDONLY | os.O_CREAT, 0o666)
    except OSError:
        yield False
        return
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
        except OSError:
            yield False
            return
        try:
            yield True
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


class JsonStore:
    """Entries of one kind: `<folder>/<key>.json`, each a JSON object."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def path(self, key: str) -> Path:
        return self.folder / f"{key}.json"

    def read(self, key: str) -> dict[str, Any] | None:
        """The entry, or None when it is missing or cannot be read."""
        try:
            data = json.loads(self.path(key).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        return data if isinstance(data, dict) else None

    def write(self, key: str, data: Mapping[str, Any]) -> bool:
        """Store the entry; False when the folder cannot be written."""
        try:
            atomic_write(self.path(key), json.dumps(data, sort_keys=True).encode())
        except OSError:
            return False
        return True

    def get_or_compute(self, key: str, compute: Callable[[], T], *,
                       dump: Callable[[T], Mapping[str, Any]],
                       load: Callable[[dict[str, Any]], T],
                       keep: Callable[[T], bool] = lambda _: True) -> T:
        """The stored value of `key`, else `compute()`, stored when `keep` says so. One process
        computes a missing key at a time; an entry `load` rejects (raising `KeyError`,
        `TypeError` or `ValueError`) is computed again and rewritten."""
        hit = self._load(key, load)
        if hit is not None:
            return hit[0]
        with key_lock(self.folder, key):
            hit = self._load(key, load)  # computed by another process while this one waited
            if hit is not None:
                return hit[0]
            value = compute()
            if keep(value):
                self.write(key, dump(value))
            return value

    def _load(self, key: str, load: Callable[[dict[str, Any]], T]) -> tuple[T] | None:
        data = self.read(key)
        if data is None:
            return None
        try:
            return (load(data),)
        except (KeyError, TypeError, ValueError):
            return None


def folder_usage(folder: Path) -> tuple[int, int]:
    """(entries, bytes) under `folder`: entries are files not named with a leading dot (those
    are locks and unfinished writes), bytes count every file."""
    entries = size = 0
    for path in folder.rglob("*") if folder.is_dir() else [folder]:
        try:
            if path.is_file():
                size += path.stat().st_size
                entries += not path.name.startswith(".")
        except OSError:  # removed meanwhile by another process
            continue
    return entries, size
