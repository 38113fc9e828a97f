"""The report's content: inputs with their provenance, and one :class:`Section` per table.

A section carries display rows (text cells for Markdown and HTML), raw ``records`` (numbers,
for CSV and ``stats.json``), ``notes`` and a ``footer``. :func:`guarded` turns a
:class:`StatsError` raised while computing a section into that section's note, so
degenerate input (one task, a missing condition, only infrastructure errors) still gives a
whole report. The renaming comparisons live in :mod:`reports.render_sections`.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from reports.bounds import behavior_bounds
from reports.probe_rows import ProbeInput
from reports.records import (
    StatsError,
    clock_limited,
    condition_order,
    load_records,
    require_rows,
)
from reports.results_file import read_lines
from reports.schema import GRADES
from reports.stats import LEVEL, MARGIN, condition_table, infra_counts, pass_at_k_rates

REPORT_SCHEMA = 3
"""``stats.json``'s version. 2: behavior rates carry their bounds and decided share (Table 1's
``COND_lower``/``COND_upper``/``COND_decided_share``, the differences' ``upper_*``,
``decided_share_a``/``_b`` and ``sign_differs``). 3: the failure taxonomy's sections
(``taxonomy_parse``, ``taxonomy_name``, ``taxonomy_behavior``: outputs per class;
``taxonomy_change``: each class's change between conditions; ``taxonomy_examples``)."""
GRADE_LABELS = {"parse": "parse", "name": "correct, name", "behavior": "correct, behavior",
                "behavior_upper": "correct, behavior (upper)"}
PROVENANCE_KEYS = (
    "model", "provider", "model_id", "git_commit", "git_dirty", "jar_sha256", "jar_version",
    "java_version", "prompt_template_sha256", "seeds", "params", "conditions", "samples",
    "grades", "tasks", "task_count", "tlc_timeout", "exposure_half", "exposure_group",
    "turns", "feedback_levels", "prices", "started",
)
"""Header fields copied into the report; ``started`` is the only volatile one."""
TABLE1_TITLE = "Table 1 — pass rates (percent)"
BOUNDS_FOOTER = (
    "Correct by behavior reads lower–upper: cases whose behavior verdict decides nothing "
    "(no_mapping, undecided) counted as failures, then as passes; one number when the bounds "
    "lie within 1 point (the lower). Decided share: the share of graded cases the behavior grade "
    "decided; upper − lower = 100 − decided share.")
INFRA_TITLE = "Infrastructure errors"
_CONSISTENT = ("git_commit", "jar_sha256", "prompt_template_sha256")


@dataclass(frozen=True)
class ExposurePair:
    """Two models of the exposure experiment: ``model_a`` trained on half A, ``model_b`` on B.

    ``tasks_a``/``tasks_b``: the halves, when the run headers list them (``exposure_tasks``);
    otherwise the halves come from :func:`reports.exposure.exposure_split` with the split seed.
    """

    model_a: str
    model_b: str
    label: str = ""
    tasks_a: tuple[str, ...] | None = None
    tasks_b: tuple[str, ...] | None = None

    @property
    def name(self) -> str:
        """The row label of this pair in Table 2."""
        return self.label or f"{self.model_a} / {self.model_b}"


@dataclass(frozen=True)
class Settings:
    """Everything that fixes the report's numbers besides the records."""

    seed: int
    n_boot: int
    split_seed: int
    exposure: tuple[ExposurePair, ...] = ()
    level: float = LEVEL
    margin: float = MARGIN


@dataclass(frozen=True)
class Section:
    """One table of the report (or, when it could not be computed, only its notes)."""

    key: str
    title: str
    columns: tuple[str, ...] = ()
    rows: tuple[tuple[str, ...], ...] = ()
    records: tuple[dict[str, Any], ...] = ()
    notes: tuple[str, ...] = ()
    footer: tuple[str, ...] = ()
    labels: int = 1
    """How many leading columns are labels (left-aligned); the rest are numbers."""

    def to_json(self) -> dict[str, Any]:
        """Title, raw rows, notes and footer, JSON-able."""
        return {"title": self.title, "rows": [clean(r) for r in self.records],
                "notes": list(self.notes), "footer": list(self.footer)}


@dataclass(frozen=True)
class InputFile:
    """One results file: its path, run headers (provenance fields only) and case count."""

    path: str
    headers: tuple[dict[str, Any], ...]
    cases: int


@dataclass(frozen=True)
class Report:
    """Everything the Markdown, CSV, JSON and HTML outputs are written from."""

    settings: Settings
    inputs: tuple[InputFile, ...]
    summary: dict[str, Any]
    sections: tuple[Section, ...]
    cases: tuple[dict[str, Any], ...] = field(repr=False)
    probes: tuple[ProbeInput, ...] = ()

    def section(self, key: str) -> Section:
        """The section named ``key``."""
        return next(s for s in self.sections if s.key == key)

    def find(self, key: str) -> Section | None:
        """The section named ``key``, or None when the report has none (the feedback track's
        sections exist only when some record has turns)."""
        return next((s for s in self.sections if s.key == key), None)

    def to_json(self) -> dict[str, Any]:
        """``stats.json``: settings, provenance, summary and every section."""
        s = self.settings
        data: dict[str, Any] = clean({
            "schema_version": REPORT_SCHEMA,
            "settings": {"seed": s.seed, "n_boot": s.n_boot, "split_seed": s.split_seed,
                         "level": s.level, "margin": s.margin,
                         "exposure": [asdict(p) for p in s.exposure]},
            "inputs": [{"path": i.path, "cases": i.cases, "headers": list(i.headers)}
                       for i in self.inputs],
            "probe_inputs": [asdict(p) for p in self.probes],
            "summary": self.summary,
            "sections": {sec.key: sec.to_json() for sec in self.sections},
        })
        return data


# -- formatting -------------------------------------------------------------------------------

def clean(value: Any) -> Any:
    """``value`` made JSON-safe: numpy scalars to Python, NaN to None, floats to 6 decimals."""
    if isinstance(value, Mapping):
        return {str(k): clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [clean(v) for v in value]
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        number = float(value)
        return round(number, 6) if math.isfinite(number) else None
    return value


def num(value: float | None, digits: int = 1) -> str:
    """A number for display; ``–`` when absent or NaN, a true minus sign when negative."""
    if value is None or not math.isfinite(value):
        return "–"
    text = f"{value:.{digits}f}"
    return "−" + text[1:] if text.startswith("-") and text.strip("-0.") else text.lstrip("-")


RANGE_WIDTH = 1.0
"""A behavior rate reads as a range ``lower–upper`` only when its bounds lie further apart."""


def bounded(lower: float, upper: float) -> str:
    """A behavior rate: ``lower–upper`` when the bounds are more than :data:`RANGE_WIDTH`
    points apart, else the lower bound alone."""
    if math.isfinite(lower) and math.isfinite(upper) and upper - lower > RANGE_WIDTH:
        return f"{num(lower)}–{num(upper)}"
    return num(lower)


def interval(low: float, high: float) -> str:
    """An interval as ``low to high``."""
    return f"{num(low)} to {num(high)}"


def p_value(p: float) -> str:
    """``p = 0.0123`` (four decimals), or ``p < 0.0001``."""
    return "p < 0.0001" if p < 0.0001 else f"p = {p:.4f}"


def grade_label(grade: str) -> str:
    """``correct, name`` etc., as in the study's Table 1."""
    return GRADE_LABELS.get(grade, grade)


def guarded(key: str, title: str, build: Callable[[], Section]) -> Section:
    """``build()``, or a section holding the :class:`StatsError` message as its note."""
    try:
        return build()
    except StatsError as exc:
        return Section(key, title, notes=(f"Not computed: {exc}",))


# -- inputs and provenance --------------------------------------------------------------------

def read_inputs(paths: Sequence[Path]) -> tuple[pd.DataFrame, tuple[InputFile, ...],
                                                tuple[dict[str, Any], ...]]:
    """The records frame, each file's headers, and the raw case records (file order).

    Raises :class:`StatsError` for a missing file or a malformed record (``file:line``).
    """
    if not paths:
        raise StatsError("no results files given")
    for path in paths:
        if not path.is_file():
            raise StatsError(f"{path}: no such results file")
    frame = load_records(paths)
    inputs, cases = [], []
    for path in paths:
        lines = [r for r in read_lines(path) if isinstance(r, dict)]
        headers = tuple({k: h[k] for k in PROVENANCE_KEYS if k in h}
                        for h in lines if h.get("kind") == "header")
        found = [r for r in lines if r.get("kind") == "case"]
        inputs.append(InputFile(os.fspath(path), headers, len(found)))
        cases.extend(found)
    return frame, tuple(inputs), tuple(cases)


def summary_of(frame: pd.DataFrame) -> dict[str, Any]:
    """Models, tasks, conditions and counts of cases, samples and infrastructure errors."""
    if frame.empty:
        return {"models": [], "tasks": [], "conditions": [], "cases": 0, "infra_errors": 0,
                "samples_min": 0, "samples_max": 0}
    per_group = frame.groupby(["model", "task", "condition"]).size()
    return {
        "models": sorted(str(m) for m in frame["model"].unique()),
        "tasks": sorted(str(t) for t in frame["task"].unique()),
        "conditions": condition_order(frame["condition"]),
        "cases": len(frame), "infra_errors": int(frame["infra"].sum()),
        "samples_min": int(per_group.min()), "samples_max": int(per_group.max()),
    }


def provenance_section(inputs: Sequence[InputFile]) -> Section:
    """One row per run header: model, commit, jar, Java, prompt hash, seeds."""
    rows, records, notes = [], [], []
    for item in inputs:
        name = Path(item.path).name
        if not item.headers:
            notes.append(f"{item.path}: no run header, so its provenance is unknown")
        for header in item.headers:
            commit = str(header.get("git_commit") or "unknown")[:12]
            if header.get("git_dirty"):
                commit += " (dirty)"
            rows.append((name, str(header.get("model", "?")), commit,
                         str(header.get("jar_sha256") or "unknown")[:12],
                         str(header.get("java_version") or "unknown"),
                         str(header.get("prompt_template_sha256") or "unknown"),
                         _compact(header.get("seeds")), str(header.get("started", ""))))
            records.append({"file": name, **header})
    for key in _CONSISTENT:
        values = {str(h.get(key)) for i in inputs for h in i.headers}
        if len(values) > 1:
            notes.append(f"the runs differ in {key} ({', '.join(sorted(values))}): their "
                         f"numbers come from different code, tools or prompts")
    return Section("provenance", "Provenance",
                   ("file", "model", "git commit", "jar sha256", "Java", "prompt hash",
                    "seeds", "started"), tuple(rows), tuple(records), tuple(notes), labels=8)


def _compact(value: Any) -> str:
    if isinstance(value, Mapping):
        return ", ".join(f"{k}={v}" for k, v in value.items()) or "–"
    return "–" if value is None else str(value)


# -- Table 1, infrastructure errors, pass@k ---------------------------------------------------

def table1_section(frame: pd.DataFrame) -> Section:
    """Table 1: per model and grade, the mean per-task pass rate under each condition; the
    behavior row as its bounds, followed by a row of its decided share."""
    table = condition_table(frame)
    conditions = [c for c in table.columns if c != "tasks"]
    names = condition_order(frame["condition"])  # the same order, not capitalized
    bounds = behavior_bounds(frame) if "behavior" in table.index.get_level_values("grade") \
        else None
    rows, records = [], []
    for (model, grade), values in table.iterrows():
        cells = [float(values[c]) for c in conditions]
        record = {"model": model, "grade": grade, **dict(zip(names, cells, strict=True))}
        shown = list(map(num, cells))
        extra: list[tuple[str, ...]] = []
        if grade == "behavior" and bounds is not None:
            measure = {m: [float(bounds.loc[(model, m), c]) for c in conditions]
                       for m in ("lower", "upper", "decided_share")}
            shown = [bounded(lo, hi) for lo, hi in zip(measure["lower"], measure["upper"],
                                                       strict=True)]
            for m, values_m in measure.items():
                record.update({f"{n}_{m}": v for n, v in zip(names, values_m, strict=True)})
            extra.append((f"{model} decided share, behavior",
                          *map(num, measure["decided_share"]), str(int(values["tasks"]))))
        rows += [(f"{model} {grade_label(str(grade))}", *shown, str(int(values["tasks"]))),
                 *extra]
        records.append({**record, "tasks": int(values["tasks"])})
    return Section("table1", TABLE1_TITLE,
                   ("", *conditions, "tasks"), tuple(rows), tuple(records),
                   tuple(table.attrs.get("notes", [])),
                   ("Mean over tasks of each task's share of passing samples (pass@1). Behavior "
                    "rows average only the tasks the behavior grade covers; infrastructure "
                    "errors count as failures.", BOUNDS_FOOTER))


def infra_section(frame: pd.DataFrame) -> Section:
    """Infrastructure errors per model and condition, and the most frequent messages."""
    counts = infra_counts(frame)
    order = {c: i for i, c in enumerate(condition_order(frame["condition"]))}
    counts = counts.sort_values(["model", "condition"],
                                key=lambda s: s.map(order) if s.name == "condition" else s)
    rows = tuple((str(r.model), str(r.condition), str(r.cases), str(r.infra),
                  num(float(r.infra_share)))
                 for r in counts.itertuples(index=False))
    records = tuple({"model": r.model, "condition": r.condition, "cases": r.cases,
                     "infra": r.infra, "infra_share": r.infra_share}
                    for r in counts.itertuples(index=False))
    messages = frame.loc[frame["infra"], "infra_error"].astype(str).value_counts()
    notes = [f"{int(n)} × {_clip(str(msg), 200)}" for msg, n in messages.head(5).items()]
    if len(messages) > 5:
        notes.append(f"… and {len(messages) - 5} other message(s)")
    left_out = clock_limited(frame)
    if left_out:
        notes.append(f"{len(left_out)} case(s) left out of every rate: a wall-clock limit "
                     f"ended a grade twice (a verdict of the machine's speed, not of the "
                     f"output): " + "; ".join(
                         f"{c['model']}/{c['task']}/{c['condition']}/{c['sample']}"
                         for c in left_out[:20]) + (" …" if len(left_out) > 20 else ""))
    return Section("infra", INFRA_TITLE,
                   ("model", "condition", "cases", "infra errors", "share %"), rows, records,
                   tuple(notes), ("Infrastructure errors stay in every denominator as "
                                  "failures; they are never passes. A case a wall-clock limit "
                                  "ended twice is in no rate and is listed here.",), labels=2)


def pass_at_k_section(frame: pd.DataFrame) -> Section:
    """Mean unbiased pass@k per model, grade and condition, k = the fewest samples of a task."""
    require_rows(frame)
    k = int(frame.groupby(["model", "task", "condition"]).size().min())
    if k < 2:
        raise StatsError("some task has a single sample, so pass@k is pass@1 (Table 1)")
    order = {c: i for i, c in enumerate(condition_order(frame["condition"]))}
    rows, records, notes = [], [], []
    for grade in GRADES:
        try:
            rates = pass_at_k_rates(frame, grade, k)
            upper = pass_at_k_rates(frame, grade, k, "upper") if grade == "behavior" else rates
        except StatsError as exc:
            notes.append(f"{grade}: {exc}")
            continue
        rates = rates.assign(pass1_upper=upper["rate"], passk_upper=upper["pass_at_k"],
                             decided=1.0 - rates["undecided"] / rates["samples"])
        means = rates.groupby(["model", "condition"]).agg(
            tasks=("task", "size"), pass1=("rate", "mean"), passk=("pass_at_k", "mean"),
            pass1_upper=("pass1_upper", "mean"), passk_upper=("passk_upper", "mean"),
            decided=("decided", "mean"))
        for (model, cond), r in sorted(means.iterrows(), key=lambda kv: (
                kv[0][0], order[kv[0][1]])):
            record = {"model": model, "grade": grade, "condition": cond, "k": k,
                      "tasks": int(r["tasks"]), "pass_at_1": 100 * r["pass1"],
                      "pass_at_k": 100 * r["passk"]}
            if grade == "behavior":
                record |= {"pass_at_1_upper": 100 * r["pass1_upper"],
                           "pass_at_k_upper": 100 * r["passk_upper"],
                           "decided_share": 100 * r["decided"]}
            rows.append((str(model), grade_label(grade), str(cond), str(int(r["tasks"])),
                         bounded(100 * r["pass1"], 100 * r["pass1_upper"]),
                         bounded(100 * r["passk"], 100 * r["passk_upper"]),
                         num(100 * r["decided"]) if grade == "behavior" else "–"))
            records.append(record)
    return Section("pass_at_k", f"pass@{k}",
                   ("model", "grade", "condition", "tasks", "pass@1 %", f"pass@{k} %",
                    "decided %"),
                   tuple(rows), tuple(records), tuple(notes),
                   (f"Unbiased pass@{k} per task (Chen et al., 2021), averaged over the tasks "
                    f"of each model and condition. Behavior reads lower–upper as in Table 1 "
                    f"(pass@{k}'s upper bound counts a case whose verdict decides nothing as "
                    f"a pass); decided %: the share of graded cases the behavior grade "
                    f"decided.",), labels=3)


def _clip(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
