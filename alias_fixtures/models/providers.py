"""Hosted and local model APIs: Anthropic Messages and OpenAI Chat Completions.

Specs (after the registry strips `anthropic:` / `openai:`):
    `MODEL`, `MODEL?sampling=MODE`, and for OpenAI also `MODEL@BASE_URL`, `MODEL?sampling=MODE@BASE_URL`
    (any OpenAI-compatible server: vLLM, llama.cpp, Ollama).

`sampling` names the sampling parameters sent: `both` (temperature and top_p), `temperature`,
`top_p` or `none`. OpenAI defaults to `both`. Anthropic defaults to `temperature`: Claude models
from Sonnet 4.5 / Opus 4.1 on reject temperature together with top_p, and the newest ones reject
either (use `?sampling=none`); anthropic>=1 no longer takes them as keywords, so they travel in
`extra_body`. A non-default mode is part of `model_id`, hence of the generation-cache key.

Each request sends the whole conversation (`GenerationRequest.messages()`): the prompt and, on a
feedback turn, the replies and feedback since. Anthropic gets the system prompt apart and the
rest as `messages` (a blank earlier reply, which it refuses, goes as `EMPTY_REPLY`); OpenAI
gets them all as `messages`, the system prompt first. A first turn sends what a one-shot run
sends. Token counts come from the response's `usage`; a server that omits it (some
OpenAI-compatible ones) leaves them None, as these adapters hold no tokenizer (with
`--alias-tokenizer`, `token_count.CountingModel` counts them around the adapter).

Retries are ours (the SDKs get `max_retries=0`): 408/409/429/5xx/529 and connection errors or
timeouts back off exponentially with jitter, honouring `retry-after(-ms)`, up to `params.retries`;
other errors raise `ModelError` at once. Each HTTP call holds a process-wide slot of its provider
(`ALIAS_MAX_CONCURRENCY`, default 4). The SDKs are imported lazily.
"""

from __future__ import annotations

import email.utils
import importlib
import os
import random
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from types import ModuleType
from typing import TYPE_CHECKING, Generic, Literal, Self, TypeVar

from alias_fixtures.models.registry import (
    PROVIDERS,
    Generation,
    GenerationParams,
    GenerationRequest,
    ModelError,
)

if TYPE_CHECKING:
    import anthropic
    import openai
    from openai.types.chat import ChatCompletion, ChatCompletionMessageParam

R = TypeVar("R")
Sampling = Literal["both", "temperature", "top_p", "none"]
SAMPLING_MODES: tuple[Sampling, ...] = ("both", "temperature", "top_p", "none")
RETRYABLE_STATUS = frozenset({408, 409, 429})
DEFAULT_CONCURRENCY = 4
_ANTHROPIC_TRUNCATED = frozenset({"max_tokens", "model_context_window_exceeded"})
EMPTY_REPLY = "(empty reply)"
"""What Anthropic is sent for an earlier reply that was empty or blank (it refuses those)."""


@dataclass(frozen=True)
class Backoff:
    """How long to wait between attempts; `sleep` is injectable so tests never really wait."""

    base: float = 1.0
    cap: float = 60.0
    max_retry_after: float = 300.0
    sleep: Callable[[float], None] = field(default=time.sleep, compare=False)

    def delay(self, attempt: int, retry_after: float | None = None) -> float:
        """Seconds before retry number `attempt + 1`: the server's hint, else jittered 2^n."""
        if retry_after is not None:
            return min(max(retry_after, 0.0), self.max_retry_after)
        ceiling = min(self.cap, self.base * 2.0**attempt)
        return ceiling / 2 + random.uniform(0.0, ceiling / 2)


def retry_after_seconds(headers: Mapping[str, str]) -> float | None:
    """The wait a response asks for (`retry-after-ms`, `retry-after` seconds or HTTP date)."""
    millis = headers.get("retry-after-ms")
    if millis is not None:
        try:
            return float(millis) / 1000
        except ValueError:
            pass
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        return float(value)
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


_SLOTS: dict[tuple[str, int], threading.BoundedSemaphore] = {}
_SLOTS_LOCK = threading.Lock()


