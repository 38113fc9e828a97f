"""The failure taxonomy: every case in exactly one class per stage (parse, name, behavior).

A class is read from what a case record holds, never from a message's text: the grades'
verdicts and ``passed``, the parse grade's ``failure_class`` (given at grade time from the
output's own tree-sitter parse and name resolution: `alias_fixtures.grading.parse_failures`),
the name grade's ``missing_names``, ``missing_hidden`` and ``vacuous``, the behavior grade's
``mapping_basis`` and ``reason_code`` (:class:`tlc_harness.behavior.verdicts.Reason`), the
case's ``infra_error``, ``cheats`` and ``hidden_names``. Each stage's classes are a closed set
(:data:`CLASSES`, in the order tables and bars show them); a record that lacks the field that
would place it is ``unclassified``, never guessed. A case counts as ``passed`` exactly when
Table 1 counts it as passing that grade, so per model and condition the classes of a stage add
up to the cases and ``passed`` is the grade's pass count. docs/failure-taxonomy.md says how each
class is derived.

:func:`taxonomy_frame` reads results files into one row per case (its model as the other
tables name it: an arm of the feedback track as ``MODEL [feedback LEVELS]``) with its class and
evidence per stage; :func:`class_counts` and :func:`class_changes` compute the tables.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from reports.records import (
    StatsError,
    arm_label,
    condition_order,
    file_rows,
    read_cases,
    require_rows,
)
from reports.stats import bootstrap_means, percentile_interval
from tlc_harness.behavior.verdicts import BehaviorVerdict, Reason

STAGES = ("parse", "name", "behavior")
"""The stages, one per grade, in the order of the grades."""


@dataclass(frozen=True)
class Class:
    """One class of a stage: its key (in records, CSV and JSON), a label, how it is derived,
    and its colour in the stacked bars."""

    key: str
    label: str
    meaning: str
    color: str


_INFRA = Class("infra", "infrastructure error",
               "the case's `infra_error` is set: the harness failed, not the model", "#f2c12e")
_CHEAT = Class("cheat", "cheat", "a cheat rule fired on the output (`cheats`): never a pass",
               "#7f0000")
_UNCLASSIFIED = Class("unclassified", "unclassified",
                      "the record lacks the field that would place it (written before the "
                      "field existed), or holds a verdict outside the closed set", "#e2e2e2")
_NOT_RUN = Class("not_run", "not run", "the grade is absent or was not requested (`not_run`)",
                 "#c7c7c7")
_NOT_PARSED = Class("not_parsed", "output did not parse",
                    "the parse grade failed, so this grade was not run", "#a5a5a5")
_PASSED = Class("passed", "passed", "the grade passed (as Table 1 counts it)", "#55a868")

CLASSES: Mapping[str, tuple[Class, ...]] = {
    "parse": (
        _PASSED,
        Class("no_module", "no module", "verdict `no_module`, `empty` or `too_large`: no TLA+ "
              "module to parse in the reply", "#8c564b"),
        Class("forbidden_import", "imports the reference",
              "verdict `forbidden_import`: the output EXTENDS or INSTANCEs a reference module",
              "#e377c2"),
        Class("pluscal_or_python", "PlusCal or Python as TLA+",
              "`failure_class`: an `:=` assignment, or PlusCal or Python statement words where "
              "tree-sitter cannot parse TLA+", "#9467bd"),
        Class("syntax", "syntax", "`failure_class`: a region tree-sitter cannot parse",
              "#d62728"),
        Class("unknown_module", "module that does not exist",
              "`failure_class`: EXTENDS or INSTANCE names a module that is no standard, "
              "library or own module", "#ff7f0e"),
        Class("std_module_not_extended", "standard module not extended",
              "`failure_class`: a name or symbol of a standard module (`Cardinality`, `Nat`, "
              "`+`) used without importing it", "#bcbd22"),
        Class("unknown_operator", "operator that does not exist",
              "`failure_class`: a name nothing defines, or used before its definition ends",
              "#17becf"),
        Class("other", "other semantic error",
              "`failure_class` `other`: SANY rejects what the project's reading finds no "
              "cause for (arity, level, a name defined twice)", "#7f7f7f"),
        _UNCLASSIFIED, _NOT_RUN, _CHEAT, _INFRA,
    ),
    "name": (
        _PASSED,
        Class("missing_hidden", "missing hidden name",
              "`config_bind_fail` whose `missing_names` are all hidden names (never stated by "
              "the description)", "#4c72b0"),
        Class("missing_stated", "missing stated name",
              "`config_bind_fail` with a missing name the description states", "#dd8452"),
        Class("bind_error", "other bind error",
              "`config_bind_fail` with no missing name (TLC's other configuration codes)",
              "#8172b3"),
        Class("assumption", "assumption fails", "`assumption_failed`", "#937860"),
        Class("invariant", "invariant violated", "`invariant_violated`", "#c44e52"),
        Class("property", "property violated", "`property_violated`", "#da8bc3"),
        Class("deadlock", "deadlock", "`deadlock`", "#64b5cd"),
        Class("eval_error", "evaluation error", "`eval_error`", "#ccb974"),
        Class("vacuous", "no initial state", "`ok` but `vacuous`: TLC found no initial state",
              "#9edae5"),
        Class("limit", "time or memory limit", "`timeout` or `resource_limit`", "#ffbb78"),
        _NOT_PARSED, _UNCLASSIFIED, _NOT_RUN, _CHEAT, _INFRA,
    ),
    "behavior": (
        _PASSED,
        Class("forward_any_mapping", "forward fail, any mapping",
              "`forward_fail` with `mapping_basis` `any_mapping`", "#c44e52"),
        Class("forward_named", "forward fail, named class",
              "`forward_fail` with `mapping_basis` `named_bijections` or `named_functions`",
              "#ff9896"),
        Class("forward_natural", "forward fail, natural mappings",
              "`forward_fail` with `mapping_basis` `named_renamings`: under every renaming of "
              "each sort's atoms, not every mapping", "#f4b6a6"),
        Class("forward_own_run", "forward fail, own run",
              "`forward_fail` with `mapping_basis` `own_run`", "#8c564b"),
        Class("reverse_any_mapping", "reverse fail, any mapping",
              "`reverse_fail` with `mapping_basis` `any_mapping`", "#4c72b0"),
        Class("reverse_named", "reverse fail, named class",
              "`reverse_fail` with `mapping_basis` `named_bijections` or `named_functions`",
              "#aec7e8"),
        Class("reverse_natural", "reverse fail, natural mappings",
              "`reverse_fail` with `mapping_basis` `named_renamings`: under every renaming of "
              "each sort's atoms, not every mapping", "#c6dbef"),
        Class("undecided_no_mapping", "undecided: no mapping fits",
              "`no_mapping` or `undecided` for want of a mapping (reason codes below)",
              "#9467bd"),
        Class("undecided_class_incomplete", "undecided: mapping class incomplete",
              "`mapping_class_incomplete`: a failure under mappings whose class is not shown "
              "to hold every mapping", "#c5b0d5"),
        Class("undecided_constants", "undecided: constants",
              "the output's constants: no value to take, or values the reference does not fix",
              "#e7ba52"),
        Class("undecided_budget", "undecided: budget or limit",
              "a state, time, search or memory budget, an infinite set, the own run's limit",
              "#ff7f0e"),
        Class("undecided_unchecked", "undecided: unbacked verdict",
              "a verdict whose backing no run could check (subscript, liveness, witness, "
              "facts, a CONSTRAINT's cut, a cfg override)", "#ffbb78"),
        Class("undecided_tool", "undecided: tool could not run it",
              "the tools could not read, stage or run the output or the grader's wrapper",
              "#e377c2"),
        Class("not_covered", "reference not covered",
              "`not_covered`: the reference cannot be graded against (in no behavior rate)",
              "#7f7f7f"),
        _NOT_PARSED, _UNCLASSIFIED, _NOT_RUN, _CHEAT, _INFRA,
    ),
}
"""Each stage's closed set of classes, in display order."""

