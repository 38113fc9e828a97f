"""Whether a failure on the graphs holds for every mapping that could work (`named_class`).

The in-memory search tries a grammar of mappings; "none of them works" is a failure of the
output only where the grammar's class provably holds every mapping that could work. One shape
where it does, the *named* shape: every reference variable has an output variable of its name
(case aside). That variable *is* the reference's (named observables, `observables`), so a
mapping that could work reads the reference variable from it as a function h of its value.
Both directions of refinement make the image of the output's reachable states the reference's
reachable states, so h maps the output variable's values onto the reference variable's:

- with fewer output values than reference values no h is onto: every mapping fails;
- with as many, h is a bijection, and every bijection of the two value sets is checked on the
  graphs or shown to fail (`bijections`: the members that could pass keep how states and
  steps hold the values; within `MAX_NODES` partial assignments); a value holding numbers
  stands for itself where both sides hold the same numbers and none of them is an
  *identity* (a number that indexes a function variable of either graph, as processes `1..N`
  index `pc`): a count is that count; identities may be renumbered (an output whose
  processes are numbered otherwise than the reference's is in the class), and where the two
  sides hold other numbers (an offset) every bijection of all the values is the class;
- with more, h merges some values: the class is every function onto the reference
  variable's values (`merges`), enumerated where they are few (a boolean kept as a three-way
  state, a one-valued reference variable); past the budget the class is not covered (on part
  of the output's graph, forward only, h need not be onto and the class is not complete).

Where only some reference variables have a namesake, the others are read as any function of
the output's whole state: each member of the named ones' class is decided for every such
reading at once (`unnamed`), or the class is not complete.

A failure stands when every member of the class fails on the graphs, or passes with the very
image of the mapping the failure was found under (TLC's verdict under that mapping is then
every passing member's). Any other shape is no proof: the verdict is `no_mapping`.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

from tlc_harness.behavior import checks
from tlc_harness.behavior.features import index_sets
from tlc_harness.behavior.graph_engine import bijections, merges, unnamed
from tlc_harness.behavior.graphs import StateGraph
from tlc_harness.behavior.values import Value, atoms, is_number, sort_key

MAX_VALUES = 6          # forward only: values of one variable whose bijections are all tried
MAX_MEMBERS = 5_000     # forward only: combinations of bijections checked
MAX_WORK = 3_000_000    # output states imaged in all
MAX_NODES = 200_000     # partial assignments of the colour-keeping search
MAX_PAIRS = 5_000_000   # pairs of images compared for the variables the output does not name
#: members that hold both ways on the graphs (graphs carry no fairness) which the class may
#: leave to TLC: past this many it is not complete
MAX_HOLDERS = 4


@dataclass(frozen=True)
class ClassCheck:
    """Whether every mapping of the named class fails (`complete`), and why (or why not)."""

    complete: bool
    why: str
    members: int = 0
    kind: str = "named_bijections"  #: or `named_functions`, where some values merge
    #: the images of members that hold both ways on the graphs (candidates for TLC)
    holders: tuple[tuple[int, ...], ...] = ()
    #: whether `holders` are every member that does not fail on the graphs: the class is
    #: then decided by TLC, refuting each of them (`candidates.TableCandidates.or_table`)
    rest_for_tlc: bool = False

    @property
    def holds(self) -> tuple[int, ...]:
        """The image of the first member that holds both ways on the graphs, if any."""
        return self.holders[0] if self.holders else ()

    def facts(self) -> dict[str, object]:
        """The record's facts: `mapping_class` (`named_bijections`, `named_functions` or
        `incomplete`)."""
        return {"mapping_class": self.kind if self.complete else "incomplete",
                "mapping_class_reason": self.why, "mapping_class_members": self.members}


def left_to_tlc(why: str, holders: list[list[int]], members: int, kind: str) -> ClassCheck:
    """A class whose members all fail on the graphs but `holders`, which TLC decides."""
    return ClassCheck(False, why, members, kind, holders=tuple(tuple(h) for h in holders),
                      rest_for_tlc=True)


def held(holders: list[list[int]], that: str = "that ") -> str:
    """How many members hold both ways on the graphs, in words."""
    return f"one {that}holds" if len(holders) == 1 else f"{len(holders)} {that}hold"


def _numeric(values: list[Value]) -> set[Value]:
    """The values holding a number."""
    return {v for v in values if any(is_number(a) for a in atoms(v))}


def counts(g_vals: list[Value], r_vals: list[Value], identities: set[Value]) -> frozenset[Value]:
    """The values that stand for themselves: numbers held alike on both sides, none of whose
    atoms is an identity (a count is that count; a process numbered 1..N is not)."""
    g_num, r_num = _numeric(g_vals), _numeric(r_vals)
    if not g_num or g_num != r_num:
        return frozenset()
    return frozenset(v for v in g_num
                     if not any(is_number(a) and a in identities for a in atoms(v)))


def identity_numbers(graph: StateGraph) -> set[Value]:
    """The numbers that index a function variable (processes `1..N` of `pc`): identities,
    which a renumbering may permute, where other numbers are counts."""
    return {a for domain in index_sets(graph) for v in domain for a in atoms(v) if is_number(a)}


def named_class(out: StateGraph, ref: StateGraph, *, found: list[int] | None = None,
                forward_only: bool = False, deadlock: bool = False,
                reverse_budget: int = 500_000) -> ClassCheck:
    """Whether every mapping of the named class fails on the graphs (see the module); `found`:
    the image of a mapping whose failure TLC found (members with that image pass the graphs
    and fail with it); `forward_only`: on a graph that is only part of the output's (bounded
    sets), where a member fails only forward."""
    lowered = {v.lower(): v for v in out.variables}
    identities = identity_numbers(out) | identity_numbers(ref)
    columns: list[tuple[list[Value], list[Value], list[Value]]] = []
    ref_columns: list[list[Value]] = []
    fixed: list[frozenset[Value]] = []
    merged: dict[int, str] = {}  # the columns whose values h merges, and how
    nameless = [r for r in ref.variables if r.lower() not in lowered]
    if nameless and (forward_only or len(nameless) == len(ref.variables)):
        return ClassCheck(False, f"the output has no variable named {nameless[0]}")
    for r in ref.variables:
        g = lowered.get(r.lower())
        if g is None:
            continue  # read as any function of the output's state (`unnamed`)
        g_col, r_col = out.column(g), ref.column(r)
        g_vals = sorted(set(g_col), key=sort_key)
        r_vals = sorted(set(r_col), key=sort_key)
        if len(g_vals) < len(r_vals) and not forward_only:
            return ClassCheck(True, f"the output's {g} takes {len(g_vals)} values where the "
                              f"reference's {r} takes {len(r_vals)}: no mapping reading it "
                              f"covers them")
        if len(g_vals) > len(r_vals) and not forward_only:
            merged[len(columns)] = (f"the output's {g} takes {len(g_vals)} values, the "
                                    f"reference's {r} {len(r_vals)}")
            columns.append((g_col, g_vals, r_vals))
            fixed.append(frozenset())
            ref_columns.append(r_col)
            continue
        if len(g_vals) != len(r_vals):
            return ClassCheck(False, f"the output's {g} takes {len(g_vals)} values, the "
                              f"reference's {r} {len(r_vals)}: a mapping may merge them")
        g_num, r_num = _numeric(g_vals), _numeric(r_vals)
        same_numbers = bool(g_num) and g_num == r_num
        # a count stands for itself; a process numbered 1..N (an identity) does not
        fixed.append(counts(g_vals, r_vals, identities))
        if forward_only and g_num and r_num and not same_numbers:
            return ClassCheck(False, f"the output's {g} holds other numbers than the "
                              f"reference's {r}: an offset or a renumbering may fit")
        columns.append((g_col, [v for v in g_vals if v not in fixed[-1]],
                        [v for v in r_vals if v not in fixed[-1]]))
        ref_columns.append(r_col)
    if forward_only:
        return _every_bijection(out, ref, columns, found=found, deadlock=deadlock)
    return _search(out, ref, columns, ref_columns, fixed, nameless, merged, found=found,
                   deadlock=deadlock, reverse_budget=reverse_budget)


def _search(out: StateGraph, ref: StateGraph,
            columns: list[tuple[list[Value], list[Value], list[Value]]],
            ref_columns: list[list[Value]], fixed: list[frozenset[Value]], nameless: list[str],
            merged: dict[int, str], *, found: list[int] | None, deadlock: bool,
            reverse_budget: int) -> ClassCheck:
    """Every member of the named class checked on the graphs, or shown to fail: bijections
    that keep the colours of the projections on the variables whose counts agree
    (`bijections`; the merged ones, like the nameless, are other variables there), each with
    every function onto the reference's values of the merged ones (`merges`)."""
    shape = "; ".join(merged.values())
    onto: list[list[merges.Table]] = []
    for i in merged:
        tables = merges.onto_tables(columns[i][1], columns[i][2])
        if tables is None:
            return ClassCheck(False, f"{shape}: a mapping may merge them, and the functions of "
                              f"its values onto the reference's are too many to enumerate")
        onto.append(tables)
    bij = [i for i in range(len(columns)) if i not in merged]
    members = (math.prod(math.factorial(len(columns[i][1])) for i in bij)
               * math.prod(len(t) for t in onto))
    noun = ("functions of the named variables' values onto the reference's (" + shape
            + ": some merge values)" if merged else "bijections of the named variables' values")
    kind = "named_functions" if merged else "named_bijections"
    member = FUNCTION if merged else BIJECTION
    if bij:
        out_side = bijections.project([columns[i][0] for i in bij], out.initial, out.edges)
        ref_side = bijections.project([ref_columns[i] for i in bij], ref.initial, ref.edges)
        refined = bijections.refine(out_side, ref_side, [fixed[i] for i in bij])
        if refined.plain is not None:
            return ClassCheck(True, f"{refined.plain}: each of the {members} {noun} fails",
                              members, kind)
        candidates = bijections.candidates(refined, out_side, ref_side, MAX_NODES)
        budget_text = (f"{refined.count()} bijections of the named variables' values keep how "
                       f"states and steps hold them")
    else:
        candidates = iter([[]])
        budget_text = f"{members} {noun}"
    index = ref.index()
    edges = set(ref.edges)
    checked = 0
    holders: list[list[int]] = []
    keys = list(zip(*(g_col for g_col, _, _ in columns), strict=True))
    ref_keys = list(zip(*ref_columns, strict=True))
    for partial in candidates:
        for extra in itertools.product(*onto):
            if partial is None or (checked + 1) * len(out.states) > MAX_WORK:
                why = f"{budget_text}: more than the check's budget"
                return ClassCheck(False, f"{member}{HOLDS_BOTH_WAYS}, and {why}" if holders
                                  else why, members, holders=tuple(tuple(h) for h in holders))
            tables = _aligned(len(columns), bij, partial, list(merged), list(extra))
            named = [tuple(t.get(v, v) for t, v in zip(tables, key, strict=True))
                     for key in keys]
            image = [index.get(k, -1) for k in named]
            if not nameless and -1 in image:
                continue  # an output state maps to no reference state: fails forward
            checked += 1
            before = len(holders)
            if nameless:
                verdict = _with_unnamed(out, ref, named, ref_keys, edges, found=found,
                                        deadlock=deadlock, reverse_budget=reverse_budget,
                                        member=member, holders=holders)
            else:
                verdict = member_fails(out, ref, image, edges, found=found, deadlock=deadlock,
                                  reverse_budget=reverse_budget, member=member, holders=holders)
            if verdict is None:
                continue
            if before < len(holders) <= MAX_HOLDERS:  # it holds both ways: TLC's, below
                continue  # the graphs cannot refute it; TLC may, with fairness (see below)
            return ClassCheck(False, f"{shape}: {verdict}" if merged else verdict, members,
                              holders=tuple(tuple(h) for h in holders[:MAX_HOLDERS]))
    others = (f"; {', '.join(nameless)}, which the output names nowhere, as any function of "
              f"its state" if nameless else "")
    tried = (f"({checked} keep how states and steps hold the values and were checked; the "
             f"others cannot pass)")
    if holders:  # the class's survivors, each a candidate TLC confirms or refutes
        held = "one that holds" if len(holders) == 1 else f"{len(holders)} that hold"
        return ClassCheck(False, f"of the {members} {noun}, every one fails on the graphs"
                          f"{others} but {held} both ways there {tried}", members,
                          kind, holders=tuple(tuple(h) for h in holders), rest_for_tlc=True)
    return ClassCheck(True, f"each of the {members} {noun} fails on the graphs{others} "
                      f"{tried}", members, kind)


