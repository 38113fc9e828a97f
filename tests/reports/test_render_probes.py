"""The probes' sections of the report (reports.render_probes), probe files and `--probe`.

Small hand-made inputs whose numbers are known in closed form; a missing input gives one line
saying how to produce it; the same inputs and seeds give byte-identical files.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from syrupy.assertion import SnapshotAssertion

from alias_cli.main import main
from reports.exposure import EXPOSURE_SEED, exposure_split
from reports.likelihood_stats import paired_difference
from reports.probe_rows import KEYS, read_probe_files
from reports.records import StatsError
from reports.render import ExposurePair, write_report
from reports.schema import PROBE_KINDS
from tests.reports.test_render import FAST, strict_json, write_run

TASKS = ("t1", "t2", "t3", "t4")
PROBE_FILES = ("similarity.csv", "likelihood.csv", "likelihood_exposure.csv", "continuation.csv",
               "continuation_correlation.csv", "proposed_names.csv")


def write_jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def likelihood(model: str, task: str, condition: str, mean: float | None,
               outside: float | None = None, error: str | None = None) -> dict[str, Any]:
    return {"schema_version": 1, "kind": "likelihood", "model": model, "task": task,
            "condition": condition, "seed": "0", "max_tokens": 2048, "mean_logprob": mean,
            "n_tokens": 100, "mean_outside": mean if outside is None else outside,
            "n_outside": 80, "n_input": 120, "truncated": False, "error": error}


def continuation(model: str, task: str, original: int, renamed: int) -> dict[str, Any]:
    return {"schema_version": 1, "kind": "continuation", "model": model, "task": task,
            "repo": "tlaplus/Examples", "path": f"specifications/{task}/{task}.tla",
            "prefix_lines": 10, "remainder_tokens": 100, "longest_run_original": original,
            "longest_run_renamed": renamed, "fraction_original": original / 100,
            "fraction_renamed": renamed / 100, "note": None}


def similarity(model: str, task: str, condition: str, sample: int, rouge: float, bleu: float
               ) -> dict[str, Any]:
    return {"schema_version": 1, "kind": "similarity", "model": model, "task": task,
            "condition": condition, "sample": sample,
            "similarity": {"rouge_l": rouge, "bleu": bleu, "output_tokens": 10.0,
                           "reference_tokens": 10.0}}


def names(model: str, task: str, kept: int, dropped: int, verified: bool | None
          ) -> dict[str, Any]:
    return {"schema_version": 1, "kind": "proposed_names", "model": model, "task": task,
            "targets": kept + dropped, "kept": kept, "dropped": dropped, "fixed": 0,
            "unproposed": 0, "map": {}, "why_dropped": {}, "verified": verified,
            "reason": None if verified is not False else "SANY: parse error", "error": None}


# Case records of mock-a: name pass rate original − random per task is 0, 1/3, 2/3 and 1.
OUTCOMES = {t: {"original": ("pnb", "pnb", "pnb"),
                "random": tuple("pnb" if s >= i else "pb" for s in range(3))}
            for i, t in enumerate(TASKS)}


def report(tmp_path: Path, probes: list[Path], out_name: str = "out", **kwargs: Any
           ) -> dict[str, str]:
    """The report's files (name -> text) of the case records of OUTCOMES and ``probes``."""
    results = write_run(tmp_path / "results.jsonl", outcomes=OUTCOMES)
    out = tmp_path / out_name
    write_report([results], out, n_boot=FAST, probes=probes, **kwargs)
    return {p.name: p.read_text(encoding="utf-8") for p in out.iterdir()}


def sections(texts: dict[str, str]) -> dict[str, Any]:
    data: dict[str, Any] = strict_json(texts["stats.json"])["sections"]
    return data


# -- numbers ----------------------------------------------------------------------------------

