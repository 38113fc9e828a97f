"""The sqlite generation cache and the caching adapter (a scripted model; no network)."""

from __future__ import annotations

import multiprocessing
import multiprocessing.synchronize
import sqlite3
import threading
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from alias_fixtures.models.cache import CachedModel, GenerationCache, generation_key, request_key
from alias_fixtures.models.registry import (
    Generation,
    GenerationParams,
    GenerationRequest,
    ModelAdapter,
    ModelError,
)

WRITERS = 4
PER_WRITER = 150
SHARED = 30


class CountingModel:
    """A deterministic double: echoes the prompt, counts calls, can fail first."""

    provider = "scripted"
    model_id = "echo-1"

    def __init__(self, failures: int = 0, delay: float = 0.0) -> None:
        self.calls = 0
        self.failures = failures
        self.delay = delay
        self._lock = threading.Lock()

    def generate(self, request: GenerationRequest) -> Generation:
        with self._lock:
            self.calls += 1
            fail = self.calls <= self.failures
        time.sleep(self.delay)
        if fail:
            raise ModelError("scripted failure")
        return Generation(f"{request.prompt}#{request.sample}", self.model_id, "stop",
                          input_tokens=3, output_tokens=2, seconds=0.5)


def request(prompt: str = "spec please", sample: int = 0, **params: Any) -> GenerationRequest:
    return GenerationRequest("task", "plain", sample, prompt, None, GenerationParams(**params))


@pytest.fixture
def cache(tmp_path: Path) -> Iterator[GenerationCache]:
    with GenerationCache(tmp_path / "cache" / "generations.sqlite") as opened:
        yield opened


GEN = Generation("---- MODULE M ----\n∀ x ∈ S : x\n====", "claude-test", "max_tokens", truncated=True,
                 input_tokens=None, output_tokens=4096, seconds=12.5)


def test_miss_then_hit(cache: GenerationCache) -> None:
    key = generation_key("anthropic", "claude-test", "prompt", None, GenerationParams(), 0)
    assert cache.get(key) is None
    assert cache.put(key, GEN)
    assert cache.get(key) == replace(GEN, cached=True)
    assert not cache.put(key, replace(GEN, text="a later answer"))
    assert cache.get(key) == replace(GEN, cached=True)
    assert len(cache) == 1


def test_entries_survive_reopening(cache: GenerationCache) -> None:
    cache.put("k", GEN)
    cache.close()
    with GenerationCache(cache.path) as again:
        assert again.get("k") == replace(GEN, cached=True)
        mode = sqlite3.connect(again.path)
        try:
            assert mode.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        finally:
            mode.close()


BASE: dict[str, Any] = {"provider": "openai", "model_id": "gpt-test", "prompt": "Write M.",
                        "system": None, "params": GenerationParams(), "sample": 0}
CHANGES: dict[str, dict[str, Any]] = {
    "provider": {"provider": "anthropic"},
    "model": {"model_id": "gpt-test?sampling=none"},
    "prompt": {"prompt": "Write M!"},
    "system": {"system": ""},
    "temperature": {"params": GenerationParams(temperature=0.0)},
    "top_p": {"params": GenerationParams(top_p=1.0)},
    "max_tokens": {"params": GenerationParams(max_tokens=100)},
    "seed": {"params": GenerationParams(seed=1)},
    "sample": {"sample": 1},
}


def key(**changes: Any) -> str:
    return generation_key(**{**BASE, **changes})


@pytest.mark.parametrize("field", sorted(CHANGES))
def test_key_changes_with_each_field(field: str) -> None:
    assert key(**CHANGES[field]) != key()


def test_key_is_stable_and_ignores_retries_and_timeout() -> None:
    assert len(key()) == 64
    assert int(key(), 16) >= 0
    assert key() == key()
    assert key(params=GenerationParams(retries=0, timeout=5.0)) == key()


def _writer(path: str, worker: int, start: multiprocessing.synchronize.Event) -> None:
    """Write own and shared keys as fast as possible, reading each back."""
    start.wait(30)
    with GenerationCache(path) as cache:
        for i in range(PER_WRITER):
            key = f"w{worker}-{i}"
            cache.put(key, Generation(f"text {worker} {i}", "m", "stop"))
            got = cache.get(key)
            assert got is not None
            assert got.text == f"text {worker} {i}"
            if i < SHARED:
                cache.put(f"shared-{i}", Generation(f"from {worker}", "m", "stop"))


def test_concurrent_writers_from_processes(tmp_path: Path) -> None:
    path = str(tmp_path / "shared.sqlite")
    context = multiprocessing.get_context("spawn")
    start = context.Event()
    workers = [context.Process(target=_writer, args=(path, n, start)) for n in range(WRITERS)]
    for process in workers:
        process.start()
    start.set()
    for process in workers:
        process.join(120)
    codes = [process.exitcode for process in workers]
    for process in workers:
        process.close()
    assert codes == [0] * WRITERS
    with GenerationCache(path) as cache:
        assert len(cache) == WRITERS * PER_WRITER + SHARED
        for worker in range(WRITERS):
            for i in range(PER_WRITER):
                got = cache.get(f"w{worker}-{i}")
                assert got is not None
                assert got.text == f"text {worker} {i}"
        for i in range(SHARED):
            shared = cache.get(f"shared-{i}")
            assert shared is not None
            assert shared.text in {f"from {n}" for n in range(WRITERS)}
    check = sqlite3.connect(path)
    try:
        assert check.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    finally:
        check.close()


def test_cached_model_calls_the_adapter_once_per_key(cache: GenerationCache) -> None:
    inner = CountingModel()
    model: ModelAdapter = CachedModel(inner, cache)
    assert (model.provider, model.model_id) == ("scripted", "echo-1")
    first = model.generate(request())
    again = model.generate(request())
    assert inner.calls == 1
    assert (first.cached, again.cached) == (False, True)
    assert replace(again, cached=False) == first
    model.generate(request(sample=1))
    model.generate(request(temperature=0.0))
    assert inner.calls == 3
    assert cache.get(request_key(inner, request(sample=1))) is not None


class ClosableModel(CountingModel):
    closed = False

    def close(self) -> None:
        self.closed = True


def test_cached_model_closes_both(cache: GenerationCache) -> None:
    inner = ClosableModel()
    model = CachedModel(inner, cache)
    model.generate(request())
    model.close()
    assert inner.closed
    assert model.generate(request()).cached  # the cache reopens on use


def test_cached_model_shares_answers_between_instances(cache: GenerationCache) -> None:
    CachedModel(CountingModel(), cache).generate(request())
    later = CountingModel()
    with GenerationCache(cache.path) as reopened:
        assert CachedModel(later, reopened).generate(request()).cached
    assert later.calls == 0


def test_cached_model_does_not_cache_errors(cache: GenerationCache) -> None:
    inner = CountingModel(failures=1)
    model = CachedModel(inner, cache)
    with pytest.raises(ModelError, match="scripted failure"):
        model.generate(request())
    assert len(cache) == 0
    assert model.generate(request()).text == "spec please#0"
    assert model.generate(request()).cached
    assert inner.calls == 2


def test_cached_model_concurrent_requests_call_once(cache: GenerationCache) -> None:
    inner = CountingModel(delay=0.05)
    model = CachedModel(inner, cache)
    results: list[Generation] = []
    threads = [threading.Thread(target=lambda: results.append(model.generate(request())))
               for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert inner.calls == 1
    assert len(results) == 8
    assert sum(not result.cached for result in results) == 1
