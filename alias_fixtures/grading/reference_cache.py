"""The references' self-checks on disk: `<cache root>/references/<key>.json`.

A variant's reference graded against itself depends only on the task, so every process and
every run reads it from here once one has computed it. The key is a sha256 of everything that
decides the result: the reference's modules, cfg and TLC arguments, the behavior options but
the cache's place and the output budget (a self-check runs without one), the harness settings
that reach TLC, the jar's sha256, the grader's own source and `REFERENCE_FORMAT`. A result
that hit a limit is kept (graded again, it would hit it again); one that ended in an
infrastructure error is not.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import tlc_harness
from alias_fixtures.tasks.variants import Variant
from tlc_harness.behavior.options import BehaviorOptions
from tlc_harness.behavior.verdicts import BehaviorResult, Reason
from tlc_harness.tools.disk_cache import JsonStore, cache_root, source_digest
from tlc_harness.tools.runner import Harness, deciding_settings

REFERENCE_FORMAT = 1
"""Bump when what a self-check records changes (the grader's source is in the key anyway)."""
KIND = "references"
#: options that never reach a self-check's verdict: where the cache is, the output's time
#: budget (a self-check belongs to the task and has none), and how many runs of a sweep
#: run at once
_NOT_KEYED = frozenset({"cache", "output_budget", "sweep_jobs"})


@functools.cache
def grader_digest() -> str:
    """A sha256 of the grader's source: the `tlc_harness` package's modules and TLA+ library."""
    return source_digest(Path(tlc_harness.__file__).parent)


def reference_key(harness: Harness, variant: Variant, options: BehaviorOptions) -> str:
    """The key of the variant's reference self-check under `options` on `harness`."""
    chosen = {f.name: getattr(options, f.name) for f in dataclasses.fields(options)
              if f.name not in _NOT_KEYED}
    settings = deciding_settings(harness.settings)
    blob = json.dumps({"format": REFERENCE_FORMAT, "grader": grader_digest(),
                       "main": variant.main_module, "modules": sorted(variant.modules.items()),
                       "cfg": variant.cfg_text, "tlc_args": list(variant.tlc_args),
                       "options": chosen, "harness": settings,
                       "jar": harness.toolchain.jar_sha256}, sort_keys=True, default=str)
    return hashlib.sha256(blob.encode()).hexdigest()


def kept(result: BehaviorResult) -> bool:
    """Whether a self-check is stored: all but an infrastructure error."""
    return result.code is not Reason.INFRA_ERROR


class ReferenceStore:
    """Reference self-checks under one cache root (None: the default root)."""

    def __init__(self, root: Path | None = None) -> None:
        self.store = JsonStore(cache_root(root) / KIND)

    def check(self, harness: Harness, variant: Variant, options: BehaviorOptions,
              compute: Callable[[], BehaviorResult]) -> BehaviorResult:
        """The stored self-check, else `compute()` (one process at a time per key)."""
        key = reference_key(harness, variant, options)
        return self.store.get_or_compute(
            key, compute, keep=kept, load=_load,
            dump=lambda result: {"format": REFERENCE_FORMAT, "task": variant.task_id,
                                 "condition": variant.condition, "result": result.to_json()})


def _load(data: dict[str, Any]) -> BehaviorResult:
    if data.get("format") != REFERENCE_FORMAT:
        raise ValueError(f"reference entry of format {data.get('format')!r}")
    return BehaviorResult.from_json(data["result"])
