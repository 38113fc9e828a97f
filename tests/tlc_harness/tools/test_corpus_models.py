"""Every passing model of ../shared/corpus/tlaplus-examples through the harness, original cfgs.

The harness does the 2020-jar compatibility rewrite itself; verdict and distinct-state count
must match the manifest. Models measured under 5 s run by default, the rest are `slow`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import shared_corpus
from tlc_harness.tools.results import Verdict
from tlc_harness.tools.runner import Harness
from tlc_harness.tools.spec import SpecSource

FAST_SECONDS = 5.0
RANDOM_OPERATORS = ("RandomElement", "RandomSubset", "RandomSetOfSubsets")


def _models() -> list[Any]:
    corpus = shared_corpus()
    if corpus is None:
        return [pytest.param(None, marks=pytest.mark.skip(reason="../shared/corpus is absent"),
                             id="no-corpus")]
    manifest = json.loads((corpus / "tlaplus-examples" / "manifest.json").read_text())
    out = []
    for entry in manifest:
        if not entry["passes"]:
            continue
        marks = [pytest.mark.slow] if entry["seconds"] > FAST_SECONDS else []
        out.append(pytest.param(entry, marks=marks, id=f"{entry['spec_dir']}/{entry['module']}"))
    return out


def stage(examples: Path, entry: dict[str, Any]) -> SpecSource:
    folder = examples / entry["spec_dir"]
    main = Path(entry["module"]).stem
    files = {p.name: p.read_text() for p in folder.glob("*.tla")}
    return SpecSource(main, files)


@pytest.mark.parametrize("entry", _models())
def test_corpus_model_reproduces_manifest(harness: Harness, corpus: Path,
                                          entry: dict[str, Any]) -> None:
    examples = corpus / "tlaplus-examples" / "examples"
    spec = stage(examples, entry)
    cfg = examples / entry["spec_dir"] / entry["cfg"]
    result = harness.check(spec, cfg, timeout=300)
    assert result.verdict is Verdict.OK, (result.detail, result.output[-1500:])
    if any(op in text for text in spec.files.values() for op in RANDOM_OPERATORS):
        return  # the manifest's count is one random draw (TLC's random operators)
    assert result.distinct_states == entry["distinct_states"]
    assert result.generated_states == entry["generated_states"]
    assert tuple(entry["tlc_args"]) == tuple(a for a in result.tlc_args if a == "-deadlock")
