"""Conditions turn a task into a variant; every renamed variant is verified with SANY and TLC.

`original` is the task itself. `random` renames every author-defined identifier with a random
name of the same length, seeded per task. `meaningful` applies a name map read from a JSON file.
A renamed variant is kept only when SANY accepts its modules and TLC, run with the renamed cfg,
passes with the same distinct-state count as the original; otherwise it is reported and excluded.
Verified variants are cached on disk, keyed by a hash of everything that decides them. A
verification that hit a time or memory limit is cached too, under a key that also holds the
harness's limits (`VariantStore.limit_key`): under the same limits it would hit them again, and
under larger ones it is made again. One that ended in an infrastructure error is never cached.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from alias_fixtures.tasks.descriptions import rename_description
from alias_fixtures.tasks.task import Task
from reports.schema import CONDITIONS
from tlc_harness.source.cfg import ModelConfig, parse_cfg
from tlc_harness.source.rename import RenameError, random_rename_map, rename_cfg, rename_modules
from tlc_harness.tools.disk_cache import key_lock
from tlc_harness.tools.results import LIMIT_VERDICTS, CheckResult, Verdict
from tlc_harness.tools.runner import Harness, deciding_settings
from tlc_harness.tools.spec import SpecSource

# The prompt asks for these by name in every condition, so renaming never touches them.
PROMPT_NAMES = ("Init", "Next", "Spec")
CACHE_VERSION = 1


class VariantError(ValueError):
    """A condition cannot be applied (unknown condition, bad or missing name map)."""


@dataclass(frozen=True)
class Variant:
    """A task under one condition: renamed modules, cfg and description, and the map used."""

    task_id: str
    condition: str
    main_module: str
    modules: Mapping[str, str]
    cfg_text: str
    description: str | None
    rename_map: Mapping[str, str] = field(default_factory=dict)
    tlc_args: tuple[str, ...] = ()
    #: distinct states of its model, from its verification's complete TLC run (None: unknown)
    distinct_states: int | None = None

    def spec(self) -> SpecSource:
        return SpecSource(self.main_module, dict(self.modules))

    @property
    def cfg(self) -> ModelConfig:
        return parse_cfg(self.cfg_text)

    def module_names(self) -> frozenset[str]:
        return frozenset(Path(name).stem for name in self.modules)

    def reference_text(self) -> str:
        """Every module of the reference, the main one first (what the `reference` model says)."""
        main = f"{self.main_module}.tla"
        return "\n\n".join([self.modules[main], *(t for f, t in self.modules.items() if f != main)])


@dataclass(frozen=True)
class Verification:
    """Whether a variant behaves like its original (same verdict, same distinct states)."""

    verified: bool
    original_states: int | None
    renamed_states: int | None
    reason: str | None = None
    seconds: float = 0.0
    limited: bool = False  # a run hit a time, memory or infrastructure limit (`limit` says which)
    limit: str | None = None  # that run's verdict: timeout, resource_limit or infra_error

    @property
    def kept_under_limits(self) -> bool:
        """Whether it is stored under the limits in effect: a time or memory limit hit."""
        return self.limited and self.limit != Verdict.INFRA_ERROR.value


def task_seed(run_seed: int | str, task_id: str) -> int:
    """A per-task seed: two tasks never share a stream of names."""
    digest = hashlib.sha256(f"{run_seed}\0{task_id}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def original_variant(task: Task) -> Variant:
    return Variant(task.id, "original", task.main_module, dict(task.modules), task.cfg_text,
                   task.description, {}, task.tlc_args)


def apply_map(task: Task, condition: str, mapping: Mapping[str, str], *,
              allow_length_change: bool = False) -> Variant:
    """Rename modules, cfg and description of `task` with one map (raises RenameError)."""
    modules = rename_modules(task.modules, mapping, allow_length_change=allow_length_change)
    cfg_text = rename_cfg(task.cfg_text, mapping)
    description = None
    if task.description is not None:
        description = rename_description(
            task.description, mapping, cfg_names=task.cfg.referenced_names(),
            module_names=task.module_names())
    main = mapping.get(task.main_module, task.main_module)
    return Variant(task.id, condition, main, modules, cfg_text, description, dict(mapping),
                   task.tlc_args)


def load_name_map(folder: str | Path, task_id: str) -> dict[str, str]:
    """The `meaningful` map of a task: `<folder>/<task_id>.json`, an object old -> new."""
    path = Path(folder) / f"{task_id}.json"
    if not path.is_file():
        raise VariantError(f"task {task_id}: no meaningful-name map {path}")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise VariantError(f"task {task_id}: {path} is not JSON: {exc}") from exc
    mapping = data.get("map", data) if isinstance(data, dict) else None
    if not isinstance(mapping, dict) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in mapping.items()):
        raise VariantError(f"task {task_id}: {path} must hold an object of old -> new names")
    return mapping


def make_variant(task: Task, condition: str, *, seed: int | str = 0,
                 maps_dir: str | Path | None = None) -> Variant:
    """The variant of `task` under `condition` (not yet verified)."""
    if condition == "original":
        return original_variant(task)
    if condition == "random":
        mapping = random_rename_map(task.modules, task_seed(seed, task.id),
                                    cfg_text=task.cfg_text, keep=PROMPT_NAMES).mapping
        return apply_map(task, condition, mapping)
    if condition == "meaningful":
        if maps_dir is None:
            raise VariantError("the meaningful condition needs a folder of name maps")
        return apply_map(task, condition, load_name_map(maps_dir, task.id),
                         allow_length_change=True)
    raise VariantError(f"unknown condition {condition!r} (one of {', '.join(CONDITIONS)})")


def _limit(verdict: Verdict) -> dict[str, Any]:
    """A Verification's `limited` and `limit` for a run that ended with `verdict`."""
    limited = verdict in LIMIT_VERDICTS
    return {"limited": limited, "limit": verdict.value if limited else None}


