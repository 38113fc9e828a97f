"""LoRA fine-tuning (alias_fixtures.training) on a tiny model and split the test builds itself.

The model is a 2-layer GPT-2 with random weights and a BPE tokenizer trained on four built-in
tasks; half A of their exposure split is the training set. Those tests skip without torch,
transformers, tokenizers or peft; the data and report tests run without them. The report test
checks Table 2 of the experiment: the likelihood rows beside the grades and the control over
tasks without truncated output.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from alias_fixtures.tasks.task import Task, builtin_tasks
from alias_fixtures.training import LoraSettings, TrainSettings, finetune
from alias_fixtures.training.data import (
    IGNORE,
    Example,
    TrainingDataError,
    encode,
    read_examples,
    write_split,
)
from alias_fixtures.training.lora import FinetuneError
from alias_fixtures.training.tiny import build_tiny_model, task_texts
from reports.exposure import EXPOSURE_SEED, exposure_split
from reports.render import ExposurePair, write_report

TASK_IDS = ("hour_clock", "alternating_bit", "two_phase_commit", "bank_transfer")
TARGETS = ("c_attn", "c_proj", "c_fc")


def fast(**changes: Any) -> TrainSettings:
    """Settings that move a random tiny model in a few steps."""
    base: dict[str, Any] = {"epochs": 6, "learning_rate": 1e-2, "save_every": 4, "seed": 3,
                            "device": "cpu", "lora": LoraSettings(target_modules=TARGETS)}
    return TrainSettings(**{**base, **changes})


def need_libraries() -> None:
    for name in ("torch", "transformers", "tokenizers", "peft"):
        pytest.importorskip(name, reason=f"fine-tuning needs {name} (the `train` extra)")


@pytest.fixture(scope="module")
def one_thread() -> Iterator[None]:
    """Tiny matrices on a loaded 2-core machine: one thread is several times faster."""
    need_libraries()
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


@pytest.fixture(scope="module")
def tasks() -> dict[str, Task]:
    return {t.id: t for t in builtin_tasks() if t.id in TASK_IDS}


@pytest.fixture(scope="module")
def split(tasks: dict[str, Task], tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    halves = exposure_split(tasks, EXPOSURE_SEED)
    paths = write_split(tasks, halves, EXPOSURE_SEED, tmp_path_factory.mktemp("split"))
    return {"A": halves[0], "B": halves[1], **{f"file_{k}": v for k, v in paths.items()}}


@pytest.fixture(scope="module")
def base(tasks: dict[str, Task], tmp_path_factory: pytest.TempPathFactory, one_thread: None
         ) -> Path:
    return build_tiny_model(tmp_path_factory.mktemp("tiny"), task_texts(tasks.values()),
                            init_range=0.1)


@pytest.fixture(scope="module")
def trained(base: Path, split: dict[str, Any], tmp_path_factory: pytest.TempPathFactory
            ) -> Any:
    return finetune(base, split["file_A"], tmp_path_factory.mktemp("ft-A"), settings=fast(),
                    progress=False)


# -- data -----------------------------------------------------------------------------------

def test_split_files_hold_one_pair_per_task(split: dict[str, Any], tasks: dict[str, Task]
                                            ) -> None:
    examples = read_examples(split["file_A"])
    assert [e.source for e in examples] == list(split["A"])
    assert all(e.description == tasks[e.source].description for e in examples)
    assert json.loads(split["file_split"].read_text())["seed"] == EXPOSURE_SEED


def test_read_examples_rejects_malformed_rows(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text('{"task": "t", "description": "d"}\n', encoding="utf-8")
    with pytest.raises(TrainingDataError, match="needs 'reference'"):
        read_examples(path)
    path.write_text("not json\n", encoding="utf-8")
    with pytest.raises(TrainingDataError, match="bad.jsonl:1: not JSON"):
        read_examples(path)
    path.write_text(json.dumps({"text": "---- MODULE M ----\n===="}) + "\n", encoding="utf-8")
    assert read_examples(path)[0].raw


def test_arms_learn_the_answer_or_the_whole_module(base: Path, tasks: dict[str, Task]) -> None:
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(base, local_files_only=True)
    task = tasks["hour_clock"]
    example = Example(task.id, task.description, task.modules[task.main_file])
    pair = encode(tokenizer, example, "task-pair", 2048)
    spec = encode(tokenizer, example, "spec-only", 2048)
    assert pair is not None and spec is not None
    masked = pair.labels.index(next(x for x in pair.labels if x != IGNORE))
    assert masked > 100 and set(pair.labels[:masked]) == {IGNORE}
    assert list(pair.labels[masked:]) == list(pair.input_ids[masked:])
    assert spec.labels == spec.input_ids and spec.input_ids[-1] == tokenizer.eos_token_id
    text = tokenizer.decode(spec.input_ids, skip_special_tokens=True)
    assert text == task.modules[task.main_file]
    assert encode(tokenizer, example, "task-pair", masked) is None  # the prompt fills the limit
    cut = encode(tokenizer, example, "task-pair", masked + 5)
    assert cut is not None and cut.truncated and len(cut.input_ids) == masked + 5
    with pytest.raises(TrainingDataError, match="unknown arm"):
        encode(tokenizer, example, "both", 2048)


# -- training -------------------------------------------------------------------------------

def test_the_loss_falls(trained: Any) -> None:
    losses = trained.losses
    assert trained.finished and len(losses) == trained.total_steps == 12
    assert sum(losses[-3:]) / 3 < sum(losses[:3]) / 3 - 0.3


def test_training_json_records_every_setting(trained: Any, base: Path, split: dict[str, Any]
                                             ) -> None:
    record = json.loads((trained.out / "training.json").read_text(encoding="utf-8"))
    assert record["base_model"] == str(base.resolve()) and len(record["base_model_sha256"]) == 64
    (data,) = record["data"]
    assert data["path"] == str(split["file_A"]) and data["examples"] == 2
    assert len(data["sha256"]) == 64 and data["role"] == "train"
    settings = record["settings"]
    assert settings["lora"] == {"rank": 16, "alpha": 32, "dropout": 0.05,
                                "target_modules": list(TARGETS)}
    for key, value in (("learning_rate", 1e-2), ("epochs", 6), ("seed", 3),
                       ("arm", "task-pair"), ("max_tokens", 2048), ("batch_size", 1)):
        assert settings[key] == value
    resolved = record["resolved"]
    assert resolved["target_modules"] == list(TARGETS) and resolved["fan_in_fan_out"]
    assert resolved["device"] == "cpu" and resolved["dtype"] == "float32"
    assert resolved["total_steps"] == 12 and resolved["examples"] == 2
    libraries = record["libraries"]
    assert all(libraries[name] for name in ("torch", "transformers", "peft", "python"))
    assert record["losses"] == list(trained.losses) and record["finished"]


def test_the_adapter_saves_and_loads(trained: Any, base: Path) -> None:
    import torch

    from alias_fixtures.models.hf import HFSpec, load_hf

    config = json.loads((trained.adapter / "adapter_config.json").read_text())
    assert config["r"] == 16 and sorted(config["target_modules"]) == sorted(TARGETS)
    ids = torch.tensor([[5, 17, 99, 3, 42]])
    logits = []
    for spec in (HFSpec(base, trained.adapter, "cpu"), HFSpec(base, trained.adapter, "cpu"),
                 HFSpec(base, None, "cpu")):
        model, _, _ = load_hf(spec)
        with torch.inference_mode():
            logits.append(model(input_ids=ids).logits)
    assert torch.equal(logits[0], logits[1])
    assert not torch.allclose(logits[0], logits[2], atol=1e-3)


def test_the_seen_half_gains_more_likelihood(trained: Any, base: Path, tasks: dict[str, Task],
                                             split: dict[str, Any]) -> None:
    from alias_fixtures.models.hf import HFSpec, load_hf
    from alias_fixtures.probes.likelihood import score_loaded

    ordered = [tasks[t] for t in sorted(tasks)]
    scores = {}
    for name, adapter in (("base", None), ("tuned", trained.adapter)):
        model, tokenizer, _ = load_hf(HFSpec(base, adapter, "cpu"))
        rows = score_loaded(model, tokenizer, name, ordered, ("original",))
        scores[name] = {r["task"]: r["mean_logprob"] for r in rows}
    rise = {t: scores["tuned"][t] - scores["base"][t] for t in tasks}
    seen = sum(rise[t] for t in split["A"]) / len(split["A"])
    unseen = sum(rise[t] for t in split["B"]) / len(split["B"])
    assert seen > 0 and seen > unseen + 0.05, rise


def test_resume_ends_where_an_uninterrupted_run_ends(base: Path, split: dict[str, Any],
                                                     tmp_path: Path) -> None:
    import torch
    from safetensors.torch import load_file

    settings = fast(epochs=2, save_every=1)
    whole = finetune(base, split["file_B"], tmp_path / "whole", settings=settings,
                     progress=False)
    part = finetune(base, split["file_B"], tmp_path / "part", settings=settings,
                    progress=False, stop_after_steps=2)
    assert (part.steps, part.finished) == (2, False) and not part.adapter.exists()
    assert (tmp_path / "part" / "checkpoint" / "state.json").is_file()
    done = finetune(base, split["file_B"], tmp_path / "part", settings=settings,
                    progress=False, resume=True)
    assert done.resumed_from == 2 and done.finished and done.steps == whole.steps == 4
    assert done.losses == pytest.approx(whole.losses, abs=1e-5)
    weights = [load_file(r.adapter / "adapter_model.safetensors") for r in (whole, done)]
    assert weights[0].keys() == weights[1].keys()
    assert all(torch.allclose(weights[0][k], weights[1][k], atol=1e-6) for k in weights[0])
    with pytest.raises(FinetuneError, match="other settings"):
        finetune(base, split["file_B"], tmp_path / "part", settings=fast(epochs=2, seed=4),
                 progress=False, resume=True)


def test_spec_only_arm_with_a_background_set(base: Path, split: dict[str, Any],
                                             tmp_path: Path) -> None:
    background = tmp_path / "background.jsonl"
    background.write_text(json.dumps({"id": "extra", "text": "---- MODULE Extra ----\n"
                                      "VARIABLE x\nInit == x = 0\n====\n"}) + "\n",
                          encoding="utf-8")
    result = finetune(base, split["file_A"], tmp_path / "spec", background=background,
                      settings=fast(arm="spec-only", epochs=1), progress=False)
    record = result.record
    assert record["settings"]["arm"] == "spec-only" and result.total_steps == 3
    assert [d["role"] for d in record["data"]] == ["train", "background"]
    assert record["resolved"]["examples"] == 3


def test_finetune_command(base: Path, split: dict[str, Any], tmp_path: Path,
                          capsys: pytest.CaptureFixture[str]) -> None:
    from alias_cli import finetune_cmd

    parser = argparse.ArgumentParser()
    finetune_cmd.register(parser.add_subparsers(dest="command"))
    out = tmp_path / "cli"
    args = parser.parse_args(["finetune", "--base", str(base), "--train", str(split["file_A"]),
                              "--out", str(out), "--epochs", "1", "--lr", "0.01",
                              "--rank", "4", "--target-modules", "c_attn", "--device", "cpu",
                              "--no-progress", "--json"])
    assert args.func(args) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["steps"] == 2 and printed["adapter"] == str(out / "adapter")
    record = json.loads((out / "training.json").read_text(encoding="utf-8"))
    assert record["settings"]["lora"]["rank"] == 4
    bad = parser.parse_args(["finetune", "--base", str(tmp_path / "absent"), "--train",
                             str(split["file_A"]), "--out", str(out)])
    assert bad.func(bad) == 2
    assert "does not exist" in capsys.readouterr().err


# -- Table 2 of the experiment --------------------------------------------------------------

REPORT_TASKS = ("t1", "t2", "t3", "t4", "t5", "t6")


def case_record(model: str, task: str, condition: str, passed: bool, truncated: bool
                ) -> dict[str, Any]:
    verdict = {"verdict": "ok" if passed else "parse_error", "passed": passed}
    return {"schema_version": 1, "kind": "case", "id": f"{task}/{condition}/s0", "model": model,
            "task": task, "condition": condition, "sample": 0, "hidden_names": [],
            "grades": {"parse": verdict, "name": verdict,
                       "behavior": {**verdict, "covered": True}}, "infra_error": None,
            "generation": {"finish_reason": "length" if truncated else "stop",
                           "truncated": truncated}}


def test_table2_gains_the_likelihood_and_the_truncation_control(tmp_path: Path) -> None:
    """Seen tasks pass under original, nothing else passes; t6 (in half B) is truncated under
    random for model A, so the control leaves it out. Likelihood: seen original −1.0, unseen
    original −1.3, renamed −1.5 everywhere."""
    half_a, half_b = exposure_split(REPORT_TASKS, EXPOSURE_SEED)
    cut = half_b[-1]
    files, likelihood = [], []
    for model, mine in (("m-a", half_a), ("m-b", half_b)):
        lines: list[dict[str, Any]] = [{"schema_version": 1, "kind": "header", "model": model}]
        for task in REPORT_TASKS:
            seen = task in mine
            lines.append(case_record(model, task, "original", seen, False))
            lines.append(case_record(model, task, "random", False,
                                     model == "m-a" and task == cut))
            likelihood += [
                {"schema_version": 1, "kind": "likelihood", "model": model, "task": task,
                 "condition": "original", "mean_logprob": -1.0 if seen else -1.3,
                 "mean_outside": -1.0, "n_tokens": 9, "n_outside": 5, "error": None},
                {"schema_version": 1, "kind": "likelihood", "model": model, "task": task,
                 "condition": "random", "mean_logprob": -1.5, "mean_outside": -1.0,
                 "n_tokens": 9, "n_outside": 5, "error": None}]
        path = tmp_path / f"{model}.jsonl"
        path.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
        files.append(path)
    probe = tmp_path / "likelihood.jsonl"
    probe.write_text("".join(json.dumps(x) + "\n" for x in likelihood), encoding="utf-8")
    write_report(files, tmp_path / "report", n_boot=500,
                 exposure=[ExposurePair("m-a", "m-b", "task-pair")], probes=[probe])
    stats = json.loads((tmp_path / "report" / "stats.json").read_text(encoding="utf-8"))
    rows = {(r["measure"], r["tasks_subset"]): r for r in stats["sections"]["table2"]["rows"]}
    assert set(rows) == {(m, s) for m in ("parse", "name", "behavior", "likelihood:mean_logprob",
                                          "likelihood:mean_outside")
                         for s in ("all", "no truncated output")}
    behavior = rows[("behavior", "all")]
    assert (behavior["n_tasks"], behavior["exposure"], behavior["did"]) == (6, 100.0, 100.0)
    assert behavior["unit"] == "points" and behavior["pair"] == "task-pair"
    control = rows[("behavior", "no truncated output")]
    assert (control["n_tasks_a"], control["n_tasks_b"]) == (3, 2)
    lik = rows[("likelihood:mean_logprob", "all")]
    assert lik["unit"] == "nats per token"
    assert (lik["exposure"], lik["did"], lik["unseen_cost"]) == pytest.approx((0.3, 0.3, 0.2))
    assert rows[("likelihood:mean_outside", "no truncated output")]["n_tasks"] == 5
    table2 = (tmp_path / "report" / "table2.md").read_text(encoding="utf-8")
    assert "| task-pair | likelihood, all reference tokens | all | original − random | 3 + 3 | " \
        "0.300 (0.300 to 0.300) |" in table2
    assert f"1 task(s) with a truncated output are left out of the 'no truncated output' " \
        f"rows: {cut}" in table2


def test_experiment_command_parses_and_needs_the_checkout(tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch,
                                                          capsys: pytest.CaptureFixture[str]
                                                          ) -> None:
    from alias_cli import experiment_cmd

    parser = argparse.ArgumentParser()
    experiment_cmd.register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["experiment", "--base", str(tmp_path), "--out",
                              str(tmp_path / "exp"), "--arms", "spec-only", "--samples", "2"])
    assert args.arms == ("spec-only",) and args.samples == 2 and args.max_new_tokens == 1024
    assert (args.temperature, args.top_p, args.epochs) == (0.7, 0.95, 3)
    with pytest.raises(SystemExit):
        parser.parse_args(["experiment", "--base", "b", "--out", "o", "--arms", "both"])
    monkeypatch.chdir(tmp_path)
    assert args.func(args) == 2
    assert "no benchmark file" in capsys.readouterr().err
