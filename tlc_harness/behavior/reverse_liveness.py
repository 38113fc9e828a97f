"""Liveness in the reverse direction: the output's whole formula on the reference's behaviors.

Both engines compare the two specifications' safety parts both ways, and TLC's forward run
evaluates R's whole formula, fairness included, on the output's behaviors. An output whose
formula adds fairness (`WF_vars(Next)`) or a liveness conjunct (`[]<>P`) has fewer behaviors
than its safety part allows: a behavior of R that stops in a quiet state may have no behavior
of the output above it, and then the two are not equivalent.

The check needs no inverse of the mapping f (reference variables as functions of the output's).
Once the safety parts refine both ways, every behavior s of R has a behavior t of the output's
safety part with f(t) = s up to stuttering. So R's fair behaviors all have a fair behavior of
the output above them when every behavior t of the output's safety part whose image f(t)
satisfies R's whole formula satisfies the output's whole formula: one TLC run of the output's
safety part with the property `R!Live => Live` under f, where `Live` is a formula's temporal
conjuncts (`forward_wrapper(liveness=...)`; TLC checks `[][A]_v` only as a whole property). A
violation is a reverse failure (`reverse_liveness`) where f is one to one on the output's states
(then t is the only output behavior above f(t)) and R's model has no CONSTRAINT (under one, the
run checks the behaviors within the cut, as R's own model does, and a pass counts); otherwise,
or where TLC cannot run or evaluate the check, the `ok` is `undecided` (`liveness_unchecked`),
as is an `ok` whose forward run could not evaluate R's own fairness.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, replace

from tlc_harness.behavior.search import Candidate
from tlc_harness.behavior.staging import CfgValues, Reference, Staged
from tlc_harness.behavior.subscripts import in_scope
from tlc_harness.behavior.verdicts import BehaviorResult, BehaviorVerdict, Reason
from tlc_harness.behavior.wrapper_modules import Liveness, check_label, forward_wrapper
from tlc_harness.source.formulas import TemporalParts, temporal_conjuncts
from tlc_harness.tools.results import LIMIT_VERDICTS, CheckResult, Verdict
from tlc_harness.tools.runner import Harness


class LivenessStatus(enum.StrEnum):
    """What a reverse liveness run found (the details of an `ok` record it as text)."""

    CHECKED = "checked"      #: every output behavior followed satisfies the output's liveness
    VIOLATED = "violated"    #: a fair reference behavior whose only output behavior violates it
    LIMIT = "limit"          #: TLC's time or memory ran out
    UNCHECKED = "unchecked"  #: it could not be run or evaluated


CHECKED = LivenessStatus.CHECKED


@dataclass(frozen=True)
class ReverseLiveness:
    """One run for the output's temporal conjuncts: `status` checked, violated, limit (TLC's
    time or memory ran out) or unchecked (it could not be run or evaluated), and why."""

    status: LivenessStatus
    reason: str
    check: CheckResult | None = None

    @property
    def runs(self) -> int:
        return 0 if self.check is None else 1


def output_temporal_parts(staged: Staged) -> TemporalParts:
    """The temporal conjuncts of the output's specification formula, read in the output's own
    module and those it EXTENDS (none for an output graded from Init and Next)."""
    if staged.out_spec is None:
        return TemporalParts()
    return temporal_conjuncts(in_scope(staged.out_files, staged.out_main), staged.out_spec)


def temporal_output(staged: Staged) -> bool:
    """Whether the output's formula adds fairness or liveness to its safety part (or cannot
    be read: then it may)."""
    parts = output_temporal_parts(staged)
    return bool(parts.conjuncts) or parts.unreadable is not None


#: why a reverse check of the reference against itself needs no run (`the_reference_itself`)
ITSELF = ("the output is the reference's own modules under the identity mapping: the reverse "
          "check is F => F for the reference's formula F, which every behavior satisfies")


def the_reference_itself(ref: Reference, staged: Staged, out_files: Mapping[str, str],
                         out_main: str, cand: Candidate) -> bool:
    """Whether the output (`out_files`, as given, before staging) is the reference's own
    modules and `cand` the identity (each of its variables and constants to its own name, no
    value tables or model values): a reference graded against itself. Every reverse check, of
    the safety part or of the fairness and liveness, is then `F => F` (or `Live => Live`)
    with F the reference's own formula: valid, so no TLC run can fail it. The forward run is
    still made: it tells whether TLC explores the reference and evaluates its formula within
    the limits, which is what a self-check asks."""
    return (dict(out_files) == dict(ref.files) and out_main == ref.main
            and not cand.definitions and not cand.model_values
            and set(cand.variables) == set(staged.ref_shape.variables)
            and all(r == g for r, g in cand.variables.items())
            and all(o == r for o, r in cand.constants.items()))


def checked_as_itself() -> dict[str, str]:
    """An `ok`'s reverse-liveness facts where `the_reference_itself` holds (no run made)."""
    return {"reverse_liveness": CHECKED, "reverse_liveness_reason": ITSELF}


