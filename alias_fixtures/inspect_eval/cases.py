"""The ALIAS side of the inspect_ai task: settings, verified variants and graded case records.

Nothing here imports inspect_ai. An :class:`InspectRun` holds the benchmark's session (its
harness, tasks and verified variants) and grades an inspect output with the session's own
``run_case``: an :class:`InspectSession` is an :class:`AliasSession` whose model hands over
the text inspect generated, so every record is exactly what the benchmark writes. Grading
runs on a thread pool as wide as the harness's JVM pool. Runs are shared per settings
(:func:`run_for`) and closed together (:func:`close_runs`).

The feedback track (`turns` > 1): the inspect solver checks each turn's output with
:meth:`InspectRun.check_turn` (the session's own grading call and the cheat rules), and the
scorer hands every turn's output to the session's multi-turn ``run_case``; the session
grades through :class:`RememberedGrades`, which answers an output the solver already graded
from memory, so no turn is graded twice.
"""

from __future__ import annotations

import atexit
import hashlib
import json
import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from alias_fixtures.grading.executors import GradeJob, GradeResult, GradingExecutor
from alias_fixtures.grading.feedback import parse_levels
from alias_fixtures.grading.turns import TraceStates, TurnCheck, cheats_in
from alias_fixtures.models.registry import (
    Generation,
    GenerationRequest,
    ModelAdapter,
    ModelError,
    ReferenceModel,
)
from alias_fixtures.plugin.options import OPTIONS, Settings, check_settings
from alias_fixtures.plugin.session import AliasSession, CaseOutcome, CaseSpec
from alias_fixtures.tasks.descriptions import hidden_names
from alias_fixtures.tasks.prompts import render_prompt
from alias_fixtures.tasks.variants import Variant

MODEL_PLACEHOLDER = "inspect"
"""The model of the session that builds the dataset (the real one is known when scoring)."""
DEFAULT_OUT = "alias-results/inspect"
_TUPLES = ("conditions", "grades")
_PATHS = ("out", "maps", "cache")


def default_params() -> dict[str, str]:
    """The benchmark's option defaults (options.OPTIONS), by Settings field name."""
    values = {name.replace("-", "_"): default for name, default, _ in OPTIONS}
    return {**values, "model": MODEL_PLACEHOLDER, "out": DEFAULT_OUT}


def inspect_settings(params: Mapping[str, Any]) -> Settings:
    """Settings from task parameters (strings, numbers or lists, as `-T` gives them).

    Unknown names and contradictions raise ValueError, as the benchmark's options fail early.
    """
    known = {f.name: f for f in fields(Settings)}
    unknown = sorted(set(params) - set(known))
    if unknown:
        raise ValueError(f"unknown ALIAS setting(s) {unknown}")
    merged: dict[str, Any] = {**default_params(), "resume": False, "strict": False, **params}
    values: dict[str, Any] = {}
    for name, value in merged.items():
        if name in _TUPLES:
            items = value.split(",") if isinstance(value, str) else list(value)
            values[name] = tuple(str(v).strip() for v in items if str(v).strip())
        elif known[name].type in ("int", int):
            values[name] = int(value)
        elif known[name].type in ("float", float):
            values[name] = float(value)
        elif known[name].type in ("bool", bool):
            values[name] = value if isinstance(value, bool) else str(value).lower() in ("1", "true")
        else:
            values[name] = "" if value is None else str(value)
    values["feedback"] = _levels(merged["feedback"])
    for name in _PATHS:
        if values[name]:
            values[name] = str(Path(values[name]).expanduser().resolve())
    values["tasks"] = ",".join(
        part if part == "builtin" else str(Path(part).expanduser().resolve())
        for part in (p.strip() for p in values["tasks"].split(",")) if part)
    values["exposure_half"] = values["exposure_half"].upper()
    settings = Settings(**values)
    check_settings(settings)  # the plugin's own check: SettingError is a ValueError
    return settings


def _levels(value: Any) -> tuple[str, ...]:
    """Feedback levels from `parse,tlc,names`, a list of them, or `none`."""
    text = value if isinstance(value, str) else ",".join(str(v) for v in value)
    return parse_levels(text)


