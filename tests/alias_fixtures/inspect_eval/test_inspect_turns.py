"""The inspect_ai task's feedback track (`turns` > 1): the solver's turns, the feedback it
sends, the per-turn verdicts in the score's metadata, and `turns` = 1 scoring as before.

Offline: inspect's mock model answers with a scripted text per turn (no module, then the
task's own reference) on the built-in task hour_clock, original condition, graded by parse
and name (the name grade decides a pass).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import pytest

inspect_ai = pytest.importorskip(
    "inspect_ai", reason="the inspect extra is not installed (pip install 'alias-bench[inspect]')")

from inspect_ai.log import EvalLog  # noqa: E402
from inspect_ai.model import ChatMessage, ModelOutput, ModelUsage, get_model  # noqa: E402

from alias_fixtures.grading.executors import GradeJob, GradeResult  # noqa: E402
from alias_fixtures.grading.feedback import Feedback  # noqa: E402
from alias_fixtures.inspect_eval.cases import (  # noqa: E402
    InspectOutputs,
    RememberedGrades,
    inspect_settings,
    run_for,
)
from alias_fixtures.inspect_eval.tasks import TURNS_KEY, turn_entry  # noqa: E402
from alias_fixtures.models.registry import ChatMessage as AliasMessage  # noqa: E402
from alias_fixtures.models.registry import Generation, GenerationRequest, ModelError  # noqa: E402
from alias_fixtures.plugin.session import CaseSpec, feedback_message  # noqa: E402
from alias_fixtures.tasks.task import builtin_tasks  # noqa: E402

TASK = "hour_clock"
MOCK_TEXT = "Default output from mockllm/model"
NO_MODULE = "Your reply contains no TLA+ module (`---- MODULE Name ----` ... `====`)."
ARGS = {"only": TASK, "conditions": "original", "samples": 1, "grades": "parse,name",
        "primary": "name"}
pytestmark = [
    pytest.mark.filterwarnings("ignore:The 'initial' parameter is deprecated:DeprecationWarning"),
    pytest.mark.filterwarnings("ignore:Unclosed <MemoryObject:ResourceWarning"),
    pytest.mark.filterwarnings("ignore:Exception ignored in.*MemoryObject"
                               ":pytest.PytestUnraisableExceptionWarning"),
]


def reference_reply() -> str:
    task = next(t for t in builtin_tasks() if t.id == TASK)
    return f"```tla\n{task.modules[task.main_file].rstrip()}\n```\n"


class TurnModel:
    """inspect's mock model answering turn k with `replies[k - 1]`; it keeps what it was sent."""

    def __init__(self, replies: Iterable[str]) -> None:
        self.replies = list(replies)
        self.inputs: list[list[ChatMessage]] = []

    def __call__(self, messages: list[ChatMessage], *_: Any) -> ModelOutput:
        self.inputs.append(list(messages))
        turn = 1 + sum(1 for m in messages if m.role == "assistant")
        output = ModelOutput.from_content(model="mockllm", content=self.replies[turn - 1])
        output.usage = ModelUsage(input_tokens=100 * turn, output_tokens=turn,
                                  total_tokens=100 * turn + turn)
        return output

    def model(self) -> Any:
        return get_model("mockllm/model", custom_outputs=self)


def run_eval(model: Any, log_dir: Path, out: Path, **task_args: Any) -> EvalLog:
    logs = inspect_ai.eval("alias_bench/tla_cir", model=model, log_dir=str(log_dir),
                           display="none", task_args={**ARGS, "out": str(out), **task_args})
    assert len(logs) == 1
    log = logs[0]
    assert log.status == "success", log.error
    return log


TwoTurns = tuple[EvalLog, TurnModel, list[str]]


def only_sample(log: EvalLog) -> Any:
    assert log.samples is not None and len(log.samples) == 1
    return log.samples[0]


@pytest.fixture(scope="module")
def out_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("alias-out")


@pytest.fixture(scope="module")
def two_turns(tmp_path_factory: pytest.TempPathFactory,
              out_dir: Path) -> tuple[EvalLog, TurnModel, list[str]]:
    """The 2-turn run, and the replies the local executor graded during it."""
    from alias_fixtures.grading.executors.local import LocalExecutor

    model = TurnModel([MOCK_TEXT, reference_reply()])
    graded: list[str] = []
    grade = LocalExecutor.grade

    def counted(self: LocalExecutor, job: GradeJob) -> GradeResult:
        graded.append(job.reply)
        return grade(self, job)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(LocalExecutor, "grade", counted)
        log = run_eval(model.model(), tmp_path_factory.mktemp("logs"), out_dir, turns=2)
    return log, model, graded


