"""The report's two plots as inline SVG: pass rates per condition and grade, and the renaming
decrease with its interval per grade. Hand-written SVG: deterministic, no fonts or scripts.

An SVG clips what lies outside it, so each plot is made wide enough for its longest label by
:func:`text_width`, an upper estimate of a text's width."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from html import escape
from typing import Any

from reports.render_data import grade_label, num

PALETTE = ("#4c72b0", "#dd8452", "#55a868", "#8172b3", "#937860", "#da8bc3")
FONT_SIZE = 11
_FONT = f'font-family="system-ui, sans-serif" font-size="{FONT_SIZE}"'
PAGE_WIDTH = 1180
"""The widest a plot is made when it can be (the page's content is 1,192 px at most)."""
_EM_WIDTHS = {0.3: "'IJijl", 0.35: " ,./:;\\|·", 0.4: "()-[]ft", 0.45: "!r", 0.5: '"*_`–',
              0.55: "?csz", 0.6: "FLkvxy", 0.65: "$0123456789EPSTYabdeghnopqu{}",
              0.7: "ABCKRVXZ", 0.75: "NU", 0.8: "&DGHOQ", 0.85: "#+<=>^w~−±↦", 0.9: "M"}
_TWO_LABELS = 13
"""The least height (px) of a bar's pale part that holds the lower bound's label, the upper
bound's above it."""
_EM = {char: width for width, chars in _EM_WIDTHS.items() for char in chars}


def text_width(text: str, size: float = FONT_SIZE, *, bold: bool = False) -> float:
    """An upper estimate of `text`'s width in px: DejaVu Sans' advance widths (wider than the
    usual system-ui fonts; 1 em for any other character) and 5% more, 15% more for bold."""
    ems = sum(_EM.get(char, 1.0) for char in text)
    return ems * size * 1.05 * (1.15 if bold else 1.0)


def condition_colors(conditions: Sequence[str]) -> dict[str, str]:
    """A fixed colour per condition, in table order."""
    return {c: PALETTE[i % len(PALETTE)] for i, c in enumerate(conditions)}


def legend(colors: Mapping[str, str]) -> str:
    """An HTML legend of the condition colours."""
    return "".join(f'<span class="key"><span class="swatch" style="background:{color}">'
                   f'</span>{escape(cond)}</span>' for cond, color in colors.items())


def pass_rate_plots(records: Sequence[Mapping[str, Any]], conditions: Sequence[str]
                    ) -> list[str]:
    """One bar chart per model: grades along x, a bar per condition, percent on y; a pale
    extension of a behavior bar reaches its upper bound (``COND_upper``)."""
    colors = condition_colors(conditions)
    by_model: dict[str, list[Mapping[str, Any]]] = {}
    for record in records:
        by_model.setdefault(str(record["model"]), []).append(record)
    return [_bars(model, rows, conditions, colors) for model, rows in by_model.items()]


def _bars(model: str, rows: Sequence[Mapping[str, Any]], conditions: Sequence[str],
          colors: Mapping[str, str]) -> str:
    bar, left, top, height = 30, 44, 34, 180
    group = bar * len(conditions)
    grade_w = max((text_width(grade_label(str(r["grade"]))) for r in rows), default=0.0)
    gap = max(34, math.ceil(grade_w) + 8 - group)  # the grade names below never touch
    width = max(left + len(rows) * (group + gap) + 10,
                left + math.ceil(text_width(model, bold=True)) + 10)
    parts = [f'<svg width="{width}" height="{top + height + 40}"'
             f' role="img" aria-label="pass rates of {escape(model)}" {_FONT}>',
             f'<text x="{left}" y="14" font-weight="bold">{escape(model)}</text>']
    for tick in range(0, 101, 25):
        y = top + height - tick * height / 100
        parts.append(f'<line x1="{left}" x2="{width - 10}" y1="{y:.1f}" y2="{y:.1f}" '
                     f'stroke="#ddd"/><text x="{left - 6}" y="{y + 4:.1f}" '
                     f'text-anchor="end">{tick}</text>')
    for i, row in enumerate(rows):
        x0 = left + gap / 2 + i * (group + gap)
        for j, cond in enumerate(conditions):
            value = row.get(cond)
            if not isinstance(value, (int, float)) or not math.isfinite(value):
                continue
            h = value * height / 100
            x, y = x0 + j * bar, top + height - h
            upper = row.get(f"{cond}_upper")
            reach = float(upper) if isinstance(upper, (int, float)) and math.isfinite(upper) \
                and upper > value else value
            y_top = top + height - reach * height / 100
            span = f"{num(value)}–{num(reach)}" if reach > value else num(value)
            if reach > value:  # up to the upper bound: undecided cases counted as passes
                parts.append(f'<rect x="{x:.1f}" y="{y_top:.1f}" width="{bar - 3}" '
                             f'height="{y - y_top:.1f}" fill="{colors[cond]}" '
                             f'fill-opacity="0.3"><title>{escape(cond)}: {span}%'
                             f'</title></rect>')
            middle = x + (bar - 3) / 2
            parts.append(f'<rect x="{x:.1f}" y="{y:.1f}" width="{bar - 3}" height="{h:.1f}" '
                         f'fill="{colors[cond]}"><title>{escape(cond)}: {span}%</title></rect>')
            if y - y_top >= _TWO_LABELS:  # the lower bound inside the pale part, the upper above
                parts.append(f'<text x="{middle:.1f}" y="{y - 3:.1f}" text-anchor="middle" '
                             f'font-size="9">{num(value)}</text><text x="{middle:.1f}" '
                             f'y="{y_top - 3:.1f}" text-anchor="middle" font-size="9" '
                             f'fill="#777">{num(reach)}</text>')
            else:
                parts.append(f'<text x="{middle:.1f}" y="{y_top - 3:.1f}" '
                             f'text-anchor="middle" font-size="9">{num(value)}</text>')
        parts.append(f'<text x="{x0 + group / 2:.1f}" y="{top + height + 16}" '
                     f'text-anchor="middle">{escape(grade_label(str(row["grade"])))}</text>'
                     f'<text x="{x0 + group / 2:.1f}" y="{top + height + 30}" '
                     f'text-anchor="middle" fill="#666">{row.get("tasks", "")} tasks</text>')
    parts.append("</svg>")
    return "".join(parts)


def _ticks(low: float, high: float) -> tuple[float, float, float]:
    span = high - low
    step = 5.0 if span <= 40 else 10.0 if span <= 100 else 25.0
    return math.floor(low / step) * step, math.ceil(high / step) * step, step


def bound_rows(records: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """Difference records with a behavior record whose bounds differ split into a ``(lower)``
    and an ``(upper)`` row (from its ``upper_*`` fields)."""
    rows: list[Mapping[str, Any]] = []
    for r in records:
        if r.get("upper_mean") is None or (r.get("decided_share_a") == 100.0
                                           and r.get("decided_share_b") == 100.0):
            rows.append(r)
            continue
        label = grade_label(str(r["grade"]))
        rows += [{**r, "grade": f"{label} (lower)"},
                 {**r, "grade": f"{label} (upper)", "mean": r["upper_mean"],
                  "ci_low": r["upper_ci_low"], "ci_high": r["upper_ci_high"]}]
    return rows


def decrease_plot(records: Sequence[Mapping[str, Any]], conditions: Sequence[str],
                  margin: float) -> str:
    """A forest plot: one row per model, grade and comparison (behavior: per bound, when they
    differ); dot = mean decrease, line = 95% interval, shaded band = the ±margin equivalence
    zone, dashed line = no change."""
    records = bound_rows(records)
    colors = condition_colors(conditions)
    labels = [f'{r["model"]} · {grade_label(str(r["grade"]))} · {r["cond_a"]} − {r["cond_b"]}'
              for r in records]
    values = [f'{num(float(r["mean"]))} [{num(float(r["ci_low"]))}, {num(float(r["ci_high"]))}]'
              for r in records]
    title = f"decrease in points (original − renamed); shaded: ±{margin:g} equivalence zone"
    label_w = max(300, math.ceil(max(map(text_width, labels), default=0.0)) + 20)
    value_w = max(130, math.ceil(max(map(text_width, values), default=0.0)) + 22)
    plot_w = max(math.ceil(text_width(title)) + 10 - value_w,
                 min(520, max(320, PAGE_WIDTH - label_w - value_w)))
    row_h, top = 24, 30
    lows = [float(r["ci_low"]) for r in records] + [-margin]
    highs = [float(r["ci_high"]) for r in records] + [margin]
    lo, hi, step = _ticks(min(lows) - 1, max(highs) + 1)

    def sx(v: float) -> float:
        return label_w + (v - lo) / (hi - lo) * plot_w

    height = top + row_h * len(records) + 30
    width = label_w + plot_w + value_w
    parts = [f'<svg width="{width}" height="{height}" '
             f'role="img" aria-label="renaming decrease per grade" {_FONT}>',
             f'<rect x="{sx(-margin):.1f}" y="{top - 6}" width="{sx(margin) - sx(-margin):.1f}" '
             f'height="{row_h * len(records) + 6}" fill="#eef5ee"/>']
    tick = lo
    while tick <= hi + 1e-9:
        x = sx(tick)
        parts.append(f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{top - 6}" y2="{height - 24}" '
                     f'stroke="#e4e4e4"/><text x="{x:.1f}" y="{height - 10}" '
                     f'text-anchor="middle">{num(tick, 0)}</text>')
        tick += step
    parts.append(f'<line x1="{sx(0):.1f}" x2="{sx(0):.1f}" y1="{top - 6}" y2="{height - 24}" '
                 f'stroke="#333" stroke-dasharray="4 3"/>'
                 f'<text x="{label_w}" y="16" fill="#555">{escape(title)}</text>')
    for i, (r, label, value) in enumerate(zip(records, labels, values, strict=True)):
        y = top + i * row_h + row_h / 2
        color = colors.get(str(r["cond_b"]), "#333")
        parts.append(f'<text x="{label_w - 10}" y="{y + 4:.1f}" text-anchor="end">'
                     f'{escape(label)}</text>'
                     f'<line x1="{sx(float(r["ci_low"])):.1f}" x2="{sx(float(r["ci_high"])):.1f}" '
                     f'y1="{y:.1f}" y2="{y:.1f}" stroke="{color}" stroke-width="2.5"/>'
                     f'<circle cx="{sx(float(r["mean"])):.1f}" cy="{y:.1f}" r="5" fill="{color}">'
                     f'<title>{escape(label)}: {num(float(r["mean"]))} '
                     f'({num(float(r["ci_low"]))} to {num(float(r["ci_high"]))})</title></circle>'
                     f'<text x="{label_w + plot_w + 12}" y="{y + 4:.1f}">{value}</text>')
    parts.append("</svg>")
    return "".join(parts)
