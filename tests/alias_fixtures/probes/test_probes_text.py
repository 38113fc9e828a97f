"""Text probes: TLA+ tokens, similarity, file continuation, model-proposed meaningful names."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from rouge_score import rouge_scorer

import reports.similarity as sim
from alias_cli.main import main
from alias_fixtures.models.propose_names import (
    ProposalError,
    layout_risks,
    parse_name_map,
    propose_names,
    sanitize,
    targets,
    write_name_map,
)
from alias_fixtures.models.registry import Generation, GenerationRequest, ModelError
from alias_fixtures.probes.continuation import (
    ContinuationRow,
    FileLocation,
    continuation_correlation,
    continuation_probe,
    reference_location,
    renaming_decrease,
    reply_text,
    split_prefix,
)
from alias_fixtures.tasks.task import Task, builtin_tasks
from alias_fixtures.tasks.variants import build_variant, load_name_map, make_variant
from reports.records import records_to_frame
from tlc_harness.source.rename import validate_map
from tlc_harness.source.tokens import longest_common_run, strip_comments, tla_tokens
from tlc_harness.tools.runner import Harness

TASKS = {t.id: t for t in builtin_tasks()}


class ScriptedModel:
    """A deterministic adapter: replies looked up by (task, condition); records every request."""

    provider = "scripted"
    model_id = "scripted"

    def __init__(self, replies: dict[tuple[str, str], str]) -> None:
        self.replies = replies
        self.requests: list[GenerationRequest] = []

    def generate(self, request: GenerationRequest) -> Generation:
        self.requests.append(request)
        key = (request.task_id, request.condition)
        if key not in self.replies:
            raise ModelError(f"no scripted reply for {key}")
        return Generation(self.replies[key], self.model_id, "stop")


def _dp_run(a: list[int], b: list[int]) -> int:
    best, prev = 0, [0] * (len(b) + 1)
    for x in a:
        cur = [0] * (len(b) + 1)
        for j, y in enumerate(b):
            if x == y:
                cur[j + 1] = prev[j] + 1
                best = max(best, cur[j + 1])
        prev = cur
    return best


# ----------------------------------------------------------------------------------- tokens
def test_tokens_split_identifiers_operators_and_strings() -> None:
    text = '---- MODULE M ----\nInit == /\\ x \\in 1..3\n     /\\ y = <<"a b", x\'>>\n========'
    assert tla_tokens(text) == [
        "----", "MODULE", "M", "----", "Init", "==", "/\\", "x", "\\in", "1", "..", "3",
        "/\\", "y", "=", "<<", '"a\u2581b"', ",", "x", "'", ">>", "===="]


def test_tokens_temporal_operators_and_rulers() -> None:
    assert tla_tokens("Spec == Init /\\ [][Next]_vars /\\ WF_vars(Next) ~> <>P") == [
        "Spec", "==", "Init", "/\\", "[]", "[", "Next", "]", "_vars", "/\\", "WF_vars", "(",
        "Next", ")", "~>", "<>", "P"]
    assert tla_tokens("(*****)") == ["(*", "****", "*)"]
    assert tla_tokens("------ MODULE A ---") == tla_tokens("---- MODULE A ----------")


def test_comments_dropped_on_request_but_pluscal_kept() -> None:
    text = 'x == 1 \\* note\n(* outer (* nested *) still *) y == "(* not a comment *)"\n' \
           "(* --algorithm A { skip } *)"
    code = tla_tokens(text, comments=False)
    assert code[:6] == ["x", "==", "1", "y", "==", '"(*\u2581not\u2581a\u2581comment\u2581*)"']
    assert "note" not in code
    assert "nested" not in code
    assert "still" not in code
    assert "algorithm" in code
    assert "skip" in code
    assert "note" in tla_tokens(text)
    assert strip_comments("a (* open") == "a  "


# ------------------------------------------------------------------------------- similarity
def test_similarity_identical_and_disjoint() -> None:
    text = TASKS["hour_clock"].modules["WallClock.tla"]
    same = sim.similarity(text, text)
    assert same["rouge_l"] == same["bleu"] == same["rouge_l_recall"] == 1.0
    disjoint = sim.similarity("a b c", "x y z")
    assert disjoint["rouge_l"] == disjoint["bleu"] == 0.0
    assert disjoint["output_tokens"] == disjoint["reference_tokens"] == 3


def test_similarity_hand_computed() -> None:
    # LCS(a b c d, a c d e) = a c d: P = R = F1 = 3/4. BLEU: 1-gram 3/4, 2-gram 1/3, no 3- or
    # 4-gram match -> exp smoothing 1/(2*2) and 1/(4*1); equal lengths, so no brevity penalty:
    # (3/4 * 1/3 * 1/4 * 1/4) ** (1/4) = 2 ** -1.5.
    result = sim.similarity("a b c d", "a c d e")
    assert result["rouge_l"] == pytest.approx(0.75)
    assert result["rouge_l_precision"] == pytest.approx(0.75)
    assert result["bleu"] == pytest.approx(2 ** -1.5, abs=1e-6)
    # comments are not compared
    assert sim.similarity("x == 1 \\* mine", "x == 1 (* theirs *)")["rouge_l"] == 1.0


def test_similarity_empty_texts() -> None:
    assert sim.similarity("", "")["rouge_l"] == 1.0
    assert sim.similarity("", "x == 1")["bleu"] == 0.0
    assert sim.similarity("x == 1", "(* only a comment *)")["rouge_l"] == 0.0


@given(st.lists(st.sampled_from("abcd"), max_size=40), st.lists(st.sampled_from("abcd"),
                                                                    max_size=40))
def test_bit_parallel_lcs_matches_rouge_score(a: list[str], b: list[str]) -> None:
    scorer = rouge_scorer.RougeScorer(["rougeL"], tokenizer=sim._Presplit())
    if a and b:
        expected = scorer.score(" ".join(b), " ".join(a))["rougeL"]
        assert sim.lcs_length(b, a) / len(b) == pytest.approx(expected.recall)
    else:
        assert sim.lcs_length(b, a) == 0


def test_large_inputs_take_the_bit_parallel_path(monkeypatch: pytest.MonkeyPatch) -> None:
    text = TASKS["alternating_bit"].modules["AlternatingBit.tla"]
    other = TASKS["bounded_fifo"].modules["BoundedFifo.tla"]
    exact = sim.similarity(text, other)
    monkeypatch.setattr(sim, "ROUGE_CELL_LIMIT", 0)
    assert sim.similarity(text, other) == exact


def test_similarity_table_averages_samples_then_tasks() -> None:
    def case(task: str, cond: str, rouge: float | None) -> dict[str, Any]:
        s = None if rouge is None else {"rouge_l": rouge, "bleu": rouge / 2}
        return {"kind": "case", "model": "m", "task": task, "condition": cond, "similarity": s}

    rows: list[dict[str, Any]] = [
        case("t1", "original", 1.0), case("t1", "original", 0.5), case("t2", "original", 0.0),
        case("t1", "random", 0.2), case("t2", "random", None), {"kind": "header"}]
    table = sim.similarity_table(rows).set_index("condition")
    assert table.loc["original", "rouge_l"] == pytest.approx((0.75 + 0.0) / 2)
    assert table.loc["original", "bleu"] == pytest.approx(0.1875)
    assert table.loc["original", "cases"] == 3
    assert table.loc["random", "tasks"] == 1
    assert table.loc["random", "missing"] == 1
    assert list(table.index) == ["original", "random"]
    assert "original" in sim.format_similarity_table(sim.similarity_table(rows))


# ----------------------------------------------------------------------- longest common run
tokens = st.lists(st.integers(0, 3), max_size=25)


@given(tokens, tokens, tokens, tokens, st.lists(st.integers(10, 12), min_size=1, max_size=15))
def test_planted_run_is_found(x: list[int], y: list[int], u: list[int], v: list[int],
                              planted: list[int]) -> None:
    a, b = x + planted + y, u + planted + v
    run = longest_common_run(a, b)
    assert run.length >= len(planted)
    assert a[run.start_a:run.start_a + run.length] == b[run.start_b:run.start_b + run.length]


@given(tokens, tokens)
def test_longest_run_is_symmetric_and_exact(a: list[int], b: list[int]) -> None:
    assert longest_common_run(a, b).length == longest_common_run(b, a).length == _dp_run(a, b)


# ----------------------------------------------------------------------------- continuation
def test_split_prefix_takes_forty_percent_of_lines() -> None:
    text = "".join(f"line {i}\n" for i in range(10))
    prefix, rest = split_prefix(text)
    assert prefix.count("\n") == 4
    assert prefix + rest == text
    assert split_prefix("one line") == ("one line", "")
    assert split_prefix("a\nb\n")[1] == "b\n"


def test_reference_location() -> None:
    task = TASKS["hour_clock"]
    assert reference_location(task) == FileLocation(task.source, "WallClock.tla")
    examples = replace(task, source="tlaplus/Examples Clocks")
    assert reference_location(examples) == FileLocation(
        "tlaplus/Examples", "specifications/Clocks/WallClock.tla")
    with_dir = replace(task, extra={"spec_dir": "HourClock"})
    assert reference_location(with_dir).path == "specifications/HourClock/WallClock.tla"
    upstream = replace(task, extra={"path": "specifications/HourClock/MC.cfg"})
    assert reference_location(upstream).path == "specifications/HourClock/WallClock.tla"
    given_source = replace(task, extra={"source": {"repo": "o/r", "path": "a/B.tla"}})
    assert reference_location(given_source) == FileLocation("o/r", "a/B.tla")


def test_reply_text_drops_fences() -> None:
    assert reply_text("Here:\n```tla\nx == 1\n```\n") == "Here:\nx == 1\n"


def _remainder(text: str) -> str:
    return split_prefix(text)[1]


def test_continuation_recalled_original_and_garbage_for_renamed() -> None:
    tasks = [TASKS["hour_clock"], TASKS["bank_transfer"]]
    replies = {}
    for task in tasks:
        replies[(task.id, "continuation:original")] = \
            f"```tla\n{_remainder(task.modules[task.main_file])}```"
        replies[(task.id, "continuation:random")] = "lorem ipsum dolor sit amet"
    model = ScriptedModel(replies)
    rows = continuation_probe(tasks, model, seed=7)
    for task, row in zip(tasks, rows, strict=True):
        truth = tla_tokens(_remainder(task.modules[task.main_file]))
        assert row.remainder_tokens == len(truth) == row.longest_run_original
        assert row.fraction_original == 1.0
        assert row.longest_run_renamed is not None
        assert row.longest_run_renamed <= 1
        assert row.note is None
    first = model.requests[0]
    assert "WallClock.tla" in first.prompt
    assert TASKS["hour_clock"].source in first.prompt
    assert split_prefix(TASKS["hour_clock"].modules["WallClock.tla"])[0] in first.prompt
    renamed = make_variant(TASKS["hour_clock"], "random", seed=7)
    assert f"{renamed.main_module}.tla" in model.requests[1].prompt


def test_continuation_model_error_is_a_note() -> None:
    row = continuation_probe([TASKS["hour_clock"]], ScriptedModel({}))[0]
    assert row.longest_run_original is None
    assert row.longest_run_renamed is None
    assert row.note is not None
    assert "model error" in row.note


def _record(task: str, cond: str, sample: int, name: bool, behavior: bool) -> dict[str, object]:
    grades = {"parse": {"verdict": "ok", "passed": True},
              "name": {"verdict": "ok" if name else "eval_error", "passed": name},
              "behavior": {"verdict": "ok" if behavior else "forward_fail", "passed": behavior,
                           "covered": True}}
    return {"schema_version": 1, "kind": "case", "model": "m", "task": task, "condition": cond,
            "sample": sample, "grades": grades, "infra_error": None}


def test_renaming_decrease_and_spearman() -> None:
    records = []
    for i, task in enumerate(["t0", "t1", "t2", "t3"]):
        for s in range(4):
            records.append(_record(task, "original", s, True, True))
            records.append(_record(task, "random", s, s >= i, s >= 4 - i))
    decrease = renaming_decrease(records_to_frame(records))
    assert list(decrease["name_decrease"]) == [0.0, 0.25, 0.5, 0.75]
    rows = [ContinuationRow(f"t{i}", "r", "p", 3, 100, 10 * i, 1, i / 10, 0.01)
            for i in range(4)]
    table = continuation_correlation(rows, decrease).set_index(["measure", "decrease"])
    assert table.loc[("longest_run_original", "name_decrease"), "rho"] == pytest.approx(1.0)
    assert table.loc[("run_excess", "behavior_decrease"), "rho"] == pytest.approx(-1.0)
    assert table.loc[("run_excess", "name_decrease"), "tasks"] == 4
    few = continuation_correlation(rows[:2], decrease)
    assert few["rho"].isna().all()


# ----------------------------------------------------------------------------- propose names
def test_parse_name_map_variants() -> None:
    assert parse_name_map('Sure:\n```json\n{"hr": "hour", "pm": "afternoon",}\n```\nDone.') == \
        {"hr": "hour", "pm": "afternoon"}
    assert parse_name_map("Names {'hr': 'hour'} as asked") == {"hr": "hour"}
    assert parse_name_map('{"renames": {"hr": "hour", "pm": "night"}}') == \
        {"hr": "hour", "pm": "night"}
    assert parse_name_map('x {"a": "b"} y {"a": "b", "c": "d"}') == {"a": "b", "c": "d"}
    with pytest.raises(ProposalError):
        parse_name_map("no names here, sorry")


def test_sanitize_fixes_and_drops() -> None:
    task = TASKS["hour_clock"]
    proposal = sanitize(task, {
        "hr": "Hour", "pm": "hr", "NoonRecurs": "NOON", "Init": "Start", "bogus": "x",
        "vars": "Nat", "TypeOK": "TypeOK", "WallClock": 3, "Tick": "ENABLED"})
    assert proposal.mapping["hr"] == "hour"
    assert proposal.mapping["pm"] == "hr2"
    assert proposal.mapping["vars"] == "nat"
    assert "Init" in proposal.dropped
    assert "bogus" in proposal.dropped
    assert "TypeOK" in proposal.dropped
    assert "WallClock" in proposal.dropped
    assert "Tick" in proposal.dropped
    assert validate_map(task.modules, proposal.mapping, task.cfg_text,
                        allow_length_change=True) == []


def test_layout_risks_found_and_dropped() -> None:
    task = TASKS["hour_clock"]
    assert layout_risks(task.modules, {"Tick", "hr", "NoonRecurs"}) == {"Tick"}
    kept = sanitize(task, {"Tick": "AdvanceHour"}, keep_layout=False)
    assert kept.mapping == {"Tick": "AdvanceHour"}
    assert "layout" in sanitize(task, {"Tick": "AdvanceHour"}).dropped["Tick"]
    assert sanitize(task, {"Tick": "Step"}).mapping == {"Tick": "Step"}  # same length is fine


@pytest.mark.parametrize("task_id", ["hour_clock", "bank_transfer"])
def test_propose_names_with_scripted_model(task_id: str, tmp_path: Path) -> None:
    task = TASKS[task_id]
    wanted = targets(task)
    names = {old: ("the" if old[0].islower() else "The") + old + "Renamed" for old in wanted}
    reply = "Here are my names:\n```json\n" + json.dumps(names, indent=2) + "\n```\n"
    model = ScriptedModel({(task_id, "propose-names"): reply})
    proposal = propose_names(task, model)
    assert proposal.mapping
    assert set(proposal.mapping) | set(proposal.dropped) == set(wanted)
    assert not proposal.unproposed
    assert validate_map(task.modules, proposal.mapping, task.cfg_text,
                        allow_length_change=True) == []
    for old in wanted:
        assert old in model.requests[0].prompt
    write_name_map(proposal, tmp_path)
    assert load_name_map(tmp_path, task_id) == proposal.mapping
    with pytest.raises(FileExistsError):
        write_name_map(proposal, tmp_path)


def test_meaningful_variant_from_proposal_verifies(harness: Harness, tmp_path: Path) -> None:
    task: Task = TASKS["hour_clock"]
    reply = json.dumps({"hr": "hour", "pm": "afternoon", "Tick": "AdvanceHour",
                        "TypeOK": "WellTyped", "NoonRecurs": "NoonComesAgain",
                        "WallClock": "TwelveHourClock", "vars": "clockState"})
    proposal = propose_names(task, ScriptedModel({(task.id, "propose-names"): reply}))
    assert set(proposal.dropped) == {"Tick", "TypeOK"}  # left of multi-line bullet lists
    write_name_map(proposal, tmp_path)
    variant, verification = build_variant(harness, task, "meaningful", maps_dir=tmp_path)
    assert verification.verified, verification.reason
    assert variant is not None
    assert variant.main_module == "TwelveHourClock"
    assert "afternoon" in variant.modules["TwelveHourClock.tla"]


# ------------------------------------------------------------------------------------- CLI
def _replay_file(path: Path, rows: list[tuple[str, str, str]]) -> str:
    path.write_text("".join(json.dumps({"task": t, "condition": c, "sample": 0, "text": x}) + "\n"
                            for t, c, x in rows), encoding="utf-8")
    return f"replay:{path}"


def test_cli_propose_names_and_continuation(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    task = TASKS["hour_clock"]
    spec = _replay_file(tmp_path / "replies.jsonl", [
        (task.id, "propose-names", '```json\n{"hr": "hour", "Init": "Start"}\n```'),
        (task.id, "continuation:original", _remainder(task.modules[task.main_file])),
        (task.id, "continuation:random", "nothing"),
    ])
    maps = tmp_path / "maps"
    assert main(["probe", "propose-names", "--model", spec, "--task", task.id,
                 "--out", str(maps)]) == 0
    assert load_name_map(maps, task.id) == {"hr": "hour"}
    assert "dropped Init" in capsys.readouterr().out
    assert main(["probe", "propose-names", "--model", spec, "--task", task.id,
                 "--out", str(maps)]) == 1  # the map exists: not overwritten without --force
    assert "exists" in capsys.readouterr().out
    assert main(["probe", "continuation", "--model", spec, "--task", task.id, "--json"]) == 0
    row = json.loads(capsys.readouterr().out)["rows"][0]
    assert row["fraction_original"] == 1.0
    assert row["longest_run_renamed"] <= 1


def test_cli_similarity_from_results(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    task = TASKS["hour_clock"]
    outputs = tmp_path / "outputs"
    outputs.mkdir()
    reference = task.modules[task.main_file]
    (outputs / "s0.txt").write_text(f"Here it is:\n```tla\n{reference}```\n", encoding="utf-8")
    (outputs / "s1.txt").write_text("no module at all", encoding="utf-8")
    records: list[dict[str, Any]] = [{"kind": "header", "tasks": "builtin", "seeds": {"run": "3"}}]
    for sample, cond in ((0, "original"), (1, "original"), (0, "random")):
        records.append({"schema_version": 1, "kind": "case", "model": "m", "task": task.id,
                        "condition": cond, "sample": sample, "infra_error": None,
                        "output_path": str(outputs / f"s{sample}.txt")})
    results = tmp_path / "results.jsonl"
    results.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    assert main(["probe", "similarity", str(results), "--json"]) == 0
    table = {row["condition"]: row for row in json.loads(capsys.readouterr().out)}
    assert table["original"]["rouge_l"] == 1.0
    assert table["original"]["missing"] == 1
    assert table["random"]["rouge_l"] < 1.0  # the original text against the renamed reference
