"""The corpus outputs as pytest cases, for `study_scale.py --runner xdist` (not a test of ALIAS).

The plan file named by `ALIAS_STUDY_PLAN` lists the outputs (in the order they are handed
out), the corpus, the cache root, the TLC limit, the grades to make (`grades`: null for every
one, `["name"]` for a names pass) and the folder where each case writes its row
(`row-<n>.json`, with the worker that graded it and its wall-clock start and end). Each xdist
worker loads the corpus and starts its TLC harness once, for all the outputs it grades. A case's
id is `<spec id>/<model>`: under `alias_fixtures.plugin.scheduling` the outputs of one task go
to one worker, as a benchmark run's cases of one variant do.
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from study_scale import PLAN_ENV, grade_row, load_corpus  # noqa: E402

PLAN: dict[str, Any] = (json.loads(Path(os.environ[PLAN_ENV]).read_text(encoding="utf-8"))
                        if PLAN_ENV in os.environ else {"items": []})


@pytest.fixture(scope="session")
def corpus() -> tuple[dict[tuple[str, str], Any], list[Any]]:
    return load_corpus(Path(PLAN["corpus"]), PLAN.get("manifest", "both"))


@pytest.fixture(scope="session")
def harness() -> Iterator[Any]:
    from tlc_harness.tools.runner import Harness

    with Harness(tlc_timeout=PLAN["timeout"], pool_size=1) as started:
        yield started


@pytest.mark.parametrize("number", range(len(PLAN["items"])),
                         ids=[f"{spec}/{model}" for spec, model in PLAN["items"]])
def test_case(number: int, corpus: tuple[dict[tuple[str, str], Any], list[Any]],
                harness: Any) -> None:
    spec, model = PLAN["items"][number]
    outputs, tasks = corpus
    grades = tuple(PLAN["grades"]) if PLAN.get("grades") is not None else None
    began, began_at = time.monotonic(), time.time()
    row = grade_row(outputs[(spec, model)], tasks, harness, Path(PLAN["cache"]),
                    float(PLAN["timeout"]), grades)
    row["wall"] = round(time.monotonic() - began, 3)
    row.update(worker=os.environ.get("PYTEST_XDIST_WORKER", "main"), began_at=began_at,
               ended_at=time.time())
    row["stages"]["startup"] = 0.0  # paid once per worker, inside the pass's wall time
    Path(PLAN["rows"], f"row-{number}.json").write_text(json.dumps(row), encoding="utf-8")
