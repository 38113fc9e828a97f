"""Where the graphs' forward check is the whole of TLC's confirming run, so no run is made.

TLC's forward run under a mapping checks, on the output's behaviors, the reference's
specification (its safety part, its fairness), its temporal properties, its invariants, and
freedom from deadlock where the reference's model checks it. On two whole graphs (neither cut at
a CONSTRAINT nor bounded) the graphs' forward check decides the safety part and deadlock
exactly: every initial output state maps to an initial reference state and every step to a
reference step or a stutter, so every reachable output state maps to a reachable reference
state. The rest needs no run where the reference has no fairness and no temporal property,
and its invariants are known to hold on every reachable state: its own TLC run under this very
model (the variant's verification, whose state count `Reference.states` carries) checked them,
so they hold on every image; not under a SYMMETRY or VIEW, where that run saw one state of each
class. Anything else (fairness, a PROPERTY, a model no run verified) is
TLC's to check.
"""

from __future__ import annotations

from tlc_harness.behavior.staging import Reference
from tlc_harness.source.formulas import temporal_conjuncts

#: the verdict's record of a forward direction decided without a run
DECIDED_ON_GRAPHS = ("forward on the whole graphs (the reference has no fairness or temporal "
                     "property, and its own TLC run checked its invariants on every reachable "
                     "state)")


def forward_on_graphs(ref: Reference, whole: bool) -> bool:
    """Whether the graphs' forward check, passed on `whole` graphs, is TLC's forward run's."""
    if not whole or ref.states is None or ref.cfg.properties:
        return False
    if ref.cfg.constraints or ref.cfg.action_constraints:
        return False
    if ref.cfg.symmetry or ref.cfg.view:
        # its own run checked one state of each class: an invariant that does not respect
        # the symmetry (or the view) may fail on a reachable state that run never saw
        return False
    if ref.cfg.specification is None:
        return ref.cfg.init is not None and ref.cfg.next is not None  # no formula, no fairness
    parts = temporal_conjuncts(ref.files, ref.cfg.specification)
    return parts.unreadable is None and not parts.conjuncts
