"""The report folder of one or more results files.

:func:`write_report` writes into ``out_dir``:

- ``table1.md`` / ``.csv`` — pass rates per model, grade and condition (the study's Table 1);
- ``differences.md`` / ``.csv`` — renaming decrease with bootstrap CI, sign test and TOST;
- ``taxonomy.md`` and ``taxonomy_parse``/``_name``/``_behavior``/``_change``/``_examples``
  ``.csv`` — the failure taxonomy: outputs per class and stage, each class's change between
  conditions, example cases (:mod:`reports.render_taxonomy`);
- ``table2.md`` (/ ``.csv``) — the exposure experiment, or one line saying how to mark it;
- ``splits.md`` and ``hidden_split``/``disagreements``/``upper_bound``/``infra``/``pass_at_k``
  ``.csv`` — hidden-name split, grades disagreeing, upper bound, infrastructure errors, pass@k;
- ``probes.md`` and ``similarity``/``likelihood``/``likelihood_exposure``/``continuation``/
  ``continuation_correlation``/``proposed_names`` ``.csv`` — the memorization probes, from the
  case records and the probe files (:mod:`reports.render_probes`);
- ``turns.md`` and ``turn_rates``/``turn_gaps``/``turn_names``/``turn_cost`` ``.csv`` — the
  feedback track by turn and its cost, only when some record has turns
  (:mod:`reports.render_turns`); the other tables then name each arm ``MODEL [feedback LEVELS]``;
- ``taxonomy_parse``/``_name``/``_behavior`` ``.svg`` — the taxonomy's stacked bars, as the
  page shows them, for viewers of the Markdown files;
- ``stats.json`` — all of the above with settings and run provenance;
- ``index.html`` — one self-contained page with plots and a per-task drill-down.

Which sections there are, and which file and part of the page each goes to, is the table
:mod:`reports.section_table`. The same records and seeds give byte-identical files: nothing
in them depends on the clock.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from functools import partial
from pathlib import Path

from reports import render_sections as rs
from reports import section_table as table
from reports.exposure import EXPOSURE_SEED
from reports.probe_rows import read_probe_files
from reports.records import by_arm
from reports.render_data import (
    ExposurePair,
    Report,
    Section,
    Settings,
    guarded,
    read_inputs,
    summary_of,
)
from reports.render_html import page, taxonomy_svgs
from reports.render_tables import csv_text, markdown, markdown_document
from reports.render_turns import prices_origin
from reports.section_table import TURNS_FILE, Sources
from reports.stats import BOOTSTRAP_SEED, N_BOOT
from reports.turn_cost import PriceTable
from reports.turns import has_turns, load_case_turns

__all__ = ["TURNS_FILE", "ExposurePair", "Report", "build_report", "write_report"]
SVG_NS = "http://www.w3.org/2000/svg"
"""The namespace a standalone ``.svg`` file needs (the page's inline SVG does without)."""


def build_report(results: Sequence[Path], settings: Settings, probes: Sequence[Path] = (),
                 prices: PriceTable | None = None) -> Report:
    """Read the results and probe files and compute every section of
    :data:`reports.section_table.SECTIONS` whose part the report has.

    When some record has turns, the feedback track's sections are added and the other
    sections see each model × feedback arm as its own model. ``prices`` prices every call
    (else the cost stored in the records is used). Raises
    :class:`reports.records.StatsError` when a file is missing or holds a malformed record; a
    section that cannot be computed from valid records carries the reason instead.
    """
    records, inputs, cases = read_inputs(results)
    pairs, pair_notes = rs.exposure_pairs(inputs, settings.exposure)
    sources = Sources(settings, inputs, by_arm(records), cases, read_probe_files(probes),
                      tuple(pairs), tuple(pair_notes),
                      load_case_turns(results, prices) if has_turns(cases) else None,
                      prices_origin(prices))
    parts = {p.key for p in table.PARTS if p.present(sources)}
    sections = tuple(guarded(spec.key, spec.title, partial(spec.build, sources))
                     for spec in table.SECTIONS if spec.part in parts)
    return Report(settings, inputs, summary_of(records), sections, cases,
                  sources.probe_rows.inputs)


def write_report(results: list[Path], out_dir: Path, *, seed: int = BOOTSTRAP_SEED,
                 n_boot: int = N_BOOT, split_seed: int = EXPOSURE_SEED,
                 exposure: Sequence[ExposurePair] = (), probes: Sequence[Path] = (),
                 prices: PriceTable | None = None) -> Path:
    """Write the report folder for ``results`` into ``out_dir``; return ``index.html``'s path.

    ``exposure`` names the models of the exposure experiment; without it, run headers with
    ``exposure_half`` mark them. ``probes`` are probe files (:mod:`reports.probe_rows`).
    ``prices`` prices the feedback track's calls (:mod:`reports.turn_cost`). CSV files of
    sections without rows are removed, and the Markdown file of a part the report does not
    have (``turns.md`` when no record has turns), so a stale file from an earlier report
    never survives.
    """
    report = build_report([Path(p) for p in results],
                          Settings(seed, n_boot, split_seed, tuple(exposure)),
                          [Path(p) for p in probes], prices)
    out_dir.mkdir(parents=True, exist_ok=True)
    for part in table.PARTS:
        if part.markdown is None:
            continue
        path = out_dir / part.markdown
        text = _markdown(part, [s for spec in table.sections_of(part.key)
                                if (s := report.find(spec.key)) is not None])
        if text is None:
            path.unlink(missing_ok=True)
        else:
            _write(path, text)
    for spec in table.SECTIONS:
        if not spec.csv:
            continue
        path = out_dir / f"{spec.key}.csv"
        found = report.find(spec.key)
        if found is not None and found.records:
            _write(path, csv_text(found))
        else:
            path.unlink(missing_ok=True)
    for stage, svg in taxonomy_svgs(report).items():
        path = out_dir / f"taxonomy_{stage}.svg"
        if svg is None:
            path.unlink(missing_ok=True)
        else:
            _write(path, svg.replace("<svg ", f'<svg xmlns="{SVG_NS}" style="background:#fff" ',
                                     1) + "\n")
    _write(out_dir / "stats.json",
           json.dumps(report.to_json(), indent=2, ensure_ascii=False) + "\n")
    index = out_dir / "index.html"
    _write(index, page(report))
    return index


def _markdown(part: table.Part, sections: Sequence[Section]) -> str | None:
    """A part's Markdown file: its one section, or its sections under its title (None: the
    report has none of them)."""
    if not sections:
        return None
    if part.title is None:
        (section,) = sections
        return markdown(section, level=1)
    return markdown_document(sections, part.title)


def _write(path: Path, text: str) -> None:
    path.write_text(text, encoding="utf-8")
