"""The behavior grade's choices: which engine, and its budgets (importing this loads nothing)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

ENGINES = ("auto", "graphs", "wrappers")
DEFAULT_LIMIT = 60          # mappings the wrapper engine tries
DEFAULT_BUDGET = 50_000     # distinct states the reference's graph may have (an output's: 4x)


@dataclass(frozen=True)
class BehaviorOptions:
    """`engine`: `graphs` (explore both state graphs, infer the mapping in memory, confirm
    with one TLC run), `wrappers` (search variable bijections, two TLC runs each) or `auto`
    (graphs, and wrappers where a graph is over budget or the graph engine cannot model the
    spec). `budget`: distinct states of the reference's graph; an output's may have 20 times
    the reference's, at most 4 times `budget`. `limit`: mappings the wrapper engine tries.
    `timeout`: TLC limit per run. `cache`: the root of the per-task cache, which holds the
    explored reference graphs (`graphs/`) and the references' self-checks (`references/`);
    None: the user cache root (`tlc_harness.tools.disk_cache`). It never changes a verdict."""

    engine: str = "auto"
    limit: int = DEFAULT_LIMIT
    budget: int = DEFAULT_BUDGET
    timeout: float | None = None
    cache: Path | None = None

    def __post_init__(self) -> None:
        if self.engine not in ENGINES:
            raise ValueError(f"behavior engine must be one of {', '.join(ENGINES)}, "
                             f"not {self.engine!r}")

    def with_timeout(self, timeout: float | None) -> BehaviorOptions:
        return replace(self, timeout=timeout)
