"""The grades of model outputs, kept in memory and on disk: `<cache root>/grades/<key>.json`.

A case's grades are a function of the variant, what grading reads of the reply, the grades
asked for, the options that can change a verdict, the jar and the grader's own code; so a key
is graded once per process, per machine (or shared root) and across runs: the reference
model's five identical samples of a variant cost one grade. The key is a sha256 of

- the key of the variant's reference self-check (`reference_cache.reference_key`): the
  reference's modules, cfg and TLC arguments, the behavior options but the cache's place, the
  output budget and the sweep's parallelism, the harness settings that reach TLC, the jar's
  sha256 and the source of `tlc_harness`;
- the rest of the variant: task id, condition, rename map, description (the hidden names and
  the reference-mismatch check read it), its model's distinct states;
- the output as grading reads it: the extracted module's name and text and the reply's own
  modules it imports (two replies that differ only in the prose around the module share a
  grade; the extraction's notes, which that prose may change, are the reply's own);
- the grades asked for, the output's time budget, the TLC limit of the call, whether the
  reference's coverage is checked;
- the source of `alias_fixtures.grading` and `alias_fixtures.tasks` (`grading_digest`: with
  `tlc_harness`'s, any change to the grader's code misses) and `GRADE_FORMAT`.

Not stored, so graded again each time: grades with an infrastructure error, grades a clock
decided (`TIME_VERDICTS`, `CLOCK_REASONS`: under less load they may be decided), a `not_covered`
that follows from a self-check's infrastructure error, and a reply whose module the extraction
finds no module in (graded at once, without SANY). A stored grade reads back as it was made,
its `seconds` included, with `CaseGrades.cached` set. Grades are kept in their JSON form (what
a case record holds: a tuple in a grade's details is a list), and a grade made and stored by a
call is returned in that form too, so a read and a fresh grade are equal but for `cached`.
"""

from __future__ import annotations

import functools
import hashlib
import inspect
import json
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import alias_fixtures.grading as grading_package
import alias_fixtures.tasks as tasks_package
from alias_fixtures.grading.extract import extract_module
from alias_fixtures.grading.grade import (
    CaseGrades,
    Grade,
    ReferenceCoverage,
    grade_output,
    own_modules,
)
from alias_fixtures.grading.reference_cache import grader_digest, reference_key
from alias_fixtures.tasks.variants import Variant
from reports.schema import GRADES
from tlc_harness.behavior.options import BehaviorOptions
from tlc_harness.behavior.verdicts import CLOCK_REASONS, Reason
from tlc_harness.tools.disk_cache import JsonStore, cache_root, source_digest
from tlc_harness.tools.results import Verdict
from tlc_harness.tools.runner import Harness

GRADE_FORMAT = 1
"""Bump when what an entry records changes (the grader's source is in the key anyway)."""
KIND = "grades"
#: name-grade verdicts a clock decided: TLC's time limit
TIME_VERDICTS = frozenset({Verdict.TIMEOUT.value})
#: behavior reason codes of a time limit: a TLC run's or the mapping search's guard
#: (`time_budget`), the output's budget for its whole grade (`output_budget`). The mapping
#: search's own limit (`search_budget`) counts its steps, the same under any load: stored.
_GRADE_NAMES = ("parse", "name", "behavior")
#: grades a process keeps in memory, the latest used: a variant's samples come one after
#: another (xdist's loadgroup), and the disk holds the rest
MEMORY_ENTRIES = 256

Grading = Callable[..., CaseGrades]
"""`grade_output`'s signature: (harness, variant, reply, *, coverage, grades, behavior,
timeout)."""


@functools.cache
def grading_digest() -> str:
    """A sha256 of the grader's source: `tlc_harness` (`grader_digest`), the grading package
    and the task package (variants, hidden names, the reference-mismatch check)."""
    parts = [grader_digest(), *(source_digest(Path(inspect.getfile(package)).parent)
                                for package in (grading_package, tasks_package))]
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()


@dataclass(frozen=True)
class GradedOutput:
    """What grading reads of a reply: the extracted module and the reply's own modules it
    imports (file name -> text), and the extraction's notes (not keyed: the prose's)."""

    main: str
    files: dict[str, str]
    notes: tuple[str, ...]

    @staticmethod
    def of(reply: str) -> GradedOutput | None:
        """None when the extraction finds no module (graded without SANY)."""
        extraction = extract_module(reply)
        name, text = extraction.module_name, extraction.text
        if extraction.verdict != "ok" or name is None or text is None:
            return None
        own = own_modules(text, extraction.other_modules)
        return GradedOutput(name, {f"{name}.tla": text, **{f"{m}.tla": t for m, t in own.items()}},
                            tuple(extraction.notes))


def grade_key(harness: Harness, variant: Variant, output: GradedOutput, *,
              grades: tuple[str, ...], options: BehaviorOptions, timeout: float | None,
              covered: bool) -> str:
    """The key of the grades of `output` against `variant` (see the module)."""
    blob = json.dumps({
        "format": GRADE_FORMAT, "grader": grading_digest(),
        "reference": reference_key(harness, variant, options),
        "variant": {"task": variant.task_id, "condition": variant.condition,
                    "rename_map": sorted(variant.rename_map.items()),
                    "description": variant.description,
                    "distinct_states": variant.distinct_states},
        "output": {"main": output.main, "files": sorted(output.files.items())},
        "grades": list(grades), "output_budget": options.output_budget, "timeout": timeout,
        "covered": covered}, sort_keys=True, default=str)
    return hashlib.sha256(blob.encode()).hexdigest()


def decided_by_a_clock(grades: CaseGrades) -> bool:
    """Whether a time limit decided any of the output's grades."""
    return (grades.name.verdict in TIME_VERDICTS
            or grades.behavior.details.get("reason_code") in CLOCK_REASONS)


