"""scripts/test_times.py: where a test run's time goes, read from pytest's JUnit XML."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

from tests.conftest import ROOT


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("test_times", ROOT / "scripts" / "test_times.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["test_times"] = module
    spec.loader.exec_module(module)
    return module


XML = """<?xml version="1.0" encoding="utf-8"?>
<testsuites><testsuite name="pytest" tests="4">
<testcase classname="tests.pkg.test_a" name="test_one" time="3.0" />
<testcase classname="tests.pkg.test_a.TestGroup" name="test_two" time="1.5"><skipped /></testcase>
<testcase classname="benchmarks.test_b" name="test_three[x]" time="10.0"><failure /></testcase>
<testcase classname="tests.test_c" name="test_four" time="0.5" />
</testsuite></testsuites>
"""


def test_times_are_summed_per_file_with_class_methods_under_their_file(tmp_path: Path) -> None:
    script = _script()
    xml = tmp_path / "run.xml"
    xml.write_text(XML, encoding="utf-8")
    times = script.read_times(xml)
    assert [(f, o) for f, _, _, o in times] == [
        ("tests/pkg/test_a.py", "passed"), ("tests/pkg/test_a.py", "skipped"),
        ("benchmarks/test_b.py", "failed"), ("tests/test_c.py", "passed")]
    text = script.render(times, top=10, workers=2)
    assert text.startswith("4 tests (1 failed, 2 passed, 1 skipped), 0.2 min summed")
    rows = [line for line in text.splitlines() if line.startswith("| ") and ".py |" in line]
    assert rows[0] == "| benchmarks/test_b.py | 1 | 10 | 66.7% |"
    assert rows[1] == "| tests/pkg/test_a.py | 2 | 4 | 30.0% |"
    assert "| benchmarks/test_b.py::test_three[x] | 10 |" in text


def test_an_unreadable_file_is_named_in_the_error(tmp_path: Path) -> None:
    script = _script()
    bad = tmp_path / "bad.xml"
    bad.write_text("<testsuites>", encoding="utf-8")
    with pytest.raises(SystemExit, match="bad.xml"):
        script.read_times(bad)