def _aligned(width: int, bij: list[int], partial: list[merges.Table], at: list[int],
             extra: list[merges.Table]) -> list[merges.Table]:
    """One table per column, from the bijections' and the merged columns' own."""
    tables: list[merges.Table] = [{} for _ in range(width)]
    for i, t in zip(bij, partial, strict=True):
        tables[i] = t
    for i, t in zip(at, extra, strict=True):
        tables[i] = t
    return tables


BIJECTION = "a bijection of the named variables' values"
HOLDS_BOTH_WAYS = " holds both ways"
FUNCTION = "a function of the named variables' values onto the reference's"


def _with_unnamed(out: StateGraph, ref: StateGraph, named: list[tuple[Value, ...]],
                  ref_keys: list[tuple[Value, ...]], edges: set[tuple[int, int]], *,
                  found: list[int] | None, deadlock: bool, reverse_budget: int,
                  member: str = BIJECTION, holders: list[list[int]] | None = None) -> str | None:
    """None where the member fails whatever the reference variables without a namesake read
    (`unnamed`); else why the class is not shown to fail."""
    options = unnamed.domains(named, ref, ref_keys)
    if options is None:
        return None  # an output state's named values are no reference state's
    status, _ = unnamed.narrow(out, ref, options, MAX_PAIRS)
    if status == unnamed.FAILS:
        return None
    if status == unnamed.BUDGET:
        return "the choices for the variables the output does not name are over the budget"
    if all(len(o) == 1 for o in options):  # the member's one mapping
        return member_fails(out, ref, [next(iter(o)) for o in options], edges, found=found,
                       deadlock=deadlock, reverse_budget=reverse_budget, member=member,
                       holders=holders)
    return (f"under {member}, the variables the output does not name may be read in more "
            f"than one way")


