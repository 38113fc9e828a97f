"""The run header: where a run's numbers came from, so a reader can reproduce them."""

from __future__ import annotations

import datetime as dt
import platform
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING, Any

from alias_fixtures.tasks.prompts import template_hash
from reports.schema import RECORD_SCHEMA_VERSION
from reports.stand_ins import stand_in

if TYPE_CHECKING:
    from alias_fixtures.plugin.session import AliasSession


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


def run_header(session: AliasSession) -> dict[str, Any]:
    settings = session.settings
    commit, dirty = git_state(Path(__file__).resolve().parent)
    model = session.model
    return {
        "schema_version": RECORD_SCHEMA_VERSION, "kind": "header",
        "stand_in": stand_in(settings.model),
        "started": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "git_commit": commit, "git_dirty": dirty,
        "python": platform.python_version(), "platform": platform.platform(),
        **session.harness.toolchain.describe(),
        "module_library": session.harness.module_library.describe(),
        "model": settings.model, "provider": model.provider, "model_id": model.model_id,
        "prompt_template_sha256": template_hash(),
        "seeds": {"run": settings.seed},
        "tasks": settings.tasks, "task_count": len(session.tasks),
        "conditions": list(settings.conditions), "samples": settings.samples,
        "grades": list(settings.grades), "primary": settings.primary,
        "params": session.params.key(), "mapping_limit": settings.mappings,
        "tlc_timeout": settings.timeout,
        **({"exposure_half": settings.exposure_half} if settings.exposure_half else {}),
    }