@pytest.mark.tlc
def test_failed_turn_gets_feedback_and_a_second_turn(two_turns: TwoTurns) -> None:
    log, model, _ = two_turns
    sample = only_sample(log)
    assert [m.role for m in sample.messages] == ["user", "assistant", "user", "assistant"]
    sent = feedback_message(Feedback(NO_MODULE, ("parse",)))
    assert sample.messages[2].text == sent
    assert [len(i) for i in model.inputs] == [1, 3]
    assert [m.text for m in model.inputs[1]] == [sample.messages[0].text, MOCK_TEXT, sent]


@pytest.mark.tlc
def test_score_reports_every_turn(two_turns: TwoTurns) -> None:
    score = only_sample(two_turns[0]).scores["alias_grades"]
    assert score.value["parse"] == score.value["name"] == 1.0
    assert math.isnan(score.value["behavior"])
    first, second = score.metadata["turns"]
    assert (first["turn"], first["passed"], first["cheats"]) == (1, False, [])
    assert {g: first["grades"][g]["verdict"] for g in ("parse", "name", "behavior")} == \
        dict.fromkeys(("parse", "name", "behavior"), "no_module")
    assert (first["feedback"], first["feedback_levels"]) == (NO_MODULE, ["parse"])
    assert first["reason"].startswith("parse: no_module")
    assert (second["turn"], second["passed"], second["cheats"], second["feedback"]) == \
        (2, True, [], None)
    assert {g: (second["grades"][g]["verdict"], second["grades"][g]["passed"])
            for g in ("parse", "name")} == {"parse": ("ok", True), "name": ("ok", True)}
    assert second["grades"]["behavior"]["verdict"] == "not_run"
    assert all(t["infra_error"] is None and "generation" not in t for t in (first, second))
    assert score.metadata["passed"] is True


@pytest.mark.tlc
def test_each_turn_is_graded_once(two_turns: TwoTurns) -> None:
    """The solver's checks are the scorer's grades: the record's run_case grades nothing anew."""
    assert two_turns[2] == [MOCK_TEXT, reference_reply()]


@pytest.mark.tlc
def test_record_is_the_benchmarks_multi_turn_record(two_turns: TwoTurns) -> None:
    sample = only_sample(two_turns[0])
    record = sample.scores["alias_grades"].metadata["alias_record"]
    assert record["infra_error"] is None and record["model"] == "mockllm/model"
    assert record["turns_max"] == 2
    assert [t["passed"] for t in record["turns"]] == [False, True]
    assert record["grades"]["name"]["passed"] is True
    assert record["generation"]["input_tokens"] == 200
    kept = sample.store[TURNS_KEY]
    assert [t["generation"]["input_tokens"] for t in kept] == [100, 200]
    assert [t["generation"]["text"] for t in kept] == [MOCK_TEXT, reference_reply()]


@pytest.mark.tlc
def test_a_passing_first_turn_ends_the_conversation(two_turns: TwoTurns, out_dir: Path,
                                                    tmp_path: Path) -> None:
    sample = only_sample(run_eval("alias/reference", tmp_path, out_dir, turns=2))
    assert [m.role for m in sample.messages] == ["user", "assistant"]
    score = sample.scores["alias_grades"]
    assert [(t["turn"], t["passed"], t["feedback"]) for t in score.metadata["turns"]] == \
        [(1, True, None)]
    assert len(score.metadata["alias_record"]["turns"]) == 1


@pytest.mark.tlc
def test_one_turn_scores_as_before(two_turns: TwoTurns, out_dir: Path,
                                   tmp_path: Path) -> None:
    logs = [run_eval(TurnModel([MOCK_TEXT]).model(), tmp_path / name, out_dir, **extra)
            for name, extra in (("default", {}), ("one", {"turns": 1}))]
    scores = [only_sample(log).scores["alias_grades"] for log in logs]
    assert logs[1].eval.metadata["alias_settings"]["turns"] == 1
    for log, score in zip(logs, scores, strict=True):
        assert [m.role for m in only_sample(log).messages] == ["user", "assistant"]
        assert "turns" not in score.metadata and TURNS_KEY not in only_sample(log).store
        assert log.plan.steps[0].solver == "generate"
        assert score.metadata["verdicts"] == dict.fromkeys(("parse", "name", "behavior"),
                                                           "no_module")
    assert scores[0].value == scores[1].value
    assert scores[0].explanation == scores[1].explanation
    assert {k: v for k, v in scores[0].metadata.items() if k != "alias_record"} == \
        {k: v for k, v in scores[1].metadata.items() if k != "alias_record"}
    first_turn = two_turns[0].samples[0].scores["alias_grades"].metadata["turns"][0]
    assert {g: first_turn["grades"][g]["verdict"] for g in ("parse", "name", "behavior")} == \
        scores[0].metadata["verdicts"]


