"""Model adapters behind one small interface, and the registry that builds them from a spec.

A model spec names a provider and its model: `reference`, `demo`, `replay:PATH`,
`scripted[:TASKS]` (an offline double that recalls the tasks' files), `anthropic:MODEL`,
`openai:MODEL`, `openai:MODEL@http://host:port/v1` (any OpenAI-compatible server: vLLM,
llama.cpp, Ollama), `hf:PATH[+ADAPTER]` (local weights). Each provider is one
:class:`Provider` record in :data:`PROVIDERS`. Only `reference` ever sees a reference (it is
the sanity run whose every grade must pass); real models get the rendered prompt and nothing
else.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Literal, Protocol


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


#: a module's header line, under which `reference:distinct` writes its comment
_MODULE_HEADER = re.compile(r"^-{4,}\s*MODULE\b.*$", re.MULTILINE)


class ReferenceModel:
    """Returns the variant's reference module: every grade must pass (a sanity run).
    `reference:distinct` writes a comment naming the sample under each module's header:
    every output is still right, but no two samples and no output and its reference are the
    same text, so every grade runs every stage (a study's worst case for its cost)."""

    provider = "reference"

    def __init__(self, distinct: bool = False) -> None:
        self.distinct = distinct
        self.model_id = "reference:distinct" if distinct else "reference"

    @classmethod
    def from_spec(cls, arg: str, params: GenerationParams) -> ReferenceModel:
        """`reference` or `reference:distinct` (no sampling)."""
        if arg not in ("", "distinct"):
            raise ModelError(f"unknown reference model {arg!r}: use `reference` or "
                             f"`reference:distinct`")
        return cls(distinct=arg == "distinct")

    def generate(self, request: GenerationRequest) -> Generation:
        if request.reference is None:
            raise ModelError("the reference adapter needs the variant's reference text")
        text = request.reference
        if self.distinct:  # under each module's header: text before it is no module's
            note = f"\\* sample {request.sample} of {request.task_id} ({request.condition})"
            text = _MODULE_HEADER.sub(lambda m: f"{m.group(0)}\n{note}", text)
        return Generation(f"```tla\n{text}\n```\n", self.model_id, "stop")


AdapterFactory = Callable[[str, GenerationParams], ModelAdapter]
TokenSource = Literal["usage", "own", "none"]
TOKEN_SOURCES: tuple[TokenSource, ...] = ("usage", "own", "none")
Pricing = Literal["free", "by_model", "unpriced"]
PRICINGS: tuple[Pricing, ...] = ("free", "by_model", "unpriced")


@dataclass(frozen=True, kw_only=True)
class Provider:
    """One kind of model: how the spec `name[:argument]` becomes an adapter, and what a run
    does around it. Everything else (the generation cache, token counting, the error for an
    unknown spec, the install hint) is derived from these fields."""

    name: str
    """The spec's kind (before the first `:`) and the adapter's `provider`."""
    spec: str
    """The spec's syntax, as help and errors show it (`openai:MODEL[@URL]`)."""
    factory: str
    """`module:attr` of the :data:`AdapterFactory`, imported on first use; its return type
    is the adapter class."""
    remote: bool
    """It calls a network API: its generations are cached (`cache.cached_if_remote`)."""
    extras: tuple[str, ...]
    """The package extras it needs beyond the base install (`pip install 'alias-bench[..]'`)."""
    tokens: TokenSource
    """Where its token counts come from: `usage` (the API reports them, or leaves them out:
    `--alias-tokenizer` counts those), `own` (the adapter counts with its own tokenizer) or
    `none` (no model runs; no counts)."""
    priced: Pricing
    """Its cost in `prices.toml`: `free` (a zero entry under its name), `by_model` (an entry
    per model id) or `unpriced` (local weights: no entry, cost unknown)."""

    @property
    def install_hint(self) -> str:
        """How to install what it needs."""
        return f"pip install 'alias-bench[{','.join(self.extras)}]'" if self.extras else ""

    def load_factory(self) -> AdapterFactory:
        """The factory named by :attr:`factory`, imported now."""
        module_name, _, attr = self.factory.partition(":")
        obj: Any = importlib.import_module(module_name)
        for part in attr.split("."):
            obj = getattr(obj, part)
        factory: AdapterFactory = obj
        return factory


def _index(*providers: Provider) -> Mapping[str, Provider]:
    index = {p.name: p for p in providers}
    if len(index) != len(providers):
        raise ValueError("two providers share a name")
    return MappingProxyType(index)


_MODELS = "alias_fixtures.models"
PROVIDERS: Mapping[str, Provider] = _index(
    Provider(name="demo", spec="demo", factory=f"{_MODELS}.replay:demo_model",
             remote=False, extras=(), tokens="none", priced="free"),
    Provider(name="reference", spec="reference[:distinct]",
             factory=f"{_MODELS}.registry:ReferenceModel.from_spec",
             remote=False, extras=(), tokens="none", priced="free"),
    Provider(name="scripted", spec="scripted[:TASKS]",
             factory=f"{_MODELS}.scripted:ScriptedModel.from_spec",
             remote=False, extras=(), tokens="none", priced="free"),
    Provider(name="replay", spec="replay:PATH", factory=f"{_MODELS}.replay:ReplayModel.from_spec",
             remote=False, extras=(), tokens="none", priced="free"),
    Provider(name="anthropic", spec="anthropic:MODEL",
             factory=f"{_MODELS}.providers:AnthropicModel.from_spec",
             remote=True, extras=("models",), tokens="usage", priced="by_model"),
    Provider(name="openai", spec="openai:MODEL[@URL]",
             factory=f"{_MODELS}.providers:OpenAIModel.from_spec",
             remote=True, extras=("models",), tokens="usage", priced="by_model"),
    Provider(name="hf", spec="hf:PATH[+ADAPTER]", factory=f"{_MODELS}.hf:HFModel.from_spec",
             remote=False, extras=("train",), tokens="own", priced="unpriced"),
)
"""Every model provider, one record each: the only place a provider is added."""


def provider_of(adapter: ModelAdapter) -> Provider:
    """The record of the provider an adapter names (`ModelError` when none is registered)."""
    found = PROVIDERS.get(adapter.provider)
    if found is None:
        raise ModelError(f"the adapter's provider {adapter.provider!r} is not registered "
                         f"(alias_fixtures.models.registry.PROVIDERS)")
    return found


def make_model(spec: str, params: GenerationParams | None = None) -> ModelAdapter:
    """Build an adapter from `kind[:argument]`."""
    kind, _, arg = spec.partition(":")
    provider = PROVIDERS.get(kind)
    if provider is None:
        raise ModelError(f"unknown model {spec!r}: use one of "
                         f"{', '.join(p.spec for p in PROVIDERS.values())} "
                         "(e.g. `demo`, `replay:outputs.jsonl`, `openai:gpt-5`)")
    return provider.load_factory()(arg, params or GenerationParams())
