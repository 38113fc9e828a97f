"""Tests for reports.records, reports.stats and reports.exposure against closed forms and scipy."""

from __future__ import annotations

import itertools
import json
import math
from collections.abc import Mapping, Sequence
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as sps

from reports.exposure import EXPOSURE_SEED, exposure_split, exposure_stats, exposure_table
from reports.records import (
    COLUMNS,
    StatsError,
    clock_limited,
    covered_tasks,
    hidden_tasks,
    load_records,
    records_to_frame,
    unknown_coverage_tasks,
)
from reports.stats import (
    bootstrap_means,
    condition_table,
    difference_table,
    grade_disagreements,
    infra_counts,
    paired_difference,
    pass_at_k,
    pass_at_k_rates,
    pass_rates,
    percentile_interval,
    split_by_hidden,
    split_by_published,
    upper_bound,
)

FAST = 2000  # bootstrap resamples where speed matters


def case(task: str, condition: str = "original", sample: int = 0, *, model: str = "m",
         parse: bool = True, name: bool = False, behavior: bool = False,
         covered: bool = True, hidden: Sequence[str] = (), infra: str | None = None,
         name_verdict: str | None = None, behavior_verdict: str | None = None,
         missing: Sequence[str] = ()) -> dict[str, Any]:
    """One case record in the schema the benchmark writes."""
    return {
        "schema_version": 1, "kind": "case", "run_id": "r1", "model": model, "task": task,
        "condition": condition, "sample": sample, "hidden_names": list(hidden),
        "grades": {
            "parse": {"verdict": "ok" if parse else "parse_error", "passed": parse,
                      "seconds": 0.01},
            "name": {"verdict": name_verdict or ("ok" if name else "invariant_violated"),
                     "passed": name, "seconds": 0.1, "missing_names": list(missing)},
            "behavior": {"verdict": behavior_verdict or (
                             ("ok" if behavior else "forward_fail") if covered
                             else "not_covered"),
                         "passed": behavior, "seconds": 1.0, "covered": covered},
        },
        "infra_error": infra,
    }


def counts_frame(counts: Mapping[str, Mapping[str, tuple[int, int]]], *, model: str = "m",
                 hidden: Sequence[str] = ()) -> pd.DataFrame:
    """Records where task/condition has `passes` of `samples` passing every grade."""
    return records_to_frame(counts_frame_records(counts, model=model, hidden=hidden))


def counts_frame_records(counts: Mapping[str, Mapping[str, tuple[int, int]]], *,
                         model: str = "m", hidden: Sequence[str] = ()) -> list[dict[str, Any]]:
    """The records of :func:`counts_frame`."""
    records = []
    for task, by_condition in counts.items():
        for condition, (passes, samples) in by_condition.items():
            for s in range(samples):
                ok = s < passes
                records.append(case(task, condition, s, model=model, name=ok, behavior=ok,
                                    hidden=hidden if task in hidden else ()))
    return records


def rates_frame(a: Sequence[Fraction], b: Sequence[Fraction], *,
                conds: tuple[str, str] = ("original", "random")) -> pd.DataFrame:
    """Tasks t0.. with exact rates `a` (first condition) and `b` (second), one model."""
    counts: dict[str, dict[str, tuple[int, int]]] = {}
    for i, (x, y) in enumerate(zip(a, b, strict=True)):
        counts[f"t{i}"] = {conds[0]: (x.numerator, x.denominator),
                           conds[1]: (y.numerator, y.denominator)}
    return counts_frame(counts)


# -- records --------------------------------------------------------------------------------

def test_records_frame_has_every_column_and_skips_headers() -> None:
    frame = records_to_frame([{"kind": "header", "run_id": "r1", "seeds": {}},
                              case("a", name=True), case("a", sample=1)])
    assert tuple(frame.columns) == COLUMNS
    assert len(frame) == 2
    assert frame["name_pass"].tolist() == [True, False]
    assert frame["name_verdict"].tolist() == ["ok", "invariant_violated"]


