"""The report's sections, one record each, and the parts of the report they belong to.

A :class:`SectionSpec` names a section's key (its CSV file ``KEY.csv``, its ``stats.json``
entry and its HTML anchor), its title, how it is built from the report's :class:`Sources`,
the :class:`Part` it is shown in (a Markdown file and a part of the HTML page) and whether it
has a CSV file. :mod:`reports.render` and :mod:`reports.render_html` read these two tables
and nothing else, so a new section is one record in :data:`SECTIONS`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property, partial

import pandas as pd

from reports import render_probes as rp
from reports import render_sections as rs
from reports import render_splits as rsp
from reports import render_taxonomy as rtx
from reports import render_turns as rt
from reports.probe_rows import ProbeRows
from reports.render_data import (
    INFRA_TITLE,
    TABLE1_TITLE,
    ExposurePair,
    InputFile,
    Section,
    Settings,
    infra_section,
    pass_at_k_section,
    provenance_section,
    table1_section,
)
from reports.taxonomy import STAGES, taxonomy_frame
from reports.turn_stats import ArmTurns
from reports.turns import CaseTurns, turn_frame


@dataclass
class Sources:
    """What every section is built from: the records and their files, the probe rows, the
    exposure pairs, and, when some record has turns, the feedback track's cases."""

    settings: Settings
    inputs: tuple[InputFile, ...]
    frame: pd.DataFrame
    cases: tuple[dict[str, object], ...]
    probe_rows: ProbeRows
    pairs: tuple[ExposurePair, ...]
    pair_notes: tuple[str, ...]
    turns: Sequence[CaseTurns] | None
    """None when no record has turns."""
    prices_origin: str

    @cached_property
    def taxonomy(self) -> pd.DataFrame:
        """Each case's class per stage (:func:`reports.taxonomy.taxonomy_frame`)."""
        return taxonomy_frame(i.path for i in self.inputs)

    @cached_property
    def turn_frame(self) -> pd.DataFrame:
        return turn_frame(self.turns or ())

    @cached_property
    def turn_curves(self) -> tuple[list[ArmTurns], list[str]]:
        return rt.turn_curves(self.turn_frame, self.settings)


@dataclass(frozen=True)
class Part:
    """A part of the report: one Markdown file (``markdown``, or none) and one part of the
    HTML page (anchor ``key``, link ``nav``). ``title`` heads a part of several sections (its
    Markdown document and its HTML ``h2``, the sections under ``h3``); a part without a title
    holds one section, headed by the section's own title. ``when`` says whether the part
    exists for a report (its sections are built only then)."""

    key: str
    nav: str
    title: str | None = None
    markdown: str | None = None
    when: Callable[[Sources], bool] | None = None

    def present(self, sources: Sources) -> bool:
        return self.when is None or self.when(sources)


@dataclass(frozen=True)
class SectionSpec:
    """One section of the report: its key, title, builder, part, and whether it has a CSV."""

    key: str
    title: str
    build: Callable[[Sources], Section]
    part: str
    csv: bool = True


def _stage_counts(stage: str, sources: Sources) -> Section:
    return rtx.counts_section(sources.taxonomy, stage)


TURNS_FILE = "turns.md"
PARTS: tuple[Part, ...] = (
    Part("provenance", "Provenance"),
    Part("table1", "Table 1", markdown="table1.md"),
    Part("plots", "Plots"),
    Part("differences", "Decrease", markdown="differences.md"),
    Part("taxonomy", "Taxonomy", rtx.TAXONOMY_TITLE, "taxonomy.md"),
    Part("table2", "Table 2", markdown="table2.md"),
    Part("turns", "Turns", rt.TURNS_TITLE, TURNS_FILE, when=lambda s: s.turns is not None),
    Part("splits", "Splits", "Splits", "splits.md"),
    Part("probes", "Probes", "Probes of memorization", "probes.md"),
    Part("tasks", "Tasks"),
)
"""The report's parts, in the order of the HTML page."""

