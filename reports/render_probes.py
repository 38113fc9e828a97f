"""Report sections of the memorization probes (``probes.md``, one CSV per section).

- text similarity (ROUGE-L, BLEU) per model and condition, from the case records and from
  ``similarity`` probe rows;
- likelihood: condition means and the paired difference original − renamed, with the exposure
  effect and DiD when two models are marked as trained on halves A and B;
- file continuation: the longest verbatim runs per task, and their Spearman correlation with
  each task's renaming decrease from the case records of the same model;
- model-proposed names: how many proposed names each task's map kept, and its verification.

A section without input holds one line saying how to produce it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from reports.continuation_stats import continuation_correlation, renaming_decrease
from reports.likelihood_stats import (
    MEASURES,
    condition_means,
    exposure_effects,
    models_of,
    paired_difference,
)
from reports.records import StatsError, condition_order
from reports.render_data import ExposurePair, Section, Settings, num
from reports.render_sections import ORIGINAL, flat_record, pair_split

Row = Mapping[str, Any]
SIMILARITY_TITLE = "Text similarity (ROUGE-L, BLEU)"
LIKELIHOOD_TITLE = "Likelihood of the reference (nats per token)"
LIKELIHOOD_EXPOSURE_TITLE = "Likelihood — exposure experiment"
CONTINUATION_TITLE = "File continuation (longest verbatim run, in tokens)"
CORRELATION_TITLE = "Continuation runs and the renaming decrease (Spearman)"
NAMES_TITLE = "Model-proposed names (maps of the meaningful condition)"
SIMILARITY_HELP = (
    "No similarity values: install the `probes` extra before the benchmark run (every case "
    "record then carries them), or run `alias-bench probe similarity RESULTS.jsonl --out "
    "similarity.jsonl` and add `--probe similarity.jsonl`.")
LIKELIHOOD_HELP = (
    "No likelihood rows: run `alias-bench probe likelihood --model-dir DIR --out "
    "likelihood.jsonl` and add `--probe likelihood.jsonl` to `alias-bench report`.")
LIKELIHOOD_EXPOSURE_HELP = (
    "No exposure pair among the likelihood rows' models: score the models trained on halves A "
    "and B and mark them with `alias-bench report … --exposure A=MODEL,B=MODEL` (the names "
    "in the likelihood rows, `--model-name`) to get the exposure effect and DiD.")
CONTINUATION_HELP = (
    "No continuation rows: run `alias-bench probe continuation --model SPEC --out "
    "continuation.jsonl` (or `pytest benchmarks/test_text_probes.py`) and add `--probe "
    "continuation.jsonl`.")
NAMES_HELP = (
    "No proposed-name rows: run `alias-bench probe propose-names --model SPEC --out maps/ "
    "--rows names.jsonl` (or `pytest benchmarks/test_text_probes.py`) and add `--probe names.jsonl`.")
MEASURE_LABELS = {"mean_logprob": "all reference tokens",
                  "mean_outside": "outside renamed names"}


def _ci(low: float, high: float, digits: int) -> str:
    return f"{num(low, digits)} to {num(high, digits)}"


def _bootstrap(settings: Settings) -> str:
    return (f"Intervals: {settings.level:.0%} percentile bootstrap over tasks, "
            f"{settings.n_boot:,} resamples, seed {settings.seed}.")


# -- text similarity --------------------------------------------------------------------------

def _has_similarity(rows: Sequence[Row]) -> bool:
    return any(isinstance(r.get("similarity"), Mapping) for r in rows)


def similarity_section(cases: Sequence[Row], probe_rows: Sequence[Row]) -> Section:
    """Mean ROUGE-L F1 and BLEU per source, model and condition."""
    rows: list[tuple[str, ...]] = []
    records: list[dict[str, Any]] = []
    for source, items in (("cases", cases), ("probe", probe_rows)):
        if not _has_similarity(items):
            continue
        from reports.similarity import similarity_table

        for r in similarity_table(items).to_dict("records"):
            rows.append((source, str(r["model"]), str(r["condition"]), str(r["tasks"]),
                         str(r["cases"]), str(r["missing"]), num(r["rouge_l"], 3),
                         num(r["bleu"], 3)))
            records.append({"source": source, **r})
    if not rows:
        return Section("similarity", SIMILARITY_TITLE, notes=(SIMILARITY_HELP,))
    return Section(
        "similarity", SIMILARITY_TITLE,
        ("source", "model", "condition", "tasks", "samples", "without a module", "ROUGE-L",
         "BLEU"), tuple(rows), tuple(records), (),
        ("Each output's module against the reference of its own condition (the renamed one "
         "for a renamed condition), over TLA+ tokens without comments; 1 means identical. "
         "Samples of a task are averaged first, then tasks. A model that reproduces a "
         "memorised specification scores high under original and lower under renaming.",
         "Source: `cases` are the benchmark's case records, `probe` the rows of similarity "
         "probe files."), labels=3)


# -- likelihood -------------------------------------------------------------------------------

def likelihood_section(rows: Sequence[Row], settings: Settings) -> Section:
    """Per model and measure: condition means and original − renamed with its interval."""
    if not rows:
        return Section("likelihood", LIKELIHOOD_TITLE, notes=(LIKELIHOOD_HELP,))
    cells: list[tuple[str, ...]] = []
    records: list[dict[str, Any]] = []
    notes: list[str] = []
    for model in models_of(rows):
        mine = [r for r in rows if r["model"] == model]
        failed = [r for r in mine if r.get("error")]
        if failed:
            notes.append(f"{model}: {len(failed)} row(s) not scored, e.g. "
                         f"{failed[0]['task']}: {failed[0]['error']}")
        conditions = condition_order(str(r["condition"]) for r in mine)
        renamed = [c for c in conditions if c != ORIGINAL]
        if ORIGINAL not in conditions or not renamed:
            notes.append(f"{model}: the rows need the {ORIGINAL!r} condition and a renamed one")
            continue
        for measure in MEASURES:
            means = {m.condition: m for m in condition_means(mine, measure)}
            for cond in renamed:
                label = f"{model}, {measure}, {ORIGINAL} − {cond}"
                try:
                    d = paired_difference(mine, model, ORIGINAL, cond, measure=measure,
                                          n_boot=settings.n_boot, seed=settings.seed,
                                          level=settings.level)
                except StatsError as exc:
                    notes.append(f"{label}: {exc}")
                    continue
                notes.extend(f"{label}: {n}" for n in d.notes)
                a, b = means[ORIGINAL], means[cond]
                cells.append((model, MEASURE_LABELS[measure], f"{ORIGINAL} − {cond}",
                              f"{num(a.mean, 4)} ({a.n_tasks})", f"{num(b.mean, 4)} ({b.n_tasks})",
                              str(d.n_tasks), num(d.mean, 4), _ci(d.ci_low, d.ci_high, 4)))
                records.append({"model": model, "measure": measure, "original": ORIGINAL,
                                "renamed": cond, "original_mean": a.mean,
                                "original_tasks": a.n_tasks, "renamed_mean": b.mean,
                                "renamed_tasks": b.n_tasks, "paired_tasks": d.n_tasks,
                                "difference": d.mean, "ci_low": d.ci_low, "ci_high": d.ci_high,
                                "level": d.level, "n_boot": d.n_boot, "seed": d.seed})
    return Section(
        "likelihood", LIKELIHOOD_TITLE,
        ("model", "tokens", "comparison", "original (tasks)", "renamed (tasks)", "paired tasks",
         "difference", "95% CI"), tuple(cells), tuple(records), tuple(dict.fromkeys(notes)),
        ("Mean log-probability per reference token given the description, over each "
         "condition's tasks; the difference is paired over tasks scored under both. Positive: "
         "the model finds the published text more likely than its renamed copy, a sign it "
         "has seen it. `outside renamed names` leaves out the tokens of renamed identifiers, "
         "so it compares the same structural text.", _bootstrap(settings)), labels=3)


def likelihood_exposure_section(rows: Sequence[Row], pairs: Sequence[ExposurePair],
                                pair_notes: Sequence[str], settings: Settings) -> Section:
    """Exposure effect, DiD and unseen cost of the likelihood for each marked pair."""
    key, title = "likelihood_exposure", LIKELIHOOD_EXPOSURE_TITLE
    if not rows:
        return Section(key, title, notes=(LIKELIHOOD_HELP,))
    models = set(models_of(rows))
    usable = [p for p in pairs if {p.model_a, p.model_b} <= models]
    notes = [f"{p.name}: no likelihood rows for "
             f"{', '.join(m for m in (p.model_a, p.model_b) if m not in models)}"
             for p in pairs if p not in usable]
    if not usable:
        return Section(key, title, notes=(LIKELIHOOD_EXPOSURE_HELP, *pair_notes, *notes))
    cells: list[tuple[str, ...]] = []
    records: list[dict[str, Any]] = []
    for pair in usable:
        mine = [r for r in rows if r["model"] in (pair.model_a, pair.model_b)]
        split, how = pair_split(pair, (r["task"] for r in mine), settings.split_seed)
        notes.append(f"{pair.name}: {how}")
        renamed = [c for c in condition_order(str(r["condition"]) for r in mine) if c != ORIGINAL]
        for measure in MEASURES:
            for cond in renamed:
                try:
                    x = exposure_effects(mine, pair.model_a, pair.model_b, split, measure=measure,
                                         original=ORIGINAL, renamed=cond, n_boot=settings.n_boot,
                                         seed=settings.seed, level=settings.level,
                                         split_seed=settings.split_seed)
                except StatsError as exc:
                    notes.append(f"{pair.name}, {measure}, {ORIGINAL} − {cond}: {exc}")
                    continue
                notes.extend(f"{pair.name}, {measure}: {n}" for n in x.notes)
                cells.append((pair.name, MEASURE_LABELS[measure], f"{ORIGINAL} − {cond}",
                              f"{x.n_tasks_a} + {x.n_tasks_b}",
                              *(f"{num(e.mean, 4)} ({_ci(e.low, e.high, 4)})"
                                for e in (x.exposure, x.did, x.unseen_cost))))
                records.append(flat_record({"pair": pair.name, **x.to_dict()}))
    return Section(
        key, title,
        ("models (A / B)", "tokens", "comparison", "tasks A + B", "exposure effect (95% CI)",
         "DiD (95% CI)", "unseen renaming cost (95% CI)"), tuple(cells), tuple(records),
        tuple(dict.fromkeys(notes)),
        ("As Table 2, in nats per token: exposure effect = original(seen) − original(unseen); "
         "DiD = [original − renamed](seen) − [original − renamed](unseen); unseen cost = "
         "original(unseen) − renamed(unseen).", _bootstrap(settings)), labels=3)


# -- file continuation ------------------------------------------------------------------------

def _decreases(rows: Sequence[Row], frame: pd.DataFrame
               ) -> tuple[dict[str, pd.DataFrame], list[str]]:
    """Per continuation model, the per-task renaming decrease from its own case records."""
    out: dict[str, pd.DataFrame] = {}
    notes: list[str] = []
    for model in sorted({str(r["model"]) for r in rows}):
        try:
            out[model] = renaming_decrease(frame, model=model)
        except StatsError:
            notes.append(f"{model}: no case records of this model in the report, so no "
                         f"renaming decrease to relate the runs to")
    return out, notes


def _run(run: Any, fraction: Any) -> str:
    if not isinstance(run, int):
        return "–"
    return f"{run} ({num(100 * fraction, 0)}%)" if isinstance(fraction, float) else str(run)


def continuation_section(rows: Sequence[Row], frame: pd.DataFrame) -> Section:
    """Per model and task: the runs on the published file and on its renamed copy."""
    if not rows:
        return Section("continuation", CONTINUATION_TITLE, notes=(CONTINUATION_HELP,))
    decreases, notes = _decreases(rows, frame)
    cells: list[tuple[str, ...]] = []
    records: list[dict[str, Any]] = []
    for row in sorted(rows, key=lambda r: (str(r["model"]), str(r["task"]))):
        model, task = str(row["model"]), str(row["task"])
        table = decreases.get(model)
        decrease = {k: float(table.loc[task, k]) if table is not None and task in table.index
                    else None for k in ("name_decrease", "behavior_decrease")}
        original, renamed = row.get("longest_run_original"), row.get("longest_run_renamed")
        excess = original - renamed if isinstance(original, int) and isinstance(renamed, int) \
            else None
        cells.append((model, task, f"{row.get('repo')}: {row.get('path')}",
                      str(row.get("remainder_tokens")),
                      _run(original, row.get("fraction_original")),
                      _run(renamed, row.get("fraction_renamed")),
                      "–" if excess is None else str(excess),
                      *(num(None if v is None else 100 * v) for v in decrease.values())))
        records.append({**{k: v for k, v in row.items() if k not in ("schema_version", "kind")},
                        "run_excess": excess, **decrease})
        if row.get("note"):
            notes.append(f"{model}, {task}: {row['note']}")
    return Section(
        "continuation", CONTINUATION_TITLE,
        ("model", "task", "file shown", "tokens to recall", "original run", "renamed run",
         "excess", "name decrease", "behavior decrease"), tuple(cells), tuple(records),
        tuple(notes),
        ("The model sees the first 40% of the lines of a task's main module with its "
         "repository and path; a run is the longest stretch of TLA+ tokens its continuation "
         "shares with the real rest (percent of the rest). The renamed copy (the random "
         "condition) was never published: a long run on the original and a short one on the "
         "copy (a large excess) points at memorisation. Decreases: pass rate original − random "
         "of the same model's case records, in points.",), labels=3)


def correlation_section(rows: Sequence[Row], frame: pd.DataFrame) -> Section:
    """Per model: Spearman's rho of each run measure with each per-task decrease."""
    if not rows:
        return Section("continuation_correlation", CORRELATION_TITLE,
                       notes=(CONTINUATION_HELP,))
    decreases, notes = _decreases(rows, frame)
    cells: list[tuple[str, ...]] = []
    records: list[dict[str, Any]] = []
    for model, decrease in decreases.items():
        mine = [r for r in rows if r["model"] == model]
        for r in continuation_correlation(mine, decrease).to_dict("records"):
            cells.append((model, str(r["measure"]), str(r["decrease"]), str(r["tasks"]),
                          num(r["rho"], 3), num(r["p"], 4)))
            records.append({"model": model, **r})
    return Section(
        "continuation_correlation", CORRELATION_TITLE,
        ("model", "run measure", "decrease", "tasks", "rho", "p"), tuple(cells),
        tuple(records), tuple(notes),
        ("Spearman correlation over tasks with both values; `–` for fewer than three tasks or "
         "a constant column. A positive rho: tasks the model recalls verbatim lose more under "
         "renaming.",), labels=3)


