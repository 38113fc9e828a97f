"""The feedback track's run side: replayed and demo turns, a turn's check, and the turn loop
of a pytest run end to end (records of every turn, one-shot records unchanged)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from alias_fixtures.grading.cheats import CheatFinding
from alias_fixtures.grading.feedback import Feedback
from alias_fixtures.grading.grade import CaseGrades, Grade
from alias_fixtures.grading.turns import TurnCheck, feedback_after, shown_trace
from alias_fixtures.models.registry import ChatMessage, GenerationRequest, ModelError, make_model
from alias_fixtures.models.replay import ReplayModel
from alias_fixtures.tasks.task import builtin_tasks_dir
from reports.schema import CaseRecord, TurnRecord, undeclared
from tests.alias_fixtures.plugin.test_plugin import CASE_TEST

pytest_plugins = ["pytester"]


def _request(turn_levels: tuple[tuple[str, ...], ...] = (), sample: int = 0,
             task: str = "hour_clock") -> GenerationRequest:
    history: list[ChatMessage] = []
    for number, levels in enumerate(turn_levels, 1):
        history += [ChatMessage("assistant", f"reply {number}"),
                    ChatMessage("user", f"feedback {number}", levels)]
    return GenerationRequest(task, "original", sample, "prompt", history=tuple(history))


# -- requests and replayed turns --------------------------------------------------------------
def test_request_turn_and_messages() -> None:
    request = _request((("parse",), ("tlc",)))
    assert request.turn == 3
    assert [m["role"] for m in request.messages()] == ["user", "assistant", "user",
                                                       "assistant", "user"]
    assert request.messages()[-1] == {"role": "user", "content": "feedback 2"}
    assert _request().turn == 1
    with pytest.raises(ValueError, match="role"):
        ChatMessage("system", "x")


def test_replay_jsonl_turns_and_needs(tmp_path: Path) -> None:
    rows = [{"task": "hour_clock", "condition": "original", "sample": 0, "text": "one"},
            {"task": "hour_clock", "condition": "original", "sample": 0, "turn": 2,
             "needs": "names", "text": "two"},
            {"task": "hour_clock", "condition": "original", "sample": 1, "turn": 2,
             "text": "plain two"}]
    path = tmp_path / "out.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    replay = ReplayModel.from_path(path)
    assert replay.generate(_request()).text == "one"
    assert replay.generate(_request((("tlc", "names"),))).text == "two"
    with pytest.raises(ModelError, match="turn 2"):  # the feedback lacked `names`
        replay.generate(_request((("tlc",),)))
    assert replay.generate(_request((("tlc",),), sample=1)).text == "plain two"
    with pytest.raises(ModelError, match="turn 3"):
        replay.generate(_request((("tlc",), ("tlc",))))
    repeating = ReplayModel.from_path(path, repeat_missing=True)
    assert repeating.generate(_request((("tlc",),))).text == "reply 1"


def test_replay_folder_reads_a_runs_outputs(tmp_path: Path) -> None:
    folder = tmp_path / "hour_clock" / "original"
    folder.mkdir(parents=True)
    (folder / "s0.txt").write_text("first")
    (folder / "s0_t2.txt").write_text("second")
    replay = ReplayModel.from_path(tmp_path)
    assert replay.generate(_request()).text == "first"
    assert replay.generate(_request((("parse",),))).text == "second"


def test_bad_turn_in_a_replay_file_is_named(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps({"task": "t", "condition": "original", "sample": 0, "turn": 0,
                                "text": "x"}) + "\n")
    with pytest.raises(ModelError, match=r"bad.jsonl:1"):
        ReplayModel.from_path(path)


def test_demo_repairs_only_from_the_feedback_it_needs() -> None:
    demo = make_model("demo")
    assert isinstance(demo, ReplayModel)
    repairs = [k for k in demo.outputs if k[3] == 2]
    assert repairs, "the demo outputs hold turn-2 repairs"
    assert set(demo.needs.values()) <= {"parse", "names"}
    key = next(k for k in repairs if demo.needs[k] == "names")
    first = demo.generate(GenerationRequest(*key[:3], "p"))
    asked = GenerationRequest(*key[:3], "p", history=(
        ChatMessage("assistant", first.text), ChatMessage("user", "fb", ("tlc", "names"))))
    assert demo.generate(asked).text == demo.outputs[key] != first.text
    unnamed = GenerationRequest(*key[:3], "p", history=(
        ChatMessage("assistant", first.text), ChatMessage("user", "fb", ("tlc",))))
    assert demo.generate(unnamed).text == first.text


# -- one turn's check --------------------------------------------------------------------------
TRACE = [{"number": 1, "action": "Initial predicate", "variables": {"hr": "1", "q": "<<1, 2>>"}},
         {"number": 2, "action": "Tick", "variables": {"hr": "2", "q": "<<2>>"}}]


def _grades(name_passed: bool) -> CaseGrades:
    ok = Grade("ok", True)
    name = (ok if name_passed else
            Grade("invariant_violated", False, details={"violated": "TypeOK", "trace": TRACE}))
    return CaseGrades(ok, name, Grade("ok", True), "HourClock")


def test_a_cheat_never_passes_and_is_the_reason() -> None:
    cheat = CheatFinding("false_spec", "Spec is FALSE (line 3)")
    check = TurnCheck(_grades(True), (cheat,), "name")
    assert not check.passed
    assert check.reason.startswith("cheat: false_spec")
    assert check.to_json()["cheats"] == [{"rule": "false_spec", "detail": "Spec is FALSE (line 3)"}]
    clean = TurnCheck(_grades(True), (), "name")
    assert clean.passed and clean.reason == ""
    failed = TurnCheck(_grades(False), (), "name")
    assert failed.reason == "name: invariant_violated"


def test_feedback_after_a_cheat_and_the_trace_it_showed() -> None:
    check = TurnCheck(_grades(False), (CheatFinding("assume_false", "ASSUME FALSE"),), "name")
    said = feedback_after(check, ("parse", "tlc", "names"))
    assert "TypeOK" in said.text and "ASSUME FALSE" in said.text
    assert said.levels == ("tlc",)
    assert shown_trace(check, said) == ({"hr": "1", "q": "<<1, 2>>"}, {"hr": "2", "q": "<<2>>"})
    silent = feedback_after(check, ())
    assert silent.text == "" and shown_trace(check, silent) == ()
    assert shown_trace(check, Feedback("x", ("names",))) == ()


# -- a run end to end --------------------------------------------------------------------------
@pytest.fixture
def demo_run(pytester: pytest.Pytester) -> pytest.Pytester:
    folder = pytester.path / "tasks"
    for task in ("hour_clock", "up_down_counter"):
        shutil.copytree(builtin_tasks_dir() / task, folder / task)
    pytester.makepyfile(test_bench=CASE_TEST)
    return pytester


def _cases(out: Path) -> list[dict[str, object]]:
    rows = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    return [r for r in rows if r["kind"] == "case"]


def _run(pytester: pytest.Pytester, out: str, *args: str) -> pytest.RunResult:
    return pytester.runpytest_subprocess(
        "-p", "no:cacheprovider", "--alias-tasks", str(pytester.path / "tasks"),
        "--alias-out", str(pytester.path / out), "--alias-cache", str(pytester.path / "cache"),
        "--alias-model", "demo", "--alias-grades", "parse,name", "--alias-primary", "name",
        "-n", "2", *args)


@pytest.mark.slow
def test_two_turns_record_every_failed_case(demo_run: pytest.Pytester) -> None:
    one = _run(demo_run, "one")
    two = _run(demo_run, "two", "--alias-turns", "2")
    assert one.ret == 0 and two.ret == 0
    once = {r["id"]: r for r in _cases(demo_run.path / "one")}
    twice = {r["id"]: r for r in _cases(demo_run.path / "two")}
    assert set(once) == set(twice) and len(once) == 20
    assert all("turns" not in r for r in once.values())  # one shot: today's records
    repaired = 0
    for case_id, record in twice.items():
        turns = record["turns"]
        assert isinstance(turns, list) and not undeclared(record, CaseRecord)
        assert all(not undeclared(t, TurnRecord) for t in turns)
        first, last = turns[0], turns[-1]
        # turn 1 is the one-shot run's output and grades
        assert first["output_sha256"] == once[case_id]["output_sha256"]
        assert first["grades"]["name"]["verdict"] == once[case_id]["grades"]["name"]["verdict"]
        assert record["grades"] == last["grades"] and record["output_path"] == last["output_path"]
        assert record["turns_max"] == 2 and record["feedback_levels"] == ["parse", "tlc", "names"]
        assert record["cost_usd"] == 0.0 and all(t["cost_usd"] == 0.0 for t in turns)
        if first["passed"]:
            assert len(turns) == 1 and first["feedback"] is None
        else:
            assert len(turns) == 2 and first["feedback"]["text"]
            assert Path(str(last["output_path"])).name.endswith("_t2.txt")
            repaired += bool(last["passed"]) and not first["passed"]
    assert repaired >= 1  # some demo outputs are repaired from their feedback


@pytest.mark.slow
def test_without_name_feedback_no_renamed_invariant_is_repaired(
        demo_run: pytest.Pytester) -> None:
    result = _run(demo_run, "quiet", "--alias-turns", "2", "--alias-feedback", "parse,tlc")
    assert result.ret == 0
    for record in _cases(demo_run.path / "quiet"):
        for turn in record["turns"]:  # type: ignore[attr-defined]
            feedback = turn.get("feedback") or {}
            assert "names" not in feedback.get("levels", [])


def test_bad_track_options_fail_early(demo_run: pytest.Pytester) -> None:
    bad_turns = _run(demo_run, "x", "--alias-turns", "0")
    assert bad_turns.ret == pytest.ExitCode.USAGE_ERROR
    bad_levels = _run(demo_run, "y", "--alias-turns", "2", "--alias-feedback", "tlc,mapping")
    assert bad_levels.ret == pytest.ExitCode.USAGE_ERROR
    bad_levels.stderr.fnmatch_lines(["*unknown feedback level*mapping*"])
    prices = demo_run.path / "prices.toml"
    prices.write_text("[models.x]\ninput_per_million = -1\n")
    bad_prices = _run(demo_run, "z", "--alias-turns", "2", "--alias-prices", str(prices))
    assert bad_prices.ret == pytest.ExitCode.USAGE_ERROR
