"""The chat format a fine-tuned copy learns and the `hf:` adapter generates in: one format.

A training pair is the benchmark's prompt (``render_prompt(description)``) as the user turn and
the reference in a ``tla`` fence as the assistant turn. With a tokenizer that has a chat
template the turns are rendered by it; without one (small test tokenizers, base models) by
:data:`PLAIN_TEMPLATE`. The prompt text is tokenized the same way in training and at
generation (:func:`encode_prompt`), so the adapter continues exactly the prefix it learned.

A feedback turn's conversation (the prompt, then the replies and the feedback on them) is
rendered by :func:`conversation_text`: by the chat template, or by the plain template turn
after turn; a conversation of the prompt alone renders exactly as :func:`prompt_text`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

PLAIN_TEMPLATE = "### Instruction\n{prompt}\n\n### Response\n"
PLAIN_SYSTEM = "### System\n{system}\n\n"
PLAIN_TURN_END = "\n\n"
"""What follows an earlier answer in the plain template, before the next instruction."""


def answer_text(reference: str) -> str:
    """The assistant turn a training pair teaches: the reference module in a ``tla`` fence."""
    return f"```tla\n{reference.rstrip()}\n```\n"


def has_chat_template(tokenizer: Any) -> bool:
    return bool(getattr(tokenizer, "chat_template", None))


def _messages(prompt: str, system: str | None) -> list[dict[str, str]]:
    head = [{"role": "system", "content": system}] if system else []
    return [*head, {"role": "user", "content": prompt}]


def prompt_text(tokenizer: Any, prompt: str, system: str | None = None) -> str:
    """The text the model sees before its answer (the generation prompt)."""
    if has_chat_template(tokenizer):
        text: str = tokenizer.apply_chat_template(_messages(prompt, system), tokenize=False,
                                                  add_generation_prompt=True)
        return text
    head = PLAIN_SYSTEM.format(system=system) if system else ""
    return head + PLAIN_TEMPLATE.format(prompt=prompt)


def conversation_text(tokenizer: Any, messages: Sequence[Mapping[str, str]],
                      system: str | None = None) -> str:
    """The text the model sees before its next answer in a conversation: `messages` are the
    prompt and what followed it (`user` and `assistant` turns, ending with a `user` one)."""
    turns = [{"role": m["role"], "content": m["content"]} for m in messages]
    if not turns or turns[0]["role"] != "user" or turns[-1]["role"] != "user" or any(
            t["role"] not in ("user", "assistant") for t in turns):
        raise ValueError("a conversation is user and assistant turns, from the prompt to a "
                         "user turn")
    if has_chat_template(tokenizer):
        head = [{"role": "system", "content": system}] if system else []
        text: str = tokenizer.apply_chat_template([*head, *turns], tokenize=False,
                                                  add_generation_prompt=True)
        return text
    parts = [PLAIN_SYSTEM.format(system=system)] if system else []
    for turn in turns:
        if turn["role"] == "user":
            parts.append(PLAIN_TEMPLATE.format(prompt=turn["content"]))
        else:
            parts.append(turn["content"].rstrip("\n") + PLAIN_TURN_END)
    return "".join(parts)


def completion_text(tokenizer: Any, prompt: str, answer: str, system: str | None = None) -> str:
    """What follows :func:`prompt_text` in a whole conversation (the answer and its end of
    turn, where the chat template writes one)."""
    if has_chat_template(tokenizer):
        messages = [*_messages(prompt, system), {"role": "assistant", "content": answer}]
        whole: str = tokenizer.apply_chat_template(messages, tokenize=False)
        head = prompt_text(tokenizer, prompt, system)
        if whole.startswith(head):
            return whole[len(head):]
    return answer


def encode_prompt(tokenizer: Any, text: str) -> list[int]:
    """Token ids of a prompt text: a chat template writes its own special tokens."""
    ids: list[int] = tokenizer(text, add_special_tokens=not has_chat_template(tokenizer))[
        "input_ids"]
    return list(ids)


def encode_continuation(tokenizer: Any, text: str) -> list[int]:
    """Token ids of text that follows a prompt, ending with the end-of-sequence token."""
    ids = list(tokenizer(text, add_special_tokens=False)["input_ids"])
    eos = tokenizer.eos_token_id
    if eos is not None and (not ids or ids[-1] != eos):
        ids.append(int(eos))
    return ids
