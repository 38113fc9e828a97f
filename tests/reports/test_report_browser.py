"""The HTML report as a browser shows it: headless Chromium renders the page 1,300 px wide and
every text of every plot must lie whole inside its SVG (an SVG clips what lies outside) and
overlap no other text of that plot, and no plot may be wider than the page.

Chromium is found as `ALIAS_CHROMIUM`, else `chromium`, `chromium-browser`, `google-chrome` or
`google-chrome-stable` on PATH (Debian: `apt-get install chromium`; `.ci/run` installs it);
without one the test skips, saying so. The page is loaded with a script appended that measures
each text's box and writes what it finds into the page, which `--dump-dom` prints.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from reports.render import write_report
from tests.reports.test_turn_report import header, multi, one_shot, write

WIDTH = 1300
BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-quic", "--hide-scrollbars", "--virtual-time-budget=10000")
MEASURE = """<script>
(() => {
  const found = [];
  const box = (r) => [r.left, r.top, r.right, r.bottom].map((v) => Math.round(v * 10) / 10);
  document.querySelectorAll("svg").forEach((svg, i) => {
    const view = svg.getBoundingClientRect();
    const texts = [...svg.querySelectorAll("text")].map((t) => [t, t.getBoundingClientRect()]);
    const name = svg.getAttribute("aria-label") || "svg " + i;
    if (view.right > document.documentElement.clientWidth + 0.5) {
      found.push({svg: name, kind: "wider than the page", text: "", box: box(view),
                  view: [0, 0, document.documentElement.clientWidth, 0]});
    }
    texts.forEach(([t, r], j) => {
      if (r.left < view.left - 0.5 || r.right > view.right + 0.5 ||
          r.top < view.top - 0.5 || r.bottom > view.bottom + 0.5) {
        found.push({svg: name, kind: "clipped", text: t.textContent, box: box(r),
                    view: box(view)});
      }
      texts.slice(j + 1).forEach(([u, s]) => {
        const w = Math.min(r.right, s.right) - Math.max(r.left, s.left);
        const h = Math.min(r.bottom, s.bottom) - Math.max(r.top, s.top);
        if (w > 1 && h > 1) {
          found.push({svg: name, kind: "overlap", text: t.textContent + " | " + u.textContent,
                      box: box(r), view: box(s)});
        }
      });
    });
  });
  const out = document.createElement("pre");
  out.id = "alias-text-check";
  out.textContent = JSON.stringify({width: document.documentElement.clientWidth,
                                    svgs: document.querySelectorAll("svg").length,
                                    texts: document.querySelectorAll("svg text").length,
                                    found: found});
  document.body.appendChild(out);
})();
</script>"""


def chromium() -> str | None:
    """The Chromium to use, or None."""
    given = os.environ.get("ALIAS_CHROMIUM", "").strip()
    if given:
        return given
    return next((path for name in BROWSERS if (path := shutil.which(name))), None)


def measure(index: Path, work: Path) -> dict[str, Any]:
    """Render `index` at WIDTH px in headless Chromium; what the measuring script found."""
    browser = chromium()
    if browser is None:
        pytest.skip("no Chromium found (set ALIAS_CHROMIUM or install it: apt-get install "
                    "chromium); the report's plots were not checked in a browser")
    page = work / "measured.html"
    html = index.read_text(encoding="utf-8")
    page.write_text(html.replace("</body>", MEASURE + "\n</body>"), encoding="utf-8")
    profile = work / "profile"
    done = subprocess.run(
        [browser, *FLAGS, f"--user-data-dir={profile}", f"--window-size={WIDTH},900",
         "--dump-dom", page.as_uri()],
        capture_output=True, text=True, timeout=120, check=False)
    hit = re.search(r'<pre id="alias-text-check">(.*?)</pre>', done.stdout, re.S)
    assert hit is not None, f"Chromium ({browser}) ran no check: exit {done.returncode}\n" + \
        done.stderr[-2000:]
    result: dict[str, Any] = json.loads(hit.group(1).replace("&amp;", "&").replace(
        "&lt;", "<").replace("&gt;", ">"))
    return result


# -- a report with long row labels ------------------------------------------------------------

TASKS = ("alpha_clock", "beta_queue", "gamma_lock", "delta_mutex")
LONG = "openai:qwen2.5-coder-32b-instruct@http://127.0.0.1:8000/v1"


def outcome(task: int, condition: str, sample: int, shift: int) -> str:
    """A mix of passes that differs by task, condition and model."""
    if condition == "original":
        return ("nb", "nb", "b", "n")[(task + sample + shift) % 4]
    return ("nb", "b", "", "n")[(2 * task + sample + shift) % 4]


def records(model: str, shift: int, *, turns: bool) -> list[dict[str, Any]]:
    rows = []
    for t, task in enumerate(TASKS):
        for condition in ("original", "random"):
            for sample in range(2):
                first = outcome(t, condition, sample, shift)
                if turns:
                    rows.append(multi(task, condition, sample, [first, "nb"] if not first
                                      else [first], model=model))
                else:
                    rows.append(one_shot(task, condition, sample, first, model=model))
    return rows


def report(folder: Path) -> Path:
    """A feedback-track run of `demo` beside one-shot runs of two hosted models."""
    runs = [write(folder / "demo.jsonl", [header("demo"), *records("demo", 0, turns=True)]),
            write(folder / "opus.jsonl", [header("anthropic:claude-opus-4-8", turns=1),
                                          *records("anthropic:claude-opus-4-8", 1, turns=False)]),
            write(folder / "long.jsonl", [header(LONG, turns=1),
                                          *records(LONG, 2, turns=False)])]
    return write_report(runs, folder / "out", n_boot=500)


def problems(found: Sequence[dict[str, Any]]) -> str:
    return "\n".join(f"{f['kind']} in {f['svg']!r}: {f['text']!r} at {f['box']} "
                     f"(against {f['view']})" for f in found)


def test_every_plot_label_is_readable_whole(tmp_path: Path) -> None:
    index = report(tmp_path)
    html = index.read_text(encoding="utf-8")
    assert "demo [feedback parse,tlc,names] · parse · original − random" in html
    result = measure(index, tmp_path)
    assert result["width"] == WIDTH
    assert result["svgs"] == 9 and result["texts"] > 80  # every plot was there to measure
    assert result["found"] == [], problems(result["found"])


@pytest.mark.parametrize(("pattern", "moved", "kind"), [
    (r'<text x="[\d.]+" y="16" fill="#555">', '<text x="-40" y="16" fill="#555">', "clipped"),
    (r'<text x="([\d.]+)" y="14" font-weight="bold">', r'<text x="\1" y="24" '
     r'font-weight="bold">', "overlap"),
    (r'<svg width="\d+" height="(\d+)" role="img" aria-label="renaming',
     r'<svg width="1400" height="\1" role="img" aria-label="renaming', "wider than the page"),
], ids=["clipped", "overlap", "wide"])
def test_the_check_sees_a_label_that_is_not_readable(tmp_path: Path, pattern: str, moved: str,
                                                     kind: str) -> None:
    """A label pushed out of its SVG, two labels on top of each other, a plot wider than the
    page: each is found, so the check above can fail."""
    index = report(tmp_path)
    html = index.read_text(encoding="utf-8")
    broken = re.sub(pattern, moved, html, count=1)
    assert broken != html
    index.write_text(broken, encoding="utf-8")
    found = measure(index, tmp_path)["found"]
    assert found and {f["kind"] for f in found} == {kind}, problems(found)