def test_infra_error_is_never_a_pass_but_stays_in_the_denominator() -> None:
    records = [case("a", sample=0, name=True), case("a", sample=1, name=True, infra="jvm died")]
    frame = records_to_frame(records)
    assert frame["infra"].tolist() == [False, True]
    assert frame["name_pass"].tolist() == [True, False]
    assert frame["infra_error"].tolist() == [None, "jvm died"]
    rates = pass_rates(frame, "name")
    assert rates[["samples", "passes", "infra", "rate"]].iloc[0].tolist() == [2, 1, 1, 0.5]
    counts = infra_counts(frame)
    assert counts[["cases", "infra", "infra_share"]].iloc[0].tolist() == [2, 1, 50.0]


def test_a_case_a_wall_clock_ended_is_in_no_rate_and_listed() -> None:
    clock = case("a", sample=2, infra="wall-clock limit: the name grade's TLC run reached its "
                                       "time limit") | {"infra_kind": "wall_clock"}
    records = [case("a", sample=0, name=True), case("a", sample=1, infra="jvm died"), clock]
    frame = records_to_frame(records)
    assert frame["sample"].tolist() == [0, 1]  # the tools' failure stays, the clock's is out
    rates = pass_rates(frame, "name")
    assert rates[["samples", "passes", "infra", "rate"]].iloc[0].tolist() == [2, 1, 1, 0.5]
    assert clock_limited(frame) == ({"model": "m", "feedback": "", "task": "a",
                                     "condition": "original", "sample": 2,
                                     "infra_error": clock["infra_error"]},)
    assert clock_limited(records_to_frame(records[:2])) == ()


def test_an_infra_record_without_grades_is_accepted() -> None:
    record = case("a") | {"grades": None, "infra_error": {"kind": "timeout"}}
    frame = records_to_frame([record])
    assert frame["infra_error"].tolist() == ['{"kind": "timeout"}']
    assert frame["parse_verdict"].isna().all()
    assert frame["behavior_covered"].isna().all()


@pytest.mark.parametrize(("change", "message"), [
    ({"schema_version": 2}, "schema_version 2"),
    ({"kind": "summary"}, "unknown record kind"),
    ({"sample": -1}, "non-negative integer"),
    ({"sample": True}, "non-negative integer"),
    ({"model": ""}, "'model' must be a non-empty string"),
    ({"hidden_names": "TypeOK"}, "hidden_names"),
    ({"published": "yes"}, "'published' must be"),
    ({"grades": {"name": {"verdict": "ok"}}}, "grades.name"),
    ({"grades": {"behavior": {"verdict": "not_covered", "passed": True, "covered": False}}},
     "does not cover"),
])
def test_malformed_records_raise_with_location(change: dict[str, Any], message: str) -> None:
    with pytest.raises(StatsError, match=message) as info:
        records_to_frame([case("a"), case("b") | change])
    assert str(info.value).startswith("record 2:")


def test_duplicate_case_is_an_error() -> None:
    with pytest.raises(StatsError, match="case m/a/original/0 already recorded at record 1"):
        records_to_frame([case("a"), case("a", name=True)])


def test_load_records_reads_files_and_names_the_bad_line(tmp_path: Path) -> None:
    first, second = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    first.write_text(json.dumps({"kind": "header"}) + "\n" + json.dumps(case("a")) + "\n\n",
                     encoding="utf-8")
    second.write_text(json.dumps(case("b")) + "\n", encoding="utf-8")
    assert load_records([first, second])["task"].tolist() == ["a", "b"]
    assert load_records(str(second))["task"].tolist() == ["b"]
    second.write_text(json.dumps(case("b")) + "\n{oops\n", encoding="utf-8")
    with pytest.raises(StatsError, match=r"b\.jsonl:2: not JSON"):
        load_records([first, second])
    second.write_text(json.dumps(case("a")) + "\n", encoding="utf-8")
    with pytest.raises(StatsError, match=r"already recorded at .*a\.jsonl:2"):
        load_records([first, second])


def test_empty_input_gives_an_empty_frame_and_stats_refuse_it() -> None:
    frame = records_to_frame([{"kind": "header"}])
    assert frame.empty
    assert tuple(frame.columns) == COLUMNS
    for call in (lambda: pass_rates(frame, "parse"), lambda: condition_table(frame),
                 lambda: paired_difference(frame, "name"), lambda: grade_disagreements(frame),
                 lambda: upper_bound(frame), lambda: infra_counts(frame)):
        with pytest.raises(StatsError, match="empty"):
            call()


