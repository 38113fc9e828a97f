"""`alias-bench report RESULTS.jsonl [MORE.jsonl ...] [--probe FILE ...] [--prices FILE]`:
rebuild the report from saved records and probe rows.

The feedback track's cost is recomputed from each call's token counts with the shipped price
table, with `--prices FILE` laid over it (`alias_fixtures.models.cost.Prices.load`); the table
is handed to `reports` as plain lookups, so `reports` never imports `alias_fixtures`."""

from __future__ import annotations

import argparse
from pathlib import Path

from alias_cli.common import fail
from alias_fixtures.models.cost import PriceFileError, Prices
from reports.exposure import EXPOSURE_SEED
from reports.records import StatsError
from reports.render import TURNS_FILE, ExposurePair, write_report
from reports.results_file import INSPECT_SUFFIXES
from reports.stats import BOOTSTRAP_SEED, N_BOOT


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "report", help="rebuild the report (tables, stats.json, HTML) from results files",
        description="Compute Table 1, the renaming decrease, the failure taxonomy, splits and "
        "(when two runs are marked as trained on halves A and B) Table 2 from saved records, "
        "without calling a model or TLC. Several results files (e.g. one run per model) are "
        "combined into one comparison. Probe files (--probe) add the memorization probes' "
        "tables (probes.md). "
        "Records of the feedback track (--alias-turns) add turns.md: pass rate, renaming gap "
        "and DiD by turn, and the cost, priced with --prices laid over the shipped table. "
        "Exit status: 0 written, 2 unreadable input or usage error.")
    p.add_argument("results", nargs="+", type=Path, metavar="RESULTS.jsonl",
                   help="results files written by benchmark runs, or inspect logs (.eval, "
                   ".json) of `inspect eval alias_bench/tla_cir`")
    p.add_argument("--probe", action="append", default=[], type=Path, metavar="FILE",
                   help="a probe file (JSONL rows of kind likelihood, continuation, similarity "
                   "or proposed_names, as `alias-bench probe ... --out` and "
                   "benchmarks/test_probes.py write them); repeatable")
    p.add_argument("--out", type=Path, help="report folder (default: report/ beside the "
                   "results file when there is one, ./alias-report when there are several)")
    p.add_argument("--seed", type=int, default=BOOTSTRAP_SEED,
                   help=f"bootstrap seed ({BOOTSTRAP_SEED})")
    p.add_argument("--n-boot", type=int, default=N_BOOT,
                   help=f"bootstrap resamples of tasks ({N_BOOT})")
    p.add_argument("--split-seed", type=int, default=EXPOSURE_SEED,
                   help=f"seed of the exposure experiment's A/B task split ({EXPOSURE_SEED})")
    p.add_argument("--exposure", action="append", default=[], type=exposure_pair,
                   metavar="A=MODEL,B=MODEL[,label=NAME]",
                   help="the models trained on halves A and B (repeatable, one per pair); "
                   "overrides the runs' `exposure_half` header fields")
    p.add_argument("--prices", type=Path, metavar="FILE",
                   help="a TOML price table (the shape of the shipped prices.toml) laid over the "
                   "shipped one, for the cost of the feedback track's turns")
    p.set_defaults(func=run)


def exposure_pair(text: str) -> ExposurePair:
    """Parse ``A=model1,B=model2[,label=name]``."""
    fields: dict[str, str] = {}
    for part in text.split(","):
        key, sep, value = part.partition("=")
        key = key.strip()
        if not sep or key not in ("A", "B", "label") or not value.strip() or key in fields:
            raise argparse.ArgumentTypeError(
                f"expected A=MODEL,B=MODEL[,label=NAME], got {text!r}")
        fields[key] = value.strip()
    if "A" not in fields or "B" not in fields or fields["A"] == fields["B"]:
        raise argparse.ArgumentTypeError(f"name two different models for A and B, got {text!r}")
    return ExposurePair(fields["A"], fields["B"], fields.get("label", ""))


def run(args: argparse.Namespace) -> int:
    results: list[Path] = args.results
    if args.n_boot < 1:
        return fail(f"--n-boot must be at least 1, got {args.n_boot}")
    for path, what in [*((r, "results file") for r in results),
                       *((r, "probe file") for r in args.probe)]:
        if not path.is_file():
            return fail(f"{path}: {'not a file' if path.exists() else f'no such {what}'}")
    try:
        prices = Prices.load(args.prices)
    except PriceFileError as exc:
        return fail(f"--prices: {exc}")
    out: Path = args.out or (results[0].parent / "report" if len(results) == 1
                             else Path("alias-report"))
    try:
        results = [_results_file(path, out) for path in results]
        index = write_report(results, out, seed=args.seed, n_boot=args.n_boot,
                             split_seed=args.split_seed, exposure=args.exposure,
                             probes=args.probe, prices=prices)
    except StatsError as exc:
        return fail(f"cannot read the results: {exc}")
    except (OSError, UnicodeDecodeError) as exc:
        return fail(f"cannot read or write: {exc}")
    print((out / "table1.md").read_text(encoding="utf-8").rstrip())
    print(f"\nreport: {index}")
    turns = f", {TURNS_FILE}" if (out / TURNS_FILE).is_file() else ""
    print(f"tables: {out}/table1.md, differences.md, taxonomy.md, table2.md, splits.md, "
          f"probes.md{turns} (and .csv); statistics: {out / 'stats.json'}")
    return 0


def _results_file(path: Path, out: Path) -> Path:
    """``path``, or for an inspect log (by suffix) its records as a results file in ``out``."""
    if path.suffix.lower() not in INSPECT_SUFFIXES:
        return path
    from reports.inspect_log import write_records

    return write_records(path, out / "inspect_records" / f"{path.stem}.jsonl")


__all__ = ["exposure_pair", "register", "run"]
