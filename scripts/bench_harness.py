"""Median seconds per SANY parse and TLC check: plain fresh `java` vs the ALIAS harness.

Run: `python scripts/bench_harness.py [--reps N] [--out scripts/results/harness.md]`.
The plain baseline is `java -cp tla2tools.jar tla2sany.SANY|tlc2.TLC ...` with no tuning, one
process per call, each in its own temp dir (what a simple harness does). The harness numbers are
warm: JVM workers are started before timing (their start-up cost is printed separately).
"""

from __future__ import annotations

import argparse
import platform
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from tlc_harness.tools.runner import Harness
from tlc_harness.tools.toolchain import get_toolchain

HERE = Path(__file__).resolve().parent
SPECS = {"tiny (Tick, 12 states)": "Tick", "medium (Dials, 100,000 states)": "Dials"}


def plain(kind: str, module: str) -> tuple[float, str]:
    tc = get_toolchain()
    with tempfile.TemporaryDirectory(prefix="alias-bench-") as tmp:
        work = Path(tmp)
        for ext in (".tla", ".cfg"):
            shutil.copy(HERE / "specs" / f"{module}{ext}", work)
        main = ["tla2sany.SANY", f"{module}.tla"] if kind == "parse" else [
            "tlc2.TLC", "-tool", "-workers", "1", "-metadir", str(work / "m"),
            "-config", f"{module}.cfg", f"{module}.tla"]
        start = time.perf_counter()
        proc = subprocess.run([str(tc.java), f"-Djava.io.tmpdir={work}", "-cp", str(tc.jar),
                               *main], cwd=work, capture_output=True, text=True, timeout=600,
                              check=False)
        seconds = time.perf_counter() - start
    distinct = ""
    for line in proc.stdout.splitlines():
        if "distinct states found" in line and "left on queue" in line:
            distinct = line.split(" distinct")[0].split(", ")[-1]
    return seconds, distinct


def harnessed(h: Harness, kind: str, module: str) -> tuple[float, str]:
    path = HERE / "specs" / f"{module}.tla"
    start = time.perf_counter()
    if kind == "parse":
        ok = h.parse(path).ok
        return time.perf_counter() - start, "ok" if ok else "FAILED"
    result = h.check(path)
    return time.perf_counter() - start, f"{result.verdict.value} {result.distinct_states}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--reps", type=int, default=15, help="runs per tiny measurement (15)")
    ap.add_argument("--medium-reps", type=int, default=5, help="runs per medium check (5)")
    ap.add_argument("--out", type=Path, default=HERE / "results" / "harness.md")
    args = ap.parse_args()
    tc = get_toolchain()
    rows = []
    start = time.perf_counter()
    pool = Harness(backend="pool")
    fresh = Harness(backend="fresh")
    pool.parse(HERE / "specs" / "Tick.tla")
    pool.check(HERE / "specs" / "Tick.tla")
    fresh.check(HERE / "specs" / "Tick.tla")  # builds the class-data-sharing archive once
    warmup = time.perf_counter() - start
    try:
        for label, module in SPECS.items():
            for kind in ("parse", "check"):
                reps = args.medium_reps if (module == "Dials" and kind == "check") else args.reps
                times: dict[str, list[float]] = {"plain": [], "fresh": [], "pool": []}
                seen = {}
                for _ in range(reps):  # interleaved so machine noise hits all three alike
                    t, seen["plain"] = plain(kind, module)
                    times["plain"].append(t)
                    t, seen["fresh"] = harnessed(fresh, kind, module)
                    times["fresh"].append(t)
                    t, seen["pool"] = harnessed(pool, kind, module)
                    times["pool"].append(t)
                med = {k: statistics.median(v) for k, v in times.items()}
                rows.append((label, kind, reps, med, seen))
                print(label, kind, {k: round(v, 3) for k, v in med.items()}, seen, flush=True)
    finally:
        pool.close()
        fresh.close()
    lines = [
        "# Harness speed: plain fresh `java` vs the ALIAS harness",
        "",
        f"Machine: {platform.machine()}, {platform.system()} {platform.release()}, "
        f"Python {platform.python_version()}; Java {tc.java_version} ({tc.java_source}); "
        f"{tc.jar_version}.",
        f"Worker start-up and archive warm-up before timing: {warmup:.2f} s (paid once per run).",
        "",
        "| spec | call | reps | plain java (median s) | harness fresh JVM | harness pool "
        "| plain / pool |",
        "|---|---|---|---|---|---|---|",
    ]
    for label, kind, reps, med, _ in rows:
        lines.append(f"| {label} | {kind} | {reps} | {med['plain']:.3f} | {med['fresh']:.3f} | "
                     f"{med['pool']:.3f} | {med['plain'] / med['pool']:.1f}x |")
    lines += ["", "Results agree across the three ways of running (verdict and distinct states): "
              + ", ".join(f"{label} {kind}: {seen['pool']}" for label, kind, _, _, seen in rows)]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
