"""Report sections that compare conditions: renaming decrease, grades disagreeing, the upper
bound, and the exposure experiment (Table 2). The splits by kind of task are in
:mod:`reports.render_splits`."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict
from functools import partial
from typing import Any

import pandas as pd

from reports.bounds import (
    MEASURES,
    BoundedDifference,
    behavior_bounds,
    bounded_difference,
    direction,
)
from reports.exposure import exposure_split, exposure_stats
from reports.records import StatsError, condition_order, require_rows
from reports.render_data import (
    ExposurePair,
    InputFile,
    Section,
    Settings,
    bounded,
    grade_label,
    interval,
    num,
    p_value,
)
from reports.schema import GRADES
from reports.stats import (
    PairedDifference,
    grade_disagreements,
    paired_difference,
    upper_bound,
)

DIFFERENCES_TITLE = "Renaming decrease (original − renamed)"
TABLE2_TITLE = "Table 2 — exposure experiment"
DISAGREE_TITLE = "Grades disagreeing"
UPPER_TITLE = "Upper bound (every name-only pass counted as correct)"
EXPOSURE_HELP = (
    "No exposure experiment in these results: mark two runs as trained on halves A and B "
    "(run header field `exposure_half: \"A\"` / `\"B\"`, or `alias-bench report --exposure "
    "A=MODEL,B=MODEL`) to get Table 2.")
ORIGINAL = "original"


def renamed_conditions(frame: pd.DataFrame) -> list[str]:
    """The renamed conditions present; raises unless ``original`` and one of them are."""
    require_rows(frame)
    conditions = condition_order(frame["condition"])
    if ORIGINAL not in conditions:
        raise StatsError(f"the records have no {ORIGINAL!r} condition (present: "
                         f"{', '.join(conditions) or 'none'}), so there is no renaming "
                         f"decrease to compute")
    renamed = [c for c in conditions if c != ORIGINAL]
    if not renamed:
        raise StatsError("the records hold only the 'original' condition, so there is no "
                         "renaming decrease to compute")
    return renamed


def models_of(frame: pd.DataFrame) -> list[str]:
    return sorted(str(m) for m in frame["model"].unique())


def bootstrap_footer(settings: Settings) -> str:
    return (f"Intervals: {settings.level:.0%} percentile bootstrap over tasks, "
            f"{settings.n_boot:,} resamples, seed {settings.seed}.")


# -- renaming decrease ------------------------------------------------------------------------

SIGN_MARK = "†"
SIGN_FOOTER = (f"{SIGN_MARK} The decrease has a different sign under the two bounds: the cases "
               "the behavior grade left undecided could turn it either way.")
TABLE2_BOUND_FOOTER = (
    "Behavior rows where some case's verdict decides nothing (no_mapping, undecided) come as "
    "two rows: lower (those cases counted as failures) and upper (counted as passes), over the "
    "same bootstrap resamples; Table 1 gives each model's decided share.")
BOUND_FOOTER = (
    "Behavior rows where some case's verdict decides nothing (no_mapping, undecided) come as "
    "two rows: lower (those cases counted as failures) and upper (counted as passes), each "
    "with its own interval, sign test and TOST over the same bootstrap resamples. Decided %: "
    "the share of graded cases the behavior grade decided, original → renamed.")


def difference_row(d: PairedDifference, *, label: str | None = None, decided: str = "–",
                   mark: str = "") -> tuple[str, ...]:
    """Display cells of one paired difference (``label``: the grade's, when not its own;
    ``decided``: the decided shares' cell; ``mark``: after the decrease)."""
    tost = "equivalent" if d.equivalent else "not shown"
    return (d.model, label or grade_label(d.grade), f"{d.cond_a} − {d.cond_b}",
            str(d.n_tasks), num(d.mean_a), num(d.mean_b), decided, num(d.mean) + mark,
            interval(d.ci_low, d.ci_high), f"{d.wins} vs {d.losses}, {p_value(d.sign_p)}",
            f"{tost} ({interval(d.tost_low, d.tost_high)})")


def bounded_rows(b: BoundedDifference) -> list[tuple[str, ...]]:
    """One row when every case was decided (the bounds coincide), else a lower and an upper
    row, the decrease marked when its sign differs between them."""
    decided = f"{num(b.decided_a)} → {num(b.decided_b)}"
    if b.all_decided:
        return [difference_row(b.lower, decided=decided)]
    mark = SIGN_MARK if b.sign_differs else ""
    label = grade_label("behavior")
    return [difference_row(b.lower, label=f"{label} (lower)", decided=decided, mark=mark),
            difference_row(b.upper, label=f"{label} (upper)", decided=decided, mark=mark)]


def differences_section(frame: pd.DataFrame, settings: Settings) -> Section:
    """Per model, grade and renamed condition: decrease, CI, sign test and TOST."""
    rows: list[tuple[str, ...]] = []
    records: list[dict[str, Any]] = []
    notes: list[str] = []
    flips = unsure = 0
    renamed = renamed_conditions(frame)
    for model in models_of(frame):
        for grade in GRADES:
            for cond in renamed:
                label = f"{model}, {grade}, {ORIGINAL} − {cond}"
                try:
                    if grade == "behavior":
                        b = bounded_difference(frame, ORIGINAL, cond, model=model,
                                               n_boot=settings.n_boot, seed=settings.seed,
                                               level=settings.level, margin=settings.margin)
                        d = b.lower
                    else:
                        d = paired_difference(frame, grade, ORIGINAL, cond, model=model,
                                              n_boot=settings.n_boot, seed=settings.seed,
                                              level=settings.level, margin=settings.margin)
                except StatsError as exc:
                    notes.append(f"{label}: {exc}")
                    continue
                if grade == "behavior":
                    rows += bounded_rows(b)
                    records.append(b.to_dict())
                    flips += b.sign_differs
                    unsure += not b.all_decided
                else:
                    rows.append(difference_row(d))
                    records.append({k: v for k, v in d.to_dict().items() if k != "notes"})
                notes.extend(f"{label}: {n}" for n in d.notes)
    footer = [bootstrap_footer(settings),
              "Decrease in percentage points: positive means the renamed condition passes less. "
              "Sign test: tasks where original passes more vs less (ties dropped), two-sided "
              f"binomial p. TOST: equivalent when the 90% interval lies inside "
              f"±{settings.margin:g} points."]
    footer += [BOUND_FOOTER] if unsure else []
    footer += [SIGN_FOOTER] if flips else []
    return Section(
        "differences", DIFFERENCES_TITLE,
        ("model", "grade", "comparison", "tasks", "original %", "renamed %", "decided %",
         "decrease", "95% CI", "sign test", f"TOST ±{settings.margin:g} (90% CI)"),
        tuple(rows), tuple(records), tuple(dict.fromkeys(notes)), tuple(footer), labels=3)


# -- grades disagreeing, upper bound ----------------------------------------------------------

def disagreement_section(frame: pd.DataFrame) -> Section:
    """Name-only and behavior-only passes on covered tasks, counted by cause."""
    table = grade_disagreements(frame)
    kinds = {"name_only": "name-only pass", "behavior_only": "behavior-only pass"}
    rows = tuple((str(r.model), str(r.condition), kinds[str(r.kind)], str(r.cause),
                  str(r.count), str(r.cases), num(100 * r.count / r.cases))
                 for r in table.itertuples(index=False))
    records = tuple(dict(zip(table.columns, values, strict=True))
                    for values in table.itertuples(index=False))
    notes = () if rows else ("The name and behavior grades agree on every covered case.",)
    return Section(
        "disagreements", DISAGREE_TITLE,
        ("model", "condition", "kind", "cause (the failing grade's verdict)", "count",
         "covered cases", "share %"), rows, records, notes,
        ("Over covered tasks, without infrastructure errors. A behavior-only pass marked "
         "'(hidden name)' failed the name grade only on names the description never "
         "stated.",), labels=4)


def upper_bound_section(frame: pd.DataFrame) -> Section:
    """Per model: correct by behavior (its bounds and decided share), and the bound counting
    every name-only pass too."""
    bound = upper_bound(frame)
    conditions = [c for c in bound.columns if c != "tasks"]
    names = condition_order(frame["condition"])  # the same order, not capitalized
    notes = list(bound.attrs.get("notes", []))
    bounds = None
    try:
        bounds = behavior_bounds(frame)
    except StatsError as exc:
        notes.append(str(exc))
    rows, records = [], []
    for model, values in bound.iterrows():
        tasks = str(int(values["tasks"]))
        if bounds is not None and (model, "lower") in bounds.index:
            covered = int(bounds.loc[(model, "lower"), "tasks"])
            measure = {m: [float(bounds.loc[(model, m), c]) if c in bounds.columns
                           else float("nan") for c in conditions] for m in MEASURES}
            rows += [(str(model), "correct, behavior",
                      *(bounded(lo, hi) for lo, hi in zip(measure["lower"], measure["upper"],
                                                          strict=True)), str(covered)),
                     (str(model), "decided share, behavior",
                      *map(num, measure["decided_share"]), str(covered))]
            records.append({"model": model, "measure": "correct, behavior",
                            **dict(zip(names, measure["lower"], strict=True)),
                            **{f"{n}_{m}": v for m, cells in measure.items()
                               for n, v in zip(names, cells, strict=True)},
                            "tasks": covered})
        cells = [float(values[c]) if c in values else float("nan") for c in conditions]
        rows.append((str(model), "upper bound", *map(num, cells), tasks))
        records.append({"model": model, "measure": "upper bound",
                        **dict(zip(names, cells, strict=True)), "tasks": int(values["tasks"])})
    return Section("upper_bound", UPPER_TITLE, ("model", "measure", *conditions, "tasks"),
                   tuple(rows), tuple(records), tuple(dict.fromkeys(notes)),
                   ("Upper bound: a covered case counts as correct when it passes the "
                    "behavior grade or the name grade (a case whose behavior verdict decides "
                    "nothing counts only when it passes the name grade). Correct by behavior "
                    "reads lower–upper as in Table 1.",), labels=2)


# -- exposure experiment ----------------------------------------------------------------------

def exposure_pairs(inputs: Sequence[InputFile], given: Sequence[ExposurePair]
                   ) -> tuple[tuple[ExposurePair, ...], tuple[str, ...]]:
    """The pairs to analyse: ``given`` (from the command line) or those the headers mark.

    A header marks its model with ``exposure_half`` (``"A"`` or ``"B"``), optionally
    ``exposure_group`` (pairs several model families) and ``exposure_tasks`` (the half's task
    ids, when the split was not made with the split seed).
    """
    if given:
        return tuple(given), ()
    halves: dict[str, dict[str, tuple[str, tuple[str, ...] | None]]] = {}
    notes: list[str] = []
    for item in inputs:
        for header in item.headers:
            half = header.get("exposure_half")
            if half is None:
                continue
            model, group = str(header.get("model", "")), str(header.get("exposure_group", ""))
            if half not in ("A", "B"):
                notes.append(f"{item.path}: exposure_half must be 'A' or 'B', got {half!r}")
                continue
            tasks = header.get("exposure_tasks")
            entry = (model, tuple(map(str, tasks)) if isinstance(tasks, list) else None)
            known = halves.setdefault(group, {}).get(half)
            if known is not None and known[0] != model:
                notes.append(f"half {half}{f' of group {group}' if group else ''} is claimed "
                             f"by both {known[0]} and {model}; {model} is ignored")
                continue
            halves[group][half] = entry
    pairs = []
    for group, marks in sorted(halves.items()):
        if set(marks) != {"A", "B"}:
            notes.append(f"group {group or '(default)'}: only half {''.join(sorted(marks))} "
                         f"is marked; Table 2 needs one model for A and one for B")
            continue
        (a, tasks_a), (b, tasks_b) = marks["A"], marks["B"]
        pairs.append(ExposurePair(a, b, group, tasks_a, tasks_b))
    return tuple(pairs), tuple(notes)


LIKELIHOOD_MEASURES = {"mean_logprob": "likelihood, all reference tokens",
                       "mean_outside": "likelihood, outside renamed names"}
ALL_TASKS = "all"
NOT_TRUNCATED = "no truncated output"


def truncated_tasks(cases: Iterable[Mapping[str, Any]], models: Iterable[str]
                    ) -> tuple[set[str], int]:
    """Tasks where some output of ``models`` hit the token limit, and how many of their case
    records say whether theirs did (a ``generation`` with ``truncated``)."""
    wanted = set(models)
    tasks: set[str] = set()
    known = 0
    for case in cases:
        generation = case.get("generation")
        if case.get("model") not in wanted or not isinstance(generation, Mapping) or \
                "truncated" not in generation:
            continue
        known += 1
        if generation["truncated"]:
            tasks.add(str(case["task"]))
    return tasks, known


def exposure_section(frame: pd.DataFrame, pairs: Sequence[ExposurePair],
                     pair_notes: Sequence[str], settings: Settings,
                     cases: Sequence[Mapping[str, Any]] = (),
                     likelihood: Sequence[Mapping[str, Any]] = ()) -> Section:
    """Table 2: exposure effect, DiD and unseen renaming cost per pair (an arm), measure and
    condition: the three grades (points) and the likelihood probe (nats per token), over all
    tasks and, as a control, over the tasks where no output of the pair was truncated."""
    if not pairs:
        return Section("table2", TABLE2_TITLE, notes=(EXPOSURE_HELP, *pair_notes))
    rows: list[tuple[str, ...]] = []
    records: list[dict[str, Any]] = []
    notes = list(pair_notes)
    for pair in pairs:
        models = (pair.model_a, pair.model_b)
        parts = {m: frame[frame["model"] == m] for m in models}
        mine = [r for r in likelihood if r.get("model") in models]
        absent = [m for m, part in parts.items() if part.empty]
        if absent:
            notes.append(f"{pair.name}: no records for {', '.join(absent)}")
            if not mine:
                continue
        present = [] if absent else list(pd.concat(list(parts.values()))["task"])
        split, how = pair_split(pair, present or [str(r["task"]) for r in mine],
                                settings.split_seed)
        notes.append(f"{pair.name}: {how}")
        subsets: list[tuple[str, set[str]]] = [(ALL_TASKS, set())]
        if not absent:
            cut, known = truncated_tasks(cases, models)
            if not known:
                notes.append(f"{pair.name}: the case records do not say whether outputs were "
                             f"truncated, so there is no truncation control")
            elif not cut:
                notes.append(f"{pair.name}: no output hit the token limit; the control over "
                             f"tasks without truncated output equals the rows over all tasks")
            else:
                notes.append(f"{pair.name}: {len(cut)} task(s) with a truncated output are "
                             f"left out of the '{NOT_TRUNCATED}' rows: "
                             f"{', '.join(sorted(cut)[:10])}{' …' if len(cut) > 10 else ''}")
                subsets.append((NOT_TRUNCATED, cut))
        for subset, dropped in subsets:
            kept = tuple(tuple(t for t in half if t not in dropped) for half in split)
            halves = (kept[0], kept[1])
            if not absent:
                grade_rows(pair, parts, halves, subset, settings, rows, records, notes)
            if mine:
                likelihood_rows(pair, mine, halves, subset, settings, rows, records, notes)
    return Section(
        "table2", TABLE2_TITLE,
        ("models (A / B)", "measure", "tasks", "comparison", "tasks A + B",
         "exposure effect (95% CI)", "DiD (95% CI)", "unseen renaming cost (95% CI)"),
        tuple(rows), tuple(flat_record(r) for r in records), tuple(dict.fromkeys(notes)),
        ("exposure effect = original(seen) − original(unseen); DiD = [original − renamed]"
         "(seen) − [original − renamed](unseen); unseen cost = original(unseen) − "
         "renamed(unseen); averaged over tasks. Grades in points of pass rate, likelihood in "
         "nats per reference token. Tasks: `all`, or `no truncated output` (the control "
         "leaving out every task where an output of the pair hit the token limit).",
         bootstrap_footer(settings),
         *([TABLE2_BOUND_FOOTER] if any("(lower)" in r[1] for r in rows) else []),
         *([SIGN_FOOTER.replace("decrease", "estimate")]
           if any(SIGN_MARK in c for r in rows for c in r) else [])),
        labels=4)


def _cells(pair: ExposurePair, measure: str, subset: str, cond: str, n_a: int, n_b: int,
           estimates: Sequence[Any], digits: int) -> tuple[str, ...]:
    return (pair.name, measure, subset, f"{ORIGINAL} − {cond}", f"{n_a} + {n_b}",
            *(f"{num(x.mean, digits)} ({num(x.low, digits)} to {num(x.high, digits)})"
              for x in estimates))


def grade_rows(pair: ExposurePair, parts: Mapping[str, pd.DataFrame],
               split: tuple[tuple[str, ...], tuple[str, ...]], subset: str,
               settings: Settings, rows: list[tuple[str, ...]],
               records: list[dict[str, Any]], notes: list[str]) -> None:
    """Table 2's rows of the three grades for one pair and task subset."""
    both = pd.concat(list(parts.values()))
    for grade in GRADES:
        for cond in renamed_conditions(both):
            label = f"{pair.name}, {grade}, {ORIGINAL} − {cond}" + (
                "" if subset == ALL_TASKS else f" ({subset})")
            run = partial(exposure_stats, parts[pair.model_a], parts[pair.model_b], split,
                          grade, original=ORIGINAL, renamed=cond, n_boot=settings.n_boot,
                          seed=settings.seed, level=settings.level,
                          split_seed=settings.split_seed)
            try:
                e = run()
                upper = run(bound="upper") if grade == "behavior" else e
            except StatsError as exc:
                notes.append(f"{label}: {exc}")
                continue
            if subset == ALL_TASKS:
                notes.extend(f"{pair.name}, {grade}: {n}" for n in e.notes)
            record = {"pair": pair.name, "measure": grade, "tasks_subset": subset,
                      "unit": "points", **e.to_dict()}
            estimates = ("exposure", "did", "unseen_cost")
            if grade == "behavior":
                flips = [direction(getattr(e, x).mean) != direction(getattr(upper, x).mean)
                         for x in estimates]
                record |= {f"upper_{x}": asdict(getattr(upper, x)) for x in estimates}
                record |= {f"{x}_sign_differs": f for x, f in zip(estimates, flips,
                                                                     strict=True)}
            rates = ("original_seen", "original_unseen", "renamed_seen", "renamed_unseen")
            if upper is e or all(getattr(e, r) == getattr(upper, r) for r in rates):
                rows.append(_cells(pair, grade_label(grade), subset, cond, e.n_tasks_a,
                                   e.n_tasks_b, (e.exposure, e.did, e.unseen_cost), 1))
            else:
                for which, x in (("lower", e), ("upper", upper)):
                    cells = _cells(pair, f"{grade_label(grade)} ({which})", subset, cond,
                                   x.n_tasks_a, x.n_tasks_b,
                                   (x.exposure, x.did, x.unseen_cost), 1)
                    rows.append(cells[:5] + tuple(
                        c.replace(" (", f"{SIGN_MARK} (", 1) if flip else c
                        for c, flip in zip(cells[5:], flips, strict=True)))
            records.append(record)


def likelihood_rows(pair: ExposurePair, rows_in: Sequence[Mapping[str, Any]],
                    split: tuple[tuple[str, ...], tuple[str, ...]], subset: str,
                    settings: Settings, rows: list[tuple[str, ...]],
                    records: list[dict[str, Any]], notes: list[str]) -> None:
    """Table 2's likelihood rows (both token sets) for one pair and task subset."""
    from reports.likelihood_stats import exposure_effects

    models = {str(r["model"]) for r in rows_in}
    if models != {pair.model_a, pair.model_b}:
        notes.append(f"{pair.name}: likelihood rows for only "
                     f"{', '.join(sorted(models))}: no likelihood rows in Table 2")
        return
    renamed = [c for c in condition_order(str(r["condition"]) for r in rows_in) if c != ORIGINAL]
    for measure, label_text in LIKELIHOOD_MEASURES.items():
        for cond in renamed:
            label = f"{pair.name}, {measure}, {ORIGINAL} − {cond}" + (
                "" if subset == ALL_TASKS else f" ({subset})")
            try:
                x = exposure_effects(rows_in, pair.model_a, pair.model_b, split,
                                     measure=measure, original=ORIGINAL, renamed=cond,
                                     n_boot=settings.n_boot, seed=settings.seed,
                                     level=settings.level, split_seed=settings.split_seed)
            except StatsError as exc:
                notes.append(f"{label}: {exc}")
                continue
            if subset == ALL_TASKS:
                notes.extend(f"{pair.name}, {measure}: {n}" for n in x.notes)
            rows.append(_cells(pair, label_text, subset, cond, x.n_tasks_a, x.n_tasks_b,
                               (x.exposure, x.did, x.unseen_cost), 3))
            records.append({"pair": pair.name, **x.to_dict(),
                            "measure": f"likelihood:{measure}", "tasks_subset": subset,
                            "unit": "nats per token"})


def pair_split(pair: ExposurePair, present: Iterable[Any], seed: int
               ) -> tuple[tuple[tuple[str, ...], tuple[str, ...]], str]:
    """The pair's halves (from the run headers, else split seed over ``present`` tasks) and
    a note saying where they came from."""
    tasks = sorted({str(t) for t in present})
    if pair.tasks_a is not None:
        rest = pair.tasks_b if pair.tasks_b is not None else tuple(
            t for t in tasks if t not in set(pair.tasks_a))
        return (pair.tasks_a, rest), (f"halves from the run headers (A {len(pair.tasks_a)}, "
                                      f"B {len(rest)} tasks)")
    half_a, half_b = exposure_split(tasks, seed)
    return (half_a, half_b), (f"halves from split seed {seed} over the {len(tasks)} "
                              f"tasks in the records (A {len(half_a)}, B {len(half_b)})")


def flat_record(record: dict[str, Any]) -> dict[str, Any]:
    """Estimates as ``x``, ``x_low``, ``x_high`` columns (for CSV)."""
    out: dict[str, Any] = {}
    for key, value in record.items():
        if isinstance(value, dict) and "mean" in value:
            out.update({key: value["mean"], f"{key}_low": value["low"],
                        f"{key}_high": value["high"]})
        elif key != "notes":
            out[key] = value
    return out
