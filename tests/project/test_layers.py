"""The import layers: `alias_cli` and `benchmarks` over `alias_fixtures` over `reports` over
`tlc_harness`, the layers inside `alias_fixtures` and `tlc_harness`, every package named by a
contract, and no import cycle between modules (imports inside functions and under
`if TYPE_CHECKING:` count too).

The layer contracts are import-linter's, read from pyproject.toml (`lint-imports` runs them
in `tox -e lint` and `tox -e tests`); the cycle check walks the same import graph with grimp.
"""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT

grimp = pytest.importorskip("grimp", reason="the layer checks need import-linter (test extra)")

CHECKOUT = ROOT
PACKAGES = ("alias_cli", "benchmarks", "alias_fixtures", "reports", "tlc_harness")


def importlinter_config() -> dict[str, Any]:
    text = (CHECKOUT / "pyproject.toml").read_text(encoding="utf-8")
    config: dict[str, Any] = tomllib.loads(text)["tool"]["importlinter"]
    return config


def test_layers_hold() -> None:
    script = Path(sys.executable).with_name("lint-imports")
    done = subprocess.run([str(script), "--no-cache"], cwd=CHECKOUT, capture_output=True,
                          text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]


def import_cycles(*packages: str) -> dict[frozenset[str], str]:
    """Each import cycle between modules of `packages` (the modules it passes through ->
    one chain), counting imports inside functions and under `if TYPE_CHECKING:`."""
    graph = grimp.build_graph(*packages, exclude_type_checking_imports=False, cache_dir=None)
    cycles: dict[frozenset[str], str] = {}
    for module in sorted(graph.modules):
        for imported in sorted(graph.find_modules_directly_imported_by(module)):
            if imported != module and graph.chain_exists(imported=module, importer=imported):
                chain = [module, *(graph.find_shortest_chain(importer=imported,
                                                             imported=module) or ())]
                cycles.setdefault(frozenset(chain), " -> ".join(chain))
    return cycles


def test_no_import_cycles() -> None:
    cycles = import_cycles(*PACKAGES)
    assert not cycles, "\n".join(sorted(cycles.values()))


def test_the_cycle_check_counts_type_checking_imports(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    package = tmp_path / "cyclepkg"
    package.mkdir()
    (package / "__init__.py").write_text("", encoding="utf-8")
    (package / "a.py").write_text("from cyclepkg import b\n", encoding="utf-8")
    (package / "b.py").write_text("from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n"
                                  "    from cyclepkg import a\n", encoding="utf-8")
    (package / "c.py").write_text("def f():\n    from cyclepkg import a\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert set(import_cycles("cyclepkg")) == {frozenset({"cyclepkg.a", "cyclepkg.b"})}


def test_the_contract_names_every_package() -> None:
    config = importlinter_config()
    assert sorted(config["root_packages"]) == sorted(PACKAGES)
    for name in PACKAGES:  # and each is a package
        assert (CHECKOUT / name / "__init__.py").is_file(), name


def contract_names(config: Mapping[str, Any]) -> set[str]:
    """Every module an import-linter contract names: each layer of a layers contract under
    each of its containers (a root layer without one), and the modules of the others."""
    names: set[str] = set()
    for contract in config["contracts"]:
        if contract["type"] == "layers":
            containers = contract.get("containers") or [""]
            for layer in contract["layers"]:
                for part in re.split(r"[|:]", layer):
                    tail = part.strip().strip("()").strip()
                    names.update(f"{c}.{tail}" if c else tail for c in containers)
        else:
            for key in ("modules", "source_modules", "forbidden_modules"):
                names.update(contract.get(key, ()))
    return names


def unnamed_packages(packages: Iterable[str], config: Mapping[str, Any]) -> list[str]:
    """The packages (and subpackages, at any depth) no contract names."""
    named = contract_names(config)
    return sorted(p for p in packages if p not in named)


def checkout_packages() -> list[str]:
    """Every package of the project: the roots and each folder below with an `__init__.py`."""
    return sorted(".".join(init.parent.relative_to(CHECKOUT).parts)
                  for root in PACKAGES for init in (CHECKOUT / root).rglob("__init__.py"))


def test_every_package_is_named_by_a_contract() -> None:
    """A new subpackage must be placed in a contract (a layer of its parent, or a module of
    another contract), so its imports are checked from the start."""
    packages = checkout_packages()
    assert {"alias_fixtures.models", "tlc_harness.behavior.graph_engine"} <= set(packages)
    assert unnamed_packages(packages, importlinter_config()) == []


@pytest.mark.parametrize("new", ["alias_fixtures.newpart", "reports.views",
                                 "alias_fixtures.grading.executors.extra", "newroot"])
def test_a_new_subpackage_no_contract_names_fails(new: str) -> None:
    packages = [*checkout_packages(), new]
    assert unnamed_packages(packages, importlinter_config()) == [new]


def _private_imports(path: Path) -> list[str]:
    """`from pkg.mod import _name` and `mod._name` uses of a project module in one file."""
    import ast

    tree = ast.parse(path.read_text(encoding="utf-8"))
    modules: set[str] = set()  # names bound to project modules in this file
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and \
                node.module.split(".")[0] in PACKAGES:
            for alias in node.names:
                if alias.name.startswith("_") and not alias.name.startswith("__"):
                    found.append(f"{path.name}:{node.lineno} from {node.module} import "
                                 f"{alias.name}")
                modules.add(alias.asname or alias.name)
        elif isinstance(node, ast.Import):
            modules.update(a.asname or a.name for a in node.names
                           if a.name.split(".")[0] in PACKAGES)
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and \
                node.value.id in modules and node.attr.startswith("_") and \
                not node.attr.startswith("__"):
            found.append(f"{path.name}:{node.lineno} {node.value.id}.{node.attr}")
    return found


@pytest.mark.parametrize("package", ["tlc_harness", "reports", "alias_cli"])
def test_no_module_reaches_into_another_modules_private_names(package: str) -> None:
    """What modules share is public: a private name (`_x`) stays in its own module."""
    found = [hit for path in sorted((CHECKOUT / package).rglob("*.py"))
             for hit in _private_imports(path)]
    assert not found, "\n".join(found)
