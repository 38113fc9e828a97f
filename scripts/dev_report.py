"""The report of the 193 development outputs (TLA+-Bench's real model outputs), in one command.

Run: `python scripts/dev_report.py [--results scripts/results/real_outputs.json]
[--corpus ../shared/corpus] [--out scripts/results/dev_report] [--engine auto] [--seed 2026]
[--n-boot 10000]`.

Turns the rows of `real_outputs.json` (the parse, name and behavior grades
`scripts/real_outputs.py` gave the 193 outputs of `<corpus>/tla-bench-outputs`, one row per
output and engine) into the project's case records, one results file per model under
`OUT/records/` (a run header, then one case per output: condition `original`, the row's
model, task = the spec id, sample 0), and writes the normal report of both files into OUT
(`reports.render.write_report`, as `alias-bench report OUT/records/*.jsonl --out OUT` does):
Table 1 with the behavior bounds and decided share, the failure taxonomy per model with its
stacked bars (`taxonomy_*.svg`), and the drill-down in `index.html`.

What the records need and the rows do not hold; nothing is read from English text (the rows'
`name_reason` and `behavior_reason` are kept as the grades' `reason`, never parsed):

- the parse grade's `failure_class`: the rows keep only the verdict, so an output that does
  not parse is classified again from its text in the corpus with the grade's own code (the
  grade's extraction and helper modules, then `alias_fixtures.grading.parse_failures`, which
  `grade_output` calls). Without the corpus these outputs are `unclassified`.
- the name grade's `missing_names`, `missing_hidden`, `vacuous` and `violated`: in the rows'
  `name_details` since real_outputs.py keeps them; in older rows a `config_bind_fail` is
  `unclassified` in the name taxonomy (never split into hidden and stated names by reading its
  reason) and a name `ok` counts as passed (a vacuous `ok` cannot be told apart). The case's
  `hidden_names` are not in the rows (empty).
- whether an output that does not parse is on a task the behavior grade covers: taken from
  the reference's self-check the file records (`coverage`: `ok` covered, `not_covered` not;
  another verdict leaves it unknown, as for a `liveness_unchecked` reference, which is covered).
- a row whose reference does not run (`reference_runs` false: its variant did not verify, or
  the corpus has no task for it; behavior `no_reference`) gets behavior `not_covered`
  (`covered` false, so it is in no behavior rate) and keeps its parse and name verdicts (name
  `not_run`: the grade was not run).
- a row whose grade raised (verdict `error`) is an infrastructure error.
- `published`: true (every reference is public: tlaplus/Examples or TLA+-Bench's release).

The records and the report depend only on the rows, the corpus texts and the seed: the same
inputs give byte-identical files.
"""

from __future__ import annotations

import argparse
import json
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from alias_fixtures.grading.extract import extract_module
from alias_fixtures.grading.grade import own_modules
from alias_fixtures.grading.parse_failures import classify_parse_failure
from alias_fixtures.tasks.loaders import shared_corpus
from reports.render import write_report
from reports.schema import RECORD_SCHEMA_VERSION
from reports.stats import BOOTSTRAP_SEED, N_BOOT

HERE = Path(__file__).resolve().parent
OUTPUTS = "tla-bench-outputs"
BEHAVIOR_KEYS = ("reason_code", "soundness", "mapping_basis", "constants", "mapping", "engine",
                 "tlc_runs")
_ROW_KEYS = {"reason_code": "behavior_code"}


def parse_grade(row: Mapping[str, Any], reply: str | None) -> dict[str, Any]:
    """The parse grade of a row; an output that does not parse gets its class from its text
    (`reply`, the raw output; None: the corpus is absent, so no class)."""
    verdict = str(row["parse"])
    grade: dict[str, Any] = {"verdict": verdict, "passed": verdict == "ok"}
    if verdict == "parse_error" and reply is not None:
        extraction = extract_module(reply)
        name, text = extraction.module_name, extraction.text
        if name is not None and text is not None:
            files = {f"{name}.tla": text, **{f"{m}.tla": t for m, t in own_modules(
                text, extraction.other_modules).items()}}
            failure = classify_parse_failure(files, name)
            grade |= {"failure_class": failure.kind, "failure_evidence": failure.evidence}
    return grade


def behavior_grade(row: Mapping[str, Any], coverage: Mapping[str, Any]) -> dict[str, Any]:
    """The behavior grade of a row: its verdict, reason code, soundness class, mapping basis,
    constants and mapping; `no_reference` read as `not_covered`. An output the grade stopped
    before the behavior check (it does not parse) is on a covered task when its reference's
    self-check (`coverage`: task -> the check's verdict) passed, on one not covered when the
    check said `not_covered`; otherwise its record does not say."""
    verdict = str(row["behavior"])
    if verdict == "no_reference":
        return {"verdict": "not_covered", "passed": False, "covered": False,
                "reason": f"no reference runs: {row.get('reference_reason') or 'no task'}"}
    grade: dict[str, Any] = {"verdict": verdict, "passed": verdict == "ok",
                             "reason": row.get("behavior_reason") or ""}
    if verdict in ("ok", "forward_fail", "reverse_fail", "no_mapping", "undecided",
                   "not_covered"):
        grade["covered"] = verdict != "not_covered"
    else:
        own = (coverage.get(str(row.get("reference_task"))) or {}).get("verdict")
        if own in ("ok", "not_covered"):
            grade["covered"] = own == "ok"
    for key in BEHAVIOR_KEYS:
        value = row.get(_ROW_KEYS.get(key, key))
        if value is not None:
            grade[key] = value
    return grade