_PARSE_FAILURES = frozenset({"pluscal_or_python", "syntax", "unknown_module",
                             "std_module_not_extended", "unknown_operator", "other"})
_NO_MODULE = frozenset({"no_module", "empty", "too_large"})
_NAME_VERDICTS = {"assumption_failed": "assumption", "invariant_violated": "invariant",
                  "property_violated": "property", "deadlock": "deadlock",
                  "eval_error": "eval_error", "timeout": "limit", "resource_limit": "limit",
                  "infra_error": "infra"}
_BASES = {"any_mapping": "any_mapping", "named_bijections": "named",
          "named_functions": "named", "named_renamings": "natural", "own_run": "own_run"}
_R = Reason
UNDECIDED_CAUSES: Mapping[Reason, str] = {
    **dict.fromkeys((_R.NO_CANDIDATE, _R.SHAPE_MISMATCH, _R.NO_ENTRY_POINTS,
                     _R.MAPPINGS_EVAL_ERROR, _R.SPEC_UNREAD), "undecided_no_mapping"),
    _R.MAPPING_CLASS_INCOMPLETE: "undecided_class_incomplete",
    **dict.fromkeys((_R.CONSTANTS_UNPAIRED, _R.CONSTANT_UNJUSTIFIED, _R.PAIRING_AMBIGUOUS,
                     _R.ASSUME_REJECTS, _R.GRADER_ELEMENTS, _R.VALUES_DISAGREE,
                     _R.VALUE_BY_TRYING, _R.VALUE_GUESSED, _R.SYMBOL_UNCHECKED),
                    "undecided_constants"),
    **dict.fromkeys((_R.STATE_BUDGET, _R.INFINITE_SET, _R.TIME_BUDGET, _R.OUTPUT_BUDGET,
                     _R.RESOURCE_LIMIT, _R.SEARCH_BUDGET, _R.OWN_RUN_LIMIT),
                    "undecided_budget"),
    **dict.fromkeys((_R.SUBSCRIPT_INCOMPLETE, _R.OBSERVABLE_RECOMPUTED, _R.LIVENESS_UNCHECKED,
                     _R.WITNESS_NOT_REPLAYED, _R.FACTS_MISSING, _R.CONSTRAINT_CUT,
                     _R.OVERRIDE_NOT_CARRIED), "undecided_unchecked"),
    **dict.fromkeys((_R.INFRA_ERROR, _R.TLC_ERROR_WRAPPER, _R.UNREADABLE_OUTPUT,
                     _R.UNSTAGEABLE_OUTPUT), "undecided_tool"),
}
"""The class of each reason code of ``no_mapping`` and ``undecided`` (every one has one)."""
_CAUSES = {str(code): key for code, key in UNDECIDED_CAUSES.items()}


