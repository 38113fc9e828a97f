"""When a failure TLC finds under one mapping holds under every mapping that could work.

Where the two whole graphs have as many states, every mapping under which both directions
could hold is one-to-one and keeps the graphs' steps (an isomorphism, `any_mapping`). Let f0
be the one TLC ran under and f any other such mapping. Two failures hold under f as they do
under f0, because one side's formula is its safety part alone, so every path of its graph (from
an initial state, stuttering allowed) is one of its behaviors:

- *Reverse*, the reference's formula has no fairness or liveness conjunct. The reverse run
  (`reverse_liveness`) checks, on the output's safety part, that a behavior whose image
  satisfies the reference's temporal conjuncts satisfies the output's; with none on the
  reference's side the premise is TRUE and the run does not depend on the mapping at all: it
  found a behavior t of the output's safety part that violates the output's own formula.
  Under f, f(t) is a path of the reference's graph, so a behavior of the reference; f is
  one-to-one, so t (up to stuttering, which no TLA+ formula tells apart) is the only output
  behavior above it. No fair behavior of the output maps to f(t): the reverse direction fails
  under f.
- *Forward*, the output's formula has no fairness or liveness conjunct. TLC's forward run
  under f0 found an output behavior t whose image f0(t) violates the reference's formula, an
  invariant, a property, or freedom from deadlock. Under f, t' = f⁻¹(f0(t)) is a path of the
  output's graph (f⁻¹ keeps steps), so a behavior of the output, and its image is f0(t)
  again: the forward direction fails under f. (A deadlock is an output state without a
  successor, and stays one under every mapping.)

No other failure carries over: a fairness conjunct on the side whose behaviors are taken
picks behaviors by the actions they take, which another mapping may not keep.
"""

from __future__ import annotations

from tlc_harness.behavior.reverse_liveness import output_temporal_parts
from tlc_harness.behavior.staging import Reference, Staged
from tlc_harness.source.formulas import TemporalParts, temporal_conjuncts


def reverse(ref: Reference) -> str:
    """Why a reverse liveness failure holds under every one-to-one mapping, or ''."""
    if ref.cfg.constraints or ref.cfg.action_constraints:
        return ""  # the reverse run checks only the behaviors within the cut
    parts = (temporal_conjuncts(ref.files, ref.cfg.specification) if ref.cfg.specification
             else TemporalParts())
    if parts.unreadable is not None or parts.conjuncts:
        return ""
    return ("the reference's formula has no fairness or liveness conjunct, so the reverse run "
            "found, whatever the mapping, a behavior of the output's safety part that violates "
            "the output's formula; under a one-to-one mapping that keeps steps its image is a "
            "behavior of the reference with that behavior alone above it")


def forward(staged: Staged) -> str:
    """Why a failure of TLC's forward run holds under every one-to-one mapping, or ''."""
    parts = output_temporal_parts(staged)
    if parts.unreadable is not None or parts.conjuncts:
        return ""
    return ("the output's formula has no fairness or liveness conjunct, so every path of its "
            "graph is a behavior: under another one-to-one mapping that keeps steps, the "
            "output's path that maps onto the image TLC found is one, and its image violates "
            "the reference as that one does")


def every_mapping(isomorphic: str, why: str) -> str:
    """The class reason of a failure that holds under every mapping that could work."""
    return (f"{isomorphic}, so every mapping that could work is one-to-one and keeps steps; "
            f"{why}: no mapping of the output's states works")