def test_likelihood_means_and_paired_difference(tmp_path: Path) -> None:
    rows = [likelihood("m", t, c, -1.0 - i / 10 - (0.5 if c == "random" else 0.0),
                       outside=-1.0 - i / 10)
            for i, t in enumerate(TASKS) for c in ("original", "random")]
    rows.append(likelihood("m", "t5", "original", None, error="cannot rename: no names"))
    rows.append(likelihood("m", "t5", "random", None, error="cannot rename: no names"))
    texts = report(tmp_path, [write_jsonl(tmp_path / "lik.jsonl", rows)])
    got = {r["measure"]: r for r in sections(texts)["likelihood"]["rows"]}
    assert got["mean_logprob"]["original_mean"] == pytest.approx(-1.15)
    assert got["mean_logprob"]["renamed_mean"] == pytest.approx(-1.65)
    assert got["mean_logprob"]["original_tasks"] == got["mean_logprob"]["paired_tasks"] == 4
    # every task differs by exactly 0.5, so every resample does too
    assert (got["mean_logprob"]["difference"], got["mean_logprob"]["ci_low"],
            got["mean_logprob"]["ci_high"]) == pytest.approx((0.5, 0.5, 0.5))
    assert got["mean_outside"]["difference"] == pytest.approx(0.0)
    expected = paired_difference(rows, "m", measure="mean_logprob", n_boot=FAST, seed=2026)
    assert got["mean_logprob"]["ci_low"] == pytest.approx(expected.ci_low, abs=1e-6)
    assert "2 row(s) not scored, e.g. t5: cannot rename" in texts["probes.md"]
    assert "| m | all reference tokens | original − random | −1.1500 (4) | −1.6500 (4) | 4 |" \
        in texts["probes.md"]
    assert "likelihood.csv" in texts


def test_likelihood_exposure_effect_and_did(tmp_path: Path) -> None:
    """Seen: original −1.0, renamed −1.5; unseen: original −1.2, renamed −1.5 (every task)."""
    half_a, _ = exposure_split(list(TASKS), EXPOSURE_SEED)
    rows = []
    for model, half in (("tiny-a", set(half_a)), ("tiny-b", set(TASKS) - set(half_a))):
        for t in TASKS:
            seen = t in half
            rows += [likelihood(model, t, "original", -1.0 if seen else -1.2),
                     likelihood(model, t, "random", -1.5)]
    texts = report(tmp_path, [write_jsonl(tmp_path / "lik.jsonl", rows)],
                   exposure=[ExposurePair("tiny-a", "tiny-b", "tiny")])
    got = {r["measure"]: r for r in sections(texts)["likelihood_exposure"]["rows"]}
    row = got["mean_logprob"]
    assert row["pair"] == "tiny" and row["n_tasks"] == 4
    for key, value in (("exposure", 0.2), ("did", 0.2), ("unseen_cost", 0.3)):
        assert (row[key], row[f"{key}_low"], row[f"{key}_high"]) == pytest.approx((value,) * 3)
    assert "halves from split seed 20260926" in texts["probes.md"]
    # Table 2 of the pass rates knows no such models: it says so, the likelihood table works
    assert "tiny: no records for tiny-a, tiny-b" in texts["table2.md"]


def test_similarity_from_cases_and_probe_rows(tmp_path: Path) -> None:
    rows = [similarity("m", "t1", "original", 0, 1.0, 0.8),
            similarity("m", "t1", "original", 1, 0.5, 0.4),  # t1 original: 0.75, 0.6
            similarity("m", "t2", "original", 0, 0.25, 0.2),
            similarity("m", "t1", "random", 0, 0.2, 0.1)]
    rows.append({**similarity("m", "t2", "random", 0, 0, 0), "similarity": None})
    texts = report(tmp_path, [write_jsonl(tmp_path / "sim.jsonl", rows)])
    got = {(r["source"], r["condition"]): r for r in sections(texts)["similarity"]["rows"]}
    assert set(got) == {("probe", "original"), ("probe", "random")}  # cases carry none
    original = got[("probe", "original")]
    assert (original["tasks"], original["cases"], original["missing"]) == (2, 3, 0)
    assert original["rouge_l"] == pytest.approx(0.5)  # tasks weigh the same: (0.75 + 0.25) / 2
    assert original["bleu"] == pytest.approx(0.4)
    assert got[("probe", "random")]["missing"] == 1


