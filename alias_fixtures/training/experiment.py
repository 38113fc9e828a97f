"""The exposure experiment end to end: split, train a copy on each half, generate and grade
both conditions with both copies, score the likelihood with both, and build the report.

Per arm (``task-pair``, ``spec-only``) two LoRA copies of one base model are trained, on half
A and on half B (split seed 20260926), so every task is seen by one copy and unseen by the
other. Each copy runs the benchmark (``pytest benchmarks/test_cases.py --alias-model
hf:BASE+ADAPTER``, in a subprocess, its run header marked with ``--alias-exposure-half``) and
the likelihood probe (in this process). The report's Table 2 has one pair per arm, the
likelihood rows beside the grades and the control over tasks without truncated output.

Layout of ``out``: ``split/`` (split.json, train_A.jsonl, train_B.jsonl), ``train/ARM-HALF/``
(adapter, checkpoint, training.json), ``runs/ARM-HALF/`` (results.jsonl, outputs, the run's
log), ``likelihood/ARM-HALF.jsonl``, ``report/`` and ``experiment.json`` (stage times, models).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from alias_fixtures.tasks.loaders import load_tasks
from alias_fixtures.tasks.task import Task, builtin_tasks
from alias_fixtures.training.data import ARMS, write_split
from alias_fixtures.training.settings import TrainSettings
from reports.exposure import EXPOSURE_SEED, exposure_split

HALVES = ("A", "B")
DEFAULT_BENCHMARK = Path("benchmarks") / "test_cases.py"


class ExperimentError(RuntimeError):
    """A stage of the experiment failed; the message names it and says why."""


@dataclass(frozen=True)
class ExperimentSettings:
    """What to run besides the base model and the task set."""

    arms: tuple[str, ...] = ARMS
    conditions: tuple[str, ...] = ("original", "random")
    samples: int = 5
    split_seed: int = EXPOSURE_SEED
    run_seed: str = "0"
    temperature: float = 0.7
    top_p: float = 0.95
    max_new_tokens: int = 1024
    device: str = "auto"
    dtype: str = "auto"
    workers: int = 0
    likelihood_tokens: int = 2048
    n_boot: int = 10_000
    background: Path | None = None
    train: TrainSettings = field(default_factory=TrainSettings)
    benchmark: Path = DEFAULT_BENCHMARK
    pytest_args: tuple[str, ...] = ()
    timeout: float = 300.0


@dataclass(frozen=True)
class ExperimentResult:
    """Where everything went, the model spec of each copy, and seconds per stage."""

    out: Path
    report: Path
    models: dict[str, str]
    results: dict[str, Path]
    likelihood: dict[str, Path]
    stages: dict[str, float]
    halves: tuple[tuple[str, ...], tuple[str, ...]]


def load_task_set(source: str) -> dict[str, Task]:
    tasks = builtin_tasks() if source == "builtin" else load_tasks(source)
    return {t.id: t for t in tasks}


def model_spec(base: Path, adapter: Path, settings: ExperimentSettings) -> str:
    """The ``hf:`` spec of one copy (also its name in records, probe rows and the report)."""
    return (f"hf:{base}+{adapter}?device={settings.device}&dtype={settings.dtype}"
            f"&max_new_tokens={settings.max_new_tokens}")


def _say(log: Callable[[str], None] | None, text: str) -> None:
    if log is not None:
        log(text)


def run_benchmark(spec: str, half: str, tasks: str, out: Path, settings: ExperimentSettings,
                  *, resume: bool, cwd: Path) -> Path:
    """One copy's benchmark run (a pytest subprocess); its ``results.jsonl``."""
    argv = [sys.executable, "-m", "pytest", str(settings.benchmark), "-q", "-p",
            "no:cacheprovider", "--alias-model", spec, "--alias-tasks", tasks,
            "--alias-conditions", ",".join(settings.conditions),
            "--alias-samples", str(settings.samples), "--alias-seed", settings.run_seed,
            "--alias-out", str(out), "--alias-exposure-half", half,
            "--alias-temperature", str(settings.temperature),
            "--alias-top-p", str(settings.top_p),
            "--alias-max-tokens", str(settings.max_new_tokens),
            "--alias-timeout", str(settings.timeout), *settings.pytest_args]
    if settings.workers > 0:
        argv += ["-n", str(settings.workers)]
    if resume:
        argv.append("--alias-resume")
    out.mkdir(parents=True, exist_ok=True)
    log_path = out / "benchmark.log"
    with log_path.open("w", encoding="utf-8") as log:
        proc = subprocess.run(argv, cwd=cwd, stdout=log, stderr=subprocess.STDOUT,
                              env=dict(os.environ), check=False)
    results = out / "results.jsonl"
    if proc.returncode != 0 or not results.is_file():
        tail = log_path.read_text(encoding="utf-8", errors="replace")[-2000:]
        raise ExperimentError(f"the benchmark run of {spec} exited {proc.returncode} "
                              f"(log: {log_path}):\n{tail}")
    return results


def score_copy(base: Path, adapter: Path, spec: str, tasks: Sequence[Task], out: Path,
               settings: ExperimentSettings) -> Path:
    """The likelihood probe's rows of one copy, named by its model spec."""
    from alias_fixtures.models.hf import HFSpec, load_hf
    from alias_fixtures.probes.likelihood import score_loaded

    model, tokenizer, _ = load_hf(HFSpec(base, adapter, settings.device, settings.dtype))
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("w", encoding="utf-8") as handle:
        def write(row: dict[str, Any]) -> None:
            handle.write(json.dumps(row, sort_keys=True) + "\n")

        score_loaded(model, tokenizer, spec, tasks, settings.conditions, settings.run_seed,
                     max_tokens=settings.likelihood_tokens, on_row=write)
    return out


