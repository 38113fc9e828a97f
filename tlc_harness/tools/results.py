"""Typed, frozen, JSON-serializable results of SANY and TLC runs."""

from __future__ import annotations

import enum
from dataclasses import asdict, dataclass, field
from typing import Any


class Verdict(enum.StrEnum):
    """The closed set of TLC verdicts (the README lists what each means)."""

    OK = "ok"
    INVARIANT_VIOLATED = "invariant_violated"
    PROPERTY_VIOLATED = "property_violated"
    DEADLOCK = "deadlock"
    ASSUMPTION_FAILED = "assumption_failed"
    CONFIG_BIND_FAIL = "config_bind_fail"
    EVAL_ERROR = "eval_error"
    PARSE_ERROR = "parse_error"
    TIMEOUT = "timeout"
    RESOURCE_LIMIT = "resource_limit"
    INFRA_ERROR = "infra_error"

    @property
    def is_infrastructure(self) -> bool:
        """True for verdicts that say nothing about the spec itself."""
        return self is Verdict.INFRA_ERROR


#: Verdicts of a run cut short by a time, memory or infrastructure limit, not by the spec.
LIMIT_VERDICTS = frozenset({Verdict.TIMEOUT, Verdict.RESOURCE_LIMIT, Verdict.INFRA_ERROR})


@dataclass(frozen=True)
class TraceState:
    """One state of a counterexample: its number, the action that led to it, its variables."""

    number: int
    action: str
    variables: dict[str, str]


@dataclass(frozen=True)
class ParseResult:
    """Outcome of parsing one module with SANY (semantic errors count as failures)."""

    ok: bool
    module: str
    errors: tuple[str, ...]
    warnings: tuple[str, ...]
    exit_code: int | None
    seconds: float
    output: str
    infra_error: str | None = None
    backend: str = "fresh"
    library_modules: tuple[str, ...] = ()   # modules staged from tlc_harness/tools/library
    parsed_by: str = "sany"   # "tlc": TLC's own SANY pass parsed it, during a check

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = _jsonable(asdict(self))
        return data


@dataclass(frozen=True)
class CheckResult:
    """Outcome of one TLC model-checking run."""

    verdict: Verdict
    exit_code: int | None
    seconds: float
    distinct_states: int | None = None
    generated_states: int | None = None
    depth: int | None = None
    violated: str | None = None
    missing_names: tuple[str, ...] = ()
    message_codes: tuple[int, ...] = ()
    trace: tuple[TraceState, ...] = ()
    trace_kind: str | None = None
    detail: str = ""
    output: str = ""
    notes: tuple[str, ...] = ()
    tlc_args: tuple[str, ...] = ()
    backend: str = "fresh"
    partial: bool = False
    library_modules: tuple[str, ...] = ()   # modules staged from tlc_harness/tools/library
    extras: dict[str, Any] = field(default_factory=dict)

    @property
    def passed(self) -> bool:
        """TLC found no error (possibly vacuously: see `vacuous`)."""
        return self.verdict is Verdict.OK

    @property
    def vacuous(self) -> bool:
        """TLC reports success but explored no state (e.g. `Init == FALSE`)."""
        return self.verdict is Verdict.OK and not self.distinct_states

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = _jsonable(asdict(self))
        data["vacuous"] = self.vacuous
        return data


def _jsonable(value: Any) -> Any:
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    return value
