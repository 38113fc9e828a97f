"""Sections as Markdown and CSV text."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable
from typing import Any

from reports.render_data import Section, clean


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|") or " "


def markdown_table(section: Section) -> str:
    """The section's rows as a GitHub Markdown table (numbers right-aligned); '' if none."""
    if not section.rows:
        return ""
    align = ["---" if i < section.labels else "---:" for i in range(len(section.columns))]
    lines = ["| " + " | ".join(_cell(c) for c in section.columns) + " |",
             "|" + "|".join(align) + "|"]
    lines += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in section.rows]
    return "\n".join(lines) + "\n"


def markdown(section: Section, level: int = 2) -> str:
    """Heading, table, notes and footer of one section."""
    parts = [f"{'#' * level} {section.title}\n"]
    table = markdown_table(section)
    if table:
        parts.append(table)
    if section.notes:
        parts.append("".join(f"- Note: {' '.join(n.split())}\n" for n in section.notes))
    if section.footer and section.rows:
        parts += [f"{f}\n" for f in section.footer]
    return "\n".join(parts)


def markdown_document(sections: Iterable[Section], title: str) -> str:
    """Several sections under one top-level heading."""
    return f"# {title}\n\n" + "\n".join(markdown(s) for s in sections)


def csv_text(section: Section) -> str:
    """The section's raw records as CSV (columns in first-seen order; empty cell for none)."""
    fields: dict[str, None] = {}
    for record in section.records:
        fields.update(dict.fromkeys(record))
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(fields), lineterminator="\n")
    writer.writeheader()
    for record in section.records:
        writer.writerow({k: _csv_value(v) for k, v in clean(record).items()})
    return out.getvalue()


def _csv_value(value: Any) -> Any:
    if value is None:
        return ""
    if isinstance(value, (list, dict)):
        return json.dumps(value, sort_keys=True)
    return value
