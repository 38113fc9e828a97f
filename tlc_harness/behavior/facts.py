"""The typed facts a decided verdict rests on, read from what the engines record.

The engines record their facts in a verdict's details (the record's keys `constants`,
`pairings`, `mapping_class`, `own_run_error`, which reports and old records read);
`VerdictFacts.of` reads them into frozen, typed values, and a fact an engine did not record is
`None`, never a default: `soundness.classify` makes a decided verdict whose facts are missing
`undecided` (`facts_missing`).
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from tlc_harness.behavior.own_run import OwnRunError
from tlc_harness.behavior.verdicts import ValueSource


class MappingBasis(enum.StrEnum):
    """What a decided verdict rests on for the mapping (`mapping_basis` in the record)."""

    FOUND = "found"                        #: an `ok`: the mapping found, checked both ways
    ANY_MAPPING = "any_mapping"            #: a failure under every state mapping there is
    NAMED_BIJECTIONS = "named_bijections"  #: under every mapping of the complete named class
    NAMED_FUNCTIONS = "named_functions"    #: the same, where the class merges some values
    #: under every renaming of each sort's atoms: every natural mapping, not every mapping
    NAMED_RENAMINGS = "named_renamings"
    OWN_RUN = "own_run"                    #: the output's own run fails: no mapping involved


class MappingClass(enum.StrEnum):
    """Whether the mappings a failure was found under hold every one that could work."""

    ANY_MAPPING = "any_mapping"            #: every state mapping (`graph_engine.any_mapping`)
    NAMED_BIJECTIONS = "named_bijections"  #: `graph_engine.completeness.named_class`
    NAMED_FUNCTIONS = "named_functions"    #: the same, every function onto values merged
    NAMED_RENAMINGS = "named_renamings"    #: `graph_engine.renamings.renaming_class`
    INCOMPLETE = "incomplete"


@dataclass(frozen=True)
class ConstantFact:
    """One output constant's value in a grade and where it comes from."""

    name: str
    value: str
    source: ValueSource
    paired_with: str | None = None
    by_name: bool = False          #: paired with the reference constant of its own name
    alike: bool = False            #: paired by a name or a use alike (`search.named_alike`)
    named_by_assume: bool = False  #: named by an ASSUME (one the specification does not read, or a count)


@dataclass(frozen=True)
class Pairings:
    """Pairings of the output's constants with the reference's: existing, graded, failed."""

    total: int
    graded: int
    failed: int | None = None


@dataclass(frozen=True)
class VerdictFacts:
    """Every fact `soundness.classify` reads; `None`: the engine did not record it."""

    constants: tuple[ConstantFact, ...] | None
    pairings: Pairings | None
    mapping_class: MappingClass | None
    mapping_class_reason: str
    own_run_error: OwnRunError | None

    @staticmethod
    def of(details: Mapping[str, Any]) -> VerdictFacts:
        """The facts of a verdict's details (a missing or unreadable fact is `None`)."""
        return VerdictFacts(constant_facts(details.get("constants")),
                            _pairings(details.get("pairings")),
                            _enum(MappingClass, details.get("mapping_class")),
                            str(details.get("mapping_class_reason", "")),
                            _enum(OwnRunError, details.get("own_run_error")))


def _enum(kind: type[enum.StrEnum], value: Any) -> Any:
    try:
        return kind(value) if value is not None else None
    except ValueError:
        return None


def constant_facts(raw: Any) -> tuple[ConstantFact, ...] | None:
    """The recorded `constants` (name -> value, from, source) as facts; None: unreadable."""
    if not isinstance(raw, Mapping):
        return None
    try:
        return tuple(ConstantFact(name, str(c["value"]), ValueSource(c["source"]),
                                  c.get("from"), c.get("from") == name,
                                  bool(c.get("named_alike") or c.get("used_alike")),
                                  bool(c.get("named_by_assume")))
                     for name, c in raw.items())
    except (KeyError, TypeError, ValueError):
        return None


def _pairings(raw: Any) -> Pairings | None:
    if not isinstance(raw, Mapping) or "total" not in raw or "graded" not in raw:
        return None
    failed = raw.get("failed")
    return Pairings(int(raw["total"]), int(raw["graded"]),
                    None if failed is None else int(failed))
