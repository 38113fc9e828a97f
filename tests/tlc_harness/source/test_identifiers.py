"""Tests of `tlc_harness.source.identifiers`: definitions, uses, kinds, and resolver coverage."""

from __future__ import annotations

import json
import re
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import ROOT, shared_corpus
from tlc_harness.source.identifiers import (
    STANDARD_MODULES,
    TLA_KEYWORDS,
    ModuleIdentifiers,
    Occurrence,
    analyze_module,
    analyze_task,
    standard_operator_names,
)
from tlc_harness.source.stdlib import STANDARD_EXPORTS, STANDARD_LOCAL_NAMES

DATA = ROOT / "tests" / "data" / "rename"
CORPUS = (shared_corpus() or Path("shared-corpus-absent")) / "tlaplus-examples"


def _passing_models() -> list[dict[str, object]]:
    manifest = CORPUS / "manifest.json"
    if not manifest.is_file():
        return []
    return [e for e in json.loads(manifest.read_text(encoding="utf-8")) if e["passes"]]


def _model_modules(entry: dict[str, object]) -> dict[str, str]:
    folder = CORPUS / "examples" / str(entry["spec_dir"])
    files = entry["files"]
    assert isinstance(files, list)
    return {f: (folder / f).read_text(encoding="utf-8") for f in files if f.endswith(".tla")}


needs_corpus = pytest.mark.skipif(not (CORPUS / "manifest.json").is_file(),
                                  reason="shared corpus not found")


def _occ(info: ModuleIdentifiers, name: str, *, definition: bool | None = None) -> list[Occurrence]:
    return [o for o in info.occurrences
            if o.name == name and (definition is None or o.is_definition == definition)]


@pytest.fixture(scope="module")
def features() -> ModuleIdentifiers:
    return analyze_module((DATA / "Features.tla").read_text(encoding="utf-8"))


def test_definition_kinds(features: ModuleIdentifiers) -> None:
    expected = {
        "Features": "module", "MaxVal": "constant", "Nodes": "constant", "counter": "variable",
        "Helper": "operator", "SumTo": "operator", "fact": "function", "B": "instance",
        "Step": "operator", "nxt": "operator", "Ok": "operator", "n": "parameter",
        "x": "parameter", "v": "parameter", "i": "bound", "s": "bound", "lbl": "label",
        "Safe": "theorem",
    }
    assert {k: features.definitions[k] for k in expected} == expected
    assert "Helper" not in features.exports  # LOCAL
    assert features.exports["SumTo"] == "operator"
    assert features.extends == ("Naturals", "Sequences", "FiniteSets", "TLC")
    assert dict(features.named_instances) == {"B": "Base"}
    assert features.unclassified == ()


def test_fields_strings_and_comments_are_not_identifiers(features: ModuleIdentifiers) -> None:
    assert _occ(features, "kind") == []  # `[kind |-> ...]`, `[kind : ...]`, `!.kind`
    assert {"kind", "counter"} <= features.record_fields
    # `counter` occurs as a variable, but its field uses (`!.counter`, `counter |->`) are not
    assert all(o.kind == "variable" for o in _occ(features, "counter"))
    assert "Limit reached" in {s.value for s in features.strings}
    comment_line = 2  # "The word Limit in this comment"
    assert not [o for o in features.occurrences if o.line == comment_line]


def test_uses_are_resolved(features: ModuleIdentifiers) -> None:
    kinds = {o.name: o.kind for o in features.references}
    assert kinds["Len"] == "standard"
    assert kinds["Append"] == "standard"
    assert kinds["Naturals"] == "module"
    assert kinds["Base"] == "module"
    assert kinds["SumTo"] == "operator"
    assert kinds["nxt"] == "operator"
    within = _occ(features, "Within")
    assert [o.qualifier for o in within] == ["B"]
    limit = _occ(features, "Limit")  # left side of `WITH Limit <- MaxVal`
    assert [(o.qualifier, o.is_definition) for o in limit] == [("Base", False)]
    assert [o.qualifier for o in _occ(features, "lbl", definition=False)] == ["Bounded"]
    assert _occ(features, "lbl", definition=False)[0].kind == "label"


def test_cross_module_resolution() -> None:
    modules = {f: (DATA / f).read_text(encoding="utf-8") for f in ("Features.tla", "Base.tla")}
    alone = analyze_module(modules["Features.tla"])
    assert {o.name for o in alone.unresolved} == {"Within", "Bump", "Limit", "count"}
    task = analyze_task(modules)
    assert task["Features.tla"].unresolved == ()
    kinds = {o.name: o.kind for o in task["Features.tla"].references}
    assert kinds["Limit"] == "constant"
    assert kinds["count"] == "variable"
    assert kinds["Within"] == "operator"


def test_offsets_lines_and_columns(features: ModuleIdentifiers) -> None:
    source = (DATA / "Features.tla").read_text(encoding="utf-8")
    data = source.encode("utf-8")
    lines = source.splitlines()
    for occ in features.occurrences:
        assert data[occ.start:occ.end].decode() == occ.name
        assert lines[occ.line - 1][occ.column - 1:].startswith(occ.name)


