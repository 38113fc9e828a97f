"""The record schema: versions, names and shapes shared by every writer and reader of results.

A results file (JSONL) holds a run header (``kind: "header"``) per session and one case record
(``kind: "case"``) per graded case; probe files hold probe rows (one ``kind`` per probe). A
reader refuses a ``schema_version`` it does not know. This module imports nothing heavy.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, TypedDict

RECORD_SCHEMA_VERSION = 1
"""Run headers and case records of a results file."""
PROBE_ROW_SCHEMA_VERSION = 1
"""Rows of the probes (likelihood, continuation, similarity, proposed names)."""
TRAINING_SCHEMA_VERSION = 1
"""``training.json`` of a fine-tuned copy."""

Grade = Literal["parse", "name", "behavior"]
GRADES: tuple[Grade, ...] = ("parse", "name", "behavior")
"""The grades, in the order records and tables list them."""
UNDECIDED_VERDICTS = frozenset({"no_mapping", "undecided"})
"""Behavior verdicts that decide nothing about the output (no mapping fit; a budget or a limit
of the grader was hit): a behavior rate's lower bound counts them as failures, its upper bound
as passes. ``ok``, ``forward_fail`` and ``reverse_fail`` are decided; ``not_covered`` cases are
in no behavior rate."""
CONDITIONS = ("original", "random", "meaningful")
"""The known conditions, in the order tables show them; other names sort after these."""
WALL_CLOCK = "wall_clock"
"""A case record's ``infra_kind`` when a wall-clock limit ended one of its grades twice: a
verdict of the machine's speed, not of the output, so the case is listed and in no rate."""
PROBE_KINDS = ("likelihood", "continuation", "similarity", "proposed_names")
"""Kinds of probe rows: not case records."""
RECORD_PROPERTY = "alias_record"
"""The pytest ``user_properties`` key a case's record rides on, from worker to controller."""
TOKENS_FROM_USAGE = "usage"
"""A generation's ``token_source`` when the model's response reported its token counts."""
TOKENS_FROM_TOKENIZER = "tokenizer:"
"""The prefix of a generation's ``token_source`` when a tokenizer counted some of its tokens
(``tokenizer:NAME``, NAME as ``--alias-tokenizer`` gave it)."""


class GradeRecord(TypedDict, total=False):
    """One grade of a case: its verdict, whether it passed, and the grade's own details."""

    verdict: str
    passed: bool
    seconds: float
    reason: str | None
    covered: bool | None
    reason_code: str | None  # behavior: why a verdict is not `ok` (`BehaviorVerdict`, `Reason`)
    soundness: str | None  # behavior: what a decided verdict rests on (`Soundness`)
    constants: dict[str, dict[str, str]]  # behavior: each output constant's value and source


class TurnRecord(TypedDict, total=False):
    """One turn of a multi-turn case (the feedback track): its output, grades, cheat findings,
    whether it passed, the feedback given after it, and its call's cost (None: unknown)."""

    turn: int
    generation: dict[str, Any]
    output_sha256: str
    output_path: str
    grades: dict[str, GradeRecord]
    module: str | None
    similarity: dict[str, Any] | None
    grader: dict[str, Any]
    cheats: list[dict[str, Any]]
    passed: bool
    reason: str
    feedback: dict[str, Any] | None
    cost_usd: float | None
    seconds: float
    infra_error: str | None


class CaseRecord(TypedDict, total=False):
    """One graded case (task x condition x sample) of one model. A multi-turn case adds
    ``turns_max``, ``feedback_levels``, ``cheats``, ``cost_usd`` and ``turns``; its own
    output fields and grades are those of its last turn."""

    schema_version: int
    kind: Literal["case"]
    run_id: str
    id: str
    model: str
    task: str
    condition: str
    sample: int
    published: bool | None
    hidden_names: list[str]
    grades: dict[str, GradeRecord]
    infra_error: str | None
    excluded: bool
    prompt_sha256: str
    generation: dict[str, Any]
    output_sha256: str
    output_path: str
    module: str | None
    similarity: dict[str, Any] | None
    grader: dict[str, Any]
    regrade: dict[str, Any]
    traceback: str
    seconds: float
    turns_max: int
    feedback_levels: list[str]
    cheats: list[dict[str, Any]]
    cost_usd: float | None
    turns: list[TurnRecord]


class RunHeader(TypedDict, total=False):
    """The first line a session writes: where its numbers came from."""

    schema_version: int
    kind: Literal["header"]
    run_id: str
    started: str
    git_commit: str | None
    git_dirty: bool | None
    model: str
    stand_in: str | None
    tasks: str
    conditions: list[str]
    samples: int
    grades: list[str]
    primary: str
    turns: int
    feedback_levels: list[str]
    prices: str
    tokenizer: str
    style: str
    category: str
    module_path: str
    skipped_tasks: list[dict[str, str]]
    preparation: dict[str, float]  # seconds, variants, verified_now (the rest from the cache)


class ProbeRow(TypedDict, total=False):
    """The fields every probe row has; each kind adds its own."""

    schema_version: int
    kind: str
    model: str
    task: str


def undeclared(row: Mapping[str, Any], shape: type) -> list[str]:
    """Fields of `row` that the TypedDict `shape` does not declare (a writer ahead of the
    schema), sorted."""
    return sorted(set(row) - set(shape.__annotations__))
