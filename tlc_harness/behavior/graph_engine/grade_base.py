"""The graph engine's grade of one output: its retries and stages, the runs and facts it
keeps, and how it explores a graph (`GradeBase`; `grade.GraphGrade` is the whole grade)."""

from __future__ import annotations

import time
from collections.abc import Callable, Hashable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from tlc_harness.behavior.graph_engine.any_mapping import AnyMapping
from tlc_harness.behavior.graph_engine.bounds import Bounds
from tlc_harness.behavior.graph_engine.completeness import ClassCheck
from tlc_harness.behavior.graph_engine.constant_maps import ConstantPlan
from tlc_harness.behavior.graph_engine.output_graph import (
    OUTPUT_CAP,
    OutputModel,
    output_budget,
    output_model,
)
from tlc_harness.behavior.graphs import Exploration, OwnCheck, StateGraph, explore, graph_cache
from tlc_harness.behavior.policy import Job, StepAside
from tlc_harness.behavior.search import Candidate
from tlc_harness.behavior.stage_clock import StageClock
from tlc_harness.behavior.staging import (
    CfgValues,
    Staged,
)
from tlc_harness.behavior.sweeps import Sweep
from tlc_harness.behavior.verdicts import (
    BehaviorResult,
    BehaviorVerdict,
    Reason,
)
from tlc_harness.source.cfg import ModelConfig
from tlc_harness.tools.results import LIMIT_VERDICTS
from tlc_harness.tools.spec import SpecSource

#: the retries of the graph engine, in the order they can fire, and what each one does
RETRIES: dict[str, str] = {
    "values_swept": "an output constant the reference gives no value (a BOOLEAN, a guessed "
                    "number) takes each value in turn; a failure needs every admissible value "
                    "to fail, an `ok` every admissible value to pass",
    "model_values_for_numbers": "the output's run stops at an evaluation error under a set of "
                                "numbers the grader chose (`1..N`): the same sizes as model "
                                "values",
    "recut_under_failing_mapping": "a failure on a graph cut at R's CONSTRAINT under another "
                                   "mapping than the cut's: the output's graph is cut again "
                                   "under the failing mapping, once",
    "confirm_without_fairness": "TLC cannot evaluate R's fairness as a property: the "
                                "confirming run checks R's safety part, the graphs decided both "
                                "directions",
    "next_constant_map": "a map of the output's constants that gives no mapping: the next "
                         "likeliest map (at most three)",
    "bounded_sets": "the output's run stops at an evaluation error and its specification reads "
                    "`Nat`, `Int` or `Seq`: explored again with those sets bounded, where only "
                    "a forward failure decides",
}
#: the stages a grade times (`stage_seconds` in its details), in the order they run
STAGES = ("reference_graph", "output_graph", "inference", "any_mapping", "replay", "confirm",
          "reverse_liveness")
LIMITS = frozenset(v.value for v in LIMIT_VERDICTS)


