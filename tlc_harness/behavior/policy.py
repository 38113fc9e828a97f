"""The engine boundary: what an engine is given, what it answers, and the order engines are tried.

An engine (`Engine`) grades one `Job` (which stages the output once, `Job.staged`, for every
stage and check) and returns a `BehaviorResult`, or a `StepAside` when the spec is outside
what it can model (a graph over budget, a value its run cannot carry): the next step of the
policy then grades. `POLICIES` lists, per `--behavior-engine` choice, the steps in order; the
last step's step-aside is the verdict `undecided` with its reason code. A third engine is one
more module implementing `Engine`, registered by name in `engine.py`, and a step here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any, Protocol

from tlc_harness.behavior.deadline import Deadline
from tlc_harness.behavior.options import BehaviorOptions
from tlc_harness.behavior.own_model_run import OwnModelRun
from tlc_harness.behavior.staging import Reference, Staged, stage_output
from tlc_harness.behavior.verdicts import BehaviorResult, Reason
from tlc_harness.tools.runner import Harness


@dataclass(frozen=True)
class Job:
    """One behavior grade to make: the output's modules against one reference, by `deadline`
    (the output's budget; its stages check it, and `harness` bounds every TLC run by it)."""

    harness: Harness
    ref: Reference
    out_files: Mapping[str, str]
    out_main: str
    options: BehaviorOptions
    deadline: Deadline = field(default_factory=lambda: Deadline(None))
    #: constants the text takes as symbols whose values the output's graph shows meeting
    #: another sort (`graph_engine.symbol_sorts`): graded as values, as any other constant
    not_symbols: frozenset[str] = frozenset()
    #: the output's passed run under the task's model (the name grade's), offered as its graph
    own_run: OwnModelRun | None = None

    @cached_property
    def staged(self) -> Staged:
        """The output staged beside the reference, once for the whole grade (every stage and
        check reads this one; `RenameError` where its modules cannot be renamed)."""
        staged = stage_output(self.out_files, self.out_main, self.ref)
        if not self.not_symbols:
            return staged
        shape = replace(staged.out_shape, symbols=staged.out_shape.symbols - self.not_symbols)
        return replace(staged, out_shape=shape)


@dataclass(frozen=True)
class StepAside:
    """An engine's answer that it cannot model this spec, with why (the next step grades)."""

    why: str
    code: Reason
    tlc_runs: int = 0
    details: dict[str, Any] = field(default_factory=dict)


class Engine(Protocol):
    """A behavior-grade engine."""

    name: str

    def grade(self, job: Job) -> BehaviorResult | StepAside:
        """The verdict, or a step aside for the policy's next engine."""
        ...


@dataclass(frozen=True)
class Step:
    """One attempt of a policy: the engine to run and how it is named in a verdict's reason."""

    engine: str
    label: str


GRAPHS = Step("graphs", "the graph engine")
WRAPPERS = Step("wrappers", "the wrapper engine")

#: the steps of each engine choice, in order: `auto` explores the state graphs and hands a spec
#: the graphs cannot model (a graph over budget, cfg values its run cannot carry) to the wrappers
POLICIES: dict[str, tuple[Step, ...]] = {
    "auto": (GRAPHS, WRAPPERS),
    "graphs": (GRAPHS,),
    "wrappers": (WRAPPERS,),
}
