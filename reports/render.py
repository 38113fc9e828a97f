"""The report folder of one or more results files.

:func:`write_report` writes into ``out_dir``:

- ``table1.md`` / ``.csv`` — pass rates per model, grade and condition (the study's Table 1);
- ``differences.md`` / ``.csv`` — renaming decrease with bootstrap CI, sign test and TOST;
- ``table2.md`` (/ ``.csv``) — the exposure experiment, or one line saying how to mark it;
- ``splits.md`` and ``hidden_split``/``disagreements``/``upper_bound``/``infra``/``pass_at_k``
  ``.csv`` — hidden-name split, grades disagreeing, upper bound, infrastructure errors, pass@k;
- ``probes.md`` and ``similarity``/``likelihood``/``likelihood_exposure``/``continuation``/
  ``continuation_correlation``/``proposed_names`` ``.csv`` — the memorization probes, from the
  case records and the probe files (:mod:`reports.render_probes`);
- ``turns.md`` and ``turn_rates``/``turn_gaps``/``turn_names``/``turn_cost`` ``.csv`` — the
  feedback track by turn and its cost, only when some record has turns
  (:mod:`reports.render_turns`); the other tables then name each arm ``MODEL [feedback LEVELS]``;
- ``stats.json`` — all of the above with settings and run provenance;
- ``index.html`` — one self-contained page with plots and a per-task drill-down.

The same records and seeds give byte-identical files: nothing in them depends on the clock.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path

from reports import render_sections as rs
from reports.exposure import EXPOSURE_SEED
from reports.probe_rows import read_probe_files
from reports.records import by_arm
from reports.render_data import (
    INFRA_TITLE,
    TABLE1_TITLE,
    ExposurePair,
    Report,
    Section,
    Settings,
    guarded,
    infra_section,
    pass_at_k_section,
    provenance_section,
    read_inputs,
    summary_of,
    table1_section,
)
from reports.render_html import page
from reports.render_probes import PROBE_KEYS, probe_sections
from reports.render_tables import csv_text, markdown, markdown_document
from reports.render_turns import TURN_KEYS, TURNS_TITLE, prices_origin, turn_sections
from reports.stats import BOOTSTRAP_SEED, N_BOOT
from reports.turn_cost import PriceTable
from reports.turns import has_turns, load_case_turns

__all__ = ["ExposurePair", "Report", "build_report", "write_report"]

MARKDOWN_FILES: dict[str, tuple[str, ...]] = {
    "table1.md": ("table1",),
    "differences.md": ("differences",),
    "table2.md": ("table2",),
    "splits.md": ("hidden_split", "disagreements", "upper_bound", "infra", "pass_at_k"),
    "probes.md": PROBE_KEYS,
}
TURNS_FILE = "turns.md"
DOCUMENT_TITLES = {"splits.md": "Splits", "probes.md": "Probes of memorization",
                   TURNS_FILE: TURNS_TITLE}
CSV_SECTIONS = ("table1", "differences", "table2", "hidden_split", "disagreements",
                "upper_bound", "infra", "pass_at_k", *PROBE_KEYS, *TURN_KEYS)


def build_report(results: Sequence[Path], settings: Settings, probes: Sequence[Path] = (),
                 prices: PriceTable | None = None) -> Report:
    """Read the results and probe files and compute every section.

    When some record has turns, the feedback track's sections are added and the other
    sections see each model × feedback arm as its own model. ``prices`` prices every call
    (else the cost stored in the records is used). Raises
    :class:`reports.records.StatsError` when a file is missing or holds a malformed record; a
    section that cannot be computed from valid records carries the reason instead.
    """
    records, inputs, cases = read_inputs(results)
    frame = by_arm(records)
    probe_rows = read_probe_files(probes)
    pairs, pair_notes = rs.exposure_pairs(inputs, settings.exposure)
    builders: tuple[tuple[str, str, Callable[[], Section]], ...] = (
        ("table1", TABLE1_TITLE, lambda: table1_section(frame)),
        ("differences", rs.DIFFERENCES_TITLE, lambda: rs.differences_section(frame, settings)),
        ("table2", rs.TABLE2_TITLE,
         lambda: rs.exposure_section(frame, pairs, pair_notes, settings, cases,
                                     probe_rows.of("likelihood"))),
        ("hidden_split", rs.HIDDEN_TITLE, lambda: rs.hidden_section(frame, settings)),
        ("disagreements", rs.DISAGREE_TITLE, lambda: rs.disagreement_section(frame)),
        ("upper_bound", rs.UPPER_TITLE, lambda: rs.upper_bound_section(frame)),
        ("infra", INFRA_TITLE, lambda: infra_section(frame)),
        ("pass_at_k", "pass@k", lambda: pass_at_k_section(frame)),
    )
    sections = (provenance_section(inputs),
                *(guarded(key, title, build) for key, title, build in builders),
                *probe_sections(frame, cases, probe_rows, pairs, pair_notes, settings),
                *(turn_sections(load_case_turns(results, prices), settings,
                                prices_origin(prices)) if has_turns(cases) else ()))
    return Report(settings, inputs, summary_of(records), sections, cases, probe_rows.inputs)


def write_report(results: list[Path], out_dir: Path, *, seed: int = BOOTSTRAP_SEED,
                 n_boot: int = N_BOOT, split_seed: int = EXPOSURE_SEED,
                 exposure: Sequence[ExposurePair] = (), probes: Sequence[Path] = (),
                 prices: PriceTable | None = None) -> Path:
    """Write the report folder for ``results`` into ``out_dir``; return ``index.html``'s path.

    ``exposure`` names the models of the exposure experiment; without it, run headers with
    ``exposure_half`` mark them. ``probes`` are probe files (:mod:`reports.probe_rows`).
    ``prices`` prices the feedback track's calls (:mod:`reports.turn_cost`). CSV files of
    sections without rows are removed, and ``turns.md`` when no record has turns, so a stale
    file from an earlier report never survives.
    """
    report = build_report([Path(p) for p in results],
                          Settings(seed, n_boot, split_seed, tuple(exposure)),
                          [Path(p) for p in probes], prices)
    out_dir.mkdir(parents=True, exist_ok=True)
    for name, keys in MARKDOWN_FILES.items():
        sections = [report.section(k) for k in keys]
        text = (markdown(sections[0], level=1) if len(sections) == 1
                else markdown_document(sections, DOCUMENT_TITLES[name]))
        _write(out_dir / name, text)
    turn_sections_found = [s for k in TURN_KEYS if (s := report.find(k)) is not None]
    if turn_sections_found:
        _write(out_dir / TURNS_FILE,
               markdown_document(turn_sections_found, DOCUMENT_TITLES[TURNS_FILE]))
    else:
        (out_dir / TURNS_FILE).unlink(missing_ok=True)
    for key in CSV_SECTIONS:
        path = out_dir / f"{key}.csv"
        found = report.find(key)
        if found is not None and found.records:
            _write(path, csv_text(found))
        else:
            path.unlink(missing_ok=True)
    _write(out_dir / "stats.json",
           json.dumps(report.to_json(), indent=2, ensure_ascii=False) + "\n")
    index = out_dir / "index.html"
    _write(index, page(report))
    return index


def _write(path: Path, text: str) -> None:
    path.write_text(text, encoding="utf-8")