@dataclass(frozen=True)
class Placed:
    """A case's class in one stage and what shows it (a name, a code, a place)."""

    key: str
    evidence: str = ""


def classify(record: Mapping[str, Any], *, infra: bool, cheat: bool) -> dict[str, Placed]:
    """The class of a (validated) case record in each stage; ``infra`` and ``cheat`` as the
    records frame reads them (:func:`reports.records.case_row`)."""
    if infra:
        text = " ".join(str(record.get("infra_error")).split())[:120]
        return dict.fromkeys(STAGES, Placed("infra", text))
    if cheat:
        rules = ", ".join(str(c.get("rule")) for c in record.get("cheats") or ())
        return dict.fromkeys(STAGES, Placed("cheat", rules))
    grades = record.get("grades") or {}
    parse, name, behavior = (g if isinstance(g := grades.get(s), Mapping) else None
                             for s in STAGES)
    placed = {"parse": _parse(parse)}
    if parse is not None and parse.get("passed") is not True:
        why = Placed("not_parsed", f"parse: {placed['parse'].key}")
        return {**placed, "name": why, "behavior": why}
    hidden = {str(n) for n in record.get("hidden_names") or ()}
    return {**placed, "name": _name(name, hidden), "behavior": _behavior(behavior)}


def _parse(grade: Mapping[str, Any] | None) -> Placed:
    if grade is None or grade.get("verdict") == "not_run":
        return Placed("not_run", "no parse grade" if grade is None else "not_run")
    verdict = str(grade.get("verdict"))
    if grade.get("passed") is True:
        return Placed("passed")
    if verdict in _NO_MODULE:
        return Placed("no_module", verdict)
    if verdict == "forbidden_import":
        return Placed("forbidden_import", str(grade.get("reason") or verdict))
    kind = grade.get("failure_class")
    if verdict == "parse_error" and kind in _PARSE_FAILURES:
        return Placed(str(kind), str(grade.get("failure_evidence") or f"{verdict}: {kind}"))
    return Placed("unclassified", f"{verdict}, no failure_class recorded"
                  if verdict == "parse_error" else verdict)


