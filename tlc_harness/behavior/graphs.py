"""Reachable state graphs: read from TLC's dot dump, explored once per spec, cached on disk.

TLC's `-dump dot,actionlabels` writes one node per distinct state (its label the state as
`/\\ var = value` lines, dot-escaped; initial states filled) and one edge per transition,
labelled with the action. `read_dot` turns that into a `StateGraph` whose states are tuples of
`values.Value`s in variable order. `explore` runs TLC for it under a distinct-state budget (a
constraint `TLCGet("distinct") < budget` in a small wrapper module), so an unbounded spec ends.
With `own_checks`, the same run checks the model's INVARIANTs, and its PROPERTYs where none
reads as liveness, on every reachable state and step (no SYMMETRY or VIEW in an exploration):
`Exploration.checked` says which held, so a mapping onto the graph carries them.
"""

from __future__ import annotations

import contextlib
import enum
import gc
import hashlib
import json
import pickle
import re
from collections import deque
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path

from tlc_harness.behavior.options import DEFAULT_BUDGET
from tlc_harness.behavior.values import SubValues, Value, ValueSyntaxError, parse_value
from tlc_harness.source.cfg import ModelConfig, format_cfg
from tlc_harness.source.formulas import liveness_free
from tlc_harness.tools.disk_cache import atomic_write, cache_root, key_lock
from tlc_harness.tools.results import LIMIT_VERDICTS, CheckResult, Verdict
from tlc_harness.tools.runner import Harness
from tlc_harness.tools.spec import SpecSource

GRAPH_FORMAT = 4
EXPLORE = "AliasExplore"

#: a quoted dot string's inside, written so the regex engine takes runs of plain characters
#: at once (the same strings as `(?:[^"\\]|\\.)*`)
_DOT_STRING = r'[^"\\]*(?:\\.[^"\\]*)*'
_NODE = re.compile(rf'^(-?\d+) \[label="({_DOT_STRING})"(,style = filled)?\]')
_EDGE = re.compile(rf'^(-?\d+) -> (-?\d+) \[label="({_DOT_STRING})"')
_DOT_ESCAPE = re.compile(r"\\(.)")
_VAR_LINE = re.compile(r"(?:/\\ )?(\w*[A-Za-z]\w*) = ")
#: where a variable's line starts in a label of several
_VAR_START = re.compile(r"(?:^|\n)/\\ (\w*[A-Za-z]\w*) = ")


@dataclass
class StateGraph:
    """States (value tuples in `variables` order), initial states, and edges between them.

    Edges are (source, target) index pairs without self-loops (a self-loop is a stutter);
    `actions` names the action TLC gave each edge; `terminal` lists the states with no
    transition at all, not even to themselves (where TLC's deadlock check would stop)."""

    variables: tuple[str, ...]
    states: list[tuple[Value, ...]]
    initial: list[int]
    edges: list[tuple[int, int]]
    actions: dict[tuple[int, int], str] = field(default_factory=dict)
    terminal: list[int] = field(default_factory=list)
    _succ: list[list[int]] | None = field(default=None, compare=False, repr=False)
    _index: dict[tuple[Value, ...], int] | None = field(default=None, compare=False, repr=False)

    def __len__(self) -> int:
        return len(self.states)

    def successors(self) -> list[list[int]]:
        if self._succ is None:
            succ: list[list[int]] = [[] for _ in self.states]
            for a, b in self.edges:
                succ[a].append(b)
            self._succ = succ
        return self._succ

    def index(self) -> dict[tuple[Value, ...], int]:
        if self._index is None:
            self._index = {s: i for i, s in enumerate(self.states)}
        return self._index

    def column(self, variable: str) -> list[Value]:
        k = self.variables.index(variable)
        return [s[k] for s in self.states]

    def path_to(self, target: int) -> list[int]:
        """A shortest path from an initial state to `target` (state indices)."""
        parent: dict[int, int | None] = {i: None for i in self.initial}
        queue = deque(self.initial)
        succ = self.successors()
        while queue:
            a = queue.popleft()
            if a == target:
                break
            for b in succ[a]:
                if b not in parent:
                    parent[b] = a
                    queue.append(b)
        if target not in parent:
            return [target]
        path = [target]
        while (p := parent[path[-1]]) is not None:
            path.append(p)
        return path[::-1]

    def __getstate__(self) -> dict[str, object]:
        return {"variables": self.variables, "states": self.states, "initial": self.initial,
                "edges": self.edges, "actions": self.actions, "terminal": self.terminal}

    def __setstate__(self, state: dict[str, object]) -> None:
        self.__dict__.update(state)
        self._succ = None
        self._index = None


