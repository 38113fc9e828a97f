"""The failure taxonomy's stacked bars as inline SVG: one chart per stage, one bar per model and
condition, its segments the stage's classes (share of the outputs), a legend below. Hand-written
like :mod:`reports.render_svg`: every text is measured with its upper estimate
(:func:`reports.render_svg.text_width`) so that nothing is clipped or overlaps."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from html import escape

from reports.render_data import num
from reports.render_svg import FONT_SIZE, PAGE_WIDTH, text_width
from reports.taxonomy import CLASSES, Class

_FONT = f'font-family="system-ui, sans-serif" font-size="{FONT_SIZE}"'
BAR_HEIGHT, ROW_GAP, SWATCH = 18, 8, 11
LEGEND_ROW = 18
MAX_BAR = 640
MIN_BAR = 320


def stacked_bars(stage: str, counts: Mapping[tuple[str, str], Mapping[str, int]],
                 conditions: Sequence[str]) -> str:
    """The chart of ``stage``: ``counts`` is (model, condition) -> class -> outputs; one bar
    per model and condition (models sorted, conditions in ``conditions`` order)."""
    order = {c: i for i, c in enumerate(conditions)}
    bars = sorted(counts, key=lambda k: (k[0], order.get(k[1], len(order)), k[1]))
    multi = len({m for m, _ in bars}) > 1 or len(conditions) > 1
    labels = [f"{m} · {c}" if multi else m for m, c in bars]
    totals = [sum(counts[b].values()) for b in bars]
    ends = [f"n = {t}" for t in totals]
    label_w = max(120, math.ceil(max(map(text_width, labels), default=0.0)) + 16)
    end_w = math.ceil(max(map(text_width, ends), default=0.0)) + 16
    title = f"{stage}: share of outputs per class"
    bar_w = max(MIN_BAR, min(MAX_BAR, PAGE_WIDTH - label_w - end_w))
    width = max(label_w + bar_w + end_w, math.ceil(text_width(title, bold=True)) + 10)
    used = [c for c in CLASSES[stage] if any(counts[b].get(c.key) for b in bars)]
    legend, legend_h = _legend(used, label_w, width)
    top = 30
    axis = top + len(bars) * (BAR_HEIGHT + ROW_GAP)
    height = axis + 18 + legend_h + 6
    parts = [f'<svg width="{width}" height="{height}" role="img" '
             f'aria-label="failure taxonomy, {escape(stage)}" {_FONT}>',
             f'<text x="{label_w}" y="16" font-weight="bold">{escape(title)}</text>']
    for tick in (0, 25, 50, 75, 100):
        x = label_w + tick * bar_w / 100
        parts.append(f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{top - 4}" y2="{axis}" '
                     f'stroke="#e4e4e4"/><text x="{x:.1f}" y="{axis + 13}" '
                     f'text-anchor="middle" fill="#666">{tick}%</text>')
    for i, (bar, label, total, end) in enumerate(zip(bars, labels, totals, ends, strict=True)):
        y = top + i * (BAR_HEIGHT + ROW_GAP)
        parts.append(f'<text x="{label_w - 8}" y="{y + 13}" text-anchor="end">'
                     f'{escape(label)}</text>')
        x = float(label_w)
        for cls in used:
            n = counts[bar].get(cls.key, 0)
            if not n:
                continue
            w = bar_w * n / total
            share = 100.0 * n / total
            tip = f"{label}: {cls.label}, {n} of {total} ({num(share)}%)"
            parts.append(f'<rect x="{x:.2f}" y="{y}" width="{w:.2f}" height="{BAR_HEIGHT}" '
                         f'fill="{cls.color}" stroke="#fff" stroke-width="0.5">'
                         f'<title>{escape(tip)}</title></rect>')
            text = f"{share:.0f}%"
            if w >= text_width(text, 9) + 4:
                parts.append(f'<text x="{x + w / 2:.2f}" y="{y + 12.5}" text-anchor="middle" '
                             f'font-size="9" fill="{_ink(cls.color)}">{text}</text>')
            x += w
        parts.append(f'<text x="{label_w + bar_w + 8}" y="{y + 13}" fill="#555">'
                     f'{escape(end)}</text>')
    parts.append(f'<g transform="translate(0,{axis + 24})">{legend}</g>')
    parts.append("</svg>")
    return "".join(parts)


def _legend(used: Sequence[Class], left: int, width: int) -> tuple[str, int]:
    """The legend of the classes ``used``: swatch and label, wrapped at ``width`` (from
    ``left``, or from the SVG's left edge when an item would not fit there); its height."""
    items = [SWATCH + 5 + math.ceil(text_width(cls.label)) + 14 for cls in used]
    start = float(left if width - left >= max(items, default=0) else 10)
    parts: list[str] = []
    x, row = start, 0
    for cls, item in zip(used, items, strict=True):
        if x + item > width and x > start:
            x, row = start, row + 1
        y = row * LEGEND_ROW
        parts.append(f'<rect x="{x:.1f}" y="{y}" width="{SWATCH}" height="{SWATCH}" '
                     f'fill="{cls.color}"/><text x="{x + SWATCH + 5:.1f}" '
                     f'y="{y + 10}">{escape(cls.label)}</text>')
        x += item
    return "".join(parts), (row + 1) * LEGEND_ROW if used else 0


def _ink(color: str) -> str:
    """Black or white text, whichever reads on ``color`` (#rrggbb)."""
    r, g, b = (int(color[i:i + 2], 16) for i in (1, 3, 5))
    return "#111" if 0.299 * r + 0.587 * g + 0.114 * b > 150 else "#fff"
