"""Training examples: the split's halves (train_A.jsonl / train_B.jsonl) and a background set.

A split file holds one JSON object per task, ``{"task", "half", "description", "reference"}``
(as `alias-bench split` writes it, see :func:`write_split`). A background set, which both halves
share, is a JSONL file of the same shape, or of ``{"text": ...}`` rows (raw text).

Two arms:

- ``task-pair``: the benchmark's prompt for the description (user turn) and the reference in a
  ``tla`` fence (assistant turn); the loss covers the answer tokens only;
- ``spec-only``: the raw module text alone (the reference, or a background row's text); the
  loss covers every token.

Token sequences are cut at ``max_tokens`` (2,048 by default); an example whose prompt alone
fills the limit has no answer token left and is dropped (counted in :class:`EncodedSet`).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from alias_fixtures.models.chat import (
    answer_text,
    completion_text,
    encode_continuation,
    encode_prompt,
    prompt_text,
)
from alias_fixtures.tasks.prompts import render_prompt
from alias_fixtures.tasks.task import Task

ARMS = ("task-pair", "spec-only")
DEFAULT_MAX_TOKENS = 2048
IGNORE = -100
"""Label of a token the loss leaves out (torch's cross-entropy ``ignore_index``)."""


class TrainingDataError(ValueError):
    """A split or background file is missing or malformed; the message names file and line."""


@dataclass(frozen=True)
class Example:
    """One training text: ``prompt`` (not learned; empty for raw text) and ``target``."""

    source: str
    description: str | None
    target: str

    @property
    def raw(self) -> bool:
        """A raw text (no description): learned whole, in either arm."""
        return self.description is None


@dataclass(frozen=True)
class Encoded:
    """Token ids and labels (``IGNORE`` where no loss is taken) of one example."""

    source: str
    input_ids: tuple[int, ...]
    labels: tuple[int, ...]
    truncated: bool


@dataclass(frozen=True)
class EncodedSet:
    """The encoded examples, and what cutting at the limit did to them."""

    examples: tuple[Encoded, ...]
    truncated: int
    dropped: tuple[str, ...]

    @property
    def tokens(self) -> int:
        return sum(len(e.input_ids) for e in self.examples)


def read_examples(path: str | Path) -> list[Example]:
    """The examples of a split file or a background set."""
    file = Path(path)
    if not file.is_file():
        raise TrainingDataError(f"{file}: no such training file")
    out: list[Example] = []
    for number, line in enumerate(file.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        where = f"{file}:{number}"
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise TrainingDataError(f"{where}: not JSON ({exc.msg})") from exc
        out.append(_example(row, where))
    if not out:
        raise TrainingDataError(f"{file}: no training examples")
    return out


def _example(row: Any, where: str) -> Example:
    if not isinstance(row, Mapping):
        raise TrainingDataError(f"{where}: a training row must be a JSON object")
    source = str(row.get("task") or row.get("id") or where)
    if isinstance(row.get("reference"), str):
        description = row.get("description")
        if description is not None and not isinstance(description, str):
            raise TrainingDataError(f"{where}: 'description' must be a string")
        return Example(source, description or None, row["reference"])
    if isinstance(row.get("text"), str):
        return Example(source, None, row["text"])
    raise TrainingDataError(f"{where}: a training row needs 'reference' (with 'description') "
                            f"or 'text'")


def encode(tokenizer: Any, example: Example, arm: str, max_tokens: int) -> Encoded | None:
    """Token ids and labels of one example in one arm; ``None`` when nothing is left to learn."""
    if arm not in ARMS:
        raise TrainingDataError(f"unknown arm {arm!r} (one of {', '.join(ARMS)})")
    if arm == "spec-only" or example.raw:
        ids = encode_continuation(tokenizer, example.target)
        prompt_ids: list[int] = []
    else:
        prompt = render_prompt(example.description)
        prompt_ids = encode_prompt(tokenizer, prompt_text(tokenizer, prompt))
        ids = prompt_ids + encode_continuation(
            tokenizer, completion_text(tokenizer, prompt, answer_text(example.target)))
    truncated = len(ids) > max_tokens
    ids = ids[:max_tokens]
    labels = [IGNORE] * min(len(prompt_ids), len(ids)) + ids[len(prompt_ids):]
    if sum(label != IGNORE for label in labels[1:]) == 0:
        return None
    return Encoded(example.source, tuple(ids), tuple(labels), truncated)


def encode_all(tokenizer: Any, examples: Iterable[Example], arm: str, max_tokens: int
               ) -> EncodedSet:
    """Every example encoded; those with no answer token within the limit are dropped."""
    kept: list[Encoded] = []
    dropped: list[str] = []
    for example in examples:
        encoded = encode(tokenizer, example, arm, max_tokens)
        if encoded is None:
            dropped.append(example.source)
        else:
            kept.append(encoded)
    if not kept:
        raise TrainingDataError(f"no example keeps an answer token within {max_tokens} tokens")
    return EncodedSet(tuple(kept), sum(e.truncated for e in kept), tuple(dropped))


def file_sha256(path: str | Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


# -- the split's files ----------------------------------------------------------------------

def split_rows(tasks: Mapping[str, Task], half: Sequence[str], name: str) -> list[dict[str, Any]]:
    """The training rows of one half: description -> reference (the original main module)."""
    return [{"task": task_id, "half": name, "description": tasks[task_id].description,
             "reference": tasks[task_id].modules[tasks[task_id].main_file]}
            for task_id in half]


def write_split(tasks: Mapping[str, Task], halves: tuple[Sequence[str], Sequence[str]],
                seed: int, out: str | Path) -> dict[str, Path]:
    """Write ``split.json``, ``train_A.jsonl`` and ``train_B.jsonl`` into ``out``.

    Raises :class:`TrainingDataError` when a task has no description (it cannot be a pair).
    """
    missing = sorted(t for t in (*halves[0], *halves[1]) if not tasks[t].description)
    if missing:
        raise TrainingDataError(f"{len(missing)} task(s) have no description, so they cannot "
                                f"be training pairs: {', '.join(missing[:10])}")
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    paths = {"split": folder / "split.json"}
    paths["split"].write_text(json.dumps({"seed": seed, "A": list(halves[0]),
                                          "B": list(halves[1])}, indent=1) + "\n")
    for name, half in zip("AB", halves, strict=True):
        path = paths[name] = folder / f"train_{name}.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in split_rows(tasks, half, name)),
                        encoding="utf-8")
    return paths
