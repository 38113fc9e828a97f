"""Grade one model output for one variant: parse, name and behavior grades.

- parse: extraction from the reply (`no_module`, `empty`, `too_large`), reference imports
  (`forbidden_import`), then SANY with semantic errors counted (`parse_error`), else `ok`.
- name: TLC on the output alone, under its own module name, with the variant's cfg (renamed
  names in the renamed conditions) — as TLA+-Bench grades. Verdicts are the harness's. Where
  the behavior grade may explore the same model, the run also dumps its state graph, which
  that grade reads instead of running TLC again (`own_model_run`).
- behavior: refinement both ways against the variant's own reference under a searched mapping.
  `not_covered` when the reference fails its own check.

The output never sees the reference for the parse and name grades; for the behavior grade both
are staged under distinct module names. Task files are only read.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from alias_fixtures.grading.extract import extract_module, forbidden_imports
from alias_fixtures.grading.parse_failures import classify_parse_failure
from alias_fixtures.grading.reference_cache import ReferenceStore
from alias_fixtures.tasks.consistency import unwritten_names
from alias_fixtures.tasks.descriptions import hidden_names
from alias_fixtures.tasks.variants import Variant
from reports.schema import GRADES
from tlc_harness.behavior.engine import grade_behavior
from tlc_harness.behavior.options import BehaviorOptions
from tlc_harness.behavior.own_model_run import (
    OwnModelRun,
    keeper,
    kept_dumps,
    offered,
    shareable_model,
)
from tlc_harness.behavior.staging import Reference
from tlc_harness.behavior.verdicts import BehaviorResult, BehaviorVerdict, Reason
from tlc_harness.source.identifiers import analyze_module
from tlc_harness.tools.results import Verdict
from tlc_harness.tools.runner import Harness
from tlc_harness.tools.spec import SpecSource

NAME_TRACE = 20  # states of TLC's trace a name grade keeps (the last ones, where it breaks)


@dataclass(frozen=True)
class Grade:
    """One grade of a case: a verdict from a closed set, whether it passed, and why."""

    verdict: str
    passed: bool
    seconds: float = 0.0
    reason: str = ""
    details: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"verdict": self.verdict, "passed": self.passed,
                "seconds": round(self.seconds, 3), "reason": self.reason, **self.details}


@dataclass(frozen=True)
class CaseGrades:
    """All grades of one output, plus what was extracted."""

    parse: Grade
    name: Grade
    behavior: Grade
    module_name: str | None = None
    notes: tuple[str, ...] = ()
    cached: bool = False  # read from the grade cache (`grade_cache`), not graded in this call

    def to_json(self) -> dict[str, Any]:
        return {"parse": self.parse.to_json(), "name": self.name.to_json(),
                "behavior": self.behavior.to_json()}

    @property
    def infra_error(self) -> str | None:
        for grade in (self.parse, self.name, self.behavior):
            if grade.verdict == Verdict.INFRA_ERROR.value:
                return grade.reason or "infrastructure error"
        return None


class ReferenceCoverage:
    """Whether each variant's reference passes the behavior grade against itself: kept in
    memory, and on disk under the options' cache root (`reference_cache`) unless `on_disk`
    is false."""

    def __init__(self, harness: Harness, options: BehaviorOptions | None = None, *,
                 on_disk: bool = True) -> None:
        self.harness = harness
        self.options = options or BehaviorOptions()
        self.store = ReferenceStore(self.options.cache) if on_disk else None
        self._seen: dict[tuple[str, str, str], BehaviorResult] = {}
        self.seconds = 0.0  # spent making or reading self-checks (waiting for a lock included)

    def check(self, variant: Variant) -> BehaviorResult:
        """The reference's grade against itself, or `not_covered` (`reference_mismatch`) when
        the description names identifiers the reference never writes (see `consistency`)."""
        missing = unwritten_names(variant.description, variant.modules, variant.cfg_text,
                                  variant.rename_map)
        if missing:
            return BehaviorResult(BehaviorVerdict.NOT_COVERED, None, (
                f"the reference is not the task's: the description names {', '.join(missing)}, "
                f"which no reference module nor its cfg writes"), 0.0,
                code=Reason.REFERENCE_MISMATCH, engine=self.options.engine)
        key = (variant.task_id, variant.condition, str(sorted(variant.rename_map.items())))
        if key not in self._seen:
            start = time.monotonic()
            self._seen[key] = (self.store.check(self.harness, variant, self.options,
                                                lambda: self._grade(variant))
                               if self.store is not None else self._grade(variant))
            self.seconds += time.monotonic() - start
        return self._seen[key]

    def _grade(self, variant: Variant) -> BehaviorResult:
        """The self-check: it belongs to the task (and is cached), not to an output, so the
        output's time budget does not bound it."""
        return grade_behavior(self.harness, reference_of(variant), dict(variant.modules),
                              variant.main_module, self.options.for_self_check())


