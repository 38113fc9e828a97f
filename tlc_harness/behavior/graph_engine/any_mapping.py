"""The class of every state mapping, decided on the two whole graphs by complete solvers.

A refinement mapping without auxiliary variables is a state function f from the output's
reachable states to the reference's. For the output to refine the reference both ways under
f, f must send initial states to initial states and each output step to a reference step or
a stutter (forward), and every reachable reference state, initial state and step between two
different states must be the image of one of the output's (reverse: each reference behavior
is, up to stuttering, the image of an output behavior). So, on whole graphs:

- fewer output states, initial states or steps: no f is onto (`checks.too_small`);
- as many states: f is one-to-one, so no step becomes a stutter and f is an *isomorphism* of
  the two graphs (self-loops left out, initial states marked). bliss (through igraph) decides
  it, with states coloured by invariants any isomorphism keeps (initial, in- and out-degree,
  distance from the initial states): not isomorphic is a failure under every mapping;
- more states: f is an onto homomorphism that may turn steps into stutters and must cover
  every reference state, initial state and step. CP-SAT decides it (one integer per output
  state, its image; a table constraint per output step; an element constraint per reference
  state, and per reference step where the graphs' steps are few, for its preimage), with one
  worker, a fixed seed and a deterministic limit (CP-SAT's own count of work, not seconds):
  no solution is a failure under every mapping.

A failure is always a reverse one: mapping every output state to one initial reference state
keeps every output behavior inside the reference's (each step a stutter), so some f always
passes forward; every f that does misses a reference behavior. A solution is a *candidate*, nothing more:
the graph checks (reverse trace inclusion is more than covering) and TLC (fairness, properties)
still decide it.
"""

from __future__ import annotations

import enum
from collections import Counter, deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from tlc_harness.behavior import checks
from tlc_harness.behavior.graphs import StateGraph

#: the constraint model is built only where (output states x reference states) and (output
#: steps x (reference steps + states)) stay under this: past it, the model is too large for a
#: grade's share of the machine
MAX_PRODUCT = 1_000_000
#: the reference's steps are each given a preimage step only where (output steps x reference
#: steps) stays under this (each is an element constraint over the output's steps); above it
#: the model keeps the other conditions, which are necessary all the same
MAX_STEP_COVER = 100_000
#: isomorphic graphs: every isomorphism is a candidate TLC confirms while there are at most
#: this many (a count: the reference's automorphisms, from bliss)
MAX_ISOMORPHISMS = 12
#: CP-SAT's deterministic time limit (its own count of work, the same on any machine load)
DETERMINISTIC_LIMIT = 10.0
#: a guard against a hung solver only: reaching it is reported, never a verdict
WALL_GUARD_SECONDS = 600.0


#: the kind of a decision where the graphs have as many states (every mapping is one-to-one)
ISOMORPHISM = "isomorphism"


class Outcome(enum.StrEnum):
    """What the class of every mapping says."""

    FAILS = "fails"            #: no state mapping can work: a failure under any mapping
    CANDIDATE = "candidate"    #: a mapping that keeps every count a working one must keep
    OPEN = "open"              #: not decided (graphs too large for the model, or its limit)


@dataclass(frozen=True)
class AnyMapping:
    """The decision, why, and for a candidate the image of each output state."""

    outcome: Outcome
    why: str
    kind: str = ""                       #: counts, isomorphism, homomorphism
    image: tuple[int, ...] = ()
    solver: dict[str, object] = field(default_factory=dict)
    #: isomorphic graphs: how many isomorphisms there are (the reference's automorphisms),
    #: and each of them where there are at most `MAX_ISOMORPHISMS` (`image` first)
    isomorphisms: int = 0
    every_image: tuple[tuple[int, ...], ...] = ()

    def facts(self) -> dict[str, object]:
        """The record's facts about the class of every mapping."""
        data: dict[str, object] = {"any_mapping": self.outcome.value,
                                   "any_mapping_reason": self.why}
        if self.kind:
            data["any_mapping_kind"] = self.kind
        if self.isomorphisms:
            data["any_mapping_isomorphisms"] = self.isomorphisms
        if self.solver:
            data["any_mapping_solver"] = dict(self.solver)
        return data


def decide(out: StateGraph, ref: StateGraph) -> AnyMapping:
    """The class of every state mapping of two whole graphs (see the module)."""
    small = checks.too_small(out, ref)
    if small:
        return AnyMapping(Outcome.FAILS, small, "counts")
    if len(out) == len(ref):
        return _isomorphism(out, ref)
    return _homomorphism(out, ref)


# ------------------------------------------------------------------------------ isomorphism
def depths(graph: StateGraph) -> list[int]:
    """Each state's distance, in steps, from the nearest initial state (-1: unreachable)."""
    depth = [-1] * len(graph)
    queue: deque[int] = deque()
    for g in graph.initial:
        if depth[g] < 0:
            depth[g] = 0
            queue.append(g)
    succ = graph.successors()
    while queue:
        a = queue.popleft()
        for b in succ[a]:
            if depth[b] < 0:
                depth[b] = depth[a] + 1
                queue.append(b)
    return depth


