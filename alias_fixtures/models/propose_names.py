"""Model-proposed meaningful names: a name map for the `meaningful` condition, made by a model.

The model gets the task's description and every name CIR renames (with its kind) and is asked
for a JSON object old -> new. Its reply is parsed leniently (a fenced block or prose around the
object, trailing commas, Python-style quotes) and sanitized:

- entries for names that are not renameable names of the task are dropped, and so are `Init`,
  `Next` and `Spec` (the prompt asks for them by name in every condition);
- the first letter's case is made to match the old name (constants stay upper, variables lower);
- a new name that is a keyword, a standard-module name or operator, or not an identifier is
  dropped; one that collides with an existing name or an earlier new name gets a suffix (2, 3, ...);
- what is left must pass `validate_map(..., allow_length_change=True)`.

Why the length may change: random CIR keeps lengths so that no layout can move, but meaningful
names are words, and a word of the same length is rarely the right one. SANY cares about layout
only in one place: the bullets of a multi-line `/\\` or `\\/` list must stay in one column. A new
name of another length moves a bullet only when the name stands left of it on the bullet's line
(`Tick == /\\ ...`). Such entries are dropped by default (`keep_layout`), since a map that breaks
the layout would exclude the whole task; either way the variant is verified by SANY and TLC
(`variants.build_variant`) and excluded if it fails.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from alias_fixtures.models.registry import GenerationParams, GenerationRequest, ModelAdapter
from alias_fixtures.tasks.task import Task
from alias_fixtures.tasks.variants import PROMPT_NAMES
from reports.schema import PROBE_ROW_SCHEMA_VERSION as ROW_SCHEMA_VERSION
from tlc_harness.source.cfg import KEYWORDS as CFG_KEYWORDS
from tlc_harness.source.rename import TaskNames, validate_map
from tlc_harness.source.stdlib import PLUSCAL_KEYWORDS, is_tla_identifier, reserved_new_names

PROMPT = """\
Below is the description of a TLA+ specification and the identifiers that its module defines, \
each with its kind. Propose a new, meaningful name for each identifier: a name that says what \
it stands for in this specification. Keep the case of the first letter (constants and operators \
usually start with an uppercase letter, variables with a lowercase one). Do not use any of the \
listed names, TLA+ keywords or names of the standard modules (Nat, Seq, Len, ...).

Reply with one JSON object that maps each old name to its new name, and nothing else.

Description:
{description}

Identifiers:
{names}
"""
ROW_KIND = "proposed_names"
_FENCED = re.compile(r"```[^\n]*\n(.*?)```", re.S)
_IDENTIFIER = re.compile(r"[A-Za-z0-9_]+\Z")
_JUNCTION = re.compile(rb"/\\|\\/")


@dataclass(frozen=True)
class Proposal:
    """A sanitized name map and what happened to the model's other entries."""

    task: str
    mapping: dict[str, str]
    dropped: dict[str, str] = field(default_factory=dict)  # proposed old name -> why
    fixed: dict[str, str] = field(default_factory=dict)  # old name -> what was adjusted
    unproposed: tuple[str, ...] = ()  # renameable names the model gave no new name

    def to_json(self) -> dict[str, Any]:
        return {"task": self.task, "map": self.mapping, "dropped": self.dropped,
                "fixed": self.fixed, "unproposed": list(self.unproposed)}


class ProposalError(ValueError):
    """A reply holds no JSON object of names."""


def targets(task: Task) -> dict[str, str]:
    """Name -> kind of every name to propose a new name for (renameable, not Init/Next/Spec)."""
    kinds = TaskNames.of(task.modules, task.cfg_text).renameable()
    return {name: kind for name, kind in kinds.items() if name not in PROMPT_NAMES}


def names_prompt(task: Task) -> str:
    names = "\n".join(f"- {name} ({kind})" for name, kind in targets(task).items())
    description = task.description or f"(no description; the main module is {task.main_module})"
    return PROMPT.format(description=description, names=names)


