"""`hf:PATH[+ADAPTER][?OPTIONS]`: generation with transformers from a local model folder,
optionally through a LoRA adapter (a folder `peft` saved, e.g. `alias-bench finetune`'s
`OUT/adapter`). Nothing is downloaded: both folders must exist.

Options (`&`-separated): `device=auto|cpu|cuda[:N]`, `dtype=auto|float32|bfloat16|float16`
(`auto`: bfloat16 on a GPU that supports it, else float32), `max_new_tokens=N` (1,024, the
study's limit for open models). Sampling follows the request's `GenerationParams`
(temperature 0.7, top-p 0.95 by default; temperature 0 is greedy); the new-token limit is
the smaller of `params.max_tokens` and `max_new_tokens`, and of what the model's positions
leave after the prompt. Each request is seeded from (params.seed, task, condition, sample,
and the turn after the first), so a rerun reproduces its outputs. The prompt is rendered in
the chat format the fine-tuned copies learned (`alias_fixtures.models.chat`); a feedback
turn's whole conversation (prompt, earlier replies, feedback) is rendered the same way, by
the tokenizer's chat template where it has one (`conversation_text`). Token counts are the
model's own: the rendered conversation's tokens in, the new tokens out.

`finish_reason` is `stop` when the model ended its answer (an end-of-sequence token) and
`length` when the token limit cut it, which also sets `truncated`, as the API adapters do.
"""

from __future__ import annotations

import hashlib
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from alias_fixtures.models.chat import conversation_text, encode_prompt
from alias_fixtures.models.registry import (
    PROVIDERS,
    Generation,
    GenerationParams,
    GenerationRequest,
    ModelError,
)

DEFAULT_MAX_NEW_TOKENS = 1024
_LOCK = threading.Lock()


@dataclass(frozen=True)
class HFSpec:
    """The parts of an `hf:` spec."""

    base: Path
    adapter: Path | None = None
    device: str = "auto"
    dtype: str = "auto"
    max_new_tokens: int = DEFAULT_MAX_NEW_TOKENS


def parse_hf_spec(arg: str) -> HFSpec:
    """Split `PATH[+ADAPTER][?device=..&dtype=..&max_new_tokens=N]`."""
    head, _, query = arg.partition("?")
    base, _, adapter = head.partition("+")
    if not base.strip():
        raise ModelError(f"hf:{arg}: name a local model folder (hf:PATH[+ADAPTER])")
    options: dict[str, str] = {}
    for pair in filter(None, query.split("&")):
        key, sep, value = pair.partition("=")
        if not sep or key not in ("device", "dtype", "max_new_tokens") or not value:
            raise ModelError(f"hf:{arg}: bad option {pair!r} (device=, dtype=, "
                             f"max_new_tokens=)")
        options[key] = value
    try:
        limit = int(options.get("max_new_tokens", DEFAULT_MAX_NEW_TOKENS))
    except ValueError:
        limit = 0
    if limit < 1:
        raise ModelError(f"hf:{arg}: max_new_tokens must be a positive integer")
    spec = HFSpec(Path(base.strip()), Path(adapter.strip()) if adapter.strip() else None,
                  options.get("device", "auto"), options.get("dtype", "auto"), limit)
    for what, path in (("model", spec.base), ("adapter", spec.adapter)):
        if path is not None and not path.is_dir():
            raise ModelError(f"hf:{arg}: the {what} folder {path} does not exist (only local "
                             f"folders are loaded)")
    return spec


def case_seed(params: GenerationParams, request: GenerationRequest) -> int:
    """A 63-bit seed from the run seed and the case (and the turn after the first): reruns
    sample the same text."""
    key = f"{params.seed}|{request.task_id}|{request.condition}|{request.sample}"
    if request.turn > 1:
        key += f"|t{request.turn}"
    return int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "big") >> 1


