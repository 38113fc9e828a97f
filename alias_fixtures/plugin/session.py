"""One benchmark run's state: tasks, verified variants, the model, the harness; grades cases."""

from __future__ import annotations

import functools
import hashlib
import time
import traceback
from contextlib import ExitStack
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from alias_fixtures.grading.executors import (
    GradeJob,
    GradingExecutor,
    apply_result,
    make_executor,
    parse_executor,
)
from alias_fixtures.grading.executors.base import GradeResult
from alias_fixtures.grading.extract import extract_module
from alias_fixtures.grading.feedback import Feedback
from alias_fixtures.grading.turns import (
    TraceStates,
    TurnCheck,
    cheats_in,
    failure_reason,
    feedback_after,
    shown_trace,
)
from alias_fixtures.models.cost import Prices
from alias_fixtures.models.registry import (
    ChatMessage,
    GenerationParams,
    GenerationRequest,
    ModelAdapter,
    ModelError,
    make_model,
)
from alias_fixtures.plugin.options import Settings
from alias_fixtures.plugin.provenance import RunFacts, run_header
from alias_fixtures.tasks.descriptions import hidden_names
from alias_fixtures.tasks.loaders import load_sources
from alias_fixtures.tasks.prompts import render_prompt
from alias_fixtures.tasks.task import SkippedTask, Task, TaskError
from alias_fixtures.tasks.variants import (
    Variant,
    VariantStore,
    Verification,
    build_variant,
    build_variants,
)
from reports.schema import RECORD_SCHEMA_VERSION as SCHEMA_VERSION
from tlc_harness.tools.runner import Harness

RESULTS_FILE = "results.jsonl"


class TaskSourceError(ValueError):
    """A task source cannot be read at all (a missing folder, two sources with one id)."""


@dataclass(frozen=True)
class CaseSpec:
    """One (task, condition, sample); its id is stable across runs."""

    task: str
    condition: str
    sample: int

    @property
    def id(self) -> str:
        return f"{self.task}/{self.condition}/s{self.sample}"


@dataclass
class CaseOutcome:
    """The record of a graded case and what it means for the test."""

    record: dict[str, Any]
    passed: bool
    reason: str
    infra_error: str | None = None


