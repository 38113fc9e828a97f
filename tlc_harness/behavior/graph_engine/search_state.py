"""What the mapping search works with and gives: a part's choice, the outcome (`Inferred`),
the search's state and budget (`Search`), a full mapping's image and TLA+ text, and the
closest candidates when no mapping is exact (`closest`)."""


from __future__ import annotations

import itertools
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from tlc_harness.behavior import checks
from tlc_harness.behavior.features import (
    Feature,
    Part,
)
from tlc_harness.behavior.graphs import StateGraph
from tlc_harness.behavior.time_up import TimeUp
from tlc_harness.behavior.translation import (
    Table,
    TextBuilder,
    loose_table,
)
from tlc_harness.behavior.values import (
    FALSE,
    TRUE,
    Fn,
    ModelValue,
    Value,
    atoms,
    kind_of,
    to_tla,
    translate,
)
from tlc_harness.behavior.verdicts import BehaviorVerdict, Reason

MAX_NODES = 20_000        # partial assignments tried
MAX_FULL = 60             # full assignments checked on the graphs
#: steps of one mapping search (`Work`): the limit that decides where a search stops, measured
#: on the development outputs (scripts/results/search_steps.md) far above any search that ends
MAX_STEPS = 300_000
#: seconds after which a search is stopped whatever its count: a guard against a hung search
#: (far beyond what MAX_STEPS takes), whose verdict says it was the clock
GUARD_SECONDS = 600.0
GUARD_EVERY = 64  # steps between two readings of the clock


@dataclass(frozen=True)
class Choice:
    """What gives one part: a feature through a translation (or a derived lookup)."""

    feature: Feature | None
    table: Table
    image: tuple[Value, ...]            # the part's value per G state
    derived_from: tuple[int, ...] = ()  # for a derived part: indexes of the parts it reads
    #: for a derived part: the output's own variable of its name, which determines it and
    #: which it is read from through a lookup table (`_own_lookup`)
    lookup: Feature | None = None


@dataclass
class Inferred:
    """The search's outcome: `verdict` ok, forward_fail, reverse_fail, no_mapping, undecided."""

    verdict: BehaviorVerdict
    reason: str
    variables: dict[str, str] = field(default_factory=dict)   # R variable -> TLA+ over G
    definitions: list[str] = field(default_factory=list)
    model_values: list[str] = field(default_factory=list)
    image: list[int] = field(default_factory=list)
    counterexample: checks.GraphVerdict | None = None
    tried: int = 0
    hidden: tuple[str, ...] = ()
    #: a failure's mapping, where `variables` does not hold it: the first full mapping that
    #: failed forward (with the `image` its witness was found under), or the closest one that
    #: failed in reverse (as an `ok` would hold it)
    failed_under: Inferred | None = None
    #: reference variables the mapping computes from other parts (a lookup table, or a
    #: constant) while an output variable of the same name is hidden: the output's own
    #: observable is ignored, and an `ok` under it shows nothing about that observable
    recomputed: tuple[str, ...] = ()
    #: an `undecided` search's limit: `search_budget` (its count of work, the same under any
    #: load) or `time_budget` (the clock's guard, which a loaded machine reaches sooner)
    code: Reason | None = None


class Ids:
    """Interns values into small integers shared by both graphs."""

    def __init__(self) -> None:
        self.table: dict[object, int] = {}

    def of(self, key: object) -> int:
        got = self.table.get(key)
        if got is None:
            got = self.table[key] = len(self.table)
        return got

    def each(self, keys: Iterable[object]) -> list[int]:
        """`of` of every key, in order (the search's inner loop: no call per key)."""
        table = self.table
        found: list[int] = []
        for key in keys:
            got = table.get(key)
            if got is None:
                got = table[key] = len(table)
            found.append(got)
        return found


@dataclass
class Work:
    """What bounds one mapping search: a count of its steps (a coarse step such as a check
    over a graph, or 1,024 cheap iterations of an inner loop), the same on any machine under
    any load, and the wall clock only as a guard against a search that hangs."""

    limit: int = MAX_STEPS
    guard_seconds: float = GUARD_SECONDS
    started: float = field(default_factory=time.monotonic)
    steps: int = 0
    hit: str | None = None  # `steps` (the limit: deterministic) or `guard` (the clock)

    def step(self) -> bool:
        """Count a step; whether the search must stop (and why, in `hit`)."""
        self.steps += 1
        if self.hit is None:
            if self.steps > self.limit:
                self.hit = "steps"
            elif self.steps % GUARD_EVERY == 0 and \
                    time.monotonic() - self.started > self.guard_seconds:
                self.hit = "guard"
        return self.hit is not None


