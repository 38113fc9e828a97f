"""The named class where an output variable takes more values than the reference's of its name.

A mapping that could work reads each named reference variable r from the output's variable g
of its name through a function h of g's value (`completeness`); both directions of refinement
make h map g's reachable values *onto* r's. With more values on g's side, h merges some: the
class is every function onto r's values, each enumerated here (`onto_tables`), where they are
few enough. The variables whose counts agree keep their bijections (`bijections`), searched
on the projections of the graphs on those variables alone: a product of bijections is one-to-one
on their tuples whatever the merged variables read, as for variables the output names nowhere.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from tlc_harness.behavior.values import Value

MAX_FUNCTIONS = 50_000  # functions of one variable's values enumerated to find its tables

Table = dict[Value, Value]


def onto_tables(g_vals: Sequence[Value], r_vals: Sequence[Value]) -> list[Table] | None:
    """Every function from `g_vals` onto `r_vals`; None where there are too many functions to
    enumerate (`MAX_FUNCTIONS`)."""
    if len(r_vals) ** len(g_vals) > MAX_FUNCTIONS:
        return None
    wanted = set(r_vals)
    return [dict(zip(g_vals, images, strict=True))
            for images in itertools.product(r_vals, repeat=len(g_vals))
            if set(images) == wanted]