@dataclass
class AliasSession:
    """Per-process run state; the harness and the model are started on first use."""

    settings: Settings
    tasks: dict[str, Task] = field(default_factory=dict)
    skipped: tuple[SkippedTask, ...] = ()  # tasks of the sources that cannot be loaded
    _harness: Harness | None = None
    _model: ModelAdapter | None = None
    _executor: GradingExecutor | None = None
    ray_address: str | None = None  # an xdist worker: the Ray its controller started
    _own_ray: bool = False          # this process started a private Ray (closed with it)
    # the controller's variant verification: seconds, variants, how many TLC verified now
    preparation: dict[str, float] = field(default_factory=dict)
    _variants: dict[tuple[str, str], tuple[Variant | None, Verification]] = field(
        default_factory=dict)
    _prices: Prices | None = None

    @classmethod
    def start(cls, settings: Settings) -> AliasSession:
        try:
            found = load_sources(settings.task_sources, style=settings.style,
                                 category=settings.category,
                                 module_path=settings.module_folders)
        except TaskError as exc:
            raise TaskSourceError(f"--alias-tasks: {exc}") from exc
        return cls(settings, {t.id: t for t in found.tasks}, found.skipped)

    @property
    def out(self) -> Path:
        return Path(self.settings.out)

    @property
    def results_path(self) -> Path:
        return self.out / RESULTS_FILE

    def cases(self) -> list[CaseSpec]:
        """Every (task, condition, sample), the tasks whose model costs TLC most first (as
        their metadata says, `Task.expected_seconds`; then by id): xdist hands a worker its
        next variant's cases while it still grades the current one, so a heavy variant
        queued last would leave the other workers idle at the end of the run."""
        order = sorted(self.tasks, key=lambda t: (-self.tasks[t].expected_seconds, t))
        return [CaseSpec(t, c, s) for t in order for c in self.settings.conditions
                for s in range(self.settings.samples)]

    @property
    def harness(self) -> Harness:
        if self._harness is None:
            self._harness = self._new_harness(self.settings.sweep_jobs)
        return self._harness

    def _new_harness(self, pool_size: int) -> Harness:
        return Harness(tlc_timeout=self.settings.timeout, pool_size=pool_size)

    @property
    def executor(self) -> GradingExecutor:
        """Where outputs are graded (`--alias-executor`); a Ray pool holds one actor per
        pytest process, which grades one case at a time (`-n N` keeps N cases in flight)."""
        if self._executor is None:
            spec = self.settings.executor
            kind, _ = parse_executor(spec)
            if kind == "ray" and self.ray_address:
                spec = f"ray:{self.ray_address}"
            self._executor = make_executor(
                spec, harness=lambda: self.harness, workers=1 if kind == "ray" else None,
                harness_options={"tlc_timeout": self.settings.timeout,
                                 "pool_size": self.settings.sweep_jobs},
                expected_jar_sha256=self.harness.toolchain.jar_sha256 if kind == "ray" else None)
        return self._executor

    def local_ray_address(self, workers: int = 1) -> str:
        """Start a private Ray in this process (the xdist controller's, for its `workers`),
        with a CPU for each worker's actor even on a machine with fewer cores."""
        import os

        from alias_fixtures.grading.executors.ray_pool import start_local_ray

        address, started = start_local_ray(num_cpus=max(os.cpu_count() or 1, workers))
        self._own_ray = self._own_ray or started
        return address

    @property
    def params(self) -> GenerationParams:
        return GenerationParams(temperature=self.settings.temperature,
                                top_p=self.settings.top_p, max_tokens=self.settings.max_tokens)

    @property
    def model(self) -> ModelAdapter:
        if self._model is None:
            from alias_fixtures.models.cache import cached_if_remote
            from alias_fixtures.models.token_count import counted_if_remote

            adapter = cached_if_remote(make_model(self.settings.model, self.params), self.out)
            self._model = counted_if_remote(adapter, self.settings.tokenizer)
        return self._model

    def stored_variant_count(self) -> int:
        """How many verified variants the run's variant cache holds (cold or warm start)."""
        folder = Path(self.settings.variant_cache)
        return sum(1 for _ in folder.glob("*.json")) if folder.is_dir() else 0

    def _variant_store(self) -> VariantStore:
        return VariantStore(self.settings.variant_cache,
                            jar_sha256=self.harness.toolchain.jar_sha256)

    def variant(self, task_id: str, condition: str) -> tuple[Variant | None, Verification]:
        key = (task_id, condition)
        if key not in self._variants:
            self._variants[key] = build_variant(
                self.harness, self.tasks[task_id], condition, seed=self.settings.seed,
                maps_dir=self.settings.maps or None, store=self._variant_store())
        return self._variants[key]

    def verify_variants(self, pairs: list[tuple[str, str]], jobs: int = 1) -> None:
        """Build and verify the (task, condition) `pairs` not built yet, `jobs` at once (the
        controller, while xdist's workers wait for their first case), each task's own TLC
        run once for all its conditions."""
        todo = [pair for pair in pairs if pair not in self._variants]
        if not todo:
            return
        with ExitStack() as stack:  # a pool of `jobs` JVMs, for this only
            harness = stack.enter_context(self._new_harness(jobs)) if jobs > 1 else self.harness
            self._variants.update(build_variants(
                harness, self.tasks, todo, seed=self.settings.seed,
                maps_dir=self.settings.maps or None, store=self._variant_store(), jobs=jobs))

    def prepare_variants(self, jobs: int = 1) -> list[tuple[str, str, Verification]]:
        """Build and verify every variant once (the controller does this before workers)."""
        pairs = [(t, c) for t in sorted(self.tasks) for c in self.settings.conditions]
        self.verify_variants(pairs, jobs)
        return [(t, c, self.variant(t, c)[1]) for t, c in pairs]

    def facts(self) -> RunFacts:
        """The run's facts for its header (starts the harness and the model)."""
        return RunFacts(self.settings, provider=self.model.provider,
                        model_id=self.model.model_id,
                        toolchain=self.harness.toolchain.describe(),
                        module_library=self.harness.module_library.describe(),
                        task_count=len(self.tasks), params=self.params.key())

    def header(self) -> dict[str, Any]:
        settings = self.settings
        # what `alias-bench regrade` needs to rebuild the variants and grade as this run did
        return {**run_header(self.facts()), "executor": settings.executor,
                "behavior_engine": settings.behavior_engine,
                "graph_budget": settings.graph_budget,
                "behavior_budget": settings.behavior_budget, "maps": settings.maps,
                "style": settings.style, "category": settings.category,
                "module_path": settings.module_path,
                "skipped_tasks": [{"task": s.id, "reason": s.reason} for s in self.skipped],
                **({"preparation": self.preparation} if self.preparation else {}),
                **self._track(),
                **({"tokenizer": settings.tokenizer} if settings.tokenizer else {})}

    def _track(self) -> dict[str, Any]:
        """The feedback track's settings for the header (none for a one-shot run)."""
        if self.settings.turns == 1:
            return {}
        return {"turns": self.settings.turns, "feedback_levels": list(self.settings.feedback),
                "prices": self.prices.origin}

    def close(self) -> None:
        closer = getattr(self._model, "close", None)
        if callable(closer):
            closer()
        self._model = None
        if self._executor is not None:
            self._executor.close()
            self._executor = None
        if self._own_ray:
            import ray

            ray.shutdown()
            self._own_ray = False
        if self._harness is not None:
            self._harness.close()
            self._harness = None

    # ------------------------------------------------------------------ one case
    def run_case(self, case: CaseSpec) -> CaseOutcome:
        """Generate (or replay) the output, grade it, and build its record."""
        start = time.monotonic()
        record: dict[str, Any] = {
            "schema_version": SCHEMA_VERSION, "kind": "case", "id": case.id,
            "model": self.settings.model, "task": case.task, "condition": case.condition,
            "sample": case.sample, "hidden_names": [], "grades": {}, "infra_error": None,
            "published": self.tasks[case.task].published,
        }
        try:
            variant, check = self.variant(case.task, case.condition)
            if variant is None or not check.verified:
                record["infra_error"] = f"variant not verified: {check.reason}"
                record["excluded"] = True
                return CaseOutcome(record, False, record["infra_error"], record["infra_error"])
            record["hidden_names"] = [h.name for h in hidden_names(variant.description,
                                                                   variant.cfg)]
            prompt = render_prompt(variant.description)
            record["prompt_sha256"] = hashlib.sha256(prompt.encode()).hexdigest()[:16]
            request = GenerationRequest(
                case.task, case.condition, case.sample, prompt, params=self.params,
                reference=variant.reference_text()
                if self.settings.model.partition(":")[0] == "reference"
                else None)
            if self.settings.turns == 1:
                self._turn(record, case, variant, request)
            else:
                self._turns(record, case, variant, request)
        except ModelError as exc:
            record["infra_error"] = f"model: {exc}"
        except Exception as exc:  # noqa: BLE001 - any crash here is the harness's, recorded
            record["infra_error"] = f"{type(exc).__name__}: {exc}"
            record["traceback"] = traceback.format_exc(limit=8)
        record["seconds"] = round(time.monotonic() - start, 3)
        if record["infra_error"]:
            return CaseOutcome(record, False, record["infra_error"], record["infra_error"])
        return self._outcome(record)

    def _turn(self, entry: dict[str, Any], case: CaseSpec, variant: Variant,
              request: GenerationRequest) -> tuple[GradeResult, str]:
        """Generate one output and grade it, writing its fields into `entry` (a case record,
        or one turn of it); returns the grade result and the output's text."""
        generation = self.model.generate(request)
        entry["generation"] = generation.to_json()
        entry["output_sha256"] = hashlib.sha256(generation.text.encode()).hexdigest()
        entry["output_path"] = str(self._save_output(case, generation.text, request.turn))
        result = self.executor.grade(GradeJob(
            case.id, variant, generation.text, grades=self.settings.grades,
            behavior=self.settings.behavior_options(), timeout=self.settings.timeout,
            grade_cache=self.settings.grade_cache))
        apply_result(entry, result, self.settings.grades)
        if result.grades is not None:
            entry["similarity"] = output_similarity(variant, generation.text)
        if self.executor.name != "local":
            entry["grader"] = {**entry.get("grader", {}), "executor": self.executor.name,
                               "worker": result.worker, "attempts": result.attempts,
                               "seconds": round(result.seconds, 3)}
        elif result.attempts > 1:  # graded again after a wall-clock limit ended a grade
            entry["grader"] = {**entry.get("grader", {}), "attempts": result.attempts}
        return result, generation.text

    def _turns(self, record: dict[str, Any], case: CaseSpec, variant: Variant,
               first: GenerationRequest) -> None:
        """The feedback track: up to `turns` outputs, each graded and checked by the cheat
        rules; a failed turn's feedback goes back to the model with the conversation. The
        record's own fields are the last turn's; every turn is kept in `turns`."""
        settings = self.settings
        record.update({"turns_max": settings.turns, "feedback_levels": list(settings.feedback),
                       "cheats": [], "cost_usd": None, "turns": []})
        request = first
        shown: TraceStates = ()
        for number in range(1, settings.turns + 1):
            began = time.monotonic()
            entry: dict[str, Any] = {"turn": number, "infra_error": None}
            record["turns"].append(entry)
            result: GradeResult | None = None
            try:
                result, text = self._turn(entry, case, variant, request)
            except ModelError as exc:
                entry["infra_error"] = f"model: {exc}"
            entry["cost_usd"] = self._cost(entry.get("generation"))
            if entry["infra_error"] is not None or result is None or result.grades is None:
                entry["seconds"] = round(time.monotonic() - began, 3)
                break
            check = TurnCheck(result.grades, cheats_in(variant, text, shown), settings.primary)
            entry.update(check.to_json())
            entry["feedback"] = None
            if not check.passed and number < settings.turns:
                feedback = feedback_after(check, settings.feedback)
                entry["feedback"] = feedback.to_json()
                shown = shown + shown_trace(check, feedback)
                request = replace(request, history=(
                    *request.history, ChatMessage("assistant", text),
                    ChatMessage("user", feedback_message(feedback), feedback.levels)))
            entry["seconds"] = round(time.monotonic() - began, 3)
            if check.passed:
                break
        last = record["turns"][-1]
        for key in ("generation", "output_sha256", "output_path", "grades", "module",
                    "similarity", "grader", "cheats"):
            if key in last:
                record[key] = last[key]
        record["infra_error"] = last["infra_error"]
        costs = [t["cost_usd"] for t in record["turns"]]
        record["cost_usd"] = None if None in costs else round(sum(costs), 6)

    def _cost(self, generation: dict[str, Any] | None) -> float | None:
        """The USD cost of one generation (None: no price, or no token counts)."""
        if generation is None:
            return None
        prices = self.prices
        price = prices.price_of(str(generation["model"])) or prices.price_of(self.settings.model)
        if price is None:
            return None
        if price.free:
            return 0.0
        tokens_in, tokens_out = generation.get("input_tokens"), generation.get("output_tokens")
        if tokens_in is None or tokens_out is None:
            return None
        return round(price.cost_usd(tokens_in, tokens_out), 6)

    @property
    def prices(self) -> Prices:
        if self._prices is None:
            self._prices = Prices.load(self.settings.prices or None)
        return self._prices

    def _save_output(self, case: CaseSpec, text: str, turn: int = 1) -> Path:
        safe_model = self.settings.model.replace("/", "_").replace(":", "_")
        name = f"s{case.sample}.txt" if turn == 1 else f"s{case.sample}_t{turn}.txt"
        path = self.out / "outputs" / safe_model / case.task / case.condition / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return path

    def _outcome(self, record: dict[str, Any]) -> CaseOutcome:
        if record.get("cheats"):
            return CaseOutcome(record, False, record["turns"][-1]["reason"])
        reason = failure_reason(record["grades"], self.settings.primary)
        return CaseOutcome(record, not reason, reason)


def feedback_message(feedback: Feedback) -> str:
    """The user message after a failed turn: the feedback, and the request to write again."""
    said = feedback.text or "Your module does not yet meet the task."
    return (f"{said}\n\nWrite the corrected TLA+ module in full, in one ```tla block, with "
            "the same module name.")


def output_similarity(variant: Variant, reply: str) -> dict[str, float] | None:
    """ROUGE-L and BLEU of the extracted module against the variant's reference."""
    extracted = extract_module(reply)
    if extracted.text is None:
        return None
    try:
        return dict(_similarity(extracted.text, variant.modules[f"{variant.main_module}.tla"]))
    except ImportError:
        return None  # the `probes` extra (rouge-score, sacrebleu) is not installed


@functools.lru_cache(maxsize=64)
def _similarity(text: str, reference: str) -> dict[str, float]:
    """`reports.similarity.similarity`, once per pair of texts in a process: it costs about
    0.4 s on a reference's length, which a sample whose grades the grade cache holds would
    otherwise spend on it alone (the reference model's five samples are one text)."""
    from reports.similarity import similarity

    return similarity(text, reference)
