"""How the graph engine writes a mapping and a counterexample for a reader."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tlc_harness.behavior.graph_engine.search_state import Inferred
from tlc_harness.behavior.graphs import StateGraph
from tlc_harness.behavior.search import Candidate
from tlc_harness.behavior.values import to_tla
from tlc_harness.tools.results import TraceState


def given_text(const_map: Mapping[str, str]) -> str:
    """An output constant map in a line: `N = 3, Procs = {p1, p2}`."""
    return ", ".join(f"{g} = {r}" for g, r in const_map.items()) or "none"


def describe(cand: Candidate, ref_constants: frozenset[str] = frozenset()) -> str:
    """The mapping in a line: `r <- e` per reference variable and constant; an output constant
    that a reference definition or count gives its value reads `N = Cardinality(Procs)`."""
    parts = [f"{r} <- {e}" for r, e in cand.variables.items() if r != e]
    parts += [f"{r} <- {g}" if r in ref_constants else f"{g} = {r}"
              for g, r in cand.constants.items() if r != g]
    text = ", ".join(parts) or "identity"
    return text if len(text) <= 300 else text[:297] + "..."


def substitutions(cand: Candidate, ref_constants: frozenset[str],
                  symbols: frozenset[str] = frozenset()) -> str:
    """The mapping as TLA+: the definitions it needs and the INSTANCE substitutions."""
    subs = [f"{r} <- {e}" for r, e in cand.variables.items()]
    subs += [f"{r} <- {g}" for g, r in cand.constants.items() if r in ref_constants]
    given = [f"\\* the output's constant {g} is " + ("a model value" if g in symbols
                                                   else f"given {r}")
             for g, r in cand.constants.items() if r not in ref_constants]
    return "\n".join([*cand.definitions, *given,
                      "INSTANCE Reference WITH " + ",\n    ".join(subs)])


def trace_of(inferred: Inferred) -> str:
    """Whose behavior a failure's counterexample is: the output's or the reference's."""
    cx = inferred.counterexample
    return "reference" if cx is not None and cx.ref_path and not cx.out_path else "output"


def trace(inferred: Inferred, out: StateGraph, ref: StateGraph) -> tuple[TraceState, ...]:
    """The counterexample's states: G's behavior (forward) or R's (reverse)."""
    cx = inferred.counterexample
    if cx is None:
        return ()
    graph, path = (out, cx.out_path) if cx.out_path else (ref, cx.ref_path)
    states = []
    for n, s in enumerate(path, 1):
        action = "Initial predicate" if n == 1 else graph.actions.get((path[n - 2], s), "")
        states.append(TraceState(n, action, {v: to_tla(x) for v, x in
                                             zip(graph.variables, graph.states[s], strict=True)}))
    return tuple(states)


#: how a state of a forward witness's image follows the one before it (`step` of an entry)
IMAGE_STEPS = ("initial", "not_initial", "step", "stutter", "no_step")


def witness_image(inferred: Inferred) -> list[int]:
    """The image (the reference state per output state, -1: none) a forward witness was found
    under: the failure's own, else its failing mapping's; empty when none was kept."""
    if inferred.image:
        return inferred.image
    held = inferred.failed_under
    return held.image if held is not None else []


def image_trace(inferred: Inferred, out: StateGraph, ref: StateGraph
                ) -> list[dict[str, Any] | None] | None:
    """For a forward failure, the reference state each state of the output's witness maps to,
    aligned with `trace`: `{"variables": {...}, "step": ...}` (`step` from `IMAGE_STEPS`),
    or None where the state maps to none. None for a reverse failure (its output side is a
    set of states, not a path) and where no image was kept (no mapping held the witness)."""
    cx = inferred.counterexample
    image = witness_image(inferred)
    if cx is None or not cx.out_path or len(image) != len(out.states):
        return None
    shown: list[dict[str, Any] | None] = []
    before: int | None = None   # the image of the witness's state before (None: the first)
    for g in cx.out_path:
        r = image[g]
        shown.append(None if r < 0 else {
            "step": _image_step(ref, before, r),
            "variables": {v: to_tla(x) for v, x in zip(ref.variables, ref.states[r],
                                                       strict=True)}})
        before = r
    return shown


def _image_step(ref: StateGraph, before: int | None, r: int) -> str:
    """How reference state `r` follows `before` in a witness's image (see `IMAGE_STEPS`)."""
    if before is None:
        return "initial" if r in ref.initial else "not_initial"
    if r == before:
        return "stutter"
    return "step" if before >= 0 and r in ref.successors()[before] else "no_step"


def counterexample_details(inferred: Inferred, out: StateGraph, ref: StateGraph
                           ) -> dict[str, Any]:
    """A graph failure's details beside its `trace`: whose behavior it is (`trace_of`) and,
    for the output's, the reference states it maps to (`reference_image`)."""
    whose = trace_of(inferred)
    image = image_trace(inferred, out, ref) if whose == "output" else None
    return {"trace_of": whose} if image is None else {"trace_of": whose,
                                                      "reference_image": image}