def test_coverage_and_hidden_names_are_task_properties() -> None:
    frame = records_to_frame([
        case("a", "original"), case("a", "random"),
        case("b", "original"), case("b", "random", covered=False),  # renamed reference fails
        case("c", "original", infra="x"),                            # coverage unknown
        case("d", "original", covered=False, hidden=["N"]), case("d", "random", 0),
    ])
    assert covered_tasks(frame) == ["a"]
    assert hidden_tasks(frame) == ["d"]


@pytest.mark.parametrize(("verdict", "known"), [
    ("not_run", None),      # a run graded by name only
    ("no_module", None),    # stopped before the behavior check, coverage not said
    ("parse_error", None),
    ("forward_fail", True),  # an old record without the flag: a behavior verdict says covered
    ("not_covered", False),
])
def test_coverage_is_unknown_when_the_behavior_grade_did_not_run(verdict: str,
                                                                 known: bool | None) -> None:
    record = case("a", "original", behavior=False)
    del record["grades"]["behavior"]["covered"]
    record["grades"]["behavior"]["verdict"] = verdict
    frame = records_to_frame([record])
    value = frame["behavior_covered"].iloc[0]
    assert (None if pd.isna(value) else bool(value)) is known


def test_tasks_without_coverage_information_are_noted() -> None:
    records = [case(t, cond, s, name=s == 0, behavior=s == 0)
               for t in ("a", "b") for cond in ("original", "random") for s in range(2)]
    records += [case("c", cond) | {"grades": {"parse": None}} for cond in ("original", "random")]
    frame = records_to_frame(records)
    assert unknown_coverage_tasks(frame) == ["c"]
    note = ("behavior: 1 task(s) without coverage information (no record says whether the "
            "behavior grade covers them) are left out: c")
    assert note in condition_table(frame).attrs["notes"]
    assert paired_difference(frame, "behavior", n_boot=FAST).notes == (
        note, "no task differs between the conditions: sign test p = 1")
    assert paired_difference(frame, "name", n_boot=FAST).n_tasks == 3


def test_missing_hidden_flags_name_failures_on_unstated_names_only() -> None:
    frame = records_to_frame([
        case("a", sample=0, hidden=["TypeOK"], missing=["TypeOK"],
             name_verdict="config_bind_fail"),
        case("a", sample=1, hidden=["TypeOK"], missing=["TypeOK", "Max"],
             name_verdict="config_bind_fail"),
        case("a", sample=2, hidden=["TypeOK"]),
    ])
    assert frame["missing_hidden"].tolist() == [True, False, False]


# -- pass rates and pass@k ------------------------------------------------------------------

def test_pass_rates_are_fractions_of_samples_and_behavior_uses_covered_tasks() -> None:
    frame = records_to_frame([
        case("a", sample=0, name=True, behavior=True), case("a", sample=1, name=True),
        case("a", sample=2), case("b", sample=0, name=True, covered=False),
    ])
    name = pass_rates(frame, "name")
    assert name["task"].tolist() == ["a", "b"]
    assert name["rate"].tolist() == pytest.approx([2 / 3, 1.0])
    behavior = pass_rates(frame, "behavior")
    assert behavior["task"].tolist() == ["a"]
    assert behavior["rate"].tolist() == pytest.approx([1 / 3])
    with pytest.raises(StatsError, match="unknown grade"):
        pass_rates(frame, "style")  # type: ignore[arg-type]


def brute_pass_at_k(n: int, c: int, k: int) -> Fraction:
    """Share of k-subsets of n samples (the first c correct) with at least one correct."""
    subsets = list(itertools.combinations(range(n), k))
    return Fraction(sum(any(i < c for i in s) for s in subsets), len(subsets))


@pytest.mark.parametrize("n", range(1, 8))
def test_pass_at_k_equals_brute_force_enumeration(n: int) -> None:
    for c in range(n + 1):
        for k in range(1, n + 1):
            assert pass_at_k(n, c, k) == pytest.approx(float(brute_pass_at_k(n, c, k)),
                                                       abs=1e-12)


def test_pass_at_k_closed_form_for_large_n_and_k1_is_the_rate() -> None:
    n, c, k = 200, 37, 10
    exact = 1 - Fraction(math.comb(n - c, k), math.comb(n, k))
    assert pass_at_k(n, c, k) == pytest.approx(float(exact), rel=1e-12)
    assert pass_at_k(5, 2, 1) == pytest.approx(0.4)
    for bad in ((0, 0, 1), (5, 6, 1), (5, 2, 0), (5, 2, 6)):
        with pytest.raises(StatsError, match="pass@k needs"):
            pass_at_k(*bad)


