"""The likelihood probe: mean token log-probability of a task's reference under a local model.

For one variant the text is ``description + "\\n\\n" + reference`` (the reference is the main
module's source); the first ``max_tokens`` tokens (2,048 in the study) are scored, and the mean
log-probability (nats per token) is taken over the tokens that hold reference characters. A
second mean leaves out reference tokens that overlap an occurrence of a *renamed* identifier.

Which identifiers count as renamed: the names ``S`` that the ``random`` condition renames for the
task (its rename map's keys, same seed). Under ``original`` the spans are the occurrences of
``S`` themselves; under a renamed condition with map ``m`` they are the occurrences of
``m[n]`` for ``n`` in ``S``. Both conditions thus measure the same structural tokens, and for
``random`` (same-length names) those tokens lie at the same character positions. Occurrences
come from ``tlc_harness.source.identifiers.analyze_module`` of the main module, plus PlusCal label
strings (``pc = "Lbl"``), which the renamer also renames.

Models load from a local folder only (``local_files_only=True``, ``HF_HUB_OFFLINE=1``); nothing
is downloaded. ``transformers`` and ``torch`` are optional (the ``likelihood`` extra) and are
imported only by :func:`load_model` and :func:`score`; the span logic is pure Python.
"""

from __future__ import annotations

import bisect
import json
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from alias_fixtures.models.local_weights import LocalWeightsError, load_model, position_limit
from alias_fixtures.tasks.task import Task
from alias_fixtures.tasks.variants import Variant, VariantError, make_variant
from reports.schema import PROBE_ROW_SCHEMA_VERSION as SCHEMA_VERSION
from tlc_harness.source.identifiers import analyze_module
from tlc_harness.source.rename import RenameError

KIND = "likelihood"
SEPARATOR = "\n\n"
DEFAULT_MAX_TOKENS = 2048
Span = tuple[int, int]


LikelihoodError = LocalWeightsError


@dataclass(frozen=True)
class LikelihoodScore:
    """Mean log-probabilities (nats/token) over reference tokens; ``None`` when none was scored.

    ``n_tokens``: reference tokens scored; ``n_outside``: those not overlapping a renamed
    identifier; ``n_input``: tokens fed to the model; ``truncated``: text was cut at the limit.
    """

    mean_logprob: float | None
    n_tokens: int
    mean_logprob_outside_identifiers: float | None
    n_outside: int
    n_input: int = 0
    truncated: bool = False


# -- spans (pure) ---------------------------------------------------------------------------

def byte_to_char_spans(text: str, spans: Iterable[Span]) -> list[Span]:
    """Character spans of ``text`` for byte spans of its UTF-8 encoding (starts of characters)."""
    spans = list(spans)
    if text.isascii():
        return spans
    char_at = [0] * (len(text.encode("utf-8")) + 1)
    pos = 0
    for index, char in enumerate(text):
        width = len(char.encode("utf-8"))
        for k in range(width):
            char_at[pos + k] = index
        pos += width
    char_at[pos] = len(text)
    return [(char_at[start], char_at[end]) for start, end in spans]


def merge_spans(spans: Iterable[Span]) -> list[Span]:
    """Sorted, non-empty, non-overlapping spans covering the same characters."""
    out: list[Span] = []
    for start, end in sorted(s for s in spans if s[1] > s[0]):
        if out and start <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], end))
        else:
            out.append((start, end))
    return out


def identifier_spans(source: str, names: Iterable[str]) -> list[Span]:
    """Character spans in ``source`` of every occurrence of one of ``names`` (merged).

    Occurrences are identifier tokens found by ``analyze_module``, plus string literals equal
    to a PlusCal label among ``names`` (the renamer renames those strings as well).
    """
    wanted = set(names)
    info = analyze_module(source)
    raw = [(o.start, o.end) for o in info.occurrences if o.name in wanted]
    raw += [(s.start, s.end) for s in info.strings
            if s.value in wanted and s.value in info.pluscal_labels]
    return merge_spans(byte_to_char_spans(source, raw))


def condition_names(base: Iterable[str], rename_map: Mapping[str, str]) -> set[str]:
    """The names that the structural names ``base`` carry under a condition's map."""
    return {rename_map.get(name, name) for name in base}


