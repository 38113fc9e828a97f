"""Where the graphs' forward check is the whole of TLC's confirming run, so no run is made.

TLC's forward run under a mapping checks, on the output's behaviors, the reference's
specification (its safety part, its fairness), its temporal properties, its invariants, and
freedom from deadlock where the reference's model checks it. On two whole graphs (neither cut at
a CONSTRAINT nor bounded) the graphs' forward check decides the safety part and deadlock
exactly: every initial output state maps to an initial reference state and every step to a
reference step or a stutter, so every reachable output state maps to a reachable reference
state. The rest needs no run where the reference has no fairness and what it checks is known
to hold on every reachable state and step of its own:
- its invariants, where the exploration of its graph checked them (no SYMMETRY or VIEW there:
  every state), or its own TLC run under this very model did (the variant's verification,
  whose state count `Reference.states` carries), but not under a SYMMETRY or VIEW, where that
  run saw one state of each class;
- its properties, only where the exploration checked them all step by step (`[]P`,
  `[][A]_v`, an initial predicate; TLC printed no message of a liveness check): each then
  holds on every initial state and every step of the reference, so on every image, a
  stutter included (`[A]_v` holds where nothing changes).
Anything else (fairness, a liveness property, a model no run checked) is TLC's to check.
"""

from __future__ import annotations

from tlc_harness.behavior.graphs import OwnCheck
from tlc_harness.behavior.staging import Reference
from tlc_harness.source.formulas import temporal_conjuncts

#: the verdict's record of a forward direction decided without a run
DECIDED_ON_GRAPHS = ("forward on the whole graphs (the reference has no fairness or liveness "
                     "property, and a run of its own checked its invariants and properties on "
                     "every reachable state and step)")


def forward_on_graphs(ref: Reference, whole: bool,
                      checked: frozenset[OwnCheck] = frozenset()) -> bool:
    """Whether the graphs' forward check, passed on `whole` graphs, is TLC's forward run's
    (`checked`: the reference's own checks its graph's exploration made)."""
    if not whole or ref.cfg.constraints or ref.cfg.action_constraints:
        return False
    if ref.cfg.properties and OwnCheck.PROPERTIES not in checked:
        return False
    if OwnCheck.INVARIANTS not in checked:
        if ref.states is None:
            return False
        if ref.cfg.symmetry or ref.cfg.view:
            # its own run checked one state of each class: an invariant that does not respect
            # the symmetry (or the view) may fail on a reachable state that run never saw
            return False
    if ref.cfg.specification is None:
        return ref.cfg.init is not None and ref.cfg.next is not None  # no formula, no fairness
    parts = temporal_conjuncts(ref.files, ref.cfg.specification)
    return parts.unreadable is None and not parts.conjuncts
