"""Seconds per stage of one behavior grade: `stage_seconds` in a verdict's details.

Every engine and check times its stages on a `StageClock` (the graph engine: graphs,
inference, confirm...; the wrapper engine: forward, reverse, reverse liveness, the output's own
run; the mapping-free checks: their counting runs). A verdict that another stage's replaces
keeps the seconds spent before it (`add_stage_seconds`), so a record's stages account for its
whole behavior grade.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field, replace

from tlc_harness.behavior.deadline import Deadline
from tlc_harness.behavior.verdicts import BehaviorResult


@dataclass
class StageClock:
    """Seconds per stage, summed over the blocks timed; each stage starts only while the
    output's budget lasts (`deadline`, when given)."""

    deadline: Deadline | None = None
    seconds: dict[str, float] = field(default_factory=dict)

    @contextmanager
    def timed(self, stage: str) -> Iterator[None]:
        """Add the seconds the block takes to `stage`'s."""
        if self.deadline is not None:
            self.deadline.enter(stage)
        t0 = time.monotonic()
        try:
            yield
        finally:
            self.seconds[stage] = round(self.seconds.get(stage, 0.0) + time.monotonic() - t0, 3)


def add_stage_seconds(result: BehaviorResult, seconds: Mapping[str, float]) -> BehaviorResult:
    """`result` with `seconds` added, stage by stage, to the `stage_seconds` it records."""
    if not seconds:
        return result
    merged = dict(result.details.get("stage_seconds") or {})
    for stage, spent in seconds.items():
        merged[stage] = round(merged.get(stage, 0.0) + spent, 3)
    return replace(result, details={**result.details, "stage_seconds": merged})