SECTIONS: tuple[SectionSpec, ...] = (
    SectionSpec("provenance", "Provenance", lambda s: provenance_section(s.inputs),
                "provenance", csv=False),
    SectionSpec("table1", TABLE1_TITLE, lambda s: table1_section(s.frame), "table1"),
    SectionSpec("differences", rs.DIFFERENCES_TITLE,
                lambda s: rs.differences_section(s.frame, s.settings), "differences"),
    *(SectionSpec(f"taxonomy_{stage}", rtx.stage_title(stage), partial(_stage_counts, stage),
                  "taxonomy") for stage in STAGES),
    SectionSpec("taxonomy_change", rtx.CHANGE_TITLE,
                lambda s: rtx.change_section(s.taxonomy, s.settings), "taxonomy"),
    SectionSpec("taxonomy_examples", rtx.EXAMPLES_TITLE,
                lambda s: rtx.examples_section(s.taxonomy), "taxonomy"),
    SectionSpec("table2", rs.TABLE2_TITLE,
                lambda s: rs.exposure_section(s.frame, s.pairs, s.pair_notes, s.settings,
                                              s.cases, s.probe_rows.of("likelihood")), "table2"),
    SectionSpec("hidden_split", rsp.HIDDEN_TITLE,
                lambda s: rsp.hidden_section(s.frame, s.settings), "splits"),
    SectionSpec("published_split", rsp.PUBLISHED_TITLE,
                lambda s: rsp.published_section(s.frame, s.settings), "splits"),
    SectionSpec("disagreements", rs.DISAGREE_TITLE, lambda s: rs.disagreement_section(s.frame),
                "splits"),
    SectionSpec("upper_bound", rs.UPPER_TITLE, lambda s: rs.upper_bound_section(s.frame),
                "splits"),
    SectionSpec("infra", INFRA_TITLE, lambda s: infra_section(s.frame), "splits"),
    SectionSpec("pass_at_k", "pass@k", lambda s: pass_at_k_section(s.frame), "splits"),
    SectionSpec("similarity", rp.SIMILARITY_TITLE,
                lambda s: rp.similarity_section(s.cases, s.probe_rows.of("similarity")), "probes"),
    SectionSpec("likelihood", rp.LIKELIHOOD_TITLE,
                lambda s: rp.likelihood_section(s.probe_rows.of("likelihood"), s.settings),
                "probes"),
    SectionSpec("likelihood_exposure", rp.LIKELIHOOD_EXPOSURE_TITLE,
                lambda s: rp.likelihood_exposure_section(s.probe_rows.of("likelihood"), s.pairs,
                                                         s.pair_notes, s.settings), "probes"),
    SectionSpec("continuation", rp.CONTINUATION_TITLE,
                lambda s: rp.continuation_section(s.probe_rows.of("continuation"), s.frame),
                "probes"),
    SectionSpec("continuation_correlation", rp.CORRELATION_TITLE,
                lambda s: rp.correlation_section(s.probe_rows.of("continuation"), s.frame),
                "probes"),
    SectionSpec("proposed_names", rp.NAMES_TITLE,
                lambda s: rp.names_section(s.probe_rows.of("proposed_names")), "probes"),
    SectionSpec("turn_rates", rt.RATES_TITLE,
                lambda s: rt.rates_section(*s.turn_curves, s.settings), "turns"),
    SectionSpec("turn_gaps", rt.GAPS_TITLE,
                lambda s: rt.gaps_section(s.turn_curves[0], s.settings), "turns"),
    SectionSpec("turn_names", rt.NAMES_TITLE,
                lambda s: rt.names_section(s.turn_frame, s.settings), "turns"),
    SectionSpec("turn_cost", rt.COST_TITLE,
                lambda s: rt.cost_section(s.turns or (), s.prices_origin), "turns"),
)
"""Every section, in the order of ``stats.json``."""


def part(key: str) -> Part:
    """The part named ``key``."""
    return next(p for p in PARTS if p.key == key)


def sections_of(part_key: str) -> tuple[SectionSpec, ...]:
    """The sections shown in a part, in table order."""
    return tuple(spec for spec in SECTIONS if spec.part == part_key)
