"""Statistics of the file-continuation probe (rows of ``kind: "continuation"``).

A row (see ``alias_fixtures.probes.continuation.ContinuationRow``) holds one task's longest verbatim
run on its published main module (``longest_run_original``) and on its renamed copy
(``longest_run_renamed``). Here the runs are related to each task's renaming decrease, the
per-task pass rate original − renamed computed from the benchmark's case records.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import pandas as pd

from reports.records import covered_tasks, select_model

KIND = "continuation"
CORRELATES = ("longest_run_original", "run_excess")
DECREASES = ("name_decrease", "behavior_decrease")
ROW_FIELDS = ("task", "repo", "path", "prefix_lines", "remainder_tokens", "longest_run_original",
              "longest_run_renamed", "fraction_original", "fraction_renamed", "note")


def continuation_table(rows: Iterable[Mapping[str, Any]]) -> pd.DataFrame:
    """The rows as a frame, one per task, with ``run_excess`` = original − renamed run."""
    frame = pd.DataFrame([{k: r.get(k) for k in ROW_FIELDS} for r in rows],
                         columns=list(ROW_FIELDS))
    frame["run_excess"] = (frame["longest_run_original"].astype("Float64")
                           - frame["longest_run_renamed"].astype("Float64"))
    return frame


def renaming_decrease(records: pd.DataFrame, *, model: str | None = None,
                      renamed: str = "random") -> pd.DataFrame:
    """Per task: pass rate original − `renamed` for the name and behavior grades.

    `records` is a :func:`reports.records.load_records` frame. The behavior decrease is left
    empty (NaN) for tasks the behavior grade does not cover.
    """
    chosen = select_model(records, model)
    frame = records[records["model"] == chosen]
    rates = frame.groupby(["task", "condition"])[["name_pass", "behavior_pass"]].mean()
    out = pd.DataFrame(index=sorted(set(frame["task"])))
    for grade in ("name", "behavior"):
        column = rates[f"{grade}_pass"].unstack("condition")
        if "original" in column and renamed in column:
            out[f"{grade}_decrease"] = column["original"] - column[renamed]
        else:
            out[f"{grade}_decrease"] = float("nan")
    uncovered = [t for t in out.index if t not in set(covered_tasks(frame))]
    out.loc[uncovered, "behavior_decrease"] = float("nan")
    out.index.name = "task"
    return out


def continuation_correlation(rows: Iterable[Mapping[str, Any]], decrease: pd.DataFrame
                             ) -> pd.DataFrame:
    """Spearman correlation of each run measure with each per-task renaming decrease.

    Rows: ``measure`` (``longest_run_original`` or ``run_excess``), ``decrease``
    (``name_decrease`` or ``behavior_decrease``), ``tasks`` (with both values), ``rho``, ``p``.
    Fewer than three tasks, or a constant column, gives NaN.
    """
    from scipy.stats import spearmanr

    runs = continuation_table(rows).set_index("task")
    joined = runs.join(decrease, how="inner")
    table: list[dict[str, Any]] = []
    for measure in CORRELATES:
        for target in DECREASES:
            pair = joined[[measure, target]].astype(float).dropna()
            rho = p = float("nan")
            if len(pair) >= 3 and pair[measure].nunique() > 1 and pair[target].nunique() > 1:
                result = spearmanr(pair[measure], pair[target])
                rho, p = float(result.statistic), float(result.pvalue)
            table.append({"measure": measure, "decrease": target, "tasks": len(pair),
                          "rho": rho, "p": p})
    return pd.DataFrame(table, columns=["measure", "decrease", "tasks", "rho", "p"])
