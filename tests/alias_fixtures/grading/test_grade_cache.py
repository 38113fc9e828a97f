"""The grade cache: its key, what it stores and reads back, processes asking at once, where
cases are graded, and `alias-bench cache`."""

from __future__ import annotations

import dataclasses
import json
import multiprocessing
import os
import time
from pathlib import Path
from typing import Any, cast

import pytest

import alias_fixtures.grading.executors.local as local
import alias_fixtures.grading.grade_cache as grade_cache
from alias_cli.main import main
from alias_fixtures.grading.executors import GradeJob, apply_result
from alias_fixtures.grading.executors.local import Grader
from alias_fixtures.grading.grade import CaseGrades, Grade, ReferenceCoverage, grade_output
from alias_fixtures.grading.grade_cache import (
    CLOCK_REASONS,
    GradeCache,
    GradedOutput,
    grade_key,
    stored_form,
)
from alias_fixtures.grading.reference_cache import grader_digest
from alias_fixtures.plugin.options import read_settings
from alias_fixtures.tasks.variants import Variant
from tests.alias_fixtures.grading.test_task_cache import VARIANT, stand_in
from tests.tlc_harness.behavior.test_output_budget import _Config
from tlc_harness.behavior.options import BehaviorOptions
from tlc_harness.behavior.verdicts import BehaviorResult, BehaviorVerdict, Reason
from tlc_harness.tools.runner import Harness

MODULE = "---- MODULE Clock ----\nVARIABLE hr\nInit == hr = 1\nNext == hr' = hr\n====\n"
REPLY = f"Here is the spec:\n```tla\n{MODULE}```\n"
TRACE = [{"number": 1, "action": "Init", "variables": {"hr": "1"}}]
OK_GRADES = CaseGrades(
    Grade("ok", True, 0.123456789),
    Grade("ok", True, 1.5, "", {"missing_names": [], "trace": TRACE, "distinct_states": 12,
                                "vacuous": False, "violated": None}),
    Grade("ok", True, 2.25, "", {"mapping": {"variables": {"hr": "hr"}}, "covered": True,
                                 "reason_code": None, "stage_seconds": {"explore": 0.5}}),
    "Clock", ("taken from a fenced code block",))


class Spy:
    """A grading function that counts its calls and returns `grades` (with the notes a reply's
    extraction gives, as `grade_output` lays them out)."""

    def __init__(self, grades: CaseGrades = OK_GRADES) -> None:
        self.grades, self.calls = grades, 0

    def __call__(self, harness: Harness, variant: Variant, reply: str,
                 **kwargs: Any) -> CaseGrades:
        self.calls += 1
        output = GradedOutput.of(reply)
        notes = output.notes if output is not None else ()
        return dataclasses.replace(self.grades, notes=notes)


def options(root: Path, **fields: Any) -> BehaviorOptions:
    return BehaviorOptions(cache=root, **fields)


# ------------------------------------------------------------------ the key
def _key(harness: Harness | None = None, variant: Variant = VARIANT, reply: str = REPLY,
         grades: tuple[str, ...] = ("parse", "name", "behavior"),
         behavior: BehaviorOptions | None = None, timeout: float | None = 300.0,
         covered: bool = True) -> str:
    output = GradedOutput.of(reply)
    assert output is not None
    return grade_key(harness or stand_in(), variant, output, grades=grades,
                     options=behavior or BehaviorOptions(), timeout=timeout, covered=covered)


