"""The terminal summary of a run, and the entry point that writes its report folder."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any

from reports.schema import GRADES, UNDECIDED_VERDICTS
from reports.stand_ins import stand_in_note
from reports.turn_cost import PriceTable


def summary_lines(records: list[dict[str, Any]]) -> list[str]:
    """Pass rates per condition and grade over all recorded cases (mean over samples), with
    the behavior rate's upper bound (cases whose verdict decides nothing counted as passes)
    and the behavior grade's decided share (of the cases on tasks it covers)."""
    cases = list({r["id"]: r for r in records if r.get("kind") == "case"}.values())
    lines = [f"cases in the results file: {len(cases)}"]
    note = stand_in_note(str(r.get("model", "")) for r in cases)
    if note:
        lines.append(note)
    infra = [r for r in cases if r.get("infra_error")]
    if infra:
        lines.append(f"infrastructure errors: {len(infra)} (counted as not passed)")
    by_cond: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for record in cases:
        by_cond[record["condition"]].append(record)
    if not cases:
        return lines
    lines.append(f"{'condition':<12}" + "".join(f"{g:>10}" for g in GRADES)
                 + f"{'b. upper':>10}{'decided':>10}   cases")
    for cond in sorted(by_cond, key=lambda c: (c != "original", c)):
        rows = by_cond[cond]
        cells = []
        for grade in GRADES:
            passed = sum(1 for r in rows if _counts(r) and _grade(r, grade).get("passed"))
            cells.append(f"{100 * passed / len(rows):9.1f}%")
        behavior = [str(_grade(r, "behavior").get("verdict")) for r in rows]
        undecided = sum(1 for r, v in zip(rows, behavior, strict=True)
                        if _counts(r) and v in UNDECIDED_VERDICTS)
        passed = sum(1 for r in rows if _counts(r) and _grade(r, "behavior").get("passed"))
        graded = sum(1 for v in behavior if v != "not_covered")
        cells.append(f"{100 * (passed + undecided) / len(rows):9.1f}%")
        cells.append(f"{100 * (graded - undecided) / graded:9.1f}%" if graded else f"{'–':>10}")
        lines.append(f"{cond:<12}" + "".join(cells) + f"   {len(rows):>5}")
    return lines + taxonomy_lines(cases) + turn_lines(cases)


def taxonomy_lines(cases: list[dict[str, Any]]) -> list[str]:
    """Per condition and stage, the outputs in each class of the failure taxonomy (the classes
    some output is in, in display order): :mod:`reports.taxonomy`."""
    from reports.taxonomy import CLASSES, STAGES, classify

    counts: dict[tuple[str, str], dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for case in cases:
        placed = classify(case, infra=case.get("infra_error") is not None,
                          cheat=bool(case.get("cheats")))
        for stage in STAGES:
            counts[(str(case["condition"]), stage)][placed[stage].key] += 1
    lines = ["failure classes (docs/failure-taxonomy.md):"] if counts else []
    for cond in sorted({c for c, _ in counts}, key=lambda c: (c != "original", c)):
        for stage in STAGES:
            found = counts[(cond, stage)]
            lines.append(f"  {cond:<10} {stage:<9} " + ", ".join(
                f"{c.key}={found[c.key]}" for c in CLASSES[stage] if found.get(c.key)))
    return lines


def _counts(record: dict[str, Any]) -> bool:
    """Whether a case's grades count: no infrastructure failure, no cheat."""
    return not record.get("infra_error") and not record.get("cheats")


def _grade(record: dict[str, Any], grade: str) -> dict[str, Any]:
    found = (record.get("grades") or {}).get(grade)
    return found if isinstance(found, dict) else {}


def turn_lines(cases: list[dict[str, Any]]) -> list[str]:
    """One line per feedback arm: pass share at turn 1 and at the last turn, and the cost
    stored per turn (none when no record has turns)."""
    from reports.records import StatsError
    from reports.render_turns import arm_costs, feedback_label
    from reports.turn_stats import pass_at_turns
    from reports.turns import case_turns, has_turns, turn_frame

    if not has_turns(cases):
        return []
    try:
        turns = case_turns(cases)
        shares = pass_at_turns(turn_frame(turns))
    except StatsError as exc:
        return [f"feedback turns: not summarized ({exc})"]
    costs = {(c.model, c.feedback): c for c in arm_costs(turns)}
    lines = []
    for (model, feedback), by_grade in shares.items():
        last = next(iter(by_grade.values()))[2]
        if last < 2:
            continue
        rates = ", ".join(f"{g} {first:.1f}% -> {final:.1f}%"
                          for g, (first, final, _) in by_grade.items())
        cost = costs[(model, feedback)]
        money = ("cost unknown" if cost.usd is None
                 else f"cost ${cost.usd:.4f}{'' if cost.complete else ' (a lower bound)'}")
        if cost.tokenizer_counted:
            money += f", {cost.tokenizer_counted} call(s) counted by a tokenizer"
        lines.append(f"feedback {feedback_label(feedback)} ({model}), turn 1 -> {last}: {rates}; "
                     f"{money}")
    return lines


PROBES_FOLDER = "probes"
"""Probe files of a run: ``<out>/probes/<kind>.jsonl`` (benchmarks/test_probes.py)."""


def write_report(results: Path, out_dir: Path, prices: PriceTable | None = None) -> Path:
    """Write the report folder for a results file (tables, statistics, HTML page), with the
    probe files beside it (``probes/*.jsonl``) when there are any; ``prices`` prices the
    feedback track's calls (else the cost stored per turn is used)."""
    from reports.render import write_report as render

    return render([results], out_dir, probes=sorted((results.parent / PROBES_FOLDER).glob("*.jsonl")),
                  prices=prices)
