"""Tests for the feedback track in the reports: records with turns and cheats, the by-turn frame,
statistics by turn (pass rate, gap, DiD, the name feedback's share), cost, and the report
section, on hand-built records with exact expected numbers."""

from __future__ import annotations

import csv
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from alias_cli.main import main
from reports.records import StatsError, by_arm, load_records, records_to_frame
from reports.render import write_report
from reports.render_turns import arm_costs, cost_section
from reports.stats import bootstrap_means, paired_difference
from reports.summary import summary_lines
from reports.turn_stats import arm_turns, names_effects
from reports.turns import case_turns, load_case_turns, turn_frame

FAST = 2000
LEVELS = ("parse", "tlc", "names")
NO_NAMES = ("parse", "tlc")


# -- record builders --------------------------------------------------------------------------

def grades(outcome: str) -> dict[str, Any]:
    """Grades where ``n`` in ``outcome`` = the name grade passed, ``b`` = behavior passed."""
    name, behavior = "n" in outcome, "b" in outcome
    return {"parse": {"verdict": "ok", "passed": True},
            "name": {"verdict": "ok" if name else "config_bind_fail", "passed": name,
                     "missing_names": []},
            "behavior": {"verdict": "ok" if behavior else "forward_fail", "passed": behavior,
                         "covered": True}}


def turn(number: int, outcome: str, *, cheats: Sequence[str] = (),
         tokens: tuple[int, int] | None = (1000, 500), cost: float | None = 0.01,
         model: str = "m") -> dict[str, Any]:
    """One turn entry as the run writes it (the primary grade is behavior)."""
    generation = {"model": model, "input_tokens": tokens[0] if tokens else None,
                  "output_tokens": tokens[1] if tokens else None}
    passed = "b" in outcome and not cheats
    return {"turn": number, "generation": generation, "output_sha256": "0" * 64,
            "output_path": f"s0_t{number}.txt", "grades": grades(outcome),
            "cheats": [{"rule": r, "detail": "Spec == FALSE (Out.tla line 3)"} for r in cheats],
            "passed": passed, "reason": "" if passed else "behavior: forward_fail",
            "feedback": None, "cost_usd": cost, "seconds": 1.5, "infra_error": None}


def multi(task: str, condition: str, sample: int, outcomes: Sequence[str], *,
          model: str = "m", levels: Sequence[str] = LEVELS, turns_max: int = 2,
          infra: str | None = None, cheats: Sequence[str] = (),
          turns: list[dict[str, Any]] | None = None, **kw: Any) -> dict[str, Any]:
    """A multi-turn case record; ``cheats`` fire on the last turn."""
    entries = turns if turns is not None else [
        turn(i, o, cheats=cheats if i == len(outcomes) else (), model=model, **kw)
        for i, o in enumerate(outcomes, start=1)]
    for entry in entries[:-1]:
        entry["feedback"] = {"text": "TLC says ...", "levels": list(levels)}
    last = entries[-1] if entries else {}
    costs = [t.get("cost_usd") for t in entries]
    return {"schema_version": 1, "kind": "case", "id": f"{task}/{condition}/s{sample}",
            "model": model, "task": task, "condition": condition, "sample": sample,
            "hidden_names": [], "grades": last.get("grades", {}), "infra_error": infra,
            "generation": last.get("generation"), "turns_max": turns_max,
            "feedback_levels": list(levels), "cheats": last.get("cheats", []),
            "cost_usd": None if None in costs else sum(c for c in costs if c is not None),
            "turns": entries}


def one_shot(task: str, condition: str, sample: int, outcome: str, *, model: str = "m",
             tokens: tuple[int, int] = (1000, 500)) -> dict[str, Any]:
    """A one-shot record (no feedback-track keys)."""
    return {"schema_version": 1, "kind": "case", "id": f"{task}/{condition}/s{sample}",
            "model": model, "task": task, "condition": condition, "sample": sample,
            "hidden_names": [], "grades": grades(outcome), "infra_error": None,
            "generation": {"model": model, "input_tokens": tokens[0],
                           "output_tokens": tokens[1]}}