def test_the_key_changes_with_each_deciding_input(monkeypatch: pytest.MonkeyPatch) -> None:
    base = _key()
    main_file = f"{VARIANT.main_module}.tla"
    helper = "---- MODULE Helper ----\nOne == 1\n====\n"
    others = {
        "output text": _key(reply=REPLY.replace("hr = 1", "hr = 2")),
        "output's own module": _key(reply=REPLY.replace("VARIABLE hr", "EXTENDS Helper\n"
                                                        "VARIABLE hr") + f"```tla\n{helper}```"),
        "reference module": _key(variant=dataclasses.replace(VARIANT, modules={
            **VARIANT.modules, main_file: VARIANT.modules[main_file] + "\n"})),
        "cfg": _key(variant=dataclasses.replace(VARIANT, cfg_text=VARIANT.cfg_text + "\n")),
        "tlc args": _key(variant=dataclasses.replace(VARIANT, tlc_args=("-deadlock",))),
        "condition": _key(variant=dataclasses.replace(VARIANT, condition="random")),
        "task id": _key(variant=dataclasses.replace(VARIANT, task_id="other")),
        "rename map": _key(variant=dataclasses.replace(VARIANT, rename_map={"hr": "qq"})),
        "description": _key(variant=dataclasses.replace(VARIANT, description="another")),
        "distinct states": _key(variant=dataclasses.replace(VARIANT, distinct_states=12)),
        "grades asked": _key(grades=("parse", "name")),
        "engine": _key(behavior=BehaviorOptions(engine="wrappers")),
        "graph budget": _key(behavior=BehaviorOptions(budget=10)),
        "mappings": _key(behavior=BehaviorOptions(limit=3)),
        "output budget": _key(behavior=BehaviorOptions(output_budget=30)),
        "behavior timeout": _key(behavior=BehaviorOptions(timeout=5.0)),
        "TLC limit of the call": _key(timeout=60.0),
        "coverage checked": _key(covered=False),
        "jar": _key(harness=stand_in(jar="b" * 64)),
        "heap": _key(harness=stand_in(heap="4g")),
        "TLC fingerprint": _key(harness=stand_in(tlc_fp=None)),
    }
    monkeypatch.setattr(grade_cache, "GRADE_FORMAT", grade_cache.GRADE_FORMAT + 1)
    others["format"] = _key()
    monkeypatch.undo()
    monkeypatch.setattr(grade_cache, "grading_digest", lambda: "another grader")
    others["grader source"] = _key()
    monkeypatch.undo()
    assert [name for name, key in others.items() if key == base] == []
    assert len(set(others.values())) == len(others)
    # what cannot change a grade leaves the key alone
    assert _key(behavior=BehaviorOptions(cache=Path("/elsewhere"), sweep_jobs=4)) == base
    assert _key(harness=stand_in(backend="fresh", pool_size=3, tmp_root="/x")) == base
    assert _key(reply=f"Sure! Two sentences first.\n\n```tla\n{MODULE}```\nHope it helps.") \
        == base
    assert _key() == base  # and it is stable


def test_the_grader_digest_covers_the_grading_and_task_packages() -> None:
    digest = grade_cache.grading_digest()
    assert len(digest) == 64 and digest == grade_cache.grading_digest()
    assert digest != grader_digest()  # more than tlc_harness's own


# ------------------------------------------------------------------ graded once, read after
def test_a_key_is_graded_once_then_read_from_memory_and_disk(tmp_path: Path) -> None:
    spy = Spy()
    cache = GradeCache(spy)
    first = cache.grade(stand_in(), VARIANT, REPLY, behavior=options(tmp_path))
    again = [cache.grade(stand_in(), VARIANT, REPLY, behavior=options(tmp_path))
             for _ in range(4)]
    other = GradeCache(spy).grade(stand_in(), VARIANT, REPLY, behavior=options(tmp_path))
    assert spy.calls == 1
    assert (cache.graded, cache.read) == (1, 4)
    assert not first.cached and all(g.cached for g in [*again, other])
    (entry,) = (tmp_path / "grades").glob("*.json")
    assert json.loads(entry.read_text())["task"] == "hour_clock"


def test_replies_that_differ_only_in_prose_share_a_grade_with_their_own_notes(
        tmp_path: Path) -> None:
    spy = Spy()
    cache = GradeCache(spy)
    fenced = cache.grade(stand_in(), VARIANT, REPLY, behavior=options(tmp_path))
    bare = cache.grade(stand_in(), VARIANT, f"Answer:\n{MODULE}", behavior=options(tmp_path))
    assert spy.calls == 1 and bare.cached
    assert fenced.notes == ("taken from a fenced code block",)
    assert bare.notes == ("taken from unfenced text",)
    assert bare.to_json() == fenced.to_json()


def test_other_inputs_are_graded_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    spy = Spy()
    cache = GradeCache(spy)
    cache.grade(stand_in(), VARIANT, REPLY, behavior=options(tmp_path))
    cache.grade(stand_in(), VARIANT, REPLY.replace("hr = 1", "hr = 2"),
                behavior=options(tmp_path))
    cache.grade(stand_in(), dataclasses.replace(VARIANT, condition="random"), REPLY,
                behavior=options(tmp_path))
    cache.grade(stand_in(), VARIANT, REPLY, behavior=options(tmp_path, engine="graphs"))
    monkeypatch.setattr(grade_cache, "grading_digest", lambda: "a changed grader")
    cache.grade(stand_in(), VARIANT, REPLY, behavior=options(tmp_path))
    assert spy.calls == 5
    assert len(list((tmp_path / "grades").glob("*.json"))) == 5


