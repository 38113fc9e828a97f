"""The output's run under the task's own model, made once by the name grade and offered to the
behavior grade as the output's graph where both explore the same model.

The name grade runs TLC on the output alone under the variant's cfg. With TLC's state dump on,
that run's reachable graph is the one the graph engine would explore for the output when both
runs explore the same model: the same modules (module names aside), the same constants and
definitions given the same values, the same behavior (SPECIFICATION, or INIT and NEXT), no
CONSTRAINT in either (the graph engine cuts a bounded reference's outputs its own way), no
SYMMETRY or VIEW (they reduce the dumped graph), no TLC option but `-deadlock`. Checking
invariants, properties and deadlock never changes which states TLC reaches, only where a run
stops: a graph is offered only from a run that found nothing (`Verdict.OK`).

The dump is kept as a file and read only when the behavior grade asks for it
(`OwnModelRun.exploration`); `kept_dumps` owns the folder and removes it.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path

from tlc_harness.behavior.graphs import Exploration, Explored, StateGraph, read_dot_safely
from tlc_harness.source.cfg import ModelConfig
from tlc_harness.source.rename import RenameError, rename_module_names
from tlc_harness.tools.results import CheckResult, Verdict

#: the only TLC option a shareable run may have: deadlock is a check, not a change of the graph
_NEUTRAL_ARGS = frozenset({"-deadlock"})


def shareable_model(cfg: ModelConfig, tlc_args: Sequence[str]) -> bool:
    """Whether a run under `cfg` reaches the graph an exploration of the same behavior does:
    nothing in it bounds or reduces the state space."""
    return not (cfg.constraints or cfg.action_constraints or cfg.symmetry or cfg.view
                or cfg.alias or cfg.possible or cfg.periodic or cfg.postconditions) \
        and set(tlc_args) <= _NEUTRAL_ARGS


def same_model(given: ModelConfig, explored: ModelConfig) -> bool:
    """Whether the cfg of a passed run (`given`) and the cfg an exploration would run under
    give the same constants and definitions the same values and name the same behavior (the
    order of a cfg's entries means nothing to TLC)."""
    theirs = dict(explored.constants)
    # `r1 = r1` for a name the explored model gives no value only names a model value (as
    # `Replicas = {r1, r2}` makes one of `r1`): a run that passed with it reads nothing of it
    mine = {n: v for n, v in given.constants if v.strip() != n or n in theirs}
    return (mine == theirs and dict(given.overrides) == dict(explored.overrides)
            and (given.specification, given.init, given.next)
            == (explored.specification, explored.init, explored.next))


@dataclass
class OwnModelRun:
    """A passed run of the output's modules (`files`, main module `main`) under `cfg`, and its
    state dump (`dump`, a file `kept_dumps` owns)."""

    files: Mapping[str, str]
    main: str
    cfg: ModelConfig
    dump: Path
    seconds: float = 0.0
    _read: dict[int, StateGraph | str | int] = field(default_factory=dict, repr=False)

    def serves(self, out_files: Mapping[str, str], module_table: Mapping[str, str],
               out_main: str, cfg: ModelConfig, definitions: Sequence[str],
               entry: tuple[str | None, str | None] = (None, None)) -> bool:
        """Whether an exploration of `out_files` (this run's modules renamed by
        `module_table`) under `cfg`, with no definitions of its own, explores this run's
        model. `entry`: the Init and Next of `cfg`'s SPECIFICATION formula, where it is
        `Init /\\ [][Next]_v` with fairness or not (its reachable graph is INIT Init NEXT
        Next's: fairness constrains behaviors, not the states TLC reaches)."""
        if cfg.specification is not None and self.cfg.specification is None \
                and None not in entry and (self.cfg.init, self.cfg.next) == entry:
            cfg = replace(cfg, specification=None, init=entry[0], next=entry[1])
        if definitions or not shareable_model(cfg, ()) or not same_model(self.cfg, cfg):
            return False
        if module_table.get(self.main) != out_main:
            return False
        try:
            renamed = rename_module_names(self.files, dict(module_table))
        except RenameError:
            return False
        return renamed == dict(out_files)

    def exploration(self, budget: int, cap: int) -> Exploration:
        """The graph as the graph engine's exploration under a distinct-state `budget` gives
        it (`cap`: the largest budget it is asked under; a graph of more states is counted,
        not read). An exploration under a budget stops only once that many states are found,
        so a graph of at least `budget` states is over it either way."""
        if cap not in self._read:
            self._read[cap] = read_dot_safely(self.dump, cap)
        graph = self._read[cap]
        if isinstance(graph, str):
            return Exploration(None, Explored.UNREADABLE, graph)
        if isinstance(graph, int) or len(graph) >= budget:
            return Exploration(None, Explored.OVER_BUDGET, f"more than {budget - 1} distinct states")
        if not graph.initial:
            return Exploration(None, Explored.VACUOUS, "no initial state")
        return Exploration(graph, Verdict.OK)


@contextmanager
def kept_dumps() -> Iterator[Path]:
    """A folder for the state dumps of one output's runs, removed with what is in it."""
    folder = Path(tempfile.mkdtemp(prefix="alias-own-run-"))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def keeper(folder: Path, name: str = "own-run.dot") -> tuple[Path, Callable[[Path], bool]]:
    """Where a run's dump is kept, and the `read_graph` callback of `Harness.check` that moves
    it there (before the run's folder goes)."""
    target = folder / name

    def keep(path: Path) -> bool:
        shutil.move(str(path), target)
        return True

    return target, keep


def offered(files: Mapping[str, str], main: str, cfg: ModelConfig, result: CheckResult,
            dump: Path) -> OwnModelRun | None:
    """The run as an offer to the behavior grade, where it passed and left its dump."""
    if result.verdict is not Verdict.OK or result.vacuous or not dump.is_file():
        return None
    return OwnModelRun(dict(files), main, cfg, dump, result.seconds)