def test_pluscal_algorithm_is_code() -> None:
    info = analyze_module((DATA / "Relay.tla").read_text(encoding="utf-8"))
    assert info.has_pluscal
    defs = {o.name: o.kind for o in info.occurrences if o.is_definition and o.in_pluscal}
    assert defs["Deposit"] == "procedure"
    assert defs["Worker"] == "process"
    assert defs["Push"] == "macro"
    assert defs["Relay"] == "algorithm"
    assert defs["Fetch"] == defs["Store"] == defs["Save"] == "label"
    assert defs["total"] == defs["before"] == defs["amount"] == "variable"
    assert info.pluscal_labels == {"Fetch", "Store", "Check", "Save", "Add", "Deposit"}
    gotos = [o for o in info.references if o.name == "Fetch" and o.in_pluscal]
    assert gotos
    assert gotos[0].kind == "label"
    assert [o.kind for o in info.references if o.name == "self" and o.in_pluscal][0] == "bound"
    # the translation defines the same names as operators and variables
    assert info.definition_kinds["Fetch"] == {"label", "operator"}
    assert info.unresolved == ()


def test_inner_modules_and_proofs() -> None:
    src = """---- MODULE Outer ----
EXTENDS Naturals
---- MODULE Inner ----
VARIABLE w
Wait == w' = w
====
I == INSTANCE Inner WITH w <- 0
THEOREM Thm == ASSUME NEW k \\in Nat PROVE k + 0 = k
<1>. DEFINE Two == 2
<1>1. PICK j \\in Nat : j = k
  BY DEF Two
<1>. QED BY <1>1
====
"""
    info = analyze_module(src)
    assert info.module == "Outer"
    assert info.inner_modules == ("Inner",)
    assert info.definitions["Inner"] == "module"
    assert info.definitions["Thm"] == "theorem"
    assert info.definitions["k"] == "bound"
    assert info.definitions["Two"] == "operator"
    assert info.unresolved == ()
    assert info.unclassified == ()


def test_standard_names() -> None:
    names = standard_operator_names()
    assert {"Len", "Append", "Seq", "Cardinality", "Nat", "Print", "Any", "BagToSet"} <= names
    assert "Sum" not in names  # LOCAL in Bags
    assert {"Naturals", "TLC", "Bags", "Toolbox"} <= STANDARD_MODULES
    assert {"ELSE", "SUBSET", "CHOOSE", "WF_"} <= TLA_KEYWORDS


def _jar() -> Path | None:
    try:
        from tlc_harness.tools.toolchain import ToolchainError, find_jar
    except ImportError:  # pragma: no cover
        return None
    try:
        return find_jar()[0]
    except ToolchainError:
        return None


def test_standard_table_matches_the_jar() -> None:
    jar = _jar()
    if jar is None:
        pytest.skip("tla2tools.jar not found")
    prefix = "tla2sany/StandardModules/"
    exported: dict[str, frozenset[str]] = {}
    local: set[str] = set()
    with zipfile.ZipFile(jar) as zf:
        for entry in zf.namelist():
            if entry.startswith(prefix) and entry.endswith(".tla"):
                text = zf.read(entry).decode("utf-8")
                info = analyze_module(text)
                # tree-sitter reads `Nat`, `Int` and `Real` as built-in set nodes
                builtin = {n for n in ("Nat", "Int", "Real")
                           if re.search(rf"^{n}\s*==", text, re.M)}
                exported[info.module] = frozenset(info.exports) | builtin
                local |= set(re.findall(r"^LOCAL\s+(?!INSTANCE)(\w+)", text, re.M))
    assert exported == dict(STANDARD_EXPORTS)
    assert local == STANDARD_LOCAL_NAMES


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("---=MODULE ABxy_1()[]{}<>\\/*\"'.!:,\n"))))
def test_analyzer_never_crashes(text: str) -> None:
    info = analyze_module(text)
    data = text.encode("utf-8")
    for occ in info.occurrences:
        assert data[occ.start:occ.end].decode() == occ.name


@needs_corpus
def test_every_corpus_file_is_analyzed() -> None:
    files = sorted((CORPUS / "examples").rglob("*.tla"))
    assert len(files) > 100
    for path in files:
        source = path.read_text(encoding="utf-8")
        info = analyze_module(source)
        assert info.unclassified == (), f"{path}: {info.unclassified[:3]}"
        data = source.encode("utf-8")
        assert all(data[o.start:o.end].decode() == o.name for o in info.occurrences), path


@needs_corpus
def test_resolver_coverage_on_passing_models(
    record_property: Callable[[str, object], None],
) -> None:
    models = _passing_models()
    assert len(models) == 81
    total = unresolved = 0
    for entry in models:
        for info in analyze_task(_model_modules(entry)).values():
            total += len(info.references)
            unresolved += len(info.unresolved)
    share = 1 - unresolved / total
    record_property("resolved_share", share)
    record_property("references", total)
    assert total > 10_000
    assert share >= 0.997, f"resolved {share:.4%} of {total} references"
