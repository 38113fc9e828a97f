"""How fast the command line answers: `alias-bench --help`, and a one-shot `alias-bench check`
of a 12-state spec beside a bare `java` run of TLC on the same spec.

Run: `python scripts/cli_startup.py [--reps N] [--out scripts/results/cli_startup.md]`.
Every command is a new process, timed from start to exit (median of N, interleaved so that a
busy machine slows all alike). The bare run is `java -cp tla2tools.jar tlc2.TLC` in a temp dir
(TLC parses the module itself); `alias-bench check` parses with SANY and then checks with TLC.
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tlc_harness.tools.toolchain import get_toolchain

HERE = Path(__file__).resolve().parent
SPEC = "Tick"  # scripts/specs/Tick.tla: 12 distinct states


def timed(command: list[str], cwd: Path) -> float:
    start = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=600,
                          check=False)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} exited {done.returncode}:\n{done.stderr[-2000:]}")
    return seconds


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--out", type=Path, default=HERE / "results" / "cli_startup.md")
    args = ap.parse_args()
    tc = get_toolchain()
    cli = str(Path(sys.executable).with_name("alias-bench"))
    with tempfile.TemporaryDirectory(prefix="alias-cli-") as tmp:
        work = Path(tmp)
        for ext in (".tla", ".cfg"):
            shutil.copy(HERE / "specs" / f"{SPEC}{ext}", work)
        commands = {
            "alias-bench --help": [cli, "--help"],
            "alias-bench check (default backend)": [cli, "check", f"{SPEC}.tla"],
            "alias-bench check --backend pool": [cli, "check", f"{SPEC}.tla", "--backend", "pool"],
            "bare java tlc2.TLC": [str(tc.java), f"-Djava.io.tmpdir={work}", "-cp", str(tc.jar),
                                   "tlc2.TLC", "-workers", "1", "-metadir", str(work / "m"),
                                   "-config", f"{SPEC}.cfg", f"{SPEC}.tla"],
        }
        for command in commands.values():  # warm-up: file caches, the class-data archive
            timed(command, work)
        times: dict[str, list[float]] = {name: [] for name in commands}
        for rep in range(args.reps):
            for name, command in commands.items():
                times[name].append(timed(command, work))
            print(f"rep {rep + 1}/{args.reps}", file=sys.stderr)
    bare = statistics.median(times["bare java tlc2.TLC"])
    lines = [
        "# Command-line start-up", "",
        f"`python scripts/cli_startup.py --reps {args.reps}` on {platform.platform()}, "
        f"{os.cpu_count()} CPUs, {tc.java_version}, load average "
        f"{os.getloadavg()[0]:.1f} at the end.", "",
        "| command | median s | min s | vs bare java |", "|---|---:|---:|---:|",
    ]
    for name, values in times.items():
        med = statistics.median(values)
        lines.append(f"| {name} | {med:.3f} | {min(values):.3f} | {med / bare:.2f}x |")
    text = "\n".join(lines) + "\n"
    args.out.write_text(text, encoding="utf-8")
    print(text)


if __name__ == "__main__":
    main()
