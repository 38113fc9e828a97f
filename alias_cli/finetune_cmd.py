"""`alias-bench finetune`: LoRA fine-tuning of a local causal LM on one half of the split.

Trains on `train_A.jsonl` or `train_B.jsonl` (`alias-bench split`), optionally plus a
background set both halves share, and writes OUT/adapter (use it as `hf:BASE+OUT/adapter`),
OUT/checkpoint (every --save-every steps; `--resume` continues from it) and OUT/training.json
(every setting, the base model's and the data's hashes, library versions). Needs the `train`
extra (torch, transformers, peft).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from alias_cli.common import fail

ARMS = ("task-pair", "spec-only")


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("finetune", help="LoRA fine-tuning on one half of the exposure split",
                       description=__doc__)
    p.add_argument("--base", required=True, type=Path,
                   help="local folder of the base model and its tokenizer")
    p.add_argument("--train", required=True, action="append", type=Path, metavar="JSONL",
                   help="a split file (train_A.jsonl or train_B.jsonl); repeatable")
    p.add_argument("--background", type=Path, metavar="JSONL",
                   help="a set both halves share: rows {description, reference} or {text}")
    p.add_argument("--out", required=True, type=Path, help="output folder")
    p.add_argument("--arm", choices=ARMS, default="task-pair",
                   help="task-pair: description -> reference in the benchmark's chat "
                   "format; spec-only: the raw .tla text alone (task-pair)")
    p.add_argument("--epochs", type=int, default=3, help="epochs (3)")
    p.add_argument("--lr", type=float, default=2e-4, help="learning rate (2e-4)")
    p.add_argument("--warmup-steps", type=int, default=0, help="linear warm-up steps (0)")
    p.add_argument("--weight-decay", type=float, default=0.0, help="AdamW weight decay (0)")
    p.add_argument("--batch-size", type=int, default=1, help="examples per micro-batch (1)")
    p.add_argument("--grad-accumulation", type=int, default=1,
                   help="micro-batches per optimizer step (1)")
    p.add_argument("--max-tokens", type=int, default=2048,
                   help="cut each sequence at N tokens (2048)")
    p.add_argument("--rank", type=int, default=16, help="LoRA rank (16)")
    p.add_argument("--alpha", type=int, default=32, help="LoRA alpha (32)")
    p.add_argument("--dropout", type=float, default=0.05, help="LoRA dropout (0.05)")
    p.add_argument("--target-modules", help="comma-separated module names (default: peft's "
                   "choice for the model type, e.g. q_proj,v_proj)")
    p.add_argument("--seed", type=int, default=20260926, help="shuffle and dropout seed")
    p.add_argument("--save-every", type=int, default=50,
                   help="save a checkpoint every N optimizer steps (50)")
    p.add_argument("--max-steps", type=int,
                   help="stop after N optimizer steps in all (a checkpoint is kept)")
    p.add_argument("--gradient-checkpointing", action="store_true",
                   help="trade compute for memory (large models on one GPU)")
    p.add_argument("--resume", action="store_true",
                   help="continue from OUT/checkpoint (same settings and data)")
    p.add_argument("--device", choices=("auto", "cpu", "cuda"), default="auto",
                   help="auto: cuda when available (auto)")
    p.add_argument("--dtype", choices=("auto", "float32", "bfloat16", "float16"),
                   default="auto", help="auto: bfloat16 on a GPU that has it, else float32")
    p.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from alias_fixtures.training import FinetuneError, LoraSettings, TrainSettings, finetune
    from alias_fixtures.training.data import TrainingDataError

    for name in ("epochs", "batch_size", "grad_accumulation", "max_tokens", "rank",
                 "save_every"):
        if getattr(args, name) < 1:
            return fail(f"--{name.replace('_', '-')} must be at least 1")
    targets = tuple(t.strip() for t in (args.target_modules or "").split(",") if t.strip())
    settings = TrainSettings(
        arm=args.arm, epochs=args.epochs, learning_rate=args.lr,
        weight_decay=args.weight_decay, warmup_steps=args.warmup_steps,
        batch_size=args.batch_size, grad_accumulation=args.grad_accumulation,
        max_tokens=args.max_tokens, seed=args.seed, save_every=args.save_every,
        gradient_checkpointing=args.gradient_checkpointing, device=args.device,
        dtype=args.dtype,
        lora=LoraSettings(rank=args.rank, alpha=args.alpha, dropout=args.dropout,
                          target_modules=targets or None))
    try:
        result = finetune(args.base, args.train, args.out, background=args.background,
                          settings=settings, resume=args.resume, progress=not args.no_progress,
                          stop_after_steps=args.max_steps, label=f"finetune {args.out.name}")
    except (FinetuneError, TrainingDataError, OSError) as exc:
        return fail(str(exc))
    except ImportError as exc:
        return fail(f"fine-tuning needs torch, transformers and peft "
                    f"(pip install 'alias-bench[train]'): {exc}")
    summary = {"out": str(result.out), "adapter": str(result.adapter) if result.finished
               else None, "steps": result.steps, "total_steps": result.total_steps,
               "resumed_from": result.resumed_from,
               "first_loss": result.losses[0] if result.losses else None,
               "final_loss": result.losses[-1] if result.losses else None,
               "seconds": round(result.seconds, 1)}
    if args.json:
        print(json.dumps(summary, indent=1))
    else:
        state = "done" if result.finished else "stopped (resume with --resume)"
        print(f"{state}: {result.steps}/{result.total_steps} steps, loss "
              f"{summary['first_loss']:.4f} -> {summary['final_loss']:.4f}, "
              f"{summary['seconds']} s" if result.losses else f"{state}: nothing to train")
        if result.finished:
            print(f"adapter: {result.adapter} (model spec hf:{args.base}+{result.adapter})")
        print(f"settings: {result.out / 'training.json'}")
    return 0