def reference_of(variant: Variant) -> Reference:
    return Reference(variant.main_module, dict(variant.modules), variant.cfg, variant.tlc_args,
                     variant.distinct_states)


def own_modules(text: str, others: Mapping[str, str]) -> dict[str, str]:
    """The reply's other modules that its graded module EXTENDS or INSTANCEs, transitively.

    A reply may bring its own helper modules, even under a reference module's name: they are
    the model's text, not the reference's (which never reaches the output's directory)."""
    found: dict[str, str] = {}
    todo = [text]
    while todo:
        info = analyze_module(todo.pop())
        for name in (*info.extends, *info.instances):
            if name in others and name not in found:
                found[name] = others[name]
                todo.append(others[name])
    return found


def _skipped(verdict: str, reason: str) -> Grade:
    return Grade(verdict, False, 0.0, reason)


def grade_output(harness: Harness, variant: Variant, reply: str, *,
                 coverage: ReferenceCoverage | None = None, grades: tuple[str, ...] = GRADES,
                 behavior: BehaviorOptions | None = None,
                 timeout: float | None = None) -> CaseGrades:
    """Grade a model's raw reply against one variant (`behavior`: the engine and budgets)."""
    extraction = extract_module(reply)
    notes = tuple(extraction.notes)
    if extraction.verdict != "ok" or extraction.text is None or extraction.module_name is None:
        why = {"empty": "the reply is empty",
               "too_large": extraction.notes[0] if extraction.notes else "the reply is too large",
               }.get(extraction.verdict, "no `---- MODULE Name ----` header in the reply")
        bad = _skipped(extraction.verdict, why)
        return CaseGrades(bad, bad, bad, None, notes)
    name, text = extraction.module_name, extraction.text
    own = own_modules(text, extraction.other_modules)
    imported = forbidden_imports(text, variant.module_names() - set(own))
    if imported:
        bad = _skipped("forbidden_import",
                       f"the output imports reference module(s) {', '.join(imported)}")
        return CaseGrades(bad, bad, bad, name, notes)
    if own:
        notes += (f"with the reply's own module(s) {', '.join(own)}",)
    spec = SpecSource(name, {f"{name}.tla": text, **{f"{m}.tla": t for m, t in own.items()}})
    parsed = harness.parse(spec)
    if not parsed.ok:
        verdict = Verdict.INFRA_ERROR.value if parsed.infra_error else "parse_error"
        failure = None if parsed.infra_error else classify_parse_failure(spec.files, name)
        parse = Grade(verdict, False, parsed.seconds, "; ".join(parsed.errors[:3]),
                      {"errors": list(parsed.errors), **({"failure_class": failure.kind,
                       "failure_evidence": failure.evidence} if failure else {})})
        skipped = _skipped(verdict, "not run: the output does not parse")
        return CaseGrades(parse, skipped, skipped, name, notes)
    parse = Grade("ok", True, parsed.seconds)
    options = behavior or (coverage.options if coverage else BehaviorOptions())
    if timeout is not None:
        options = options.with_timeout(timeout)
    own_run: OwnModelRun | None = None
    with kept_dumps() as folder:
        if "name" in grades:
            shared = (folder if "behavior" in grades and _may_share(variant, options, coverage)
                      else None)
            name_grade, own_run = _name_grade(harness, variant, spec, timeout, shared)
        else:
            name_grade = _skipped("not_run", "grade not requested")
        behavior_grade = (_behavior_grade(harness, variant, spec, coverage, options, own_run)
                          if "behavior" in grades else _skipped("not_run", "grade not requested"))
    return CaseGrades(parse, name_grade, behavior_grade, name, notes)


def _may_share(variant: Variant, options: BehaviorOptions,
               coverage: ReferenceCoverage | None) -> bool:
    """Whether the name grade's run may serve the behavior grade as the output's graph: its
    model explores the whole state space, and the graph engine grades this reference (its
    verified run, or else its self-check's graph, has fewer states than the graph budget; a
    larger one goes to the wrapper engine, which reads no graph, and its dump would cost)."""
    if options.engine == "wrappers" or not shareable_model(variant.cfg, variant.tlc_args):
        return False
    states = variant.distinct_states
    if states is None and coverage is not None:
        states = coverage.check(variant).details.get("reference_states")
    return isinstance(states, int) and states < options.budget


