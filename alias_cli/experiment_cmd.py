"""`alias-bench experiment`: the exposure experiment end to end on a task set.

Splits the tasks (seed 20260926) into halves A and B; per arm (task-pair, spec-only) trains a
LoRA copy of the base model on each half; runs the benchmark (`pytest
benchmarks/test_cases.py --alias-model hf:BASE+ADAPTER`) and the likelihood probe with every
copy; builds the report, whose Table 2 has one pair per arm, the likelihood beside the grades
and the control over tasks without truncated output. Run it from the checkout (the benchmark
file is resolved there). Needs the `train` extra (torch, transformers, peft).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from alias_cli.common import fail

ARMS = ("task-pair", "spec-only")


def _arms(text: str) -> tuple[str, ...]:
    names = tuple(a.strip() for a in text.split(",") if a.strip())
    if not names or any(a not in ARMS for a in names):
        raise argparse.ArgumentTypeError(f"arms are a comma-separated list of {', '.join(ARMS)}")
    return names


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("experiment", help="the exposure experiment: split, train A and B, "
                       "generate, grade, likelihood, report", description=__doc__)
    p.add_argument("--base", required=True, type=Path, help="local folder of the base model")
    p.add_argument("--tasks", default="builtin", help="'builtin' or a task folder/collection")
    p.add_argument("--out", required=True, type=Path, help="experiment folder")
    p.add_argument("--arms", type=_arms, default=ARMS, help="task-pair,spec-only (both)")
    p.add_argument("--samples", type=int, default=5, help="samples per task and condition (5)")
    p.add_argument("--conditions", default="original,random", help="original,random")
    p.add_argument("--max-new-tokens", type=int, default=1024, help="new tokens (1024)")
    p.add_argument("--temperature", type=float, default=0.7, help="sampling temperature (0.7)")
    p.add_argument("--top-p", type=float, default=0.95, help="nucleus top-p (0.95)")
    p.add_argument("--epochs", type=int, default=3, help="training epochs (3)")
    p.add_argument("--lr", type=float, default=2e-4, help="learning rate (2e-4)")
    p.add_argument("--rank", type=int, default=16, help="LoRA rank (16)")
    p.add_argument("--alpha", type=int, default=32, help="LoRA alpha (32)")
    p.add_argument("--target-modules", help="comma-separated LoRA targets (peft's default)")
    p.add_argument("--batch-size", type=int, default=1, help="micro-batch size (1)")
    p.add_argument("--grad-accumulation", type=int, default=1, help="accumulation steps (1)")
    p.add_argument("--gradient-checkpointing", action="store_true",
                   help="trade compute for memory while training")
    p.add_argument("--background", type=Path, help="a training set both halves share (JSONL)")
    p.add_argument("--device", choices=("auto", "cpu", "cuda"), default="auto")
    p.add_argument("--dtype", choices=("auto", "float32", "bfloat16", "float16"),
                   default="auto")
    p.add_argument("--workers", type=int, default=0,
                   help="pytest-xdist workers per benchmark run (0: one process; each worker "
                   "loads the model)")
    p.add_argument("--n-boot", type=int, default=10_000, help="bootstrap resamples (10000)")
    p.add_argument("--resume", action="store_true",
                   help="continue training from checkpoints and skip recorded cases")
    p.add_argument("--no-progress", action="store_true", help="no progress bars")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from alias_fixtures.tasks.task import TaskError
    from alias_fixtures.training import FinetuneError, LoraSettings, TrainSettings
    from alias_fixtures.training.data import TrainingDataError
    from alias_fixtures.training.experiment import (
        ExperimentError,
        ExperimentSettings,
        report_command,
        run_experiment,
    )

    targets = tuple(t.strip() for t in (args.target_modules or "").split(",") if t.strip())
    train = TrainSettings(epochs=args.epochs, learning_rate=args.lr, batch_size=args.batch_size,
                          grad_accumulation=args.grad_accumulation, device=args.device,
                          dtype=args.dtype, gradient_checkpointing=args.gradient_checkpointing,
                          lora=LoraSettings(rank=args.rank, alpha=args.alpha,
                                            target_modules=targets or None))
    settings = ExperimentSettings(
        arms=args.arms, conditions=tuple(c.strip() for c in args.conditions.split(",")),
        samples=args.samples, temperature=args.temperature, top_p=args.top_p,
        max_new_tokens=args.max_new_tokens, device=args.device, dtype=args.dtype,
        workers=args.workers, n_boot=args.n_boot, background=args.background, train=train)
    try:
        result = run_experiment(args.base, args.out, args.tasks, settings, resume=args.resume,
                                progress=not args.no_progress,
                                log=lambda line: print(line, file=sys.stderr, flush=True))
    except (ExperimentError, FinetuneError, TrainingDataError, TaskError, OSError) as exc:
        return fail(str(exc))
    except ImportError as exc:
        return fail(f"the experiment needs torch, transformers and peft "
                    f"(pip install 'alias-bench[train]'): {exc}")
    print((result.report / "table2.md").read_text(encoding="utf-8").rstrip())
    print("\nseconds per stage: " + ", ".join(f"{k} {v:.1f}" for k, v in result.stages.items()))
    print(f"report: {result.report / 'index.html'}")
    print(f"rebuild: {report_command(result)}")
    return 0
