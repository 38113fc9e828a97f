"""Cutting the output's graph at a reference's CONSTRAINT: TLC leaves a reference's states past
its constraint out of its graph, so the output's graph is cut where its image leaves the
constraint, under a mapping. An `ok` found on a cut graph holds whatever the cut; a failure
holds for the mapping the graph was cut under."""

from __future__ import annotations

from tlc_harness.behavior.graph_engine.search_state import Inferred
from tlc_harness.behavior.search import Candidate, assignments
from tlc_harness.behavior.staging import Staged
from tlc_harness.behavior.verdicts import FAILURES, BehaviorVerdict


def failing_mapping(inferred: Inferred, const_map: dict[str, str]) -> Candidate | None:
    """The mapping a failure on the graphs was found under (None: not a failure, or none)."""
    held = (inferred if inferred.verdict == BehaviorVerdict.REVERSE_FAIL and inferred.variables
            else inferred.failed_under)
    if held is None or inferred.verdict not in FAILURES:
        return None
    return Candidate(held.variables, const_map, tuple(held.definitions), labels=False,
                     model_values=tuple(held.model_values))


def same_mapping(a: Candidate, b: Candidate) -> bool:
    return (dict(a.variables) == dict(b.variables) and a.definitions == b.definitions
            and a.model_values == b.model_values)


def cut_seed(staged: Staged, const_map: dict[str, str]) -> Candidate | None:
    """The mapping that carries a reference's CONSTRAINT to the output's run: its variables
    onto the output's, same names first, then the same declaration places (None: no
    type-compatible map; the output has fewer variables)."""
    ref, out = staged.ref_shape, staged.out_shape
    maps = assignments(ref.variables, out.variables, ref.types, out.types)
    return Candidate(maps[0], const_map, labels=False) if maps else None