def max_concurrency() -> int:
    """`ALIAS_MAX_CONCURRENCY` (default 4): concurrent calls per provider in this process."""
    raw = os.environ.get("ALIAS_MAX_CONCURRENCY", "").strip()
    if not raw:
        return DEFAULT_CONCURRENCY
    try:
        value = int(raw)
    except ValueError:
        value = 0
    if value < 1:
        raise ModelError(f"ALIAS_MAX_CONCURRENCY must be a positive integer, not {raw!r}")
    return value


def provider_slots(provider: str) -> threading.BoundedSemaphore:
    """The process-wide semaphore that caps concurrent calls to `provider`."""
    key = (provider, max_concurrency())
    with _SLOTS_LOCK:
        slots = _SLOTS.get(key)
        if slots is None:
            slots = _SLOTS[key] = threading.BoundedSemaphore(key[1])
        return slots


def import_sdk(name: str) -> ModuleType:
    """Import a provider's SDK (named like the provider), or explain how to install it."""
    try:
        return importlib.import_module(name)
    except ImportError:
        raise ModelError(f"the {name!r} package is not installed: "
                         f"{PROVIDERS[name].install_hint}") from None


def parse_spec(arg: str, default: Sampling) -> tuple[str, Sampling, str | None]:
    """Split `MODEL[?sampling=MODE][@BASE_URL]` into its parts."""
    head, at, base_url = arg.partition("@")
    model, _, query = head.partition("?")
    sampling = default
    for pair in filter(None, query.split("&")):
        name, _, value = pair.partition("=")
        if name != "sampling" or value not in SAMPLING_MODES:
            raise ModelError(f"bad model option {pair!r} in {arg!r}: "
                             f"use sampling={'|'.join(SAMPLING_MODES)}")
        sampling = value
    if not model.strip():
        raise ModelError(f"model spec {arg!r} names no model")
    if at and not base_url.strip():
        raise ModelError(f"model spec {arg!r} has an empty base URL after '@'")
    return model.strip(), sampling, base_url.strip() or None


def _error_detail(body: object) -> str:
    """`type: message` from an API error body, whatever its shape."""
    error = body.get("error", body) if isinstance(body, dict) else body
    if isinstance(error, dict):
        kind = error.get("type") or error.get("code")
        message = error.get("message")
        return ": ".join(str(part) for part in (kind, message) if part)
    return str(error) if error else ""


class _ChatModel(Generic[R]):
    """Retries, concurrency cap, timing and error wording shared by both providers."""

    provider: str
    default_sampling: Sampling
    base_error: str  # the SDK's root exception class

    def __init__(self, model: str, *, api_key: str, base_url: str | None, sampling: Sampling | None,
                 backoff: Backoff | None) -> None:
        sdk = self._sdk = import_sdk(self.provider)
        self.model = model
        self.base_url = base_url
        self.sampling: Sampling = sampling or self.default_sampling
        suffix = "" if self.sampling == self.default_sampling else f"?sampling={self.sampling}"
        self.model_id = model + suffix
        self.backoff = backoff or Backoff()
        self._api_key = api_key
        self._status_error: type[Exception] = sdk.APIStatusError
        self._connection_error: type[Exception] = sdk.APIConnectionError
        self._sdk_error: type[Exception] = getattr(sdk, self.base_error)

    def _send(self, request: GenerationRequest) -> R:
        """One attempt; SDK exceptions propagate."""
        raise NotImplementedError

    def _read(self, response: R) -> Generation:
        """The generation in a response (`seconds` is filled in by the caller)."""
        raise NotImplementedError

    def close(self) -> None:
        """Close the HTTP client."""
        raise NotImplementedError

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def _sends(self, name: Literal["temperature", "top_p"]) -> bool:
        return self.sampling in ("both", name)

    def generate(self, request: GenerationRequest) -> Generation:
        """Call the API, retrying transient failures; `seconds` is the successful call's wall time."""
        attempts = max(0, request.params.retries) + 1
        for attempt in range(attempts):
            try:
                with provider_slots(self.provider):
                    start = time.perf_counter()
                    response = self._send(request)
                    seconds = time.perf_counter() - start
                return replace(self._parse(response), seconds=seconds)
            except self._status_error as exc:
                status: int = getattr(exc, "status_code", 0)
                if status not in RETRYABLE_STATUS and status < 500:
                    raise ModelError(self._describe(exc)) from None
                reply = getattr(exc, "response", None)
                hint = retry_after_seconds(reply.headers) if reply is not None else None
                failure = exc
            except self._connection_error as exc:
                hint, failure = None, exc
            except self._sdk_error as exc:
                raise ModelError(self._describe(exc)) from None
            if attempt + 1 == attempts:
                tries = f"{attempts} attempt{'s' if attempts > 1 else ''}"
                raise ModelError(f"{self._describe(failure)} (gave up after {tries})") from None
            self.backoff.sleep(self.backoff.delay(attempt, hint))
        raise AssertionError("unreachable")

    def _parse(self, response: R) -> Generation:
        try:
            return self._read(response)
        except (AttributeError, TypeError, ValueError, KeyError, IndexError) as exc:
            raise ModelError(f"{self.provider}:{self.model_id}: malformed response "
                             f"({type(exc).__name__}: {exc})") from None

    def _describe(self, exc: Exception) -> str:
        """A one-line account of a failure, never carrying the API key."""
        status = getattr(exc, "status_code", None)
        if status is None:
            text = f"{type(exc).__name__}: {exc}"
        else:
            text = f"HTTP {status} {_error_detail(getattr(exc, 'body', None)) or type(exc).__name__}"
        if status == 400 and self.sampling != "none":
            text += (f" (if the model rejects sampling parameters, try `{self.provider}:{self.model}"
                     "?sampling=none` or `?sampling=temperature`)")
        if len(self._api_key) >= 8:
            text = text.replace(self._api_key, "***")
        return f"{self.provider}:{self.model_id}: {text[:800]}"


