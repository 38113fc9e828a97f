"""LoRA fine-tuning of a local causal LM: a plain torch loop over peft adapters.

:func:`finetune` trains one copy: the examples of one or more split files (and the background
set), in a fixed order per epoch (a permutation seeded by ``seed`` and the epoch), batched
with right padding, AdamW with linear warm-up and decay, gradients clipped. Every
``save_every`` optimizer steps it saves a checkpoint (adapter, optimizer and scheduler state,
random-number state, losses); ``resume=True`` continues from it and ends where an
uninterrupted run would. The output folder holds ``adapter/`` (for ``hf:BASE+ADAPTER``),
``checkpoint/`` and ``training.json``. torch, transformers and peft are imported on use.
"""

from __future__ import annotations

import hashlib
import json
import math
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from alias_fixtures.models.local_weights import (
    LocalWeightsError,
    load_model,
    position_limit,
    quiet_library_warnings,
    resolve_device,
    resolve_dtype,
)
from alias_fixtures.training.data import IGNORE, EncodedSet, encode_all, file_sha256, read_examples
from alias_fixtures.training.settings import (
    TrainSettings,
    folder_sha256,
    training_record,
    write_training_json,
)

ADAPTER_DIR = "adapter"
CHECKPOINT_DIR = "checkpoint"
_STATE_FILE = "state.json"
_TRAINER_FILE = "trainer.pt"


class FinetuneError(LocalWeightsError):
    """Fine-tuning cannot start or resume; the message says why."""


@dataclass(frozen=True)
class FinetuneResult:
    """Where the adapter is, and how training went (one loss per optimizer step)."""

    out: Path
    adapter: Path
    steps: int
    total_steps: int
    losses: tuple[float, ...]
    resumed_from: int
    seconds: float
    record: dict[str, Any]

    @property
    def finished(self) -> bool:
        return self.steps == self.total_steps


def lora_targets(model: Any, wanted: Sequence[str] | None) -> tuple[list[str], bool]:
    """The target module names (peft's default for the model type when ``wanted`` is None)
    and whether they are transformers ``Conv1D`` layers (GPT-2), which need fan_in_fan_out."""
    from peft.utils import TRANSFORMERS_MODELS_TO_LORA_TARGET_MODULES_MAPPING as DEFAULTS
    from transformers.pytorch_utils import Conv1D

    if wanted:
        targets = list(wanted)
    else:
        model_type = getattr(model.config, "model_type", "")
        if model_type not in DEFAULTS:
            raise FinetuneError(f"peft has no default LoRA targets for model type "
                                f"{model_type!r}: name them (--target-modules)")
        targets = list(DEFAULTS[model_type])
    matched = [m for name, m in model.named_modules()
               if any(name == t or name.endswith(f".{t}") for t in targets)]
    if not matched:
        raise FinetuneError(f"no module of the model matches the LoRA targets {targets}")
    return targets, any(isinstance(m, Conv1D) for m in matched)


def _schedule(n_examples: int, settings: TrainSettings) -> list[list[list[int]]]:
    """Per optimizer step, its micro-batches (lists of example indices), over all epochs."""
    import torch

    steps: list[list[list[int]]] = []
    for epoch in range(settings.epochs):
        generator = torch.Generator().manual_seed(settings.seed * 1000 + epoch)
        order = torch.randperm(n_examples, generator=generator).tolist()
        batches = [order[i:i + settings.batch_size]
                   for i in range(0, n_examples, settings.batch_size)]
        steps += [batches[i:i + settings.grad_accumulation]
                  for i in range(0, len(batches), settings.grad_accumulation)]
    return steps


def _collate(encoded: EncodedSet, indices: Sequence[int], pad_id: int, device: str
             ) -> tuple[Any, Any, Any]:
    import torch

    items = [encoded.examples[i] for i in indices]
    width = max(len(e.input_ids) for e in items)
    ids = torch.full((len(items), width), pad_id, dtype=torch.long)
    labels = torch.full((len(items), width), IGNORE, dtype=torch.long)
    mask = torch.zeros((len(items), width), dtype=torch.long)
    for row, item in enumerate(items):
        n = len(item.input_ids)
        ids[row, :n] = torch.tensor(item.input_ids)
        labels[row, :n] = torch.tensor(item.labels)
        mask[row, :n] = 1
    return ids.to(device), labels.to(device), mask.to(device)


