"""A tiny causal LM built offline: a small GPT-2 with random weights and a byte-level BPE
tokenizer trained on the given texts, with a chat template. For the tests and the measurement
script of the exposure experiment; it downloads nothing and learns only what it is shown.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from alias_fixtures.tasks.task import Task
from alias_fixtures.tasks.variants import make_variant

END = "<|endoftext|>"
CHAT_TEMPLATE = (
    "{% for m in messages %}<|{{ m['role'] }}|>\n{{ m['content'] }}" + END + "{% endfor %}"
    "{% if add_generation_prompt %}<|assistant|>\n{% endif %}")
ROLE_TOKENS = ("<|system|>", "<|user|>", "<|assistant|>")


def task_texts(tasks: Iterable[Task], conditions: Iterable[str] = ("original", "random"),
               seed: str = "0") -> list[str]:
    """Descriptions and modules of every task under each condition (a tokenizer's corpus)."""
    texts: list[str] = []
    for task in tasks:
        for condition in conditions:
            variant = make_variant(task, condition, seed=seed)
            texts += [variant.description or "", *variant.modules.values()]
    return texts


def build_tiny_model(folder: str | Path, texts: Iterable[str], *, vocab_size: int = 800,
                     n_layer: int = 2, n_head: int = 2, n_embd: int = 64,
                     n_positions: int = 2048, init_range: float = 0.02, chat_template: bool = True,
                     seed: int = 0) -> Path:
    """Save a random-weight GPT-2 and its fast tokenizer into ``folder``; return it."""
    import tokenizers
    import torch
    from transformers import GPT2Config, GPT2LMHeadModel, PreTrainedTokenizerFast

    from alias_fixtures.tasks.prompts import PROMPT_TEMPLATE

    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    bpe = tokenizers.Tokenizer(tokenizers.models.BPE())
    bpe.pre_tokenizer = tokenizers.pre_tokenizers.ByteLevel(add_prefix_space=False)
    bpe.decoder = tokenizers.decoders.ByteLevel()
    trainer = tokenizers.trainers.BpeTrainer(
        vocab_size=vocab_size, special_tokens=[END, *ROLE_TOKENS], show_progress=False,
        initial_alphabet=tokenizers.pre_tokenizers.ByteLevel.alphabet())
    bpe.train_from_iterator([PROMPT_TEMPLATE, *texts], trainer=trainer)
    fast: Any = PreTrainedTokenizerFast
    tokenizer = fast(tokenizer_object=bpe, bos_token=END, eos_token=END,
                                        pad_token=END)
    if chat_template:
        tokenizer.chat_template = CHAT_TEMPLATE
    tokenizer.save_pretrained(out)
    eos = int(tokenizer.convert_tokens_to_ids(END))
    config = GPT2Config(n_layer=n_layer, n_head=n_head, n_embd=n_embd,
                        vocab_size=len(tokenizer), n_positions=n_positions, bos_token_id=eos,
                        eos_token_id=eos, pad_token_id=eos, initializer_range=init_range)
    torch.manual_seed(seed)
    GPT2LMHeadModel(config).save_pretrained(out)
    return out
