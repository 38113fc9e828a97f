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