def _name_grade(harness: Harness, variant: Variant, spec: SpecSource,
                timeout: float | None, keep_dump: Path | None = None
                ) -> tuple[Grade, OwnModelRun | None]:
    """TLA+-Bench's grade; with `keep_dump`, the run also leaves its state dump there and is
    offered to the behavior grade when it passed."""
    dump, keep = keeper(keep_dump) if keep_dump is not None else (None, None)
    result = harness.check(spec, variant.cfg, tlc_args=variant.tlc_args, timeout=timeout,
                           read_graph=keep)
    own_run = (offered(spec.files, spec.main, variant.cfg, result, dump)
               if dump is not None else None)
    hidden = {h.name for h in hidden_names(variant.description, variant.cfg)}
    # TLC stops at the first binding error and may name the output's own constant; which cfg
    # names the output does not define at all is read from its text.
    defined = set(analyze_module(spec.files[f"{spec.main}.tla"]).definitions)
    undefined = [n for n in variant.cfg.referenced_names() if n not in defined]
    missing = list(result.missing_names)
    if result.verdict is Verdict.CONFIG_BIND_FAIL and undefined:
        missing = undefined  # the cfg's names; TLC's own report stays in `tlc_missing`
    reason = result.detail[:300]
    if result.verdict is Verdict.CONFIG_BIND_FAIL and missing:
        tags = [f"{m} (hidden name)" if m in hidden else m for m in missing]
        reason = "not defined or without value: " + ", ".join(tags)
    elif result.violated:
        reason = f"{result.verdict.value.replace('_', ' ')}: {result.violated}"
    elif result.vacuous:
        reason = "TLC found no initial state (vacuous pass)"
    return Grade(result.verdict.value, result.passed and not result.vacuous, result.seconds,
                 reason, {"missing_names": missing, "tlc_missing": list(result.missing_names),
                          "missing_hidden": [m for m in missing if m in hidden],
                          "distinct_states": result.distinct_states,
                          "vacuous": result.vacuous, "violated": result.violated,
                          "trace": [dataclasses.asdict(s) for s in result.trace[-NAME_TRACE:]]}
                 ), own_run


def _behavior_grade(harness: Harness, variant: Variant, spec: SpecSource,
                    coverage: ReferenceCoverage | None, options: BehaviorOptions,
                    own_run: OwnModelRun | None = None) -> Grade:
    start = time.monotonic()
    if coverage is not None:
        own = coverage.check(variant)
        # a reference whose every check against itself passes but the fairness no run could
        # check is covered: its outputs' failures stand, and an `ok` meets the same rule
        if not own.passed and own.code is not Reason.LIVENESS_UNCHECKED:
            mismatch = own.code is Reason.REFERENCE_MISMATCH
            why = own.reason if mismatch else (f"the reference fails its own behavior check "
                                               f"({own.verdict}: {own.reason})")
            code = own.code if mismatch else Reason.REFERENCE_SELF_CHECK
            return Grade(BehaviorVerdict.NOT_COVERED, False, time.monotonic() - start, why,
                         {"covered": False, "reason_code": str(code),
                          "self_check_code": str(own.code)})
        if _is_the_reference(variant, spec):
            # the reference's own modules: the grade against it is the self-check, made once
            # per variant (the same modules against the same reference, its own names paired)
            return _as_grade(own, time.monotonic() - start, graded_as="self_check")
    result = grade_behavior(harness, reference_of(variant), dict(spec.files), spec.main, options,
                            own_run=own_run)
    return _as_grade(result, result.seconds)


def _is_the_reference(variant: Variant, spec: SpecSource) -> bool:
    """Whether the output is the reference's own modules as a reply brings them: its main
    module and every module it reads are the variant's, each as the extraction reads a module
    (from its header to its closing line, as SANY does; the variant's other modules, read by
    nothing the main module reads, change no behavior)."""
    if spec.main != variant.main_module:
        return False
    read = {name[:-4]: _as_extracted(text) for name, text in variant.modules.items()
            if name.endswith(".tla")}
    main = read.get(spec.main)
    if main is None:
        return False
    wanted = {spec.main: main, **own_modules(main, {m: t for m, t in read.items()
                                                    if m != spec.main})}
    return dict(spec.files) == {f"{m}.tla": t for m, t in wanted.items()}


def _as_extracted(text: str) -> str:
    """A module's text as the extraction takes it from a reply."""
    found = extract_module(f"```tla\n{text}\n```\n")
    return found.text if found.text is not None else text


def _as_grade(result: BehaviorResult, seconds: float, **extra: str) -> Grade:
    data = result.to_json()
    data.pop("verdict"), data.pop("passed"), data.pop("reason"), data.pop("seconds")
    data["covered"] = result.verdict is not BehaviorVerdict.NOT_COVERED
    return Grade(result.verdict, result.passed, seconds, result.reason, {**data, **extra})