def run_experiment(base_model: str | Path, out: str | Path, tasks: str = "builtin",
                   settings: ExperimentSettings | None = None, *, resume: bool = False,
                   progress: bool = True, log: Callable[[str], None] | None = None,
                   cwd: str | Path | None = None) -> ExperimentResult:
    """Run every stage; ``cwd`` is where the benchmark file resolves (the checkout)."""
    from alias_fixtures.training.lora import finetune
    from reports.render import ExposurePair, write_report

    settings = settings or ExperimentSettings()
    unknown = [a for a in settings.arms if a not in ARMS]
    if unknown or not settings.arms:
        raise ExperimentError(f"unknown arm(s) {unknown} (choose from {', '.join(ARMS)})")
    base = Path(base_model).resolve()
    root = Path(out).resolve()
    here = Path(cwd) if cwd is not None else Path.cwd()
    if not (here / settings.benchmark).is_file():
        raise ExperimentError(f"no benchmark file {here / settings.benchmark}: run from the "
                              f"checkout or pass its path")
    stages: dict[str, float] = {}
    clock = time.monotonic()

    task_set = load_task_set(tasks)
    halves = exposure_split(task_set, settings.split_seed)
    split = write_split(task_set, halves, settings.split_seed, root / "split")
    stages["split"] = time.monotonic() - clock
    _say(log, f"split: A {len(halves[0])} tasks, B {len(halves[1])} tasks "
              f"({stages['split']:.1f} s)")

    adapters: dict[str, Path] = {}
    for arm in settings.arms:
        for half in HALVES:
            name, clock = f"{arm}-{half}", time.monotonic()
            result = finetune(base, split[half], root / "train" / name,
                              background=settings.background,
                              settings=replace(settings.train, arm=arm), resume=resume,
                              progress=progress, label=f"train {name}")
            adapters[name] = result.adapter
            stages[f"train {name}"] = time.monotonic() - clock
            _say(log, f"train {name}: {result.steps} steps, loss {result.losses[0]:.3f} -> "
                      f"{result.losses[-1]:.3f} ({stages[f'train {name}']:.1f} s)")

    models = {name: model_spec(base, adapter, settings) for name, adapter in adapters.items()}
    results: dict[str, Path] = {}
    first_cache: Path | None = None
    for name, spec in models.items():
        clock = time.monotonic()
        run_out = root / "runs" / name
        cache = run_out / "cache" / "variants"
        if first_cache is not None and first_cache.is_dir() and not cache.exists():
            shutil.copytree(first_cache, cache)  # verified variants, keyed by content
        results[name] = run_benchmark(spec, name.rsplit("-", 1)[1], tasks, run_out, settings,
                                      resume=resume, cwd=here)
        first_cache = first_cache or cache
        stages[f"benchmark {name}"] = time.monotonic() - clock
        _say(log, f"benchmark {name}: {results[name]} ({stages[f'benchmark {name}']:.1f} s)")

    likelihood: dict[str, Path] = {}
    ordered = [task_set[t] for t in sorted(task_set)]
    for name, spec in models.items():
        clock = time.monotonic()
        likelihood[name] = score_copy(base, adapters[name], spec, ordered,
                                      root / "likelihood" / f"{name}.jsonl", settings)
        stages[f"likelihood {name}"] = time.monotonic() - clock
        _say(log, f"likelihood {name}: {stages[f'likelihood {name}']:.1f} s")

    clock = time.monotonic()
    pairs = [ExposurePair(models[f"{arm}-A"], models[f"{arm}-B"], arm, halves[0], halves[1])
             for arm in settings.arms]
    report = root / "report"
    write_report(list(results.values()), report, n_boot=settings.n_boot,
                 split_seed=settings.split_seed, exposure=pairs,
                 probes=list(likelihood.values()))
    stages["report"] = time.monotonic() - clock
    (root / "experiment.json").write_text(json.dumps({
        "base_model": str(base), "tasks": tasks, "halves": {"A": halves[0], "B": halves[1]},
        "models": models, "stages_seconds": {k: round(v, 1) for k, v in stages.items()},
        "settings": _jsonable(settings)}, indent=1) + "\n", encoding="utf-8")
    return ExperimentResult(root, report, models, results, likelihood, stages, halves)


def report_command(result: ExperimentResult) -> str:
    """The `alias-bench report` line that rebuilds the experiment's report."""
    parts = ["alias-bench report", *map(str, result.results.values())]
    parts += [f"--probe {p}" for p in result.likelihood.values()]
    arms = sorted({name.rsplit("-", 1)[0] for name in result.models})
    parts += [f"--exposure 'A={result.models[f'{a}-A']},B={result.models[f'{a}-B']},label={a}'"
              for a in arms]
    return " ".join(parts + [f"--out {result.report}"])


def _jsonable(value: Any) -> Any:
    from dataclasses import asdict, is_dataclass

    if is_dataclass(value) and not isinstance(value, type):
        return _jsonable(asdict(value))
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, Path):
        return str(value)
    return value
