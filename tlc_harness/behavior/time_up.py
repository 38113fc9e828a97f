"""A search's own time limit, looked at inside its long loops.

The in-memory mapping search (`graph_engine.inference`) is given `seconds`; its loops (the
backtracking over parts, the exact and loose translations of every feature, deriving parts,
the reverse check's subset construction, the closest candidates) ask a `Stop` whether that
time is up, every few iterations where an iteration is cheap, and raise `TimeUp` when it is.
`infer` turns `TimeUp` into `undecided`: a search stopped part-way has proved nothing, so no
mapping, failure or counterexample it found so far stands.
"""

from __future__ import annotations

from collections.abc import Callable

#: whether the search's time is up (cheap enough to call every few iterations)
Stop = Callable[[], bool]


class TimeUp(Exception):
    """The search's time ran out in the middle of a step."""


class Every:
    """Calls `stop` on every `n`-th `tick` only, and raises `TimeUp` when it says so: for loops
    whose iterations are too cheap to read the clock in each."""

    def __init__(self, stop: Stop | None, n: int = 1024) -> None:
        self.stop = stop
        self.n = n
        self.count = 0

    def tick(self) -> None:
        self.count += 1
        if self.stop is not None and self.count % self.n == 0 and self.stop():
            raise TimeUp
