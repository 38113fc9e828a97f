"""Token counts for API replies that report none (`--alias-tokenizer NAME_OR_PATH`).

A server that leaves `usage` out (some OpenAI-compatible ones) leaves a generation's counts
None. With a tokenizer named, :class:`CountingModel` counts what is missing: input tokens are the
request's conversation as the tokenizer's chat template renders it (else the plain template of
`chat`), output tokens the reply's text. A count the response reports always wins.
`token_source` then says where the counts came from: `usage`, or `tokenizer:NAME` when the
tokenizer counted any of them. A tokenizer's count is an estimate of the server's: its template
and special tokens may differ.

The tokenizer is a Hugging Face name or a local folder, loaded by transformers (imported here
only); :func:`load_counter` fails with a one-line :class:`TokenizerError`, so a run can refuse
it at start-up.
"""

from __future__ import annotations

import functools
import threading
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from alias_fixtures.models.chat import conversation_text, encode_prompt
from alias_fixtures.models.registry import (
    ChatMessage,
    Generation,
    GenerationRequest,
    ModelAdapter,
    ModelError,
    provider_of,
)
from reports.schema import TOKENS_FROM_TOKENIZER, TOKENS_FROM_USAGE

_INSTALL_HINT = "pip install 'alias-bench[likelihood]'"
_LOCAL_PREFIXES = ("/", "./", "../", "~", ".\\", "..\\")
_PROBE = GenerationRequest("probe", "probe", 0, "Write a module.", history=(
    ChatMessage("assistant", "A module."), ChatMessage("user", "Write it again.")))
"""A two-turn conversation every tokenizer must count before a run starts."""


class TokenizerError(ValueError):
    """The tokenizer cannot be loaded or cannot count a conversation (one line)."""


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text[:300]}" if text else type(exc).__name__


@dataclass(frozen=True)
class TokenCounter:
    """A loaded tokenizer and the name it was given by."""

    name: str
    tokenizer: Any = field(repr=False, compare=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    @property
    def source(self) -> str:
        """The `token_source` of counts this tokenizer made."""
        return TOKENS_FROM_TOKENIZER + self.name

    def input_tokens(self, request: GenerationRequest) -> int:
        """Tokens of the conversation the request sends (the system prompt included)."""
        turns = [m for m in request.messages() if m["role"] != "system"]
        with self._lock:
            return len(encode_prompt(self.tokenizer,
                                     conversation_text(self.tokenizer, turns, request.system)))

    def output_tokens(self, text: str) -> int:
        """Tokens of a reply's text (no special tokens added)."""
        with self._lock:
            return len(self.tokenizer(text, add_special_tokens=False)["input_ids"])

    def complete(self, generation: Generation, request: GenerationRequest) -> Generation:
        """`generation` with its missing counts counted and `token_source` set."""
        if generation.input_tokens is not None and generation.output_tokens is not None:
            return replace(generation, token_source=generation.token_source or TOKENS_FROM_USAGE)
        try:
            tokens_in = (generation.input_tokens if generation.input_tokens is not None
                         else self.input_tokens(request))
            tokens_out = (generation.output_tokens if generation.output_tokens is not None
                          else self.output_tokens(generation.text))
        except Exception as exc:  # noqa: BLE001 - a template or tokenizer failure, reported
            raise ModelError(f"tokenizer {self.name} cannot count the request: "
                             f"{_one_line(exc)}") from exc
        return replace(generation, input_tokens=tokens_in, output_tokens=tokens_out,
                       token_source=self.source)


def _from_pretrained(name: str) -> Any:
    try:
        from transformers import AutoTokenizer
    except ImportError:
        raise TokenizerError(f"counting tokens needs transformers ({_INSTALL_HINT})") from None
    path = Path(name).expanduser()
    if path.exists() or name.startswith(_LOCAL_PREFIXES):
        if not path.is_dir():
            raise TokenizerError(f"{name}: not a folder (name a tokenizer folder or a "
                                 f"Hugging Face tokenizer)")
        name = str(path)
    try:
        return AutoTokenizer.from_pretrained(name)
    except Exception as exc:  # noqa: BLE001 - transformers raises many kinds; one line each
        raise TokenizerError(f"{name}: cannot load a tokenizer: {_one_line(exc)}") from None


@functools.lru_cache(maxsize=4)
def load_counter(name: str) -> TokenCounter:
    """The tokenizer `name` (a Hugging Face name or a local folder), loaded once per process
    and tried on a two-turn conversation."""
    if not name or name != name.strip():
        raise TokenizerError(f"{name!r}: name a tokenizer (a Hugging Face name or a local "
                             f"folder, no surrounding spaces)")
    counter = TokenCounter(name, _from_pretrained(name))
    try:
        counter.input_tokens(_PROBE)
        counter.output_tokens(_PROBE.prompt)
    except Exception as exc:  # noqa: BLE001 - whatever the template or tokenizer raises
        raise TokenizerError(f"{name}: cannot count a conversation: {_one_line(exc)}") from None
    return counter


class CountingModel:
    """An adapter whose generations carry token counts: the response's own, else counted."""

    def __init__(self, adapter: ModelAdapter, counter: TokenCounter) -> None:
        self.adapter = adapter
        self.counter = counter
        self.provider = adapter.provider
        self.model_id = adapter.model_id

    def generate(self, request: GenerationRequest) -> Generation:
        return self.counter.complete(self.adapter.generate(request), request)

    def close(self) -> None:
        """Close the inner adapter, if it can be closed."""
        closer = getattr(self.adapter, "close", None)
        if callable(closer):
            closer()


def counted_if_remote(adapter: ModelAdapter, tokenizer: str) -> ModelAdapter:
    """`adapter` behind :class:`CountingModel` when a tokenizer is named and its provider's
    counts come from the API's `usage` (`Provider.tokens`; put it outside the generation
    cache, so a cached reply without counts is counted too)."""
    if not tokenizer or provider_of(adapter).tokens != "usage":
        return adapter
    return CountingModel(adapter, load_counter(tokenizer))