def _invariants(graph: StateGraph) -> list[tuple[int, int, int, int]]:
    """Per state: (initial, in-degree, out-degree, depth), kept by every isomorphism."""
    initial = set(graph.initial)
    indegree = [0] * len(graph)
    outdegree = [0] * len(graph)
    for a, b in set(graph.edges):
        outdegree[a] += 1
        indegree[b] += 1
    depth = depths(graph)
    return [(int(g in initial), indegree[g], outdegree[g], depth[g]) for g in range(len(graph))]


def _isomorphism(out: StateGraph, ref: StateGraph) -> AnyMapping:
    import igraph  # the graph tools are loaded only where a grade needs them

    mine, theirs = _invariants(out), _invariants(ref)
    if Counter(mine) != Counter(theirs):
        what = _first_difference(mine, theirs)
        return AnyMapping(Outcome.FAILS, _not_isomorphic(out, ref, what), ISOMORPHISM)
    palette = {key: i for i, key in enumerate(sorted(set(mine)))}
    g_out = igraph.Graph(n=len(out), edges=sorted(set(out.edges)), directed=True)
    g_ref = igraph.Graph(n=len(ref), edges=sorted(set(ref.edges)), directed=True)
    same, mapping, _ = g_out.isomorphic_bliss(
        g_ref, return_mapping_12=True, color1=[palette[k] for k in mine],
        color2=[palette[k] for k in theirs])
    if not same:
        return AnyMapping(Outcome.FAILS, _not_isomorphic(out, ref, "bliss finds no isomorphism "
                                                         "that keeps these colours"),
                          ISOMORPHISM)
    colours = [palette[k] for k in theirs]
    count = int(g_ref.count_automorphisms(color=colours))
    every = every_isomorphism(tuple(mapping), g_ref.automorphism_group(color=colours)) \
        if count <= MAX_ISOMORPHISMS else ()
    return AnyMapping(Outcome.CANDIDATE, f"the output's graph is isomorphic to the reference's "
                      f"({len(out)} states, {len(set(out.edges))} steps; {count} "
                      f"isomorphism{'s' if count > 1 else ''})", ISOMORPHISM,
                      image=tuple(mapping), isomorphisms=count, every_image=every)


def every_isomorphism(first: tuple[int, ...], generators: Sequence[Sequence[int]]
                      ) -> tuple[tuple[int, ...], ...]:
    """Every isomorphism: `first` composed with each element of the group the reference's
    automorphism `generators` generate (closed under composition, breadth first, so the
    order is the same on every run)."""
    identity = tuple(range(len(generators[0]))) if generators else ()
    group: list[tuple[int, ...]] = [identity] if generators else []
    seen = set(group)
    for element in group:  # grows while it is read: the closure
        for gen in generators:
            composed = tuple(gen[r] for r in element)
            if composed not in seen:
                seen.add(composed)
                group.append(composed)
    if not group:
        return (first,)
    return tuple(tuple(sigma[r] for r in first) for sigma in group)


def _first_difference(mine: Sequence[tuple[int, int, int, int]],
                      theirs: Sequence[tuple[int, int, int, int]]) -> str:
    names = ("initial states", "in-degrees", "out-degrees", "distances from the initial states")
    for k, name in enumerate(names):
        if Counter(t[k] for t in mine) != Counter(t[k] for t in theirs):
            return f"their states differ in {name}"
    return "their states differ in how initial state, degrees and distance combine"


def _not_isomorphic(out: StateGraph, ref: StateGraph, what: str) -> str:
    return (f"the output's graph has as many states as the reference's ({len(ref)}), so a "
            f"mapping under which both directions hold is an isomorphism of the two graphs, "
            f"and there is none ({what}): no mapping of the output's states works")


# ---------------------------------------------------------------------------- homomorphism
@dataclass(frozen=True)
class Solved:
    """A solver's answer: found (with the image), none, limit or too_large."""

    status: str            # found, none, limit, too_large
    image: tuple[int, ...] = ()
    stats: dict[str, object] = field(default_factory=dict)


def _homomorphism(out: StateGraph, ref: StateGraph) -> AnyMapping:
    solved = solve(out, ref, cover=True)
    if solved.status == "none":
        return AnyMapping(Outcome.FAILS, (
            f"no mapping of the output's {len(out)} states onto the reference's {len(ref)} "
            f"sends initial states to initial states and steps to steps or stutters while "
            f"covering every reference state, initial state and step (CP-SAT proves the "
            f"model has no solution): no mapping of the output's states works"),
            "homomorphism", solver=solved.stats)
    if solved.status == "found":
        return AnyMapping(Outcome.CANDIDATE, "a mapping of the output's states onto the "
                          "reference's keeps initial states and steps and covers them all",
                          "homomorphism", image=solved.image, solver=solved.stats)
    why = ("the graphs are too large for the constraint model" if solved.status == "too_large"
           else "the solver reached its deterministic limit")
    return AnyMapping(Outcome.OPEN, f"the output has more states than the reference "
                      f"({len(out)} for {len(ref)}) and {why}", "homomorphism",
                      solver=solved.stats)


