"""The report's sections are one table (reports.section_table): every section in it reaches
each of its outputs (Markdown, CSV, stats.json, the HTML page and its navigation), and a
section added to the table needs nothing else to be written everywhere."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from reports import section_table as table
from reports.render import write_report
from reports.render_data import Section
from reports.section_table import PARTS, SECTIONS, Part, SectionSpec
from tests.reports.test_turn_report import PRICES, feedback_run

FAST = 500


@pytest.fixture(scope="module")
def full_report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A report with every part: one-shot and feedback-track runs."""
    folder = tmp_path_factory.mktemp("full")
    return write_report(feedback_run(folder), folder / "out", n_boot=FAST, prices=PRICES).parent


def outputs(folder: Path) -> tuple[dict[str, str], dict[str, object], str]:
    """The Markdown files, the sections of stats.json, and the page."""
    markdown = {p.name: p.read_text(encoding="utf-8") for p in folder.glob("*.md")}
    stats = json.loads((folder / "stats.json").read_text(encoding="utf-8"))
    return markdown, stats["sections"], (folder / "index.html").read_text(encoding="utf-8")


def test_the_table_is_consistent() -> None:
    keys = [spec.key for spec in SECTIONS]
    assert len(keys) == len(set(keys)), "two sections share a key"
    parts = {part.key: part for part in PARTS}
    assert len(parts) == len(PARTS), "two parts share a key"
    files = [part.markdown for part in PARTS if part.markdown]
    assert len(files) == len(set(files)), "two parts share a Markdown file"
    for spec in SECTIONS:
        assert spec.part in parts, f"section {spec.key}: no part {spec.part!r}"
    for part in PARTS:
        held = table.sections_of(part.key)
        if part.title is None and held:  # its one section heads it and is its anchor
            assert [s.key for s in held] == [part.key], part.key


@pytest.mark.parametrize("spec", SECTIONS, ids=[s.key for s in SECTIONS])
def test_every_section_reaches_its_outputs(full_report: Path, spec: SectionSpec) -> None:
    markdown, stats, html = outputs(full_report)
    assert spec.key in stats, "not built"
    title = stats[spec.key]["title"]  # type: ignore[index]
    part = table.part(spec.part)
    if part.markdown is not None:
        heading = "# " if part.title is None else "## "
        assert f"{heading}{title}\n" in markdown[part.markdown]
    assert f'id="{spec.key}">{title}</h' in html.replace("&amp;", "&").replace("&#x27;", "'")
    rows = stats[spec.key]["rows"]  # type: ignore[index]
    assert (full_report / f"{spec.key}.csv").is_file() == (spec.csv and bool(rows))


def test_every_part_is_linked_and_every_link_has_its_anchor(full_report: Path) -> None:
    html = outputs(full_report)[2]
    nav = re.search(r"<nav>(.*?)</nav>", html)
    assert nav is not None
    links = re.findall(r'href="#([^"]+)"', nav.group(1))
    assert links == [part.key for part in PARTS]
    for key in links:
        assert f'id="{key}"' in html, key


# -- a new section ----------------------------------------------------------------------------

def extra_section(key: str) -> SectionSpec:
    def build(sources: table.Sources) -> Section:
        return Section(key, "A new table", ("model", "cases"), (("m", str(len(sources.cases))),),
                       ({"model": "m", "cases": len(sources.cases)},), ("a note",))
    return SectionSpec(key, "A new table", build, "splits")


@pytest.fixture
def one_shot_run(tmp_path: Path) -> list[Path]:
    return feedback_run(tmp_path)[:1]


def test_a_new_section_is_one_record(monkeypatch: pytest.MonkeyPatch, one_shot_run: list[Path],
                                     tmp_path: Path) -> None:
    monkeypatch.setattr(table, "SECTIONS", (*SECTIONS, extra_section("new_table")))
    folder = write_report(one_shot_run, tmp_path / "out", n_boot=FAST).parent
    markdown, stats, html = outputs(folder)
    assert "## A new table\n\n| model | cases |\n|---|---:|\n| m | 12 |\n" in markdown["splits.md"]
    assert (folder / "new_table.csv").read_text(encoding="utf-8") == "model,cases\nm,12\n"
    assert stats["new_table"] == {"title": "A new table", "rows": [{"model": "m", "cases": 12}],
                                  "notes": ["a note"], "footer": []}
    assert '<h3 id="new_table">A new table</h3>' in html
    assert html.index('id="pass_at_k"') < html.index('id="new_table"') < html.index('id="probes"')


def test_a_new_part_is_one_record_too(monkeypatch: pytest.MonkeyPatch, one_shot_run: list[Path],
                                      tmp_path: Path) -> None:
    spec = SectionSpec("audit", "Audit", extra_section("audit").build, "audit", csv=False)
    monkeypatch.setattr(table, "SECTIONS", (*SECTIONS, spec))
    monkeypatch.setattr(table, "PARTS", (*PARTS[:-1], Part("audit", "Audit", markdown="audit.md"),
                                         PARTS[-1]))
    folder = write_report(one_shot_run, tmp_path / "out", n_boot=FAST).parent
    markdown, stats, html = outputs(folder)
    assert markdown["audit.md"].startswith("# A new table\n")
    assert not (folder / "audit.csv").exists() and "audit" in stats
    assert '<a href="#audit">Audit</a><a href="#tasks">' in html


def test_a_part_the_report_lacks_leaves_no_stale_file(one_shot_run: list[Path],
                                                      tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "turns.md").write_text("stale", encoding="utf-8")
    (out / "turn_rates.csv").write_text("stale", encoding="utf-8")
    write_report(one_shot_run, out, n_boot=FAST)
    assert not (out / "turns.md").exists() and not (out / "turn_rates.csv").exists()
