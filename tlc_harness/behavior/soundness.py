"""The soundness class of a decided verdict, from the facts the engine recorded.

Each engine records, for the constant map its verdict was reached under, every output
constant's value and the value's source (`constants`, see `ValueSource`), and how many
pairings of the output's constants with the reference's exist, were graded and failed
(`pairings`). From these `classify` gives the verdict its class (`Soundness`):

- an `ok` is `justified` when every value is justified (a guessed one makes it `undecided`);
- a failure with no constants to pair and the output's own run failing is `mapping_free`;
- a failure under a guessed value is `no_mapping` (`constant_unjustified`), and so is a
  failure of the output's own run under a value an ASSUME is evaluated on;
- a failure under a pairing of constants that is neither by name (the same names, names one
  of which holds the other: `search.named_alike`, or the same role by use:
  `search.used_alike`) nor the only one, while another
  pairing did not fail, is `no_mapping` (`pairing_ambiguous`);
- otherwise an output with too few states, initial states or steps, or with behaviors that
  all stop changing sooner than one of the reference's, to cover the reference's behaviors
  under any mapping, is `mapping_free`;
- a failure under every admissible value of a constant, or under every pairing, is
  `enumerated`; any other failure is `justified`.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from tlc_harness.behavior.verdicts import (
    BehaviorResult,
    BehaviorVerdict,
    Reason,
    Soundness,
    ValueSource,
)

#: the checks that hold under any mapping of states (`checks.too_small`, `checks.halts_sooner`)
MAPPING_FREE_CHECKS = frozenset({Reason.TOO_FEW_STATES, Reason.HALTS_SOONER})


def classify(result: BehaviorResult) -> BehaviorResult:
    """`result` with its soundness class, or, for a decided verdict that has none, the
    undecided verdict it is (see the module's docstring)."""
    if not result.verdict.decided:
        return result
    constants: dict[str, dict[str, Any]] = result.details.get("constants") or {}
    sources = {name: ValueSource(c["source"]) for name, c in constants.items()}
    guessed = sorted(name for name, source in sources.items() if not source.justified
                     # a value an ASSUME is evaluated on may stop the output's own run
                     or (result.code is Reason.OUTPUT_RUN_FAILS
                         and constants[name].get("named_by_assume")))
    shown = ", ".join(f"{name} = {constants[name]['value']}" for name in guessed)
    if result.passed:
        if guessed:
            return replace(result, verdict=BehaviorVerdict.UNDECIDED, code=Reason.VALUE_GUESSED,
                           reason=f"the output refines the reference only under values the "
                           f"reference does not fix ({shown}): {result.reason}")
        return replace(result, soundness=Soundness.JUSTIFIED)
    if not constants and result.code is Reason.OUTPUT_RUN_FAILS:
        return replace(result, soundness=Soundness.MAPPING_FREE)
    if guessed:
        return replace(result, verdict=BehaviorVerdict.NO_MAPPING,
                       code=Reason.CONSTANT_UNJUSTIFIED,
                       reason=f"under values the reference does not fix ({shown}): "
                       f"{result.verdict}: {result.reason}")
    pairings = result.details.get("pairings") or {}
    total = int(pairings.get("total", 1))
    ambiguous = total > 1 and not by_name(constants)
    if ambiguous and int(pairings.get("failed", 0)) < total:
        return replace(result, verdict=BehaviorVerdict.NO_MAPPING, code=Reason.PAIRING_AMBIGUOUS,
                       reason=f"{result.verdict} under one of {total} pairings of the output's "
                       f"constants with the reference's ({pairing_text(constants)}), and not "
                       f"under every other: the pairing is not justified ({result.reason})")
    if result.code in MAPPING_FREE_CHECKS:
        return replace(result, soundness=Soundness.MAPPING_FREE)
    enumerated = ambiguous or ValueSource.EVERY_VALUE in sources.values()
    return replace(result, soundness=Soundness.ENUMERATED if enumerated else Soundness.JUSTIFIED)


def by_name(constants: dict[str, dict[str, Any]]) -> bool:
    """Whether every output constant paired with a reference constant has its name, a name
    that says it is that constant (`search.named_alike`: `InitPrimers` for `PRIMER`), or
    uses that do (`search.used_alike`: `Procs` in `1..Procs` for `N` in `1..N`)."""
    return all(c["from"] == name or c.get("named_alike") or c.get("used_alike")
               for name, c in constants.items()
               if c["source"] == ValueSource.REFERENCE_CONSTANT)


def pairing_text(constants: dict[str, dict[str, Any]]) -> str:
    return ", ".join(f"{name} <- {c['from']}" for name, c in constants.items()) or "none"
