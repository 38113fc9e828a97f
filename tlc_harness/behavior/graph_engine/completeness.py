"""Whether a failure on the graphs holds for every mapping that could work (`named_class`).

The in-memory search tries a grammar of mappings; "none of them works" is a failure of the
output only where the grammar's class provably holds every mapping that could work. One shape
where it does, the *named* shape: every reference variable has an output variable of its name
(case aside). That variable *is* the reference's (named observables, `observables`), so a
mapping that could work reads the reference variable from it as a function h of its value.
Both directions of refinement make the image of the output's reachable states the reference's
reachable states, so h maps the output variable's values onto the reference variable's:

- with fewer output values than reference values no h is onto: every mapping fails;
- with as many, h is a bijection, and every bijection of the two value sets (at most
  `MAX_VALUES` values each, `MAX_MEMBERS` combinations in all) is checked on the graphs;
  values that hold numbers stand for themselves where both sides hold numbers (a count is
  that count, as in the grammar): where those differ, an offset or a renumbering might fit,
  and the class is not complete; numbers where the reference has none (processes `1..N` for
  its model values) are values like any other;
- with more, h may merge values, which bijections do not cover: the class is not complete.

A failure stands when every member of the class fails on the graphs, or passes with the very
image of the mapping the failure was found under (TLC's verdict under that mapping is then
every passing member's). Any other shape is no proof: the verdict is `no_mapping`.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

from tlc_harness.behavior import checks
from tlc_harness.behavior.graphs import StateGraph
from tlc_harness.behavior.values import Value, atoms, is_number, sort_key

MAX_VALUES = 6          # values of one variable whose bijections are all tried (720)
MAX_MEMBERS = 5_000     # combinations of bijections checked
MAX_WORK = 3_000_000    # output states imaged in all


@dataclass(frozen=True)
class ClassCheck:
    """Whether every mapping of the named class fails (`complete`), and why (or why not)."""

    complete: bool
    why: str
    members: int = 0

    def facts(self) -> dict[str, object]:
        """The record's facts: `mapping_class` (`named_bijections` or `incomplete`)."""
        return {"mapping_class": "named_bijections" if self.complete else "incomplete",
                "mapping_class_reason": self.why, "mapping_class_members": self.members}


def _numeric(values: list[Value]) -> set[Value]:
    """The values holding a number: they stand for themselves (a count is that count)."""
    return {v for v in values if any(is_number(a) for a in atoms(v))}


def named_class(out: StateGraph, ref: StateGraph, *, found: list[int] | None = None,
                forward_only: bool = False, deadlock: bool = False,
                reverse_budget: int = 500_000) -> ClassCheck:
    """Whether every mapping of the named class fails on the graphs (see the module); `found`:
    the image of a mapping whose failure TLC found (members with that image pass the graphs
    and fail with it); `forward_only`: on a graph that is only part of the output's (bounded
    sets), where a member fails only forward."""
    lowered = {v.lower(): v for v in out.variables}
    columns: list[tuple[list[Value], list[Value], list[Value]]] = []
    for r in ref.variables:
        g = lowered.get(r.lower())
        if g is None:
            return ClassCheck(False, f"the output has no variable named {r}")
        g_col, r_col = out.column(g), ref.column(r)
        g_vals = sorted(set(g_col), key=sort_key)
        r_vals = sorted(set(r_col), key=sort_key)
        if len(g_vals) < len(r_vals) and not forward_only:
            return ClassCheck(True, f"the output's {g} takes {len(g_vals)} values where the "
                              f"reference's {r} takes {len(r_vals)}: no mapping reading it "
                              f"covers them")
        if len(g_vals) != len(r_vals):
            return ClassCheck(False, f"the output's {g} takes {len(g_vals)} values, the "
                              f"reference's {r} {len(r_vals)}: a mapping may merge them")
        g_num, r_num = _numeric(g_vals), _numeric(r_vals)
        if g_num and r_num:  # numbers for numbers stand for themselves
            if g_num != r_num:
                return ClassCheck(False, f"the output's {g} holds other numbers than the "
                                  f"reference's {r}: an offset or a renumbering may fit")
            g_vals = [v for v in g_vals if v not in g_num]
            r_vals = [v for v in r_vals if v not in r_num]
        if len(g_vals) > MAX_VALUES:
            return ClassCheck(False, f"{r} takes {len(r_vals)} values (more than {MAX_VALUES})")
        columns.append((g_col, g_vals, r_vals))
    members = math.prod(math.factorial(len(g_vals)) for _, g_vals, _ in columns)
    if members > MAX_MEMBERS or members * len(out.states) > MAX_WORK:
        return ClassCheck(False, f"{members} bijections of the named variables' values are "
                          f"more than the check's budget")
    index = ref.index()
    edges = set(ref.edges)
    for combo in itertools.product(*(itertools.permutations(r_vals)
                                     for _, _, r_vals in columns)):
        tables = [dict(zip(g_vals, perm, strict=True))
                  for (_, g_vals, _), perm in zip(columns, combo, strict=True)]
        keys = zip(*([table.get(v, v) for v in g_col]
                     for (g_col, _, _), table in zip(columns, tables, strict=True)), strict=True)
        image = [index.get(key, -1) for key in keys]
        if image == found or any(i < 0 for i in image):
            continue  # `found`'s own failure; a state outside R fails forward
        if not checks.forward(out, ref, image, edges, deadlock=deadlock).ok:
            continue
        if forward_only:
            return ClassCheck(False, "a bijection of the named variables' values holds forward",
                              members)
        rev = checks.reverse(out, ref, image, budget=reverse_budget)
        if rev.limited:
            return ClassCheck(False, "the reverse check's budget ran out on the class", members)
        if rev.ok:
            return ClassCheck(False, "a bijection of the named variables' values holds both "
                              "ways", members)
    return ClassCheck(True, f"each of the {members} bijections of the named variables' values "
                      f"fails on the graphs", members)