def test_pass_at_k_rates_needs_k_samples_per_group() -> None:
    frame = counts_frame({"a": {"original": (1, 5)}, "b": {"original": (0, 2)}})
    with pytest.raises(StatsError, match=r"pass@3 needs 3 samples .* m/b/original: 2"):
        pass_at_k_rates(frame, "name", 3)
    rates = pass_at_k_rates(frame, "name", 2)
    assert rates["pass_at_k"].tolist() == pytest.approx([0.4, 0.0])


# -- Table 1 ----------------------------------------------------------------------------------

def test_condition_table_is_the_mean_of_per_task_rates_in_percent() -> None:
    frame = counts_frame({
        "a": {"original": (4, 5), "random": (2, 5), "meaningful": (3, 5)},
        "b": {"original": (1, 5), "random": (1, 5), "meaningful": (0, 5)},
    })
    table = condition_table(frame)
    assert list(table.columns) == ["Original", "Random", "Meaningful", "tasks"]
    assert list(table.index) == [("m", "parse"), ("m", "name"), ("m", "behavior")]
    assert table.loc[("m", "name")].tolist() == pytest.approx([50.0, 30.0, 30.0, 2])
    assert table.loc[("m", "parse")].tolist() == pytest.approx([100.0, 100.0, 100.0, 2])
    assert table.attrs["notes"] == []


def test_condition_table_behavior_rows_use_covered_tasks_and_notes_gaps() -> None:
    records = [case("a", cond, name=True, behavior=True) for cond in ("original", "random")]
    records += [case("u", cond, name=True, covered=False) for cond in ("original", "random")]
    records += [case("x", "original", model="other", name=True)]
    table = condition_table(records_to_frame(records))
    assert table.loc[("m", "name")].tolist() == pytest.approx([100.0, 100.0, 2])
    assert table.loc[("m", "behavior")].tolist() == pytest.approx([100.0, 100.0, 1])
    assert table.loc[("other", "name"), "Original"] == pytest.approx(100.0)
    assert math.isnan(table.loc[("other", "name"), "Random"])
    assert table.loc[("other", "behavior"), "Original"] == pytest.approx(0.0)
    assert table.attrs["notes"] == ["other, parse: no records for condition 'random'",
                                    "other, name: no records for condition 'random'",
                                    "other, behavior: no records for condition 'random'"]


def test_condition_table_leaves_out_tasks_lacking_a_condition() -> None:
    frame = counts_frame({"a": {"original": (5, 5), "random": (0, 5)},
                          "b": {"original": (5, 5)}})
    table = condition_table(frame)
    assert table.loc[("m", "name")].tolist() == pytest.approx([100.0, 0.0, 1])
    assert "m, name: 1 task(s) lack a condition and are left out" in table.attrs["notes"]


def test_upper_bound_counts_name_only_passes_as_correct() -> None:
    records = [case("a", "original", 0, name=True), case("a", "original", 1, behavior=True),
               case("a", "random", 0), case("a", "random", 1, name=True, behavior=True),
               case("u", "original", 0, name=True, covered=False),
               case("u", "random", 0, name=True, covered=False)]
    table = upper_bound(records_to_frame(records))
    assert list(table.index) == ["m"]
    assert table.loc["m"].tolist() == pytest.approx([100.0, 50.0, 1])


# -- paired differences -----------------------------------------------------------------------

def test_paired_difference_mean_and_sign_test_match_direct_computation() -> None:
    a = [Fraction(4, 5), Fraction(3, 5), Fraction(1, 5), Fraction(2, 5), Fraction(0, 5)]
    b = [Fraction(1, 5), Fraction(3, 5), Fraction(2, 5), Fraction(0, 5), Fraction(0, 5)]
    result = paired_difference(rates_frame(a, b), "name", n_boot=FAST, seed=7)
    direct = [100 * float(x - y) for x, y in zip(a, b, strict=True)]
    assert result.mean == pytest.approx(float(np.mean(direct)))
    assert result.mean_a == pytest.approx(40.0)
    assert result.mean_b == pytest.approx(24.0)
    assert (result.wins, result.losses, result.ties, result.n_tasks) == (2, 1, 2, 5)
    assert result.sign_p == pytest.approx(sps.binomtest(2, 3, 0.5).pvalue)
    assert result.ci_low <= result.mean <= result.ci_high
    assert result.tost_low >= result.ci_low
    assert result.tost_high <= result.ci_high
    assert (result.seed, result.n_boot, result.level, result.tost_level) == (7, FAST, 0.95, 0.9)


