"""Bounds for the infinite sets an output's behavior reads, where TLC cannot enumerate them.

`\\E v \\in Nat : x' = v`, `x \\in [S -> Nat]` in Init or `q \\in Seq(Msgs)` stop TLC with an
evaluation error: a limit of the tool, not a fault of the output. The graph engine then explores
the output again with `Nat`, `Int` and `Seq` overridden by finite sets (`0..B`, `-B..B`, the
sequences of at most min(B, 3) elements). Overriding a set by a subset removes behaviors and adds none
(where the set is only chosen from and tested for membership), so every behavior of the bounded
graph is a behavior of the output: a forward failure found there is the output's. An `ok`, a
reverse failure, a deadlock or an error of the bounded run may come from the bound itself and
decide nothing.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from tlc_harness.behavior.graphs import StateGraph
from tlc_harness.behavior.values import atoms, is_number

BOUND_FLOOR = 3      # the least bound: numbers 0..3, sequences of up to 3 elements
BOUND_CEILING = 12   # a larger bound makes graphs the budget cannot hold
SEQ_CEILING = 3      # sequences grow as |S|^length: at most this long
#: the sets a bound can stand for, with the definition that does (B is the bound)
BOUNDABLE = {
    "Nat": "AliasBoundNat == 0..{b}",
    "Int": "AliasBoundInt == -{b}..{b}",
    "Seq": "AliasBoundSeq(AliasS) == UNION {{[1..AliasN -> AliasS] : AliasN \\in 0..{s}}}",
}


@dataclass(frozen=True)
class Bounds:
    """The overrides that bound an output's infinite sets, and the bound."""

    sets: tuple[str, ...]
    bound: int
    definitions: tuple[str, ...]
    overrides: tuple[tuple[str, str], ...]

    def describe(self) -> str:
        shown = {"Nat": f"Nat as 0..{self.bound}", "Int": f"Int as -{self.bound}..{self.bound}",
                 "Seq": f"Seq(S) as the sequences of at most {min(self.bound, SEQ_CEILING)} "
                        "elements"}
        return ", ".join(shown[s] for s in self.sets)

    def to_json(self) -> dict[str, object]:
        return {"sets": list(self.sets), "bound": self.bound, "as": self.describe()}


def bounds_for(sets: Iterable[str], ref_graph: StateGraph, numbers: Iterable[str],
               carried: Iterable[str]) -> Bounds | None:
    """The bounds of `sets` (None when one cannot be bounded: `Real`, `STRING`), at least the
    largest integer of the reference's states and of the constants' values (`numbers`, cfg
    texts), so that the output can take every value the reference does; sets the reference's
    own cfg already bounds (`carried`) are left as they are."""
    todo = sorted(set(sets) - set(carried))
    if not todo or any(s not in BOUNDABLE for s in todo):
        return None
    largest = max((abs(a) for s in ref_graph.states for v in s for a in atoms(v)
                   if is_number(a)), default=0)
    given = [int(t) for t in numbers if t.strip().lstrip("-").isdigit()]
    bound = min(BOUND_CEILING, max(BOUND_FLOOR, largest, *map(abs, given)))
    texts = (BOUNDABLE[s].format(b=bound, s=min(bound, SEQ_CEILING)) for s in todo)
    return Bounds(tuple(todo), bound, tuple(texts), tuple((s, f"AliasBound{s}") for s in todo))