def member_fails(out: StateGraph, ref: StateGraph, image: list[int], edges: set[tuple[int, int]],
            *, found: list[int] | None, deadlock: bool, reverse_budget: int,
            forward_only: bool = False, member: str = BIJECTION,
            holders: list[list[int]] | None = None) -> str | None:
    """None where the member with this image fails (or is `found`'s, whose failure TLC
    found); else why the class is not shown to fail (a member that holds both ways is added
    to `holders`)."""
    if image == found or any(i < 0 for i in image):
        return None  # `found`'s own failure; a state outside R fails forward
    if not checks.forward(out, ref, image, edges, deadlock=deadlock).ok:
        return None
    if forward_only:
        return f"{member} holds forward"
    rev = checks.reverse(out, ref, image, budget=reverse_budget)
    if rev.limited:
        return "the reverse check's budget ran out on the class"
    if rev.ok:
        if holders is not None:
            holders.append(image)
        return f"{member}{HOLDS_BOTH_WAYS}"
    return None


def _every_bijection(out: StateGraph, ref: StateGraph,
                     columns: list[tuple[list[Value], list[Value], list[Value]]], *,
                     found: list[int] | None, deadlock: bool) -> ClassCheck:
    """On part of the output's graph (forward only), where no count holds: every bijection in
    turn, within the budget."""
    if any(len(g_vals) > MAX_VALUES for _, g_vals, _ in columns):
        return ClassCheck(False, f"a named variable takes more than {MAX_VALUES} values")
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
        verdict = member_fails(out, ref, image, edges, found=found, deadlock=deadlock,
                          reverse_budget=0, forward_only=True)
        if verdict is not None:
            return ClassCheck(False, verdict, members)
    return ClassCheck(True, f"each of the {members} bijections of the named variables' values "
                      f"fails on the graphs", members)

