"""Local weights: load a causal LM and its tokenizer from a folder, pick device and dtype.

Models load from a local folder only (``local_files_only=True``, ``HF_HUB_OFFLINE=1``); nothing
is downloaded. torch and transformers are imported on use.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

DTYPES = ("float32", "bfloat16", "float16", "auto")


class LocalWeightsError(RuntimeError):
    """A local model cannot be loaded or placed; the message says why."""


def load_model(model_dir: str | Path, *, device: str = "cpu", dtype: str = "float32"
               ) -> tuple[Any, Any]:
    """A causal LM and its fast tokenizer from a local folder, in eval mode on ``device``."""
    path = Path(model_dir)
    if not path.is_dir():
        raise LocalWeightsError(f"model folder {path} does not exist (only local folders are "
                              f"loaded, never a hub id)")
    if dtype not in DTYPES:
        raise LocalWeightsError(f"unknown dtype {dtype!r} (one of {', '.join(DTYPES)})")
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["TRANSFORMERS_OFFLINE"] = "1"
    try:
        import torch
        import transformers
        from transformers import AutoModelForCausalLM, AutoTokenizer
    except ImportError as exc:
        raise LocalWeightsError(f"the likelihood probe needs torch and transformers "
                              f"(pip install 'alias-bench[likelihood]'): {exc}") from exc
    major, minor = (int(p) for p in transformers.__version__.split(".")[:2])
    dtype_key = "dtype" if (major, minor) >= (4, 56) else "torch_dtype"
    torch_dtype: Any = dtype if dtype == "auto" else getattr(torch, dtype)
    try:
        tokenizer: Any = AutoTokenizer.from_pretrained(path, local_files_only=True)
        model: Any = AutoModelForCausalLM.from_pretrained(path, local_files_only=True,
                                                     **{dtype_key: torch_dtype})
    except (OSError, ValueError) as exc:
        raise LocalWeightsError(f"cannot load a causal LM from {path}: {exc}") from exc
    if not getattr(tokenizer, "is_fast", False):
        raise LocalWeightsError(f"the tokenizer in {path} is not a fast tokenizer: token offsets "
                              f"are needed to tell reference tokens apart")
    model.to(device)
    model.eval()
    return model, tokenizer


def position_limit(model: Any) -> int | None:
    """The longest input the model's positions allow, if its config says."""
    config = getattr(model, "config", None)
    for key in ("max_position_embeddings", "n_positions"):
        value = getattr(config, key, None)
        if isinstance(value, int) and value > 0:
            return value
    return None


@contextmanager
def quiet_library_warnings() -> Iterator[None]:
    """peft calls a transformers property that transformers 5 marks deprecated."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*is_gradient_checkpointing.*",
                                category=FutureWarning)
        yield


def resolve_device(device: str) -> str:
    import torch

    if device == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if device.startswith("cuda") and not torch.cuda.is_available():
        raise LocalWeightsError(f"--device {device}: torch sees no CUDA device")
    return device


def resolve_dtype(dtype: str, device: str) -> str:
    """``auto``: bfloat16 on a GPU that supports it, else float32."""
    import torch

    if dtype != "auto":
        return dtype
    if device.startswith("cuda") and torch.cuda.is_bf16_supported():
        return "bfloat16"
    return "float32"
