"""One output's time budget: a deadline for its whole behavior grade.

A behavior grade may make many TLC runs (constant maps, swept values, mappings, the confirming
run, the reverse liveness run, a replay), each under its own limit (`BehaviorOptions.timeout`);
`BehaviorOptions.output_budget` bounds their sum. The `Deadline` starts with the grade
(`engine.grade_behavior`); every stage checks it on entry (`Deadline.enter`), the in-memory
mapping search gets at most the time left, and `BudgetedHarness` gives every TLC run the
smaller of its own limit and the time left. A run that times out under a limit the deadline
cut (shorter than its own) is no verdict of the spec, and no time-out of its own: the grade
stops with `OutputBudgetExhausted`, which `grade_behavior` turns into `undecided`
(`output_budget`). A run that times out under its own limit keeps its verdict, as without a
budget; `BudgetedHarness.limited` keeps the verdicts of runs a limit of the machine stopped
(time, memory, the tools: `LIMIT_VERDICTS`), so that a grade which decided nothing and saw one
says so (`engine.machine_limited`): another mapping, engine or class tried after it would
otherwise give a verdict that depends on the machine.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NoReturn

from tlc_harness.source.cfg import ModelConfig
from tlc_harness.tools.results import LIMIT_VERDICTS, CheckResult, ParseResult, Verdict
from tlc_harness.tools.runner import Harness
from tlc_harness.tools.spec import SpecSource

Clock = Callable[[], float]


class OutputBudgetExhausted(Exception):
    """The output's budget ran out in `stage`, `spent` seconds into its grade."""

    def __init__(self, stage: str, spent: float) -> None:
        super().__init__(f"the output's time budget ran out in {stage}, {spent:.1f} s into its "
                         f"behavior grade")
        self.stage = stage
        self.spent = spent


@dataclass
class Deadline:
    """`seconds` from its making (None: no deadline), read on `clock`; `stage`: the stage
    running, named when the budget runs out."""

    seconds: float | None
    clock: Clock = time.monotonic
    stage: str = "start"
    exhausted: str | None = None  # the stage the budget ran out in
    started: float = field(init=False)

    def __post_init__(self) -> None:
        self.started = self.clock()

    def used(self) -> float:
        return self.clock() - self.started

    def left(self) -> float | None:
        """Seconds left, None without a deadline (never below 0)."""
        return None if self.seconds is None else max(0.0, self.seconds - self.used())

    def enter(self, stage: str) -> None:
        """Start `stage`, unless the budget has run out."""
        self.stage = stage
        self.check()

    def check(self) -> None:
        """Raise `OutputBudgetExhausted` when no time is left."""
        if self.left() == 0.0:
            self.exhaust()

    def exhaust(self) -> NoReturn:
        self.exhausted = self.stage
        raise OutputBudgetExhausted(self.stage, self.used())

    def limit(self, own: float) -> float:
        """A run's limit: its `own`, or the time left when that is shorter (checked first)."""
        self.check()
        left = self.left()
        return own if left is None else min(own, left)

    def details(self) -> dict[str, Any]:
        """What a verdict records of the budget (nothing without one)."""
        if self.seconds is None:
            return {}
        return {"budget_seconds": self.seconds, "budget_used": round(self.used(), 3),
                "budget_exhausted": self.exhausted is not None,
                **({"budget_stage": self.exhausted} if self.exhausted else {})}


class BudgetedHarness(Harness):
    """`harness` with every TLC run bounded by `deadline` (the time left, when shorter than
    the run's own limit). It shares the wrapped harness's JVMs and settings, and never closes
    them: that harness is its caller's."""

    def __init__(self, harness: Harness, deadline: Deadline) -> None:
        # no Harness.__init__: it starts nothing of its own
        self.inner = harness
        self.deadline = deadline
        self.toolchain = harness.toolchain
        self.settings = harness.settings
        self.module_library = harness.module_library
        self.runs = 0  # TLC runs made through it
        self.limited: list[Verdict] = []  # of them, those a limit of the machine stopped
        self._counting = threading.Lock()  # runs of a sweep end on several threads

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def close(self) -> None:
        """Nothing to close: the wrapped harness is the caller's."""

    def parse(self, spec: SpecSource | str | Path, *, timeout: float | None = None) -> ParseResult:
        self.deadline.check()
        return self.inner.parse(spec, timeout=timeout)

    def check(self, spec: SpecSource | str | Path, cfg: ModelConfig | str | Path | None = None,
              *, tlc_args: Sequence[str] = (), timeout: float | None = None,
              workers: int | None = None, compat: bool | None = None,
              read_graph: Callable[[Path], Any] | None = None) -> CheckResult:
        """The wrapped harness's run, under min(its own limit, the time left); a run that the
        deadline's shorter limit stopped raises `OutputBudgetExhausted`."""
        own = timeout or self.settings.tlc_timeout
        given = self.deadline.limit(own)
        result = self.inner.check(spec, cfg, tlc_args=tlc_args, timeout=given, workers=workers,
                                  compat=compat, read_graph=read_graph)
        with self._counting:
            self.runs += 1
            if result.verdict in LIMIT_VERDICTS:
                self.limited.append(result.verdict)
        if cut_short(result, given, own):
            self.deadline.exhaust()
        return result


def cut_short(result: CheckResult, given: float, own: float) -> bool:
    """Whether the deadline, not the run's own limit, stopped it: it timed out under a limit
    shorter than its own."""
    return result.verdict is Verdict.TIMEOUT and given < own
