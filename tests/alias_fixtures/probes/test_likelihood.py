"""The likelihood probe without a model: token spans, selection, statistics, the CLI wiring."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from alias_cli.main import build_parser, main
from alias_fixtures.probes.likelihood import (
    byte_to_char_spans,
    condition_names,
    identifier_spans,
    join_text,
    likelihood_row,
    mean_at,
    merge_spans,
    overlaps,
    select_tokens,
    structural_names,
    variant_reference,
)
from alias_fixtures.tasks.task import builtin_tasks
from alias_fixtures.tasks.variants import make_variant
from reports.likelihood_stats import (
    condition_means,
    exposure_effects,
    exposure_estimates,
    markdown_tables,
    paired_difference,
    read_likelihood_rows,
    task_values,
)
from reports.records import StatsError

MODULE = """---- MODULE Cafe ----
\\* Zähler: a counter (non-ASCII comment before the identifiers)
VARIABLE count
Init == count = 0
Next == count' = count + 1
====
"""


# -- spans ----------------------------------------------------------------------------------

def test_byte_spans_become_character_spans() -> None:
    text = "é x ü yy"
    data = text.encode()
    x = data.index(b"x")
    y = data.index(b"yy")
    assert byte_to_char_spans(text, [(x, x + 1), (y, y + 2)]) == [(2, 3), (6, 8)]
    assert byte_to_char_spans("abc", [(1, 2)]) == [(1, 2)]


def test_identifier_spans_cover_exactly_the_named_occurrences() -> None:
    spans = identifier_spans(MODULE, {"count", "Cafe"})
    assert [MODULE[s:e] for s, e in spans] == ["Cafe"] + ["count"] * 4
    assert identifier_spans(MODULE, set()) == []


def test_merge_and_overlap() -> None:
    assert merge_spans([(5, 7), (0, 2), (1, 3), (7, 9), (4, 4)]) == [(0, 3), (5, 9)]
    spans = [(2, 4), (10, 12)]
    assert overlaps((3, 5), spans) and overlaps((0, 3), spans) and overlaps((11, 20), spans)
    assert not overlaps((4, 10), spans) and not overlaps((0, 2), spans)
    assert not overlaps((12, 15), spans) and not overlaps((1, 2), [])


def test_select_tokens_keeps_reference_tokens_outside_identifiers() -> None:
    text, ref_start = join_text("Say x.", "x == y + 1")
    assert text == "Say x.\n\nx == y + 1" and ref_start == 8
    offsets = [(0, 0), (0, 3), (3, 5), (5, 8), (8, 9), (9, 12), (12, 14), (14, 16), (16, 18)]
    renamed = identifier_spans_of("x == y + 1", ("x", "y"))
    reference, outside = select_tokens(offsets, ref_start, renamed)
    assert reference == [4, 5, 6, 7, 8]
    assert outside == [5, 7, 8]  # " ==", " +", " 1"; "x" and " y" touch renamed names


def identifier_spans_of(text: str, names: tuple[str, ...]) -> list[tuple[int, int]]:
    return [(i, i + len(n)) for n in names for i in [text.index(n)]]


def test_select_tokens_never_scores_the_first_or_special_tokens() -> None:
    reference, outside = select_tokens([(0, 2), (2, 2), (2, 4)], 0, [])
    assert reference == outside == [2]
    assert join_text(None, "R") == ("R", 0) and join_text("", "R") == ("R", 0)


def test_a_token_straddling_the_separator_counts_as_reference() -> None:
    reference, _ = select_tokens([(0, 3), (3, 6), (6, 9)], 5, [])
    assert reference == [1, 2]


def test_mean_at() -> None:
    assert mean_at([math.nan, -1.0, -2.0, -4.0], [1, 3]) == -2.5
    assert mean_at([math.nan], []) is None


def test_original_and_random_measure_the_same_structural_tokens() -> None:
    task = next(t for t in builtin_tasks() if t.id == "alternating_bit")
    base = structural_names(task, "0")
    original = make_variant(task, "original", seed="0")
    renamed = make_variant(task, "random", seed="0")
    assert condition_names(base, original.rename_map) == set(base)
    assert condition_names(base, renamed.rename_map) == set(base.values())
    ref_o, ref_r = variant_reference(original), variant_reference(renamed)
    spans_o = identifier_spans(ref_o, condition_names(base, original.rename_map))
    spans_r = identifier_spans(ref_r, condition_names(base, renamed.rename_map))
    assert spans_o == spans_r and len(spans_o) > len(base)
    assert all(ref_o[s:e] in base and ref_r[s:e] == base[ref_o[s:e]] for s, e in spans_o)
    outside_o = "".join(ref_o[e:s] for (_, e), (s, _) in zip(spans_o, spans_o[1:], strict=False))
    outside_r = "".join(ref_r[e:s] for (_, e), (s, _) in zip(spans_r, spans_r[1:], strict=False))
    assert outside_o == outside_r


# -- statistics -----------------------------------------------------------------------------

def row(model: str, task: str, condition: str, mean: float | None,
        outside: float | None = None) -> dict[str, Any]:
    return {"schema_version": 1, "kind": "likelihood", "model": model, "task": task,
            "condition": condition, "mean_logprob": mean, "n_tokens": 10,
            "mean_outside": mean if outside is None else outside, "n_outside": 5,
            "error": None}


def paired_rows(model: str = "m") -> list[dict[str, Any]]:
    rows = []
    for i in range(6):
        rows.append(row(model, f"t{i}", "original", -1.0 - 0.1 * i))
        rows.append(row(model, f"t{i}", "random", -1.5 - 0.1 * i - 0.05 * (i % 2)))
    return rows


def test_task_values_skip_missing_and_reject_duplicates() -> None:
    rows = [row("m", "a", "original", -1.0), row("m", "b", "original", None)]
    assert task_values(rows, "m", "original") == {"a": -1.0}
    with pytest.raises(StatsError, match="scored twice"):
        task_values([*rows, row("m", "a", "original", -2.0)], "m", "original")
    with pytest.raises(StatsError, match="unknown measure"):
        task_values(rows, "m", "original", "nope")


def test_condition_means_and_paired_difference() -> None:
    rows = paired_rows()
    means = {(m.condition, m.measure): m for m in condition_means(rows)}
    assert means[("original", "mean_logprob")].mean == pytest.approx(-1.25)
    assert means[("random", "mean_logprob")].n_tasks == 6
    diff = paired_difference(rows, n_boot=2000, seed=7)
    assert diff.mean == pytest.approx(0.5 + 0.05 * 3 / 6)
    assert 0.5 <= diff.ci_low <= diff.mean <= diff.ci_high <= 0.55
    assert diff == paired_difference(rows, n_boot=2000, seed=7)
    assert diff.to_dict()["notes"] == []


def test_a_constant_difference_has_a_point_interval() -> None:
    rows = [row("m", f"t{i}", c, -1.0 - i - (0.25 if c == "random" else 0.0))
            for i in range(4) for c in ("original", "random")]
    diff = paired_difference(rows, "m", measure="mean_outside", n_boot=500)
    assert (diff.mean, diff.ci_low, diff.ci_high) == pytest.approx((0.25, 0.25, 0.25))


def test_paired_difference_needs_two_tasks_and_one_model() -> None:
    rows = [row("m", "a", "original", -1.0), row("m", "a", "random", -2.0),
            row("m", "b", "original", -1.0)]
    with pytest.raises(StatsError, match="at least two tasks"):
        paired_difference(rows)
    with pytest.raises(StatsError, match="name one"):
        paired_difference([*rows, row("n", "a", "original", -1.0)])
    with pytest.raises(StatsError, match="no likelihood rows for model"):
        paired_difference(rows, "zz")


def test_exposure_estimates_by_hand() -> None:
    exposure, did, unseen = exposure_estimates([-1.0, -2.0], [-1.5, -2.5], [-1.2, -2.2],
                                               [-1.4, -2.4], n_boot=200)
    assert exposure.mean == pytest.approx(0.2)
    assert did.mean == pytest.approx(0.3)
    assert unseen.mean == pytest.approx(0.2)
    assert exposure.low == pytest.approx(0.2) and did.high == pytest.approx(0.3)


def test_exposure_effects_from_two_models() -> None:
    half_a, half_b = ("a1", "a2", "a3"), ("b1", "b2", "b3")
    rows: list[dict[str, Any]] = []
    for model, trained in (("qA", half_a), ("qB", half_b)):
        for task in half_a + half_b:
            seen = task in trained
            rows.append(row(model, task, "original", -1.0 + (0.3 if seen else 0.0)))
            rows.append(row(model, task, "random", -1.4 + (0.1 if seen else 0.0)))
    result = exposure_effects(rows, "qA", "qB", (half_a, half_b), n_boot=300, split_seed=1)
    assert result.n_tasks == 6 and (result.n_tasks_a, result.n_tasks_b) == (3, 3)
    assert result.exposure.mean == pytest.approx(0.3)
    assert result.did.mean == pytest.approx(0.2)
    assert result.unseen_cost.mean == pytest.approx(0.4)
    assert result.original_seen == pytest.approx(-0.7)
    swapped = exposure_effects(rows, "qB", "qA", (half_a, half_b), n_boot=300)
    assert swapped.exposure.mean == pytest.approx(-0.3)
    with pytest.raises(StatsError, match="share"):
        exposure_effects(rows, "qA", "qB", (half_a, ("a1",)))
    with pytest.raises(StatsError, match="two different models"):
        exposure_effects(rows, "qA", "qA", (half_a, half_b))
    table = markdown_tables(condition_means(rows), [paired_difference(rows, "qA", n_boot=100)],
                            {"Qwen": result})
    assert "| Qwen | mean_logprob | qA / qB | +0.3000" in table
    assert "original − random" in table and table.count("\n|---") == 3


def test_markdown_needs_something() -> None:
    with pytest.raises(StatsError, match="nothing"):
        markdown_tables()


def test_read_likelihood_rows(tmp_path: Path) -> None:
    path = tmp_path / "rows.jsonl"
    good = likelihood_row("m", "t", "original", "0", 2048, None, "cannot rename: x")
    path.write_text(json.dumps({"kind": "header"}) + "\n\n" + json.dumps(good) + "\n",
                    encoding="utf-8")
    assert read_likelihood_rows(path) == [good]
    path.write_text(json.dumps({**good, "schema_version": 9}) + "\n", encoding="utf-8")
    with pytest.raises(StatsError, match="schema_version"):
        read_likelihood_rows(path)


# -- command line ---------------------------------------------------------------------------

def test_probe_likelihood_parses() -> None:
    args = build_parser().parse_args(["probe", "likelihood", "--model-dir", "m",
                                      "--conditions", "original,random", "--max-tokens", "99"])
    assert args.probe_kind == "likelihood" and args.conditions == ("original", "random")
    assert args.max_tokens == 99 and args.tasks == "builtin"


def test_probe_likelihood_usage_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["probe", "likelihood", "--model-dir", "m", "--conditions", "nope"]) == 2
    assert main(["probe"]) == 2
    assert main(["probe", "likelihood", "--model-dir", str(tmp_path / "absent"),
                 "--task", "hour_clock"]) == 2
    assert "does not exist" in capsys.readouterr().err
    assert main(["probe", "likelihood", "--model-dir", "m", "--task", "no_such_task"]) == 2