def verify_variant(harness: Harness, variant: Variant, original: CheckResult) -> Verification:
    """SANY ok, TLC ok with the renamed cfg, and the original's distinct-state count."""
    if original.verdict is not Verdict.OK or original.distinct_states is None:
        return Verification(False, original.distinct_states, None,
                            f"the original does not pass TLC ({original.verdict.value})",
                            **_limit(original.verdict))
    parsed = harness.parse(variant.spec())
    if not parsed.ok:
        infra = _limit(Verdict.INFRA_ERROR) if parsed.infra_error else {}
        return Verification(False, original.distinct_states, None,
                            "SANY rejects the renamed modules: " + "; ".join(parsed.errors[:3]),
                            parsed.seconds, **infra)
    checked = harness.check(variant.spec(), variant.cfg, tlc_args=variant.tlc_args)
    seconds = parsed.seconds + checked.seconds
    if checked.verdict is not Verdict.OK:
        why = checked.violated or ", ".join(checked.missing_names) or checked.detail[:200]
        return Verification(False, original.distinct_states, checked.distinct_states,
                            f"TLC on the renamed task: {checked.verdict.value} {why}".strip(),
                            seconds, **_limit(checked.verdict))
    if checked.distinct_states != original.distinct_states:
        return Verification(False, original.distinct_states, checked.distinct_states,
                            "distinct-state counts differ", seconds)
    return Verification(True, original.distinct_states, checked.distinct_states, None, seconds)


def check_original(harness: Harness, task: Task) -> CheckResult:
    return harness.check(task.spec(), task.cfg, tlc_args=task.tlc_args)


class OriginalRuns:
    """Each task's own TLC run, made once for all its conditions (every renamed variant is
    compared with it), by the first thread that needs it; the others wait for it."""

    def __init__(self, harness: Harness) -> None:
        self.harness = harness
        self._runs: dict[str, CheckResult] = {}
        self._locks: dict[str, threading.Lock] = {}
        self._guard = threading.Lock()

    def __call__(self, task: Task) -> CheckResult:
        with self._guard:
            lock = self._locks.setdefault(task.id, threading.Lock())
        with lock:
            if task.id not in self._runs:
                self._runs[task.id] = check_original(self.harness, task)
            return self._runs[task.id]