@pytest.mark.tlc
def test_a_cheating_turn_fails(two_turns: TwoTurns, out_dir: Path) -> None:
    settings = inspect_settings({k: v for k, v in {**ARGS, "out": str(out_dir), "turns": 2}.items()
                                 if k != "only"})
    run = run_for(settings, [TASK])
    weakened = reference_reply().replace("TypeOK == /\\ hr \\in 1..12\n          /\\ pm \\in BOOLEAN",
                                         "TypeOK == TRUE")
    assert weakened != reference_reply()
    check = run.check_turn(CaseSpec(TASK, "original", 0), "mockllm/model", weakened)
    assert not isinstance(check, str)
    assert check.grades.name.passed and not check.passed
    entry = turn_entry(2, Generation(weakened, "mockllm"), check)
    assert [c["rule"] for c in entry["cheats"]] == ["weakened_property"]
    assert entry["passed"] is False and entry["reason"].startswith("cheat: weakened_property")


# -- the parts, without inspect running -----------------------------------------------------

def test_turn_settings() -> None:
    settings = inspect_settings({"turns": "3", "feedback": "names,parse"})
    assert (settings.turns, settings.feedback) == (3, ("parse", "names"))
    assert inspect_settings({"feedback": ["tlc"]}).feedback == ("tlc",)
    assert inspect_settings({"feedback": "none"}).feedback == ()
    assert inspect_settings({}).feedback == ("parse", "tlc", "names")
    assert inspect_settings({}).turns == 1
    with pytest.raises(ValueError, match="feedback level"):
        inspect_settings({"feedback": "parse,hints"})
    with pytest.raises(ValueError, match="turns"):
        inspect_settings({"turns": 0})


def test_outputs_are_handed_over_per_turn() -> None:
    outputs = InspectOutputs("m")
    case = CaseSpec(TASK, "original", 1)
    outputs.put(case, Generation("first", "m"))
    outputs.put(case, Generation("second", "m"), turn=2)
    history = (AliasMessage("assistant", "first"), AliasMessage("user", "feedback"))
    later = GenerationRequest(TASK, "original", 1, "prompt", history=history)
    assert outputs.generate(later).text == "second"
    assert outputs.generate(GenerationRequest(TASK, "original", 1, "prompt")).text == "first"
    with pytest.raises(ModelError, match="turn 2"):
        outputs.generate(later)
    outputs.put(case, Generation("third", "m"), turn=3)
    outputs.drop(case)
    with pytest.raises(ModelError):
        outputs.generate(GenerationRequest(TASK, "original", 1, "p", history=history * 2))


class CountingExecutor:
    name = "counting"

    def __init__(self) -> None:
        self.jobs: list[str] = []

    def grade(self, job: GradeJob) -> GradeResult:
        self.jobs.append(job.reply)
        return GradeResult(job.case_id, None, infra_error=f"graded {job.reply}")

    def grade_all(self, jobs: Iterable[GradeJob]) -> Iterator[GradeResult]:
        return (self.grade(job) for job in jobs)

    def close(self) -> None:
        self.jobs.append("closed")


def test_remembered_grades_are_not_graded_again() -> None:
    variant: Any = object()
    inner = CountingExecutor()
    remembered = RememberedGrades(inner)
    assert remembered.name == "counting"
    kept = remembered.keep(GradeJob("t/original/s0", variant, "reply"))
    assert remembered.grade(GradeJob("t/original/s0", variant, "reply")) is kept
    remembered.grade(GradeJob("t/original/s1", variant, "reply"))
    assert inner.jobs == ["reply", "reply"]
    remembered.forget("t/original/s0")
    remembered.grade(GradeJob("t/original/s0", variant, "reply"))
    remembered.close()
    assert inner.jobs == ["reply", "reply", "reply", "closed"]