def test_sign_test_p_equals_scipy_on_a_lopsided_difference() -> None:
    a = [Fraction(3, 5)] * 12 + [Fraction(1, 5)] * 2 + [Fraction(2, 5)] * 3
    b = [Fraction(1, 5)] * 12 + [Fraction(2, 5)] * 2 + [Fraction(2, 5)] * 3
    result = paired_difference(rates_frame(a, b), "name", n_boot=FAST)
    assert (result.wins, result.losses, result.ties) == (12, 2, 3)
    assert result.sign_p == sps.binomtest(12, 14, 0.5, alternative="two-sided").pvalue


@pytest.mark.parametrize(("step", "equivalent"), [(0, True), (3, True), (5, False), (6, False)])
def test_constant_difference_gives_a_degenerate_interval(step: int, equivalent: bool) -> None:
    a = [Fraction(50 + step, 100)] * 4
    b = [Fraction(50, 100)] * 4
    result = paired_difference(rates_frame(a, b), "name", n_boot=FAST)
    assert result.mean == pytest.approx(step)
    assert (result.ci_low, result.ci_high) == (result.tost_low, result.tost_high)
    assert result.ci_low == result.ci_high == pytest.approx(step, abs=1e-9)
    assert result.equivalent is equivalent


def test_all_zero_rates_give_zero_with_a_note() -> None:
    zero = [Fraction(0)] * 3
    result = paired_difference(rates_frame(zero, zero), "parse", n_boot=FAST)
    assert (result.mean, result.ci_low, result.ci_high, result.sign_p) == (0.0, 0.0, 0.0, 1.0)
    assert result.equivalent
    assert result.notes == ("no task differs between the conditions: sign test p = 1",)


def test_bootstrap_is_deterministic_for_a_seed_and_records_it() -> None:
    rng = np.random.default_rng(0)
    a = [Fraction(int(x), 5) for x in rng.integers(0, 6, 30)]
    b = [Fraction(int(x), 5) for x in rng.integers(0, 6, 30)]
    frame = rates_frame(a, b)
    first = paired_difference(frame, "name", n_boot=FAST, seed=11)
    assert paired_difference(frame, "name", n_boot=FAST, seed=11) == first
    other = paired_difference(frame, "name", n_boot=FAST, seed=12)
    assert (other.ci_low, other.ci_high) != (first.ci_low, first.ci_high)
    assert other.seed == 12
    assert first.to_dict()["seed"] == 11


def test_percentile_interval_agrees_with_scipy_bootstrap() -> None:
    rng = np.random.default_rng(3)
    values = 100.0 * (rng.integers(0, 6, 111) - rng.integers(0, 6, 111)) / 5
    means = bootstrap_means(values, n_boot=10_000, seed=1)
    ours = percentile_interval(means, values, 0.95)
    theirs = sps.bootstrap((values,), np.mean, n_resamples=10_000, method="percentile",
                           confidence_level=0.95, rng=np.random.default_rng(2))
    ci = theirs.confidence_interval
    assert ours == pytest.approx((ci.low, ci.high), abs=0.6)
    assert float(np.mean(means)) == pytest.approx(float(values.mean()), abs=0.1)


def test_bootstrap_resamples_whole_rows() -> None:
    values = np.column_stack([np.arange(5.0), 2 * np.arange(5.0)])
    means = bootstrap_means(values, n_boot=50, seed=0)
    assert means.shape == (50, 2)
    assert np.allclose(means[:, 1], 2 * means[:, 0])
    with pytest.raises(StatsError, match="NaN"):
        bootstrap_means([1.0, math.nan])
    with pytest.raises(StatsError, match="n_boot"):
        bootstrap_means([1.0], n_boot=0)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 5), st.integers(0, 5)), min_size=2, max_size=40),
       st.integers(0, 2**32 - 1))
