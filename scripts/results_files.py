"""What a measurement script here writes: its Markdown to `--out` (and stdout), its numbers
beside it as JSON, stamped with the checkout's revision (`git describe --dirty`)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def revision() -> str | None:
    """The checkout's revision, `-dirty` when it has uncommitted changes; None without git."""
    try:
        return subprocess.run(["git", "describe", "--always", "--dirty"], cwd=ROOT,
                              check=True, capture_output=True, text=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None


def publish(text: str, data: dict[str, Any], out: Path | None) -> None:
    """Print the Markdown; with `out`, write it there and the data to `out` with `.json`."""
    print(text)
    if out:
        out.write_text(text, encoding="utf-8")
        out.with_suffix(".json").write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
