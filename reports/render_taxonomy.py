"""The failure taxonomy's sections: outputs per class for each stage (a table per model, rows
by class, a column per condition), the change of each class's share between the original and
each renamed condition with its interval, and a few example cases per class. The classes and
how each is read from the records: :mod:`reports.taxonomy`, docs/failure-taxonomy.md."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from reports.records import StatsError, condition_order, require_rows
from reports.render_data import Section, Settings, interval, num
from reports.render_sections import ORIGINAL, bootstrap_footer, renamed_conditions
from reports.taxonomy import STAGES, class_changes, class_counts, class_of, examples, present

TAXONOMY_TITLE = "Failure taxonomy"
CHANGE_TITLE = f"{TAXONOMY_TITLE}: change between conditions"
EXAMPLES_TITLE = f"{TAXONOMY_TITLE}: example cases per class"
DOCS = "docs/failure-taxonomy.md"
EXAMPLES_PER_CLASS = 3
COUNTS_FOOTER = (
    "Each output is in exactly one class per stage, read from its record (verdicts, reason "
    "codes, the parse grade's failure_class, never a message's text); a model's classes add "
    "up to its outputs (its last row), and 'passed' is the grade's pass count. Share: of the "
    f"outputs of that model and condition. Every class and how it is derived: {DOCS}.")
CHANGE_FOOTER = (
    "Change = renamed − original, in points of the share of outputs in the class (mean over "
    "the tasks graded under both conditions of each task's share of samples): positive means "
    "more outputs land in the class after renaming. Classes no output of either condition is "
    "in are left out.")


def stage_title(stage: str) -> str:
    return f"{TAXONOMY_TITLE}: {stage} (outputs per class)"


def counts_section(frame: pd.DataFrame, stage: str) -> Section:
    """The outputs per class of ``stage``: per model its classes (those with an output), a
    column per condition (``count (share%)``), then its total."""
    key = f"taxonomy_{stage}"
    require_rows(frame)
    counts = class_counts(frame, stage)
    conditions = condition_order(frame["condition"])
    cells = {(r.model, r.condition, r.key): f"{r.count} ({num(float(r.share))}%)"
             for r in counts.itertuples(index=False)}
    totals = {(r.model, r.condition): int(r.total) for r in counts.itertuples(index=False)}
    rows: list[tuple[str, ...]] = []
    for model, part in frame.groupby("model", sort=True):
        for cls in present(part, stage):
            rows.append((str(model), cls.label, *(
                cells.get((model, c, cls.key), "0 (0.0%)") if (model, c) in totals else "–"
                for c in conditions)))
        rows.append((str(model), "all outputs",
                     *(str(totals.get((model, c), "–")) for c in conditions)))
    records = tuple({"model": r.model, "stage": stage, "class": r.key, "condition": r.condition,
                     "count": int(r.count), "total": int(r.total), "share": float(r.share)}
                    for r in counts.itertuples(index=False))
    return Section(key, stage_title(stage), ("model", "class", *conditions), tuple(rows),
                   records, (), (COUNTS_FOOTER,), labels=2)


def change_section(frame: pd.DataFrame, settings: Settings) -> Section:
    """Per renamed condition, model, stage and class: the class's share under the original
    and the renamed condition and the change, with its bootstrap interval over tasks."""
    key, title = "taxonomy_change", CHANGE_TITLE
    require_rows(frame)
    rows: list[tuple[str, ...]] = []
    records: list[dict[str, Any]] = []
    notes: list[str] = []
    for cond in renamed_conditions(frame):
        for stage in STAGES:
            try:
                changes = class_changes(frame, stage, ORIGINAL, cond, n_boot=settings.n_boot,
                                        seed=settings.seed, level=settings.level)
            except StatsError as exc:
                notes.append(f"{stage}, {ORIGINAL} → {cond}: {exc}")
                continue
            for c in changes:
                rows.append((c.model, stage, class_of(stage, c.cls).label,
                             f"{ORIGINAL} → {cond}", str(c.n_tasks), num(c.mean_a),
                             num(c.mean_b), num(c.change), interval(c.ci_low, c.ci_high)))
                records.append({"model": c.model, "stage": stage, "class": c.cls,
                                "cond_a": c.cond_a, "cond_b": c.cond_b, "n_tasks": c.n_tasks,
                                "share_a": c.mean_a, "share_b": c.mean_b, "change": c.change,
                                "ci_low": c.ci_low, "ci_high": c.ci_high,
                                "level": settings.level, "n_boot": settings.n_boot,
                                "seed": settings.seed})
    rows.sort(key=lambda r: (r[0], r[3], STAGES.index(r[1])))
    records.sort(key=lambda r: (r["model"], r["cond_b"], STAGES.index(r["stage"])))
    return Section(key, title,
                   ("model", "stage", "class", "comparison", "tasks", "original %",
                    "renamed %", "change (points)", f"{settings.level:.0%} CI"),
                   tuple(rows), tuple(records), tuple(dict.fromkeys(notes)),
                   (CHANGE_FOOTER, bootstrap_footer(settings)), labels=4)


def examples_section(frame: pd.DataFrame) -> Section:
    """Up to :data:`EXAMPLES_PER_CLASS` cases of every class but ``passed`` some output is in,
    per stage, from different tasks first, each with what shows its class."""
    require_rows(frame)
    rows: list[tuple[str, ...]] = []
    records: list[dict[str, Any]] = []
    for stage in STAGES:
        for cls in present(frame, stage):
            if cls.key == "passed":
                continue
            for r in examples(frame, stage, cls.key, EXAMPLES_PER_CLASS).itertuples(index=False):
                evidence = str(getattr(r, f"{stage}_evidence"))
                rows.append((stage, cls.label, str(r.model), str(r.id), evidence))
                records.append({"stage": stage, "class": cls.key, "model": r.model,
                                "task": r.task, "condition": r.condition, "sample": r.sample,
                                "id": r.id, "evidence": evidence})
    return Section("taxonomy_examples", EXAMPLES_TITLE,
                   ("stage", "class", "model", "case", "what shows it"), tuple(rows),
                   tuple(records), (),
                   ("A few cases of each class but 'passed' (different tasks first); in the "
                    "HTML page each case links to its task in the per-task drill-down.",),
                   labels=5)


def stage_counts(records: Sequence[Mapping[str, Any]]) -> dict[tuple[str, str], dict[str, int]]:
    """A stage section's records as (model, condition) -> class -> count."""
    out: dict[tuple[str, str], dict[str, int]] = {}
    for r in records:
        out.setdefault((str(r["model"]), str(r["condition"])), {})[str(r["class"])] = \
            int(r["count"])
    return out
