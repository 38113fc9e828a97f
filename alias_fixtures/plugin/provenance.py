"""The run header: where a run's numbers came from, so a reader can reproduce them."""

from __future__ import annotations

import datetime as dt
import platform
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from alias_fixtures.plugin.options import Settings
from alias_fixtures.tasks.prompts import template_hash
from reports.schema import RECORD_SCHEMA_VERSION
from reports.stand_ins import stand_in


@dataclass(frozen=True)
class RunFacts:
    """The facts of one run that its header records, gathered by the session
    (`AliasSession.facts`): the settings, the model's provider and id, the tools, how many
    tasks, the generation parameters. The header is made from these alone."""

    settings: Settings
    provider: str
    model_id: str
    toolchain: Mapping[str, str]        # `Toolchain.describe()`: Java, the jar, its sha256
    module_library: Mapping[str, Any]   # `ModuleLibrary.describe()`
    task_count: int
    params: Mapping[str, Any]           # `GenerationParams.key()`


def git_state(folder: Path) -> tuple[str | None, bool | None]:
    """(commit, dirty) of the checkout holding `folder`, or (None, None)."""
    try:
        commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=folder, capture_output=True,
                                text=True, timeout=10, check=True).stdout.strip()
        dirty = bool(subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"],
                                    cwd=folder, capture_output=True, text=True, timeout=10,
                                    check=True).stdout.strip())
        return commit, dirty
    except (OSError, subprocess.SubprocessError):
        return None, None


def run_header(facts: RunFacts) -> dict[str, Any]:
    """The run header's provenance fields, from the run's facts and this checkout."""
    settings = facts.settings
    commit, dirty = git_state(Path(__file__).resolve().parent)
    return {
        "schema_version": RECORD_SCHEMA_VERSION, "kind": "header",
        "stand_in": stand_in(settings.model),
        "started": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "git_commit": commit, "git_dirty": dirty,
        "python": platform.python_version(), "platform": platform.platform(),
        **facts.toolchain,
        "module_library": dict(facts.module_library),
        "model": settings.model, "provider": facts.provider, "model_id": facts.model_id,
        "prompt_template_sha256": template_hash(),
        "seeds": {"run": settings.seed},
        "tasks": settings.tasks, "task_count": facts.task_count,
        "conditions": list(settings.conditions), "samples": settings.samples,
        "grades": list(settings.grades), "primary": settings.primary,
        "params": dict(facts.params), "mapping_limit": settings.mappings,
        "tlc_timeout": settings.timeout,
        **({"exposure_half": settings.exposure_half} if settings.exposure_half else {}),
    }
