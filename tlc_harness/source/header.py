"""A module's header line, `---- MODULE Name ----`, read without parsing the module (light:
the tools layer uses it on every run)."""

from __future__ import annotations

import re

MODULE_HEADER = re.compile(r"-{4,}\s*MODULE\s+([A-Za-z0-9_]+)\s*-{4,}")
"""A module's header line; group 1 is the name."""


def header_module(source: str) -> re.Match[str] | None:
    """The first `---- MODULE Name ----` header of `source` (group 1: the name), if any."""
    return MODULE_HEADER.search(source)
