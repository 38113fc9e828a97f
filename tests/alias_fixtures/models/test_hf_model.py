"""The `hf:` model adapter: spec parsing, seeded generation, finish reasons, and a short
benchmark run through it (a pytest subprocess on one built-in task). The model is a tiny
GPT-2 the test builds, with a one-step LoRA adapter; skipped without torch, transformers,
tokenizers or peft (the spec tests run without them).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from alias_fixtures.models.hf import DEFAULT_MAX_NEW_TOKENS, case_seed, parse_hf_spec
from alias_fixtures.models.registry import GenerationParams, GenerationRequest, ModelError, make_model
from alias_fixtures.tasks.prompts import render_prompt
from alias_fixtures.tasks.task import Task, builtin_tasks
from tests.conftest import ROOT

TASK_ID = "hour_clock"


# -- specs (no torch needed) ----------------------------------------------------------------

def test_spec_parts(tmp_path: Path) -> None:
    (tmp_path / "base").mkdir()
    (tmp_path / "ad").mkdir()
    spec = parse_hf_spec(f"{tmp_path / 'base'}+{tmp_path / 'ad'}?device=cpu&max_new_tokens=7")
    assert (spec.base, spec.adapter) == (tmp_path / "base", tmp_path / "ad")
    assert (spec.device, spec.dtype, spec.max_new_tokens) == ("cpu", "auto", 7)
    plain = parse_hf_spec(str(tmp_path / "base"))
    assert plain.adapter is None and plain.max_new_tokens == DEFAULT_MAX_NEW_TOKENS == 1024


@pytest.mark.parametrize(("arg", "message"), [
    ("", "name a local model folder"),
    ("{base}?temperature=1", "bad option"),
    ("{base}?max_new_tokens=0", "positive integer"),
    ("{base}/absent", "does not exist"),
    ("{base}+{base}/absent", "adapter folder"),
])
def test_bad_specs(arg: str, message: str, tmp_path: Path) -> None:
    with pytest.raises(ModelError, match=message):
        make_model("hf:" + arg.format(base=tmp_path))


def test_case_seeds_differ_by_case_and_repeat() -> None:
    params = GenerationParams(seed=None)
    first = GenerationRequest("t", "original", 0, "p")
    assert case_seed(params, first) == case_seed(params, GenerationRequest("t", "original", 0,
                                                                           "other prompt"))
    assert case_seed(params, first) != case_seed(params, GenerationRequest("t", "random", 0, "p"))
    assert case_seed(params, first) != case_seed(GenerationParams(seed=1), first)


# -- a tiny model ---------------------------------------------------------------------------

@pytest.fixture(scope="module")
def task() -> Task:
    return next(t for t in builtin_tasks() if t.id == TASK_ID)


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory, task: Task) -> Iterator[dict[str, Path]]:
    for name in ("torch", "transformers", "tokenizers", "peft"):
        pytest.importorskip(name, reason=f"the hf adapter's tests need {name}")
    import torch

    from alias_fixtures.training import LoraSettings, TrainSettings, finetune
    from alias_fixtures.training.data import write_split
    from alias_fixtures.training.tiny import build_tiny_model, task_texts

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    base = build_tiny_model(tmp_path_factory.mktemp("tiny"), task_texts([task]), init_range=0.1)
    split = write_split({task.id: task}, ((task.id,), ()), 0, tmp_path_factory.mktemp("split"))
    result = finetune(base, split["A"], tmp_path_factory.mktemp("ft"), progress=False,
                      settings=TrainSettings(epochs=1, device="cpu", learning_rate=1e-2,
                                             lora=LoraSettings(rank=4)))
    yield {"base": base, "adapter": result.adapter}
    torch.set_num_threads(threads)


def request(task: Task, sample: int = 0, **params: Any) -> GenerationRequest:
    return GenerationRequest(task.id, "original", sample, render_prompt(task.description),
                             params=GenerationParams(**params))


def test_generation_is_seeded_per_case(tiny: dict[str, Path], task: Task) -> None:
    model = make_model(f"hf:{tiny['base']}+{tiny['adapter']}?device=cpu&max_new_tokens=24")
    assert model.provider == "hf" and model.model_id.endswith(f"+{tiny['adapter']}")
    first = model.generate(request(task, 0))
    again = model.generate(request(task, 0))
    assert (again.text, again.output_tokens) == (first.text, first.output_tokens)
    others = {model.generate(request(task, s)).text for s in (1, 2, 3)}
    assert len(others | {first.text}) > 1
    assert first.input_tokens is not None and first.input_tokens > 100


def test_finish_reason_and_truncation(tiny: dict[str, Path], task: Task) -> None:
    model = make_model(f"hf:{tiny['base']}?device=cpu")
    cut = model.generate(request(task, 0, temperature=0.0, max_tokens=5))
    assert (cut.finish_reason, cut.truncated, cut.output_tokens) == ("length", True, 5)
    assert cut.to_json()["truncated"] is True
    spec_cap = make_model(f"hf:{tiny['base']}?device=cpu&max_new_tokens=3")
    assert spec_cap.generate(request(task, 0, temperature=0.0)).output_tokens == 3
    # a model that ends at once: every position's final state points at the end token
    import torch

    from alias_fixtures.models.hf import HFModel

    assert isinstance(model, HFModel)
    gpt = model.model
    eos = model.tokenizer.eos_token_id
    with torch.no_grad():
        gpt.transformer.ln_f.weight.zero_()
        gpt.transformer.ln_f.bias.fill_(1.0)
        gpt.lm_head.weight[eos] = 10.0
    stopped = model.generate(request(task, 0))
    assert (stopped.finish_reason, stopped.truncated) == ("stop", False)
    assert stopped.output_tokens == 1 and stopped.text == ""


def test_the_benchmark_runs_through_the_adapter(tiny: dict[str, Path], tmp_path: Path) -> None:
    spec = f"hf:{tiny['base']}+{tiny['adapter']}?device=cpu&max_new_tokens=32"
    out = tmp_path / "run"
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "benchmarks/test_cases.py", "-q", "-p",
         "no:cacheprovider", "--alias-model", spec, "--alias-samples", "1", "--alias-out",
         str(out), "--alias-exposure-half", "A", "-k", TASK_ID],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600, check=False)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    lines = [json.loads(x) for x in (out / "results.jsonl").read_text().splitlines()]
    header, cases = lines[0], lines[1:]
    assert header["kind"] == "header" and header["provider"] == "hf"
    assert header["exposure_half"] == "A" and header["model"] == spec
    assert sorted(c["condition"] for c in cases) == ["original", "random"]
    for case in cases:
        assert case["model"] == spec and case["infra_error"] is None
        generation = case["generation"]
        assert generation["finish_reason"] in ("stop", "length")
        assert generation["truncated"] == (generation["finish_reason"] == "length")
        assert 0 < generation["output_tokens"] <= 32
        assert Path(case["output_path"]).is_file()
        assert case["grades"]["parse"]["passed"] is False  # a random tiny model writes no TLA+
