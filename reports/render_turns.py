"""Report sections of the feedback track (``turns.md``): pass rate by turn, the renaming gap
and its DiD by turn, the share of the DiD owed to the ``names`` feedback level, and cost.

Built only when some record has turns, so a one-shot report is unchanged.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from reports.bounds import direction
from reports.records import StatsError
from reports.render_data import Section, Settings, grade_label, interval, num
from reports.render_sections import SIGN_FOOTER, SIGN_MARK
from reports.turn_cost import STORED, ArmCost, PriceTable, arm_cost
from reports.turn_stats import (
    BEHAVIOR_UPPER,
    DID,
    GAP,
    NAMES,
    ORIGINAL,
    PASS,
    ArmTurns,
    arm_turns,
    arms,
    names_effects,
    names_row,
)
from reports.turns import CaseTurns

TURNS_TITLE = "Feedback turns"
RATES_TITLE = "Pass rate by turn (percent, 95% CI)"
GAPS_TITLE = "Renaming gap by turn (original − renamed) and DiD since turn 1"
NAMES_TITLE = "Name feedback: DiD at the last turn, with the `names` level minus without"
COST_TITLE = "Cost (USD, every turn's call)"
TURN_GRADES = ("name", "behavior")
ONE_SHOT_LABEL = "one-shot"
NAMES_HELP = ("No model has a feedback arm with the `names` level and one without: run the "
              "same model with `--alias-feedback parse,tlc,names` and `--alias-feedback "
              "parse,tlc` to see how much of the DiD the name feedback accounts for.")


def feedback_label(feedback: str) -> str:
    """``one-shot`` for the one-shot arm, else the feedback levels."""
    return feedback or ONE_SHOT_LABEL


def _estimate(mean: float, low: float, high: float, mark: bool = False) -> str:
    return f"{num(mean)}{SIGN_MARK if mark else ''} ({interval(low, high)})"


def _bound_pairs(curves: Sequence[ArmTurns]) -> dict[tuple[str, str], tuple[ArmTurns, ArmTurns]]:
    """Per arm with an upper-bound curve: its behavior curves (lower, upper)."""
    uppers = _uppers(curves)
    return {(c.model, c.feedback): (c, uppers[(c.model, c.feedback)]) for c in curves
            if c.grade == "behavior" and (c.model, c.feedback) in uppers}


def _flips(pair: tuple[ArmTurns, ArmTurns] | None, measure: str, cond: str, k: int) -> bool:
    """Whether ``measure`` under ``cond`` at turn ``k`` has a different sign under the two
    bounds."""
    if pair is None:
        return False
    lower, upper = (curve.get(measure, cond, k) for curve in pair)
    return lower is not None and upper is not None and \
        direction(lower.mean) != direction(upper.mean)


def _footer(settings: Settings) -> str:
    return (f"Intervals: {settings.level:.0%} percentile bootstrap over tasks, "
            f"{settings.n_boot:,} resamples, seed {settings.seed}.")


def turn_curves(frame: pd.DataFrame, settings: Settings) -> tuple[list[ArmTurns], list[str]]:
    """Pass rate by turn of every arm and grade of a :func:`reports.turns.turn_frame`, and a
    note for each one that could not be computed; the rates and gaps sections share them."""
    curves: list[ArmTurns] = []
    notes: list[str] = []
    for model, feedback in arms(frame):
        arm = frame[(frame["model"] == model) & (frame["feedback"] == feedback)]
        unsure = bool((arm["behavior_upper_pass"] != arm["behavior_pass"]).any())
        for grade in (*TURN_GRADES, BEHAVIOR_UPPER) if unsure else TURN_GRADES:
            try:
                curves.append(arm_turns(frame, grade, model, feedback, n_boot=settings.n_boot,
                                        seed=settings.seed, level=settings.level))
            except StatsError as exc:
                notes.append(f"{model}, {feedback_label(feedback)}, {grade}: {exc}")
                continue
            notes.extend(f"{model}, {feedback_label(feedback)}, {grade}: {n}"
                         for n in curves[-1].notes)
    return curves, notes


def _uppers(curves: Sequence[ArmTurns]) -> dict[tuple[str, str], ArmTurns]:
    """The behavior upper-bound curve of each arm that has one."""
    return {(c.model, c.feedback): c for c in curves if c.grade == BEHAVIOR_UPPER}


def _label(curve: ArmTurns, uppers: Mapping[tuple[str, str], ArmTurns]) -> str:
    """A curve's grade label; behavior's says ``(lower)`` when its arm has an upper curve."""
    bounded = curve.grade == "behavior" and (curve.model, curve.feedback) in uppers
    return grade_label(curve.grade) + (" (lower)" if bounded else "")


def rates_section(curves: Sequence[ArmTurns], notes: Sequence[str], settings: Settings
                  ) -> Section:
    """Per arm, grade and condition: the pass rate at each turn with its interval; where the
    behavior grade left cases undecided, its upper bound and decided share too."""
    last = max((c.turns for c in curves), default=1)
    uppers = _uppers(curves)
    pairs = _bound_pairs(curves)
    rows, records = [], []
    for curve in curves:
        for cond in curve.conditions:
            cells = []
            for k in range(1, last + 1):
                e = curve.get(PASS, cond, k)
                cells.append(_estimate(e.mean, e.low, e.high) if e else "–")
            rows.append((curve.model, feedback_label(curve.feedback), _label(curve, uppers),
                         cond, str(len(curve.tasks)), *cells))
        records += [r for r in curve.to_rows() if r["measure"] == PASS]
        if curve.grade != BEHAVIOR_UPPER or (curve.model, curve.feedback) not in pairs:
            continue
        lower, upper = pairs[(curve.model, curve.feedback)]
        for cond in curve.conditions:  # decided share = 100 − (upper − lower), same tasks
            shares = {k: 100.0 - (hi.mean - lo.mean) for k in range(1, last + 1)
                      if (lo := lower.get(PASS, cond, k)) and (hi := upper.get(PASS, cond, k))}
            rows.append((curve.model, feedback_label(curve.feedback), "decided share, behavior",
                         cond, str(len(curve.tasks)),
                         *(num(shares.get(k)) for k in range(1, last + 1))))
            records += [{"model": curve.model, "feedback": curve.feedback,
                         "grade": "behavior", "measure": "decided_share", "condition": cond,
                         "turn": k, "tasks": len(curve.tasks), "mean": share}
                        for k, share in shares.items()]
    return Section(
        "turn_rates", RATES_TITLE,
        ("model", "feedback", "grade", "condition", "tasks",
         *(f"turn {k}" for k in range(1, last + 1))),
        tuple(rows), tuple(records), tuple(dict.fromkeys(notes)),
        ("Mean over tasks of each task's share of passing samples at turn k. A case shows its "
         "output at turn min(k, its last turn): a case that passed stays passed. A turn with a "
         "cheat finding passes nothing; an infrastructure error fails every turn. Turn 1 of a "
         "feedback arm is a one-shot run (compare it with the one-shot arm); behavior rows use "
         "covered tasks only. Where the behavior grade decided nothing on some case (no_mapping, "
         "undecided), behavior comes as its lower bound (those cases failed), its upper bound "
         "(passed) and the decided share; an arm without these rows decided every case.",
         _footer(settings)), labels=4)


def gaps_section(curves: Sequence[ArmTurns], settings: Settings) -> Section:
    """Per arm, grade, renamed condition and turn: the gap and the DiD since turn 1."""
    rows, records = [], []
    uppers = _uppers(curves)
    pairs = _bound_pairs(curves)
    flipped = False
    for curve in curves:
        renamed = [c for c in curve.conditions if c != ORIGINAL]
        pair = pairs.get((curve.model, curve.feedback)) if curve.grade in (
            "behavior", BEHAVIOR_UPPER) else None
        for cond in renamed:
            for k in range(1, curve.turns + 1):
                gap = curve.get(GAP, cond, k)
                if gap is None:
                    continue
                did = curve.get(DID, cond, k)
                a, b = curve.get(PASS, ORIGINAL, k), curve.get(PASS, cond, k)
                marks = [_flips(pair, measure, cond, k) for measure in (GAP, DID)]
                flipped |= any(marks)
                rows.append((curve.model, feedback_label(curve.feedback),
                             _label(curve, uppers), f"{ORIGINAL} − {cond}", str(k),
                             str(len(curve.tasks)), num(a.mean if a else None),
                             num(b.mean if b else None),
                             _estimate(gap.mean, gap.low, gap.high, marks[0]),
                             _estimate(did.mean, did.low, did.high, marks[1]) if did else "–"))
        records += [r for r in curve.to_rows() if r["measure"] in (GAP, DID)]
    if not rows:
        raise StatsError(f"no arm has the {ORIGINAL!r} condition and a renamed one")
    return Section(
        "turn_gaps", GAPS_TITLE,
        ("model", "feedback", "grade", "comparison", "turn", "tasks", "original %",
         "renamed %", "gap (95% CI)", "DiD since turn 1 (95% CI)"),
        tuple(rows), tuple(records), (),
        ("gap = original − renamed pass rate at turn k (points); DiD = gap(k) − gap(1), "
         "paired over tasks: negative when the feedback turns close the renaming gap.",
         _footer(settings),
         *([SIGN_FOOTER.replace("The decrease", "The gap or DiD")] if flipped else [])),
        labels=5)


def names_section(frame: pd.DataFrame, settings: Settings) -> Section:
    """Per model with arms with and without the ``names`` level: the DiD difference."""
    rows, records, notes = [], [], []
    for model in sorted({m for m, _ in arms(frame)}):
        for grade in TURN_GRADES:
            effects, problems = names_effects(frame, grade, model, n_boot=settings.n_boot,
                                              seed=settings.seed, level=settings.level)
            notes += problems
            for e in effects:
                rows.append((model, grade_label(grade), f"{ORIGINAL} − {e.renamed}",
                             f"{e.with_names} / {e.without_names}",
                             f"{e.turn_with} / {e.turn_without}", str(e.n_tasks),
                             *(_estimate(x.mean, x.low, x.high)
                               for x in (e.did_with, e.did_without, e.difference))))
                records.append(names_row(e))
                notes += [f"{model}, {grade}, {e.with_names} vs {e.without_names}: {n}"
                          for n in e.notes]
    if not rows and not notes:
        notes.append(NAMES_HELP)
    return Section(
        "turn_names", NAMES_TITLE,
        ("model", "grade", "comparison", "feedback (with / without names)", "last turns",
         "tasks", "DiD with names (95% CI)", "DiD without (95% CI)",
         "difference (95% CI)"),
        tuple(rows), tuple(records), tuple(dict.fromkeys(notes)),
        (f"DiD = gap(last turn) − gap(turn 1) per arm; difference = DiD with the {NAMES!r} "
         f"level − DiD without, paired over the tasks both arms grade: negative when the name "
         f"feedback closes more of the gap.", _footer(settings)), labels=6)


def arm_costs(cases: Sequence[CaseTurns]) -> list[ArmCost]:
    """One :class:`ArmCost` per model × feedback arm (one-shot first)."""
    groups: dict[tuple[str, str], list[CaseTurns]] = {}
    for case in cases:
        groups.setdefault((case.model, case.feedback), []).append(case)
    out = []
    for (model, feedback), group in sorted(groups.items(),
                                           key=lambda kv: (kv[0][0], kv[0][1] != "", kv[0][1])):
        passes = {g: sum(c.passed(g, max(c.turns_max, len(c.turns))) for c in group)
                  for g in TURN_GRADES}
        out.append(arm_cost(model, feedback, ([t.call for t in c.turns] for c in group), passes))
    return out


def _money(value: float | None) -> str:
    return "–" if value is None else f"{value:.4f}"


def _cost_note(cost: ArmCost) -> str:
    counted = (f"{cost.tokenizer_counted} call(s) with tokens counted by a tokenizer"
               if cost.tokenizer_counted else "")
    if cost.usd is None:
        note = "no price" if cost.unpriced else "cost not recorded"
        return note if not counted else f"{note}; {counted}"
    missing = [f"{n} call(s) {what}" for n, what in (
        (cost.unpriced, "without a price"), (cost.without_tokens, "without token counts"),
        (cost.not_recorded, "without a recorded cost")) if n]
    bound = f"lower bound: {', '.join(missing)}" if missing else ""
    return "; ".join(part for part in (bound, counted) if part)


def cost_section(cases: Sequence[CaseTurns], prices_origin: str) -> Section:
    """Per arm: calls, tokens, total cost, cost per case and per passing case; a total row."""
    costs = arm_costs(cases)
    rows: list[tuple[str, ...]] = []
    records: list[dict[str, Any]] = []
    for c in costs:
        rows.append((c.model, feedback_label(c.feedback), str(c.cases), str(c.calls),
                     f"{c.input_tokens:,}", f"{c.output_tokens:,}", _money(c.usd),
                     _money(c.per_case), *(_money(c.per_pass(g)) for g in TURN_GRADES),
                     _cost_note(c)))
        records.append({**c.to_json(), "prices": prices_origin})
    total = sum(c.usd for c in costs if c.usd is not None)
    complete = all(c.complete for c in costs)
    unpriced = sorted({c.model for c in costs if c.unpriced})
    rows.append(("total", "", str(sum(c.cases for c in costs)), str(sum(c.calls for c in costs)),
                 f"{sum(c.input_tokens for c in costs):,}",
                 f"{sum(c.output_tokens for c in costs):,}", _money(total), "", "", "",
                 "" if complete else "lower bound"))
    records.append({"model": "total", "feedback": "", "cost_usd": total, "complete": complete,
                    "unpriced_models": unpriced, "prices": prices_origin})
    notes = []
    if unpriced:
        notes.append(f"no price for {', '.join(unpriced)}: their calls are left out of the "
                     f"totals (give a price file with `alias-bench report --prices FILE`)")
    if not complete:
        notes.append("the study total is a lower bound: some calls have no price, no token "
                     "counts or no recorded cost")
    if any(c.tokenizer_counted for c in costs):
        notes.append("some calls reported no token counts: a tokenizer counted their tokens "
                     "(`--alias-tokenizer`), so their tokens and cost are estimates")
    if any(c.not_recorded for c in costs):
        notes.append("one-shot records store no cost: `alias-bench report` prices every call "
                     "from its token counts")
    where = ("the cost each run stored per turn" if prices_origin == STORED
             else f"prices from {prices_origin}")
    return Section(
        "turn_cost", COST_TITLE,
        ("model", "feedback", "cases", "calls", "input tokens", "output tokens", "cost",
         "per case", "per name pass", "per behavior pass", "note"),
        tuple(rows), tuple(records), tuple(notes),
        (f"USD, {where}. Every turn's call counts; per pass = the arm's cost / its cases "
         "passing that grade at their last turn (a cheat or an infrastructure error never "
         "passes). A model without a price has no cost (–), never 0.",), labels=2)


def prices_origin(prices: PriceTable | None) -> str:
    """Where the report's costs come from."""
    return STORED if prices is None else prices.origin