def rename_map_sha256(variant: Variant) -> str:
    """A short hash of a variant's rename map (the empty map for `original`)."""
    text = json.dumps(sorted(variant.rename_map.items()), separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


@dataclass(frozen=True)
class VariantSample:
    """One verified variant as an inspect sample: its id, prompt and metadata."""

    task: str
    condition: str
    prompt: str
    hidden_names: tuple[str, ...]
    rename_map_sha256: str

    @property
    def id(self) -> str:
        return f"{self.task}/{self.condition}"

    def metadata(self) -> dict[str, Any]:
        return {"task": self.task, "condition": self.condition,
                "hidden_names": list(self.hidden_names),
                "rename_map_sha256": self.rename_map_sha256,
                "prompt_sha256": hashlib.sha256(self.prompt.encode()).hexdigest()[:16]}


class InspectOutputs:
    """A model adapter that returns what inspect generated for each case and turn (set before
    grading)."""

    provider = "inspect"

    def __init__(self, model_id: str) -> None:
        self.model_id = model_id
        self._pending: dict[tuple[str, str, int, int], Generation] = {}
        self._lock = threading.Lock()

    def put(self, case: CaseSpec, generation: Generation, turn: int = 1) -> None:
        with self._lock:
            self._pending[(case.task, case.condition, case.sample, turn)] = generation

    def drop(self, case: CaseSpec) -> None:
        """Forget a case's outputs that grading did not ask for."""
        with self._lock:
            for key in [k for k in self._pending if k[:3] == (case.task, case.condition,
                                                               case.sample)]:
                del self._pending[key]

    def generate(self, request: GenerationRequest) -> Generation:
        key = (request.task_id, request.condition, request.sample, request.turn)
        with self._lock:
            found = self._pending.pop(key, None)
        if found is None:
            turn = f" turn {request.turn}" if request.turn > 1 else ""
            raise ModelError(f"no inspect output for {request.task_id}/{request.condition}/"
                             f"s{request.sample}{turn}")
        return found


class RememberedGrades:
    """A grading executor that keeps the results of the jobs it is asked to `keep` (the
    feedback solver's checks) and answers the same output of the same case from them."""

    def __init__(self, inner: GradingExecutor) -> None:
        self.inner = inner
        self.name = inner.name
        self._kept: dict[tuple[str, str], GradeResult] = {}
        self._lock = threading.Lock()

    def keep(self, job: GradeJob) -> GradeResult:
        """Grade a job (or recall it) and keep its result for the case's scoring."""
        result = self.grade(job)
        with self._lock:
            self._kept[(job.case_id, job.reply)] = result
        return result

    def forget(self, case_id: str) -> None:
        with self._lock:
            for key in [k for k in self._kept if k[0] == case_id]:
                del self._kept[key]

    def grade(self, job: GradeJob) -> GradeResult:
        with self._lock:
            kept = self._kept.get((job.case_id, job.reply))
        return kept if kept is not None else self.inner.grade(job)

    def grade_all(self, jobs: Iterable[GradeJob]) -> Iterator[GradeResult]:
        for job in jobs:
            yield self.grade(job)

    def close(self) -> None:
        self.inner.close()


@dataclass
class InspectSession(AliasSession):
    """The benchmark's session whose model is what inspect generated."""

    outputs: InspectOutputs = field(default_factory=lambda: InspectOutputs(MODEL_PLACEHOLDER))
    _remembered: RememberedGrades | None = None

    @property
    def model(self) -> ModelAdapter:
        return self.outputs

    @property
    def executor(self) -> RememberedGrades:
        """The session's executor, remembering the feedback solver's checks."""
        inner = super().executor
        if self._remembered is None or self._remembered.inner is not inner:
            self._remembered = RememberedGrades(inner)
        return self._remembered

    def close(self) -> None:
        super().close()
        self._remembered = None


class InspectRun:
    """One process's ALIAS state for inspect: the session, the variants, the grading pool.

    The session that builds the dataset grades the first model's outputs too (one harness
    per process); a further model in the same process gets a session of its own, whose
    variants come from the on-disk cache the first one filled.
    """

    def __init__(self, settings: Settings, only: Iterable[str] = ()) -> None:
        self.only = tuple(sorted(set(only)))
        self.base = self._start(settings)
        self._bound = False
        self._sessions: dict[str, InspectSession] = {}
        self._lock = threading.Lock()
        self._executor: ThreadPoolExecutor | None = None
        self._references: dict[tuple[str, str, str], str] = {}

    def _start(self, settings: Settings) -> InspectSession:
        session = InspectSession.start(settings)
        assert isinstance(session, InspectSession)
        if self.only:
            missing = [t for t in self.only if t not in session.tasks]
            if missing:
                raise ValueError(f"no task {', '.join(missing)} in {settings.tasks} (known: "
                                 f"{', '.join(sorted(session.tasks))})")
            session.tasks = {t: session.tasks[t] for t in self.only}
        session.outputs = InspectOutputs(settings.model)
        return session

    @property
    def settings(self) -> Settings:
        return self.base.settings

    # ------------------------------------------------------------------ the dataset
    def samples(self) -> tuple[list[VariantSample], list[tuple[str, str, str]]]:
        """The verified variants as samples, and (task, condition, reason) of those excluded."""
        chosen, excluded = [], []
        for task, condition, check in self.base.prepare_variants():
            variant = self.base.variant(task, condition)[0]
            if variant is None or not check.verified:
                excluded.append((task, condition, str(check.reason)))
                continue
            hidden = tuple(h.name for h in hidden_names(variant.description, variant.cfg))
            digest = rename_map_sha256(variant)
            chosen.append(VariantSample(task, condition, render_prompt(variant.description),
                                        hidden, digest))
            self._references[(task, condition, digest)] = variant.reference_text()
        return chosen, excluded

    def reference_reply(self, task: str, condition: str, map_sha256: str) -> str | None:
        """What the benchmark's `reference` model answers for a variant of this run, if any."""
        reference = self._references.get((task, condition, map_sha256))
        if reference is None:
            return None
        request = GenerationRequest(task, condition, 0, "", reference=reference)
        return ReferenceModel().generate(request).text

    def header(self) -> dict[str, Any]:
        """The run header the benchmark writes; the model fields name the placeholder."""
        return self.base.header()

    # ------------------------------------------------------------------ grading
    @property
    def executor(self) -> ThreadPoolExecutor:
        """Grading threads: as many as the harness has JVM workers."""
        with self._lock:
            if self._executor is None:
                size = max(1, self.base.harness.settings.pool_size)
                self._executor = ThreadPoolExecutor(size, thread_name_prefix="alias-grade")
            return self._executor

    def _session_for(self, model: str) -> InspectSession:
        with self._lock:
            if model not in self._sessions:
                if not self._bound:
                    self._bound = True
                    self.base.settings = replace(self.base.settings, model=model)
                    self.base.outputs = InspectOutputs(model)
                    self._sessions[model] = self.base
                else:
                    self._sessions[model] = self._start(replace(self.base.settings, model=model))
            return self._sessions[model]

    def grade(self, case: CaseSpec, model: str, generation: Generation) -> CaseOutcome:
        """Grade one output with the benchmark's run_case (blocking: call it on the executor)."""
        session = self._session_for(model)
        session.outputs.put(case, generation)
        return session.run_case(case)

    def check_turn(self, case: CaseSpec, model: str, reply: str,
                   shown: TraceStates = ()) -> TurnCheck | str:
        """One turn of the feedback track judged as the benchmark judges it: the session's
        grading call, then the cheat rules (given the trace states feedback showed before).
        A string says why the turn could not be judged. Blocking: call it on the executor."""
        session = self._session_for(model)
        variant, verification = session.variant(case.task, case.condition)
        if variant is None or not verification.verified:
            return f"variant not verified: {verification.reason}"
        settings = session.settings
        result = session.executor.keep(GradeJob(
            case.id, variant, reply, grades=settings.grades,
            behavior=settings.behavior_options(), timeout=settings.timeout,
            grade_cache=settings.grade_cache))
        if result.grades is None:
            return result.infra_error or "grading failed"
        return TurnCheck(result.grades, cheats_in(variant, reply, shown), settings.primary)

    def grade_turns(self, case: CaseSpec, model: str,
                    generations: Sequence[Generation]) -> CaseOutcome:
        """Grade a feedback-track case from its turns' outputs with the benchmark's run_case
        (blocking: call it on the executor)."""
        session = self._session_for(model)
        for turn, generation in enumerate(generations, start=1):
            session.outputs.put(case, generation, turn)
        try:
            return session.run_case(case)
        finally:
            session.outputs.drop(case)
            session.executor.forget(case.id)

    def close(self) -> None:
        with self._lock:
            if self._executor is not None:
                self._executor.shutdown(wait=True)
                self._executor = None
            sessions = [s for s in self._sessions.values() if s is not self.base]
            self._sessions.clear()
        for session in (*sessions, self.base):
            session.close()


_RUNS: dict[tuple[Settings, tuple[str, ...]], InspectRun] = {}
_RUNS_LOCK = threading.Lock()


def run_for(settings: Settings, only: Iterable[str] = ()) -> InspectRun:
    """The process's run for these settings and tasks (started on first use)."""
    key = (settings, tuple(sorted(set(only))))
    with _RUNS_LOCK:
        if key not in _RUNS:
            if not _RUNS:
                atexit.register(close_runs)  # a run that never reaches its end hook
            _RUNS[key] = InspectRun(settings, key[1])
        return _RUNS[key]


def find_reference(task: str, condition: str, map_sha256: str) -> str:
    """The reference reply for a variant of any open run whose rename map has this hash."""
    with _RUNS_LOCK:
        runs = list(_RUNS.values())
    for run in runs:
        reply = run.reference_reply(task, condition, map_sha256)
        if reply is not None:
            return reply
    raise ModelError(f"no open ALIAS run holds the variant {task}/{condition} "
                     f"(map {map_sha256}): the reference model answers ALIAS tasks only")


def close_runs() -> None:
    """Close every run of this process (their harnesses and grading threads)."""
    with _RUNS_LOCK:
        runs = list(_RUNS.values())
        _RUNS.clear()
    for run in runs:
        run.close()