def parse_name_map(reply: str) -> dict[str, Any]:
    """The largest JSON object in `reply` (fenced blocks first), unwrapped from one outer key."""
    best: dict[str, Any] | None = None
    for piece in [*_FENCED.findall(reply), reply]:
        for found in _objects(piece):
            if len(found) == 1 and isinstance(inner := next(iter(found.values())), dict):
                found = inner
            if best is None or len(found) > len(best):
                best = found
        if best:
            return best
    if best is None:
        raise ProposalError("the reply holds no JSON object of names")
    return best


def _objects(text: str) -> list[dict[str, Any]]:
    decoder = json.JSONDecoder()
    out: list[dict[str, Any]] = []
    pos = text.find("{")
    while pos >= 0:
        end = _balanced_end(text, pos)
        chunk = text[pos:end]
        value: Any = None
        for attempt in (chunk, re.sub(r",\s*([}\]])", r"\1", chunk)):
            try:
                value = decoder.raw_decode(attempt)[0]
                break
            except json.JSONDecodeError:
                continue
        else:
            try:
                value = ast.literal_eval(chunk)
            except (ValueError, SyntaxError, MemoryError, RecursionError):
                value = None
        if isinstance(value, dict):
            out.append(value)
            pos = text.find("{", end)
        else:
            pos = text.find("{", pos + 1)
    return out


def _balanced_end(text: str, start: int) -> int:
    depth, quote, i = 0, "", start
    while i < len(text):
        ch = text[i]
        if quote:
            if ch == "\\":
                i += 1
            elif ch == quote:
                quote = ""
        elif ch in "\"'":
            quote = ch
        elif ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return len(text)


def layout_risks(modules: Mapping[str, str], names: set[str]) -> set[str]:
    """Names in `names` that stand left of the first bullet of a multi-line `/\\` `\\/` list."""
    risky: set[str] = set()
    for fname, info in TaskNames.of(modules).analyzed.items():
        lines = modules[fname].encode("utf-8").split(b"\n")
        # identifiers, and label names inside strings (`pc = "Loop"`, renamed with the label)
        spots = [(o.name, o.line, o.column) for o in info.occurrences if not o.in_pluscal]
        spots += [(s.value, s.line, s.column) for s in info.strings if not s.in_pluscal]
        for name, line_no, column in spots:
            if name not in names or name in risky:
                continue
            line = lines[line_no - 1]
            for match in _JUNCTION.finditer(line, column - 1 + len(name.encode())):
                if _continues(lines, line_no, match.start()):
                    risky.add(name)
                    break
    return risky


def _continues(lines: list[bytes], after: int, column: int) -> bool:
    """True if a later line starts a bullet in `column` before the list's indentation ends."""
    for line in lines[after:]:
        stripped = line.lstrip(b" \t")
        if not stripped or stripped.startswith((b"\\*", b"(*")):
            continue
        indent = len(line) - len(stripped)
        if indent < column:
            return False
        if indent == column and _JUNCTION.match(stripped):
            return True
    return False


