"""What the module library (`tlc_harness/tools/library`) changes on the real corpus.

Run: `python scripts/library_modules.py [--corpus ../shared/corpus] [--all] [--only ID ...]
[--timeout 300] [--resume] [--report-only] [--outputs] [--no-models] [--scan]
[--out scripts/results]`.

- Models: each model of `<corpus>/tlaplus-examples/manifest.json` that the manifest marks as not
  passing (`--all`: all 131) is staged as the corpus tests stage it (every `.tla` of its folder,
  its own cfg; the harness does the 2020 compatibility rewrite) and checked by TLC with the
  library, under `--timeout` seconds. A model passes with the upstream counts when the verdict
  is `ok` and its distinct (and, where recorded, generated) state counts equal the manifest's
  (for a model the manifest marks as passing) or the upstream manifest's. The others are listed
  by cause. Before = the manifest's `passes`.
- `--outputs`: the real TLA+-Bench outputs of `<corpus>/tla-bench-outputs` parsed by SANY with
  and without the library (module extracted from the reply as the grader does, with the
  reply's own helper modules); the outputs whose parse verdict changes are listed.
- `--scan`: the modules the corpus EXTENDS/INSTANCEs that neither the jar nor the spec's folder
  has, which of them the library has, and the files importing them.

Rows are appended to `<out>/library_modules.partial.jsonl` as they finish; `--resume` skips the
ids already there (`--report-only` runs nothing and rewrites the report from it; models not yet
run are reported as not run). At the end `<out>/library_modules.json` and `.md` are written from all rows.
Nothing is written into the corpus.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from alias_fixtures.grading.extract import extract_module
from alias_fixtures.grading.grade import own_modules
from alias_fixtures.tasks.loaders import shared_corpus
from tlc_harness.tools.library import bundled_library, imported_modules
from tlc_harness.tools.results import Verdict
from tlc_harness.tools.runner import Harness
from tlc_harness.tools.spec import SpecSource
from tlc_harness.tools.toolchain import get_toolchain

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
RANDOM_OPERATORS = ("RandomElement", "RandomSubset", "RandomSetOfSubsets")
DETAIL_CHARS = 240


def model_id(entry: dict[str, Any]) -> str:
    return f"{entry['spec_dir']}/{entry['cfg']}"


def expected_counts(entry: dict[str, Any]) -> tuple[int | None, int | None]:
    """(distinct, generated) the model should reach: the manifest's own run, else upstream's."""
    if entry["passes"]:
        return entry["distinct_states"], entry["generated_states"]
    up = entry.get("upstream_expected") or {}
    return up.get("distinctStates"), up.get("totalStates")


def stage(examples: Path, entry: dict[str, Any]) -> SpecSource:
    folder = examples / entry["spec_dir"]
    return SpecSource(Path(entry["module"]).stem,
                      {p.name: p.read_text(encoding="utf-8") for p in folder.glob("*.tla")})


def unavailable_modules(spec: SpecSource, jar: frozenset[str]) -> list[str]:
    """Modules the run reaches that neither its files, the jar nor the library have."""
    library = bundled_library().modules
    own = {name[:-4]: text for name, text in spec.files.items()}
    missing: list[str] = []
    todo, seen = [spec.main], set()
    while todo:
        name = todo.pop()
        if name in seen or name in jar:
            continue
        seen.add(name)
        text = own.get(name, library.get(name))
        if text is None:
            missing.append(name)
        else:
            todo.extend(imported_modules(text))
    return sorted(missing)


def _cut(text: str, n: int = DETAIL_CHARS) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= n else flat[: n - 3] + "..."


def run_model(harness: Harness, examples: Path, entry: dict[str, Any],
              timeout: float) -> dict[str, Any]:
    spec = stage(examples, entry)
    cfg = examples / entry["spec_dir"] / entry["cfg"]
    result = harness.check(spec, cfg, timeout=timeout)
    distinct, generated = expected_counts(entry)
    randomized = any(op in t for t in spec.files.values() for op in RANDOM_OPERATORS)
    row: dict[str, Any] = {
        "id": model_id(entry), "spec_dir": entry["spec_dir"], "module": entry["module"],
        "passes_before": entry["passes"], "cause_before": entry.get("failure_cause"),
        "verdict": result.verdict.value, "distinct": result.distinct_states,
        "generated": result.generated_states, "expected_distinct": distinct,
        "expected_generated": generated, "library_modules": list(result.library_modules),
        "seconds": round(result.seconds, 1), "randomized": randomized,
    }
    row["outcome"], row["cause"] = _classify(result.verdict, row, spec, harness, result.detail)
    return row


def _classify(verdict: Verdict, row: dict[str, Any], spec: SpecSource, harness: Harness,
              detail: str) -> tuple[str, str | None]:
    """(outcome, cause): `upstream_counts`, `ok_no_count` or `fails` with the reason."""
    if verdict is Verdict.OK:
        if row["expected_distinct"] is None:
            return "ok_no_count", "passes; the manifest records no upstream state count"
        same = row["distinct"] == row["expected_distinct"] and (
            row["expected_generated"] is None or row["generated"] == row["expected_generated"])
        if same or row["randomized"]:
            return "upstream_counts", None
        return "fails", (f"state counts differ: {row['distinct']} distinct / "
                         f"{row['generated']} generated, upstream {row['expected_distinct']} / "
                         f"{row['expected_generated']}")
    if verdict is Verdict.TIMEOUT:
        return "fails", f"slower than the time limit ({row['distinct']} distinct states so far)"
    if verdict is Verdict.PARSE_ERROR:
        missing = unavailable_modules(spec, harness.toolchain.standard_modules)
        if missing:
            return "fails", f"needs module(s) the library cannot provide: {', '.join(missing)}"
        return "fails", f"parse error: {_cut(detail)}"
    if verdict is Verdict.ASSUMPTION_FAILED:
        return "fails", f"an ASSUME is false under the 2020 TLC: {_cut(detail)}"
    return "fails", f"{verdict.value}: {_cut(detail)}"


# ------------------------------------------------------------------ real outputs
def parse_outputs(corpus: Path, with_lib: Harness, without: Harness) -> list[dict[str, Any]]:
    """SANY on every real output with and without the library; one row per output."""
    folder = corpus / "tla-bench-outputs"
    rows = []
    for entry in json.loads((folder / "manifest.json").read_text(encoding="utf-8")):
        reply = (folder / entry["generation_path"]).read_text(encoding="utf-8", errors="replace")
        extraction = extract_module(reply)
        row: dict[str, Any] = {"spec_id": str(entry["spec_id"]), "model": entry["model"],
                               "sany_pass_benchmark": entry["benchmark_verdict"]["sany_pass"]}
        if extraction.text is None or extraction.module_name is None:
            rows.append({**row, "before": extraction.verdict, "after": extraction.verdict,
                         "library_modules": []})
            continue
        name, text = extraction.module_name, extraction.text
        own = own_modules(text, extraction.other_modules)
        spec = SpecSource(name, {f"{name}.tla": text, **{f"{m}.tla": t for m, t in own.items()}})
        before, after = without.parse(spec), with_lib.parse(spec)
        rows.append({**row, "module": name, "before": "ok" if before.ok else "parse_error",
                     "after": "ok" if after.ok else "parse_error",
                     "library_modules": list(after.library_modules),
                     "errors_after": [_cut(e) for e in after.errors[:2]]})
        print(f"[outputs] {row['model']}/{row['spec_id']}: {rows[-1]['before']} -> "
              f"{rows[-1]['after']} {' '.join(after.library_modules)}", flush=True)
    return rows


# ------------------------------------------------------------------ scan
def scan(corpus: Path, jar: frozenset[str]) -> dict[str, dict[str, Any]]:
    """Imported module names neither the jar nor the importing spec's folder has."""
    found: dict[str, set[str]] = defaultdict(set)
    groups: list[tuple[str, list[Path]]] = []
    examples = corpus / "tlaplus-examples" / "examples"
    for folder in sorted(p for p in examples.rglob("*") if p.is_dir()):
        files = sorted(folder.glob("*.tla"))
        if files:
            groups.append((str(folder.relative_to(corpus)), files))
    for path in sorted((corpus / "tla-bench-outputs" / "generations").rglob("*.tla")):
        groups.append((str(path.parent.relative_to(corpus)), [path]))
    for label, files in groups:
        own = {p.stem for p in files}
        for path in files:
            for name in imported_modules(path.read_text(encoding="utf-8", errors="replace")):
                if name not in jar and name not in own:
                    found[name].add(f"{label}/{path.name}")
    library = bundled_library().modules
    return {name: {"in_library": name in library, "files": sorted(files)}
            for name, files in sorted(found.items())}


