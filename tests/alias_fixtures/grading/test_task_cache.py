"""The per-task cache: its keys, its entries, concurrent writers, and `alias-bench cache`."""

from __future__ import annotations

import dataclasses
import json
import multiprocessing
import os
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import pytest

import alias_fixtures.grading.grade as grade_module
import alias_fixtures.grading.reference_cache as reference_cache
from alias_cli.main import command_of, main
from alias_fixtures.grading.grade import ReferenceCoverage
from alias_fixtures.grading.reference_cache import ReferenceStore, reference_key
from alias_fixtures.tasks.task import builtin_tasks
from alias_fixtures.tasks.variants import Variant, original_variant
from tlc_harness.behavior.graphs import graph_cache
from tlc_harness.behavior.options import BehaviorOptions
from tlc_harness.behavior.verdicts import (
    Attempt,
    BehaviorResult,
    BehaviorVerdict,
    Reason,
    Soundness,
)
from tlc_harness.tools.disk_cache import JsonStore, cache_root, default_root
from tlc_harness.tools.results import TraceState
from tlc_harness.tools.runner import Harness, HarnessSettings

HOUR_CLOCK = next(t for t in builtin_tasks() if t.id == "hour_clock")
VARIANT = original_variant(HOUR_CLOCK)
OK = BehaviorResult(BehaviorVerdict.OK, {"variables": {"hr": "hr"}}, "", 1.5, engine="graphs",
                    soundness=Soundness.JUSTIFIED)


def stand_in(jar: str = "a" * 64, **settings: Any) -> Harness:
    """What the key reads of a harness, without Java."""
    return cast(Harness, SimpleNamespace(settings=HarnessSettings(**settings),
                                         toolchain=SimpleNamespace(jar_sha256=jar)))