class GraphError(ValueError):
    """A dump that cannot be read (a value TLC printed in a way this reader does not know)."""


def _unescaped(label: str) -> str:
    """A dot label's text: `\\n` a line break, `\\X` the character X."""
    pieces = _DOT_ESCAPE.split(label)  # text, escaped character, text, ...
    pieces[1::2] = ["\n" if c == "n" else c for c in pieces[1::2]]
    return "".join(pieces)


def _assignments(text: str) -> list[tuple[str, str]]:
    """(variable, value text) of a label's lines `/\\ x = value`, a value's further lines
    joined to it by spaces; a label of one variable may lack the `/\\ `."""
    found = list(_VAR_START.finditer(text))
    if found and found[0].start() == 0:  # TLC's usual label: one `/\ x = ` per variable
        bounds = [*(m.start() for m in found[1:]), len(text)]
        return [(m.group(1), text[m.end():end].replace("\n", " "))
                for m, end in zip(found, bounds, strict=True)]
    lines = text.split("\n")
    if not lines[0].startswith("/\\ "):  # one variable: `x = value`, maybe over several lines
        lines = [" ".join(lines)]
    assignments: list[list[str]] = []
    for line in lines:
        hit = _VAR_LINE.match(line)
        if hit and (line.startswith("/\\ ") or len(lines) == 1):
            assignments.append([hit.group(1), line[hit.end():]])
        elif assignments:
            assignments[-1][1] += " " + line
        elif line.strip():
            raise GraphError(f"state label without a variable: {line[:80]!r}")
    return [(name, raw) for name, raw in assignments]