def overlaps(span: Span, spans: Sequence[Span]) -> bool:
    """Whether ``span`` shares a character with one of the sorted, disjoint ``spans``."""
    start, end = span
    i = bisect.bisect_right(spans, start, key=lambda s: s[0]) - 1
    for j in (i, i + 1):
        if 0 <= j < len(spans) and start < spans[j][1] and spans[j][0] < end:
            return True
    return False


def select_tokens(offsets: Sequence[Span], ref_start: int, renamed: Sequence[Span]
                  ) -> tuple[list[int], list[int]]:
    """Indices of reference tokens, and of those outside every renamed span.

    ``offsets`` are character spans of the tokens in the whole text; ``renamed`` are spans in
    reference coordinates (sorted, disjoint). A token belongs to the reference when it holds
    a character at or after ``ref_start``. Token 0 (nothing predicts it) and tokens with empty
    spans (special tokens) are never scored.
    """
    shifted = [(s + ref_start, e + ref_start) for s, e in renamed]
    reference: list[int] = []
    outside: list[int] = []
    for index, (start, end) in enumerate(offsets):
        if index == 0 or end <= start or end <= ref_start:
            continue
        reference.append(index)
        if not overlaps((start, end), shifted):
            outside.append(index)
    return reference, outside


def mean_at(values: Sequence[float], indices: Sequence[int]) -> float | None:
    """Mean of ``values`` at ``indices``; ``None`` for no index."""
    if not indices:
        return None
    return math.fsum(values[i] for i in indices) / len(indices)


def join_text(description: str | None, reference: str) -> tuple[str, int]:
    """The scored text and the character offset where the reference starts."""
    prefix = f"{description}{SEPARATOR}" if description else ""
    return prefix + reference, len(prefix)


def token_logprobs(model: Any, input_ids: Sequence[int]) -> list[float]:
    """Log-probability of each token given the ones before it (``nan`` for the first)."""
    import torch

    device = next(model.parameters()).device
    ids = torch.tensor([list(input_ids)], dtype=torch.long, device=device)
    with torch.inference_mode():
        logits = model(input_ids=ids).logits[0, :-1].float()
        picked = logits.gather(1, ids[0, 1:, None])[:, 0]
        logprobs = picked - torch.logsumexp(logits, dim=-1)
    return [math.nan, *logprobs.cpu().tolist()]


def score(model: Any, tokenizer: Any, description: str | None, reference: str, *,
          max_tokens: int = DEFAULT_MAX_TOKENS, renamed_spans: Sequence[Span] = ()
          ) -> LikelihoodScore:
    """Mean log-probability of the reference tokens among the first ``max_tokens`` tokens.

    ``renamed_spans`` are character spans in ``reference`` (see :func:`identifier_spans`).
    """
    if max_tokens < 2:
        raise LikelihoodError(f"max_tokens must be at least 2, got {max_tokens}")
    text, ref_start = join_text(description, reference)
    encoding = tokenizer(text, return_offsets_mapping=True)
    ids = list(encoding["input_ids"])
    offsets = [(int(s), int(e)) for s, e in encoding["offset_mapping"]]
    truncated = len(ids) > max_tokens
    ids, offsets = ids[:max_tokens], offsets[:max_tokens]
    reference_idx, outside_idx = select_tokens(offsets, ref_start, merge_spans(renamed_spans))
    logprobs = token_logprobs(model, ids) if reference_idx else []
    return LikelihoodScore(
        mean_logprob=mean_at(logprobs, reference_idx), n_tokens=len(reference_idx),
        mean_logprob_outside_identifiers=mean_at(logprobs, outside_idx),
        n_outside=len(outside_idx), n_input=len(ids), truncated=truncated)


# -- tasks ----------------------------------------------------------------------------------

def structural_names(task: Task, seed: int | str) -> dict[str, str]:
    """The map the ``random`` condition applies to ``task`` (its keys are the names ``S``)."""
    return dict(make_variant(task, "random", seed=seed).rename_map)