# ------------------------------------------------------------------ the root
def test_the_root_is_under_the_user_cache_unless_named(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert default_root() == tmp_path / "xdg" / "alias"
    assert graph_cache() == tmp_path / "xdg" / "alias" / "graphs"
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert default_root() == Path.home() / ".cache" / "alias"
    assert cache_root(tmp_path) == tmp_path
    assert graph_cache(tmp_path) == tmp_path / "graphs"


# ------------------------------------------------------------------ keys
def _changed(variant: Variant, **fields: Any) -> Variant:
    return dataclasses.replace(variant, **fields)


def test_the_key_changes_with_each_deciding_input(monkeypatch: pytest.MonkeyPatch) -> None:
    harness, options = stand_in(), BehaviorOptions()
    base = reference_key(harness, VARIANT, options)
    main_file = f"{VARIANT.main_module}.tla"
    others = {
        "module text": reference_key(harness, _changed(VARIANT, modules={
            **VARIANT.modules, main_file: VARIANT.modules[main_file] + "\n"}), options),
        "another module": reference_key(harness, _changed(VARIANT, modules={
            **VARIANT.modules, "Extra.tla": "---- MODULE Extra ----\n===="}), options),
        "cfg": reference_key(harness, _changed(VARIANT, cfg_text=VARIANT.cfg_text + "\n"),
                             options),
        "tlc_args": reference_key(harness, _changed(VARIANT, tlc_args=("-deadlock",)), options),
        "engine": reference_key(harness, VARIANT, BehaviorOptions(engine="wrappers")),
        "budget": reference_key(harness, VARIANT, BehaviorOptions(budget=10)),
        "timeout": reference_key(harness, VARIANT, BehaviorOptions(timeout=5.0)),
        "mappings": reference_key(harness, VARIANT, BehaviorOptions(limit=3)),
        "jar": reference_key(stand_in(jar="b" * 64), VARIANT, options),
        "heap": reference_key(stand_in(heap="4g"), VARIANT, options),
        "harness timeout": reference_key(stand_in(tlc_timeout=7.0), VARIANT, options),
    }
    monkeypatch.setattr(reference_cache, "REFERENCE_FORMAT", reference_cache.REFERENCE_FORMAT + 1)
    others["format"] = reference_key(harness, VARIANT, options)
    monkeypatch.undo()
    monkeypatch.setattr(reference_cache, "grader_digest", lambda: "another grader")
    others["grader source"] = reference_key(harness, VARIANT, options)
    monkeypatch.undo()
    assert [name for name, key in others.items() if key == base] == []
    assert len(set(others.values())) == len(others)
    # what cannot change the result leaves the key alone
    assert reference_key(harness, VARIANT, BehaviorOptions(cache=Path("/elsewhere"))) == base
    assert reference_key(stand_in(backend="fresh", tmp_root="/scratch/x"), VARIANT, options) == base
    assert reference_key(harness, _changed(VARIANT, condition="random"), options) == base
    assert reference_key(harness, VARIANT, options) == base  # and it is stable


# ------------------------------------------------------------------ BehaviorResult as JSON
def _round_trip(result: BehaviorResult) -> BehaviorResult:
    return BehaviorResult.from_json(json.loads(json.dumps(result.to_json())))


@pytest.mark.parametrize("result", [
    OK,
    BehaviorResult(BehaviorVerdict.FORWARD_FAIL, {"variables": {"x": "y"}, "constants": {}},
                   "a step outside", 2.25,
                   attempts=(Attempt({"variables": {"x": "y"}}, "invariant_violated", None,
                                     0.75, "why"),
                             Attempt({"variables": {"x": "z"}}, "ok", "ok", 1.0)),
                   trace=(TraceState(1, "Init", {"x": "0"}), TraceState(2, "Next", {"x": "1"})),
                   tlc_runs=3, engine="wrappers", code=Reason.TLC_FORWARD,
                   soundness=Soundness.ENUMERATED,
                   details={"stage_seconds": {"plan": 0.5}, "retries": ["again"],
                            "constants": {"N": {"value": "3", "from": "N", "source": "x"}},
                            "trace_of": "output", "fallback": None}),
    BehaviorResult(BehaviorVerdict.UNDECIDED, None, "TLC's time limit", 360.0,
                   code=Reason.TIME_BUDGET, engine="auto"),
    BehaviorResult(BehaviorVerdict.NOT_COVERED, None, "no behavior", 0.0,
                   code=Reason.REFERENCE_NO_BEHAVIOR),
], ids=["ok", "forward_fail", "time_budget", "not_covered"])
def test_a_behavior_result_reads_back_as_it_was_written(result: BehaviorResult) -> None:
    again = _round_trip(result)
    assert again == result
    assert again.code is result.code and again.soundness is result.soundness
    assert again.to_json() == result.to_json()


@pytest.mark.parametrize("data", [[], {"verdict": "great"}, {"reason": "no verdict"},
                                  {"verdict": "undecided"},
                                  {"verdict": "ok", "attempts": [{"who": 1}]},
                                  {"verdict": "ok", "mapping": [1]}])
def test_a_record_that_is_not_a_result_is_refused(data: Any) -> None:
    with pytest.raises((KeyError, TypeError, ValueError)):
        BehaviorResult.from_json(data)


# ------------------------------------------------------------------ the store
class Counting:
    """A self-check that counts its runs: the i-th run gives the i-th result (or the last)."""

    def __init__(self, results: list[BehaviorResult]) -> None:
        self.results, self.calls = results, 0

    def __call__(self) -> BehaviorResult:
        self.calls += 1
        return self.results[min(self.calls, len(self.results)) - 1]


def test_an_entry_is_computed_once_and_read_after(tmp_path: Path) -> None:
    store, compute = ReferenceStore(tmp_path), Counting([OK])
    first = store.check(stand_in(), VARIANT, BehaviorOptions(), compute)
    second = ReferenceStore(tmp_path).check(stand_in(), VARIANT, BehaviorOptions(), compute)
    assert first == second == OK
    assert compute.calls == 1
    (entry,) = (tmp_path / "references").glob("*.json")
    assert json.loads(entry.read_text())["task"] == "hour_clock"


def test_a_limit_is_kept_an_infrastructure_error_is_not(tmp_path: Path) -> None:
    limit = BehaviorResult(BehaviorVerdict.UNDECIDED, None, "TLC's time limit", 360.0,
                           code=Reason.TIME_BUDGET)
    infra = BehaviorResult(BehaviorVerdict.UNDECIDED, None, "the JVM died", 1.0,
                           code=Reason.INFRA_ERROR)
    store = ReferenceStore(tmp_path)
    compute = Counting([limit])
    for _ in range(2):
        assert store.check(stand_in(), VARIANT, BehaviorOptions(), compute) == limit
    assert compute.calls == 1  # recorded once as such
    compute = Counting([infra, OK])
    other = BehaviorOptions(engine="graphs")
    assert store.check(stand_in(), VARIANT, other, compute) == infra
    assert store.check(stand_in(), VARIANT, other, compute) == OK  # graded again
    assert compute.calls == 2


@pytest.mark.parametrize("damage", [b"", b"{not json", b"[1, 2]", b'{"format": 1}',
                                    b'{"format": 1, "result": {"verdict": "maybe"}}',
                                    b'{"format": 999, "result": {"verdict": "ok"}}'])
def test_a_damaged_entry_is_computed_again_and_rewritten(tmp_path: Path, damage: bytes) -> None:
    store, compute = ReferenceStore(tmp_path), Counting([OK])
    store.check(stand_in(), VARIANT, BehaviorOptions(), compute)
    (entry,) = (tmp_path / "references").glob("*.json")
    entry.write_bytes(damage)
    assert store.check(stand_in(), VARIANT, BehaviorOptions(), compute) == OK
    assert compute.calls == 2
    assert BehaviorResult.from_json(json.loads(entry.read_text())["result"]) == OK


def test_a_root_that_cannot_be_written_only_keeps_nothing(tmp_path: Path) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("not a folder")
    compute = Counting([OK])
    for _ in range(2):
        assert ReferenceStore(blocked).check(stand_in(), VARIANT, BehaviorOptions(),
                                             compute) == OK
    assert compute.calls == 2


# ------------------------------------------------------------------ ReferenceCoverage
def _no_grading(*args: Any, **kwargs: Any) -> BehaviorResult:
    raise AssertionError("the reference was graded again instead of read")


def test_a_fresh_coverage_reads_what_another_stored(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    options = BehaviorOptions(cache=tmp_path)
    compute = Counting([OK])
    monkeypatch.setattr(grade_module, "grade_behavior", lambda *a, **k: compute())
    assert ReferenceCoverage(stand_in(), options).check(VARIANT) == OK
    monkeypatch.setattr(grade_module, "grade_behavior", _no_grading)
    other = ReferenceCoverage(stand_in(), options)  # another process
    assert other.check(VARIANT) == OK
    assert other.check(VARIANT) == OK  # then from memory
    assert compute.calls == 1
    with pytest.raises(AssertionError, match="graded again"):
        ReferenceCoverage(stand_in(), options, on_disk=False).check(VARIANT)


def test_a_coverage_counts_the_seconds_its_self_checks_took(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def slow() -> BehaviorResult:
        time.sleep(0.2)
        return OK

    monkeypatch.setattr(grade_module, "grade_behavior", lambda *a, **k: slow())
    coverage = ReferenceCoverage(stand_in(), BehaviorOptions(cache=tmp_path))
    assert coverage.seconds == 0.0  # nothing asked yet: a study script's timing reads this
    coverage.check(VARIANT)
    spent = coverage.seconds
    assert spent >= 0.2
    coverage.check(VARIANT)  # from memory
    assert coverage.seconds == spent


def test_a_cached_self_check_is_the_one_graded(harness: Harness, tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    without = ReferenceCoverage(harness, BehaviorOptions(cache=tmp_path / "a"),
                                on_disk=False).check(VARIANT)
    cached = ReferenceCoverage(harness, BehaviorOptions(cache=tmp_path / "b")).check(VARIANT)
    monkeypatch.setattr(grade_module, "grade_behavior", _no_grading)
    read = ReferenceCoverage(harness, BehaviorOptions(cache=tmp_path / "b")).check(VARIANT)
    assert without.verdict == cached.verdict == read.verdict == BehaviorVerdict.OK
    assert without.code == cached.code == read.code
    assert without.reason == cached.reason == read.reason
    assert read.to_json() == json.loads(json.dumps(cached.to_json()))
    assert list((tmp_path / "b" / "references").glob("*.json"))
    assert not (tmp_path / "a" / "references").exists()


# ------------------------------------------------------------------ two processes at once
def _slow_square(log: str, value: int) -> dict[str, Any]:
    with Path(log).open("a") as handle:
        handle.write(f"{os.getpid()}\n")
    time.sleep(1.0)
    return {"square": value * value, "by": os.getpid()}


def _ask(folder: str, log: str, go: str, answer: str) -> None:
    """One process: wait for the start file, then ask for the key; the answer goes to a file
    (no queue or barrier: their pickled connections break after an inline pytester run)."""
    Path(answer + ".ready").touch()
    deadline = time.monotonic() + 60
    while not Path(go).exists() and time.monotonic() < deadline:
        time.sleep(0.01)
    found = JsonStore(Path(folder)).get_or_compute(
        "same-key", lambda: _slow_square(log, 7), dump=lambda d: d, load=lambda d: d)
    Path(answer).write_text(json.dumps(found))


def test_two_processes_asking_at_once_compute_one_entry(tmp_path: Path) -> None:
    context = multiprocessing.get_context("spawn")
    log, go = tmp_path / "computed.log", tmp_path / "go"
    answers = [tmp_path / f"answer{i}.json" for i in range(2)]
    workers = [context.Process(target=_ask, args=(str(tmp_path / "kind"), str(log), str(go),
                                                  str(answer))) for answer in answers]
    for worker in workers:
        worker.start()
    deadline = time.monotonic() + 120
    while not all(Path(f"{a}.ready").exists() for a in answers) and time.monotonic() < deadline:
        time.sleep(0.01)
    go.touch()  # both are waiting for it: they ask at once
    for worker in workers:
        worker.join(timeout=120)
        assert worker.exitcode == 0
    first, second = (json.loads(a.read_text()) for a in answers)
    assert first == second and first["square"] == 49
    assert len(log.read_text().splitlines()) == 1  # one computed, the other waited and read
    assert [p.name for p in (tmp_path / "kind").glob("*.json")] == ["same-key.json"]
    assert not list((tmp_path / "kind").glob("*.tmp"))


# ------------------------------------------------------------------ alias-bench cache
def _fill(root: Path) -> None:
    (root / "graphs").mkdir(parents=True)
    (root / "graphs" / "g1.pickle").write_bytes(b"x" * 100)
    (root / "graphs" / "g2.pickle").write_bytes(b"x" * 50)
    (root / "graphs" / ".g1.lock").write_bytes(b"")
    (root / "references").mkdir()
    (root / "references" / "r1.json").write_text("{}")
    (root / "notes").mkdir()
    (root / "notes" / "n.txt").write_text("kept")


def test_cache_show_lists_each_kind(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _fill(tmp_path)
    assert main(["--cache", str(tmp_path), "cache", "show", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["root"] == str(tmp_path) and data["exists"]
    assert data["kinds"]["graphs"] == {"path": str(tmp_path / "graphs"), "entries": 2,
                                       "bytes": 150}
    assert data["kinds"]["references"]["entries"] == 1
    assert data["kinds"]["notes"]["entries"] == 1
    assert data["total"] == {"entries": 4, "bytes": 150 + 2 + 4}
    assert main(["--cache", str(tmp_path), "cache", "show"]) == 0
    text = capsys.readouterr().out
    assert f"cache root: {tmp_path}" in text
    assert "graphs" in text and "150 bytes" in text


def test_cache_show_of_an_absent_root(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--cache", str(tmp_path / "none"), "cache", "show"]) == 0
    out = capsys.readouterr().out
    assert "(absent)" in out and "references" in out


def test_cache_clear_removes_the_kinds_asked_for(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    _fill(tmp_path)
    assert main(["--cache", str(tmp_path), "cache", "clear", "--kind", "references"]) == 0
    out = capsys.readouterr().out
    assert "removed references: 1 entries, 2 bytes" in out and "graphs" not in out
    assert not (tmp_path / "references").exists() and (tmp_path / "graphs").is_dir()
    assert main(["--cache", str(tmp_path), "cache", "clear"]) == 0
    out = capsys.readouterr().out
    assert "removed graphs: 2 entries, 150 bytes" in out
    assert "kept what the grader did not write: notes" in out
    assert (tmp_path / "notes" / "n.txt").read_text() == "kept"
    assert main(["--cache", str(tmp_path), "cache", "clear"]) == 0
    assert "nothing to remove" in capsys.readouterr().out


def test_the_global_cache_option_is_not_the_command() -> None:
    assert command_of(["--cache", "some/dir", "cache", "show"]) == "cache"
    assert command_of(["--cache", "grade", "grade", "--task", "x"]) == "grade"
    assert command_of(["grade", "--task", "x"]) == "grade"
