"""SANY parse verdicts: semantic errors count as failures, bad input never hangs."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import FIXTURES
from tlc_harness.tools.runner import Harness
from tlc_harness.tools.spec import MAX_FILE_BYTES, SpecInputError, SpecSource

S = FIXTURES / "sany"

# fixture -> (ok, a fragment expected in some error)
GOLDEN = {
    "Good": (True, None),
    "Empty": (True, None),
    "Unknown": (False, "Cardinality"),
    "Arity": (False, "requires 2 arguments"),
    "Dup": (False, "already defined"),
    "Shadow": (False, "Multiply-defined symbol"),
    "Missing": (False, "NoSuchModule"),
    "Syntax": (False, "Parse error"),
}


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_parse_golden(any_harness: Harness, name: str) -> None:
    ok, fragment = GOLDEN[name]
    result = any_harness.parse(SpecSource.from_path(S / f"{name}.tla", siblings=False))
    assert result.ok is ok, result.output
    if fragment:
        assert any(fragment in e for e in result.errors), result.errors
    else:
        assert result.errors == ()


def test_semantic_error_exits_zero_but_fails(fresh_harness: Harness) -> None:
    result = fresh_harness.parse(SpecSource.from_path(S / "Unknown.tla", siblings=False))
    assert result.exit_code == 0
    assert not result.ok


def test_duplicate_warning_is_kept(harness: Harness) -> None:
    result = harness.parse(SpecSource.from_path(S / "Dup.tla", siblings=False))
    assert any("Multiple declarations" in w for w in result.warnings)


def test_same_module_name_reparsed_in_one_jvm(harness: Harness) -> None:
    """The in-process parser must not reuse a module parsed earlier under the same name."""
    good = "---- MODULE Same ----\nVARIABLE x\nInit == x = 1\n====\n"
    bad = "---- MODULE Same ----\nVARIABLE x\nInit == x = Undefined\n====\n"
    assert harness.parse(SpecSource.from_text(good)).ok
    assert not harness.parse(SpecSource.from_text(bad)).ok
    assert harness.parse(SpecSource.from_text(good)).ok


def test_binary_junk_is_a_parse_failure(any_harness: Harness) -> None:
    junk = bytes(range(256)).decode("latin-1") * 20
    result = any_harness.parse(SpecSource("Junk", {"Junk.tla": junk}))
    assert not result.ok


def test_missing_file_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(SpecInputError, match="no such file"):
        SpecSource.from_path(tmp_path / "Nope.tla")


def test_huge_file_refused_before_java(tmp_path: Path) -> None:
    big = tmp_path / "Big.tla"
    with big.open("wb") as fh:
        fh.truncate(MAX_FILE_BYTES + 1)
    with pytest.raises(SpecInputError, match="larger than"):
        SpecSource.from_path(big)


def test_text_without_header_is_refused() -> None:
    with pytest.raises(SpecInputError, match="MODULE"):
        SpecSource.from_text("Init == TRUE")


def test_siblings_are_staged(harness: Harness, tmp_path: Path) -> None:
    (tmp_path / "Lib.tla").write_text("---- MODULE Lib ----\nEXTENDS Naturals\nDouble(n) == n + n\n====\n")
    (tmp_path / "Main.tla").write_text(
        "---- MODULE Main ----\nEXTENDS Naturals, Lib\nX == Double(2)\n====\n")
    assert harness.parse(tmp_path / "Main.tla").ok
    alone = SpecSource.from_path(tmp_path / "Main.tla", siblings=False)
    assert not harness.parse(alone).ok
