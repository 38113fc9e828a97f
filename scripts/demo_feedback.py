"""The feedback track's experiment on the demo model: two turns with and without name feedback.

Run: `python scripts/demo_feedback.py [--jobs 2] [--out scripts/results]`.

Three benchmark runs of the bundled demo outputs on the 24 built-in tasks (original and random,
5 samples, grades parse and name, the name grade primary): one shot; `--alias-turns 2` with the
feedback levels `parse,tlc,names`; and `--alias-turns 2` with `parse,tlc` (no name findings).
`alias-bench report` over the three results files writes the by-turn tables; their
`turns.md` is copied to `<out>/demo_feedback.md` with the commands and the commit. The demo model
is not a language model: the numbers show what the track measures, not what a model does.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from datetime import UTC, datetime
from pathlib import Path

HERE = Path(__file__).resolve().parent
ARMS: dict[str, tuple[str, ...]] = {
    "one-shot": (),
    "names": ("--alias-turns", "2", "--alias-feedback", "parse,tlc,names"),
    "no-names": ("--alias-turns", "2", "--alias-feedback", "parse,tlc"),
}


def run_arm(name: str, extra: tuple[str, ...], work: Path, jobs: int) -> Path:
    """One benchmark run of the demo model; its results file."""
    out = work / name
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", str(jobs),
               str(HERE.parent / "benchmarks" / "test_cases.py"), "--alias-model", "demo",
               "--alias-grades", "parse,name", "--alias-primary", "name",
               "--alias-out", str(out), "--alias-cache", str(work / "cache"), *extra]
    print(f"[{name}] {' '.join(command[2:])}", file=sys.stderr, flush=True)
    proc = subprocess.run(command, cwd=HERE.parent, check=False,  # noqa: S603 - pytest itself
                          capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"{name}: the benchmark run failed ({proc.returncode}):\n"
                         f"{proc.stdout[-2000:]}{proc.stderr[-2000:]}")
    return out / "results.jsonl"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--jobs", type=int, default=2, help="xdist workers per run (2)")
    ap.add_argument("--out", type=Path, default=HERE / "results")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="alias-demo-feedback-") as tmp:
        work = Path(tmp)
        results = [run_arm(name, extra, work, args.jobs) for name, extra in ARMS.items()]
        report = work / "report"
        subprocess.run([sys.executable, "-m", "alias_cli.main", "report", *map(str, results),  # noqa: S603
                        "--out", str(report)], cwd=HERE.parent, check=True)
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=HERE.parent,  # noqa: S607
                                capture_output=True, text=True, check=False).stdout.strip()
        head = ["# The feedback track on the demo model: two turns, with and without name feedback",
                "", f"`python scripts/demo_feedback.py` on "
                f"{datetime.now(UTC).strftime('%Y-%m-%d %H:%M UTC')}, commit {commit}. The demo "
                "outputs are written for this project (no language model): they repair parse "
                "failures on turn 2 when told them, and renamed invariants only when told the "
                "names; a hidden name is never told, so the renamed condition's name failures "
                "stay.", ""]
        for name, extra in ARMS.items():
            head.append(f"- {name}: `pytest -n {args.jobs} benchmarks/test_cases.py --alias-model "
                        f"demo --alias-grades parse,name --alias-primary name {' '.join(extra)}`"
                        .replace("  ", " "))
        body = (report / "turns.md").read_text(encoding="utf-8")
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / "demo_feedback.md").write_text("\n".join(head) + "\n\n" + body,
                                                   encoding="utf-8")
        shutil.copy(report / "table1.md", args.out / "demo_feedback_table1.md")
    print(f"wrote {args.out / 'demo_feedback.md'}", file=sys.stderr)


if __name__ == "__main__":
    main()