def test_interval_contains_the_estimate(pairs: list[tuple[int, int]], seed: int) -> None:
    a = [Fraction(x, 5) for x, _ in pairs]
    b = [Fraction(y, 5) for _, y in pairs]
    result = paired_difference(rates_frame(a, b), "name", n_boot=300, seed=seed)
    direct = 20.0 * float(np.mean([x - y for x, y in pairs]))
    assert result.mean == pytest.approx(direct)
    eps = 1e-9
    lo, hi = min(20 * (x - y) for x, y in pairs), max(20 * (x - y) for x, y in pairs)
    assert lo - eps <= result.ci_low <= result.mean + eps
    assert result.mean - eps <= result.ci_high <= hi + eps
    assert result.ci_low - eps <= result.tost_low <= result.tost_high <= result.ci_high + eps


def test_paired_difference_refuses_degenerate_input() -> None:
    two = counts_frame({"a": {"original": (1, 5), "random": (0, 5)},
                        "b": {"original": (2, 5), "random": (1, 5)}})
    with pytest.raises(StatsError, match=r"condition 'meaningful' \(present: original, random"):
        paired_difference(two, "name", "original", "meaningful")
    with pytest.raises(StatsError, match="different conditions"):
        paired_difference(two, "name", "random", "random")
    with pytest.raises(StatsError, match="strictly between 0 and 1"):
        paired_difference(two, "name", level=95)
    with pytest.raises(StatsError, match="margin must be positive"):
        paired_difference(two, "name", margin=0)
    one = counts_frame({"a": {"original": (1, 5), "random": (0, 5)},
                        "b": {"original": (2, 5)}})
    with pytest.raises(StatsError, match="at least two tasks .* got 1"):
        paired_difference(one, "name")
    both = pd.concat([two, counts_frame({"a": {"original": (1, 1)}}, model="n")])
    with pytest.raises(StatsError, match=r"2 models \(m, n\); name one"):
        paired_difference(both, "name")
    with pytest.raises(StatsError, match="no records for model 'z'"):
        paired_difference(both, "name", model="z")
    assert paired_difference(both, "name", model="m", n_boot=FAST).n_tasks == 2


def test_tasks_lacking_a_condition_are_left_out_with_a_note() -> None:
    frame = counts_frame({"a": {"original": (1, 5), "random": (0, 5)},
                          "b": {"original": (2, 5), "random": (1, 5)},
                          "c": {"original": (5, 5)}})
    result = paired_difference(frame, "name", n_boot=FAST)
    assert result.n_tasks == 2
    assert result.notes[0].startswith("1 task(s) graded under only one")


def test_difference_table_has_one_row_per_difference() -> None:
    frame = counts_frame({"a": {"original": (1, 5), "random": (0, 5)},
                          "b": {"original": (2, 5), "random": (1, 5)}})
    results = [paired_difference(frame, grade, n_boot=FAST)
               for grade in ("parse", "name")]
    table = difference_table(results)
    assert table["grade"].tolist() == ["parse", "name"]
    assert "notes" not in table.columns
    with pytest.raises(StatsError):
        difference_table([])


# -- splits -----------------------------------------------------------------------------------

def test_split_by_hidden_matches_direct_computation_per_side() -> None:
    counts = {"h1": {"original": (3, 5), "random": (0, 5)},
              "h2": {"original": (1, 5), "random": (0, 5)},
              "s1": {"original": (4, 5), "random": (4, 5)},
              "s2": {"original": (5, 5), "random": (3, 5)}}
    split = split_by_hidden(counts_frame(counts, hidden=["h1", "h2"]), "name", n_boot=FAST)
    assert split.hidden is not None
    assert split.stated is not None
    assert (split.hidden.mean_a, split.hidden.mean_b) == pytest.approx((40.0, 0.0))
    assert split.stated.mean == pytest.approx(20.0)
    assert (split.n_hidden_tasks, split.n_stated_tasks) == (2, 2)
    lopsided = split_by_hidden(counts_frame(counts, hidden=["h1"]), "name", n_boot=FAST)
    assert lopsided.hidden is None
    assert lopsided.stated is not None
    assert lopsided.stated.n_tasks == 3
    assert "hidden-name tasks:" in lopsided.notes[0]