def variant_reference(variant: Variant) -> str:
    """The main module's source of a variant."""
    return variant.modules[f"{variant.main_module}.tla"]


def score_variant(model: Any, tokenizer: Any, variant: Variant, base_names: Iterable[str], *,
                  max_tokens: int = DEFAULT_MAX_TOKENS) -> LikelihoodScore:
    """:func:`score` of one variant, the renamed spans being those of ``base_names``."""
    reference = variant_reference(variant)
    spans = identifier_spans(reference, condition_names(base_names, variant.rename_map))
    return score(model, tokenizer, variant.description, reference, max_tokens=max_tokens,
                 renamed_spans=spans)


def likelihood_row(model_name: str, task_id: str, condition: str, seed: int | str,
                   max_tokens: int, result: LikelihoodScore | None, error: str | None = None
                   ) -> dict[str, Any]:
    """One JSONL record of the probe (``kind: "likelihood"``)."""
    return {
        "schema_version": SCHEMA_VERSION, "kind": KIND, "model": model_name, "task": task_id,
        "condition": condition, "seed": str(seed), "max_tokens": max_tokens,
        "mean_logprob": result.mean_logprob if result else None,
        "n_tokens": result.n_tokens if result else 0,
        "mean_outside": result.mean_logprob_outside_identifiers if result else None,
        "n_outside": result.n_outside if result else 0,
        "n_input": result.n_input if result else 0,
        "truncated": result.truncated if result else False,
        "error": error,
    }


def score_loaded(model: Any, tokenizer: Any, model_name: str, tasks: Iterable[Task],
                 conditions: Sequence[str] = ("original", "random"), seed: int | str = "0", *,
                 max_tokens: int = DEFAULT_MAX_TOKENS, maps_dir: str | Path | None = None,
                 on_row: Callable[[dict[str, Any]], None] | None = None
                 ) -> list[dict[str, Any]]:
    """Rows for every task and condition with an already loaded model.

    A task that cannot be renamed gets rows with ``error`` set and no means. ``max_tokens`` is
    capped at the model's position limit (the rows record the cap used).
    """
    limit = position_limit(model)
    if limit is not None:
        max_tokens = min(max_tokens, limit)
    rows: list[dict[str, Any]] = []
    for task in tasks:
        try:
            base = structural_names(task, seed)
            variants = [make_variant(task, c, seed=seed, maps_dir=maps_dir) for c in conditions]
        except (RenameError, VariantError) as exc:
            task_rows = [likelihood_row(model_name, task.id, c, seed, max_tokens, None,
                                        f"cannot rename: {exc}") for c in conditions]
        else:
            task_rows = [likelihood_row(model_name, task.id, v.condition, seed, max_tokens,
                                        score_variant(model, tokenizer, v, base,
                                                      max_tokens=max_tokens))
                         for v in variants]
        for row in task_rows:
            rows.append(row)
            if on_row is not None:
                on_row(row)
    return rows


def score_tasks(model_dir: str | Path, tasks: Iterable[Task],
                conditions: Sequence[str] = ("original", "random"), seed: int | str = "0", *,
                max_tokens: int = DEFAULT_MAX_TOKENS, out: str | Path | None = None,
                model_name: str | None = None, maps_dir: str | Path | None = None,
                device: str = "cpu", dtype: str = "float32") -> list[dict[str, Any]]:
    """Load the model in ``model_dir`` and score every task under every condition.

    Rows are written to ``out`` (JSONL, one line per row as it is scored, file replaced) when
    given. ``model_name`` defaults to the folder's name.
    """
    model, tokenizer = load_model(model_dir, device=device, dtype=dtype)
    name = model_name or Path(model_dir).resolve().name
    if out is None:
        return score_loaded(model, tokenizer, name, tasks, conditions, seed,
                            max_tokens=max_tokens, maps_dir=maps_dir)
    path = Path(out)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as handle:
        def write(row: dict[str, Any]) -> None:
            handle.write(json.dumps(row, sort_keys=True) + "\n")
            handle.flush()

        return score_loaded(model, tokenizer, name, tasks, conditions, seed,
                            max_tokens=max_tokens, maps_dir=maps_dir, on_row=write)