class AnthropicModel(_ChatModel["anthropic.types.Message"]):
    """Claude through the Messages API (`anthropic` SDK)."""

    provider = "anthropic"
    default_sampling: Sampling = "temperature"
    base_error = "AnthropicError"

    def __init__(self, model: str, *, api_key: str, base_url: str | None = None,
                 sampling: Sampling | None = None, backoff: Backoff | None = None) -> None:
        super().__init__(model, api_key=api_key, base_url=base_url, sampling=sampling, backoff=backoff)
        self._client: anthropic.Anthropic = self._sdk.Anthropic(api_key=api_key, base_url=base_url,
                                                                max_retries=0)

    @classmethod
    def from_spec(cls, arg: str, params: GenerationParams) -> AnthropicModel:
        """`anthropic:MODEL[?sampling=MODE]`; key from ANTHROPIC_API_KEY, URL from ANTHROPIC_BASE_URL.

        Sampling settings come with each request, so `params` is not kept.
        """
        model, sampling, base_url = parse_spec(arg, cls.default_sampling)
        if base_url is not None:
            raise ModelError(f"anthropic:{arg}: set ANTHROPIC_BASE_URL instead of '@URL'")
        api_key = os.environ.get("ANTHROPIC_API_KEY", "").strip()
        if not api_key:
            raise ModelError("anthropic models need ANTHROPIC_API_KEY in the environment")
        return cls(model, api_key=api_key, base_url=os.environ.get("ANTHROPIC_BASE_URL") or None,
                   sampling=sampling)

    def close(self) -> None:
        self._client.close()

    def _send(self, request: GenerationRequest) -> anthropic.types.Message:
        from anthropic import omit

        params = request.params
        sampling: dict[str, object] = {}
        if self._sends("temperature"):
            sampling["temperature"] = params.temperature
        if self._sends("top_p"):
            sampling["top_p"] = params.top_p
        return self._client.messages.create(
            model=self.model, max_tokens=params.max_tokens, messages=anthropic_messages(request),
            system=request.system if request.system is not None else omit,
            extra_body=sampling or None, timeout=params.timeout)

    def _read(self, message: anthropic.types.Message) -> Generation:
        text = "".join(block.text for block in message.content if block.type == "text")
        return Generation(text=text, model=message.model or self.model,
                          finish_reason=message.stop_reason,
                          truncated=message.stop_reason in _ANTHROPIC_TRUNCATED,
                          input_tokens=message.usage.input_tokens,
                          output_tokens=message.usage.output_tokens)


