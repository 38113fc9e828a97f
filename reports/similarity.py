"""Text similarity of an output module to its reference: ROUGE-L (F1) and BLEU over TLA+ tokens.

A memorised specification shows up as text close to the published one. Both texts are split by
:func:`tlc_harness.source.tokens.tla_tokens` (identifiers, numbers, strings, operators and
punctuation; whitespace dropped, case kept) with comments left out, so the numbers compare the
specification itself, not the prose around it (a PlusCal algorithm, which lives in a comment,
counts as code). Each condition is compared with its own reference (the renamed one for a
renamed condition).

- ROUGE-L: longest common subsequence of the token lists, computed by ``rouge-score``
  (precision = LCS / output tokens, recall = LCS / reference tokens, F1). Its table is quadratic
  in time and memory, so above :data:`ROUGE_CELL_LIMIT` token pairs the same LCS length comes from
  a bit-parallel algorithm (Hyyrö 2004) that the tests check against ``rouge-score``.
- BLEU: ``sacrebleu`` sentence BLEU on the same tokens (``tokenize="none"``, effective order,
  default ``exp`` smoothing), scaled to 0..1.

Two empty texts are identical (1.0); an empty text against a non-empty one scores 0.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from functools import cache
from statistics import fmean
from typing import TYPE_CHECKING, Any

import pandas as pd

from reports.schema import PROBE_ROW_SCHEMA_VERSION as SCHEMA_VERSION
from tlc_harness.source.tokens import tla_tokens

if TYPE_CHECKING:  # rouge-score and sacrebleu (the `probes` extra) load on first measurement
    from rouge_score import scoring
    from sacrebleu.metrics.bleu import BLEU

ROUGE_CELL_LIMIT = 4_000_000
"""Above this many (output token, reference token) pairs ROUGE-L uses the bit-parallel LCS."""
METRICS = ("rouge_l", "bleu")
TABLE_COLUMNS = ("model", "condition", "tasks", "cases", "missing", "rouge_l", "bleu")
KIND = "similarity"
_SEP = " "


class _Presplit:
    """A rouge-score tokenizer (it needs only `tokenize`) for tokens joined by single spaces."""

    def tokenize(self, text: str) -> list[str]:
        return text.split(_SEP) if text else []


@cache
def _rouge() -> Any:
    """The ROUGE-L scorer; imported on first use (rouge_scorer loads nltk, ~2 s)."""
    from rouge_score import rouge_scorer

    return rouge_scorer.RougeScorer(["rougeL"], tokenizer=_Presplit())


@cache
def _bleu() -> BLEU:
    from sacrebleu.metrics.bleu import BLEU

    return BLEU(tokenize="none", effective_order=True)


def lcs_length(a: Sequence[str], b: Sequence[str]) -> int:
    """Length of the longest common subsequence (bit-parallel; O(len(b) * len(a) / 64))."""
    if not a or not b:
        return 0
    masks: dict[str, int] = defaultdict(int)
    for i, item in enumerate(a):
        masks[item] |= 1 << i
    full = (1 << len(a)) - 1
    v = full
    for item in b:
        u = v & masks.get(item, 0)
        v = ((v + u) | (v - u)) & full
    return len(a) - v.bit_count()


def rouge_l(output_tokens: Sequence[str], reference_tokens: Sequence[str]) -> scoring.Score:
    """ROUGE-L precision, recall and F1 of `output_tokens` against `reference_tokens`."""
    from rouge_score import scoring

    if len(output_tokens) * len(reference_tokens) <= ROUGE_CELL_LIMIT:
        score: scoring.Score = _rouge().score(_SEP.join(reference_tokens),
                                              _SEP.join(output_tokens))["rougeL"]
        return score
    lcs = lcs_length(reference_tokens, output_tokens)
    precision, recall = lcs / len(output_tokens), lcs / len(reference_tokens)
    return scoring.Score(precision, recall, scoring.fmeasure(precision, recall))


def bleu(output_tokens: Sequence[str], reference_tokens: Sequence[str]) -> float:
    """Sentence BLEU of the output against the one reference, in 0..1."""
    result = _bleu().sentence_score(_SEP.join(output_tokens), [_SEP.join(reference_tokens)])
    return min(1.0, max(0.0, result.score / 100.0))


def similarity(output: str, reference: str) -> dict[str, float]:
    """ROUGE-L (F1, precision, recall) and BLEU of `output` against `reference`, with token counts.

    Keys: ``rouge_l``, ``rouge_l_precision``, ``rouge_l_recall``, ``bleu`` (each 0..1, rounded
    to 6 places), ``output_tokens``, ``reference_tokens``.
    """
    out = tla_tokens(output, comments=False)
    ref = tla_tokens(reference, comments=False)
    counts = {"output_tokens": float(len(out)), "reference_tokens": float(len(ref))}
    if not out or not ref:
        same = 1.0 if not out and not ref else 0.0
        return {"rouge_l": same, "rouge_l_precision": same, "rouge_l_recall": same,
                "bleu": same, **counts}
    score = rouge_l(out, ref)
    return {"rouge_l": round(score.fmeasure, 6), "rouge_l_precision": round(score.precision, 6),
            "rouge_l_recall": round(score.recall, 6), "bleu": round(bleu(out, ref), 6), **counts}


def similarity_row(model: str, task: str, condition: str, sample: int,
                   values: Mapping[str, float] | None) -> dict[str, Any]:
    """One JSONL row of the similarity probe (``kind: "similarity"``; ``None``: no module)."""
    return {"schema_version": SCHEMA_VERSION, "kind": KIND, "model": model, "task": task,
            "condition": condition, "sample": sample,
            "similarity": None if values is None else dict(values)}


def similarity_table(rows: Iterable[Mapping[str, Any]]) -> pd.DataFrame:
    """Mean ROUGE-L F1 and BLEU per (model, condition) over case records or similarity rows.

    A row is a case record (``kind`` ``case`` or absent) or a probe row (``kind``
    ``similarity``, see :func:`similarity_row`) with ``task``, ``condition``, optional
    ``model`` and a ``similarity`` object as :func:`similarity` returns. Samples of a task are
    averaged first, then tasks (each task weighs the same, as in every ALIAS statistic). A case
    without ``similarity`` (an infrastructure error, or no module to compare) is counted in
    ``missing`` and not averaged. Columns: :data:`TABLE_COLUMNS`.
    """
    per_task: dict[tuple[str, str], dict[str, list[Mapping[str, Any]]]] = defaultdict(
        lambda: defaultdict(list))
    cases: dict[tuple[str, str], int] = defaultdict(int)
    missing: dict[tuple[str, str], int] = defaultdict(int)
    for row in rows:
        if row.get("kind", "case") not in ("case", KIND):
            continue
        key = (str(row.get("model", "")), str(row["condition"]))
        cases[key] += 1
        sim = row.get("similarity")
        if isinstance(sim, Mapping) and all(isinstance(sim.get(m), (int, float)) for m in METRICS):
            per_task[key][str(row["task"])].append(sim)
        else:
            missing[key] += 1
    order = {"original": 0, "random": 1, "meaningful": 2}
    table: list[dict[str, Any]] = []
    for key in sorted(cases, key=lambda k: (k[0], order.get(k[1], 3), k[1])):
        tasks = per_task.get(key, {})
        means = {m: [fmean(float(s[m]) for s in sims) for sims in tasks.values()]
                 for m in METRICS}
        table.append({"model": key[0], "condition": key[1], "tasks": len(tasks),
                      "cases": cases[key], "missing": missing[key],
                      **{m: fmean(v) if v else float("nan") for m, v in means.items()}})
    return pd.DataFrame(table, columns=list(TABLE_COLUMNS))


def format_similarity_table(frame: pd.DataFrame) -> str:
    """The table as aligned text (three decimals)."""
    if frame.empty:
        return "no case records"
    text: str = frame.to_string(index=False, float_format=lambda x: f"{x:.3f}")
    return text