def _name(grade: Mapping[str, Any] | None, hidden: set[str]) -> Placed:
    if grade is None or grade.get("verdict") == "not_run":
        return Placed("not_run", "no name grade" if grade is None else "not_run")
    verdict = str(grade.get("verdict"))
    if grade.get("passed") is True:
        return Placed("passed")
    if verdict == "ok":
        return Placed("vacuous", "ok, vacuous") if grade.get("vacuous") is True else Placed(
            "unclassified", "ok, not passed, not vacuous")
    if verdict in _NAME_VERDICTS:
        return Placed(_NAME_VERDICTS[verdict], str(grade.get("violated") or verdict))
    missing = grade.get("missing_names")
    if verdict != "config_bind_fail":
        return Placed("unclassified", verdict)
    if not isinstance(missing, list):
        return Placed("unclassified", f"{verdict}, no missing_names recorded")
    if not missing:
        return Placed("bind_error", verdict)
    hidden |= {str(n) for n in grade.get("missing_hidden") or ()}
    shown = ", ".join(f"{n} (hidden)" if n in hidden else str(n) for n in missing[:6])
    return Placed("missing_hidden" if set(map(str, missing)) <= hidden else "missing_stated",
                  shown)


def _behavior(grade: Mapping[str, Any] | None) -> Placed:
    if grade is None or grade.get("verdict") == "not_run":
        return Placed("not_run", "no behavior grade" if grade is None else "not_run")
    verdict, code = str(grade.get("verdict")), grade.get("reason_code")
    if grade.get("passed") is True:
        return Placed("passed")
    if verdict == BehaviorVerdict.NOT_COVERED:
        return Placed("not_covered", str(code or verdict))
    basis = str(grade.get("mapping_basis") or "")
    evidence = ", ".join(str(x) for x in (code, basis) if x)
    if verdict in (BehaviorVerdict.FORWARD_FAIL, BehaviorVerdict.REVERSE_FAIL):
        direction = "forward" if verdict == BehaviorVerdict.FORWARD_FAIL else "reverse"
        key = f"{direction}_{_BASES.get(basis, '')}"
        known = {c.key for c in CLASSES["behavior"]}
        return Placed(key, evidence) if key in known else Placed(
            "unclassified", f"{verdict} without a mapping basis")
    cause = _CAUSES.get(str(code))
    if verdict in (BehaviorVerdict.NO_MAPPING, BehaviorVerdict.UNDECIDED) and cause:
        return Placed(cause, evidence)
    return Placed("unclassified", evidence or verdict)


# -- the taxonomy of results files ------------------------------------------------------------

KEY_COLUMNS = ("model", "task", "condition", "sample", "id")


def taxonomy_frame(paths: Iterable[str]) -> pd.DataFrame:
    """One row per case of the results files: :data:`KEY_COLUMNS`, then ``STAGE_class`` and
    ``STAGE_evidence`` for each stage. Raises :class:`StatsError` on a malformed record."""
    rows: list[dict[str, Any]] = []
    for _, record, row in read_cases(file_rows(list(paths))):
        placed = classify(record, infra=row["infra"], cheat=row["cheat"])
        rows.append({
            "model": arm_label(str(row["model"]), str(row["feedback"])), "task": row["task"],
            "condition": row["condition"], "sample": row["sample"],
            "id": str(record.get("id") or f"{row['task']}/{row['condition']}/s{row['sample']}"),
            **{f"{s}_class": placed[s].key for s in STAGES},
            **{f"{s}_evidence": placed[s].evidence for s in STAGES}})
    columns = [*KEY_COLUMNS, *(f"{s}_{x}" for s in STAGES for x in ("class", "evidence"))]
    return pd.DataFrame(rows, columns=columns)


