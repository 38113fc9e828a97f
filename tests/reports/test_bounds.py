"""Tests for the behavior rate's bounds and decided share (reports.bounds) in every output.

Three crafted runs: every behavior verdict decided (the bounds coincide), some undecided (the
bounds differ by exactly the undecided share), and a renaming decrease whose sign flips between
the bounds (the table marks it).
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from reports.bounds import behavior_bounds, bounded_difference
from reports.records import records_to_frame
from reports.render import write_report
from reports.render_data import ExposurePair, bounded
from reports.render_sections import SIGN_MARK
from reports.schema import UNDECIDED_VERDICTS
from reports.summary import summary_lines
from tests.reports.test_render import FAST, header, strict_json, write_run
from tlc_harness.behavior.verdicts import BehaviorVerdict

# Per task and condition, one behavior verdict per sample ("ok" passes; "-" = an infrastructure
# error). Every sample parses; only "ok" passes the name grade.
Verdicts = Mapping[str, Mapping[str, Sequence[str]]]
DECIDED: Verdicts = {
    "t0": {"original": ("ok", "ok", "forward_fail", "ok"),
           "random": ("ok", "reverse_fail", "forward_fail", "ok")},
    "t1": {"original": ("ok", "ok", "ok", "ok"), "random": ("ok", "ok", "ok", "forward_fail")},
}
UNDECIDED: Verdicts = {
    # original: t0 2 pass + 1 undecided, t1 4 pass -> lower 75, upper 87.5, decided 87.5
    # random: t0 1 pass + 2 undecided, t1 3 pass -> lower 50, upper 75, decided 75
    "t0": {"original": ("ok", "ok", "undecided", "forward_fail"),
           "random": ("ok", "no_mapping", "undecided", "reverse_fail")},
    "t1": {"original": ("ok", "ok", "ok", "ok"), "random": ("ok", "ok", "ok", "forward_fail")},
    # not covered: in no behavior rate, decided share included
    "t2": {"original": ("not_covered",) * 4, "random": ("not_covered",) * 4},
}
FLIP: Verdicts = {
    # original 50 either way; random 25 (lower) or 75 (upper): decrease +25 vs -25
    "t0": {"original": ("ok", "ok", "forward_fail", "forward_fail"),
           "random": ("ok", "undecided", "no_mapping", "forward_fail")},
    "t1": {"original": ("ok", "forward_fail", "ok", "reverse_fail"),
           "random": ("undecided", "ok", "undecided", "reverse_fail")},
}


def records(verdicts: Verdicts, model: str = "m") -> list[dict[str, Any]]:
    """Case records with the given behavior verdicts."""
    out = []
    for task, by_condition in verdicts.items():
        for condition, samples in by_condition.items():
            for sample, verdict in enumerate(samples):
                record: dict[str, Any] = {
                    "schema_version": 1, "kind": "case", "id": f"{task}/{condition}/s{sample}",
                    "model": model, "task": task, "condition": condition, "sample": sample,
                    "hidden_names": [], "grades": {}, "infra_error": None}
                if verdict == "-":
                    record["infra_error"] = "TLC worker died"
                else:
                    record["grades"] = {
                        "parse": {"verdict": "ok", "passed": True},
                        "name": {"verdict": "ok" if verdict == "ok" else "invariant_violated",
                                 "passed": verdict == "ok"},
                        "behavior": {"verdict": verdict, "passed": verdict == "ok",
                                     "covered": verdict != "not_covered"}}
                out.append(record)
    return out


def report(tmp_path: Path, verdicts: Verdicts) -> Path:
    """The report folder of a run with these verdicts."""
    results = tmp_path / "results.jsonl"
    lines = [header("m"), *records(verdicts)]
    results.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    write_report([results], tmp_path / "out", n_boot=FAST)
    return tmp_path / "out"


def behavior_row(folder: Path) -> list[str]:
    """Table 1's behavior row (Markdown), cells stripped."""
    for line in (folder / "table1.md").read_text(encoding="utf-8").splitlines():
        if "correct, behavior" in line:
            return [c.strip() for c in line.strip("|").split("|")]
    raise AssertionError("no behavior row in table1.md")


def test_the_undecided_verdicts_are_the_graders_undecided_ones() -> None:
    assert UNDECIDED_VERDICTS == {v.value for v in BehaviorVerdict
                                  if not v.decided and v is not BehaviorVerdict.NOT_COVERED}


@pytest.mark.parametrize(("lower", "upper", "shown"), [
    (50.0, 50.0, "50.0"), (50.0, 51.0, "50.0"), (50.0, 51.05, "50.0–51.0"),
    (66.666667, 75.0, "66.7–75.0"), (50.0, float("nan"), "50.0")])
def test_a_range_prints_only_when_wider_than_one_point(lower: float, upper: float,
                                                       shown: str) -> None:
    assert bounded(lower, upper) == shown


