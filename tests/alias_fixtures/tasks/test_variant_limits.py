"""A variant's verification that hits a time or memory limit is stored, under the harness's
limits: read back without TLC under the same limits, made again under larger ones. One that
ends in an infrastructure error is never stored."""

from __future__ import annotations

import json
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from alias_fixtures.tasks.task import builtin_tasks
from alias_fixtures.tasks.variants import VariantStore, Verification, build_variant, build_variants
from tlc_harness.tools.results import CheckResult, ParseResult, Verdict
from tlc_harness.tools.runner import Harness, HarnessSettings

TASK = {t.id: t for t in builtin_tasks()}["up_down_counter"]
STATES = 24


class FakeHarness:
    """SANY and TLC stand-ins: the original passes with `STATES` states, the renamed task's
    run ends with `renamed` (and SANY with `parse_infra` as its infrastructure error)."""

    def __init__(self, renamed: Verdict, *, tlc_timeout: float = 60.0,
                 original: Verdict = Verdict.OK, parse_infra: str | None = None) -> None:
        self.settings = HarnessSettings(tlc_timeout=tlc_timeout)
        self.renamed, self.original, self.parse_infra = renamed, original, parse_infra
        self.calls: list[str] = []

    def parse(self, spec: Any, **_: Any) -> ParseResult:
        self.calls.append("sany")
        errors = (self.parse_infra,) if self.parse_infra else ()
        return ParseResult(not errors, spec.main, errors, (), 0, 0.1, "",
                           infra_error=self.parse_infra)

    def check(self, spec: Any, cfg: Any = None, **_: Any) -> CheckResult:
        self.calls.append("tlc")
        verdict = self.original if spec.main == TASK.main_module else self.renamed
        states = STATES if verdict is Verdict.OK else None
        return CheckResult(verdict, 0, 0.2, distinct_states=states,
                           partial=verdict is Verdict.TIMEOUT)


def _build(harness: Any, store: VariantStore, condition: str = "random"
           ) -> tuple[Any, Verification]:
    return build_variant(harness, TASK, condition, seed=3, store=store)


def _entries(store: VariantStore) -> list[str]:
    return sorted(p.name for p in store.folder.glob("*.json")) if store.folder.is_dir() else []


@pytest.mark.parametrize("limit", [Verdict.TIMEOUT, Verdict.RESOURCE_LIMIT])
def test_a_verification_that_hits_a_limit_is_read_back_without_tlc(tmp_path: Path,
                                                                   limit: Verdict) -> None:
    store = VariantStore(tmp_path, jar_sha256="a" * 64)
    first = FakeHarness(limit)
    variant, check = _build(first, store)
    assert variant is not None and not check.verified and check.limited
    assert check.limit == limit.value and first.calls == ["tlc", "sany", "tlc"]
    assert [name.startswith("limit-") for name in _entries(store)] == [True]
    again = FakeHarness(limit)
    variant2, check2 = _build(again, store)
    assert again.calls == []  # no SANY, no TLC
    assert (variant2, check2) == (variant, check)


def test_a_larger_limit_verifies_again(tmp_path: Path) -> None:
    store = VariantStore(tmp_path)
    _build(FakeHarness(Verdict.TIMEOUT, tlc_timeout=60.0), store)
    larger = FakeHarness(Verdict.OK, tlc_timeout=600.0)
    variant, check = _build(larger, store)
    assert larger.calls == ["tlc", "sany", "tlc"] and check.verified
    # the verified variant is stored as such, whatever the limits: any limit reads it
    smaller = FakeHarness(Verdict.TIMEOUT, tlc_timeout=60.0)
    assert _build(smaller, store) == (variant, check) and smaller.calls == []
    assert len(_entries(store)) == 2


def test_another_heap_is_another_limit(tmp_path: Path) -> None:
    store = VariantStore(tmp_path)
    _build(FakeHarness(Verdict.RESOURCE_LIMIT), store)
    bigger = FakeHarness(Verdict.OK)
    bigger.settings = replace(bigger.settings, heap="8g")
    assert _build(bigger, store)[1].verified and bigger.calls