def sanitize(task: Task, proposed: Mapping[str, Any], *, keep_layout: bool = True) -> Proposal:
    """Make a proposed map safe for `task` (see the module docstring); never raises."""
    names = TaskNames.of(task.modules, task.cfg_text)
    wanted = targets(task)
    reserved = (reserved_new_names(pluscal=names.has_pluscal) | CFG_KEYWORDS | PLUSCAL_KEYWORDS)
    taken = set(names.existing)
    mapping: dict[str, str] = {}
    dropped: dict[str, str] = {}
    fixed: dict[str, str] = {}
    for old, raw in proposed.items():
        old = str(old).strip()
        if old not in wanted:
            dropped[old] = ("the prompt asks for it by name" if old in PROMPT_NAMES
                            else "not a renameable name of the task")
            continue
        if not isinstance(raw, str):
            dropped[old] = f"the new name is not a string ({type(raw).__name__})"
            continue
        new = raw.strip().strip("`'\"")
        if not _IDENTIFIER.match(new) or not is_tla_identifier(new):
            dropped[old] = f"{new!r} is not a TLA+ identifier"
            continue
        if old[0].isalpha() and new[0].isalpha() and old[0].isupper() != new[0].isupper():
            new = (new[0].upper() if old[0].isupper() else new[0].lower()) + new[1:]
            fixed[old] = f"first letter's case: {raw.strip()!r} -> {new!r}"
        if new == old:
            dropped[old] = "the proposed name is the old one"
            continue
        if new in reserved or not is_tla_identifier(new):
            dropped[old] = f"{new!r} is a keyword or a standard name"
            continue
        if new in taken:
            base, suffix = new, 2
            while f"{base}{suffix}" in taken or f"{base}{suffix}" in reserved:
                suffix += 1
            new = f"{base}{suffix}"
            note = f"{base!r} is taken; suffixed to {new!r}"
            fixed[old] = f"{fixed[old]}; {note}" if old in fixed else note
        taken.add(new)
        mapping[old] = new
    if keep_layout:
        longer = {old for old, new in mapping.items() if len(new) != len(old)}
        for old in sorted(layout_risks(task.modules, longer)):
            dropped[old] = (f"{old!r} -> {mapping.pop(old)!r} changes the length of a name left "
                            "of a multi-line /\\ or \\/ list (SANY's layout would break)")
            fixed.pop(old, None)
    while problems := validate_map(task.modules, mapping, task.cfg_text,
                                   allow_length_change=True, names=names):
        culprits = [old for old, new in mapping.items()
                    if any(repr(old) in p or repr(new) in p for p in problems)]
        for old in culprits or list(mapping):
            dropped[old] = "; ".join(p for p in problems if repr(old) in p) or problems[0]
            mapping.pop(old)
            fixed.pop(old, None)
    unproposed = tuple(n for n in wanted if n not in mapping and n not in dropped)
    return Proposal(task.id, mapping, dropped, fixed, unproposed)


def propose_names(task: Task, model: ModelAdapter, *, params: GenerationParams | None = None,
                  sample: int = 0, keep_layout: bool = True) -> Proposal:
    """Ask `model` for meaningful names for `task` and sanitize them (ModelError propagates)."""
    request = GenerationRequest(task.id, "propose-names", sample, names_prompt(task),
                                params=params or GenerationParams(temperature=0.0, top_p=1.0))
    reply = model.generate(request).text
    return sanitize(task, parse_name_map(reply), keep_layout=keep_layout)


def write_name_map(proposal: Proposal, out_dir: str | Path, *, overwrite: bool = False) -> Path:
    """Write `<out_dir>/<task>.json` (the map only: the format `variants.load_name_map` reads)."""
    path = Path(out_dir) / f"{proposal.task}.json"
    if path.exists() and not overwrite:
        raise FileExistsError(f"{path} exists (overwrite it deliberately)")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(proposal.mapping, indent=1, sort_keys=True) + "\n",
                    encoding="utf-8")
    return path


def proposal_row(model: str, task: Task, proposal: Proposal | None, *,
                 verified: bool | None = None, reason: str | None = None,
                 error: str | None = None) -> dict[str, Any]:
    """One JSONL row for the report (``kind: "proposed_names"``): counts, the map, the outcome.

    ``proposal`` is None when the model gave no usable reply (``error`` says why);
    ``verified`` is None when the meaningful variant was not checked.
    """
    return {"schema_version": ROW_SCHEMA_VERSION, "kind": ROW_KIND, "model": model,
            "task": task.id, "targets": len(targets(task)),
            "kept": len(proposal.mapping) if proposal else 0,
            "dropped": len(proposal.dropped) if proposal else 0,
            "fixed": len(proposal.fixed) if proposal else 0,
            "unproposed": len(proposal.unproposed) if proposal else 0,
            "map": dict(proposal.mapping) if proposal else {},
            "why_dropped": dict(proposal.dropped) if proposal else {},
            "verified": verified, "reason": reason, "error": error}
