"""The import layers: `alias_cli` and `benchmarks` over `alias_fixtures` over `reports` over
`tlc_harness`, the layers inside `alias_fixtures` and `tlc_harness`, and no import cycle
between modules (imports inside functions count too).

The layer contract is import-linter's, read from pyproject.toml (`lint-imports` runs the same
contract in `tox -e lint`); the cycle check walks the same import graph with grimp.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

grimp = pytest.importorskip("grimp", reason="the layer checks need import-linter (test extra)")

CHECKOUT = Path(__file__).resolve().parent.parent
PACKAGES = ("alias_cli", "benchmarks", "alias_fixtures", "reports", "tlc_harness")


def test_layers_hold() -> None:
    script = Path(sys.executable).with_name("lint-imports")
    done = subprocess.run([str(script), "--no-cache"], cwd=CHECKOUT, capture_output=True,
                          text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]


def test_no_import_cycles() -> None:
    graph = grimp.build_graph(*PACKAGES, exclude_type_checking_imports=True, cache_dir=None)
    cycles = set()
    for module in sorted(graph.modules):
        for imported in graph.find_modules_directly_imported_by(module):
            if imported != module and graph.chain_exists(imported=module, importer=imported):
                chain = graph.find_shortest_chain(importer=imported, imported=module)
                cycles.add(" -> ".join([module, *(chain or ())]))
    assert not cycles, "\n".join(sorted(cycles))


def test_the_contract_names_every_package() -> None:
    text = (CHECKOUT / "pyproject.toml").read_text(encoding="utf-8")
    section = text.split("[tool.importlinter]", 1)[1]
    for name in PACKAGES:
        assert name in section, name
    for name in PACKAGES:  # and each is a package
        assert (CHECKOUT / name / "__init__.py").is_file(), name


def test_every_subpackage_is_in_a_layer() -> None:
    """A new subpackage must be placed in its package's layer contract."""
    text = (CHECKOUT / "pyproject.toml").read_text(encoding="utf-8")
    for package in ("alias_fixtures", "tlc_harness"):
        for sub in sorted((CHECKOUT / package).iterdir()):
            if (sub / "__init__.py").is_file():
                assert f'"{sub.name}' in text or f"| {sub.name}" in text, f"{package}.{sub.name}"