def test_split_by_published_puts_each_task_on_its_side_and_leaves_out_the_unknown() -> None:
    counts = {"p1": {"original": (5, 5), "random": (1, 5)},
              "p2": {"original": (4, 5), "random": (0, 5)},
              "n1": {"original": (2, 5), "random": (2, 5)},
              "n2": {"original": (3, 5), "random": (2, 5)},
              "u1": {"original": (5, 5), "random": (0, 5)}}
    side = {"p1": True, "p2": True, "n1": False, "n2": False}
    records = [r | ({"published": side[r["task"]]} if r["task"] in side else {})
               for r in counts_frame_records(counts)]
    split = split_by_published(records_to_frame(records), "name", n_boot=FAST)
    (label_a, public, n_public), (label_b, private, n_private) = split.sides
    assert (label_a, n_public, label_b, n_private) == ("published", 2, "never published", 2)
    assert public is not None and private is not None
    assert public.mean == pytest.approx(80.0)  # u1's 100-point drop is in neither side
    assert private.mean == pytest.approx(10.0)
    assert any("1 task(s)" in note for note in split.notes)
    # a task whose records disagree is on neither side
    records[0]["published"] = False
    split = split_by_published(records_to_frame(records), "name", n_boot=FAST)
    assert [n for _, _, n in split.sides] == [1, 2]


def test_grade_disagreements_counts_causes_on_covered_cases() -> None:
    records = [
        case("a", "original", 0, name=True, behavior_verdict="reverse_fail"),
        case("a", "original", 1, name=True, behavior_verdict="reverse_fail"),
        case("a", "original", 2, name=True, behavior=True),
        case("a", "random", 0, behavior=True, hidden=["TypeOK"], missing=["TypeOK"],
             name_verdict="config_bind_fail"),
        case("a", "random", 1, behavior=True, name_verdict="timeout"),
        case("a", "random", 2, name=True, infra="jvm"),                     # infra: excluded
        case("u", "original", 0, name=True, covered=False),                 # uncovered: excluded
    ]
    table = grade_disagreements(records_to_frame(records))
    assert table.to_dict("records") == [
        {"model": "m", "condition": "original", "kind": "name_only", "cause": "reverse_fail",
         "count": 2, "cases": 3},
        {"model": "m", "condition": "random", "kind": "behavior_only",
         "cause": "config_bind_fail (hidden name)", "count": 1, "cases": 2},
        {"model": "m", "condition": "random", "kind": "behavior_only", "cause": "timeout",
         "count": 1, "cases": 2},
    ]
    with pytest.raises(StatsError, match="no task is covered"):
        grade_disagreements(records_to_frame([case("u", covered=False)]))


# -- exposure ---------------------------------------------------------------------------------

def test_exposure_split_halves_are_deterministic_disjoint_and_complete() -> None:
    ids = [f"task{i:03d}" for i in range(111)]
    half_a, half_b = exposure_split(ids)
    assert (len(half_a), len(half_b)) == (55, 56)
    assert not set(half_a) & set(half_b)
    assert set(half_a) | set(half_b) == set(ids)
    assert exposure_split(reversed(ids + ids[:5]), EXPOSURE_SEED) == (half_a, half_b)
    assert exposure_split(ids, seed=1) != (half_a, half_b)
    # pinned: changing the procedure changes every published split
    assert exposure_split("abcdefgh") == (("c", "d", "f", "h"), ("a", "b", "e", "g"))
    with pytest.raises(StatsError, match="at least two tasks"):
        exposure_split(["only"])


