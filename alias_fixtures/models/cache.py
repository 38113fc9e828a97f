"""A generation cache in sqlite, shared safely by several processes (pytest-xdist workers).

The key is the sha256 of (provider, model id, rendered prompt, system prompt, sampling parameters,
sample index): the task and condition names are not part of it, the text the model sees is.
Writers use WAL mode, a busy timeout and one short `INSERT OR IGNORE` each, so the first answer
stored for a key wins and concurrent writers neither block for long nor corrupt the file.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any, Self

from alias_fixtures.models.registry import (
    ChatMessage,
    Generation,
    GenerationParams,
    GenerationRequest,
    ModelAdapter,
    provider_of,
)

SCHEMA_VERSION = 1
BUSY_TIMEOUT = 60.0
_SCHEMA = """CREATE TABLE IF NOT EXISTS generations (
    key TEXT PRIMARY KEY,
    generation TEXT NOT NULL,
    created REAL NOT NULL
)"""


def generation_key(provider: str, model_id: str, prompt: str, system: str | None,
                   params: GenerationParams, sample: int,
                   history: tuple[ChatMessage, ...] = ()) -> str:
    """The cache key: a sha256 hex digest of the fields that decide what a model returns
    (a first turn's key has no history field, so it is a one-shot run's key)."""
    fields: dict[str, Any] = {"provider": provider, "model": model_id, "prompt": prompt,
                              "system": system, "params": params.key(), "sample": sample,
                              "schema": SCHEMA_VERSION}
    if history:
        fields["history"] = [[m.role, m.content] for m in history]
    blob = json.dumps(fields, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def request_key(adapter: ModelAdapter, request: GenerationRequest) -> str:
    """`generation_key` for one request to one adapter."""
    return generation_key(adapter.provider, adapter.model_id, request.prompt, request.system,
                          request.params, request.sample, request.history)


class GenerationCache:
    """Successful generations by key, in one sqlite file; a connection per process, thread-safe."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()
        self._conn: sqlite3.Connection | None = None
        self._pid = 0

    def _connection(self) -> sqlite3.Connection:
        """The open connection, (re)opened after a fork; callers hold the lock."""
        if self._conn is None or self._pid != os.getpid():
            self.path.parent.mkdir(parents=True, exist_ok=True)
            conn = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT, isolation_level=None,
                                   check_same_thread=False)
            conn.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT * 1000)}")
            conn.execute("PRAGMA journal_mode = WAL")
            conn.execute("PRAGMA synchronous = NORMAL")
            conn.execute(_SCHEMA)
            self._conn, self._pid = conn, os.getpid()
        return self._conn

    def get(self, key: str) -> Generation | None:
        """The stored generation (with `cached=True`), or None."""
        with self._lock:
            row = self._connection().execute(
                "SELECT generation FROM generations WHERE key = ?", (key,)).fetchone()
        if row is None:
            return None
        data: dict[str, Any] = json.loads(row[0])
        names = {f.name for f in dataclasses.fields(Generation)}
        stored = {name: value for name, value in data.items() if name in names}
        return dataclasses.replace(Generation(**stored), cached=True)

    def put(self, key: str, generation: Generation) -> bool:
        """Store a generation unless the key is already present; True if this call stored it."""
        data = dataclasses.asdict(generation)
        data["cached"] = False
        blob = json.dumps(data, ensure_ascii=False, sort_keys=True)
        with self._lock:
            cursor = self._connection().execute(
                "INSERT OR IGNORE INTO generations (key, generation, created) VALUES (?, ?, ?)",
                (key, blob, time.time()))
            return cursor.rowcount == 1

    def __len__(self) -> int:
        with self._lock:
            row = self._connection().execute("SELECT COUNT(*) FROM generations").fetchone()
        return int(row[0])

    def close(self) -> None:
        """Close this process's connection (a later call reopens it)."""
        with self._lock:
            if self._conn is not None and self._pid == os.getpid():
                self._conn.close()
            self._conn = None

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


class CachedModel:
    """An adapter that answers from the cache when it can and stores what the inner one returns.

    Concurrent requests with one key in one process wait for each other, so the inner adapter
    is called once per key; errors propagate and are never cached.
    """

    def __init__(self, adapter: ModelAdapter, cache: GenerationCache) -> None:
        self.adapter = adapter
        self.cache = cache
        self.provider = adapter.provider
        self.model_id = adapter.model_id
        self._locks: dict[str, threading.Lock] = {}
        self._guard = threading.Lock()

    def close(self) -> None:
        """Close the cache and, if it can be closed, the inner adapter."""
        self.cache.close()
        closer = getattr(self.adapter, "close", None)
        if callable(closer):
            closer()

    def _key_lock(self, key: str) -> threading.Lock:
        with self._guard:
            return self._locks.setdefault(key, threading.Lock())

    def generate(self, request: GenerationRequest) -> Generation:
        """The cached generation for the request, else a fresh one (then stored)."""
        key = request_key(self.adapter, request)
        with self._key_lock(key):
            hit = self.cache.get(key)
            if hit is not None:
                return hit
            generation = self.adapter.generate(request)
            self.cache.put(key, generation)
            return generation


def cached_if_remote(adapter: ModelAdapter, out: Path) -> ModelAdapter:
    """``adapter`` behind the cache in ``<out>/cache/generations.sqlite`` if its provider's
    record says it calls an API (`Provider.remote`)."""
    if not provider_of(adapter).remote:
        return adapter
    return CachedModel(adapter, GenerationCache(out / "cache" / "generations.sqlite"))