@dataclass
class GradeBase:
    """One output's grade on the graphs: the stages' hand-offs, and the runs and facts kept."""

    job: Job
    runs: int = 0
    started: float = field(default_factory=time.monotonic)
    facts: dict[str, Any] = field(default_factory=dict)
    #: seconds spent in each stage (`STAGES`), summed over the constant maps graded
    clock: StageClock = field(init=False)
    #: the output's own runs under the values of a sweep, started ahead (`sweeps`)
    sweep: Sweep[Exploration] = field(default_factory=lambda: Sweep(1))
    #: the class of every state mapping, decided per pair of graphs (`any_mapping`)
    decisions: list[tuple[StateGraph, StateGraph, AnyMapping]] = field(default_factory=list)
    #: the candidates the classes found for the last failure (`with_class`), by source
    class_candidates: list[tuple[str, tuple[int, ...]]] = field(default_factory=list)
    #: the named class of the last failure where its only members that do not fail on the
    #: graphs are candidates among `class_candidates`: TLC refuting each decides it
    class_rest: ClassCheck | None = None
    #: the last failure's graphs are isomorphic and these are all their isomorphisms, each a
    #: candidate among `class_candidates`: TLC refuting each is a failure under any mapping
    class_every: AnyMapping | None = None
    #: the reference's own checks its graph's exploration made, held on every reachable
    #: state and step (`graphs.OwnCheck`)
    ref_checked: frozenset[OwnCheck] = frozenset()

    def __post_init__(self) -> None:
        self.clock = StageClock(self.job.deadline)

    def result(self, verdict: BehaviorVerdict, reason: str, code: Reason | None = None,
               **kw: Any) -> BehaviorResult:
        return BehaviorResult(verdict, kw.pop("mapping", None), reason,
                              time.monotonic() - self.started, tlc_runs=self.runs,
                              engine="graphs", details={**self.facts, **kw.pop("details", {}),
                                                        "stage_seconds": dict(self.timings)},
                              code=code, **kw)

    def step_aside(self, why: str, code: Reason) -> StepAside:
        return StepAside(why, code, self.runs, {**self.facts,
                                                "stage_seconds": dict(self.timings)})

    @property
    def timings(self) -> dict[str, float]:
        return self.clock.seconds

    def timed(self, stage: str) -> AbstractContextManager[None]:
        """Add the seconds the block takes to `stage`'s; the stage starts only while the
        output's budget lasts (`deadline`)."""
        assert stage in STAGES, stage
        return self.clock.timed(stage)

    def retried(self, name: str) -> None:
        assert name in RETRIES, name
        self.facts["retries"] = (*self.facts.get("retries", ()), name)

    def explore(self, spec: SpecSource, cfg: ModelConfig, tlc_args: tuple[str, ...], *,
                cached: bool, definitions: tuple[str, ...] = (),
                budget: int | None = None, ahead: Hashable | None = None,
                own_checks: bool = False) -> Exploration:
        """TLC's graph of `spec` under `cfg`; `ahead`: the key of a run the sweep may have
        started already (`start_ahead`); `own_checks`: the run checks the model's own
        invariants and properties too (`graphs.explore`)."""
        run = self.exploration(spec, cfg, tlc_args, cached=cached, definitions=definitions,
                               budget=budget, own_checks=own_checks)
        with self.timed("reference_graph" if cached else "output_graph"):
            found = run() if ahead is None else self.sweep.take(ahead, run)
        self.runs += found.tlc_runs
        return found

    def exploration(self, spec: SpecSource, cfg: ModelConfig, tlc_args: tuple[str, ...], *,
                    cached: bool, definitions: tuple[str, ...] = (),
                    budget: int | None = None, own_checks: bool = False
                    ) -> Callable[[], Exploration]:
        """The run `explore` makes, not made yet."""
        options = self.job.options
        return partial(explore, self.job.harness, spec, cfg, tlc_args=tlc_args,
                       budget=budget or options.budget, timeout=options.timeout,
                       cache=graph_cache(options.cache) if cached else None,
                       definitions=definitions, own_checks=own_checks)

    def start_ahead(self, staged: Staged, values: CfgValues,
                    maps: Sequence[dict[str, str]], ref_graph: StateGraph) -> None:
        """Start the output's runs under the next `maps` of a sweep, as many as it runs at
        once (nothing with one job)."""
        ref = self.job.ref
        if self.sweep.jobs < 2 or ref.cfg.constraints or ref.cfg.action_constraints:
            return  # (a graph cut at the reference's CONSTRAINT is explored under a mapping)
        own_spec = SpecSource(staged.out_main, staged.out_files)
        budget = output_budget(len(ref_graph), self.job.options.budget)
        named = (*staged.ref_shape.constants, *staged.ref_shape.definitions)
        for const_map in maps[:self.sweep.jobs]:
            model = output_model(ref, staged, values, const_map)
            if self.reference_copy(model, named):
                return  # the reference's own graph is reused
            if self.job.own_run is not None and self.job.own_run.serves(
                    staged.out_files, staged.module_table, staged.out_main, model.cfg,
                    model.definitions, (staged.out_init, staged.out_next)):
                continue  # the name grade's run is its graph
            self.sweep.ahead(run_key(model, budget), self.exploration(
                own_spec, model.cfg, (), cached=False, definitions=model.definitions,
                budget=budget))

    def own_model_graph(self, staged: Staged, model: OutputModel,
                        budget: int) -> Exploration | None:
        """The output's graph from the name grade's run (`Job.own_run`), where that run
        explored this very model; None where it did not (the grade runs TLC)."""
        run = self.job.own_run
        if run is None or not run.serves(staged.out_files, staged.module_table,
                                         staged.out_main, model.cfg, model.definitions,
                                         (staged.out_init, staged.out_next)):
            return None
        with self.timed("output_graph"):
            found = run.exploration(budget, OUTPUT_CAP * self.job.options.budget)
        self.facts["output_graph_from"] = "name_grade"
        return found

    def reference_copy(self, model: OutputModel, named: Sequence[str]) -> bool:
        """Whether the output is the reference's own modules, run under the reference's own
        model (the same constants, formula and flags, no overrides, definitions or
        constraints): a reference graded against itself, whose graph is then the reference's
        (TLC explores the same module under the same model to the same states). A cfg entry
        `r1 = r1` for a name the modules neither declare nor define (`named`) only names a
        model value, which TLC makes of `r1` in `Replicas = {r1, r2}` as well: such entries
        do not count."""
        ref, cfg = self.job.ref, model.cfg

        def given(entries: Sequence[tuple[str, str]]) -> list[tuple[str, str]]:
            return sorted((n, v) for n, v in entries if n in named or v.strip() != n)

        return (dict(self.job.out_files) == dict(ref.files) and self.job.out_main == ref.main
                and not model.definitions and not cfg.overrides and not ref.cfg.overrides
                and not ref.cfg.constraints and not ref.cfg.action_constraints
                and all(a == "-deadlock" for a in ref.tlc_args)
                and given(cfg.constants) == given(ref.cfg.constants)
                and (cfg.specification, cfg.init, cfg.next)
                == (ref.cfg.specification, ref.cfg.init, ref.cfg.next))

    def totals(self) -> dict[str, Any]:
        """The grade's TLC runs and seconds so far (a grade over several values sums them)."""
        return {"tlc_runs": self.runs, "seconds": time.monotonic() - self.started}

    def under(self, staged: Staged, plan: ConstantPlan, values: CfgValues,
              const_map: dict[str, str], ref_graph: StateGraph,
              cut: Candidate | None = None, bounds: Bounds | None = None
              ) -> BehaviorResult | StepAside:
        """The grade under one constant map (`grade.GraphGrade.under`)."""
        raise NotImplementedError


def run_key(model: OutputModel, budget: int) -> Hashable:
    """What names the output's own run in a sweep: its model and state budget."""
    return model.cfg, model.definitions, budget