class VariantStore:
    """Verified variants on disk, one JSON file per (task content, condition, seed, map)."""

    def __init__(self, folder: str | Path, *, jar_sha256: str = "") -> None:
        self.folder = Path(folder)
        self.jar_sha256 = jar_sha256

    def key(self, task: Task, condition: str, seed: int | str, extra: str = "") -> str:
        payload = json.dumps([CACHE_VERSION, self.jar_sha256, task.id, dict(task.modules),
                              task.cfg_text, task.description, list(task.tlc_args), condition,
                              str(seed), extra], sort_keys=True)
        return hashlib.sha256(payload.encode()).hexdigest()

    def limit_key(self, key: str, harness: Harness) -> str:
        """The key of a verification that hit a limit: `key` and the harness's settings that
        may change a verdict (its time limits, heap, TLC's workers)."""
        payload = json.dumps([key, deciding_settings(harness.settings)], sort_keys=True,
                             default=str)
        return "limit-" + hashlib.sha256(payload.encode()).hexdigest()

    def lookup(self, key: str, harness: Harness) -> tuple[Variant, Verification] | None:
        """The verification stored under `key`, or the one that hit a limit under `harness`'s
        limits."""
        return self.get(key) or self.get(self.limit_key(key, harness))

    def get(self, key: str) -> tuple[Variant, Verification] | None:
        path = self.folder / f"{key}.json"
        if not path.is_file():
            return None
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            variant = Variant(**{**data["variant"], "tlc_args": tuple(data["variant"]["tlc_args"])})
            return variant, Verification(**data["verification"])
        except (OSError, ValueError, KeyError, TypeError):
            return None  # a damaged entry is recomputed

    def put(self, key: str, variant: Variant, verification: Verification) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        data: dict[str, Any] = {"variant": asdict(variant), "verification": asdict(verification)}
        tmp = self.folder / f".{key}.tmp"
        tmp.write_text(json.dumps(data, indent=1), encoding="utf-8")
        tmp.replace(self.folder / f"{key}.json")


def build_variant(harness: Harness, task: Task, condition: str, *, seed: int | str = 0,
                  maps_dir: str | Path | None = None, store: VariantStore | None = None,
                  original: CheckResult | OriginalRuns | None = None
                  ) -> tuple[Variant | None, Verification]:
    """Make and verify one variant (cached). A variant that cannot be made is unverified.
    With a store, one process verifies a missing variant at a time: the others wait for its
    entry (xdist workers, Ray actors or shell jobs grading outputs of the same task).
    `original`: the task's own TLC run, or where to get it (made only if the variant is
    missing from the store)."""
    extra = ""
    if condition == "meaningful" and maps_dir is not None:
        path = Path(maps_dir) / f"{task.id}.json"
        extra = path.read_text(encoding="utf-8") if path.is_file() else ""
    if store is None:
        return _built(harness, task, condition, seed, maps_dir, original)
    key = store.key(task, condition, seed, extra)
    if hit := store.lookup(key, harness):
        return hit
    with key_lock(store.folder, key):
        if hit := store.lookup(key, harness):  # verified by another process while this one waited
            return hit
        variant, verification = _built(harness, task, condition, seed, maps_dir, original)
        if variant is not None and not verification.limited:
            store.put(key, variant, verification)
        elif variant is not None and verification.kept_under_limits:  # hit again under them
            store.put(store.limit_key(key, harness), variant, verification)
        return variant, verification


def _built(harness: Harness, task: Task, condition: str, seed: int | str,
           maps_dir: str | Path | None, original: CheckResult | OriginalRuns | None
           ) -> tuple[Variant | None, Verification]:
    try:
        variant = make_variant(task, condition, seed=seed, maps_dir=maps_dir)
    except (RenameError, VariantError) as exc:
        return None, Verification(False, None, None, f"cannot rename: {exc}")
    if isinstance(original, OriginalRuns):
        original = original(task)
    original = original or check_original(harness, task)
    if condition == "original":
        ok = original.verdict is Verdict.OK
        verification = Verification(ok, original.distinct_states, original.distinct_states,
                                    None if ok else f"TLC: {original.verdict.value}",
                                    original.seconds, **_limit(original.verdict))
    else:
        verification = verify_variant(harness, variant, original)
    if verification.verified:  # TLC explored its whole model: its size is known
        variant = replace(variant, distinct_states=verification.renamed_states)
    return variant, verification


def build_variants(harness: Harness, tasks: Mapping[str, Task], pairs: Sequence[tuple[str, str]],
                   *, seed: int | str = 0, maps_dir: str | Path | None = None,
                   store: VariantStore | None = None, jobs: int = 1
                   ) -> dict[tuple[str, str], tuple[Variant | None, Verification]]:
    """`build_variant` for every (task, condition) pair, `jobs` at once (threads sharing
    `harness`, whose JVM pool should hold as many), each task's own TLC run made once."""
    originals = OriginalRuns(harness)

    def one(pair: tuple[str, str]) -> tuple[Variant | None, Verification]:
        return build_variant(harness, tasks[pair[0]], pair[1], seed=seed, maps_dir=maps_dir,
                             store=store, original=originals)

    if jobs <= 1 or len(pairs) <= 1:
        return {pair: one(pair) for pair in pairs}
    with ThreadPoolExecutor(max_workers=jobs, thread_name_prefix="alias-variants") as pool:
        return dict(zip(pairs, pool.map(one, pairs), strict=True))