def test_all_decided_bounds_coincide_and_print_as_one_number(tmp_path: Path) -> None:
    bounds = behavior_bounds(records_to_frame(records(DECIDED)))
    assert bounds.loc[("m", "lower")].tolist() == bounds.loc[("m", "upper")].tolist()
    assert bounds.loc[("m", "decided_share"), ["Original", "Random"]].tolist() == [100.0, 100.0]
    folder = report(tmp_path, DECIDED)
    assert behavior_row(folder) == ["m correct, behavior", "87.5", "62.5", "2"]
    assert "| m decided share, behavior | 100.0 | 100.0 | 2 |" in (
        folder / "table1.md").read_text(encoding="utf-8")
    differences = (folder / "differences.md").read_text(encoding="utf-8")
    assert "(lower)" not in differences and SIGN_MARK not in differences
    assert 'fill-opacity="0.3"' not in (folder / "index.html").read_text(encoding="utf-8")
    assert "| m | correct, behavior | original − random | 2 | 87.5 | 62.5 | 100.0 → 100.0 | 25.0 |" \
        in differences
    (row,) = [r for r in strict_json((folder / "stats.json").read_text(encoding="utf-8"))[
        "sections"]["differences"]["rows"] if r["grade"] == "behavior"]
    assert row["upper_mean"] == row["mean"] == 25.0
    assert row["sign_differs"] is False


def test_undecided_cases_widen_the_bounds_by_exactly_their_share(tmp_path: Path) -> None:
    frame = records_to_frame(records(UNDECIDED))
    bounds = behavior_bounds(frame)
    lower, upper, decided = (bounds.loc[("m", m), ["Original", "Random"]].tolist()
                             for m in ("lower", "upper", "decided_share"))
    assert lower == [75.0, 50.0]
    assert upper == [87.5, 75.0]
    assert decided == [87.5, 75.0]
    assert [hi - lo for lo, hi in zip(lower, upper, strict=True)] == [
        100.0 - d for d in decided]
    assert bounds.loc[("m", "lower"), "tasks"] == 2  # t2 is not covered: in no behavior rate

    folder = report(tmp_path, UNDECIDED)
    assert behavior_row(folder) == ["m correct, behavior", "75.0–87.5", "50.0–75.0", "2"]
    table1 = strict_json((folder / "stats.json").read_text(encoding="utf-8"))[
        "sections"]["table1"]["rows"]
    (row,) = [r for r in table1 if r["grade"] == "behavior"]
    assert {k: row[k] for k in row if k.startswith(("original_", "random_"))} == {
        "original_lower": 75.0, "original_upper": 87.5, "original_decided_share": 87.5,
        "random_lower": 50.0, "random_upper": 75.0, "random_decided_share": 75.0}
    assert "random_upper" in (folder / "table1.csv").read_text(encoding="utf-8")
    differences = (folder / "differences.md").read_text(encoding="utf-8")
    assert "| m | correct, behavior (lower) | original − random | 2 | 75.0 | 50.0 | 87.5 → 75.0 " \
           "| 25.0 |" in differences
    assert "| m | correct, behavior (upper) | original − random | 2 | 87.5 | 75.0 | 87.5 → 75.0 " \
           "| 12.5 |" in differences
    assert SIGN_MARK not in differences
    html = (folder / "index.html").read_text(encoding="utf-8")
    assert "75.0–87.5" in html and "correct, behavior (upper)" in html
    assert html.count('fill-opacity="0.3"') == 2  # both behavior bars reach their upper bound
    assert "m · correct, behavior (upper) · original − random" in html  # the decrease plot


def test_summary_shows_the_upper_bound_and_the_decided_share() -> None:
    lines = summary_lines(records(UNDECIDED))
    assert lines[1].split()[-4:] == ["b.", "upper", "decided", "cases"]
    # pooled over cases: t2's not-covered cases stay in the rate's denominator, as before,
    # and out of the decided share's
    assert lines[2].split() == ["original", "100.0%", "50.0%", "50.0%", "58.3%", "87.5%", "12"]
    assert lines[3].split() == ["random", "100.0%", "33.3%", "33.3%", "50.0%", "75.0%", "12"]


def test_a_decrease_whose_sign_flips_between_the_bounds_is_marked(tmp_path: Path) -> None:
    b = bounded_difference(records_to_frame(records(FLIP)), n_boot=FAST)
    assert (b.lower.mean, b.upper.mean) == (25.0, -25.0)
    assert b.sign_differs and not b.all_decided
    assert (b.decided_a, b.decided_b) == (100.0, 50.0)
    assert b.lower.ci_low <= 25.0 <= b.lower.ci_high
    assert b.upper.ci_low <= -25.0 <= b.upper.ci_high
    folder = report(tmp_path, FLIP)
    differences = (folder / "differences.md").read_text(encoding="utf-8")
    assert f"| 25.0{SIGN_MARK} |" in differences and f"| −25.0{SIGN_MARK} |" in differences
    assert f"{SIGN_MARK} The decrease has a different sign under the two bounds" in differences
    assert behavior_row(folder) == ["m correct, behavior", "50.0", "25.0–75.0", "2"]
    (row,) = [r for r in strict_json((folder / "stats.json").read_text(encoding="utf-8"))[
        "sections"]["differences"]["rows"] if r["grade"] == "behavior"]
    assert (row["mean"], row["upper_mean"], row["sign_differs"]) == (25.0, -25.0, True)
    assert (row["decided_share_a"], row["decided_share_b"]) == (100.0, 50.0)
    assert "sign_differs" in (folder / "differences.csv").read_text(encoding="utf-8")


