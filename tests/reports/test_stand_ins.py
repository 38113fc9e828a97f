"""Reports and summaries of the demo data, the scripted double or the reference model say so."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reports.render import write_report
from reports.stand_ins import stand_in, stand_in_note
from reports.summary import summary_lines
from tests.reports.test_render import FAST, write_run


@pytest.mark.parametrize(("model", "kind"), [("demo", "demo"), ("scripted", "scripted"),
                                             ("scripted:canned.json", "scripted"),
                                             ("reference", "reference")])
def test_stand_in_models_are_named(model: str, kind: str) -> None:
    assert stand_in(model)
    note = stand_in_note([model, "anthropic:claude-opus-4-8"])
    assert note is not None and model in note and "anthropic" not in note


@pytest.mark.parametrize("model", ["anthropic:claude-opus-4-8", "openai:gpt-5", "replay:x.jsonl",
                                   "hf:/models/base", "demonstration"])
def test_real_models_get_no_note(model: str) -> None:
    assert stand_in(model) is None and stand_in_note([model]) is None


@pytest.mark.parametrize("model", ["demo", "mock-a"])
def test_html_banner_and_summary_line(model: str, tmp_path: Path) -> None:
    results = write_run(tmp_path / "results.jsonl", model=model)
    out = tmp_path / "out"
    write_report([results], out, n_boot=FAST)
    html = (out / "index.html").read_text(encoding="utf-8")
    records = [json.loads(line) for line in results.read_text(encoding="utf-8").splitlines()]
    summary = "\n".join(summary_lines(records))
    if model == "demo":
        assert 'class="banner"' in html and "bundled demo outputs" in html
        assert "Not a language model's outputs: demo" in summary
    else:
        assert 'class="banner"' not in html and "Not a language model" not in summary