def test_similarity_of_case_records(tmp_path: Path) -> None:
    results = write_run(tmp_path / "r.jsonl", outcomes=OUTCOMES)
    lines = [json.loads(line) for line in results.read_text(encoding="utf-8").splitlines()]
    for line in lines:
        if line["kind"] == "case":
            line["similarity"] = {"rouge_l": 1.0 if line["condition"] == "original" else 0.5,
                                  "bleu": 0.9}
    write_jsonl(results, lines)
    write_report([results], tmp_path / "out", n_boot=FAST)
    rows = strict_json((tmp_path / "out" / "stats.json").read_text())["sections"]["similarity"]
    assert [(r["source"], r["condition"], r["rouge_l"], r["cases"]) for r in rows["rows"]] == [
        ("cases", "original", 1.0, 12), ("cases", "random", 0.5, 12)]


def test_continuation_runs_and_spearman(tmp_path: Path) -> None:
    rows = [continuation("mock-a", t, 10 + 20 * i, 5) for i, t in enumerate(TASKS)]
    rows.append(continuation("other", "t1", 50, 1))
    texts = report(tmp_path, [write_jsonl(tmp_path / "cont.jsonl", rows)])
    got = sections(texts)
    runs = {(r["model"], r["task"]): r for r in got["continuation"]["rows"]}
    assert runs[("mock-a", "t3")]["run_excess"] == 45
    assert runs[("mock-a", "t3")]["name_decrease"] == pytest.approx(2 / 3)
    assert runs[("other", "t1")]["name_decrease"] is None
    corr = {(r["measure"], r["decrease"]): r for r in got["continuation_correlation"]["rows"]}
    assert corr[("longest_run_original", "name_decrease")]["rho"] == pytest.approx(1.0)
    assert corr[("run_excess", "name_decrease")]["tasks"] == 4
    assert corr[("run_excess", "behavior_decrease")]["rho"] is None  # behavior never drops
    assert "other: no case records of this model" in texts["probes.md"]
    assert "| mock-a | t2 | tlaplus/Examples: specifications/t2/t2.tla | 100 | 30 (30%) | 5 (5%) " \
        "| 25 | 33.3 | 0.0 |" in texts["probes.md"]


def test_proposed_names_counts(tmp_path: Path) -> None:
    rows = [names("m", "t1", 5, 2, True), names("m", "t2", 3, 0, False), names("m", "t3", 4, 1, None)]
    texts = report(tmp_path, [write_jsonl(tmp_path / "names.jsonl", rows)])
    assert "| m | t1 | 7 | 5 | 2 | 0 | 0 | yes |" in texts["probes.md"]
    assert "m, t2: not verified: SANY: parse error" in texts["probes.md"]
    assert "m: 12 of 15 names kept over 3 task(s); 1 of 2 verified map(s)" in texts["probes.md"]


# -- missing input, determinism, snapshot -----------------------------------------------------

def test_sections_without_input_say_how_to_produce_them(tmp_path: Path) -> None:
    texts = report(tmp_path, [])
    probes = texts["probes.md"]
    for command in ("alias-bench probe likelihood", "alias-bench probe continuation",
                    "alias-bench probe propose-names", "alias-bench probe similarity"):
        assert command in probes
    for key in ("similarity", "likelihood", "likelihood_exposure", "continuation",
                "continuation_correlation", "proposed_names"):
        section = sections(texts)[key]
        assert section["rows"] == [] and len(section["notes"]) == 1
    assert not set(PROBE_FILES) & set(texts)
    assert 'id="probes"' in texts["index.html"] and 'id="likelihood"' in texts["index.html"]