@dataclass
class Search:
    out: StateGraph
    ref: StateGraph
    work: Work
    deadlock: bool
    ids: Ids = field(default_factory=Ids)
    nodes: int = 0
    full: int = 0
    first_failure: checks.GraphVerdict | None = None
    failed_under: Inferred | None = None     # the mapping of the first forward failure
    passed_forward: Inferred | None = None   # a mapping that held forward, not in reverse
    failure_choice: list[Choice] | None = None

    def out_of_budget(self) -> bool:
        return self.nodes > MAX_NODES or self.full > MAX_FULL or self.timed_out()

    def timed_out(self) -> bool:
        """One more step of the search; whether its work is up (a `Stop` for its loops)."""
        return self.work.step()

    def check_time(self) -> None:
        """Count a step; raise `TimeUp` when the search's work is up."""
        if self.timed_out():
            raise TimeUp


def translated(column: Sequence[Value], distinct: Iterable[Value],
                table: dict[Value, Value]) -> tuple[Value, ...]:
    """The column with every value's atoms translated by `table` (each distinct value once:
    a graph's column repeats them)."""
    if not table:
        return tuple(column)
    done = {v: translate(v, table) for v in distinct}
    return tuple(done[v] for v in column)


def mapping_of(roots: list[Part], chosen: dict[int, Choice], assigned: list[tuple[Part, Choice]],
             image: list[int], tried: int, hidden: tuple[str, ...] = ()) -> Inferred | None:
    """The chosen parts as TLA+ (None: a part has no text), as an `ok` on the graphs."""
    texts = TextBuilder()
    variables = {}
    for root in roots:
        text = part_text(root, chosen, assigned, texts)
        if text is None:
            return None
        variables[root.path] = text
    return Inferred(BehaviorVerdict.OK, "refines both ways on the state graphs", variables,
                    texts.definitions, sorted(texts.model_values), image, None, tried, hidden)


def forward_failure(search: Search, fwd: checks.GraphVerdict, roots: list[Part],
                     chosen: dict[int, Choice], assigned: list[tuple[Part, Choice]],
                     image: list[int]) -> None:
    """Keep the first forward failure, and the mapping it was found under (with its image,
    which shows the witness's reference states)."""
    if search.first_failure is None:
        search.first_failure = fwd
        search.failed_under = mapping_of(roots, chosen, assigned, image, search.full)


def values_of(part: Part, chosen: dict[int, Choice]) -> Sequence[Value]:
    if part.kind == "leaf":
        return chosen[id(part)].image
    return part.rebuild([values_of(p, chosen) for p in part.parts])


def image_of(search: Search, roots: list[Part], chosen: dict[int, Choice]) -> list[int]:
    columns = [values_of(r, chosen) for r in roots]
    index = search.ref.index()
    return [index.get(state, -1) for state in zip(*columns, strict=True)]


def part_text(part: Part, chosen: dict[int, Choice], assigned: list[tuple[Part, Choice]],
          texts: TextBuilder) -> str | None:
    if part.kind != "leaf":
        inner = [part_text(p, chosen, assigned, texts) for p in part.parts]
        if any(t is None for t in inner):
            return None
        # the keys a rebuilt function names (`[w \in {p1, p2} |-> ...]`) may be model values
        # the output does not declare: the wrapper declares them
        texts.model_values |= {a.name for k in part.keys for a in atoms(k)
                               if isinstance(a, ModelValue)}
        return part.rebuild_text([t for t in inner if t is not None])
    choice = chosen[id(part)]
    if choice.feature is not None:
        texts.model_values |= choice.feature.model_values
        return texts.translated(choice.feature.expr, choice.feature.values(), choice.table)
    if choice.lookup is not None:
        texts.model_values |= choice.lookup.model_values
        table = dict(zip(choice.lookup.column, choice.image, strict=True))
        name = texts.table(f"AliasD{len(texts.definitions) + 1}", list(table.items()))
        return f"{name}[{choice.lookup.expr}]"
    sources = [assigned[i] for i in choice.derived_from]
    if not sources:  # the part never changes
        return to_tla(part.column[0])
    keys = [part_text(p, chosen, assigned, texts) for p, _ in sources]
    if any(k is None for k in keys):
        return None
    pairs: dict[tuple[Value, ...], Value] = {}
    for j, value in enumerate(part.column):
        pairs[tuple(p.column[j] for p, _ in sources)] = value
    name = texts.table(f"AliasD{len(texts.definitions) + 1}",
                       [((k[0] if len(k) == 1 else tuple_value(k)), v) for k, v in pairs.items()])
    arg = keys[0] if len(keys) == 1 else "<<" + ", ".join(str(k) for k in keys) + ">>"
    return f"{name}[{arg}]"


