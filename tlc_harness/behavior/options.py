"""The behavior grade's choices: which engine, and its budgets (importing this loads nothing)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

ENGINES = ("auto", "graphs", "wrappers")
DEFAULT_LIMIT = 60          # mappings the wrapper engine tries
DEFAULT_BUDGET = 50_000     # distinct states the reference's graph may have (an output's: 4x)
#: seconds of wall time one output's whole behavior grade may take (docs/behavior-grade.md,
#: "One output's time budget": the study's slowest output took 121 s to grade, 127 s in all)
DEFAULT_OUTPUT_BUDGET = 150.0


@dataclass(frozen=True)
class BehaviorOptions:
    """`engine`: `graphs` (explore both state graphs, infer the mapping in memory, confirm
    with one TLC run), `wrappers` (search variable bijections, two TLC runs each) or `auto`
    (graphs, and wrappers where a graph is over budget or the graph engine cannot model the
    spec). `budget`: distinct states of the reference's graph; an output's may have 20 times
    the reference's, at most 4 times `budget`. `limit`: mappings the wrapper engine tries.
    `timeout`: TLC limit per run. `output_budget`: seconds of wall time one output's whole
    behavior grade may take (every TLC run's limit is cut to the time left; when it runs out
    the verdict is `undecided`, `output_budget`); None or 0: no budget. A reference's own
    self-check has none (it belongs to the task). `self_check`: the grade is a reference's
    against itself, where only its own names mean what the task says: each engine grades
    under the pairing of identical names alone (no other constant map or bijection is
    tried). `cache`: the root of the per-task cache,
    which holds the explored reference graphs (`graphs/`) and the references' self-checks
    (`references/`); None: the user cache root (`tlc_harness.tools.disk_cache`). It never
    changes a verdict. `sweep_jobs`: TLC runs of a sweep (values of a free constant, mapping
    candidates) started at once, ahead of their turn (`sweeps`); 1: one after another, 0:
    one per core. The harness needs as many JVMs (`pool_size`), or fresh ones. It never
    changes a verdict."""

    engine: str = "auto"
    limit: int = DEFAULT_LIMIT
    budget: int = DEFAULT_BUDGET
    timeout: float | None = None
    cache: Path | None = None
    output_budget: float | None = DEFAULT_OUTPUT_BUDGET
    self_check: bool = False
    sweep_jobs: int = 1

    def __post_init__(self) -> None:
        if self.sweep_jobs < 0:
            raise ValueError(f"sweep jobs must be 1 or more (0: one per core), "
                             f"not {self.sweep_jobs}")
        if self.engine not in ENGINES:
            raise ValueError(f"behavior engine must be one of {', '.join(ENGINES)}, "
                             f"not {self.engine!r}")
        if self.output_budget is not None and self.output_budget < 0:
            raise ValueError(f"the output budget is seconds, 0 or more, not {self.output_budget}")
        if not self.output_budget:  # 0: no budget
            object.__setattr__(self, "output_budget", None)

    def with_timeout(self, timeout: float | None) -> BehaviorOptions:
        return replace(self, timeout=timeout)

    def for_self_check(self) -> BehaviorOptions:
        """These options for a reference graded against itself: no output budget, and only
        the pairing of identical names."""
        return replace(self, output_budget=None, self_check=True)

    def without_budget(self) -> BehaviorOptions:
        """These options with no output budget (a reference's self-check)."""
        return replace(self, output_budget=None)
