"""Where a test run's time goes: seconds per test file and per test, from pytest's JUnit XML.

Run: `pytest ... --junitxml=RUN.xml` first, then
`python scripts/test_times.py RUN.xml [--top 25] [--workers 2] [--out F]`.

Prints the run's test count and summed seconds (setup, call and teardown, as the XML's `time`
holds them), the estimated wall time at `--workers` processes (the sum divided by them: xdist
keeps both busy until the last tests), and the files and single tests that take longest, so a
fixed CI sample can be chosen from measured times rather than guessed. Times measured on a
loaded machine are inflated alike; compare shares, not absolute seconds, across machines.
"""

from __future__ import annotations

import argparse
import xml.etree.ElementTree as ET
from collections import defaultdict
from pathlib import Path


def test_file(classname: str) -> str:
    """The test file of a JUnit `classname` (`tests.pkg.test_mod` or `tests.pkg.test_mod.TestCls`):
    pytest appends the class of a method, and test classes are capitalised."""
    parts = classname.split(".") if classname else []
    while parts and parts[-1][:1].isupper():
        parts.pop()
    return "/".join(parts) + ".py" if parts else "?"


def read_times(path: Path) -> list[tuple[str, str, float, str]]:
    """(file, test name, seconds, outcome) of every test case in the JUnit XML at `path`."""
    try:
        root = ET.parse(path).getroot()  # noqa: S314 - pytest's own report, not untrusted input
    except (OSError, ET.ParseError) as exc:
        raise SystemExit(f"test_times: cannot read {path}: {exc}") from exc
    out: list[tuple[str, str, float, str]] = []
    for case in root.iter("testcase"):
        file = test_file(case.get("classname", ""))
        outcome = ("failed" if case.find("failure") is not None or case.find("error") is not None
                   else "skipped" if case.find("skipped") is not None else "passed")
        out.append((file, case.get("name", "?"), float(case.get("time") or 0.0), outcome))
    return out


def render(times: list[tuple[str, str, float, str]], *, top: int, workers: int) -> str:
    by_file: dict[str, float] = defaultdict(float)
    count: dict[str, int] = defaultdict(int)
    for file, _, seconds, _ in times:
        by_file[file] += seconds
        count[file] += 1
    total = sum(s for _, _, s, _ in times)
    outcomes: dict[str, int] = defaultdict(int)
    for *_, outcome in times:
        outcomes[outcome] += 1
    lines = [f"{len(times)} tests ({', '.join(f'{v} {k}' for k, v in sorted(outcomes.items()))}),"
             f" {total / 60:.1f} min summed, about {total / 60 / workers:.1f} min of wall time at "
             f"{workers} processes", "", "| file | tests | seconds | share |", "|---|---|---|---|"]
    for file, seconds in sorted(by_file.items(), key=lambda kv: -kv[1])[:top]:
        lines.append(f"| {file} | {count[file]} | {seconds:.0f} | {seconds / total:.1%} |"
                     if total else f"| {file} | {count[file]} | 0 | - |")
    lines += ["", "| test | seconds |", "|---|---|"]
    for file, name, seconds, _ in sorted(times, key=lambda t: -t[2])[:top]:
        lines.append(f"| {file}::{name} | {seconds:.0f} |")
    return "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("xml", type=Path, help="pytest's --junitxml file")
    ap.add_argument("--top", type=int, default=25, help="files and tests listed (25)")
    ap.add_argument("--workers", type=int, default=2, help="xdist processes of the run (2)")
    ap.add_argument("--out", type=Path, help="also write the Markdown here")
    args = ap.parse_args()
    if args.workers < 1:
        ap.error("--workers must be at least 1")
    times = read_times(args.xml)
    if not times:
        ap.error(f"{args.xml} holds no test case")
    text = render(times, top=args.top, workers=args.workers)
    if args.out:
        args.out.write_text(text, encoding="utf-8")
    print(text, end="")


if __name__ == "__main__":
    main()