def test_infrastructure_errors_and_cheats_stay_failures_under_both_bounds() -> None:
    verdicts: Verdicts = {
        "t0": {"original": ("ok", "-"), "random": ("ok", "undecided")},
        "t1": {"original": ("ok", "ok"), "random": ("ok", "ok")}}
    rows = records(verdicts)
    rows[-3]["cheats"] = [{"rule": "false_spec"}]  # t1/original/s1: passes, but cheated
    bounds = behavior_bounds(records_to_frame(rows))
    assert bounds.loc[("m", "lower"), ["Original", "Random"]].tolist() == [50.0, 75.0]
    assert bounds.loc[("m", "upper"), ["Original", "Random"]].tolist() == [50.0, 100.0]
    assert bounds.loc[("m", "decided_share"), ["Original", "Random"]].tolist() == [100.0, 75.0]


def test_table2_gives_behavior_under_both_bounds(tmp_path: Path) -> None:
    first = write_run(tmp_path / "a.jsonl", model="qwen-a")  # one undecided case each
    second = write_run(tmp_path / "b.jsonl", model="qwen-b")
    write_report([first, second], tmp_path / "out", n_boot=FAST,
                 exposure=[ExposurePair("qwen-a", "qwen-b", "qwen")])
    table2 = (tmp_path / "out" / "table2.md").read_text(encoding="utf-8")
    assert "| qwen | correct, behavior (lower) |" in table2
    assert "| qwen | correct, behavior (upper) |" in table2
    assert "Table 1 gives each model's decided share" in table2
    rows = list(csv.DictReader(io.StringIO(
        (tmp_path / "out" / "table2.csv").read_text(encoding="utf-8"))))
    (behavior,) = [r for r in rows if r["measure"] == "behavior"]
    assert {"upper_did", "upper_did_low", "upper_did_high", "did_sign_differs"} <= set(behavior)
    assert behavior["did_sign_differs"] in ("True", "False")


def test_the_feedback_track_gives_behavior_by_turn_under_both_bounds(tmp_path: Path) -> None:
    from tests.reports.test_turn_report import header as turn_header
    from tests.reports.test_turn_report import multi, write

    plan = {("t1", "original"): ["", "nb"], ("t2", "original"): ["", "nb"],
            ("t1", "random"): ["u", "u"], ("t2", "random"): ["", "nb"]}
    cases = [multi(task, cond, 0, outcomes) for (task, cond), outcomes in plan.items()]
    for case in cases:
        for entry, outcome in zip(case["turns"], plan[(case["task"], case["condition"])],
                                  strict=True):
            if "u" in outcome:
                entry["grades"]["behavior"]["verdict"] = "undecided"
    results = write(tmp_path / "r.jsonl", [turn_header(), *cases])
    write_report([results], tmp_path / "out", n_boot=FAST)
    turns = (tmp_path / "out" / "turns.md").read_text(encoding="utf-8")
    arm = "| m | parse,tlc,names |"
    # random: lower 0 -> 50, upper 50 -> 100, so half the cases were decided at each turn
    assert f"{arm} correct, behavior (lower) | random | 2 | 0.0 (0.0 to 0.0) | 50.0 " in turns
    assert f"{arm} correct, behavior (upper) | random | 2 | 50.0 (0.0 to 100.0) | 100.0 " in turns
    assert f"{arm} decided share, behavior | random | 2 | 50.0 | 50.0 |" in turns
    assert f"{arm} decided share, behavior | original | 2 | 100.0 | 100.0 |" in turns
    # the gap: 0 (lower) vs -50 (upper) at turn 1, 50 vs 0 at turn 2; the DiD is 50 under both
    assert f"| 0.0{SIGN_MARK} (0.0 to 0.0) | – |" in turns
    assert f"| −50.0{SIGN_MARK} (" in turns
    assert f"| 50.0{SIGN_MARK} (0.0 to 100.0) | 50.0 (" in turns
    assert "The gap or DiD has a different sign under the two bounds" in turns
    stats = strict_json((tmp_path / "out" / "stats.json").read_text(encoding="utf-8"))
    shares = [r for r in stats["sections"]["turn_rates"]["rows"]
              if r["measure"] == "decided_share" and r["condition"] == "random"]
    assert [r["mean"] for r in shares] == [50.0, 50.0]
