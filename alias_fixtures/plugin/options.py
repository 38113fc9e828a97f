"""The `--alias-*` option group, mirrored as ini options so tox envs can set them."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path

import pytest

from alias_fixtures.plugin.values import VALUE_RULES, setting_type, value_problem
from reports.schema import CONDITIONS, GRADES
from tlc_harness.behavior.options import DEFAULT_OUTPUT_BUDGET, ENGINES, BehaviorOptions
from tlc_harness.behavior.sweeps import resolved_jobs, sweep_jobs

# name, default, help (each also an ini option `alias_<name>`)
OPTIONS: tuple[tuple[str, str, str], ...] = (
    ("tasks", "builtin", "tasks: `builtin`, a folder of task folders, a tlaplus/Examples "
     "checkout or a TLA+-Bench release; several, comma-separated (builtin,PATH), in one run"),
    ("category", "system", "TLA+-Bench release: which specs are tasks: system, utility or all"),
    ("module-path", "", "folders (separated by the OS path separator) where a TLA+-Bench "
     "release's imported modules are looked up after the release's own"),
    ("conditions", "original,random", "comma-separated conditions: original, random, meaningful"),
    ("samples", "5", "samples per task and condition"),
    ("model", "demo", "model: demo, reference, replay:PATH, anthropic:MODEL, openai:MODEL[@URL]"),
    ("seed", "0", "run seed (renaming; the report's bootstrap seed is separate)"),
    ("out", "alias-results/{model}", "folder for records, outputs, caches and the report "
     "({model} is replaced by the model spec)"),
    ("grades", "parse,name,behavior", "grades to compute"),
    ("primary", "behavior", "grade that decides whether a case passes: name or behavior"),
    ("maps", "", "folder of <task>.json name maps for the meaningful condition"),
    ("temperature", "0.7", "sampling temperature"),
    ("top-p", "0.95", "nucleus sampling top-p"),
    ("max-tokens", "4096", "most new tokens per output"),
    ("mappings", "60", "most mappings the wrapper engine of the behavior grade tries"),
    ("behavior-engine", "auto", "behavior-grade engine: graphs (state graphs, mapping inferred "
     "in memory), wrappers (variable bijections checked by TLC), auto (graphs within the graph "
     "budget, else wrappers)"),
    ("graph-budget", "50000", "most distinct states a state graph may have for the graphs "
     "engine"),
    ("behavior-budget", f"{DEFAULT_OUTPUT_BUDGET:g}", "seconds of wall time one output's "
     "whole behavior grade may take (every TLC run's limit is cut to the time left; when it "
     "runs out the grade is undecided, output_budget); 0 = no budget"),
    ("timeout", "300", "TLC time limit per run, seconds"),
    ("sweep-jobs", "1", "TLC runs of one output's sweep (the values of a free constant, the "
     "wrapper engine's mappings) run at once, each in its own JVM: 1 (one after another), a "
     "number, or auto (one per core); with -n N, N x this many at once. Never changes a "
     "verdict"),
    ("cache", "", "root of the per-task cache shared by processes and runs (explored "
     "reference graphs, the references' self-checks); empty: $XDG_CACHE_HOME/alias, else "
     "~/.cache/alias"),
    ("executor", "local", "where outputs are graded: local (this process), ray (a private "
     "Ray on this machine, or the cluster of RAY_ADDRESS), ray:ADDRESS (an existing Ray "
     "cluster: auto, HOST:PORT or ray://HOST:10001); needs the `ray` extra"),
    ("style", "declarative_gpt", "TLA+-Bench description style (declarative_gpt: every spec "
     "has it; declarative_claude)"),
    ("turns", "1", "turns per case (the feedback track): after a failed turn the model gets "
     "the conversation and checker feedback and writes again; 1 = one shot"),
    ("feedback", "parse,tlc,names", "feedback levels shown after a failed turn: any of parse, "
     "tlc, names (comma-separated), or none"),
    ("prices", "", "a TOML price table laid over the shipped one, for each turn's cost"),
    ("tokenizer", "", "a tokenizer (Hugging Face name or local folder; needs transformers) "
     "that counts the tokens of API replies reporting none, for their cost"),
    ("exposure-half", "", "A or B: the half of the exposure split (seed 20260926) this model "
     "was trained on; written into the run header for the report's Table 2"),
)
FLAGS: tuple[tuple[str, str], ...] = (
    ("resume", "skip cases already recorded in the results file"),
    ("no-grade-cache", "grade every output, even one whose grades the grade cache holds "
     "(the same variant, module text, grades, options, jar and grader code: graded once, "
     "read after; under the --alias-cache root)"),
    ("strict", "let model failures fail the run (default: exit status reflects harness health)"),
    ("slow", "also run the benchmark's tests marked slow (the corpus controls, the wrapper "
     "engine's mutant controls, the representation controls); without it `pytest "
     "benchmarks/` leaves them out and its summary says how to run them"),
)


def add_options(parser: pytest.Parser) -> None:
    group = parser.getgroup("alias", "ALIAS benchmark")
    for name, default, text in OPTIONS:
        rule = {"type": setting_type(name)} if name in VALUE_RULES else {}
        group.addoption(f"--alias-{name}", dest=f"alias_{name.replace('-', '_')}", default=None,
                        help=f"{text} (default: {default})", **rule)
        parser.addini(f"alias_{name.replace('-', '_')}", text, default=default)
    for name, text in FLAGS:
        key = f"alias_{name.replace('-', '_')}"
        group.addoption(f"--alias-{name}", dest=key, action="store_true", default=None,
                        help=text)
        parser.addini(key, text, type="bool", default=False)


@dataclass(frozen=True)
class Settings:
    """The options of one run, validated."""

    tasks: str
    conditions: tuple[str, ...]
    samples: int
    model: str
    seed: str
    out: str
    grades: tuple[str, ...]
    primary: str
    maps: str
    temperature: float
    top_p: float
    max_tokens: int
    mappings: int
    behavior_engine: str
    graph_budget: int
    timeout: float
    cache: str
    executor: str
    style: str
    exposure_half: str
    resume: bool
    strict: bool
    turns: int = 1
    feedback: tuple[str, ...] = ("parse", "tlc", "names")
    prices: str = ""
    tokenizer: str = ""
    behavior_budget: float = DEFAULT_OUTPUT_BUDGET  # seconds; 0: no budget
    sweep_jobs: int = 1  # runs of a sweep at once (`sweeps.resolved_jobs`)
    category: str = "system"  # a TLA+-Bench release's specs that are tasks
    module_path: str = ""  # folders for a release's imported modules (os.pathsep-separated)
    grade_cache: bool = True  # read and keep grades in the grade cache (`grading.grade_cache`)

    @property
    def task_sources(self) -> list[str]:
        """The `tasks` sources, in order (`builtin` or a path each)."""
        return [part.strip() for part in self.tasks.split(",") if part.strip()]

    @property
    def module_folders(self) -> list[str]:
        """The `module_path` folders, in order."""
        import os

        return [part for part in self.module_path.split(os.pathsep) if part.strip()]

    @property
    def variant_cache(self) -> Path:
        """The verified-variant cache of this run's out folder: the cases and the benchmark's
        own tests (benchmarks/) read and write the same one."""
        return Path(self.out) / "cache" / "variants"

    def behavior_options(self) -> BehaviorOptions:
        return BehaviorOptions(engine=self.behavior_engine, limit=self.mappings,
                               budget=self.graph_budget, timeout=self.timeout,
                               cache=Path(self.cache).expanduser().absolute()
                               if self.cache else None, output_budget=self.behavior_budget,
                               sweep_jobs=self.sweep_jobs)


def _get(config: pytest.Config, name: str) -> str:
    key = f"alias_{name.replace('-', '_')}"
    value = config.getoption(key)
    return str(config.getini(key) if value is None else value)


def _flag(config: pytest.Config, name: str) -> bool:
    key = f"alias_{name.replace('-', '_')}"
    return bool(config.getoption(key) or config.getini(key))


def _workers(config: pytest.Config) -> int:
    """The processes grading at once: an xdist worker's count of workers, else 1 (the
    controller grades nothing; its variant verifications have their own count)."""
    count = getattr(config, "workerinput", {}).get("workercount", 1)
    return count if isinstance(count, int) and count > 0 else 1


def _safe(text: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in text)


def read_settings(config: pytest.Config) -> Settings:
    """Read and check the options; contradictions fail early with a UsageError."""
    try:
        conditions = tuple(c.strip() for c in _get(config, "conditions").split(",") if c.strip())
        grades = tuple(g.strip() for g in _get(config, "grades").split(",") if g.strip())
        settings = Settings(
            tasks=_get(config, "tasks"), conditions=conditions,
            samples=int(_get(config, "samples")), model=_get(config, "model"),
            seed=_get(config, "seed"),
            out=_get(config, "out").replace("{model}", _safe(_get(config, "model"))),
            grades=grades,
            primary=_get(config, "primary"), maps=_get(config, "maps"),
            temperature=float(_get(config, "temperature")), top_p=float(_get(config, "top-p")),
            max_tokens=int(_get(config, "max-tokens")), mappings=int(_get(config, "mappings")),
            behavior_engine=_get(config, "behavior-engine"),
            graph_budget=int(_get(config, "graph-budget")),
            behavior_budget=float(_get(config, "behavior-budget")),
            timeout=float(_get(config, "timeout")), cache=_get(config, "cache").strip(),
            executor=_get(config, "executor").strip(),
            style=_get(config, "style"),
            exposure_half=_get(config, "exposure-half").upper(),
            category=_get(config, "category").strip(),
            module_path=_get(config, "module-path").strip(),
            resume=_flag(config, "resume"), strict=_flag(config, "strict"),
            grade_cache=not _flag(config, "no-grade-cache"),
            turns=int(_get(config, "turns")), prices=_get(config, "prices").strip(),
            tokenizer=_get(config, "tokenizer").strip(),
            sweep_jobs=resolved_jobs(sweep_jobs(_get(config, "sweep-jobs")),
                                     sharers=_workers(config)),
        )
    except ValueError as exc:
        raise pytest.UsageError(f"ALIAS: bad option value: {exc}") from exc
    from alias_fixtures.grading.feedback import parse_levels

    try:
        settings = replace(settings, feedback=parse_levels(_get(config, "feedback")))
        check_settings(settings)
    except SettingError as exc:
        raise pytest.UsageError(f"--alias-{exc.name}: {exc.problem}") from exc
    except ValueError as exc:
        raise pytest.UsageError(f"--alias-feedback: {exc}") from exc
    return settings


class SettingError(ValueError):
    """A run setting with a bad value: `name` is its option's name (`behavior-budget`), the
    plugin shows it as `--alias-behavior-budget`, the inspect task as `behavior_budget`."""

    def __init__(self, name: str, problem: str) -> None:
        super().__init__(f"{name.replace('-', '_')}: {problem}")
        self.name = name
        self.problem = problem


def check_settings(settings: Settings) -> None:
    """The one check of a run's settings, shared by the plugin's options (`read_settings`)
    and the inspect task's parameters (`inspect_eval.cases.inspect_settings`): raises
    :class:`SettingError` for the first bad value or contradiction."""
    problems = _problems(settings)
    found = next(problems, None)
    if found is not None:
        raise SettingError(*found)


def _problems(settings: Settings) -> Iterator[tuple[str, str]]:
    """(option name, problem) of each bad value, cheap checks first."""
    for name in VALUE_RULES:
        problem = value_problem(name, getattr(settings, name.replace("-", "_")))
        if problem is not None:
            yield name, problem
    if not settings.task_sources:
        yield "tasks", "no task source (builtin or a path)"
    from alias_fixtures.tasks.release import CATEGORIES

    if settings.category not in CATEGORIES:
        yield "category", f"must be one of {', '.join(CATEGORIES)}"
    bad = [c for c in settings.conditions if c not in CONDITIONS]
    if bad or not settings.conditions:
        yield "conditions", (f"unknown {bad or 'empty list'}; choose from "
                             f"{', '.join(CONDITIONS)}")
    if "meaningful" in settings.conditions and not settings.maps:
        yield "conditions", "meaningful needs maps (a folder of <task>.json name maps)"
    if settings.exposure_half not in ("", "A", "B"):
        yield "exposure-half", "must be A or B"
    unknown = [g for g in settings.grades if g not in GRADES]
    if unknown:
        yield "grades", f"unknown grade(s) {unknown}"
    if settings.primary not in ("name", "behavior"):
        yield "primary", "must be `name` or `behavior`"
    elif settings.primary not in settings.grades:
        yield "primary", f"{settings.primary} is not among the grades {','.join(settings.grades)}"
    if settings.behavior_engine not in ENGINES:
        yield "behavior-engine", f"must be one of {', '.join(ENGINES)}"
    from alias_fixtures.grading.executors import ExecutorError, require_ray

    try:
        require_ray(settings.executor)
    except ExecutorError as exc:
        yield "executor", str(exc)
    if settings.prices:
        from alias_fixtures.models.cost import PriceFileError, Prices

        try:
            Prices.load(settings.prices)
        except (PriceFileError, OSError) as exc:
            yield "prices", str(exc)
    if settings.tokenizer:
        from alias_fixtures.models.token_count import TokenizerError, load_counter

        try:
            load_counter(settings.tokenizer)
        except TokenizerError as exc:
            yield "tokenizer", str(exc)


PROBE_DEFAULT_MODEL = "scripted"
"""The model of benchmarks/test_probes*.py when `--alias-model` is not given: offline."""


def probe_model(config: pytest.Config) -> str:
    """The probes' model: `--alias-model` when given, else :data:`PROBE_DEFAULT_MODEL`."""
    value = config.getoption("alias_model")
    return str(value) if value else PROBE_DEFAULT_MODEL


def out_folder(config: pytest.Config, model: str) -> str:
    """The `--alias-out` folder with ``{model}`` filled in for ``model``."""
    return _get(config, "out").replace("{model}", _safe(model))