def solve(out: StateGraph, ref: StateGraph, *, cover: bool,
          limit: float = DETERMINISTIC_LIMIT) -> Solved:
    """The constraint model of a forward homomorphism (`cover`: onto every reference state,
    initial state and step), solved by CP-SAT with one worker and a fixed seed."""
    built = build(out, ref, cover=cover)
    return built if isinstance(built, Solved) else built.solve(limit)


@dataclass
class Model:
    """A homomorphism model CP-SAT solves, and may solve again with more constraints."""

    model: Any                  #: the `cp_model.CpModel`
    image: list[Any]            #: one integer variable per output state: its image

    def solve(self, limit: float = DETERMINISTIC_LIMIT) -> Solved:
        """One solution (one worker, seed 0, a deterministic limit), or why there is none."""
        from ortools.sat.python import cp_model

        solver = cp_model.CpSolver()
        solver.parameters.num_workers = 1
        solver.parameters.random_seed = 0
        solver.parameters.max_deterministic_time = limit
        solver.parameters.max_time_in_seconds = WALL_GUARD_SECONDS
        status = solver.solve(self.model)
        stats: dict[str, object] = {"status": solver.status_name(status),
                                    "conflicts": solver.num_conflicts,
                                    "branches": solver.num_branches,
                                    "deterministic_time": round(solver.deterministic_time, 3),
                                    "seconds": round(solver.wall_time, 3)}
        if status in (cp_model.OPTIMAL, cp_model.FEASIBLE):
            return Solved("found", tuple(solver.value(v) for v in self.image), stats)
        if status == cp_model.INFEASIBLE:
            return Solved("none", stats=stats)
        if solver.wall_time >= WALL_GUARD_SECONDS:
            stats["wall_guard"] = True  # a hung solver: an infrastructure outcome
        return Solved("limit", stats=stats)

    def exclude(self, image: Sequence[int]) -> None:
        """Rule out one solution: some output state's image differs from `image`'s."""
        differs = []
        for var, target in zip(self.image, image, strict=True):
            lit = self.model.new_bool_var("")
            self.model.add(var != target).only_enforce_if(lit)
            differs.append(lit)
        self.model.add_bool_or(differs)


def build(out: StateGraph, ref: StateGraph, *, cover: bool) -> Model | Solved:
    """The constraint model of a forward homomorphism (`cover`: onto every reference state,
    initial state and step), or the decision where none needs building (too large, or
    pruned to no solution)."""
    out_edges, ref_edges = sorted(set(out.edges)), sorted(set(ref.edges))
    size = max(len(out) * len(ref), len(out_edges) * (len(ref_edges) + len(ref)))
    if size > MAX_PRODUCT:  # (counted before any model is built)
        return Solved("too_large", stats={"size": size})
    from ortools.sat.python import cp_model  # loaded only where a grade needs it

    d_out, d_ref = depths(out), depths(ref)
    ref_initial = sorted(set(ref.initial))
    out_initial = sorted(set(out.initial))
    by_depth = sorted(range(len(ref)), key=lambda r: d_ref[r])
    domains: list[list[int]] = []
    for g in range(len(out)):
        # a path of k steps maps to a path of at most k steps: an image no deeper than g
        allowed = ref_initial if g in set(out_initial) else \
            [r for r in by_depth if d_ref[r] <= d_out[g]]
        if not allowed:
            return Solved("none", stats={"pruned": True})
        domains.append(sorted(allowed))
    model = cp_model.CpModel()
    image = [model.new_int_var_from_domain(cp_model.Domain.from_values(dom), f"y{g}")
             for g, dom in enumerate(domains)]
    allowed_steps = [*ref_edges, *((r, r) for r in range(len(ref)))]
    for a, b in out_edges:
        model.add_allowed_assignments([image[a], image[b]], allowed_steps)
    if cover:
        member = [set(dom) for dom in domains]
        for r in range(len(ref)):
            pool = out_initial if r in set(ref_initial) else \
                [g for g in range(len(out)) if r in member[g]]
            if not pool:
                return Solved("none", stats={"pruned": True})
            which = model.new_int_var(0, len(pool) - 1, f"p{r}")
            model.add_element(which, [image[g] for g in pool], r)
        cover_steps = len(out_edges) * len(ref_edges) <= MAX_STEP_COVER
        for a, b in ref_edges if cover_steps else ():
            steps = [(x, y) for x, y in out_edges if a in member[x] and b in member[y]]
            if not steps:
                return Solved("none", stats={"pruned": True})
            index = model.new_int_var(0, len(steps) - 1, f"q{a}_{b}")
            model.add_element(index, [image[x] for x, _ in steps], a)
            model.add_element(index, [image[y] for _, y in steps], b)
    return Model(model, image)

