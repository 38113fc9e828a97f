"""Read errors and warnings out of SANY's plain-text report.

SANY prints its findings outside TLC's coded messages, in sections headed `*** Errors: N`,
`*** Warnings: N` and `*** Abort messages: N`, plus `***Parse Error***` blocks. SANY exits 0
after semantic errors, so these sections decide the parse verdict together with the exit code.
"""

from __future__ import annotations

import re

_SECTION = re.compile(r"^\*\*\* (Errors|Warnings|Abort messages): (\d+)\s*$", re.M)
_PARSE_ERROR = re.compile(r"^\*\*\*Parse Error\*\*\*\s*$", re.M)
_ENTRY_START = re.compile(r"^(line \d+, col \d+ to line \d+, col \d+ of module \S+|Unknown location"
                          r"|In module \S+)\s*$")
_STOP = re.compile(r"^(\*\*\*|Semantic processing of module|Parsing file|Fatal errors|"
                   r"Residual stack trace|Linting of module|tla2sany\.)")


def _entries(block: str) -> list[str]:
    entries: list[list[str]] = []
    for line in block.splitlines():
        if _STOP.match(line):
            break
        if _ENTRY_START.match(line.strip()) or not entries:
            entries.append([line.strip()])
        elif line.strip():
            entries[-1].append(line.strip())
    return [" ".join(e).strip() for e in entries if any(x for x in e)]


def read_sany_report(text: str) -> tuple[list[str], list[str]]:
    """(errors, warnings) found in SANY's output; aborts and parse errors count as errors."""
    errors: list[str] = []
    warnings: list[str] = []
    for match in _SECTION.finditer(text):
        found = _entries(text[match.end() + 1 :])
        count = int(match.group(2))
        if match.group(1) == "Warnings":
            warnings.extend(found[:count] if count else found)
        elif count:
            errors.extend(found[:count] or [f"{match.group(1)}: {count}"])
    for match in _PARSE_ERROR.finditer(text):
        block = text[match.end() :].split("Residual stack trace", 1)[0]
        block = block.split("Fatal errors", 1)[0]
        errors.insert(0, "Parse error: " + " ".join(block.split()))
    missing = re.findall(r"^Cannot find source file for module (\S+?)\.? imported", text, re.M)
    for name in missing:
        note = f"missing module {name}"
        if note not in errors:
            errors.append(note)
    return errors, warnings