def header(model: str = "m", turns: int = 2, levels: Sequence[str] = LEVELS) -> dict[str, Any]:
    extra = {"turns": turns, "feedback_levels": list(levels)} if turns > 1 else {}
    return {"schema_version": 1, "kind": "header", "model": model, "git_commit": "abc",
            **extra}


def write(path: Path, lines: Sequence[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


@dataclass(frozen=True)
class Rate:
    input_per_million: float
    output_per_million: float


@dataclass(frozen=True)
class Table:
    """A price table shaped like alias_fixtures.models.cost.Prices."""

    rates: dict[str, Rate]
    origin: str = "test prices"

    def price_of(self, model: str) -> Rate | None:
        return self.rates.get(model)


# Task t1..t3, original passes at turn 1; renamed cases recover on turn 2 more often with the
# name feedback. Random behavior at turn 2: names arm (1, 0.5, 0), no-names arm (0.5, 0, 0).
RECOVERY = {"names": {"t1": (["", "nb"], ["", "nb"]), "t2": (["", "nb"], ["", ""]),
                      "t3": (["", ""], ["", ""])},
            "no_names": {"t1": (["", "nb"], ["", ""]), "t2": (["", ""], ["", ""]),
                         "t3": (["", ""], ["", ""])}}


def recovery_records(arm: str, levels: Sequence[str]) -> list[dict[str, Any]]:
    records = []
    for task, samples in RECOVERY[arm].items():
        for s, outcomes in enumerate(samples):
            records.append(multi(task, "original", s, ["nb"], levels=levels))
            records.append(multi(task, "random", s, outcomes, levels=levels))
    return records


# -- records frame ----------------------------------------------------------------------------

def test_a_cheat_never_passes_and_is_its_own_column() -> None:
    cheat = multi("t1", "original", 0, ["", "nb"], cheats=["false_spec"])
    frame = records_to_frame([cheat, one_shot("t1", "original", 1, "nb")])
    assert frame["cheat"].tolist() == [True, False]
    assert frame["parse_pass"].tolist() == [False, True]
    assert frame["name_pass"].tolist() == [False, True]
    assert frame["behavior_pass"].tolist() == [False, True]
    assert frame["feedback"].tolist() == ["parse,tlc,names", ""]
    assert frame["turns"].tolist() == [2, 1]
    assert frame["turns_max"].tolist() == [2, 1]


def test_feedback_column_joins_the_case_key() -> None:
    records = [one_shot("t1", "original", 0, "nb"),
               multi("t1", "original", 0, ["nb"]),
               multi("t1", "original", 0, ["nb"], levels=NO_NAMES),
               multi("t1", "original", 0, ["nb"], levels=())]
    frame = records_to_frame(records)
    assert frame["feedback"].tolist() == ["", "parse,tlc,names", "parse,tlc", "none"]
    assert by_arm(frame)["model"].tolist() == [
        "m", "m [feedback parse,tlc,names]", "m [feedback parse,tlc]", "m [feedback none]"]
    with pytest.raises(StatsError, match=r"record 2: case m/t1/original/0 \(feedback "
                                         r"parse,tlc,names\) already recorded at record 1"):
        records_to_frame([records[1], records[1]])


def test_a_case_without_turn_keys_takes_its_run_headers_arm(tmp_path: Path) -> None:
    unverified = one_shot("t2", "random", 0, "") | {"infra_error": "variant not verified"}
    path = write(tmp_path / "r.jsonl", [header(), multi("t1", "original", 0, ["nb"]),
                                        unverified])
    other = write(tmp_path / "s.jsonl", [one_shot("t2", "random", 0, "")])
    frame = load_records([path, other])
    assert frame["feedback"].tolist() == ["parse,tlc,names", "parse,tlc,names", ""]
    assert frame["turns_max"].tolist() == [2, 2, 1]


BAD_TURNS: list[tuple[dict[str, Any], str]] = [
    ({"cheats": "false_spec"}, "'cheats' must be a list of objects with a string 'rule'"),
    ({"cheats": [{"detail": "x"}]}, "'cheats' must be a list"),
    ({"feedback_levels": "names"}, "'feedback_levels' must be a list"),
    ({"turns_max": 1}, "2 turns recorded but 'turns_max' is 1"),
    ({"turns_max": 0}, "'turns_max' must be a positive integer"),
    ({"turns": "two"}, "'turns' must be a list"),
    ({"turns": []}, "'turns' is empty but the case has no infra_error"),
]


@pytest.mark.parametrize(("change", "message"), BAD_TURNS)
def test_malformed_multi_turn_records_raise_with_location(change: dict[str, Any], message: str
                                                          ) -> None:
    record = multi("t1", "random", 0, ["", "nb"]) | change
    with pytest.raises(StatsError, match=message) as info:
        case_turns([multi("t1", "original", 0, ["nb"]), record])
    assert str(info.value).startswith("record 2: ")


def test_a_record_with_only_some_turn_keys_is_refused() -> None:
    record = multi("t1", "random", 0, ["nb"])
    del record["feedback_levels"]
    with pytest.raises(StatsError, match="record 1: a multi-turn record needs .* lacks "
                                         "'feedback_levels'"):
        records_to_frame([record])


@pytest.mark.parametrize(("index", "change", "message"), [
    (1, {"turn": 1}, "turn 2: 'turn' must be 2, got 1"),
    (0, {"passed": True}, "turn 1: it passed, yet turn 2 follows"),
    (0, {"passed": "yes"}, "turn 1: 'passed' must be true or false"),
    (1, {"cost_usd": -1}, "turn 2: 'cost_usd' must be null or a number >= 0"),
    (1, {"generation": {"model": "m", "input_tokens": -5}}, "turn 2: 'generation.input_tokens'"),
    (1, {"grades": {"name": {"verdict": "ok"}}}, "turn 2: 'grades.name' needs a string"),
    (0, {"cheats": [{"rule": 3}]}, "turn 1: 'cheats' must be a list"),
])
def test_malformed_turn_entries_raise_naming_the_turn(tmp_path: Path, index: int,
                                                      change: dict[str, Any], message: str
                                                      ) -> None:
    record = multi("t1", "random", 0, ["", "nb"])
    record["turns"][index].update(change)
    path = write(tmp_path / "r.jsonl", [header(), record])
    with pytest.raises(StatsError, match=message) as info:
        load_case_turns(path)
    assert str(info.value).startswith(f"{path}:2: ")


def test_the_record_grades_must_be_its_last_turns() -> None:
    record = multi("t1", "random", 0, ["", "nb"])
    record["grades"] = grades("n")
    with pytest.raises(StatsError, match="'grades.behavior.passed' is False but the last "
                                         "turn's is True"):
        case_turns([record])


# -- the by-turn frame ------------------------------------------------------------------------

def test_turn_frame_carries_the_last_turn_forward_and_fails_cheats_and_infra() -> None:
    infra_turns = [turn(1, "n"), {"turn": 2, "infra_error": "model: timeout", "cost_usd": None}]
    records = [
        multi("t1", "original", 0, ["nb"], turns_max=3),  # passes on turn 1
        multi("t1", "random", 0, ["", "n", "nb"], turns_max=3),  # recovers step by step
        multi("t1", "random", 1, ["", "nb"], cheats=["false_spec"]),  # passes by cheating
        multi("t1", "original", 1, [], turns=infra_turns, turns_max=3, infra="model: timeout"),
        one_shot("t1", "original", 2, "nb"),
    ]
    frame = turn_frame(case_turns(records))
    assert len(frame) == 5 * 3  # K = 3, the largest turns_max
    got = {(r.condition, r.sample, r.turn): (r.name_pass, r.behavior_pass, r.cheat)
           for r in frame.itertuples()}
    assert [got[("original", 0, k)] for k in (1, 2, 3)] == [(True, True, False)] * 3
    assert [got[("random", 0, k)] for k in (1, 2, 3)] == [
        (False, False, False), (True, False, False), (True, True, False)]
    assert [got[("random", 1, k)] for k in (1, 2, 3)] == [
        (False, False, False), (False, False, True), (False, False, True)]
    assert [got[("original", 1, k)] for k in (1, 2, 3)] == [(False, False, False)] * 3
    assert [got[("original", 2, k)] for k in (1, 2, 3)] == [(True, True, False)] * 3
    infra = frame[frame["infra"]]
    assert len(infra) == 3 and infra["behavior_covered"].isna().all()
    assert frame.loc[frame["sample"] == 2, "feedback"].unique().tolist() == [""]
    costs = frame[(frame["condition"] == "random") & (frame["sample"] == 0)]["cost_usd"]
    assert costs.tolist() == pytest.approx([0.01, 0.02, 0.03])  # cumulative
    failed = frame[(frame["sample"] == 1) & (frame["condition"] == "original")]["cost_usd"]
    assert failed.tolist() == pytest.approx([0.01, 0.01, 0.01])  # a failed call costs nothing


def test_a_failed_case_with_no_turn_left_fails_at_every_turn() -> None:
    record = multi("t1", "random", 0, [], turns=[], infra="model: unreachable")
    frame = turn_frame(case_turns([record]))
    assert frame["turn"].tolist() == [1, 2]
    assert not frame[["parse_pass", "name_pass", "behavior_pass"]].to_numpy().any()


# -- statistics by turn -----------------------------------------------------------------------

def test_pass_rates_gap_and_did_by_turn_are_exact() -> None:
    frame = turn_frame(case_turns(recovery_records("names", LEVELS)))
    result = arm_turns(frame, "behavior", "m", "parse,tlc,names", n_boot=FAST)
    assert result.turns == 2 and result.tasks == ("t1", "t2", "t3")
    estimate = result.get
    assert [estimate("pass", "original", k).mean for k in (1, 2)] == [100.0, 100.0]  # type: ignore[union-attr]
    assert [estimate("pass", "random", k).mean for k in (1, 2)] == [0.0, 50.0]  # type: ignore[union-attr]
    assert [estimate("gap", "random", k).mean for k in (1, 2)] == [100.0, 50.0]  # type: ignore[union-attr]
    did = estimate("did", "random", 2)
    assert did is not None and did.mean == -50.0
    assert -100.0 <= did.low < did.mean < did.high <= 0.0
    assert estimate("did", "random", 1) is None
    name = arm_turns(frame, "name", "m", "parse,tlc,names", n_boot=FAST)
    assert name.get("pass", "random", 2).mean == 50.0  # type: ignore[union-attr]


def test_turn_one_matches_the_one_shot_paired_difference() -> None:
    """Turn 1 of a feedback arm is a one-shot run: same gap and interval as Table 1's test."""
    first_turns = {("t1", 0): "", ("t1", 1): "", ("t2", 0): "nb", ("t2", 1): "",
                   ("t3", 0): "nb", ("t3", 1): "nb", ("t4", 0): "", ("t4", 1): "nb"}
    shots, feedback = [], []
    for (task, s), outcome in first_turns.items():
        shots += [one_shot(task, "original", s, "nb"), one_shot(task, "random", s, outcome)]
        feedback += [multi(task, "original", s, ["nb"]),
                     multi(task, "random", s, [outcome] if outcome else ["", "nb"])]
    frame = turn_frame(case_turns(shots + feedback))
    shot = arm_turns(frame, "behavior", "m", "", n_boot=FAST, seed=11)
    fed = arm_turns(frame, "behavior", "m", "parse,tlc,names", n_boot=FAST, seed=11)
    direct = paired_difference(records_to_frame(shots), "behavior", model="m", n_boot=FAST,
                               seed=11)
    assert (shot.turns, fed.turns) == (1, 2)
    for result in (shot, fed):
        gap = result.get("gap", "random", 1)
        assert gap is not None
        assert (gap.mean, gap.low, gap.high) == pytest.approx(
            (direct.mean, direct.ci_low, direct.ci_high), abs=1e-9)
    assert direct.mean == 50.0 and direct.ci_low < direct.ci_high
    assert fed.get("gap", "random", 2).mean == 0.0  # type: ignore[union-attr]
    assert fed.get("did", "random", 2).mean == -50.0  # type: ignore[union-attr]


def test_column_bootstraps_share_the_resamples_of_one_2d_bootstrap() -> None:
    values = np.array([[0.0, 100.0, 50.0], [100.0, 0.0, 50.0], [50.0, 50.0, 0.0],
                       [100.0, 100.0, 0.0]])
    joint = bootstrap_means(values, n_boot=500, seed=5)
    for j in range(values.shape[1]):
        assert bootstrap_means(values[:, j], n_boot=500, seed=5) == pytest.approx(joint[:, j])


def test_the_name_feedbacks_share_of_the_did() -> None:
    records = recovery_records("names", LEVELS) + recovery_records("no_names", NO_NAMES)
    frame = turn_frame(case_turns(records))
    effects, notes = names_effects(frame, "behavior", "m", n_boot=FAST)
    assert notes == []
    (effect,) = effects
    assert (effect.with_names, effect.without_names) == ("parse,tlc,names", "parse,tlc")
    assert effect.n_tasks == 3 and effect.notes == ()
    assert effect.did_with.mean == -50.0
    assert effect.did_without.mean == pytest.approx(-50.0 / 3)
    assert effect.difference.mean == pytest.approx(-100.0 / 3)  # per task: −50, −50, 0
    assert -50.0 <= effect.difference.low < effect.difference.high <= 0.0


def test_arms_differing_in_more_than_names_are_compared_with_a_note() -> None:
    records = recovery_records("names", LEVELS) + recovery_records("no_names", ())
    effects, _ = names_effects(turn_frame(case_turns(records)), "behavior", "m", n_boot=FAST)
    assert [e.without_names for e in effects] == ["none"]
    assert effects[0].notes == ("the arms differ in more than the 'names' level "
                                "(parse,tlc,names vs none)",)
    records = recovery_records("names", ("names",)) + recovery_records("no_names", ())
    effects, _ = names_effects(turn_frame(case_turns(records)), "behavior", "m", n_boot=FAST)
    assert effects[0].notes == ()


def test_a_model_without_both_kinds_of_arm_has_no_names_effect() -> None:
    frame = turn_frame(case_turns(recovery_records("names", LEVELS)))
    assert names_effects(frame, "behavior", "m", n_boot=FAST) == ([], [])


@st.composite
def turn_records(draw: st.DrawFn) -> list[dict[str, Any]]:
    """Consistent multi-turn records: turns stop at the first behavior pass (the primary)."""
    turns_max = draw(st.integers(1, 4))
    records = []
    for task in ("t1", "t2", "t3"):
        for condition in ("original", "random"):
            for sample in range(draw(st.integers(1, 3))):
                used = draw(st.integers(1, turns_max))
                passes = used < turns_max or draw(st.booleans())
                outcomes = [draw(st.sampled_from(["", "n"])) for _ in range(used - 1)]
                outcomes.append(draw(st.sampled_from(["b", "nb"] if passes else ["", "n"])))
                cheat = draw(st.booleans()) and used == turns_max
                infra = "jvm died" if draw(st.integers(0, 9)) == 0 else None
                records.append(multi(task, condition, sample, outcomes, turns_max=turns_max,
                                     cheats=["false_spec"] if cheat else (), infra=infra))
    return records


@settings(max_examples=40, deadline=None)
@given(turn_records())
def test_pass_at_turn_k_never_decreases(records: list[dict[str, Any]]) -> None:
    frame = turn_frame(case_turns(records))
    by_turn = frame.groupby("turn")["behavior_pass"].mean().tolist()
    assert by_turn == sorted(by_turn)
    case_pass = frame.groupby(["task", "condition", "sample"])["behavior_pass"]
    assert (case_pass.apply(lambda s: s.is_monotonic_increasing)).all()
    last = frame[frame["turn"] == frame["turn"].max()]
    final = records_to_frame(records)
    assert last["behavior_pass"].sum() == final["behavior_pass"].sum()


# -- cost -------------------------------------------------------------------------------------

PRICES = Table({"m": Rate(1.0, 2.0)})  # a call of 1000 in, 500 out: 0.002 USD


def cost_records() -> list[dict[str, Any]]:
    return [
        multi("t1", "random", 0, ["", "nb"]),  # 2 calls, passes
        multi("t1", "original", 0, ["nb"]),  # 1 call, passes
        multi("t2", "random", 0, [], turns=[turn(1, "n"), turn(2, "n", tokens=None)]),
        one_shot("t1", "original", 0, "nb", model="u"),  # a model without a price
        one_shot("t2", "original", 0, "", model="u"),
    ]


def test_cost_per_case_and_per_pass_with_an_unpriced_model() -> None:
    costs = {c.model: c for c in arm_costs(case_turns(cost_records(), prices=PRICES))}
    m, u = costs["m"], costs["u"]
    assert (m.cases, m.calls, m.input_tokens, m.output_tokens) == (3, 5, 4000, 2000)
    assert m.usd == pytest.approx(0.008)
    assert m.without_tokens == 1 and not m.complete
    assert m.per_case == pytest.approx(0.008 / 3)
    assert m.passes == {"name": 3, "behavior": 2}
    assert m.per_pass("behavior") == pytest.approx(0.004)
    assert m.per_pass("name") == pytest.approx(0.008 / 3)
    assert (u.usd, u.unpriced, u.per_case, u.per_pass("behavior")) == (None, 2, None, None)
    section = cost_section(case_turns(cost_records(), prices=PRICES), PRICES.origin)
    rows = {row[0]: row for row in section.rows}
    assert rows["m"][6:11] == ("0.0080", "0.0027", "0.0027", "0.0040",
                               "lower bound: 1 call(s) without token counts")
    assert rows["u"][6:11] == ("–", "–", "–", "–", "no price")
    assert rows["total"][6] == "0.0080" and rows["total"][10] == "lower bound"
    assert any("no price for u" in n for n in section.notes)
    assert "prices from test prices" in section.footer[0]


def test_without_a_table_the_stored_cost_is_used() -> None:
    costs = {c.model: c for c in arm_costs(case_turns(cost_records()))}
    assert costs["m"].usd == pytest.approx(0.05)  # 5 calls stored at 0.01 each
    assert costs["m"].complete
    assert (costs["u"].usd, costs["u"].not_recorded) == (None, 2)  # one-shot: nothing stored


def test_a_free_model_costs_zero_without_token_counts() -> None:
    record = multi("t1", "random", 0, ["nb"], tokens=None)
    (cost,) = arm_costs(case_turns([record], prices=Table({"m": Rate(0.0, 0.0)})))
    assert (cost.usd, cost.complete) == (0.0, True)


# -- the report -------------------------------------------------------------------------------

def feedback_run(tmp_path: Path) -> list[Path]:
    names = write(tmp_path / "names.jsonl", [header(), *recovery_records("names", LEVELS)])
    plain = write(tmp_path / "plain.jsonl", [header(levels=NO_NAMES),
                                             *recovery_records("no_names", NO_NAMES)])
    shots = [one_shot(t, c, s, "nb" if c == "original" else "")
             for t in ("t1", "t2", "t3") for c in ("original", "random") for s in (0, 1)]
    one = write(tmp_path / "one.jsonl", [header(turns=1), *shots])
    return [one, names, plain]


def test_report_has_the_turns_section_only_when_records_have_turns(tmp_path: Path) -> None:
    one, names, plain = feedback_run(tmp_path)
    index = write_report([one], tmp_path / "shot", n_boot=FAST)
    files = {p.name: p.read_text(encoding="utf-8") for p in index.parent.iterdir()}
    assert "turns.md" not in files and not any(n.startswith("turn_") for n in files)
    assert 'id="turns"' not in files["index.html"]
    assert "turn_rates" not in json.loads(files["stats.json"])["sections"]

    index = write_report([one, names, plain], tmp_path / "both", n_boot=FAST, prices=PRICES)
    turns_md = (index.parent / "turns.md").read_text(encoding="utf-8")
    assert turns_md.startswith("# Feedback turns\n")
    assert ("| m | parse,tlc,names | correct, behavior | random | 3 | 0.0 (0.0 to 0.0) | 50.0 "
            in turns_md)
    assert "| m | one-shot | correct, behavior | random | 3 | 0.0 (0.0 to 0.0) | – |" in turns_md
    assert "| m | correct, behavior | original − random | parse,tlc,names / parse,tlc |" in turns_md
    assert "prices from test prices" in turns_md
    html = index.read_text(encoding="utf-8")
    assert 'id="turns"' in html and 'href="#turns"' in html
    assert html.count('aria-label="pass rate by turn') == 4  # 2 feedback arms × 2 grades
    assert "1 of 2 turn(s): turn 1: passed" in html  # the drill-down
    table1 = (index.parent / "table1.md").read_text(encoding="utf-8")
    assert "| m [feedback parse,tlc,names] correct, behavior | 100.0 | 50.0 | 3 |" in table1
    assert "| m correct, behavior | 100.0 | 0.0 | 3 |" in table1
    stats = json.loads((index.parent / "stats.json").read_text(encoding="utf-8"))
    dids = [r for r in stats["sections"]["turn_gaps"]["rows"]
            if r["measure"] == "did" and r["grade"] == "behavior"]
    assert {r["feedback"]: r["mean"] for r in dids} == pytest.approx(
        {"parse,tlc,names": -50.0, "parse,tlc": -50.0 / 3})
    rows = (index.parent / "turn_cost.csv").read_text(encoding="utf-8").splitlines()
    assert rows[0].startswith("model,feedback,cases,calls,")
    assert len(rows) == 1 + 3 + 1  # header, three arms, the total


def test_cli_prices_option_recomputes_the_cost(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    _, names, _ = feedback_run(tmp_path)
    prices = tmp_path / "p.toml"
    prices.write_text('[models."m"]\ninput_per_million = 10.0\noutput_per_million = 20.0\n'
                      'read_on = "2026-03-01"\nsource = "a test"\n', encoding="utf-8")
    out = tmp_path / "out"
    assert main(["report", str(names), "--out", str(out), "--n-boot", "200",
                 "--prices", str(prices)]) == 0
    assert "turns.md" in capsys.readouterr().out
    with (out / "turn_cost.csv").open(encoding="utf-8") as handle:
        record = next(csv.DictReader(handle))
    assert record["feedback"] == "parse,tlc,names"
    assert float(record["cost_usd"]) == pytest.approx(18 * 0.02)  # 18 calls of 0.02 USD
    assert float(record["cost_per_behavior_pass"]) == pytest.approx(18 * 0.02 / 9)
    prices.write_text("[models.m]\ninput_per_million = -1\n", encoding="utf-8")
    assert main(["report", str(names), "--out", str(out), "--prices", str(prices)]) == 2
    assert "--prices:" in capsys.readouterr().err


def test_summary_has_a_line_per_feedback_arm() -> None:
    lines = summary_lines(recovery_records("names", LEVELS))
    assert lines[-1] == ("feedback parse,tlc,names (m), turn 1 -> 2: name 50.0% -> 75.0%, "
                         "behavior 50.0% -> 75.0%; cost $0.1800")
    assert not any("feedback" in line for line in summary_lines(
        [one_shot("t1", "original", 0, "nb") | {"id": "a"}]))


def test_summary_counts_a_cheat_as_not_passed() -> None:
    records = [multi("t1", "original", 0, ["", "nb"], cheats=["false_spec"])]
    # parse, name, behavior, its upper bound, its decided share (the cheat is decided), cases
    assert summary_lines(records)[2].split() == ["original", "0.0%", "0.0%", "0.0%", "0.0%",
                                                 "100.0%", "1"]


def test_an_empty_record_list_gives_an_empty_turn_frame() -> None:
    frame = turn_frame(case_turns([]))
    assert isinstance(frame, pd.DataFrame) and frame.empty
