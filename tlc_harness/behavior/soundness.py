"""The soundness class of a decided verdict, from the typed facts the engine recorded.

Each engine records, for the constant map its verdict was reached under, every output
constant's value and the value's source (`constants`, see `ValueSource`), how many pairings of
the output's constants with the reference's exist, were graded and failed (`pairings`), for a
failure found under mappings whether their class holds every mapping that could work
(`mapping_class`, `graph_engine.completeness`), and for a failure of the output's own run what
stopped it (`own_run_error`). `classify` reads them as `facts.VerdictFacts` and fails closed:
a decided verdict whose facts are missing is `undecided` (`facts_missing`). Then

- an `ok` is `justified` when every value is justified (a guessed one makes it `undecided`);
- a failure of the output's own run decides only when the run stopped in the output's own
  definitions (or has no initial state) under values the task or the output fixes, or a
  count of a reference set its own ASSUME names under the only pairing (`own_run`); else it
  is a limit, `undecided` (`own_run_limit`);
- a failure under a guessed value is `no_mapping` (`constant_unjustified`);
- a failure under a pairing of constants that is neither by name (the same names, names one
  of which holds the other: `search.named_alike`, or the same role by use:
  `search.used_alike`) nor the only one, while another pairing did not fail, is `no_mapping`
  (`pairing_ambiguous`);
- an output with too few states, initial states or steps, or with behaviors that all stop
  changing sooner than one of the reference's, is `mapping_free` (under any mapping);
- an output whose whole graph no state mapping makes equivalent to the reference's
  (`graph_engine.any_mapping`: not isomorphic, no onto homomorphism), whatever check found
  the failure, has basis `any_mapping` and its constants' class (`justified`, `enumerated`);
- any other failure was found under mappings, and stands only where their class holds every
  mapping that could work for the shapes at hand; else it is `no_mapping`
  (`mapping_class_incomplete`);
- a failure under every admissible value of a constant, or under every pairing, is
  `enumerated`; any other failure is `justified`.

Every decided verdict records `mapping_basis` (`facts.MappingBasis`): what it rests on for
the mapping, beside its class for the constants.
"""

from __future__ import annotations

from dataclasses import replace

from tlc_harness.behavior.facts import (
    ConstantFact,
    MappingBasis,
    MappingClass,
    VerdictFacts,
)
from tlc_harness.behavior.verdicts import (
    BehaviorResult,
    BehaviorVerdict,
    Reason,
    Soundness,
    ValueSource,
)

#: the checks that hold under any mapping of states (`checks.too_small`, `checks.halts_sooner`)
MAPPING_FREE_CHECKS = frozenset({Reason.TOO_FEW_STATES, Reason.HALTS_SOONER})
#: sources of values the task or the output fixes, or that do not matter to the run
_OWN_SOURCES = frozenset({ValueSource.OUTPUT_ASSUME, ValueSource.UNUSED, ValueSource.NOT_READ})


def classify(result: BehaviorResult) -> BehaviorResult:
    """`result` with its soundness class, or, for a decided verdict that has none, the
    verdict it is (see the module's docstring)."""
    if not result.verdict.decided:
        return result
    facts = VerdictFacts.of(result.details)
    if facts.constants is None:
        return _missing(result, "constants")
    guessed = [c for c in facts.constants if not c.source.justified]
    shown = ", ".join(f"{c.name} = {c.value}" for c in guessed)
    if result.passed:
        if guessed:
            return replace(result, verdict=BehaviorVerdict.UNDECIDED, code=Reason.VALUE_GUESSED,
                           reason=f"the output refines the reference only under values the "
                           f"reference does not fix ({shown}): {result.reason}")
        return _classed(result, Soundness.JUSTIFIED, MappingBasis.FOUND)
    if result.code is Reason.OUTPUT_RUN_FAILS:
        return _own_run(result, facts)
    if guessed:
        return replace(result, verdict=BehaviorVerdict.NO_MAPPING,
                       code=Reason.CONSTANT_UNJUSTIFIED,
                       reason=f"under values the reference does not fix ({shown}): "
                       f"{result.verdict}: {result.reason}")
    if facts.pairings is None:
        return _missing(result, "pairings")
    total = facts.pairings.total
    ambiguous = total > 1 and not by_name(facts.constants)
    if ambiguous and (facts.pairings.failed or 0) < total:
        return replace(result, verdict=BehaviorVerdict.NO_MAPPING, code=Reason.PAIRING_AMBIGUOUS,
                       reason=f"{result.verdict} under one of {total} pairings of the output's "
                       f"constants with the reference's ({pairing_text(facts.constants)}), and "
                       f"not under every other: the pairing is not justified ({result.reason})")
    if result.code in MAPPING_FREE_CHECKS:
        return _classed(result, Soundness.MAPPING_FREE, MappingBasis.ANY_MAPPING)
    enumerated = ambiguous or any(c.source is ValueSource.EVERY_VALUE for c in facts.constants)
    constants_class = Soundness.ENUMERATED if enumerated else Soundness.JUSTIFIED
    if result.code is Reason.NO_STATE_MAPPING or facts.mapping_class is MappingClass.ANY_MAPPING:
        # the two whole graphs admit no state mapping at all, under these constants' values
        return _classed(result, constants_class, MappingBasis.ANY_MAPPING)
    if facts.mapping_class is None:
        return _missing(result, "mapping_class")
    if facts.mapping_class is MappingClass.INCOMPLETE:
        return replace(result, verdict=BehaviorVerdict.NO_MAPPING,
                       code=Reason.MAPPING_CLASS_INCOMPLETE,
                       reason=f"{result.verdict} under the mappings tried, which are not shown "
                       f"to hold every mapping that could work ({facts.mapping_class_reason}): "
                       f"{result.reason}")
    basis = {MappingClass.NAMED_FUNCTIONS: MappingBasis.NAMED_FUNCTIONS,
             MappingClass.NAMED_RENAMINGS: MappingBasis.NAMED_RENAMINGS}.get(
                 facts.mapping_class, MappingBasis.NAMED_BIJECTIONS)
    return _classed(result, constants_class, basis)