def exposure_frames(per_task: Mapping[str, tuple[int, int, int, int]],
                    half_a: Sequence[str]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Frames of models A and B from (orig seen, renamed seen, orig unseen, renamed unseen)
    pass counts out of 10 per task."""
    count_a: dict[str, dict[str, tuple[int, int]]] = {}
    count_b: dict[str, dict[str, tuple[int, int]]] = {}
    for task, (o_s, r_s, o_u, r_u) in per_task.items():
        seen = {"original": (o_s, 10), "random": (r_s, 10)}
        unseen = {"original": (o_u, 10), "random": (r_u, 10)}
        count_a[task], count_b[task] = (seen, unseen) if task in half_a else (unseen, seen)
    return counts_frame(count_a, model="A"), counts_frame(count_b, model="B")


def test_exposure_stats_match_hand_computation() -> None:
    per_task = {"p": (9, 5, 6, 4), "q": (5, 5, 5, 5), "r": (8, 2, 4, 3), "s": (3, 3, 1, 0)}
    split = (("p", "q"), ("r", "s"))
    frame_a, frame_b = exposure_frames(per_task, split[0])
    result = exposure_stats(frame_a, frame_b, split, "behavior", n_boot=FAST, seed=5,
                            split_seed=EXPOSURE_SEED)
    exposure = [10 * (o_s - o_u) for o_s, _, o_u, _ in per_task.values()]
    did = [10 * ((o_s - r_s) - (o_u - r_u)) for o_s, r_s, o_u, r_u in per_task.values()]
    cost = [10 * (o_u - r_u) for _, _, o_u, r_u in per_task.values()]
    assert result.exposure.mean == pytest.approx(np.mean(exposure))
    assert result.did.mean == pytest.approx(np.mean(did))
    assert result.unseen_cost.mean == pytest.approx(np.mean(cost))
    assert result.original_seen == pytest.approx(62.5)
    for estimate in (result.exposure, result.did, result.unseen_cost):
        assert estimate.low <= estimate.mean <= estimate.high
    assert (result.n_tasks, result.n_tasks_a, result.n_tasks_b) == (4, 2, 2)
    assert (result.model_a, result.model_b, result.seed, result.split_seed) == (
        "A", "B", 5, EXPOSURE_SEED)
    table = exposure_table({"family": result})
    assert table.loc["family", "did"] == pytest.approx(np.mean(did))
    assert table.loc["family", "tasks"] == 4


def test_exposure_stats_constant_effects_give_degenerate_intervals() -> None:
    per_task = {t: (7, 4, 5, 3) for t in "abcdef"}
    split = exposure_split(per_task)
    result = exposure_stats(*exposure_frames(per_task, split[0]), split, "name", n_boot=FAST)
    assert (result.exposure.low, result.exposure.mean, result.exposure.high) == pytest.approx(
        (20.0, 20.0, 20.0))
    assert (result.did.low, result.did.high) == pytest.approx((10.0, 10.0))
    assert (result.unseen_cost.low, result.unseen_cost.high) == pytest.approx((20.0, 20.0))


def test_exposure_stats_degenerate_input() -> None:
    per_task = {t: (7, 4, 5, 3) for t in "abcd"}
    frame_a, frame_b = exposure_frames(per_task, ("a", "b"))
    with pytest.raises(StatsError, match="share 1 task"):
        exposure_stats(frame_a, frame_b, (("a", "b"), ("b", "c")), "name")
    with pytest.raises(StatsError, match="condition 'meaningful'"):
        exposure_stats(frame_a, frame_b, (("a", "b"), ("c", "d")), "name",
                       renamed="meaningful")
    with pytest.raises(StatsError, match="at least two tasks .* got 1"):
        exposure_stats(frame_a, frame_b, (("a", "x"), ("y",)), "name")
    with pytest.raises(StatsError, match=r"frame_a must hold one model's records, it holds 2"):
        exposure_stats(pd.concat([frame_a, frame_b]), frame_b, (("a", "b"), ("c", "d")),
                       "name")
    result = exposure_stats(frame_a, frame_b, (("a", "x"), ("c", "d")), "name", n_boot=FAST)
    assert result.n_tasks == 3
    assert result.notes == (
        "1 task(s) in the records belong to neither half and are left out",
        "1 task(s) of the split lack rates under both conditions for both models and are "
        "left out")


def test_published_section_has_one_row_per_grade_with_both_sides() -> None:
    from reports.render_data import Settings
    from reports.render_splits import published_section

    counts = {t: {"original": (4, 5), "random": (1 if t.startswith("p") else 4, 5)}
              for t in ("p1", "p2", "n1", "n2")}
    records = [r | {"published": r["task"].startswith("p")}
               for r in counts_frame_records(counts)]
    section = published_section(records_to_frame(records), Settings(seed=1, n_boot=FAST,
                                                                   split_seed=1))
    assert [row[1] for row in section.rows] == ["parse", "correct, name", "correct, behavior",
                                                "decided share, behavior"]
    assert [row[4] for row in section.rows][-1] == "100.0 → 100.0"
    name = section.records[1]
    assert (name["published_tasks"], name["never_published_tasks"]) == (2, 2)
    assert (name["published_mean"], name["never_published_mean"]) == pytest.approx((60.0, 0.0))