class OpenAIModel(_ChatModel["ChatCompletion"]):
    """OpenAI, or any OpenAI-compatible server, through Chat Completions (`openai` SDK).

    The token limit goes out as `max_completion_tokens` to OpenAI itself (its reasoning models
    refuse `max_tokens`) and as `max_tokens` to a server named by a base URL.
    """

    provider = "openai"
    default_sampling: Sampling = "both"
    base_error = "OpenAIError"

    def __init__(self, model: str, *, api_key: str, base_url: str | None = None,
                 sampling: Sampling | None = None, backoff: Backoff | None = None,
                 limit_param: Literal["max_tokens", "max_completion_tokens"] | None = None) -> None:
        super().__init__(model, api_key=api_key, base_url=base_url, sampling=sampling, backoff=backoff)
        self.limit_param = limit_param or ("max_tokens" if base_url else "max_completion_tokens")
        self._client: openai.OpenAI = self._sdk.OpenAI(api_key=api_key, base_url=base_url,
                                                       max_retries=0)

    @classmethod
    def from_spec(cls, arg: str, params: GenerationParams) -> OpenAIModel:
        """`openai:MODEL[?sampling=MODE][@BASE_URL]`; key from OPENAI_API_KEY (`local` for a URL).

        Sampling settings come with each request, so `params` is not kept.
        """
        model, sampling, base_url = parse_spec(arg, cls.default_sampling)
        api_key = os.environ.get("OPENAI_API_KEY", "").strip()
        if not api_key:
            if base_url is None:
                raise ModelError("openai models need OPENAI_API_KEY in the environment "
                                 "(or a local server: openai:MODEL@http://host:port/v1)")
            api_key = "local"
        return cls(model, api_key=api_key, base_url=base_url, sampling=sampling)

    def close(self) -> None:
        self._client.close()

    def _send(self, request: GenerationRequest) -> ChatCompletion:
        from openai import omit

        params = request.params
        return self._client.chat.completions.create(
            model=self.model, messages=openai_messages(request),
            temperature=params.temperature if self._sends("temperature") else omit,
            top_p=params.top_p if self._sends("top_p") else omit,
            seed=params.seed if params.seed is not None else omit,
            max_tokens=params.max_tokens if self.limit_param == "max_tokens" else omit,
            max_completion_tokens=(params.max_tokens if self.limit_param == "max_completion_tokens"
                                   else omit),
            timeout=params.timeout)

    def _read(self, completion: ChatCompletion) -> Generation:
        if not completion.choices:
            raise ModelError(f"openai:{self.model_id}: the response has no choices")
        choice = completion.choices[0]
        usage = completion.usage
        return Generation(text=choice.message.content or "", model=completion.model or self.model,
                          finish_reason=choice.finish_reason,
                          truncated=choice.finish_reason == "length",
                          input_tokens=_count(usage, "prompt_tokens"),
                          output_tokens=_count(usage, "completion_tokens"))


def anthropic_messages(request: GenerationRequest) -> list[anthropic.types.MessageParam]:
    """The Messages API's `messages`: the prompt, then the history (the system prompt goes apart).

    The API refuses a blank assistant message, so an empty earlier reply is sent as
    :data:`EMPTY_REPLY`."""
    messages: list[anthropic.types.MessageParam] = []
    for message in request.messages():
        if message["role"] == "assistant":
            text = message["content"]
            messages.append({"role": "assistant", "content": text if text.strip() else EMPTY_REPLY})
        elif message["role"] == "user":
            messages.append({"role": "user", "content": message["content"]})
    return messages


def openai_messages(request: GenerationRequest) -> list[ChatCompletionMessageParam]:
    """Chat Completions' `messages`: the system prompt (if any), the prompt, then the history."""
    messages: list[ChatCompletionMessageParam] = []
    for message in request.messages():
        if message["role"] == "system":
            messages.append({"role": "system", "content": message["content"]})
        elif message["role"] == "assistant":
            messages.append({"role": "assistant", "content": message["content"]})
        else:
            messages.append({"role": "user", "content": message["content"]})
    return messages


def _count(usage: object, name: str) -> int | None:
    """A token count from a usage block, None where the server left it (or the block) out."""
    value = getattr(usage, name, None) if usage is not None else None
    return value if isinstance(value, int) else None
