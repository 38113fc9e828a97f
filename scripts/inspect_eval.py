"""An offline `inspect eval` of the ALIAS task, and its report against the benchmark's own.

Run: `python scripts/inspect_eval.py [--samples 1] [--workers 2] [--work DIR]` (needs the
`inspect` extra). Steps:

1. `inspect eval alias_bench/tla_cir --model alias/reference` on the built-in suite (every
   grade must pass: the reference model answers each variant with its own reference);
2. the same outputs, read back from the inspect log, replayed through the benchmark
   (`pytest benchmarks/test_cases.py --alias-model replay:OUTPUTS.jsonl`);
3. `alias-bench report` on the inspect log and on the benchmark's results file; their Table 1
   (without the model column, which names the two runs differently) and every case's
   verdicts must be identical.

Writes `scripts/results/inspect_eval.md`. Exit status 0 when every grade passed and both
reports agree, 1 otherwise.
"""

from __future__ import annotations

import argparse
import csv
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from inspect_ai.log import read_eval_log

from reports.inspect_log import inspect_records
from reports.results_file import read_lines

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "scripts" / "results" / "inspect_eval.md"
BIN = Path(sys.executable).parent
GRADES = ("parse", "name", "behavior")


def run(command: list[str], cwd: Path) -> float:
    """Run a command (its output to the terminal); return its wall time, fail on its exit."""
    print("$", " ".join(command), flush=True)
    start = time.monotonic()
    subprocess.run(command, cwd=cwd, check=True)
    return time.monotonic() - start


def table1(report: Path) -> tuple[list[str], list[list[str]]]:
    with (report / "table1.csv").open(encoding="utf-8") as handle:
        rows = list(csv.reader(handle))
    return rows[0], rows[1:]


def without_model(header: list[str], rows: list[list[str]]) -> list[list[str]]:
    keep = [i for i, name in enumerate(header) if name != "model"]
    return [[row[i] for i in keep] for row in rows]


def verdicts(records: list[dict[str, Any]]) -> dict[str, dict[str, str]]:
    return {r["id"]: {g: (r.get("grades") or {}).get(g, {}).get("verdict") for g in GRADES}
            for r in records if r.get("kind") == "case"}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--samples", type=int, default=1, help="samples (epochs) per variant")
    parser.add_argument("--workers", default="2", help="pytest -n for the benchmark run")
    parser.add_argument("--work", type=Path, help="work folder (default: a temporary one)")
    args = parser.parse_args()
    work = (args.work or Path(tempfile.mkdtemp(prefix="alias-inspect-eval-"))).resolve()
    work.mkdir(parents=True, exist_ok=True)
    logs = work / "logs"

    seconds_inspect = run([str(BIN / "inspect"), "eval", "alias_bench/tla_cir",
                           "--model", "alias/reference", "-T", f"samples={args.samples}",
                           "-T", f"out={work / 'inspect-out'}", "--log-dir", str(logs),
                           "--display", "none"], work)
    log_path = max(logs.glob("*.eval"), key=lambda p: p.stat().st_mtime)
    log = read_eval_log(str(log_path))
    assert log.samples is not None
    outputs = work / "outputs.jsonl"
    with outputs.open("w", encoding="utf-8") as handle:
        for sample in log.samples:
            handle.write(json.dumps({"task": sample.metadata["task"],
                                     "condition": sample.metadata["condition"],
                                     "sample": sample.epoch - 1,
                                     "text": sample.output.completion}) + "\n")
    native_out = work / "native"
    seconds_native = run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                          "-n", args.workers, str(ROOT / "benchmarks" / "test_cases.py"),
                          f"--alias-model=replay:{outputs}", f"--alias-samples={args.samples}",
                          f"--alias-out={native_out}"], ROOT)
    reports = {"inspect": work / "report-inspect", "native": work / "report-native"}
    run([str(BIN / "alias-bench"), "report", str(log_path), "--out", str(reports["inspect"])],
        work)
    run([str(BIN / "alias-bench"), "report", str(native_out / "results.jsonl"), "--out",
         str(reports["native"])], work)

    from_log = inspect_records(log_path)
    native = read_lines(native_out / "results.jsonl")
    cases = [r for r in from_log if r.get("kind") == "case"]
    all_pass = sum(all((r.get("grades") or {}).get(g, {}).get("passed") for g in GRADES)
                   for r in cases)
    head_i, rows_i = table1(reports["inspect"])
    head_n, rows_n = table1(reports["native"])
    same_table = without_model(head_i, rows_i) == without_model(head_n, rows_n)
    v_log, v_native = verdicts(from_log), verdicts(native)
    same_verdicts = sum(v_log[i] == v_native.get(i) for i in v_log)
    metrics = {s.name: {k: round(m.value, 4) for k, m in s.metrics.items()}
               for s in (log.results.scores if log.results else [])}
    ok = all_pass == len(cases) > 0 and same_table and same_verdicts == len(v_log) == len(v_native)

    text = "\n".join([
        "# inspect eval of the built-in suite (scripts/inspect_eval.py)", "",
        f"inspect_ai {log.eval.packages.get('inspect_ai')}, model `alias/reference`, "
        f"{len(log.samples)} samples ({len({s.id for s in log.samples})} variants x "
        f"{args.samples} epoch(s)), excluded variants: "
        f"{len((log.eval.metadata or {}).get('alias_excluded', []))}; log status "
        f"{log.status}.", "",
        f"- `inspect eval alias_bench/tla_cir --model alias/reference -T samples="
        f"{args.samples}`: {seconds_inspect:.0f} s wall (2 cores, shared machine)",
        f"- the same outputs replayed by the benchmark (`pytest -n {args.workers} "
        f"benchmarks/test_cases.py --alias-model replay:outputs.jsonl`): "
        f"{seconds_native:.0f} s wall",
        f"- cases with every grade passing (from the log): {all_pass} of {len(cases)}",
        f"- per-case verdicts identical (log vs benchmark): {same_verdicts} of {len(v_log)} "
        f"(benchmark cases: {len(v_native)})",
        f"- Table 1 identical (model column aside): {'yes' if same_table else 'NO'}", "",
        "inspect's metrics (accuracy per condition, `all`, stderr):", "",
        "| grade | " + " | ".join(next(iter(metrics.values()), {})) + " |",
        "|---|" + "---:|" * len(next(iter(metrics.values()), {})),
        *(f"| {g} | " + " | ".join(str(v) for v in m.values()) + " |"
          for g, m in metrics.items()), "",
        "## Table 1 from the inspect log (`alias-bench report LOG.eval`)", "",
        (reports["inspect"] / "table1.md").read_text(encoding="utf-8").split("\n", 2)[2].strip(),
        "", "## Table 1 from the benchmark's results file", "",
        (reports["native"] / "table1.md").read_text(encoding="utf-8").split("\n", 2)[2].strip(),
        ""])
    RESULTS.write_text(text, encoding="utf-8")
    print(text)
    print(f"work folder: {work}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
