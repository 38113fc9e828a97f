"""The text probes on every task: file continuation, similarity, model-proposed names.

The model is `--alias-model` when given, else `scripted` (offline: it recalls the tasks'
original files; see alias_fixtures/models/scripted.py). Each test attaches its rows to its report and
the controller writes them to `<alias-out>/probes/<kind>.jsonl` for `alias-bench report
--probe`. With the scripted model the numbers are known and asserted exactly; with any other
model the rows' contents are checked for consistency and range.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from alias_fixtures.grading.extract import extract_module
from alias_fixtures.models.propose_names import proposal_row, propose_names, targets, write_name_map
from alias_fixtures.models.registry import GenerationParams, GenerationRequest, ModelAdapter
from alias_fixtures.plugin.options import PROBE_DEFAULT_MODEL, Settings
from alias_fixtures.probes.continuation import continuation_row
from alias_fixtures.tasks.prompts import render_prompt
from alias_fixtures.tasks.task import Task
from alias_fixtures.tasks.variants import build_variant, make_variant
from tlc_harness.source.rename import validate_map
from tlc_harness.source.stdlib import is_tla_identifier

pytestmark = pytest.mark.probe

VERIFY_TASKS = ("bank_transfer", "hour_clock", "two_phase_commit")
"""Tasks whose proposed map is also verified (SANY and TLC, about a second each)."""
Publish = Callable[[dict[str, Any]], None]


def _scripted(spec: str) -> bool:
    return spec == PROBE_DEFAULT_MODEL


def test_continuation(probe_task: Task, probe_spec: str, probe_adapter: ModelAdapter,
                      probe_settings: Settings, publish_row: Publish) -> None:
    params = GenerationParams(temperature=0.0, top_p=1.0, max_tokens=probe_settings.max_tokens)
    row = continuation_row(probe_task, probe_adapter, seed=probe_settings.seed, params=params,
                           model_name=probe_spec)
    publish_row(row.to_json())
    assert row.note is None, row.note
    assert row.longest_run_original is not None and row.longest_run_renamed is not None
    assert 0 < row.remainder_tokens
    assert 0 <= row.longest_run_original <= row.remainder_tokens
    assert row.fraction_original == row.longest_run_original / row.remainder_tokens
    assert row.fraction_renamed is not None and 0 <= row.fraction_renamed <= 1
    if _scripted(probe_spec):
        assert row.fraction_original == 1.0  # it recalls every published file verbatim
        # its recollection of the renamed copy matches only between renamed names
        assert row.longest_run_renamed < row.longest_run_original / 4


def test_similarity(probe_task: Task, probe_spec: str, probe_adapter: ModelAdapter,
                    probe_settings: Settings, publish_row: Publish) -> None:
    """Sample 0 of each condition (the benchmark's case records carry every sample)."""
    pytest.importorskip("rouge_score", reason="the similarity probe needs the probes extra")
    pytest.importorskip("sacrebleu", reason="the similarity probe needs the probes extra")
    from reports.similarity import similarity, similarity_row

    s = probe_settings
    params = GenerationParams(temperature=s.temperature, top_p=s.top_p, max_tokens=s.max_tokens)
    found: dict[str, dict[str, float] | None] = {}
    for condition in s.conditions:
        variant = make_variant(probe_task, condition, seed=s.seed, maps_dir=s.maps or None)
        reference = variant.modules[f"{variant.main_module}.tla"]
        request = GenerationRequest(probe_task.id, condition, 0, render_prompt(variant.description),
                                    params=params,
                                    reference=reference if probe_spec == "reference" else None)
        module = extract_module(probe_adapter.generate(request).text)
        found[condition] = None if module.text is None else similarity(module.text, reference)
        publish_row(similarity_row(probe_spec, probe_task.id, condition, 0, found[condition]))
    for values in found.values():
        if values is not None:
            assert all(0.0 <= values[m] <= 1.0 for m in ("rouge_l", "bleu"))
            assert values["output_tokens"] > 0 and values["reference_tokens"] > 0
    if _scripted(probe_spec):
        original = found["original"]
        assert original is not None and original["rouge_l"] == original["bleu"] == 1.0
        for condition in set(found) - {"original"}:
            renamed = found[condition]
            assert renamed is not None and renamed["rouge_l"] < 1.0 and renamed["bleu"] < 1.0


@pytest.mark.tlc
def test_propose_names(probe_task: Task, probe_spec: str, probe_adapter: ModelAdapter,
                       probe_out: Path, publish_row: Publish,
                       request: pytest.FixtureRequest) -> None:
    proposal = propose_names(probe_task, probe_adapter)
    maps = probe_out / "maps"
    write_name_map(proposal, maps, overwrite=True)
    verified = reason = None
    if probe_task.id in VERIFY_TASKS:
        harness = request.getfixturevalue("bench_harness")
        check = build_variant(harness, probe_task, "meaningful", maps_dir=maps)[1]
        verified, reason = check.verified, check.reason
    publish_row(proposal_row(probe_spec, probe_task, proposal, verified=verified, reason=reason))
    wanted = set(targets(probe_task))
    assert set(proposal.mapping) <= wanted
    assert wanted == set(proposal.mapping) | (set(proposal.dropped) & wanted) \
        | set(proposal.unproposed)
    assert all(is_tla_identifier(new) and new != old for old, new in proposal.mapping.items())
    assert validate_map(probe_task.modules, proposal.mapping, probe_task.cfg_text,
                        allow_length_change=True) == []
    assert verified is not False, reason
    if _scripted(probe_spec):
        assert proposal.mapping and not proposal.unproposed
        assert all(new.startswith(old) for old, new in proposal.mapping.items())
        assert all("layout" in why for why in proposal.dropped.values())
