"""A mapping given as a table over the output's reachable states, written as TLA+.

A candidate the solvers find (`any_mapping`: an isomorphism or an onto homomorphism of the
graphs; `completeness`: a member of the named class that holds both ways) is an image per
output state, not an expression of the grammar. TLC confirms it as one: `AliasState` maps
each reachable output state (the tuple of its variables) to the reference state it stands
for, and each reference variable reads its component, `r <- AliasState[<<x, y>>][k]`. TLC's
confirming run explores the output's reachable states under the same constants, so every
state it meets is in the table's domain.

A candidate must read each reference variable from the output variable of its name, where
there is one, through a map of that variable's values (`routes_around`): the output's
observable is what the description names, and a mapping may not go around it.
"""

from __future__ import annotations

from collections.abc import Sequence

from tlc_harness.behavior import checks
from tlc_harness.behavior.graph_engine.search_state import Inferred, tuple_value
from tlc_harness.behavior.graphs import StateGraph
from tlc_harness.behavior.translation import TextBuilder
from tlc_harness.behavior.verdicts import BehaviorVerdict

#: the largest output graph written as a table (TLC evaluates the table once, in time
#: quadratic in its size)
MAX_TABLE_STATES = 1_000
TABLE = "AliasState"


def routes_around(out: StateGraph, ref: StateGraph, image: Sequence[int]) -> str | None:
    """The first reference variable the image does not read from its output namesake through
    a map of that variable's values, or None."""
    lowered = {v.lower(): k for k, v in enumerate(out.variables)}
    for r, name in enumerate(ref.variables):
        g = lowered.get(name.lower())
        if g is None:
            continue
        read: dict[object, object] = {}
        for state, target in zip(out.states, image, strict=True):
            if read.setdefault(state[g], ref.states[target][r]) != ref.states[target][r]:
                return name
    return None


def table_mapping(out: StateGraph, ref: StateGraph, image: Sequence[int], *,
                  deadlock: bool = False) -> Inferred | None:
    """The image as a TLA+ mapping that holds both ways on the graphs, or None where it is
    not one (a check fails, a named variable is routed around, the table is too large)."""
    if len(out) > MAX_TABLE_STATES or len(image) != len(out) or min(image, default=0) < 0:
        return None
    if routes_around(out, ref, image) is not None:
        return None
    image = list(image)
    if not checks.forward(out, ref, image, deadlock=deadlock).ok or \
            not checks.reverse(out, ref, image).ok:
        return None
    texts = TextBuilder()
    pairs = [(tuple_value(state), tuple_value(ref.states[target]))
             for state, target in zip(out.states, image, strict=True)]
    name = texts.table(TABLE, pairs)
    key = "<<" + ", ".join(out.variables) + ">>"
    variables = {r: f"{name}[{key}][{k}]" for k, r in enumerate(ref.variables, 1)}
    return Inferred(BehaviorVerdict.OK, "a table of the output's states holds both ways on "
                    "the graphs", variables, texts.definitions, sorted(texts.model_values),
                    image)