def _fingerprint(record: dict[str, Any]) -> str:
    """What a checkpoint must share with the run that resumes it."""
    keys = ("base_model_sha256", "data", "settings")
    blob = json.dumps({k: record[k] for k in keys}, sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()


def _lr_lambda(warmup: int, total: int) -> Any:
    def factor(step: int) -> float:
        if warmup and step < warmup:
            return (step + 1) / warmup
        return max(0.0, (total - step) / max(1, total - warmup))
    return factor


def finetune(base_model: str | Path, train_files: str | Path | Sequence[str | Path],
             out: str | Path, *, background: str | Path | None = None,
             settings: TrainSettings | None = None, resume: bool = False,
             progress: bool = True, stop_after_steps: int | None = None,
             label: str = "train") -> FinetuneResult:
    """Train a LoRA adapter on ``train_files`` (+ ``background``) and save it under ``out``.

    ``stop_after_steps`` ends the run early after that many optimizer steps in total, with a
    checkpoint saved (the learning-rate schedule stays that of the whole run), so a later
    ``resume=True`` finishes it. Raises :class:`FinetuneError` (or
    :class:`~alias_fixtures.training.data.TrainingDataError`) on bad input.
    """
    import torch
    from peft import LoraConfig, PeftModel, get_peft_model


    settings = settings or TrainSettings()
    started = time.monotonic()
    base = Path(base_model).resolve()
    files = [Path(train_files)] if isinstance(train_files, (str, Path)) else \
        [Path(f) for f in train_files]
    if background is not None:
        files.append(Path(background))
    examples = [e for f in files for e in read_examples(f)]
    device = resolve_device(settings.device)
    dtype = resolve_dtype(settings.dtype, device)
    try:
        model, tokenizer = load_model(base, device=device, dtype=dtype)
    except LocalWeightsError as exc:
        raise FinetuneError(str(exc)) from exc
    limit = position_limit(model)
    max_tokens = min(settings.max_tokens, limit) if limit else settings.max_tokens
    encoded = encode_all(tokenizer, examples, settings.arm, max_tokens)
    targets, conv1d = lora_targets(model, settings.lora.target_modules)
    data = [{"path": str(f), "sha256": file_sha256(f), "examples": len(read_examples(f)),
             "role": "background" if background is not None and i == len(files) - 1
             else "train"} for i, f in enumerate(files)]
    schedule = _schedule(len(encoded.examples), settings)
    total = len(schedule)
    resolved = {"device": device, "dtype": dtype, "max_tokens": max_tokens,
                "target_modules": targets, "fan_in_fan_out": conv1d,
                "examples": len(encoded.examples), "tokens": encoded.tokens,
                "truncated_examples": encoded.truncated, "dropped": list(encoded.dropped),
                "total_steps": total, "pad_token_id": _pad_id(tokenizer)}
    record = training_record(settings, base_model=base, base_sha256=folder_sha256(base),
                             data=data, resolved=resolved, steps=0, final_loss=None)
    fingerprint = _fingerprint(record)
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    checkpoint = folder / CHECKPOINT_DIR

    model.train()
    if settings.gradient_checkpointing:
        model.gradient_checkpointing_enable()
        model.enable_input_require_grads()
    start_step, losses = 0, []
    with quiet_library_warnings():
        if resume and (checkpoint / _STATE_FILE).is_file():
            state = json.loads((checkpoint / _STATE_FILE).read_text(encoding="utf-8"))
            if state.get("fingerprint") != fingerprint:
                raise FinetuneError(f"{checkpoint} was made with other settings, data or base "
                                    f"model; start afresh without --resume or use another --out")
            model = PeftModel.from_pretrained(model, checkpoint / ADAPTER_DIR, is_trainable=True)
            start_step, losses = int(state["step"]), [float(x) for x in state["losses"]]
        else:
            config = LoraConfig(r=settings.lora.rank, lora_alpha=settings.lora.alpha,
                                lora_dropout=settings.lora.dropout, target_modules=targets,
                                fan_in_fan_out=conv1d, task_type="CAUSAL_LM")
            torch.manual_seed(settings.seed)  # LoRA's A matrices are drawn at random
            model = get_peft_model(model, config)
    params = [p for p in model.parameters() if p.requires_grad]
    optimizer = torch.optim.AdamW(params, lr=settings.learning_rate,
                                  weight_decay=settings.weight_decay)
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer,
                                                  _lr_lambda(settings.warmup_steps, total))
    if start_step:
        saved = torch.load(checkpoint / _TRAINER_FILE, weights_only=False)
        optimizer.load_state_dict(saved["optimizer"])
        scheduler.load_state_dict(saved["scheduler"])
        torch.set_rng_state(saved["rng"])
        if saved.get("cuda_rng") is not None and torch.cuda.is_available():
            torch.cuda.set_rng_state_all(saved["cuda_rng"])

    end = total if stop_after_steps is None else min(total, max(start_step, stop_after_steps))
    pad_id = _pad_id(tokenizer)
    autocast = (torch.autocast(device_type="cuda", dtype=getattr(torch, dtype))
                if device.startswith("cuda") and dtype != "float32" else None)
    bar = Progress(total, start_step, label, progress)
    for step in range(start_step, end):
        groups = schedule[step]
        n_labels = sum(sum(1 for x in encoded.examples[i].labels[1:] if x != IGNORE)
                       for batch in groups for i in batch)
        optimizer.zero_grad(set_to_none=True)
        step_loss = 0.0
        for batch in groups:
            ids, labels, mask = _collate(encoded, batch, pad_id, device)
            if autocast is not None:
                with autocast:
                    logits = model(input_ids=ids, attention_mask=mask).logits
            else:
                logits = model(input_ids=ids, attention_mask=mask).logits
            loss: Any = torch.nn.functional.cross_entropy(
                logits[:, :-1].float().reshape(-1, logits.shape[-1]),
                labels[:, 1:].reshape(-1), ignore_index=IGNORE, reduction="sum") / n_labels
            loss.backward()
            step_loss += float(loss.detach())
        torch.nn.utils.clip_grad_norm_(params, settings.max_grad_norm)
        optimizer.step()
        scheduler.step()
        losses.append(step_loss)
        bar.update(step_loss, epoch_of(step, total, settings.epochs))
        done = step + 1
        if done % settings.save_every == 0 or done == end:
            _save_checkpoint(checkpoint, model, optimizer, scheduler, done, losses, fingerprint)
    bar.close()
    steps = max(end, start_step)
    adapter = folder / ADAPTER_DIR
    if steps == total:
        model.save_pretrained(adapter)
    record = {**record, "steps": steps, "final_loss": losses[-1] if losses else None,
              "losses": losses, "finished": steps == total,
              "seconds": round(time.monotonic() - started, 3)}
    write_training_json(folder, record)
    return FinetuneResult(folder, adapter, steps, total, tuple(losses), start_step,
                          time.monotonic() - started, record)


