"""ALIAS as an inspect_ai task: ``inspect eval alias_bench/tla_cir --model PROVIDER/MODEL``.

Registered through the ``inspect_ai`` entry point (``alias_bench``). One sample per verified
variant (task x condition); its input is the benchmark's prompt, its epochs are the
benchmark's samples. The scorer grades each output with the benchmark's own case runner and
gives one :class:`Score` whose value holds the parse, name and behavior grades (1 or 0; NaN
where a grade does not apply: not requested, or behavior on a task it does not cover) and
whose metadata holds the full ALIAS case record, from which ``alias-bench report LOG.eval``
rebuilds the benchmark's report. Importing this module stays light: the ALIAS machinery is
imported when a task is built or scored.

With `turns` > 1 (the feedback track) the solver is :func:`feedback_turns`: generate, check
the output as the benchmark does (its grades, then the cheat rules), and while the turn fails
and turns remain, append the checker's feedback as a user message and generate again. The
score is the last turn's, its record the benchmark's multi-turn record, and
``Score.metadata["turns"]`` lists every turn's grades, cheats, pass and feedback. With
`turns` = 1 (the default) the solver is inspect's ``generate()`` and the score is unchanged.
"""

from __future__ import annotations

import asyncio
import logging
import math
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict
from typing import TYPE_CHECKING, Any, TypeVar

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.hooks import Hooks, RunEnd, hooks
from inspect_ai.model import ChatMessageUser, GenerateConfig
from inspect_ai.scorer import Score, Scorer, Target, accuracy, grouped, scorer, stderr
from inspect_ai.solver import Generate, Solver, TaskState, generate, solver

from alias_fixtures.inspect_eval import reference_model as inspect_reference
from alias_fixtures.inspect_eval.reference_model import VARIANT_KEY
from reports.inspect_log import (
    EXCLUDED_KEY,
    GRADE_KEYS,
    HEADER_KEY,
    RECORD_KEY,
    SETTINGS_KEY,
)

if TYPE_CHECKING:
    from alias_fixtures.grading.turns import TurnCheck
    from alias_fixtures.inspect_eval.cases import InspectRun
    from alias_fixtures.models.registry import Generation
    from alias_fixtures.plugin.session import CaseOutcome

ENTRY_POINT = "alias_bench"
TASK_NAME = "tla_cir"
_TRUNCATED = ("max_tokens", "model_length")
TURNS_KEY = "alias_turns"
"""Key of the sample store where the feedback solver keeps each turn (output and check)."""
logger = logging.getLogger(__name__)
F = TypeVar("F", bound=Callable[..., Any])

__all__ = ["alias_grades", "feedback_turns", "inspect_reference", "score_of", "tla_cir"]


def _named_by_entry_point(func: F) -> F:
    """Keep the task's name ``alias_bench/tla_cir`` in every install.

    inspect prefixes a task from an installed package with its module's top-level package
    (``alias_fixtures``) but finds package tasks by the entry point's name (``alias_bench``).
    A module name outside ``sys.modules`` makes inspect take the given name as it is.
    """
    func.__module__ = ENTRY_POINT
    return func


def _params(**given: Any) -> dict[str, Any]:
    """Task parameters that were given (None means the benchmark's default)."""
    return {k: (list(v) if isinstance(v, tuple) else v) for k, v in given.items()
            if v is not None}


def _names(value: str | Sequence[str] | None) -> list[str]:
    if value is None:
        return []
    items = value.split(",") if isinstance(value, str) else value
    return [str(v).strip() for v in items if str(v).strip()]


def _run(settings: Mapping[str, Any], only: Sequence[str]) -> InspectRun:
    from alias_fixtures.inspect_eval.cases import inspect_settings, run_for

    return run_for(inspect_settings(settings), only)