def class_counts(frame: pd.DataFrame, stage: str) -> pd.DataFrame:
    """Per model, condition and class (``key``) of ``stage`` with some case: ``count``,
    ``total`` (the cases of that model and condition) and ``share`` (percent), classes in
    display order."""
    require_rows(frame)
    column = f"{stage}_class"
    order = {c.key: i for i, c in enumerate(CLASSES[stage])}
    conditions = {c: i for i, c in enumerate(condition_order(frame["condition"]))}
    counts = frame.groupby(["model", "condition", column]).size().rename("count").reset_index()
    totals = frame.groupby(["model", "condition"]).size().rename("total").reset_index()
    out = counts.merge(totals, on=["model", "condition"]).rename(columns={column: "key"})
    out["share"] = 100.0 * out["count"] / out["total"]
    out = out.sort_values(["model", "condition", "key"], key=lambda s: s.map(
        conditions if s.name == "condition" else order if s.name == "key" else str))
    return out.reset_index(drop=True)


@dataclass(frozen=True)
class ClassChange:
    """The share of a class under two conditions (mean over tasks of each task's share of
    samples, percent) and ``change`` = ``mean_b`` − ``mean_a`` in points, with its bootstrap
    interval over tasks."""

    model: str
    stage: str
    cls: str
    cond_a: str
    cond_b: str
    n_tasks: int
    mean_a: float
    mean_b: float
    change: float
    ci_low: float
    ci_high: float


def class_changes(frame: pd.DataFrame, stage: str, cond_a: str, cond_b: str, *, n_boot: int,
                  seed: int, level: float) -> list[ClassChange]:
    """Per model, each class of ``stage`` some case of either condition is in: its share under
    ``cond_a`` and ``cond_b`` over the tasks graded under both, and the change with its
    ``level`` percentile bootstrap interval (tasks resampled, every class of one model with the
    same resamples, ``seed``). Raises :class:`StatsError` when no model has two such tasks."""
    column = f"{stage}_class"
    out: list[ClassChange] = []
    for model, part in frame[frame["condition"].isin((cond_a, cond_b))].groupby("model"):
        conditions = part.groupby("task")["condition"].agg(set)
        both = sorted(t for t, seen in conditions.items() if {cond_a, cond_b} <= seen)
        if len(both) < 2:
            continue
        shares = pd.crosstab([part["task"], part["condition"]], part[column], normalize="index")
        classes = [c.key for c in CLASSES[stage] if c.key in shares.columns]
        a, b = (shares.xs(cond, level="condition").loc[both, classes].to_numpy(dtype=np.float64)
                for cond in (cond_a, cond_b))
        diff = 100.0 * (b - a)
        boot = bootstrap_means(diff, n_boot=n_boot, seed=seed)
        for j, key in enumerate(classes):
            low, high = percentile_interval(boot[:, j], diff[:, j], level)
            out.append(ClassChange(str(model), stage, key, cond_a, cond_b, len(both),
                                   100.0 * float(a[:, j].mean()), 100.0 * float(b[:, j].mean()),
                                   float(diff[:, j].mean()), low, high))
    if not out:
        raise StatsError(f"no model has two tasks graded under both {cond_a!r} and {cond_b!r}")
    return out


def class_of(stage: str, key: str) -> Class:
    """The class ``key`` of ``stage``."""
    return next(c for c in CLASSES[stage] if c.key == key)


def examples(frame: pd.DataFrame, stage: str, key: str, limit: int = 3) -> pd.DataFrame:
    """Up to ``limit`` cases of class ``key`` in ``stage``, from different tasks first (then
    by model, condition and sample)."""
    rows = frame[frame[f"{stage}_class"] == key].sort_values(
        ["task", "model", "condition", "sample"])
    first = rows.drop_duplicates("task")
    return pd.concat([first, rows.drop(first.index)]).head(limit)


def present(frame: pd.DataFrame, stage: str) -> Sequence[Class]:
    """The classes of ``stage`` some case is in, in display order."""
    found = set(frame[f"{stage}_class"])
    return [c for c in CLASSES[stage] if c.key in found]