# ------------------------------------------------------------------ report
def _git() -> str | None:
    try:
        return subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True,
                              text=True, timeout=10, check=True).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None


def _read_rows(path: Path) -> list[dict[str, Any]]:
    if not path.is_file():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def summarize(rows: list[dict[str, Any]], manifest: list[dict[str, Any]]) -> dict[str, Any]:
    ran = {r["id"] for r in rows}
    gained = [r for r in rows if not r["passes_before"] and r["outcome"] == "upstream_counts"]
    lost = [r for r in rows if r["passes_before"] and r["outcome"] != "upstream_counts"]
    not_run_passing = sum(e["passes"] for e in manifest if model_id(e) not in ran)
    return {
        "models": len(manifest), "run": len(rows),
        "passes_before": sum(e["passes"] for e in manifest),
        "run_passing_before": sum(r["passes_before"] for r in rows),
        "upstream_counts_after": sum(r["outcome"] == "upstream_counts" for r in rows),
        "ok_no_count_after": sum(r["outcome"] == "ok_no_count" for r in rows),
        "gained": len(gained), "lost": len(lost),
        # models not run keep their manifest verdict (the library cannot reach a model that
        # imports nothing missing: such a run stages no library module)
        "passes_after_corpus": not_run_passing + sum(r["outcome"] == "upstream_counts"
                                                     for r in rows),
        "causes": Counter(_cause_key(r) for r in rows if r["outcome"] != "upstream_counts"),
    }