def case_record(row: Mapping[str, Any], reply: str | None, run_id: str,
                coverage: Mapping[str, Any]) -> dict[str, Any]:
    """The case record of one row (`reply`: the output's text, when the corpus is there;
    `coverage`: each reference's self-check)."""
    spec = str(row["spec_id"])
    error = row["behavior"] == "error" or row["parse"] == "error"
    return {
        "schema_version": RECORD_SCHEMA_VERSION, "kind": "case", "run_id": run_id,
        "id": f"{spec}/original/s0", "model": row["model"], "task": spec,
        "condition": "original", "sample": 0, "published": True, "hidden_names": [],
        "grades": {} if error else {
            "parse": parse_grade(row, reply),
            "name": name_grade(row),
            "behavior": behavior_grade(row, coverage)},
        "infra_error": f"the grade raised: {row.get('behavior_reason')}" if error else None,
    }


def name_grade(row: Mapping[str, Any]) -> dict[str, Any]:
    """The name grade of a row, with the fields the name grade recorded where the row keeps
    them (`name_details`, rows of real_outputs.py since it keeps them); a vacuous `ok` (no
    initial state) does not pass, as in a benchmark's record."""
    name = str(row["name"])
    details = {k: v for k, v in (row.get("name_details") or {}).items() if v is not None}
    return {"verdict": name, "passed": name == "ok" and not details.get("vacuous"),
            "reason": row.get("name_reason") or "", **details}


def reply_of(corpus: Path | None, row: Mapping[str, Any]) -> str | None:
    """The raw output of a row, from the corpus (None without it)."""
    if corpus is None:
        return None
    path = corpus / OUTPUTS / "generations" / str(row["model"]) / f"{row['spec_id']}.tla"
    return path.read_text(encoding="utf-8") if path.is_file() else None


def dev_records(data: Mapping[str, Any], corpus: Path | None, engine: str = "auto"
                ) -> dict[str, list[dict[str, Any]]]:
    """Per model, a run header and its outputs' case records (spec id order)."""
    rows = [r for r in data["rows"] if r.get("engine", engine) == engine]
    keys = [(r["model"], r["spec_id"]) for r in rows]
    if len(keys) != len(set(keys)):
        raise SystemExit(f"several rows of one output under engine {engine}")
    runs = [r for r in data.get("runs", []) if engine in str(r.get("engines", engine))]
    last = runs[-1] if runs else {}
    coverage = data.get("coverage", {}).get(engine, {})
    out: dict[str, list[dict[str, Any]]] = {}
    for model in sorted({str(r["model"]) for r in rows}):
        run_id = f"dev-{model}"
        header = {"schema_version": RECORD_SCHEMA_VERSION, "kind": "header", "run_id": run_id,
                  "started": last.get("date"), "git_commit": last.get("commit"),
                  "model": model, "provider": "recorded", "model_id": model,
                  "tasks": f"{OUTPUTS} (scripts/results/real_outputs.json, engine {engine})",
                  "conditions": ["original"], "samples": 1,
                  "grades": ["parse", "name", "behavior"], "primary": "behavior",
                  "jar_version": last.get("jar"), "tlc_timeout": last.get("timeout"),
                  "seeds": {"run": "0"}}
        mine = sorted((r for r in rows if r["model"] == model),
                      key=lambda r: (len(str(r["spec_id"])), str(r["spec_id"])))
        out[model] = [header, *(case_record(r, reply_of(corpus, r), run_id, coverage)
                                for r in mine)]
    return out


def write_records(records: Mapping[str, Iterable[Mapping[str, Any]]], folder: Path
                  ) -> list[Path]:
    """One results file per model in `folder`; their paths relative to the working
    directory, so that the report, which names its inputs, is the same from any checkout."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for model, lines in records.items():
        path = folder / f"{model}.jsonl"
        path.write_text("".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines),
                        encoding="utf-8")
        paths.append(Path(os.path.relpath(path)))  # the report names them as given
    return paths


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--results", type=Path, default=HERE / "results" / "real_outputs.json")
    ap.add_argument("--corpus", type=Path, default=shared_corpus(HERE.parent),
                    help="the shared corpus, for the parse failures' texts "
                    "(default: ../shared/corpus or $ALIAS_SHARED_CORPUS)")
    ap.add_argument("--out", type=Path, default=HERE / "results" / "dev_report")
    ap.add_argument("--engine", default="auto", help="the rows' behavior engine (auto)")
    ap.add_argument("--seed", type=int, default=BOOTSTRAP_SEED)
    ap.add_argument("--n-boot", type=int, default=N_BOOT)
    args = ap.parse_args(argv)
    if args.corpus is None:
        print("no corpus (../shared/corpus): parse failures stay unclassified")
    data = json.loads(args.results.read_text(encoding="utf-8"))
    paths = write_records(dev_records(data, args.corpus, args.engine), args.out / "records")
    index = write_report(paths, args.out, seed=args.seed, n_boot=args.n_boot)
    print((args.out / "taxonomy.md").read_text(encoding="utf-8").split("\n## ")[1])
    print(f"records: {', '.join(map(str, paths))}\nreport: {index}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
