"""Fixtures of the benchmark: one harness per process, the variant cache, the run seed."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from alias_fixtures.variants import VariantStore
from tlc_harness.runner import Harness

RUN_SEED = os.environ.get("ALIAS_SEED", "0")


@pytest.fixture(scope="session")
def bench_harness(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Harness]:
    with Harness(tlc_timeout=300, tmp_root=str(tmp_path_factory.mktemp("bench"))) as h:
        yield h


@pytest.fixture(scope="session")
def variant_store(bench_harness: Harness) -> VariantStore:
    folder = Path(os.environ.get("ALIAS_CACHE", ".alias-cache")) / "variants"
    return VariantStore(folder, jar_sha256=bench_harness.toolchain.jar_sha256)
