"""The feedback track's plot as inline SVG: pass rate by turn, one line per condition with its
interval as a bar, one small chart per feedback arm and grade."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from html import escape
from typing import Any

from reports.render_data import grade_label, num
from reports.render_svg import FONT_SIZE, condition_colors, text_width

_FONT = f'font-family="system-ui, sans-serif" font-size="{FONT_SIZE}"'


def turn_plots(records: Sequence[Mapping[str, Any]], conditions: Sequence[str]) -> list[str]:
    """One chart per multi-turn arm and grade from the ``turn_rates`` records."""
    colors = condition_colors(conditions)
    groups: dict[tuple[str, str, str], list[Mapping[str, Any]]] = {}
    for record in records:
        if record.get("measure", "pass") != "pass":  # the decided share is not a curve
            continue
        key = (str(record["model"]), str(record["feedback"]), str(record["grade"]))
        groups.setdefault(key, []).append(record)
    return [_chart(key, rows, colors) for key, rows in groups.items()
            if max(int(r["turn"]) for r in rows) >= 2]


def _chart(key: tuple[str, str, str], rows: Sequence[Mapping[str, Any]],
           colors: Mapping[str, str]) -> str:
    model, feedback, grade = key
    last = max(int(r["turn"]) for r in rows)
    title = f"{model} · feedback {feedback} · {grade_label(grade)}"
    left, top, height = 40, 34, 160
    width = max(300, 64 * last + 40, math.ceil(text_width(title, bold=True)) - left)

    def sx(turn: int) -> float:
        return left + 20 + (turn - 1) * (width - 40) / max(1, last - 1)

    def sy(value: float) -> float:
        return top + height - value * height / 100

    parts = [f'<svg width="{left + width + 10}" height="{top + height + 34}" role="img" '
             f'aria-label="pass rate by turn, {escape(title)}" {_FONT}>',
             f'<text x="4" y="14" font-weight="bold">{escape(title)}</text>']
    for tick in range(0, 101, 25):
        parts.append(f'<line x1="{left}" x2="{left + width}" y1="{sy(tick):.1f}" '
                     f'y2="{sy(tick):.1f}" stroke="#ddd"/><text x="{left - 6}" '
                     f'y="{sy(tick) + 4:.1f}" text-anchor="end">{tick}</text>')
    for turn in range(1, last + 1):
        parts.append(f'<text x="{sx(turn):.1f}" y="{top + height + 16}" text-anchor="middle">'
                     f'turn {turn}</text>')
    by_condition: dict[str, list[Mapping[str, Any]]] = {}
    for row in rows:
        by_condition.setdefault(str(row["condition"]), []).append(row)
    for i, (cond, points) in enumerate(by_condition.items()):
        color = colors.get(cond, "#333")
        shift = (i - (len(by_condition) - 1) / 2) * 7  # conditions side by side at each turn
        points = sorted(points, key=lambda r: int(r["turn"]))
        path = " ".join(f"{sx(int(p['turn'])) + shift:.1f},{sy(float(p['mean'])):.1f}"
                        for p in points)
        parts.append(f'<polyline points="{path}" fill="none" stroke="{color}" stroke-width="2"/>')
        for p in points:
            x = sx(int(p["turn"])) + shift
            mean, low, high = float(p["mean"]), float(p["low"]), float(p["high"])
            parts.append(f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{sy(low):.1f}" y2="{sy(high):.1f}" '
                         f'stroke="{color}" stroke-opacity="0.5" stroke-width="5"/>'
                         f'<circle cx="{x:.1f}" cy="{sy(mean):.1f}" r="4" fill="{color}">'
                         f'<title>{escape(cond)}, turn {p["turn"]}: {num(mean)}% '
                         f'({num(low)} to {num(high)})</title></circle>')
    parts.append("</svg>")
    return "".join(parts)