def _cause_key(row: dict[str, Any]) -> str:
    cause = str(row["cause"])
    for short in ("slower than the time limit", "state counts differ", "passes; the manifest",
                  "an ASSUME is false"):
        if cause.startswith(short):
            return short
    return cause.split(": ")[0] + (": " + cause.split(": ")[1] if "needs module" in cause else "")


def render(summary: dict[str, Any], rows: list[dict[str, Any]], outputs: list[dict[str, Any]],
           found: dict[str, dict[str, Any]] | None, record: dict[str, Any]) -> str:
    s = summary
    lines = ["# The module library on the corpus", "",
             f"Command: `{record['command']}`  ", f"Date: {record['date']}, commit "
             f"{record['git_commit']}, wall time {record['wall_seconds']:.0f} s, TLC limit "
             f"{record['timeout']:g} s per model; library sha256 {record['library_sha256'][:16]}.",
             ""]
    if rows:
        lines += ["## Corpus models (tlaplus-examples)", "",
                  "| | models |", "|---|---:|",
                  f"| in the manifest | {s['models']} |",
                  f"| pass before (manifest `passes`) | {s['passes_before']} |",
                  f"| run here | {s['run']} (of which passing before: {s['run_passing_before']}) |",
                  f"| run here, pass with the upstream state counts | "
                  f"{s['upstream_counts_after']} |",
                  f"| run here, pass but no upstream count to compare | {s['ok_no_count_after']} |",
                  f"| newly passing with the upstream counts | {s['gained']} |",
                  f"| passing before, not now | {s['lost']} |",
                  f"| pass after, whole corpus (models not run keep their manifest verdict) | "
                  f"{s['passes_after_corpus']} |", "",
                  "The rest, by cause:", "", "| cause | models |", "|---|---:|"]
        lines += [f"| {cause} | {n} |" for cause, n in sorted(s["causes"].items(),
                                                               key=lambda kv: -kv[1])]
        lines += ["", "| model | before | verdict | distinct (upstream) | library modules | s "
                  "| cause |", "|---|---|---|---|---|---:|---|"]
        for r in sorted(rows, key=lambda r: r["id"]):
            before = "pass" if r["passes_before"] else _cut(str(r["cause_before"]), 40)
            lines.append(f"| {r['id']} | {before} | {r['verdict']} | {r['distinct']} "
                         f"({r['expected_distinct']}) | {', '.join(r['library_modules'])} | "
                         f"{r['seconds']} | {r['cause'] or ''} |")
    if outputs:
        changed = [o for o in outputs if o["before"] != o["after"]]
        lines += ["", "## Real model outputs (tla-bench-outputs): SANY with and without the "
                  "library", "",
                  f"{len(outputs)} outputs; parse verdict ok without the library: "
                  f"{sum(o['before'] == 'ok' for o in outputs)}, with it: "
                  f"{sum(o['after'] == 'ok' for o in outputs)}; changed: {len(changed)}.", ""]
        if changed:
            lines += ["| output | module | before | after | library modules | TLA+-Bench "
                      "sany_pass |", "|---|---|---|---|---|---|"]
            lines += [f"| {o['model']}/{o['spec_id']} | {o.get('module')} | {o['before']} | "
                      f"{o['after']} | {', '.join(o['library_modules'])} | "
                      f"{o['sany_pass_benchmark']} |" for o in changed]
        still = [o for o in outputs if o["library_modules"] and o["after"] != "ok"]
        if still:
            lines += ["", "Outputs that use the library and still fail to parse:", ""]
            lines += [f"- {o['model']}/{o['spec_id']}: {'; '.join(o['errors_after'])}"
                      for o in still]
    if found:
        lines += ["", "## Modules imported that the jar and the spec's folder lack", "",
                  "| module | in the library | importing files |", "|---|---|---:|"]
        lines += [f"| {name} | {'yes' if f['in_library'] else 'no'} | {len(f['files'])} |"
                  for name, f in found.items()]
    return "\n".join(lines) + "\n"


