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

Whether the reference's model deadlocks is asked only when it matters, and read from what is
at hand: the reference's reachable graph (a state of it without any transition; not under a
CONSTRAINT, whose dropped successors leave states without an edge that TLC does not report
as deadlocks), a run of the reference's own model that TLC stopped at a deadlock (the reverse
wrapper's), or, where a run of the output stopped at one, TLC's own deadlock check on the
reference's model (its verdict from the exit and message codes, `Verdict.DEADLOCK`).
"""

from __future__ import annotations

from dataclasses import replace

from tlc_harness.behavior.staging import Reference
from tlc_harness.tools.results import Verdict
from tlc_harness.tools.runner import Harness
from tlc_harness.tools.spec import SpecSource

#: the record's key for why the reference's model was graded with deadlock unchecked
DETAIL = "reference_deadlock"


def checks_deadlock(ref: Reference) -> bool:
    """Whether TLC checks deadlock on the reference's model (its cfg and flags)."""
    return ref.cfg.check_deadlock is not False and "-deadlock" not in ref.tlc_args


def without_deadlock(ref: Reference) -> Reference:
    """The same model of the reference, with deadlock unchecked."""
    return replace(ref, cfg=replace(ref.cfg, check_deadlock=False))


def stuck_reason(how: str) -> str:
    """The record's `reference_deadlock`: `how` the reference was seen to deadlock, and why
    the grade then leaves deadlock unchecked."""
    return (f"{how}: TLC's deadlock check fails on the reference itself, so freedom from "
            f"deadlock is no property of its model; graded with deadlock unchecked (a stuck "
            f"state is a behavior that halts, which [][Next]_v allows)")


def reference_deadlocks(harness: Harness, ref: Reference, timeout: float | None) -> str | None:
    """Why the reference's own model deadlocks (TLC's run of it with only its deadlock check,
    no invariant or property to stop it first, says so), or None: it does not, or TLC cannot
    tell (a limit, another error)."""
    run = harness.check(SpecSource(ref.main, dict(ref.files)),
                        replace(ref.cfg, invariants=(), properties=()),
                        tlc_args=ref.tlc_args, timeout=timeout, compat=True)
    if run.verdict is Verdict.DEADLOCK:
        return stuck_reason("TLC's deadlock check on the reference's own model reports one")
    return None