@task(name=f"{ENTRY_POINT}/{TASK_NAME}")
@_named_by_entry_point
def tla_cir(tasks: str | None = None, only: str | list[str] | None = None,
            conditions: str | list[str] | None = None, samples: int | None = None,
            seed: int | str | None = None, maps: str | None = None, style: str | None = None,
            grades: str | list[str] | None = None, primary: str | None = None,
            behavior_engine: str | None = None, graph_budget: int | None = None,
            mappings: int | None = None, timeout: float | None = None,
            out: str | None = None, cache: str | None = None, turns: int | None = None,
            feedback: str | list[str] | None = None) -> Task:
    """ALIAS: write a TLA+ module from a description, graded by parse, name and behavior.

    Args:
        tasks: `builtin` (default), a folder of task folders, a tlaplus/Examples checkout or
            a TLA+-Bench release.
        only: task ids to keep (comma-separated), default every task of the source.
        conditions: comma-separated conditions (default `original,random`; `meaningful`
            needs `maps`).
        samples: samples per variant, run as inspect epochs (default 5).
        seed: run seed of the renaming (default 0).
        maps: folder of `<task>.json` name maps for the meaningful condition.
        style: TLA+-Bench description style.
        grades: grades to compute (default `parse,name,behavior`).
        primary: the grade deciding a case's pass (`behavior` by default).
        behavior_engine: `auto` (default), `graphs` or `wrappers`.
        graph_budget: most distinct states of a state graph (default 50000).
        mappings: most mappings the wrapper engine tries (default 60).
        timeout: TLC time limit per run in seconds (default 300).
        out: folder for the variant cache and saved outputs (default alias-results/inspect).
        cache: root of the per-task cache shared by processes and runs (default
            $XDG_CACHE_HOME/alias, else ~/.cache/alias).
        turns: most outputs per case (default 1): after a failed turn the model gets the
            checker's feedback and writes again (the feedback track).
        feedback: feedback levels after a failed turn (default `parse,tlc,names`; `none`).
    """
    settings = _params(tasks=tasks, conditions=conditions, samples=samples, seed=seed,
                       maps=maps, style=style, grades=grades, primary=primary,
                       behavior_engine=behavior_engine, graph_budget=graph_budget,
                       mappings=mappings, timeout=timeout, out=out, cache=cache, turns=turns,
                       feedback=feedback)
    chosen = _names(only)
    run = _run(settings, chosen)
    variants, excluded = run.samples()
    for task_id, condition, why in excluded:
        logger.warning("ALIAS: excluded %s/%s (not verified): %s", task_id, condition, why)
    dataset = MemoryDataset([
        Sample(id=v.id, metadata=v.metadata(), input=[ChatMessageUser(
            content=v.prompt, metadata={VARIANT_KEY: {
                "task": v.task, "condition": v.condition,
                "rename_map_sha256": v.rename_map_sha256}})])
        for v in variants], name=f"alias-{run.settings.tasks.rsplit('/', 1)[-1]}")
    resolved = run.settings
    one_shot = resolved.turns == 1
    return Task(
        dataset=dataset, solver=generate() if one_shot else feedback_turns(settings, chosen),
        scorer=alias_grades(settings, chosen),
        epochs=resolved.samples,
        config=GenerateConfig(temperature=resolved.temperature, top_p=resolved.top_p,
                              max_tokens=resolved.max_tokens),
        metadata={HEADER_KEY: run.header(), SETTINGS_KEY: asdict(resolved),
                  EXCLUDED_KEY: [{"task": t, "condition": c, "reason": r}
                                 for t, c, r in excluded]})


def _metrics() -> dict[str, list[Any]]:
    return {g: [grouped(accuracy(), "condition"), stderr()] for g in GRADE_KEYS}


@scorer(metrics=_metrics())
def alias_grades(settings: Mapping[str, Any] | None = None,
                 only: Sequence[str] | None = None) -> Scorer:
    """Parse, name and behavior grades of the output, as the benchmark grades it."""
    given, chosen = dict(settings or {}), list(only or [])

    async def score(state: TaskState, target: Target) -> Score:
        from alias_fixtures.plugin.session import CaseSpec

        run = _run(given, chosen)
        case = CaseSpec(str(state.metadata["task"]), str(state.metadata["condition"]),
                        state.epoch - 1)
        loop = asyncio.get_running_loop()
        turns = state.store.get(TURNS_KEY)
        if run.settings.turns == 1 or not turns:
            outcome = await loop.run_in_executor(run.executor, run.grade, case,
                                                 str(state.model), generation_of(state))
            return score_of(outcome)
        generations = [_generation(t["generation"]) for t in turns]
        outcome = await loop.run_in_executor(run.executor, run.grade_turns, case,
                                             str(state.model), generations)
        scored = score_of(outcome)
        scored.metadata = {**(scored.metadata or {}),
                           "turns": [{k: v for k, v in t.items() if k != "generation"}
                                     for t in turns]}
        return scored

    return score


@solver
def feedback_turns(settings: Mapping[str, Any] | None = None,
                   only: Sequence[str] | None = None) -> Solver:
    """The feedback track: generate, check, and while the output fails and turns remain,
    give the model the checker's feedback and generate again (see the module docstring)."""
    given, chosen = dict(settings or {}), list(only or [])

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        from alias_fixtures.plugin.session import CaseSpec

        run = _run(given, chosen)
        case = CaseSpec(str(state.metadata["task"]), str(state.metadata["condition"]),
                        state.epoch - 1)
        loop = asyncio.get_running_loop()
        entries: list[dict[str, Any]] = []
        shown: tuple[Mapping[str, str], ...] = ()
        for number in range(1, run.settings.turns + 1):
            state = await generate(state)
            generation = generation_of(state)
            check = await loop.run_in_executor(run.executor, run.check_turn, case,
                                               str(state.model), generation.text, shown)
            entries.append(turn_entry(number, generation, check))
            last = isinstance(check, str) or check.passed or number == run.settings.turns
            if not isinstance(check, str) and not last and not state.completed:
                shown += _give_feedback(state, check, run.settings.feedback, entries[-1])
            state.store.set(TURNS_KEY, entries)
            if last or state.completed:
                break
        return state

    return solve