def test_a_reply_without_a_module_is_graded_at_once_and_not_stored(tmp_path: Path) -> None:
    spy = Spy()
    for _ in range(2):
        GradeCache(spy).grade(stand_in(), VARIANT, "I cannot help.", behavior=options(tmp_path))
    assert spy.calls == 2
    assert not (tmp_path / "grades").exists()


# ------------------------------------------------------------------ what is not stored
def _with(grade: str, **fields: Any) -> CaseGrades:
    changed: dict[str, Any] = {grade: dataclasses.replace(getattr(OK_GRADES, grade), **fields)}
    return dataclasses.replace(OK_GRADES, **changed)


NOT_STORED = {
    "parse infra error": _with("parse", verdict="infra_error", passed=False,
                               reason="SANY did not finish within 60 s"),
    "name infra error": _with("name", verdict="infra_error", passed=False),
    "name timeout": _with("name", verdict="timeout", passed=False),
    **{f"behavior {code}": _with("behavior", verdict="undecided", passed=False,
                                 details={"reason_code": str(code)}) for code in sorted(CLOCK_REASONS)},
}


@pytest.mark.parametrize("grades", NOT_STORED.values(), ids=NOT_STORED.keys())
def test_infrastructure_errors_and_time_limits_are_graded_again(tmp_path: Path,
                                                                grades: CaseGrades) -> None:
    spy = Spy(grades)
    for _ in range(2):
        assert GradeCache(spy).grade(stand_in(), VARIANT, REPLY, behavior=options(tmp_path)) \
            .to_json() == grades.to_json()
    assert spy.calls == 2
    assert not list((tmp_path / "grades").glob("*.json"))


def test_the_time_codes_are_the_time_limits(tmp_path: Path) -> None:
    assert CLOCK_REASONS == {Reason.TIME_BUDGET, Reason.OUTPUT_BUDGET}
    assert all(code.verdict is BehaviorVerdict.UNDECIDED for code in CLOCK_REASONS)
    # the mapping search's limit is a count of its steps: the same on any machine, stored
    steps = _with("behavior", verdict="undecided", passed=False,
                  details={"reason_code": str(Reason.SEARCH_BUDGET)})
    spy = Spy(steps)
    for _ in range(2):
        GradeCache(spy).grade(stand_in(), VARIANT, REPLY, behavior=options(tmp_path))
    assert spy.calls == 1


def test_a_not_covered_from_a_self_check_infra_error_is_not_stored() -> None:
    class Broken(ReferenceCoverage):
        def check(self, variant: Variant) -> BehaviorResult:
            return BehaviorResult(BehaviorVerdict.UNDECIDED, None, "JVM died", 0.0,
                                  code=Reason.INFRA_ERROR)

    grades = _with("behavior", verdict="not_covered", passed=False,
                   details={"covered": False, "reason_code": "reference_self_check"})
    output = GradedOutput.of(REPLY)
    assert output is not None
    coverage = Broken(stand_in(), BehaviorOptions(), on_disk=False)
    assert stored_form(grades, output, VARIANT, coverage) is None
    assert stored_form(grades, output, VARIANT, None) is not None
    assert stored_form(OK_GRADES, output, VARIANT, coverage) is not None


def test_grades_are_kept_in_their_json_form_and_what_json_cannot_hold_is_not(
        tmp_path: Path) -> None:
    tupled = _with("behavior", details={"retries": ("confirm_without_fairness",),
                                        "by_number": {1: "x"}})
    spy = Spy(tupled)
    made = GradeCache(spy).grade(stand_in(), VARIANT, REPLY, behavior=options(tmp_path))
    read = GradeCache(spy).grade(stand_in(), VARIANT, REPLY, behavior=options(tmp_path))
    assert spy.calls == 1 and read.cached
    assert made.behavior.details == read.behavior.details == {
        "retries": ["confirm_without_fairness"], "by_number": {"1": "x"}}  # as a record has it
    assert json.dumps(made.to_json()) == json.dumps(tupled.to_json())
    assert dataclasses.replace(read, cached=False) == made
    output = GradedOutput.of(REPLY)
    assert output is not None
    for odd in ({"pair": {1, 2}}, {"score": float("nan")}):
        assert stored_form(_with("name", details=odd), output, VARIANT, None) is None