def probe_inputs(folder: Path) -> list[Path]:
    half_a, _ = exposure_split(list(TASKS), EXPOSURE_SEED)
    lik = [likelihood(m, t, c, -1.0 - 0.1 * i - (0.3 if c == "random" else 0)
                      - (0.2 if (t in half_a) != (m == "a") else 0))
           for m in ("a", "b") for i, t in enumerate(TASKS) for c in ("original", "random")]
    text = [continuation("mock-a", t, 10 + 7 * i, 3 + i % 2) for i, t in enumerate(TASKS)]
    text += [similarity("mock-a", t, c, 0, 0.9 - 0.1 * i, 0.5) for i, t in enumerate(TASKS)
             for c in ("original", "random")]
    text += [names("mock-a", t, 4, i, i % 2 == 0) for i, t in enumerate(TASKS)]
    return [write_jsonl(folder / "lik.jsonl", lik), write_jsonl(folder / "text.jsonl", text)]


def test_probe_sections_are_deterministic(tmp_path: Path) -> None:
    pair = [ExposurePair("a", "b")]
    first = report(tmp_path, probe_inputs(tmp_path), "one", exposure=pair)
    again = report(tmp_path, probe_inputs(tmp_path), "two", exposure=pair)
    assert set(PROBE_FILES) <= set(first)
    assert first == again


def test_probes_md_matches_snapshot(tmp_path: Path, snapshot: SnapshotAssertion) -> None:
    texts = report(tmp_path, probe_inputs(tmp_path), exposure=[ExposurePair("a", "b")])
    assert texts["probes.md"] == snapshot


# -- probe files and the command line ---------------------------------------------------------

def test_probe_kinds_agree() -> None:
    assert tuple(KEYS) == PROBE_KINDS


@pytest.mark.parametrize(("rows", "message"), [
    ([{"kind": "case", "schema_version": 1}], "belongs to a results file"),
    ([{"kind": "mystery", "schema_version": 1, "model": "m", "task": "t"}], "unknown probe row"),
    ([{**names("m", "t", 1, 0, None), "schema_version": 2}], "schema_version 2"),
    ([{**names("m", "t", 1, 0, None), "model": ""}], "'model' must be a non-empty string"),
    ([names("m", "t", 1, 0, None), names("m", "t", 2, 0, None)], "already read at"),
])
def test_bad_probe_rows_are_named(rows: list[dict[str, Any]], message: str, tmp_path: Path
                                  ) -> None:
    with pytest.raises(StatsError, match=message):
        read_probe_files([write_jsonl(tmp_path / "p.jsonl", rows)])


def test_cli_report_with_probe_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    results = write_run(tmp_path / "r.jsonl", outcomes=OUTCOMES)
    lik, text = probe_inputs(tmp_path)
    out = tmp_path / "out"
    assert main(["report", str(results), "--probe", str(lik), "--probe", str(text), "--out",
                 str(out), "--n-boot", "500", "--exposure", "A=a,B=b"]) == 0
    assert "probes.md" in capsys.readouterr().out
    stats = strict_json((out / "stats.json").read_text(encoding="utf-8"))
    assert [i["rows"] for i in stats["probe_inputs"]] == [
        {"likelihood": 16}, {"continuation": 4, "similarity": 8, "proposed_names": 4}]
    assert len(stats["sections"]["likelihood_exposure"]["rows"]) == 2


@pytest.mark.parametrize("how", ["missing probe", "results as probe", "probe as results"])
def test_cli_report_rejects_misplaced_files(how: str, tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    results = write_run(tmp_path / "r.jsonl", outcomes=OUTCOMES)
    lik = probe_inputs(tmp_path)[0]
    argv, message = {
        "missing probe": ([str(results), "--probe", str(tmp_path / "nope.jsonl")],
                          "no such probe file"),
        "results as probe": ([str(results), "--probe", str(results)],
                             "belongs to a results file"),
        "probe as results": ([str(lik)], "--probe FILE"),
    }[how]
    assert main(["report", *argv, "--out", str(tmp_path / "out")]) == 2
    assert message in capsys.readouterr().err