# -- proposed names ---------------------------------------------------------------------------

def _verified(value: Any) -> str:
    return "–" if value is None else "yes" if value else "no"


def names_section(rows: Sequence[Row]) -> Section:
    """Per model and task: names to rename, kept, dropped, adjusted, and verification."""
    if not rows:
        return Section("proposed_names", NAMES_TITLE, notes=(NAMES_HELP,))
    cells: list[tuple[str, ...]] = []
    records: list[dict[str, Any]] = []
    notes: list[str] = []
    for row in sorted(rows, key=lambda r: (str(r["model"]), str(r["task"]))):
        model, task = str(row["model"]), str(row["task"])
        counts = [row.get(k) for k in ("targets", "kept", "dropped", "fixed", "unproposed")]
        cells.append((model, task, *("–" if c is None else str(c) for c in counts),
                      _verified(row.get("verified"))))
        records.append({k: v for k, v in row.items() if k not in ("schema_version", "kind")})
        if row.get("error"):
            notes.append(f"{model}, {task}: {row['error']}")
        elif row.get("verified") is False:
            notes.append(f"{model}, {task}: not verified: {row.get('reason')}")
    for model in sorted({str(r["model"]) for r in rows}):
        mine = [r for r in rows if r["model"] == model]
        kept = sum(int(r.get("kept") or 0) for r in mine)
        wanted = sum(int(r.get("targets") or 0) for r in mine)
        checked = [r for r in mine if r.get("verified") is not None]
        notes.append(f"{model}: {kept} of {wanted} names kept over {len(mine)} task(s); "
                     f"{sum(bool(r['verified']) for r in checked)} of {len(checked)} "
                     f"verified map(s)")
    return Section(
        "proposed_names", NAMES_TITLE,
        ("model", "task", "names", "kept", "dropped", "adjusted", "not proposed", "verified"),
        tuple(cells), tuple(records), tuple(notes),
        ("names: the identifiers the model was asked to rename; kept: entries of the map "
         "written; dropped: unusable entries (not a name of the task, a keyword, a layout "
         "risk); adjusted: case or collision fixes; verified: the meaningful variant passed "
         "SANY and TLC (– not checked).",), labels=2)
