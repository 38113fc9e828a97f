"""Whether freedom from deadlock is a property of the reference's model, to be asked of an output.

TLC checks deadlock by default: a reachable state with no successor at all (not even itself)
stops the run. That is a property of a model, not of a TLA+ formula: `Init /\\ [][Next]_v`
allows a behavior that stops changing state (it stutters forever), so a stuck state is a
behavior that halts, which both directions of refinement compare like any other. The grade
asks an output to be free of deadlock where the reference's model checks it (the graphs'
forward check, and TLC's runs under the reference's flags): the model claims it of the
reference. Where the reference's own model reaches a stuck state, TLC's deadlock check fails
on the reference itself, so the model claims nothing of the kind: an output that deadlocks
too (the reference graded against itself) differs from the reference in nothing the model
checks. The grade is then made against the same model with deadlock unchecked
(`CHECK_DEADLOCK FALSE`, TLC's `-deadlock`), and the record says so (`reference_deadlock`).

Whether the reference's model deadlocks is read from its reachable graph (TLC's own dump,
explored and cached as the graph engine does, so that engine reuses it): a state of it
without any transition. A model bounded by a CONSTRAINT has states whose successors the
constraint drops, which TLC does not report as deadlocks; there TLC's own deadlock check on
the reference decides (its exit code and message code, `Verdict.DEADLOCK`). Where neither
can say (a graph over the budget, a run that stops otherwise), the model is kept as it is.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from tlc_harness.behavior.graphs import explore, graph_cache
from tlc_harness.behavior.options import BehaviorOptions
from tlc_harness.behavior.staging import Reference
from tlc_harness.tools.results import Verdict
from tlc_harness.tools.runner import Harness
from tlc_harness.tools.spec import SpecSource


@dataclass(frozen=True)
class DeadlockModel:
    """The reference to grade against, why its deadlock check was dropped (empty: it was
    not), and the TLC runs it took to know."""

    ref: Reference
    reason: str = ""
    tlc_runs: int = 0


def checks_deadlock(ref: Reference) -> bool:
    """Whether TLC checks deadlock on the reference's model (its cfg and flags)."""
    return ref.cfg.check_deadlock is not False and "-deadlock" not in ref.tlc_args


def deadlock_model(harness: Harness, ref: Reference, options: BehaviorOptions) -> DeadlockModel:
    """The reference's model, with deadlock unchecked where the reference itself deadlocks."""
    if not checks_deadlock(ref):
        return DeadlockModel(ref)
    spec = SpecSource(ref.main, dict(ref.files))
    if ref.cfg.constraints or ref.cfg.action_constraints:
        # the graph's stuck states may be the constraint's: TLC's own check decides
        run = harness.check(spec, replace(ref.cfg, invariants=(), properties=()),
                            tlc_args=ref.tlc_args, timeout=options.timeout, compat=True)
        stuck = run.verdict is Verdict.DEADLOCK
        how, runs = "TLC's deadlock check on the reference's own model reports one", 1
    else:
        if ref.states is not None and ref.states >= options.budget:
            return DeadlockModel(ref)  # over the budget: the graph would not be whole
        found = explore(harness, spec, ref.cfg, tlc_args=ref.tlc_args, budget=options.budget,
                        timeout=options.timeout, cache=graph_cache(options.cache))
        runs = found.tlc_runs
        if found.graph is None:
            return DeadlockModel(ref, tlc_runs=runs)
        stuck = bool(found.graph.terminal)
        how = (f"{len(found.graph.terminal)} of the {len(found.graph)} reachable states of "
               f"the reference's own model have no successor")
    if not stuck:
        return DeadlockModel(ref, tlc_runs=runs)
    return DeadlockModel(
        replace(ref, cfg=replace(ref.cfg, check_deadlock=False)),
        f"{how}: TLC's deadlock check fails on the reference itself, so freedom from "
        f"deadlock is no property of its model; graded with deadlock unchecked (a stuck "
        f"state is a behavior that halts, which [][Next]_v allows)", runs)