def wall_limit(grades: CaseGrades) -> str | None:
    """What a wall-clock limit ended, if one did: the name grade's TLC run, or a run or the
    whole of the behavior grade. None: every grade of the output ended on its own terms (a
    reference whose self-check reached a limit leaves its outputs `not_covered`, in no
    behavior rate, with the self-check's code in `self_check_code`: the task's, not the
    output's, and its name grades stand)."""
    ended = []
    if grades.name.verdict in TIME_VERDICTS:
        ended.append("the name grade's TLC run reached its time limit")
    code = grades.behavior.details.get("reason_code")
    if code in CLOCK_REASONS:
        ended.append(f"the behavior grade reached a time limit ({code})")
    return f"wall-clock limit: {'; '.join(ended)}" if ended else None


class GradeCache:
    """Grades by key: in memory, and on disk under each call's `behavior.cache` root.

    `grade` takes `grade_output`'s arguments and returns what it would, grading only a key
    neither level holds; one process grades a missing key at a time (the others wait for its
    lock, then read). `graded` and `read` count the calls of each kind."""

    def __init__(self, grading: Grading | None = None) -> None:
        self.grading = grading  # None: `grade_output`
        self._memory: OrderedDict[str, dict[str, Any]] = OrderedDict()
        self.graded = 0
        self.read = 0

    def grade(self, harness: Harness, variant: Variant, reply: str, *,
              coverage: ReferenceCoverage | None = None, grades: tuple[str, ...] = GRADES,
              behavior: BehaviorOptions | None = None,
              timeout: float | None = None) -> CaseGrades:
        def graded() -> CaseGrades:
            self.graded += 1
            return (self.grading or grade_output)(harness, variant, reply, coverage=coverage,
                                                  grades=grades, behavior=behavior,
                                                  timeout=timeout)

        output = GradedOutput.of(reply)
        if output is None:
            return graded()
        options = behavior or (coverage.options if coverage else BehaviorOptions())
        key = grade_key(harness, variant, output, grades=grades, options=options,
                        timeout=timeout, covered=coverage is not None)
        entry = self._memory.get(key)
        if entry is not None:
            self._memory.move_to_end(key)
            self.read += 1
            return rebuilt(entry, output)
        made: list[CaseGrades] = []

        def compute() -> dict[str, Any] | None:
            made.append(graded())
            return stored_form(made[0], output, variant, coverage)

        store = JsonStore(cache_root(options.cache) / KIND)
        entry = store.get_or_compute(key, compute, dump=_as_written, load=_checked,
                                     keep=_kept)
        if entry is None:  # made, and not to be stored
            return made[0]
        self._memory[key] = entry
        if len(self._memory) > MEMORY_ENTRIES:
            self._memory.popitem(last=False)
        if made:
            return rebuilt(entry, output, cached=False)
        self.read += 1
        return rebuilt(entry, output)


def stored_form(grades: CaseGrades, output: GradedOutput, variant: Variant,
                coverage: ReferenceCoverage | None) -> dict[str, Any] | None:
    """The entry that stores `grades`, or None when they are not to be stored (see the
    module). The extraction's notes are left out: a reply that reads the entry adds its own."""
    if grades.infra_error or decided_by_a_clock(grades):
        return None
    if grades.behavior.details.get("reason_code") == Reason.REFERENCE_SELF_CHECK \
            and coverage is not None and coverage.check(variant).code is Reason.INFRA_ERROR:
        return None
    extracted = len(output.notes)
    if grades.notes[:extracted] != output.notes:
        return None  # notes not laid out as `grade_output` lays them: not rebuilt exactly
    data: dict[str, Any] = {
        "format": GRADE_FORMAT, "task": variant.task_id, "condition": variant.condition,
        "module_name": grades.module_name, "notes": list(grades.notes[extracted:]),
        **{name: _grade_data(getattr(grades, name)) for name in _GRADE_NAMES}}
    try:  # its JSON form: what the record of the case holds
        form: dict[str, Any] = json.loads(json.dumps(data, allow_nan=False))
    except (TypeError, ValueError):  # a value JSON cannot hold: not stored
        return None
    return form


def _grade_data(grade: Grade) -> dict[str, Any]:
    return {"verdict": grade.verdict, "passed": grade.passed, "seconds": grade.seconds,
            "reason": grade.reason, "details": grade.details}


def rebuilt(entry: dict[str, Any], output: GradedOutput, *, cached: bool = True) -> CaseGrades:
    """The grades an entry stores, with `output`'s extraction notes."""
    parse, name, behavior = (Grade(**entry[grade]) for grade in _GRADE_NAMES)
    return CaseGrades(parse, name, behavior, entry["module_name"],
                      (*output.notes, *entry["notes"]), cached=cached)


def _kept(entry: dict[str, Any] | None) -> bool:
    return entry is not None


def _as_written(entry: dict[str, Any] | None) -> dict[str, Any]:
    """What is written of a kept entry (`_kept`: never None)."""
    return entry or {}


def _checked(data: dict[str, Any]) -> dict[str, Any] | None:
    """An entry read from disk, refused (`KeyError`, `TypeError`, `ValueError`) when it is not
    one this version wrote."""
    if data.get("format") != GRADE_FORMAT:
        raise ValueError(f"grade entry of format {data.get('format')!r}")
    for name in _GRADE_NAMES:
        grade = Grade(**data[name])
        if not isinstance(grade.details, dict) or not isinstance(grade.verdict, str):
            raise TypeError(f"grade entry with a malformed {name} grade")
    if not isinstance(data["notes"], list):
        raise TypeError("grade entry whose notes are not a list")
    return data