def tuple_value(values: tuple[Value, ...]) -> Value:
    return Fn.tuple_of(values)


def closest(search: Search, roots: list[Part], leaves: list[Part],
             choices: dict[int, list[Choice]], feats: list[Feature],
             reverse_budget: int) -> Inferred:
    """No exact mapping: classify with the closest candidates and keep a counterexample."""
    if search.passed_forward is not None:
        held = search.passed_forward
        return Inferred(BehaviorVerdict.REVERSE_FAIL, "the output allows too few behaviors: under every "
                        "mapping that passes forward, a reference behavior has no "
                        "counterpart", held.variables, held.definitions, held.model_values,
                        counterexample=search.first_failure, tried=search.full)
    if search.first_failure is not None:
        return Inferred(BehaviorVerdict.FORWARD_FAIL, fail_text(search.first_failure),
                        counterexample=search.first_failure, tried=search.full,
                        failed_under=search.failed_under)
    whole = [Part(v, search.ref.column(v)) for v in search.ref.variables]
    for plan_roots, plan_leaves, exact in ((whole, whole, {}), (roots, leaves, choices)):
        loose = {id(p): exact.get(id(p), [])[:2] or loose_choices(p, feats, search)
                 for p in plan_leaves}
        if all(loose.values()):
            return closest_try(search, plan_roots, plan_leaves, loose, reverse_budget)
    missing = [p.path for p in leaves if not choices[id(p)] and not loose_choices(p, feats, search)]
    return Inferred(BehaviorVerdict.NO_MAPPING, "nothing in the output's state corresponds to the "
                    f"reference's {', '.join(missing)} (no variable, field or component "
                    "with values of that kind)", tried=search.full)


def loose_choices(part: Part, feats: list[Feature], search: Search | None = None
                  ) -> list[Choice]:
    """The two features whose values overlap the part's most (kinds must agree; `search`:
    whose time bounds it, `TimeUp`)."""
    r_values = frozenset(part.column)
    found = []
    stop = search.timed_out if search is not None else None
    for feat in feats:
        if search is not None:
            search.check_time()
        g_values = feat.values()
        if not comparable(g_values, r_values):
            continue
        table = loose_table(g_values, r_values, stop)
        image = translated(feat.column, g_values, table)
        overlap = len(frozenset(image) & r_values) / len(frozenset(image) | r_values)
        found.append((-overlap, feat.depth, Choice(feat, table, image)))
    found.sort(key=lambda t: (t[0], t[1]))
    return [c for *_, c in found[:2]]


def closest_try(search: Search, roots: list[Part], leaves: list[Part],
                 loose: dict[int, list[Choice]], reverse_budget: int) -> Inferred:
    for combo in itertools.islice(itertools.product(*(loose[id(p)] for p in leaves)), 16):
        search.check_time()
        chosen = {id(p): c for p, c in zip(leaves, combo, strict=True)}
        search.full += 1
        image = image_of(search, roots, chosen)
        fwd = checks.forward(search.out, search.ref, image, deadlock=search.deadlock)
        if not fwd.ok:
            forward_failure(search, fwd, roots, chosen, [], image)
            continue
        rev = checks.reverse(search.out, search.ref, image, budget=reverse_budget,
                             stop=search.timed_out)
        search.check_time()  # a reverse check cut by time is no failure
        if rev.ok:  # both hold only for an exact image, which the search has seen
            continue
        return Inferred(BehaviorVerdict.REVERSE_FAIL, "the output allows too few behaviors: "
                        + rev.why, counterexample=rev, tried=search.full,
                        failed_under=mapping_of(roots, chosen, [], image, search.full))
    failure = search.first_failure
    return Inferred(BehaviorVerdict.FORWARD_FAIL, fail_text(failure) if failure else
                    "no mapping makes the output's behaviors the reference's",
                    counterexample=failure, tried=search.full,
                    failed_under=search.failed_under if failure else None)


def comparable(g_values: frozenset[Value], r_values: frozenset[Value]) -> bool:
    """Whether values could stand for each other at all: the same outer kinds (an empty
    function or set fits any), or 0/1 for booleans."""
    if r_values <= {TRUE, FALSE} and g_values <= {0, 1}:
        return True
    outer = {"int": "int", "set": "set", "fn": "fn"}
    g_kinds = {outer.get(kind_of(v), "atom") for v in g_values}
    r_kinds = {outer.get(kind_of(v), "atom") for v in r_values}
    return g_kinds <= r_kinds or r_kinds <= g_kinds


def fail_text(failure: checks.GraphVerdict) -> str:
    return failure.why + (" (the output's behavior is shown)" if failure.out_path else
                          " (the reference's behavior is shown)")
