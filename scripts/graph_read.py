"""How long exploring a reference's state graph takes, and how much of it is reading TLC's dump.

Explores the graph of every reference model the corpus outputs are graded against (the local
model `scripts/real_outputs.py` picks), one at a time, without the graph cache, as a cold
self-check does, and times the whole exploration (TLC plus reading its dot dump) and the
reading alone. Run it with another checkout on `PYTHONPATH` to time that checkout's reader on
the same machine:

    python scripts/graph_read.py --out scripts/results/graph_read.md
    PYTHONPATH=/path/to/other/checkout python scripts/graph_read.py --label before
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import tlc_harness.behavior.graphs as graphs
from alias_fixtures.tasks.loaders import load_examples
from tlc_harness.behavior.graphs import explore
from tlc_harness.tools.runner import Harness

ROOT = Path(__file__).resolve().parents[1]


def references(corpus: Path) -> list[tuple[str, str]]:
    """(spec_dir, cfg) of each manifest entry's reference model, as `real_outputs.py` picks it."""
    found: dict[tuple[str, str], None] = {}
    for entry in json.loads((corpus / "tla-bench-outputs" / "manifest.json").read_text()):
        ref = entry["reference"]
        models = ref["local_models"]
        own = [m for m in models if m["module"] == ref["module_file"]]
        pick = next((m for m in own if m.get("passes_local_tlc2020")), (own or models)[0])
        found.setdefault((ref["spec_dir"], pick["cfg"]))
    return list(found)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=ROOT.parent / "shared" / "corpus")
    parser.add_argument("--budget", type=int, default=50_000, help="graph budget (states)")
    parser.add_argument("--timeout", type=float, default=60.0, help="TLC limit per run (s)")
    parser.add_argument("--min-states", type=int, default=1_000,
                        help="list references with at least this many states (all are summed)")
    parser.add_argument("--only", default="", help="these reference tasks only (ID,ID)")
    parser.add_argument("--label", default="", help="a name for this run in the output")
    parser.add_argument("--out", type=Path, help="write the markdown here too")
    args = parser.parse_args()
    if not (args.corpus / "tla-bench-outputs" / "manifest.json").is_file():
        sys.exit(f"no corpus manifest under {args.corpus} (--corpus)")

    reading: list[float] = []
    read = graphs.read_dot

    def timed_read(*a: Any, **kw: Any) -> Any:
        t0 = time.monotonic()
        try:
            return read(*a, **kw)
        finally:
            reading.append(time.monotonic() - t0)

    graphs.read_dot = timed_read  # read_dot_safely looks it up when called
    tasks = {(str(t.extra.get("spec_dir")), str(t.extra.get("cfg"))): t
             for t in load_examples(args.corpus / "tlaplus-examples")}
    rows: list[dict[str, Any]] = []
    harness = Harness()
    try:
        for n, key in enumerate(references(args.corpus), 1):
            task = tasks.get(key)
            if task is None or (args.only and task.id not in args.only.split(",")):
                continue
            reading.clear()
            t0 = time.monotonic()
            found = explore(harness, task.spec(), task.cfg, tlc_args=task.tlc_args,
                            budget=args.budget, timeout=args.timeout)
            wall = time.monotonic() - t0
            rows.append({"task": task.id, "states": len(found.graph) if found.graph else None,
                         "verdict": found.verdict, "explore": round(wall, 2),
                         "read": round(sum(reading), 2)})
            print(f"[{n}] {task.id}: {found.verdict}, {rows[-1]['states']} states, "
                  f"{wall:.1f} s, reading {sum(reading):.1f} s", file=sys.stderr, flush=True)
    finally:
        harness.close()
    text = render(rows, args)
    print(text)
    if args.out:
        args.out.write_text(text, encoding="utf-8")


def render(rows: list[dict[str, Any]], args: argparse.Namespace) -> str:
    commit = subprocess.run(["git", "-C", str(Path(graphs.__file__).parent), "rev-parse",
                             "--short", "HEAD"], capture_output=True, text=True,
                            check=False).stdout.strip()
    when = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    lines = [f"# Exploring the corpus references' graphs{' (' + args.label + ')' if args.label else ''}",
             "", f"`python scripts/graph_read.py` at {commit or 'unknown'} ({graphs.__file__}), "
             f"{when}; budget {args.budget} states, TLC limit {args.timeout:g} s, no cache.", "",
             "| reference | states | exploration s | of which reading the dump s |",
             "|---|---|---|---|"]
    for row in sorted(rows, key=lambda r: -(r["states"] or 0)):
        if (row["states"] or 0) >= args.min_states:
            lines.append(f"| {row['task']} | {row['states']} | {row['explore']} | {row['read']} |")
    ok = [r for r in rows if r["states"] is not None]
    lines += ["", f"All {len(rows)} references ({len(ok)} explored whole): exploration "
              f"{sum(r['explore'] for r in rows):.1f} s summed, reading the dumps "
              f"{sum(r['read'] for r in rows):.1f} s."]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
