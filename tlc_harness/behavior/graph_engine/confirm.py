"""The graph engine's last stage: TLC confirms an inferred mapping through the forward wrapper.

The graphs decide both directions of safety; TLC's run of the forward wrapper checks what only
TLC can: the reference's fairness and temporal properties, and its invariants, on the output's
behaviors under the mapping.
"""

from __future__ import annotations

from dataclasses import dataclass

from tlc_harness.behavior.search import Candidate
from tlc_harness.behavior.staging import CfgValues, Reference, Staged, safety_parts
from tlc_harness.behavior.wrapper_modules import forward_wrapper
from tlc_harness.tools.results import CheckResult, Verdict
from tlc_harness.tools.runner import Harness


@dataclass(frozen=True)
class Confirmation:
    """TLC's confirming run: its result, the runs it took, and whether R's fairness was in it
    (`note` says why not, for the verdict's reason)."""

    check: CheckResult
    tlc_runs: int
    fairness_checked: bool = True
    note: str = ""


def confirm(harness: Harness, ref: Reference, staged: Staged, cand: Candidate,
            values: CfgValues, timeout: float | None) -> Confirmation:
    """Run the forward wrapper under `cand`. Retry, named `confirm_without_fairness`: TLC may
    be unable to evaluate R's fairness as a property (an action of it that reads a primed
    variable it leaves unset); then R's safety part is checked without it, when TLC can."""
    src, wcfg = forward_wrapper(ref, staged, cand, values)
    check = harness.check(src, wcfg, tlc_args=ref.tlc_args, timeout=timeout, compat=True)
    if check.verdict is not Verdict.EVAL_ERROR or not safety_parts(ref):
        return Confirmation(check, 1)
    src, wcfg = forward_wrapper(ref, staged, cand, values, fairness=False)
    retry = harness.check(src, wcfg, tlc_args=ref.tlc_args, timeout=timeout, compat=True)
    if retry.verdict is Verdict.EVAL_ERROR:
        return Confirmation(check, 2)
    why = check.detail.strip()[:120]
    return Confirmation(retry, 2, fairness_checked=False, note=(
        " (without the reference's fairness, which TLC cannot evaluate as a property here"
        + (f": {why}" if why else "") + ")"))