# ------------------------------------------------------------------ reading back exactly
def test_a_stored_grade_reads_back_as_it_was_made(tmp_path: Path) -> None:
    spy = Spy()
    made = GradeCache(spy).grade(stand_in(), VARIANT, REPLY, behavior=options(tmp_path))
    read = GradeCache(spy).grade(stand_in(), VARIANT, REPLY, behavior=options(tmp_path))
    assert spy.calls == 1 and read.cached and not made.cached
    assert read.to_json() == made.to_json()
    assert dataclasses.replace(read, cached=False) == made
    assert read.parse.seconds == 0.123456789  # not the record's rounding


@pytest.mark.parametrize("damage", [b"", b"{not json", b"[1]", b'{"format": 1}',
                                    b'{"format": 999, "parse": {}}'])
def test_a_damaged_entry_is_graded_again_and_rewritten(tmp_path: Path, damage: bytes) -> None:
    spy = Spy()
    GradeCache(spy).grade(stand_in(), VARIANT, REPLY, behavior=options(tmp_path))
    (entry,) = (tmp_path / "grades").glob("*.json")
    entry.write_bytes(damage)
    assert not GradeCache(spy).grade(stand_in(), VARIANT, REPLY,
                                     behavior=options(tmp_path)).cached
    assert spy.calls == 2
    assert GradeCache(spy).grade(stand_in(), VARIANT, REPLY, behavior=options(tmp_path)).cached


# ------------------------------------------------------------------ two processes at once
def _grade_in_process(root: str, log: str, go: str, answer: str) -> None:
    """One process: wait for the start file, then grade the reply through the cache with a
    slow grading function that logs its pid; the answer goes to a file."""
    def slow(*args: Any, **kwargs: Any) -> CaseGrades:
        with Path(log).open("a") as handle:
            handle.write(f"{os.getpid()}\n")
        time.sleep(1.0)
        return Spy()(*args, **kwargs)

    Path(answer + ".ready").touch()
    deadline = time.monotonic() + 60
    while not Path(go).exists() and time.monotonic() < deadline:
        time.sleep(0.01)
    grades = GradeCache(slow).grade(stand_in(), VARIANT, REPLY,
                                    behavior=BehaviorOptions(cache=Path(root)))
    Path(answer).write_text(json.dumps({**grades.to_json(), "cached": grades.cached}))


def test_two_processes_asking_one_key_grade_it_once(tmp_path: Path) -> None:
    context = multiprocessing.get_context("spawn")
    log, go = tmp_path / "graded.log", tmp_path / "go"
    answers = [tmp_path / f"answer{i}.json" for i in range(2)]
    workers = [context.Process(target=_grade_in_process, args=(
        str(tmp_path / "root"), str(log), str(go), str(answer))) for answer in answers]
    for worker in workers:
        worker.start()
    deadline = time.monotonic() + 120
    while not all(Path(f"{a}.ready").exists() for a in answers) and time.monotonic() < deadline:
        time.sleep(0.01)
    go.touch()
    for worker in workers:
        worker.join(timeout=120)
        assert worker.exitcode == 0
    first, second = (json.loads(a.read_text()) for a in answers)
    assert sorted([first.pop("cached"), second.pop("cached")]) == [False, True]
    assert first == second == OK_GRADES.to_json()
    assert len(log.read_text().splitlines()) == 1  # one graded, the other waited and read
    assert len(list((tmp_path / "root" / "grades").glob("*.json"))) == 1


