"""The behavior grade's one verdict type, its reason codes, and its result record.

Every behavior verdict is a `BehaviorVerdict`; every verdict but `ok` carries a `Reason`, a
code a table can count (the free-text `reason` says the particulars). Both are `StrEnum`s, so a
record written as JSON holds their plain string values and old result files still read.
Importing this module loads nothing else of the grader.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from tlc_harness.tools.results import TraceState, Verdict


class BehaviorVerdict(enum.StrEnum):
    """Does the output refine the reference both ways?"""

    OK = "ok"                       #: both directions hold under one mapping
    FORWARD_FAIL = "forward_fail"   #: the output has a behavior the reference lacks
    REVERSE_FAIL = "reverse_fail"   #: the reference has a behavior the output lacks
    NO_MAPPING = "no_mapping"       #: no mapping of the grammar fits (nothing is decided)
    UNDECIDED = "undecided"         #: a budget or a limit of the grader was hit
    NOT_COVERED = "not_covered"     #: the reference cannot be graded against

    @property
    def decided(self) -> bool:
        """Whether the verdict says something about the output (pass or fail)."""
        return self in DECIDED


FAILURES = frozenset({BehaviorVerdict.FORWARD_FAIL, BehaviorVerdict.REVERSE_FAIL})
DECIDED = frozenset({BehaviorVerdict.OK, *FAILURES})


class Soundness(enum.StrEnum):
    """How sure a decided verdict is: what it rests on (`soundness.classify`). Every decided
    verdict has one; an `ok` only `justified`."""

    JUSTIFIED = "justified"
    ENUMERATED = "enumerated"
    MAPPING_FREE = "mapping_free"

    @property
    def meaning(self) -> str:
        return _SOUNDNESS[self]


_SOUNDNESS = {
    Soundness.JUSTIFIED: "under the values the reference's instance gives the output's "
                         "constants, paired by name or in the only way there is",
    Soundness.ENUMERATED: "a failure under every value of a finite set that holds the right "
                          "one (each value of a free constant, or each pairing of constants)",
    Soundness.MAPPING_FREE: "a failure under any mapping, not only the grammar's (too few "
                            "states, or the own run of an output without constants fails)",
}


class Reason(enum.StrEnum):
    """Why a verdict is not `ok`: one code per cause, shared by both engines; each code
    belongs to one verdict (`verdict`) and says what it means (`meaning`)."""

    GRAPH_FORWARD = "graph_forward"
    TLC_FORWARD = "tlc_forward"
    OUTPUT_RUN_FAILS = "output_run_fails"
    GRAPH_REVERSE = "graph_reverse"
    TLC_REVERSE = "tlc_reverse"
    REVERSE_LIVENESS = "reverse_liveness"
    TOO_FEW_STATES = "too_few_states"
    HALTS_SOONER = "halts_sooner"
    NO_STATE_MAPPING = "no_state_mapping"
    NO_CANDIDATE = "no_candidate"
    SHAPE_MISMATCH = "shape_mismatch"
    NO_ENTRY_POINTS = "no_entry_points"
    CONSTANTS_UNPAIRED = "constants_unpaired"
    CONSTANT_UNJUSTIFIED = "constant_unjustified"
    PAIRING_AMBIGUOUS = "pairing_ambiguous"
    ASSUME_REJECTS = "assume_rejects_values"
    GRADER_ELEMENTS = "grader_elements"
    VALUES_DISAGREE = "values_disagree"
    MAPPINGS_EVAL_ERROR = "mappings_eval_error"
    MAPPING_CLASS_INCOMPLETE = "mapping_class_incomplete"
    STATE_BUDGET = "state_budget"
    INFINITE_SET = "infinite_set"
    TIME_BUDGET = "time_budget"
    OUTPUT_BUDGET = "output_budget"
    RESOURCE_LIMIT = "resource_limit"
    INFRA_ERROR = "infra_error"
    SEARCH_BUDGET = "search_budget"
    TLC_ERROR_WRAPPER = "tlc_error_wrapper"
    CONSTRAINT_CUT = "constraint_cut"
    OVERRIDE_NOT_CARRIED = "override_not_carried"
    UNREADABLE_OUTPUT = "unreadable_output"
    UNSTAGEABLE_OUTPUT = "unstageable_output"
    SPEC_UNREAD = "spec_unread"
    SUBSCRIPT_INCOMPLETE = "subscript_incomplete"
    VALUE_BY_TRYING = "value_by_trying"
    VALUE_GUESSED = "value_guessed"
    SYMBOL_UNCHECKED = "symbol_unchecked"
    OBSERVABLE_RECOMPUTED = "observable_recomputed"
    WITNESS_NOT_REPLAYED = "witness_not_replayed"
    OWN_RUN_LIMIT = "own_run_limit"
    FACTS_MISSING = "facts_missing"
    LIVENESS_UNCHECKED = "liveness_unchecked"
    REFERENCE_NO_BEHAVIOR = "reference_no_behavior"
    REFERENCE_RANDOM = "reference_random"
    REFERENCE_CFG = "reference_cfg"
    REFERENCE_FAILS = "reference_fails"
    REFERENCE_SELF_CHECK = "reference_self_check"
    REFERENCE_MISMATCH = "reference_mismatch"

    @property
    def verdict(self) -> BehaviorVerdict:
        """The verdict this code explains."""
        return _REASONS[self][0]

    @property
    def meaning(self) -> str:
        """What the code says, in a line."""
        return _REASONS[self][1]


_V = BehaviorVerdict
#: each reason code: the verdict it explains, and what it means
_REASONS: dict[Reason, tuple[BehaviorVerdict, str]] = {
    Reason.GRAPH_FORWARD: (_V.FORWARD_FAIL, "an output step or initial state outside R's graph"),
    Reason.TLC_FORWARD: (_V.FORWARD_FAIL, "TLC's forward run finds a violation"),
    Reason.OUTPUT_RUN_FAILS: (_V.FORWARD_FAIL, "the output's own run fails (R's constants)"),
    Reason.GRAPH_REVERSE: (_V.REVERSE_FAIL, "a reference behavior the output cannot follow"),
    Reason.TLC_REVERSE: (_V.REVERSE_FAIL, "TLC's reverse run finds a violation"),
    Reason.REVERSE_LIVENESS: (_V.REVERSE_FAIL, "a fair behavior of R whose only output "
                              "behavior violates the output's fairness or liveness"),
    Reason.TOO_FEW_STATES: (_V.REVERSE_FAIL, "the output has fewer initial states, states or "
                            "steps than R: no mapping can cover R's behaviors"),
    Reason.HALTS_SOONER: (_V.REVERSE_FAIL, "every output behavior stops changing state "
                          "sooner than some behavior of R: no mapping can cover it"),
    Reason.NO_STATE_MAPPING: (_V.REVERSE_FAIL, "no state mapping makes the two whole graphs "
                              "equivalent: as many states and not isomorphic, or more states "
                              "and no onto homomorphism (`graph_engine.any_mapping`)"),
    Reason.NO_CANDIDATE: (_V.NO_MAPPING, "no mapping of the grammar fits"),
    Reason.SHAPE_MISMATCH: (_V.NO_MAPPING, "the wrapper engine's bijections cannot exist"),
    Reason.NO_ENTRY_POINTS: (_V.NO_MAPPING, "the output defines no Init or Next"),
    Reason.CONSTANTS_UNPAIRED: (_V.NO_MAPPING, "output constants with no value to take"),
    Reason.CONSTANT_UNJUSTIFIED: (_V.NO_MAPPING, "a failure under values R does not fix"),
    Reason.PAIRING_AMBIGUOUS: (_V.NO_MAPPING, "a failure under one pairing of the output's "
                               "constants with R's where another pairing did not fail"),
    Reason.ASSUME_REJECTS: (_V.NO_MAPPING, "the output's ASSUME rejects R's values"),
    Reason.GRADER_ELEMENTS: (_V.NO_MAPPING,
                             "the output fails only on elements the grader chose"),
    Reason.VALUES_DISAGREE: (_V.NO_MAPPING,
                             "a failure under some values, no mapping under others"),
    Reason.MAPPINGS_EVAL_ERROR: (_V.NO_MAPPING, "every mapping stops TLC; the output runs alone"),
    Reason.MAPPING_CLASS_INCOMPLETE: (_V.NO_MAPPING, "a failure under the mappings tried, "
                                      "whose class is not shown to hold every mapping that "
                                      "could work for these shapes"),
    Reason.STATE_BUDGET: (_V.UNDECIDED, "a graph over the state budget"),
    Reason.INFINITE_SET: (_V.UNDECIDED, "the output reads an infinite set TLC cannot enumerate, "
                          "and bounded it shows no forward failure"),
    Reason.TIME_BUDGET: (_V.UNDECIDED, "TLC's time limit"),
    Reason.OUTPUT_BUDGET: (_V.UNDECIDED, "the output's time budget for its whole behavior grade "
                           "ran out before a verdict"),
    Reason.RESOURCE_LIMIT: (_V.UNDECIDED, "TLC ran out of memory or disk"),
    Reason.INFRA_ERROR: (_V.UNDECIDED, "the tools failed (not the specs)"),
    Reason.SEARCH_BUDGET: (_V.UNDECIDED, "the in-memory mapping search's budget"),
    Reason.TLC_ERROR_WRAPPER: (_V.UNDECIDED, "TLC cannot run the grader's wrapper"),
    Reason.CONSTRAINT_CUT: (_V.UNDECIDED, "a CONSTRAINT's cut of the output cannot be settled"),
    Reason.OVERRIDE_NOT_CARRIED: (_V.UNDECIDED, "R's cfg defines values the output's run lacks"),
    Reason.UNREADABLE_OUTPUT: (_V.UNDECIDED, "tree-sitter cannot read the output"),
    Reason.UNSTAGEABLE_OUTPUT: (_V.UNDECIDED, "the output cannot be staged for TLC"),
    Reason.SPEC_UNREAD: (_V.UNDECIDED, "the output's formula the cfg names has no initial "
                         "predicate and next-state action the grader can read"),
    Reason.SUBSCRIPT_INCOMPLETE: (_V.UNDECIDED,
                                  "an `ok` whose output's subscript leaves a variable out"),
    Reason.VALUE_BY_TRYING: (_V.UNDECIDED,
                             "an `ok` under some values of a free constant, not under others"),
    Reason.VALUE_GUESSED: (_V.UNDECIDED,
                           "an `ok` under values the reference does not fix for a constant"),
    Reason.SYMBOL_UNCHECKED: (_V.UNDECIDED, "a verdict under a model value for a constant "
                              "taken as a symbol, whose uses the output's graph cannot "
                              "show meet only symbols"),
    Reason.OBSERVABLE_RECOMPUTED: (_V.UNDECIDED, "an `ok` only with a variable of R computed "
                                   "from the output's others while its own of that name is "
                                   "unread"),
    Reason.WITNESS_NOT_REPLAYED: (_V.UNDECIDED, "a failure whose witness TLC cannot follow on "
                                  "the output alone"),
    Reason.OWN_RUN_LIMIT: (_V.UNDECIDED, "the output's own run stops where the grader chose "
                           "values, or at a state TLC cannot complete or enumerate"),
    Reason.FACTS_MISSING: (_V.UNDECIDED, "a decided verdict whose facts (constants, pairings, "
                           "the mapping's class) the engine did not record"),
    Reason.LIVENESS_UNCHECKED: (_V.UNDECIDED, "an `ok` whose fairness or liveness no run could "
                                "check (R's forward, or the output's in reverse)"),
    Reason.REFERENCE_NO_BEHAVIOR: (_V.NOT_COVERED, "a constant model"),
    Reason.REFERENCE_RANDOM: (_V.NOT_COVERED, "R draws values at random"),
    Reason.REFERENCE_CFG: (_V.NOT_COVERED, "R's cfg overrides with what no module defines"),
    Reason.REFERENCE_FAILS: (_V.NOT_COVERED, "R's own run fails"),
    Reason.REFERENCE_SELF_CHECK: (_V.NOT_COVERED, "R fails the grade against itself"),
    Reason.REFERENCE_MISMATCH: (_V.NOT_COVERED,
                                "the description names identifiers R never writes: not the "
                                "task's reference"),
}


class ValueSource(enum.StrEnum):
    """Where the value an output constant takes in a grade comes from."""

    REFERENCE_CONSTANT = "reference_constant"
    REFERENCE_DEFINITION = "reference_definition"
    REFERENCE_COUNT = "reference_count"
    REFERENCE_ROLE = "reference_role"
    OUTPUT_ASSUME = "output_assume"
    OPAQUE_TOKEN = "opaque_token"  # noqa: S105 (a source of a value, not a secret)
    UNUSED = "unused"
    NOT_READ = "not_read"
    STORED_ONLY = "stored_only"
    BOOLEAN_ROLE = "boolean_role"
    EVERY_VALUE = "every_value"
    VALUES_TRIED = "values_tried"
    GUESSED = "guessed"

    @property
    def meaning(self) -> str:
        return _SOURCES[self]

    @property
    def justified(self) -> bool:
        """Whether a verdict under this value says something about the output."""
        return self not in (ValueSource.GUESSED, ValueSource.VALUES_TRIED)


_S = ValueSource
_SOURCES = {
    _S.REFERENCE_CONSTANT: "the cfg value of the paired reference constant",
    _S.REFERENCE_DEFINITION: "the reference's literal definition of the constant's own name",
    _S.REFERENCE_COUNT: "the size of a paired reference set, `1..N` of a count, `ProcSet`",
    _S.REFERENCE_ROLE: "the literal the reference's Init writes where the output's Init "
                       "writes the constant, for a variable of the same name (`u = 24` for "
                       "`u = InitU`, `v \\in 1 .. 50` for `v \\in 1 .. MaxV`)",
    _S.OUTPUT_ASSUME: "the output's own `ASSUME C = value`",
    _S.OPAQUE_TOKEN: "a constant used only as a symbol: a model value of its own name",
    _S.UNUSED: "no module uses it: any value will do",
    _S.NOT_READ: "neither the output's specification nor any ASSUME reads it (an "
                 "invariant's bound), or the check the verdict rests on does not (the output's "
                 "Init, for its initial states): the verdict holds for every admissible value",
    _S.STORED_ONLY: "a model value for a constant the output only stores in variables its Init "
                    "and Next never read: no value gives more states, steps or longer "
                    "behaviors, so a count that fails under it fails under every value",
    _S.BOOLEAN_ROLE: "the value of a reference BOOLEAN constant it stands for",
    _S.EVERY_VALUE: "every admissible value was graded, with one verdict (a BOOLEAN; a "
                    "number standing for a reference model value; a number the output's "
                    "ASSUME bounds to a small set)",
    _S.VALUES_TRIED: "a few numbers were graded, with one verdict: not every admissible value",
    _S.GUESSED: "a value the reference does not fix",
}


def instead_of(before: BehaviorResult) -> dict[str, Any]:
    """What the engines said, kept in the record of a verdict a later check gave instead."""
    return {"verdict": before.verdict.value, "code": before.code.value if before.code else None,
            "reason": before.reason}


def reasons_of(verdict: BehaviorVerdict) -> list[Reason]:
    """The reason codes of `verdict`, in the order they are declared."""
    return [code for code in Reason if code.verdict is verdict]


#: the codes of a grade a wall clock ended (a TLC run's limit, the output's time budget)
CLOCK_REASONS = frozenset({Reason.TIME_BUDGET, Reason.OUTPUT_BUDGET})


def limit_reason(verdict: Verdict) -> Reason:
    """The reason code of a TLC run stopped by a limit (`LIMIT_VERDICTS`)."""
    return {Verdict.TIMEOUT: Reason.TIME_BUDGET,
            Verdict.RESOURCE_LIMIT: Reason.RESOURCE_LIMIT}.get(verdict, Reason.INFRA_ERROR)


@dataclass(frozen=True)
class Attempt:
    """One mapping tried by the wrapper engine: the TLC runs made and what they said."""

    mapping: dict[str, Any]
    forward: str
    reverse: str | None
    seconds: float
    reason: str = ""


@dataclass(frozen=True)
class BehaviorResult:
    """The behavior verdict with everything needed to replay it.

    `verdict` may be given as its string; a verdict other than `ok` needs its `code`."""

    verdict: BehaviorVerdict
    mapping: dict[str, Any] | None
    reason: str
    seconds: float
    attempts: tuple[Attempt, ...] = ()
    trace: tuple[TraceState, ...] = ()
    tlc_runs: int = 0
    engine: str = "wrappers"
    details: dict[str, Any] = field(default_factory=dict)  # the engine's own facts
    code: Reason | None = None
    soundness: Soundness | None = None  # set on a decided verdict by `soundness.classify`

    def __post_init__(self) -> None:
        object.__setattr__(self, "verdict", BehaviorVerdict(self.verdict))
        if self.code is not None:
            object.__setattr__(self, "code", Reason(self.code))
        if (self.verdict is BehaviorVerdict.OK) != (self.code is None):
            raise ValueError(f"a {self.verdict} verdict "
                             + ("takes no reason code" if self.code else "needs a reason code"))
        if self.code is not None and self.code.verdict is not self.verdict:
            raise ValueError(f"the reason code {self.code} explains {self.code.verdict}, "
                             f"not {self.verdict}")
        if self.soundness is not None:
            object.__setattr__(self, "soundness", Soundness(self.soundness))
            if not self.verdict.decided:
                raise ValueError(f"a {self.verdict} verdict decides nothing: no soundness class")
            if self.passed and self.soundness is not Soundness.JUSTIFIED:
                raise ValueError(f"an ok is only justified, not {self.soundness}")

    @property
    def passed(self) -> bool:
        return self.verdict is BehaviorVerdict.OK

    def to_json(self) -> dict[str, Any]:
        return {"verdict": self.verdict.value, "passed": self.passed, "mapping": self.mapping,
                "reason": self.reason, "reason_code": self.code.value if self.code else None,
                "soundness": self.soundness.value if self.soundness else None,
                "seconds": round(self.seconds, 3), "tlc_runs": self.tlc_runs,
                "engine": self.engine, "attempts": [a.__dict__ for a in self.attempts],
                "trace": [s.__dict__ for s in self.trace], **self.details}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> BehaviorResult:
        """The result `to_json` wrote (`seconds` to the millisecond; every key but the
        fields' own is a detail). Raises `KeyError`, `TypeError` or `ValueError` on a record
        that is not one."""
        if not isinstance(data, Mapping):
            raise TypeError(f"a behavior result is a JSON object, not {type(data).__name__}")
        mapping = data.get("mapping")
        if mapping is not None and not isinstance(mapping, dict):
            raise TypeError("a behavior result's mapping is a JSON object")
        return cls(
            BehaviorVerdict(data["verdict"]), mapping, str(data.get("reason", "")),
            float(data.get("seconds", 0.0)),
            attempts=tuple(Attempt(**a) for a in data.get("attempts") or ()),
            trace=tuple(TraceState(**s) for s in data.get("trace") or ()),
            tlc_runs=int(data.get("tlc_runs", 0)), engine=str(data.get("engine", "wrappers")),
            details={k: v for k, v in data.items() if k not in _RESULT_KEYS},
            code=Reason(data["reason_code"]) if data.get("reason_code") else None,
            soundness=Soundness(data["soundness"]) if data.get("soundness") else None)


#: the keys `BehaviorResult.to_json` writes for its own fields (the rest are its details)
_RESULT_KEYS = frozenset({"verdict", "passed", "mapping", "reason", "reason_code", "soundness",
                          "seconds", "tlc_runs", "engine", "attempts", "trace"})