def select(manifest: list[dict[str, Any]], args: argparse.Namespace,
           ap: argparse.ArgumentParser) -> list[dict[str, Any]]:
    chosen = manifest if args.all or args.only else [e for e in manifest if not e["passes"]]
    if args.only:
        ids = {model_id(e) for e in manifest}
        unknown = sorted(set(args.only) - ids)
        if unknown:
            ap.error(f"--only: no model {', '.join(unknown)} (ids are SPEC_DIR/CFG)")
        chosen = [e for e in chosen if model_id(e) in set(args.only)]
    return chosen


def main(argv: Iterable[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", type=Path, default=shared_corpus(ROOT))
    ap.add_argument("--all", action="store_true", help="all 131 models, not only the failing")
    ap.add_argument("--only", action="append", default=[], metavar="ID",
                    help="only this model (SPEC_DIR/CFG; repeatable)")
    ap.add_argument("--timeout", type=float, default=300.0, help="TLC limit per model (300 s)")
    ap.add_argument("--resume", action="store_true", help="skip models already in the log")
    ap.add_argument("--outputs", action="store_true",
                    help="also parse the real TLA+-Bench outputs with and without the library")
    ap.add_argument("--no-models", action="store_true", help="run no corpus model")
    ap.add_argument("--report-only", action="store_true",
                    help="run nothing: rewrite the report from the log of the chosen models")
    ap.add_argument("--scan", action="store_true", help="also list the modules the corpus lacks")
    ap.add_argument("--out", type=Path, default=HERE / "results")
    args = ap.parse_args(list(argv) if argv is not None else None)
    if args.corpus is None or not (args.corpus / "tlaplus-examples").is_dir():
        ap.error("no corpus: give --corpus (a folder holding tlaplus-examples/)")
    manifest = json.loads((args.corpus / "tlaplus-examples" / "manifest.json").read_text())
    chosen = [] if args.no_models else select(manifest, args, ap)
    args.out.mkdir(parents=True, exist_ok=True)
    log = args.out / "library_modules.partial.jsonl"
    if not (args.resume or args.report_only) and log.exists() and chosen:
        log.unlink()
    done = {r["id"] for r in _read_rows(log)}
    examples = args.corpus / "tlaplus-examples" / "examples"
    started = time.monotonic()
    outputs: list[dict[str, Any]] = []
    with Harness(tlc_timeout=args.timeout) as harness:
        todo = [] if args.report_only else [e for e in chosen if model_id(e) not in done]
        for i, entry in enumerate(todo, 1):
            row = run_model(harness, examples, entry, args.timeout)
            with log.open("a") as fh:
                fh.write(json.dumps(row) + "\n")
            print(f"[{i}/{len(todo)}] {row['id']}: {row['verdict']} {row['distinct']} "
                  f"(upstream {row['expected_distinct']}) {row['seconds']} s "
                  f"{row['cause'] or ''}", flush=True)
        if args.outputs and not args.report_only:
            with Harness(module_library=False) as bare:
                outputs = parse_outputs(args.corpus, harness, bare)
    rows = [r for r in _read_rows(log) if r["id"] in {model_id(e) for e in chosen}]
    found = scan(args.corpus, get_toolchain().standard_modules) if args.scan else None
    record = {"command": "python scripts/library_modules.py " + " ".join(sys.argv[1:]),
              "date": datetime.now(UTC).isoformat(timespec="seconds"), "git_commit": _git(),
              "wall_seconds": time.monotonic() - started, "timeout": args.timeout,
              "library_sha256": bundled_library().sha256}
    summary = summarize(rows, manifest) if rows else {}
    data: dict[str, Any] = {"run": record, "summary": {**summary, "causes": dict(summary.get("causes", {}))},
            "models": rows, "outputs": outputs, "scan": found,
            "not_run": [model_id(e) for e in chosen if model_id(e) not in {r["id"] for r in rows}]}
    stem = args.out / "library_modules"
    previous = json.loads(stem.with_suffix(".json").read_text()) \
        if stem.with_suffix(".json").is_file() else {}
    for key in ("models", "outputs", "scan"):   # keep parts this run did not redo
        if not data[key] and previous.get(key):
            data[key] = previous[key]
            if key == "models":
                data["summary"] = previous.get("summary", {})
    stem.with_suffix(".json").write_text(json.dumps(data, indent=1) + "\n")
    text = render(data["summary"], data["models"], data["outputs"], data["scan"], record)
    if data["not_run"]:
        text += ("\nChosen but not run yet (`--resume` runs them): "
                 + ", ".join(data["not_run"]) + ".\n")
    stem.with_suffix(".md").write_text(text)
    print(text)


if __name__ == "__main__":
    main()