# ------------------------------------------------------------------ where cases are graded
def test_grade_job_reads_the_cache_unless_the_job_turns_it_off(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    spy = Spy()
    monkeypatch.setattr(local, "grade_output", spy)
    grader = Grader(stand_in())
    grader.grade_cache = GradeCache(spy)
    job = GradeJob("hour_clock/original/s0", VARIANT, REPLY, grades=("parse", "name"),
                   behavior=options(tmp_path), timeout=60.0)
    results = [grader.grade(dataclasses.replace(job, case_id=f"hour_clock/original/s{i}"))
               for i in range(5)]
    assert spy.calls == 1
    records: list[dict[str, Any]] = [{} for _ in results]
    for record, result in zip(records, results, strict=True):
        apply_result(record, result, job.grades)
    assert [r.get("grader") for r in records] == [None, *[{"cached": True}] * 4]
    assert all(r["grades"] == records[0]["grades"] for r in records)
    grader.grade(dataclasses.replace(job, grade_cache=False))
    assert spy.calls == 2


def test_the_benchmark_flag_turns_the_cache_off() -> None:
    assert read_settings(cast(pytest.Config, _Config())).grade_cache
    off = read_settings(cast(pytest.Config, _Config(alias_no_grade_cache=True)))
    assert not off.grade_cache
    assert not read_settings(cast(pytest.Config, _Config())).resume  # the other flags still


# ------------------------------------------------------------------ real SANY and TLC
@pytest.mark.tlc
def test_a_real_grade_read_back_is_the_one_graded(harness: Harness, tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    behavior = options(tmp_path)
    reply = VARIANT.reference_text()
    coverage = ReferenceCoverage(harness, behavior)
    made = GradeCache().grade(harness, VARIANT, reply, coverage=coverage, behavior=behavior,
                              timeout=60.0)

    def no_grading(*args: Any, **kwargs: Any) -> CaseGrades:
        raise AssertionError("graded again instead of read")

    monkeypatch.setattr(grade_cache, "grade_output", no_grading)
    read = GradeCache().grade(harness, VARIANT, reply, coverage=coverage, behavior=behavior,
                              timeout=60.0)
    assert made.behavior.passed and made.name.passed and not made.cached
    assert read.cached and read.to_json() == made.to_json()
    assert dataclasses.replace(read, cached=False) == made
    monkeypatch.undo()
    plain = grade_output(harness, VARIANT, reply, coverage=coverage, behavior=behavior,
                         timeout=60.0)
    def timeless(grades: CaseGrades) -> dict[str, Any]:  # the clock's fields left out
        return {name: {k: v for k, v in grade.items()
                       if not k.endswith("seconds") and k != "budget_used"}
                for name, grade in grades.to_json().items()}

    assert timeless(plain) == timeless(read)  # graded again, the same grades


# ------------------------------------------------------------------ alias-bench cache
def test_cache_show_and_clear_know_the_grades(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    GradeCache(Spy()).grade(stand_in(), VARIANT, REPLY, behavior=options(tmp_path))
    (entry,) = (tmp_path / "grades").glob("*.json")
    assert main(["--cache", str(tmp_path), "cache", "show", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["kinds"]["grades"] == {"path": str(tmp_path / "grades"), "entries": 1,
                                       "bytes": entry.stat().st_size}
    assert main(["--cache", str(tmp_path / "none"), "cache", "show"]) == 0
    assert "grades" in capsys.readouterr().out  # listed even when absent
    assert main(["--cache", str(tmp_path), "cache", "clear", "--kind", "grades"]) == 0
    assert "removed grades: 1 entries" in capsys.readouterr().out
    assert not (tmp_path / "grades").exists()


@pytest.mark.tlc
def test_alias_bench_grade_reads_a_grade_it_made(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    reply = tmp_path / "reply.txt"
    reply.write_text(f"My answer:\n```tla\n{VARIANT.reference_text()}```\n")

    def grade(*extra: str) -> dict[str, Any]:
        code = main(["--cache", str(tmp_path / "cache"), "grade", str(reply), "--task",
                     "hour_clock", "--json", *extra])
        assert code == 0
        data: dict[str, Any] = json.loads(capsys.readouterr().out)
        return data

    made, read, again = grade(), grade(), grade("--no-grade-cache")
    assert (made["cached"], read["cached"], again["cached"]) == (False, True, False)
    assert {k: v for k, v in read.items() if k != "cached"} == \
        {k: v for k, v in made.items() if k != "cached"}
    assert again["behavior"]["verdict"] == made["behavior"]["verdict"] == "ok"
    assert main(["--cache", str(tmp_path / "cache"), "grade", str(reply), "--task",
                 "hour_clock"]) == 0
    assert "read from the grade cache" in capsys.readouterr().out


def test_memory_keeps_the_latest_grades_and_the_disk_the_rest(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(grade_cache, "MEMORY_ENTRIES", 2)
    spy = Spy()
    cache = GradeCache(spy)
    replies = [REPLY.replace("hr = 1", f"hr = {n}") for n in range(3)]
    for reply in [*replies, *replies]:
        cache.grade(stand_in(), VARIANT, reply, behavior=options(tmp_path))
    assert spy.calls == 3 and cache.read == 3
    assert len(cache._memory) == 2