def test_a_limit_of_the_original_run_is_stored_too(tmp_path: Path) -> None:
    store = VariantStore(tmp_path)
    check = _build(FakeHarness(Verdict.OK, original=Verdict.TIMEOUT), store, "original")[1]
    assert check.limited and check.limit == "timeout"
    again = FakeHarness(Verdict.OK, original=Verdict.OK)
    assert _build(again, store, "original")[1] == check and again.calls == []


@pytest.mark.parametrize("harness", [FakeHarness(Verdict.INFRA_ERROR),
                                     FakeHarness(Verdict.OK, parse_infra="SANY did not finish")],
                         ids=["tlc", "sany"])
def test_an_infrastructure_error_is_never_stored(tmp_path: Path, harness: FakeHarness) -> None:
    store = VariantStore(tmp_path)
    check = _build(harness, store)[1]
    assert check.limited and check.limit == "infra_error" and not check.verified
    assert _entries(store) == []
    harness.calls.clear()
    _build(harness, store)
    assert harness.calls  # made again


def test_an_old_entry_without_a_limit_still_reads(tmp_path: Path) -> None:
    store = VariantStore(tmp_path)
    variant, check = _build(FakeHarness(Verdict.OK), store)
    path = tmp_path / _entries(store)[0]
    data = json.loads(path.read_text())
    del data["verification"]["limit"]  # as entries were written before it
    path.write_text(json.dumps(data))
    assert _build(FakeHarness(Verdict.OK), store) == (variant, check)


@pytest.mark.tlc
def test_a_real_run_that_hits_a_tiny_limit_is_stored(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    store = VariantStore(tmp_path / "variants")
    with Harness(backend="fresh", tlc_timeout=0.05, tmp_root=str(tmp_path)) as tiny:
        variant, check = _build(tiny, store, "original")
        assert variant is not None and check.limited and check.limit == "timeout"
        runs: list[Any] = []
        monkeypatch.setattr(tiny, "check", lambda *a, **k: runs.append(a))
        assert _build(tiny, store, "original") == (variant, check) and runs == []


class SlowHarness(FakeHarness):
    """A harness whose TLC runs take a while, so that concurrent builds overlap."""

    def check(self, spec: Any, cfg: Any = None, **kw: Any) -> CheckResult:
        time.sleep(0.3)
        return super().check(spec, cfg, **kw)


@pytest.mark.parametrize("limit", [Verdict.OK, Verdict.TIMEOUT])
def test_concurrent_builds_of_one_variant_verify_it_once(tmp_path: Path, limit: Verdict) -> None:
    """Workers grading outputs of the same task at once: one verifies, the others read its
    entry (a variant at its time limit is paid once too)."""
    store = VariantStore(tmp_path)
    harnesses = [SlowHarness(limit) for _ in range(4)]
    with ThreadPoolExecutor(len(harnesses)) as pool:
        built = list(pool.map(lambda h: _build(h, store), harnesses))
    assert sorted(len(h.calls) for h in harnesses) == [0, 0, 0, 3]
    assert all(b == built[0] for b in built)


class CountingHarness(SlowHarness):
    """Counts the original task's own TLC runs, from several threads."""

    def __init__(self) -> None:
        super().__init__(Verdict.OK)
        self.lock = threading.Lock()
        self.originals = 0

    def check(self, spec: Any, cfg: Any = None, **kw: Any) -> CheckResult:
        if spec.main == TASK.main_module:
            with self.lock:
                self.originals += 1
        return super().check(spec, cfg, **kw)


@pytest.mark.parametrize("jobs", [1, 3])
def test_a_tasks_own_run_is_made_once_for_all_its_conditions(tmp_path: Path, jobs: int) -> None:
    """Each renamed variant is compared with the original's run: one run serves them all,
    whether the variants are verified one after another or at once."""
    harness = CountingHarness()
    pairs = [(TASK.id, c) for c in ("original", "random")]
    built = build_variants(harness, {TASK.id: TASK}, pairs, seed=3, jobs=jobs)
    assert harness.originals == 1
    assert all(check.verified for _, check in built.values())
    one_by_one = {pair: build_variant(FakeHarness(Verdict.OK), TASK, pair[1], seed=3)
                  for pair in pairs}
    assert built == one_by_one
