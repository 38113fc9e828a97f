"""The results file: a run header and one JSON line per graded case, append-only.

Only one process (the xdist controller) writes. Each record is written as one whole line and
flushed to disk, so killing a run at any point loses no recorded case; a torn last line (from
a crash mid-write) is cut off before the next append.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

INSPECT_SUFFIXES = (".eval", ".json")
"""Suffixes of inspect logs (`reports.inspect_log` reads them as records)."""


def _repair_tail(path: Path) -> None:
    """Drop a last line that has no newline (an interrupted write)."""
    if not path.is_file() or path.stat().st_size == 0:
        return
    with path.open("rb+") as fh:
        fh.seek(-1, os.SEEK_END)
        if fh.read(1) == b"\n":
            return
        data = path.read_bytes()
        fh.truncate(data.rfind(b"\n") + 1)


class ResultsWriter:
    """Appends whole JSON lines with fsync."""

    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        _repair_tail(path)

    def append(self, record: dict[str, Any]) -> None:
        line = (json.dumps(record, sort_keys=False, separators=(",", ":")) + "\n").encode()
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(fd, line)
            os.fsync(fd)
        finally:
            os.close(fd)


def read_lines(path: Path) -> list[dict[str, Any]]:
    """Every complete, parseable line (a torn last line is ignored)."""
    if not path.is_file():
        return []
    out = []
    for line in path.read_text(encoding="utf-8").splitlines(keepends=True):
        if not line.endswith("\n"):
            break
        try:
            out.append(json.loads(line))
        except json.JSONDecodeError:
            continue
    return out


def recorded_ids(path: Path) -> set[str]:
    """Ids (`task/condition/sK`) of cases already recorded, for resuming."""
    return {r["id"] for r in read_lines(path) if r.get("kind") == "case" and "id" in r}