def load_hf(spec: HFSpec) -> tuple[Any, Any, str]:
    """The model (with the adapter applied), its tokenizer and the device, in eval mode."""
    from alias_fixtures.models.local_weights import (
        LocalWeightsError,
        load_model,
        quiet_library_warnings,
        resolve_device,
        resolve_dtype,
    )

    try:
        device = resolve_device(spec.device)
        model, tokenizer = load_model(spec.base, device=device,
                                      dtype=resolve_dtype(spec.dtype, device))
    except (LocalWeightsError, RuntimeError, ImportError) as exc:
        raise ModelError(f"hf:{spec.base}: {exc}") from exc
    if spec.adapter is not None:
        try:
            from peft import PeftModel
        except ImportError as exc:
            raise ModelError(f"an adapter needs peft ({PROVIDERS['hf'].install_hint}): "
                             f"{exc}") from exc
        with quiet_library_warnings():
            model = PeftModel.from_pretrained(model, spec.adapter)
        model.eval()
    return model, tokenizer, device


class HFModel:
    """A local causal LM (and optional LoRA adapter), loaded once, sampling per request."""

    provider = "hf"

    def __init__(self, spec: HFSpec) -> None:
        self.spec = spec
        self.model_id = str(spec.base) + (f"+{spec.adapter}" if spec.adapter else "")
        self.model, self.tokenizer, self.device = load_hf(spec)

    @classmethod
    def from_spec(cls, arg: str, params: GenerationParams) -> HFModel:
        """`hf:PATH[+ADAPTER][?OPTIONS]`; sampling settings come with each request."""
        return cls(parse_hf_spec(arg))

    def limit(self, params: GenerationParams, prompt_tokens: int) -> int:
        """New tokens allowed: the request's and the spec's limits, within the positions."""
        from alias_fixtures.models.local_weights import position_limit

        limit = min(params.max_tokens, self.spec.max_new_tokens)
        positions = position_limit(self.model)
        if positions is not None:
            limit = min(limit, positions - prompt_tokens)
        return limit

    def conversation(self, request: GenerationRequest) -> str:
        """The text the model continues: the request's conversation in the chat format."""
        turns = [m for m in request.messages() if m["role"] != "system"]
        try:
            return conversation_text(self.tokenizer, turns, request.system)
        except ValueError as exc:
            raise ModelError(f"hf:{self.model_id}: {exc}") from exc

    def generate(self, request: GenerationRequest) -> Generation:
        import torch
        from transformers import GenerationConfig

        params = request.params
        ids = encode_prompt(self.tokenizer, self.conversation(request))
        limit = self.limit(params, len(ids))
        if limit < 1:
            raise ModelError(f"hf:{self.model_id}: the prompt ({len(ids)} tokens) leaves no "
                             f"room for an answer within the model's positions")
        eos = self.tokenizer.eos_token_id
        pad = self.tokenizer.pad_token_id if self.tokenizer.pad_token_id is not None else eos
        sample = params.temperature > 0
        make_config: Any = GenerationConfig
        config = make_config(
            max_new_tokens=limit, do_sample=sample, eos_token_id=eos, pad_token_id=pad,
            **({"temperature": params.temperature, "top_p": params.top_p, "top_k": 0}
               if sample else {}))
        inputs = torch.tensor([ids], dtype=torch.long, device=self.device)
        start = time.perf_counter()
        with _LOCK, torch.inference_mode():
            torch.manual_seed(case_seed(params, request))
            output = self.model.generate(input_ids=inputs, attention_mask=torch.ones_like(inputs),
                                         generation_config=config)
        seconds = time.perf_counter() - start
        new = output[0, len(ids):].tolist()
        stopped = bool(new) and eos is not None and new[-1] == eos
        answer = self.tokenizer.decode(new, skip_special_tokens=True)
        reason = "stop" if stopped or len(new) < limit else "length"
        return Generation(text=answer, model=self.model_id, finish_reason=reason,
                          truncated=reason == "length", input_tokens=len(ids),
                          output_tokens=len(new), seconds=seconds)

    def close(self) -> None:
        self.model = None