def _give_feedback(state: TaskState, check: TurnCheck, levels: Sequence[str],
                   entry: dict[str, Any]) -> tuple[Mapping[str, str], ...]:
    """Append the feedback on a failed turn as a user message and note it in the turn's
    entry; return the trace states it showed."""
    from alias_fixtures.grading.turns import feedback_after, shown_trace
    from alias_fixtures.plugin.session import feedback_message

    said = feedback_after(check, levels)
    entry["feedback"], entry["feedback_levels"] = said.text, list(said.levels)
    state.messages.append(ChatMessageUser(content=feedback_message(said)))
    return shown_trace(check, said)


def turn_entry(number: int, generation: Generation, check: TurnCheck | str) -> dict[str, Any]:
    """One turn as the solver keeps it: its output's facts, grades, cheats and pass."""
    entry: dict[str, Any] = {"turn": number, "generation": asdict(generation),
                             "grades": None, "cheats": [], "passed": False, "reason": "",
                             "feedback": None, "feedback_levels": [], "infra_error": None}
    if isinstance(check, str):
        entry["infra_error"] = entry["reason"] = check
        return entry
    grades = check.grades.to_json()
    entry["grades"] = {g: {"verdict": grades[g].get("verdict"), "passed": grades[g].get("passed"),
                           "reason": grades[g].get("reason")} for g in GRADE_KEYS if g in grades}
    entry.update(check.to_json())
    return entry


def _generation(data: Mapping[str, Any]) -> Generation:
    from alias_fixtures.models.registry import Generation

    return Generation(**data)


def generation_of(state: TaskState) -> Generation:
    """The inspect output as the benchmark's Generation (text, finish reason, tokens)."""
    from alias_fixtures.models.registry import Generation

    output = state.output
    usage = output.usage
    return Generation(output.completion, output.model or str(state.model),
                      finish_reason=output.stop_reason,
                      truncated=output.stop_reason in _TRUNCATED,
                      input_tokens=usage.input_tokens if usage else None,
                      output_tokens=usage.output_tokens if usage else None,
                      seconds=float(output.time or 0.0))


def _grade_value(record: Mapping[str, Any], grade: str) -> float:
    if record.get("infra_error"):
        return 0.0  # an infrastructure failure stays in the denominator, never a pass
    data = (record.get("grades") or {}).get(grade) or {}
    if data.get("verdict") in (None, "not_run"):
        return math.nan
    if grade == "behavior" and data.get("covered") is False:
        return math.nan  # the reference fails its own check: the grade does not apply
    return 1.0 if data.get("passed") else 0.0


def counterexample_summary(behavior: Mapping[str, Any]) -> dict[str, Any] | None:
    """Length, actions and last state of the behavior grade's counterexample, if any."""
    trace = [s for s in behavior.get("trace") or [] if isinstance(s, Mapping)]
    if not trace:
        return None
    return {"of": behavior.get("trace_of"), "states": len(trace),
            "actions": [s.get("action") for s in trace[:10]],
            "last_state": trace[-1].get("variables")}


def score_of(outcome: CaseOutcome) -> Score:
    """One inspect Score of a graded case: a value per grade, the verdicts, the record."""
    record = outcome.record
    grades = record.get("grades") or {}
    lines = []
    for grade in GRADE_KEYS:
        data = grades.get(grade) or {}
        if data:
            reason = f": {data['reason']}" if data.get("reason") else ""
            lines.append(f"{grade}: {data.get('verdict')}{reason}")
    if record.get("infra_error"):
        lines.append(f"infrastructure error: {record['infra_error']}")
    behavior = grades.get("behavior") or {}
    return Score(
        value={g: _grade_value(record, g) for g in GRADE_KEYS},
        answer=record.get("module"), explanation="\n".join(lines),
        metadata={"verdicts": {g: (grades.get(g) or {}).get("verdict") for g in GRADE_KEYS},
                  "passed": outcome.passed, "reason": outcome.reason,
                  "mapping": behavior.get("mapping"),
                  "tlc_runs": behavior.get("tlc_runs"),
                  "counterexample": counterexample_summary(behavior),
                  RECORD_KEY: record})


@hooks(name="alias_bench_close", description="Closes ALIAS's TLC harnesses when a run ends.")
class CloseAliasRuns(Hooks):
    """One harness per process for a whole run, closed when the run ends."""

    async def on_run_end(self, data: RunEnd) -> None:
        if "alias_fixtures.inspect_eval.cases" in sys.modules:  # nothing was started otherwise
            from alias_fixtures.inspect_eval.cases import close_runs

            await asyncio.to_thread(close_runs)
