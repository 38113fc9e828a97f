"""Reserved words of TLA+ and PlusCal, and the names the standard modules define.

The standard modules are the ten `.tla` files inside tla2tools.jar (2020 build, under
`tla2sany/StandardModules/`). `STANDARD_EXPORTS` lists, per module, the identifier-like names that
module makes visible to a module that EXTENDS it (its own non-LOCAL definitions and declarations;
operator symbols such as `\\o`, `:>` or `(+)` are not identifiers and are left out).
`STANDARD_LOCAL_NAMES` are names defined inside the standard modules that are not exported; they
are still avoided as new names. `tests/tlc_harness/source/test_identifiers.py` re-derives both from the jar.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

STANDARD_EXPORTS: Mapping[str, frozenset[str]] = {
    "Naturals": frozenset({"Nat"}),
    "Integers": frozenset({"Int"}),
    "Reals": frozenset({"Real", "Infinity"}),
    "RealTime": frozenset({"now", "RTBound", "RTnow"}),
    "Sequences": frozenset(
        {"Seq", "Len", "Append", "Head", "Tail", "SubSeq", "SelectSeq"}
    ),
    "FiniteSets": frozenset({"IsFiniteSet", "Cardinality"}),
    "Bags": frozenset(
        {
            "IsABag", "BagToSet", "SetToBag", "BagIn", "EmptyBag", "BagUnion", "SubBag",
            "BagOfAll", "BagCardinality", "CopiesIn",
        }
    ),
    "TLC": frozenset(
        {
            "Print", "PrintT", "Assert", "JavaTime", "TLCGet", "TLCSet", "Permutations",
            "SortSeq", "RandomElement", "Any", "ToString", "TLCEval",
        }
    ),
    "Randomization": frozenset({"RandomSubset", "RandomSetOfSubsets", "TestRandomSetOfSubsets"}),
    "Toolbox": frozenset({"_TETrace", "_TEPosition"}),
}

#: Modules that EXTEND another standard module (their exports include the other's).
STANDARD_EXTENDS: Mapping[str, tuple[str, ...]] = {
    "Integers": ("Naturals",),
    "Reals": ("Integers",),
    "RealTime": ("Reals",),
    "Bags": ("TLC",),
}

#: LOCAL definitions of the standard modules (not exported, still never used as new names).
STANDARD_LOCAL_NAMES: frozenset[str] = frozenset({"Sum", "_TETraceLength"})

STANDARD_MODULES: frozenset[str] = frozenset(STANDARD_EXPORTS)

#: Reserved words of TLA+ (the language and its proof language).
TLA_KEYWORDS: frozenset[str] = frozenset(
    """
    ASSUME ASSUMPTION AXIOM BOOLEAN CASE CHOOSE CONSTANT CONSTANTS DOMAIN ELSE ENABLED EXCEPT
    EXTENDS FALSE IF IN INSTANCE LET LOCAL MODULE OTHER SF_ STRING SUBSET THEN THEOREM TRUE
    UNCHANGED UNION VARIABLE VARIABLES WF_ WITH
    ACTION BY COROLLARY DEF DEFINE DEFS HAVE HIDE LAMBDA LEMMA NEW OBVIOUS OMITTED ONLY PICK
    PROOF PROPOSITION PROVE QED RECURSIVE STATE SUFFICES TAKE TEMPORAL USE WITNESS
    """.split()
)

#: Reserved words of PlusCal (p-syntax and c-syntax).
PLUSCAL_KEYWORDS: frozenset[str] = frozenset(
    """
    algorithm fair process procedure macro variable variables define begin end if then else
    elsif while do either or with await when goto call return skip assert print
    """.split()
)

#: Names the PlusCal translator generates or treats specially.
PLUSCAL_TRANSLATION_NAMES: frozenset[str] = frozenset(
    {"pc", "stack", "self", "ProcSet", "Init", "Next", "Spec", "Termination", "Terminating",
     "vars", "Done", "Error", "defaultInitValue"}
)

_IDENT = re.compile(r"[A-Za-z0-9_]*[A-Za-z][A-Za-z0-9_]*\Z")


def standard_exports(module: str) -> frozenset[str]:
    """Names visible to a module that EXTENDS the standard module `module` (transitively)."""
    names = set(STANDARD_EXPORTS.get(module, frozenset()))
    for base in STANDARD_EXTENDS.get(module, ()):
        names |= standard_exports(base)
    return frozenset(names)


def standard_operator_names() -> frozenset[str]:
    """Every identifier-like name exported by some standard module."""
    out: set[str] = set()
    for names in STANDARD_EXPORTS.values():
        out |= names
    return frozenset(out)


def standard_names() -> frozenset[str]:
    """Standard module names, their exported names and their LOCAL names."""
    return STANDARD_MODULES | standard_operator_names() | STANDARD_LOCAL_NAMES


def is_tla_identifier(name: str) -> bool:
    """True for a syntactically valid TLA+ identifier that is not a reserved word."""
    return (
        bool(_IDENT.match(name))
        and name not in TLA_KEYWORDS
        and not name.startswith(("WF_", "SF_"))
    )


def reserved_new_names(*, pluscal: bool, extra: Iterable[str] = ()) -> frozenset[str]:
    """Words no identifier may be renamed to (keywords, standard names, PlusCal names)."""
    out = set(TLA_KEYWORDS) | standard_names() | set(extra)
    if pluscal:
        out |= PLUSCAL_KEYWORDS | PLUSCAL_TRANSLATION_NAMES
    return frozenset(out)
