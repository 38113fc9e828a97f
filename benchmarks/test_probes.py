"""Contamination probes end to end, with a tiny local model the tests build themselves.

The model is a 2-layer GPT-2 with random weights and a byte-level BPE tokenizer trained on the
task texts, saved into a temporary folder and loaded back the way a real model is (local folder
only, no hub). Skipped when torch, transformers or tokenizers are not installed.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from alias_fixtures.probes.likelihood import score_tasks, structural_names
from alias_fixtures.tasks.task import Task, builtin_tasks
from alias_fixtures.tasks.variants import make_variant

pytestmark = pytest.mark.probe

TASK_IDS = ("hour_clock", "alternating_bit", "two_phase_commit")
N_POSITIONS = 1024


@pytest.fixture(scope="module")
def tasks() -> list[Task]:
    by_id = {t.id: t for t in builtin_tasks()}
    return [by_id[i] for i in TASK_IDS]


def build_tiny_model(folder: Path, texts: list[str]) -> None:
    """A random-weight GPT-2 and a byte-level BPE tokenizer trained on ``texts``, saved."""
    pytest.importorskip("torch", reason="the likelihood probe needs torch")
    pytest.importorskip("transformers", reason="the likelihood probe needs transformers")
    tokenizers = pytest.importorskip("tokenizers", reason="the test tokenizer needs tokenizers")
    import torch
    from transformers import GPT2Config, GPT2LMHeadModel, PreTrainedTokenizerFast

    special = "<|endoftext|>"
    bpe = tokenizers.Tokenizer(tokenizers.models.BPE())
    bpe.pre_tokenizer = tokenizers.pre_tokenizers.ByteLevel(add_prefix_space=False)
    bpe.decoder = tokenizers.decoders.ByteLevel()
    trainer = tokenizers.trainers.BpeTrainer(
        vocab_size=600, special_tokens=[special], show_progress=False,
        initial_alphabet=tokenizers.pre_tokenizers.ByteLevel.alphabet())
    bpe.train_from_iterator(texts, trainer=trainer)
    tokenizer = PreTrainedTokenizerFast(  # type: ignore[no-untyped-call, unused-ignore]
        tokenizer_object=bpe, bos_token=special, eos_token=special)
    tokenizer.save_pretrained(folder)
    eos = tokenizer.convert_tokens_to_ids(special)
    assert isinstance(eos, int)
    config = GPT2Config(n_layer=2, n_head=2, n_embd=32, vocab_size=len(tokenizer),
                        n_positions=N_POSITIONS, bos_token_id=eos, eos_token_id=eos)
    torch.manual_seed(0)
    GPT2LMHeadModel(config).save_pretrained(folder)


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory: pytest.TempPathFactory, tasks: list[Task]) -> Path:
    texts: list[str] = []
    for task in tasks:
        for condition in ("original", "random"):
            variant = make_variant(task, condition, seed="0")
            texts += [variant.description or "", *variant.modules.values()]
    folder = tmp_path_factory.mktemp("tiny-model")
    build_tiny_model(folder, texts)
    return folder


def _finite(value: Any) -> bool:
    return isinstance(value, float) and math.isfinite(value)


def test_likelihood_probe_on_three_tasks(tiny_model: Path, tasks: list[Task],
                                         tmp_path: Path) -> None:
    out = tmp_path / "likelihood.jsonl"
    rows = score_tasks(tiny_model, tasks, ("original", "random"), "0", max_tokens=2048, out=out,
                       model_name="tiny")
    assert [(r["task"], r["condition"]) for r in rows] == [
        (t, c) for t in TASK_IDS for c in ("original", "random")]
    for row in rows:
        assert row["kind"] == "likelihood" and row["model"] == "tiny" and row["error"] is None
        assert _finite(row["mean_logprob"]) and row["mean_logprob"] < 0
        assert _finite(row["mean_outside"]) and row["mean_outside"] < 0
        assert row["max_tokens"] == N_POSITIONS  # 2048 capped at the model's positions
        assert 0 < row["n_outside"] < row["n_tokens"] <= row["n_input"] <= row["max_tokens"]
    assert [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()] == rows


def test_likelihood_probe_is_deterministic(tiny_model: Path, tasks: list[Task]) -> None:
    first = score_tasks(tiny_model, tasks[:2], ("original", "random"), "0", max_tokens=256)
    second = score_tasks(tiny_model, tasks[:2], ("original", "random"), "0", max_tokens=256)
    assert first == second


def test_likelihood_probe_truncates(tiny_model: Path, tasks: list[Task]) -> None:
    rows = score_tasks(tiny_model, tasks[1:2], ("original",), "0", max_tokens=64)
    (row,) = rows
    assert row["truncated"] and row["n_input"] == 64 and row["max_tokens"] == 64
    assert row["n_tokens"] < 64


def test_identifier_tokens_differ_between_conditions(tiny_model: Path, tasks: list[Task]) -> None:
    """Renamed names change the identifier tokens; the same names are measured in both."""
    rows = score_tasks(tiny_model, tasks[:1], ("original", "random"), "0")
    original, renamed = rows
    assert structural_names(tasks[0], "0")
    assert original["mean_logprob"] != renamed["mean_logprob"]
    assert original["n_outside"] > 0 and renamed["n_outside"] > 0
