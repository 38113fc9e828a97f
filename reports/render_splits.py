"""Report sections that split the renaming decrease by kind of task: tasks with and without
hidden names, tasks whose reference was published and tasks whose reference never was.

A behavior row comes with a row of its decided share per side; where some case's verdict
decides nothing it comes as two rows, the lower and the upper bound (:mod:`reports.bounds`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import pandas as pd

from reports.bounds import direction
from reports.records import StatsError
from reports.render_data import Section, Settings, grade_label, interval, num
from reports.render_sections import (
    ORIGINAL,
    SIGN_FOOTER,
    SIGN_MARK,
    bootstrap_footer,
    models_of,
    renamed_conditions,
)
from reports.schema import GRADES, Grade
from reports.stats import Bound, PairedDifference, split_by_hidden, split_by_published

HIDDEN_TITLE = "Tasks with and without hidden names"
PUBLISHED_TITLE = "Tasks whose reference was published and tasks whose reference never was"
_SIDES = {"hidden": "hidden-name", "stated": "all-stated"}
SPLIT_BOUND_FOOTER = (
    "Behavior rows where some case's verdict decides nothing (no_mapping, undecided) come as "
    "two rows: lower (those cases counted as failures) and upper (counted as passes), each "
    "with its interval over the same bootstrap resamples. Decided share: the share of graded "
    "cases the behavior grade decided, original → renamed.")
_FIELDS = ("mean_a", "mean_b", "mean", "ci_low", "ci_high", "sign_p")

Side = tuple[str, PairedDifference | None, int]
"""One side of a split: its key (in record fields), its difference (None: too few tasks), its
task count."""


def hidden_section(frame: pd.DataFrame, settings: Settings) -> Section:
    """The renaming decrease on tasks with hidden required names and on all-stated tasks."""
    def sides(model: str, grade: Grade, cond: str, bound: Bound, label: str,
              notes: list[str]) -> list[Side]:
        split = split_by_hidden(frame, grade, ORIGINAL, cond, model=model,
                                n_boot=settings.n_boot, seed=settings.seed,
                                level=settings.level, margin=settings.margin, bound=bound)
        empty = [side for side, n in (("hidden", split.n_hidden_tasks),
                                      ("stated", split.n_stated_tasks)) if n == 0]
        notes.extend(f"{label}: {n}" for n in split.notes
                     if not n.startswith(tuple(f"{side}-name" for side in empty)))
        notes.extend(f"{label}: no {_SIDES[side]} tasks" for side in empty)
        return [("hidden", split.hidden, split.n_hidden_tasks),
                ("stated", split.stated, split.n_stated_tasks)]

    renamed_conditions(frame)
    rows, records, notes, footer = _split_rows(frame, ("name", "behavior"), sides)
    return Section(
        "hidden_split", HIDDEN_TITLE,
        ("model", "grade", "comparison", "hidden-name tasks", "original → renamed %",
         "decrease (95% CI)", "all-stated tasks", "original → renamed %",
         "decrease (95% CI)"),
        tuple(rows), tuple(records), tuple(dict.fromkeys(notes)),
        ("A task has hidden names when its cfg requires a name the description never "
         "states.", bootstrap_footer(settings), *footer), labels=3)


def published_section(frame: pd.DataFrame, settings: Settings) -> Section:
    """The renaming decrease on tasks whose reference was published (a public benchmark's
    specs) and on tasks written for ALIAS and never published: a decrease that shrinks on the
    never-published tasks is evidence of memorization."""
    def sides(model: str, grade: Grade, cond: str, bound: Bound, label: str,
              notes: list[str]) -> list[Side]:
        split = split_by_published(frame, grade, ORIGINAL, cond, model=model,
                                   n_boot=settings.n_boot, seed=settings.seed,
                                   level=settings.level, margin=settings.margin, bound=bound)
        empty = tuple(f"{side} tasks:" for side, _, n in split.sides if n == 0)
        notes.extend(f"{label}: {n}" for n in split.notes if not n.startswith(empty))
        notes.extend(f"{label}: no {side} tasks" for side, _, n in split.sides if n == 0)
        return [(side.replace(" ", "_"), d, n) for side, d, n in split.sides]

    renamed_conditions(frame)
    known = frame["published"].notna().any()
    rows, records, notes, footer = _split_rows(frame, GRADES if known else (), sides)
    if not known:
        notes.append("No record says whether its task's reference was published (records "
                     "written before ALIAS recorded it): nothing to split.")
    return Section(
        "published_split", PUBLISHED_TITLE,
        ("model", "grade", "comparison", "published tasks", "original → renamed %",
         "decrease (95% CI)", "never-published tasks", "original → renamed %",
         "decrease (95% CI)"),
        tuple(rows), tuple(records), tuple(dict.fromkeys(notes)),
        ("Published: the task's reference was public before the run (a public benchmark's "
         "specs, tlaplus/Examples); never published: written for ALIAS (the built-in tasks). "
         "Run both kinds in one run (`--alias-tasks builtin,PATH`) to fill both sides. A "
         "renaming decrease that shrinks on never-published tasks points at memorization.",
         bootstrap_footer(settings), *footer), labels=3)


SidesOf = Callable[[str, Grade, str, Bound, str, list[str]], list[Side]]


def _split_rows(frame: pd.DataFrame, grades: Sequence[Grade], sides_of: SidesOf
                ) -> tuple[list[tuple[str, ...]], list[dict[str, Any]], list[str], list[str]]:
    """Rows, records, notes and extra footer lines of a split section: per model, grade and
    renamed condition, the sides ``sides_of`` gives; for behavior under both bounds."""
    rows: list[tuple[str, ...]] = []
    records: list[dict[str, Any]] = []
    notes: list[str] = []
    unsure = flips = False
    for model in models_of(frame):
        for grade in grades:
            for cond in renamed_conditions(frame):
                label = f"{model}, {grade}, {ORIGINAL} − {cond}"
                head = [model, grade_label(grade), f"{ORIGINAL} − {cond}"]
                record: dict[str, Any] = {"model": model, "grade": grade,
                                          "comparison": f"{ORIGINAL} − {cond}"}
                try:
                    lower = sides_of(model, grade, cond, "lower", label, notes)
                    upper = (sides_of(model, grade, cond, "upper", label, [])
                             if grade == "behavior" else None)
                except StatsError as exc:
                    notes.append(f"{label}: {exc}")
                    continue
                if upper is None:
                    rows.append(tuple(head + [c for side in lower
                                              for c in _side_cells(record, *side)]))
                    records.append(record)
                    continue
                shown, side_unsure, side_flips = _bounded_rows(head, record, lower, upper)
                rows += shown
                records.append(record)
                unsure |= side_unsure
                flips |= side_flips
    footer = [SPLIT_BOUND_FOOTER] if unsure else []
    return rows, records, notes, footer + ([SIGN_FOOTER] if flips else [])


def _bounded_rows(head: list[str], record: dict[str, Any], lower: Sequence[Side],
                  upper: Sequence[Side]) -> tuple[list[tuple[str, ...]], bool, bool]:
    """A behavior split's rows (one, or lower and upper, then the decided share), its fields
    into ``record``; and whether some case was undecided and some sign differs."""
    low_cells: list[str] = []
    high_cells: list[str] = []
    decided_cells: list[str] = []
    unsure = flips = False
    for (side, lo, n), (_, hi, _) in zip(lower, upper, strict=True):
        low_part = _side_cells(record, side, lo, n)
        high_part = _side_cells(record, f"{side}_upper", hi, n)
        del record[f"{side}_upper_tasks"]
        shares = (None, None) if lo is None or hi is None else (
            100.0 - (hi.mean_a - lo.mean_a), 100.0 - (hi.mean_b - lo.mean_b))
        differs = lo is not None and hi is not None and direction(lo.mean) != direction(hi.mean)
        record.update({f"{side}_decided_share_a": shares[0],
                       f"{side}_decided_share_b": shares[1], f"{side}_sign_differs": differs})
        unsure |= any(x is not None and x < 100.0 - 1e-9 for x in shares)
        if differs:
            flips = True
            low_part[2] = low_part[2].replace(" (", f"{SIGN_MARK} (", 1)
            high_part[2] = high_part[2].replace(" (", f"{SIGN_MARK} (", 1)
        low_cells += low_part
        high_cells += high_part
        decided_cells += [str(n), "–" if shares[0] is None
                          else f"{num(shares[0])} → {num(shares[1])}", "–"]
    label = head[1]
    decided = (head[0], "decided share, behavior", *head[2:], *decided_cells)
    if not unsure:
        return [(*head, *low_cells), decided], False, False
    return [(head[0], f"{label} (lower)", *head[2:], *low_cells),
            (head[0], f"{label} (upper)", *head[2:], *high_cells), decided], True, flips


def _side_cells(record: dict[str, Any], side: str, d: PairedDifference | None,
                n: int) -> list[str]:
    """One side of a split: its fields into ``record`` (``SIDE_tasks``, ``SIDE_mean`` ...),
    its display cells (tasks, original → renamed, decrease with interval) returned."""
    record[f"{side}_tasks"] = n
    for field in _FIELDS:
        record[f"{side}_{field}"] = getattr(d, field) if d else None
    return [str(n), f"{num(d.mean_a)} → {num(d.mean_b)}" if d else "–",
            f"{num(d.mean)} ({interval(d.ci_low, d.ci_high)})" if d else "–"]