def check_reverse_liveness(harness: Harness, ref: Reference, staged: Staged, cand: Candidate,
                           values: CfgValues, *, one_to_one: bool,
                           timeout: float | None = None) -> ReverseLiveness:
    """On the output's safety part, R's temporal conjuncts under `cand` must imply the
    output's. Under a CONSTRAINT of R the run, like R's own model, checks the behaviors within
    the cut. A violation is one only where the mapping is `one_to_one` on the output's states
    (else another behavior of the output above the same behavior of R may satisfy the output's
    conjuncts) and R has no CONSTRAINT (a behavior that stops at the cut is no behavior of R)."""
    cut = bool(ref.cfg.constraints or ref.cfg.action_constraints)
    out = output_temporal_parts(staged)
    ref_parts = (temporal_conjuncts(ref.files, ref.cfg.specification)
                 if ref.cfg.specification else TemporalParts())
    for whose, parts in (("the output's", out), ("the reference's", ref_parts)):
        if parts.unreadable is not None:
            return ReverseLiveness(LivenessStatus.UNCHECKED, f"{whose} formula cannot be split into its "
                                   f"safety part and temporal conjuncts ({parts.unreadable})")
    src, cfg = forward_wrapper(ref, staged, cand, values,
                               liveness=Liveness(ref_parts.conjuncts, out.conjuncts))
    check = harness.check(src, cfg, tlc_args=ref.tlc_args, timeout=timeout, compat=True)
    label = check_label(check)
    if check.verdict is Verdict.OK and not check.vacuous:
        return ReverseLiveness(CHECKED, "every behavior of the output whose image satisfies the "
                               "reference's fairness and liveness satisfies the output's", check)
    if check.verdict is Verdict.PROPERTY_VIOLATED and (cut or not one_to_one):
        why = ("the reference's model is cut by a CONSTRAINT, and a behavior that stops at the "
               "cut is none of the reference's" if cut else "the mapping takes several output "
               "states to one of the reference's, so another output behavior above the same "
               "one may satisfy them")
        return ReverseLiveness(LivenessStatus.UNCHECKED,
                               f"a behavior of the output whose image satisfies the "
                               f"reference's fairness and liveness violates the output's "
                               f"({label}), but {why}", check)
    if check.verdict is Verdict.PROPERTY_VIOLATED:
        return ReverseLiveness(LivenessStatus.VIOLATED, f"a behavior of the output whose image satisfies the "
                               f"reference's fairness and liveness violates the output's "
                               f"({label})", check)
    if check.verdict in LIMIT_VERDICTS:
        return ReverseLiveness(LivenessStatus.LIMIT, f"the run of the output's temporal conjuncts: {label}",
                               check)
    return ReverseLiveness(LivenessStatus.UNCHECKED, f"TLC cannot evaluate the output's temporal conjuncts "
                           f"under the reference's ({label}: {check.detail.strip()[:160]})",
                           check)


def require_liveness_checked(result: BehaviorResult, ref: Reference, staged: Staged
                             ) -> BehaviorResult:
    """`result` when it is not `ok`, or when both directions checked fairness and liveness:
    the forward run evaluated R's (`fairness_checked` is not False) and the engine checked
    the output's temporal conjuncts (or it has none); else `undecided` (`liveness_unchecked`)."""
    if not result.passed:
        return result
    if result.details.get("fairness_checked") is False:
        return replace(result, verdict=BehaviorVerdict.UNDECIDED, code=Reason.LIVENESS_UNCHECKED,
                       reason=f"TLC cannot evaluate the reference's fairness as a property, so "
                       f"the forward run checked the reference's safety part only, and the "
                       f"output may have behaviors the reference's fairness excludes; the "
                       f"safety checks passed: {result.reason}")
    if result.details.get("reverse_liveness") == CHECKED:
        return result
    if not temporal_output(staged):
        return result
    why = result.details.get("reverse_liveness_reason") or \
        "the engine compared the output's safety part only"
    return replace(result, verdict=BehaviorVerdict.UNDECIDED, code=Reason.LIVENESS_UNCHECKED,
                   reason=f"the output's formula adds fairness or liveness to its safety part, "
                   f"and no run showed the reference's behaviors have output behaviors that "
                   f"satisfy it ({why}); the safety checks passed: {result.reason}")