def _state(label: str, cache: dict[str, Value], seen: SubValues) -> dict[str, Value]:
    assignments = _assignments(_unescaped(label))
    state: dict[str, Value] = {}
    for name, raw in assignments:
        value = cache.get(raw)
        if value is None:
            try:
                value = cache[raw] = parse_value(raw, seen)
            except ValueSyntaxError as exc:
                raise GraphError(f"{name}: {exc}") from exc
        state[name] = value
    return state


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """Python's cycle collector paused while a graph's values are made: they hold no cycles,
    and the collector would walk the growing heap again and again (a cached graph of 48,000
    states loads in a sixth of the time)."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def read_dot(path: Path | str, variables: Sequence[str] | None = None) -> StateGraph:
    """The graph TLC dumped to `path` (variables in TLC's order unless given)."""
    with collector_paused():
        return _read_dot(path, variables)


def _read_dot(path: Path | str, variables: Sequence[str] | None) -> StateGraph:
    ids: dict[str, int] = {}
    states: list[tuple[Value, ...]] = []
    initial: list[int] = []
    edges: dict[tuple[int, int], str] = {}
    raw_edges: list[tuple[str, str, str]] = []
    cache: dict[str, Value] = {}
    seen: SubValues = {}  # the parts of values read, by their tokens (`parse_value`)
    names: tuple[str, ...] | None = tuple(variables) if variables else None
    with open(path, encoding="utf-8", errors="replace") as handle:  # noqa: PTH123
        for line in handle:
            if line[:1] not in "-0123456789":
                continue
            edge = _EDGE.match(line)
            if edge:
                raw_edges.append((edge.group(1), edge.group(2), edge.group(3)))
                continue
            node = _NODE.match(line)
            if node is None or node.group(1) in ids:
                continue
            state = _state(node.group(2), cache, seen)
            if names is None:
                names = tuple(state)
            if set(state) != set(names):
                raise GraphError(f"a state with variables {sorted(state)}, expected "
                                 f"{sorted(names)}")
            ids[node.group(1)] = len(states)
            states.append(tuple(state[v] for v in names))
            if node.group(3):
                initial.append(ids[node.group(1)])
    moving: set[int] = set()
    for a, b, action in raw_edges:
        if a in ids and b in ids:
            moving.add(ids[a])
            if a != b:
                edges.setdefault((ids[a], ids[b]), action)
    terminal = [i for i in range(len(states)) if i not in moving]
    return StateGraph(names or (), states, initial, list(edges), edges, terminal)


class Explored(enum.StrEnum):
    """How an exploration ended where TLC's own verdict does not say it."""

    OVER_BUDGET = "over_budget"  #: more distinct states than the budget
    UNREADABLE = "unreadable"    #: TLC ran, but its state dump could not be read
    VACUOUS = "vacuous"          #: no initial state


def exploration_verdict(text: str) -> Verdict | Explored:
    """The verdict named `text` (a cache written before verdicts were enums holds text)."""
    return Explored(text) if text in Explored._value2member_map_ else Verdict(text)


@dataclass(frozen=True)
class Exploration:
    """A graph (`verdict` Verdict.OK), or why there is none: `Explored`, or TLC's verdict."""

    graph: StateGraph | None
    verdict: Verdict | Explored
    detail: str = ""
    seconds: float = 0.0
    tlc_runs: int = 0
    #: TLC's `-tool` message codes of a run that gave no graph (`own_run.own_run_error`)
    codes: tuple[int, ...] = ()
    #: the model's own checks the exploring run made and that held on every reachable state
    #: and step (`OwnCheck`); empty where it made none
    checked: frozenset[OwnCheck] = frozenset()

    @property
    def ok(self) -> bool:
        return self.graph is not None


class OwnCheck(enum.StrEnum):
    """A kind of the model's own checks that an exploring run can make on the whole graph."""

    INVARIANTS = "invariants"  #: every INVARIANT, on every reachable state
    PROPERTIES = "properties"  #: every PROPERTY, each checked state by state or step by step


#: TLC's `-tool` codes of a liveness check (2192: temporal properties checked on the state
#: space; 2212: the implied-temporal satisfiability problem): a run that printed neither
#: checked its PROPERTYs as state and action properties, on every state and every step
LIVENESS_CODES = frozenset({2192, 2212})


def exploration_cfg(cfg: ModelConfig, budget: int,
                    keep: frozenset[OwnCheck] = frozenset()) -> ModelConfig:
    """The cfg that explores a model: no invariants or properties (but those `keep` names), no
    symmetry or view; deadlock off; the budget as one more constraint."""
    return replace(cfg, invariants=cfg.invariants if OwnCheck.INVARIANTS in keep else (),
                   properties=cfg.properties if OwnCheck.PROPERTIES in keep else (),
                   symmetry=None, view=None, alias=None,
                   postconditions=(), possible=(), periodic=(), check_deadlock=False,
                   constraints=(*cfg.constraints, "AliasBudget"))


def _wrapper(main: str, budget: int, definitions: Sequence[str] = ()) -> str:
    return "\n".join([f"---- MODULE {EXPLORE} ----", f"EXTENDS {main}",
                      "LOCAL INSTANCE Naturals", "AliasTLC == INSTANCE TLC",
                      f"AliasBudget == AliasTLC!TLCGet(\"distinct\") < {budget}",
                      *definitions, "====", ""])


def explore(harness: Harness, spec: SpecSource, cfg: ModelConfig, *,
            tlc_args: Sequence[str] = (), budget: int = DEFAULT_BUDGET,
            timeout: float | None = None, cache: Path | None = None,
            definitions: Sequence[str] = (), own_checks: bool = False) -> Exploration:
    """TLC's reachable graph of `spec` under `cfg` (cached by content when `cache` is given);
    `definitions` go into the wrapper module, for cfg overrides `c <- AliasVal_c`.
    `own_checks`: the run also checks the model's invariants, and its properties where none
    reads as liveness (`Exploration.checked`); where a check fails or TLC cannot make it,
    the graph is explored again without them."""
    explored = partial(_explore_once, harness, spec, cfg, tlc_args=tlc_args, budget=budget,
                       timeout=timeout, cache=cache, definitions=definitions)
    if not own_checks:
        return explored(frozenset())
    keep = frozenset({OwnCheck.INVARIANTS})
    if liveness_free(spec.files, cfg.properties):
        keep |= {OwnCheck.PROPERTIES}
    found = explored(keep)
    if found.ok or found.verdict in (Explored.OVER_BUDGET, *LIMIT_VERDICTS):
        return found
    # the model fails one of its checks on a state its own run did not see (under a
    # SYMMETRY or VIEW), or TLC cannot make one here: the graph alone, without them
    plain = explored(frozenset())
    return replace(plain, seconds=plain.seconds + found.seconds,
                   tlc_runs=plain.tlc_runs + found.tlc_runs)


#: how explorations end that are stored: TLC's answer about the model, the same every time
_STORED = frozenset({Verdict.OK, Explored.OVER_BUDGET, Verdict.EVAL_ERROR, Verdict.PARSE_ERROR,
                     Verdict.CONFIG_BIND_FAIL, Verdict.INVARIANT_VIOLATED,
                     Verdict.PROPERTY_VIOLATED})


def _explore_once(harness: Harness, spec: SpecSource, cfg: ModelConfig, keep: frozenset[OwnCheck],
                  *, tlc_args: Sequence[str], budget: int, timeout: float | None,
                  cache: Path | None, definitions: Sequence[str]) -> Exploration:
    files = {**spec.files, f"{EXPLORE}.tla": _wrapper(spec.main, budget, definitions)}
    model = exploration_cfg(cfg, budget, keep)
    args = [a for a in tlc_args if a != "-deadlock"]
    key = _key(harness, files, model, args, budget)
    if cache is None:
        return _explored(harness, SpecSource(EXPLORE, files), model, args, budget, timeout, keep)
    hit = _load(cache, key)
    if hit is None:
        with key_lock(cache, key):  # another process exploring the same graph: wait, read
            hit = _load(cache, key)
            if hit is None:
                found = _explored(harness, SpecSource(EXPLORE, files), model, args, budget,
                                  timeout, keep)
                if found.verdict in _STORED:
                    _store(cache, key, found)
                return found
    return replace(hit, seconds=0.0, tlc_runs=0)  # answered without TLC


def _explored(harness: Harness, spec: SpecSource, model: ModelConfig, args: list[str],
              budget: int, timeout: float | None,
              keep: frozenset[OwnCheck] = frozenset()) -> Exploration:
    result = harness.check(spec, model, tlc_args=args, timeout=timeout, compat=True,
                           read_graph=lambda path: read_dot_safely(path, budget))
    found = _exploration(result, budget)
    if not found.ok:
        return found
    if LIVENESS_CODES & set(result.message_codes):
        keep -= {OwnCheck.PROPERTIES}  # TLC checked one as liveness: not step by step
    return replace(found, checked=keep)


def read_dot_safely(path: Path, budget: int | None = None) -> StateGraph | str | int:
    """The graph; or why it cannot be read; or (over `budget`) its number of states, unread."""
    if budget is not None:
        with open(path, encoding="utf-8", errors="replace") as handle:  # noqa: PTH123
            nodes = sum(1 for line in handle if " [label=" in line and " -> " not in line)
        if nodes >= budget:
            return nodes
    try:
        return read_dot(path)
    except GraphError as exc:
        return f"the state dump could not be read: {exc}"


def _exploration(result: CheckResult, budget: int) -> Exploration:
    graph = result.extras.get("graph")
    if result.verdict is Verdict.OK and isinstance(graph, int):
        return Exploration(None, Explored.OVER_BUDGET, f"more than {budget - 1} distinct states",
                           result.seconds, 1)
    if result.verdict is not Verdict.OK or not isinstance(graph, StateGraph):
        detail = graph if isinstance(graph, str) else (result.violated or result.detail[:300])
        verdict = Explored.UNREADABLE if isinstance(graph, str) else result.verdict
        return Exploration(None, verdict, detail, result.seconds, 1, result.message_codes)
    if len(graph) >= budget:
        return Exploration(None, Explored.OVER_BUDGET, f"more than {budget - 1} distinct states",
                           result.seconds, 1)
    if not graph.initial:
        return Exploration(None, Explored.VACUOUS, "no initial state", result.seconds, 1)
    return Exploration(graph, Verdict.OK, "", result.seconds, 1)


def _key(harness: Harness, files: Mapping[str, str], cfg: ModelConfig, args: Iterable[str],
         budget: int) -> str:
    blob = json.dumps({"format": GRAPH_FORMAT, "files": sorted(files.items()),
                       "cfg": format_cfg(cfg), "args": list(args), "budget": budget,
                       "jar": harness.toolchain.jar_sha256}, sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()[:32]


def _load(cache: Path, key: str) -> Exploration | None:
    path = cache / f"{key}.pickle"
    try:
        with path.open("rb") as handle, collector_paused():
            found = pickle.load(handle)  # noqa: S301 - our own cache, keyed by content
    except (OSError, pickle.UnpicklingError, EOFError, AttributeError, ImportError,
            ValueError, TypeError, IndexError, KeyError):  # unreadable: missing
        return None
    if not isinstance(found, Exploration):
        return None
    if not isinstance(found.verdict, Verdict | Explored):  # written when verdicts were text
        found = replace(found, verdict=exploration_verdict(str(found.verdict)))
    return found


def _store(cache: Path, key: str, found: Exploration) -> None:
    with contextlib.suppress(OSError):  # a cache that cannot be written keeps nothing
        atomic_write(cache / f"{key}.pickle", pickle.dumps(found))


def graph_cache(root: Path | None = None) -> Path:
    """The folder of explored reference graphs under the cache root (`disk_cache`)."""
    return cache_root(root) / "graphs"


def default_cache() -> Path:
    """The graph folder under the default cache root."""
    return graph_cache()