def epoch_of(step: int, total: int, epochs: int) -> int:
    """The (1-based) epoch an optimizer step belongs to."""
    per_epoch = max(1, math.ceil(total / max(1, epochs)))
    return min(epochs, step // per_epoch + 1)


def _pad_id(tokenizer: Any) -> int:
    pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else \
        tokenizer.eos_token_id
    if pad is None:
        raise FinetuneError("the tokenizer has neither a pad nor an end-of-sequence token")
    return int(pad)


def _save_checkpoint(folder: Path, model: Any, optimizer: Any, scheduler: Any, step: int,
                     losses: list[float], fingerprint: str) -> None:
    """Adapter, optimizer, scheduler and RNG state; the state file last, written atomically."""
    import torch

    folder.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(folder / ADAPTER_DIR)
    torch.save({"optimizer": optimizer.state_dict(), "scheduler": scheduler.state_dict(),
                "rng": torch.get_rng_state(),
                "cuda_rng": torch.cuda.get_rng_state_all() if torch.cuda.is_available()
                else None}, folder / _TRAINER_FILE)
    tmp = folder / f"{_STATE_FILE}.tmp"
    tmp.write_text(json.dumps({"step": step, "losses": losses, "fingerprint": fingerprint}),
                   encoding="utf-8")
    tmp.replace(folder / _STATE_FILE)


class Progress:
    """A progress bar on stderr with the last loss (tqdm)."""

    def __init__(self, total: int, initial: int, label: str, enabled: bool) -> None:
        from tqdm import tqdm

        self._bar = tqdm(total=total, initial=initial, desc=label, unit="step",
                         file=sys.stderr, disable=not enabled, dynamic_ncols=True)

    def update(self, loss: float, epoch: int) -> None:
        self._bar.set_postfix(loss=f"{loss:.4f}", epoch=epoch, refresh=False)
        self._bar.update(1)

    def close(self) -> None:
        self._bar.close()


__all__ = ["ADAPTER_DIR", "CHECKPOINT_DIR", "FinetuneError", "FinetuneResult", "finetune"]
