"""Model adapters behind one small interface, and the registry that builds them from a spec.

A model spec names an adapter and its model: `reference`, `demo`, `replay:PATH`,
`scripted[:TASKS]` (an offline double that recalls the tasks' files), `anthropic:MODEL`,
`openai:MODEL`, `openai:MODEL@http://host:port/v1` (any OpenAI-compatible server: vLLM,
llama.cpp, Ollama). Only `reference` ever sees a reference (it is the sanity run whose every
grade must pass); real models get the rendered prompt and nothing else.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol


class ModelError(RuntimeError):
    """An adapter cannot produce an output (after retries): an infrastructure error."""


@dataclass(frozen=True)
class GenerationParams:
    """Sampling settings; part of the generation cache key."""

    temperature: float = 0.7
    top_p: float = 0.95
    max_tokens: int = 4096
    seed: int | None = None
    retries: int = 5
    timeout: float = 300.0

    def key(self) -> dict[str, Any]:
        """The fields that change what a model returns (not retries/timeout)."""
        return {"temperature": self.temperature, "top_p": self.top_p,
                "max_tokens": self.max_tokens, "seed": self.seed}


ROLES = ("user", "assistant")


@dataclass(frozen=True)
class ChatMessage:
    """One message after the prompt in a multi-turn case: the model's earlier reply
    (`assistant`) or the feedback it was given on it (`user`). `levels` names the feedback
    levels the message holds (metadata for offline doubles; never sent to an API)."""

    role: str
    content: str
    levels: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.role not in ROLES:
            raise ValueError(f"a chat message's role is one of {ROLES}, not {self.role!r}")


@dataclass(frozen=True)
class GenerationRequest:
    """One sample of one variant: the rendered prompt and where it belongs; on a feedback
    turn, `history` holds the replies and feedback since the prompt (it ends with feedback)."""

    task_id: str
    condition: str
    sample: int
    prompt: str
    system: str | None = None
    params: GenerationParams = field(default_factory=GenerationParams)
    reference: str | None = None  # only the `reference` adapter may read this
    history: tuple[ChatMessage, ...] = ()

    @property
    def turn(self) -> int:
        """1 for the first output, k for the k-th (one more than the replies in history)."""
        return 1 + sum(1 for m in self.history if m.role == "assistant")

    def messages(self) -> list[dict[str, str]]:
        """The conversation as chat messages: the system prompt (if any), the prompt, then
        the history in order."""
        head = [{"role": "system", "content": self.system}] if self.system is not None else []
        return [*head, {"role": "user", "content": self.prompt},
                *({"role": m.role, "content": m.content} for m in self.history)]


@dataclass(frozen=True)
class Generation:
    """What a model returned, with the facts a record keeps. `token_source` says where the
    token counts came from (`usage`, or `tokenizer:NAME`); None when nothing counted them (an
    adapter leaves it None, and the record then has no such field)."""

    text: str
    model: str
    finish_reason: str | None = None
    truncated: bool = False
    input_tokens: int | None = None
    output_tokens: int | None = None
    seconds: float = 0.0
    cached: bool = False
    token_source: str | None = None

    def to_json(self) -> dict[str, Any]:
        source = {} if self.token_source is None else {"token_source": self.token_source}
        return {"model": self.model, "finish_reason": self.finish_reason,
                "truncated": self.truncated, "input_tokens": self.input_tokens,
                "output_tokens": self.output_tokens, **source,
                "seconds": round(self.seconds, 3), "cached": self.cached}


class ModelAdapter(Protocol):
    """Produces one output per request."""

    provider: str
    model_id: str

    def generate(self, request: GenerationRequest) -> Generation: ...


class ReferenceModel:
    """Returns the variant's reference module: every grade must pass (a sanity run)."""

    provider = "reference"
    model_id = "reference"

    def generate(self, request: GenerationRequest) -> Generation:
        if request.reference is None:
            raise ModelError("the reference adapter needs the variant's reference text")
        return Generation(f"```tla\n{request.reference}\n```\n", "reference", "stop")


AdapterFactory = Callable[[str, GenerationParams], ModelAdapter]
_FACTORIES: dict[str, str] = {
    "reference": "alias_fixtures.models.registry:_reference",
    "replay": "alias_fixtures.models.replay:ReplayModel.from_spec",
    "demo": "alias_fixtures.models.replay:demo_model",
    "scripted": "alias_fixtures.models.scripted:ScriptedModel.from_spec",
    "anthropic": "alias_fixtures.models.providers:AnthropicModel.from_spec",
    "openai": "alias_fixtures.models.providers:OpenAIModel.from_spec",
    "hf": "alias_fixtures.models.hf:HFModel.from_spec",
}


def _reference(arg: str, params: GenerationParams) -> ModelAdapter:
    return ReferenceModel()


def make_model(spec: str, params: GenerationParams | None = None) -> ModelAdapter:
    """Build an adapter from `kind[:argument]`."""
    kind, _, arg = spec.partition(":")
    target = _FACTORIES.get(kind)
    if target is None:
        raise ModelError(f"unknown model {spec!r}: use one of {', '.join(sorted(_FACTORIES))} "
                         "(e.g. `demo`, `replay:outputs.jsonl`, `openai:gpt-5`)")
    module_name, _, attr = target.partition(":")
    obj: Any = importlib.import_module(module_name)
    for part in attr.split("."):
        obj = getattr(obj, part)
    factory: AdapterFactory = obj
    return factory(arg, params or GenerationParams())