def _own_run(result: BehaviorResult, facts: VerdictFacts) -> BehaviorResult:
    """A failure of the output's own run: a proof, or a limit (see the module)."""
    assert facts.constants is not None
    if facts.own_run_error is None:
        return _missing(result, "own_run_error")
    if not facts.own_run_error.decides:
        return replace(result, verdict=BehaviorVerdict.UNDECIDED, code=Reason.OWN_RUN_LIMIT,
                       reason=f"the output's own run stops at {facts.own_run_error}, a limit of "
                       f"TLC, not a difference in behavior: {result.reason}")
    chosen = grader_chosen(facts.constants, counts=facts.pairings is not None
                           and facts.pairings.total == 1)
    if chosen:
        return replace(result, verdict=BehaviorVerdict.UNDECIDED, code=Reason.OWN_RUN_LIMIT,
                       reason=f"the output's own run fails under values the grader chose for "
                       f"{', '.join(chosen)}, which may cause it: {result.reason}")
    swept = any(c.source is ValueSource.EVERY_VALUE for c in facts.constants)
    # no mapping is involved; the constants' values are the task's (or every value's)
    soundness = (Soundness.ENUMERATED if swept else Soundness.JUSTIFIED if facts.constants
                 else Soundness.MAPPING_FREE)
    return _classed(result, soundness, MappingBasis.OWN_RUN)


def grader_chosen(constants: tuple[ConstantFact, ...], *, counts: bool = False) -> list[str]:
    """The output constants whose values the grader chose: all but those paired by their own
    name, fixed by the output's ASSUME, not read (and named by no ASSUME), unused, or each
    value of a BOOLEAN; with `counts` (the only pairing of the output's constants with the
    reference's), also not a count of a reference set that the output's own ASSUME names
    (it says the constant is a number; the reference's instance has that many things, and
    TLC's run checks the ASSUME admits the count before it goes on: by count, the value the
    reference's instance means)."""
    return [c.name for c in constants
            if not (c.source in _OWN_SOURCES and not c.named_by_assume
                    or c.source is ValueSource.REFERENCE_CONSTANT and c.by_name
                    or c.source is ValueSource.REFERENCE_COUNT and c.named_by_assume and counts
                    or c.source is ValueSource.EVERY_VALUE and c.value in ("TRUE", "FALSE"))]


def _classed(result: BehaviorResult, soundness: Soundness, basis: MappingBasis
             ) -> BehaviorResult:
    return replace(result, soundness=soundness,
                   details={**result.details, "mapping_basis": basis.value})


def _missing(result: BehaviorResult, fact: str) -> BehaviorResult:
    """A decided verdict whose engine did not record `fact`: nothing backs it."""
    return replace(result, verdict=BehaviorVerdict.UNDECIDED, code=Reason.FACTS_MISSING,
                   reason=f"{result.verdict}, but the engine recorded no {fact}, which the "
                   f"verdict rests on: {result.reason}")


def by_name(constants: tuple[ConstantFact, ...]) -> bool:
    """Whether every output constant paired with a reference constant has its name, a name
    that says it is that constant (`search.named_alike`: `InitPrimers` for `PRIMER`), or
    uses that do (`search.used_alike`: `Procs` in `1..Procs` for `N` in `1..N`)."""
    return all(c.by_name or c.alike for c in constants
               if c.source is ValueSource.REFERENCE_CONSTANT)


def pairing_text(constants: tuple[ConstantFact, ...]) -> str:
    return ", ".join(f"{c.name} <- {c.paired_with}" for c in constants) or "none"
