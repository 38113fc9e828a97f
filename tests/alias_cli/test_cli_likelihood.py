"""`alias-bench probe likelihood` end to end on a tiny model built by the test (offline, CPU)."""

from __future__ import annotations

from pathlib import Path

import pytest

from alias_cli.main import main
from alias_fixtures.tasks.task import builtin_tasks
from alias_fixtures.tasks.variants import make_variant
from benchmarks.test_probes import TASK_IDS, build_tiny_model

pytestmark = pytest.mark.probe


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    by_id = {t.id: t for t in builtin_tasks()}
    texts: list[str] = []
    for task_id in TASK_IDS:
        for condition in ("original", "random"):
            variant = make_variant(by_id[task_id], condition, seed="0")
            texts += [variant.description or "", *variant.modules.values()]
    folder = tmp_path_factory.mktemp("tiny-model")
    build_tiny_model(folder, texts)
    return folder


def test_probe_likelihood_command(tiny_model: Path, tmp_path: Path,
                                  capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "rows.jsonl"
    code = main(["probe", "likelihood", "--model-dir", str(tiny_model), "--task", "hour_clock",
                 "--task", "alternating_bit", "--max-tokens", "1000", "--out", str(out)])
    printed = capsys.readouterr().out
    assert code == 0, printed
    assert "hour_clock" in printed and "original − random" in printed
    assert len(out.read_text(encoding="utf-8").splitlines()) == 4
