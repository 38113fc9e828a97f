"""The settings of one fine-tuning run, saved as ``training.json`` beside the adapter.

Everything that decides the adapter is recorded: the base model folder and a hash of its files,
each data file's hash and example counts, the arm, LoRA rank/alpha/dropout/target modules, the
optimizer's settings, epochs, batch size, shuffle seed, the token limit, the device and dtype,
and the library versions.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
import platform
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from reports.schema import TRAINING_SCHEMA_VERSION as SCHEMA_VERSION

TRAINING_FILE = "training.json"
LIBRARIES = ("torch", "transformers", "peft", "tokenizers", "safetensors", "accelerate")


@dataclass(frozen=True)
class LoraSettings:
    """LoRA's shape; ``target_modules`` ``None`` lets peft pick its default for the model."""

    rank: int = 16
    alpha: int = 32
    dropout: float = 0.05
    target_modules: tuple[str, ...] | None = None


@dataclass(frozen=True)
class TrainSettings:
    """How to train (what the caller chooses; the data and model come separately)."""

    arm: str = "task-pair"
    epochs: int = 3
    learning_rate: float = 2e-4
    weight_decay: float = 0.0
    warmup_steps: int = 0
    batch_size: int = 1
    grad_accumulation: int = 1
    max_tokens: int = 2048
    seed: int = 20260926
    save_every: int = 50
    max_grad_norm: float = 1.0
    gradient_checkpointing: bool = False
    device: str = "auto"
    dtype: str = "auto"
    lora: LoraSettings = field(default_factory=LoraSettings)


def folder_sha256(folder: str | Path) -> str:
    """A sha256 over every file of a folder (relative path and content, in sorted order)."""
    root = Path(folder)
    digest = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        digest.update(path.relative_to(root).as_posix().encode() + b"\0")
        with path.open("rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
        digest.update(b"\0")
    return digest.hexdigest()


def library_versions() -> dict[str, str | None]:
    out: dict[str, str | None] = {"python": platform.python_version()}
    for name in LIBRARIES:
        try:
            out[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            out[name] = None
    return out


def training_record(settings: TrainSettings, *, base_model: Path, base_sha256: str,
                    data: list[dict[str, Any]], resolved: dict[str, Any],
                    steps: int, final_loss: float | None) -> dict[str, Any]:
    """The JSON object of ``training.json``."""
    return {
        "schema_version": SCHEMA_VERSION, "kind": "training",
        "base_model": str(base_model), "base_model_sha256": base_sha256,
        "data": data, "settings": asdict(settings), "resolved": resolved,
        "steps": steps, "final_loss": final_loss, "libraries": library_versions(),
    }


def write_training_json(folder: str | Path, record: dict[str, Any]) -> Path:
    path = Path(folder) / TRAINING_FILE
    path.write_text(json.dumps(record, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return path


def read_training_json(folder: str | Path) -> dict[str, Any]:
    """``training.json`` of a fine-tuning output folder (or of the adapter folder's parent)."""
    root = Path(folder)
    for path in (root / TRAINING_FILE, root.parent / TRAINING_FILE):
        if path.is_file():
            data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
            return data
    raise FileNotFoundError(f"no {TRAINING_FILE} in {root} or its parent")
