"""Grade the 193 real model outputs of TLA+-Bench against their references.

Run: `python scripts/real_outputs.py [--corpus ../shared/corpus] [--engines wrappers,graphs,auto]
[--manifest both|examples|release] [--only SPEC_ID ...] [--timeout 60] [--cap 600] [--jobs 1]
[--resume] [--out scripts/results]`.

For each output of `<corpus>/tla-bench-outputs/manifest.json` and `manifest_release.json` (the
raw model reply) and each behavior-grade engine, `alias_fixtures.grading.grade.grade_output`
gives the parse, name and behavior grades against the `original` variant of the reference task
(as `alias-bench grade` does). The reference of a `manifest.json` entry (75) is its
`reference`: the first local model whose module is the reference module and that passes
locally, else the first local model; the task is loaded with `load_examples` from
`<corpus>/tlaplus-examples`. The reference of a `manifest_release.json` entry (118) is the
release's gold spec of its spec id, the task of that id loaded with `load_task_set` from
`<corpus>/tla-bench-release` (a spec the release cannot load, 1142 without a cfg, has no
reference). A reference "runs" when its variant verifies; it is *covered* when it also passes
its own behavior grade against itself (the coverage check below).
Reports, per engine: verdict counts; the decided share (`ok`, `forward_fail`, `reverse_fail`) of
the outputs that parse and whose reference runs; every `ok` under a mapping other than the
identity; median and maximum seconds and TLC runs per behavior grade (overall and on failing
outputs); and where the wrappers and graphs engines both decide, whether they agree.

A behavior grade longer than `--cap` seconds is recorded as `undecided (script cap)` (its own
verdict is kept in `uncapped`); a grade that raises is recorded as verdict `error`. Rows are
appended to `<out>/real_outputs.partial.jsonl` as they are graded; at the end
`<out>/real_outputs.json` and `<out>/real_outputs.md` are written. `--resume` skips the
(spec, model, engine) rows already in either file; `--resume --redo` grades the chosen engines'
rows again and keeps the other engines' rows (for an engine whose code changed). Each run is
recorded with its command, date, git commit and wall time. Nothing is written into the corpus.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from alias_fixtures.grading.grade import ReferenceCoverage, grade_output
from alias_fixtures.tasks.loaders import load_examples, load_task_set, shared_corpus
from alias_fixtures.tasks.task import Task
from alias_fixtures.tasks.variants import Variant, build_variant
from tlc_harness.behavior.options import ENGINES, BehaviorOptions
from tlc_harness.behavior.verdicts import DECIDED, FAILURES, BehaviorResult, BehaviorVerdict
from tlc_harness.tools.runner import Harness

HERE = Path(__file__).resolve().parent
FAILING = FAILURES
BEHAVIOR_COLUMNS = (*(v.value for v in BehaviorVerdict), "error")
REASON_CHARS = 300
SHOWN_CHARS = 1500  # of a mapping in the Markdown report (the JSON has all of it)
ORDER = ("wrappers", "graphs", "auto")   # engines in the report
DESCRIPTION_STYLES = ("declarative_claude", "intent_claude")


@dataclass(frozen=True)
class Output:
    """One saved model reply and the reference task it is graded against."""

    spec_id: str
    model: str
    path: Path
    spec_dir: str
    cfg: str
    benchmark_label: str
    #: the benchmark's description of the task, where the corpus has one (declarative first):
    #: the grade checks that the reference writes the names it gives as code
    description: str | None = None
    #: which manifest the entry is from (`examples`: manifest.json, `release`:
    #: manifest_release.json, whose reference is the release task `cfg` names by spec id)
    manifest: str = "examples"

    @property
    def key(self) -> tuple[str, str]:
        return (self.spec_id, self.model)


def _cut(text: str | None, n: int = REASON_CHARS) -> str:
    text = text or ""
    return text if len(text) <= n else text[: n - 3] + "..."


RELEASE = "tla-bench-release"  # the spec_dir of a release output: its cfg is the task id
MANIFESTS = ("both", "examples", "release")


def read_outputs(corpus: Path, manifest: str = "both") -> list[Output]:
    """The manifests' outputs, each with its reference: a local model (spec_dir, cfg) for
    manifest.json, the release task of its spec id for manifest_release.json."""
    outputs = read_example_outputs(corpus) if manifest in ("both", "examples") else []
    if manifest in ("both", "release"):
        outputs += read_release_outputs(corpus)
    return outputs


def read_release_outputs(corpus: Path) -> list[Output]:
    """The outputs of manifest_release.json; the reference is the release's task of the spec
    id, and its description is the task's own (the release's declarative GPT text)."""
    folder = corpus / "tla-bench-outputs"
    return [Output(str(entry["spec_id"]), entry["model"], folder / entry["generation_path"],
                   RELEASE, str(entry["spec_id"]), entry["benchmark_verdict"]["label"], None,
                   "release")
            for entry in json.loads((folder / "manifest_release.json").read_text(
                encoding="utf-8"))]


def read_example_outputs(corpus: Path) -> list[Output]:
    """The outputs of manifest.json, each with the local model (spec_dir, cfg) that is its
    reference."""
    folder = corpus / "tla-bench-outputs"
    outputs = []
    for entry in json.loads((folder / "manifest.json").read_text(encoding="utf-8")):
        ref = entry["reference"]
        models = ref["local_models"]
        own = [m for m in models if m["module"] == ref["module_file"]]
        pick = next((m for m in own if m.get("passes_local_tlc2020")), (own or models)[0])
        texts = [folder / "descriptions" / style / f"{entry['spec_id']}.txt"
                 for style in DESCRIPTION_STYLES]
        description = next((t.read_text(encoding="utf-8") for t in texts if t.is_file()), None)
        outputs.append(Output(str(entry["spec_id"]), entry["model"],
                              folder / entry["generation_path"], ref["spec_dir"], pick["cfg"],
                              entry["benchmark_verdict"]["label"], description))
    return outputs


class Coverage(ReferenceCoverage):
    """ReferenceCoverage that two threads can share (one check per reference) and that
    remembers an exception instead of retrying it."""

    def __init__(self, harness: Harness, options: BehaviorOptions) -> None:
        super().__init__(harness, options)
        self._locks: dict[str, threading.Lock] = {}
        self._guard = threading.Lock()
        self._failed: dict[str, Exception] = {}
        self.timings: dict[str, dict[str, Any]] = {}

    def check(self, variant: Variant) -> BehaviorResult:
        with self._guard:
            lock = self._locks.setdefault(variant.task_id, threading.Lock())
        with lock:
            if variant.task_id in self._failed:
                raise self._failed[variant.task_id]
            first = variant.task_id not in self.timings
            t0 = time.monotonic()
            try:
                result = super().check(variant)
            except Exception as exc:
                self._failed[variant.task_id] = exc
                self.timings[variant.task_id] = {"verdict": "error", "reason": _cut(repr(exc)),
                                                 "seconds": round(time.monotonic() - t0, 2)}
                raise
            if first:
                self.timings[variant.task_id] = {
                    "verdict": result.verdict, "reason": _cut(result.reason),
                    "seconds": round(time.monotonic() - t0, 2), "tlc_runs": result.tlc_runs}
            return result


class References:
    """Each reference task's original variant, built and verified once (thread-safe)."""

    def __init__(self, harness: Harness, tasks: Iterable[Task],
                 release: Iterable[Task] = ()) -> None:
        self.harness = harness
        self.tasks = {(str(t.extra.get("spec_dir")), str(t.extra.get("cfg"))): t for t in tasks}
        self.tasks.update({(RELEASE, t.id): t for t in release})
        self._built: dict[str, tuple[Variant | None, bool, str]] = {}
        self._lock = threading.Lock()

    def get(self, out: Output) -> tuple[str | None, Variant | None, bool, str]:
        task = self.tasks.get((out.spec_dir, out.cfg))
        if task is None:
            return None, None, False, f"no task for {out.spec_dir}/{out.cfg} in the corpus"
        with self._lock:
            if task.id not in self._built:
                variant, check = build_variant(self.harness, task, "original")
                self._built[task.id] = (variant, bool(variant and check.verified),
                                        check.reason or "")
            variant, runs, why = self._built[task.id]
        return task.id, variant, runs, why


def _behavior_row(grade: Any) -> dict[str, Any]:
    details = grade.details
    return {"behavior": grade.verdict, "behavior_reason": _cut(grade.reason),
            "behavior_code": details.get("reason_code"),
            "soundness": details.get("soundness"), "constants": details.get("constants"),
            "mapping_basis": details.get("mapping_basis"),
            "mapping_class_reason": _cut(details.get("mapping_class_reason")) or None,
            "mapping": details.get("mapping"), "mapping_tla": details.get("mapping_tla"),
            "seconds": round(grade.seconds, 2), "tlc_runs": details.get("tlc_runs"),
            "fallback": _cut(details.get("fallback")) or None,
            "table_candidates": details.get("table_candidates"),
            "table_rows": details.get("table_rows"), "output_states": details.get("output_states"),
            "output_graph_from": details.get("output_graph_from"),
            "stage_seconds": details.get("stage_seconds")}


#: the name grade's fields a row keeps, for the failure taxonomy (what is missing, hidden or
#: not, whether TLC found no initial state, what was violated)
NAME_FIELDS = ("missing_names", "missing_hidden", "vacuous", "violated")


def grade_one(harness: Harness, refs: References, coverage: Coverage, out: Output, engine: str,
              args: argparse.Namespace) -> dict[str, Any]:
    """One row: the output's grades under one engine (never raises)."""
    t0 = time.monotonic()
    row: dict[str, Any] = {"spec_id": out.spec_id, "model": out.model, "engine": engine,
                           "manifest": out.manifest, "benchmark_label": out.benchmark_label}
    task_id, plain, runs, why = refs.get(out)
    variant = replace(plain, description=out.description) \
        if plain is not None and out.description else plain
    row.update(reference_task=task_id, reference_runs=runs,
               reference_reason=None if runs else _cut(why))
    reply = out.path.read_text(encoding="utf-8")
    options = BehaviorOptions(engine=engine, timeout=args.timeout, sweep_jobs=args.sweep_jobs)
    empty = {"behavior_reason": "", "mapping": None, "mapping_tla": None, "seconds": 0.0,
             "tlc_runs": None, "fallback": None}
    try:
        if variant is None:
            row.update(parse="not_run", name="not_run", behavior="no_reference", **empty)
        else:
            if runs and plain is not None:  # timed apart, so that no output's grade carries it
                coverage.check(plain)
            graded = grade_output(harness, variant, reply, coverage=coverage, behavior=options,
                                  timeout=args.timeout,
                                  grades=("parse", "name", "behavior") if runs else ())
            row.update(parse=graded.parse.verdict, name=graded.name.verdict,
                       name_reason=_cut(graded.name.reason),
                       name_details={k: graded.name.details.get(k) for k in NAME_FIELDS},
                       parse_class=graded.parse.details.get("failure_class"))
            if runs:
                row.update(_behavior_row(graded.behavior))
            else:
                row.update(behavior="no_reference", **empty)
    except Exception as exc:  # the graphs engine is young: record, never crash
        row.setdefault("parse", "error")
        row.setdefault("name", "error")
        row.update(behavior="error", **{**empty, "behavior_reason": _cut(
            f"{type(exc).__name__}: {exc}"), "seconds": round(time.monotonic() - t0, 2)})
    row["total_seconds"] = round(time.monotonic() - t0, 2)
    if row["seconds"] > args.cap and row["behavior"] not in ("error", "no_reference"):
        row["uncapped"] = row["behavior"]
        row["behavior"] = "undecided"
        row["behavior_reason"] = _cut(f"(script cap) {row['seconds']:.0f} s > {args.cap:g} s; "
                                      f"the grade said {row['uncapped']}: "
                                      f"{row['behavior_reason']}")
    return row


# ------------------------------------------------------------------------------- the report
def _median(xs: list[float]) -> str:
    return f"{statistics.median(xs):.1f}" if xs else "-"


def _max(xs: list[float]) -> str:
    return f"{max(xs):.1f}" if xs else "-"


def _graded(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The rows whose output parses and whose reference runs (the decided share's base)."""
    return [r for r in rows if r["reference_runs"] and r["parse"] == "ok"]


def _is_identity(mapping: dict[str, Any] | None) -> bool:
    if not mapping:
        return True
    return (all(r == e for r, e in mapping.get("variables", {}).items())
            and all(g == r for g, r in mapping.get("constants", {}).items())
            and not mapping.get("definitions"))


def _describe(mapping: dict[str, Any]) -> str:
    parts = [f"{r} <- {e}" for r, e in mapping.get("variables", {}).items()]
    parts += [f"{r} <- {g}" for g, r in mapping.get("constants", {}).items()]
    parts += [f"def `{_tables_summarized(d)}`" for d in mapping.get("definitions", [])]
    return "; ".join(parts).replace("|", "\\|").replace("\n", " ")


TABLE_CHARS = 300  # a lookup table longer than this is summarized in the Markdown report
_TABLE = re.compile(r"^(AliasD\d+) == \[AliasV \\in .*\]$")


def _tables_summarized(text: str) -> str:
    """`text` with each long lookup table (`AliasD1 == [AliasV \\in {...} |-> CASE ...]`, a
    variable the reference derives, tabulated over what the output's state gives it) replaced
    by its size: thousands of characters of CASE arms cannot be checked by eye."""
    lines = []
    for line in text.splitlines():
        hit = _TABLE.match(line)
        if hit and len(line) > TABLE_CHARS:
            entries = line.count("AliasV = ")
            line = (f"{hit.group(1)} == (a lookup table of {entries} entries, {len(line):,} "
                    f"characters: see real_outputs.json)")
        lines.append(line)
    return "\n".join(lines)


def _shown(text: str) -> str:
    """A mapping cut for the report, saying where the rest is."""
    if len(text) <= SHOWN_CHARS:
        return text
    return (f"{text[:SHOWN_CHARS]} … [{len(text) - SHOWN_CHARS} more characters: "
            "see real_outputs.json]")


def _cell(text: str | None) -> str:
    return (text or "").replace("|", "\\|").replace("\n", " ")


def render(rows: list[dict[str, Any]], coverage: dict[str, dict[str, Any]], engines: list[str],
           runs: list[dict[str, str]]) -> str:
    by_engine = {e: [r for r in rows if r["engine"] == e] for e in engines}
    lines = ["# Behavior grade on the real TLA+-Bench outputs", "",
             "Runs that produced these rows (a `--resume` run adds to the earlier rows):", "",
             *(f"- `{run['command']}`: {run['date']}, commit {run.get('commit', '?')}, "
               f"{run['wall']}; TLC jar {run['jar']}, "
               f"TLC limit {run['timeout']} s per run, script cap {run['cap']} s per grade"
               for run in runs), "",
             "References: each manifest entry's local model (the first whose module is the "
             "reference module and that passes locally, else the first); a reference *runs* "
             "when its `original` variant verifies. *Decided*: `ok`, `forward_fail`, "
             "`reverse_fail`, of the outputs that parse and whose reference runs.", "",
             "## Verdicts per engine", "",
             "| engine | outputs | reference runs | parse ok (ref runs) | decided | decided share "
             "| " + " | ".join(BEHAVIOR_COLUMNS) + " |",
             "|---|---|---|---|---|---|" + "---|" * len(BEHAVIOR_COLUMNS)]
    for e, rs in by_engine.items():
        g = _graded(rs)
        c = Counter(r["behavior"] for r in g)
        decided = sum(c[v] for v in DECIDED)
        share = f"{decided}/{len(g)} ({100 * decided / len(g):.0f} %)" if g else "-"
        other = sum(n for v, n in c.items() if v not in BEHAVIOR_COLUMNS)
        lines.append(f"| {e} | {len(rs)} | {sum(r['reference_runs'] for r in rs)} | {len(g)} | "
                     f"{decided} | {share} | " + " | ".join(str(c[v]) for v in BEHAVIOR_COLUMNS)
                     + " |" + (f" (+{other} other)" if other else ""))
    lines += _per_model(rows, coverage, engines)
    lines += ["", "Previous measurement (before the graph engine, wrappers via `alias-bench grade`): 59 "
              "references run, 35 parse, 12 decided of 35 (5 ok, 6 forward_fail, 1 "
              "reverse_fail), 17 no_mapping, 6 not_covered.", "",
              "Parse and name verdicts (all outputs; `not_run`: the reference does not run, so "
              "only parse is graded):", ""]
    for e, rs in by_engine.items():
        for grade in ("parse", "name", "behavior"):
            counts = Counter(r[grade] for r in (rs if grade != "behavior" else _graded(rs)))
            scope = "" if grade != "behavior" else " (parse ok, reference runs)"
            lines.append(f"- {e}, {grade}{scope}: " + ", ".join(
                f"{v} {n}" for v, n in counts.most_common()))
    lines += ["", "## Soundness of the decided verdicts", "",
              "Each decided verdict's class (`justified`, `enumerated`, `mapping_free`) and the "
              "sources of its constants' values (rows graded before the classes existed show "
              "`-`).", ""]
    for e, rs in by_engine.items():
        decided_rows = [r for r in _graded(rs) if r["behavior"] in DECIDED]
        counts = Counter(f"{r['behavior']} {r.get('soundness') or '-'}" for r in decided_rows)
        lines.append(f"- {e}: " + (", ".join(f"{k} {n}" for k, n in sorted(counts.items()))
                                   or "none decided"))
        for r in sorted(decided_rows, key=lambda r: (r["spec_id"], r["model"])):
            sources = ", ".join(f"{name} {c['source']}"
                                for name, c in (r.get("constants") or {}).items())
            lines.append(f"  - {r['spec_id']} {r['model']}: {r['behavior']} "
                         f"{r.get('soundness') or '-'}" + (f" ({sources})" if sources else ""))
    lines += ["", "## Coverage of the references (self check, once per engine)", "",
              "| engine | references that run | covered | not covered or error |", "|---|---|---|---|"]
    for e in engines:
        cov = coverage.get(e, {})
        bad = {t: c for t, c in cov.items() if c["verdict"] != "ok"}
        lines.append(f"| {e} | {len(cov)} | {len(cov) - len(bad)} | " + "; ".join(
            f"{t}: {c['verdict']} ({c['seconds']} s) {_cell(c['reason'])[:120]}"
            for t, c in sorted(bad.items())) + " |")
    lines += ["", "## `ok` under a mapping other than the identity", ""]
    oks = [r for r in rows if r["behavior"] == "ok" and not _is_identity(r["mapping"])]
    if not oks:
        lines.append("- none")
    for r in oks:
        lines.append(f"- {r['spec_id']} {r['model']} ({r['engine']}, {r['reference_task']}): "
                     f"{_shown(_describe(r['mapping']))}")
        if r.get("mapping_tla"):
            shown = _shown(_tables_summarized(r["mapping_tla"]))
            lines += ["  ```tla", *("  " + x for x in shown.splitlines()), "  ```"]
    identity = [r for r in rows if r["behavior"] == "ok" and _is_identity(r["mapping"])]
    lines += ["", "`ok` under the identity: " + (", ".join(
        f"{r['spec_id']} {r['model']} ({r['engine']})" for r in identity) or "none")]
    lines += ["", "## Cost per behavior grade", "",
              "Over the grades that ran (output parses, reference runs, no error); a "
              "reference's first grade does not include its coverage check, which is timed "
              "apart above.", "",
              "| engine | grades | median s | max s | median TLC runs | max TLC runs "
              "| failing: grades | median s | max s | median TLC runs | max TLC runs |",
              "|---|---|---|---|---|---|---|---|---|---|---|"]
    for e, rs in by_engine.items():
        ran = [r for r in _graded(rs) if r["behavior"] != "error"]
        fail = [r for r in ran if r["behavior"] in FAILING]
        cells = []
        for group in (ran, fail):
            secs = [float(r["seconds"]) for r in group]
            tlc = [float(r["tlc_runs"]) for r in group if r["tlc_runs"] is not None]
            cells += [str(len(group)), _median(secs), _max(secs), _median(tlc), _max(tlc)]
        lines.append(f"| {e} | " + " | ".join(cells) + " |")
    shared = Counter(r["engine"] for r in _graded(rows) if r.get("output_graph_from"))
    if shared:
        lines += ["", "Grades whose output graph was the name grade's own TLC run (no run of "
                  "their own): " + ", ".join(f"{e} {n}" for e, n in shared.items()) + "."]
    lines += ["", "## Agreement of wrappers and graphs", ""]
    lines += _agreement(rows)
    lines += ["", "## Other notes", ""]
    notes = [f"- {r['spec_id']} {r['model']} ({r['engine']}): {r['behavior']}: "
             f"{_cell(r['behavior_reason'])}" for r in rows
             if r["behavior"] == "error" or r.get("uncapped")]
    fallbacks = Counter(r["engine"] for r in _graded(rows) if r.get("fallback"))
    if fallbacks:
        notes.append("- grades where the graph engine stepped aside (auto: wrappers decided): "
                     + ", ".join(f"{e} {n}" for e, n in fallbacks.items()))
    lines += notes or ["- none"]
    return "\n".join(lines) + "\n"


def _covered(row: dict[str, Any], coverage: dict[str, dict[str, Any]]) -> bool:
    """The row's reference runs and passes its own behavior grade (the coverage check)."""
    check = coverage.get(row["engine"], {}).get(str(row.get("reference_task")))
    return bool(row["reference_runs"]) and check is not None and check["verdict"] == "ok"


def _cause(row: dict[str, Any]) -> str:
    code = row.get("behavior_code") or "-"
    return f"{code} (script cap)" if row.get("uncapped") else code


def _per_model(rows: list[dict[str, Any]], coverage: dict[str, dict[str, Any]],
               engines: list[str]) -> list[str]:
    """Per engine, model and manifest: covered tasks, the decided share of the covered outputs
    that parse, every verdict by soundness class, and the undecided and no_mapping by cause."""
    lines = ["", "## Per model", "",
             "*Covered*: the reference runs and passes its own behavior grade (coverage check "
             "below). *Decided share*: `ok`, `forward_fail`, `reverse_fail` of the covered "
             "outputs that parse. Verdicts by class count the covered outputs that parse.", "",
             "| engine | model | manifest | outputs | reference runs | covered tasks "
             "| covered, parse ok | decided | decided share | verdicts (by soundness class) |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    causes: list[str] = []
    manifests = ("examples", "release", "all")
    for e in engines:
        for model in sorted({r["model"] for r in rows if r["engine"] == e}):
            for m in manifests:
                rs = [r for r in rows if r["engine"] == e and r["model"] == model
                      and (m == "all" or r.get("manifest", "examples") == m)]
                if not rs:
                    continue
                cov = [r for r in rs if _covered(r, coverage)]
                graded = [r for r in cov if r["parse"] == "ok"]
                decided = [r for r in graded if r["behavior"] in DECIDED]
                share = (f"{len(decided)}/{len(graded)} ({100 * len(decided) / len(graded):.0f} %)"
                         if graded else "-")
                classes = Counter(f"{r['behavior']} {r.get('soundness')}" if r["behavior"]
                                  in DECIDED else r["behavior"] for r in graded)
                lines.append(f"| {e} | {model} | {m} | {len(rs)} | "
                             f"{sum(bool(r['reference_runs']) for r in rs)} | "
                             f"{len({r['reference_task'] for r in cov})} | {len(graded)} | "
                             f"{len(decided)} | {share} | " + ", ".join(
                                 f"{k} {n}" for k, n in sorted(classes.items())) + " |")
                if m != "all":
                    continue
                for verdict in ("undecided", "no_mapping"):
                    by = Counter(_cause(r) for r in graded if r["behavior"] == verdict)
                    if by:
                        causes.append(f"- {e}, {model}, {verdict}: " + ", ".join(
                            f"{c} {n}" for c, n in by.most_common()) + " — " + ", ".join(
                            f"{r['spec_id']} ({_cause(r)})" for r in graded
                            if r["behavior"] == verdict))
    return [*lines, "", "Not decided, by cause (reason code; covered outputs that parse):", "",
            *(causes or ["- none"])]


def _agreement(rows: list[dict[str, Any]]) -> list[str]:
    idx = {(r["spec_id"], r["model"], r["engine"]): r for r in rows}
    both = [(idx[(s, m, "wrappers")], idx[(s, m, "graphs")]) for s, m, e in idx
            if e == "wrappers" and (s, m, "graphs") in idx]
    decided = [(w, g) for w, g in both if w["behavior"] in DECIDED and g["behavior"] in DECIDED]
    same = [p for p in decided if p[0]["behavior"] == p[1]["behavior"]]
    lines = [f"Both engines graded {len(both)} outputs; both decided {len(decided)}; identical "
             f"verdicts {len(same)} of {len(decided)}."]
    for w, g in decided:
        if w["behavior"] != g["behavior"]:
            lines.append(f"- {w['spec_id']} {w['model']}: wrappers {w['behavior']} "
                         f"({_cell(w['behavior_reason'])}); graphs {g['behavior']} "
                         f"({_cell(g['behavior_reason'])})"
                         + (f"; graphs mapping: {_describe(g['mapping'])}" if g["mapping"] else ""))
    one = [(w, g) for w, g in both if (w["behavior"] in DECIDED) != (g["behavior"] in DECIDED)]
    if one:
        lines += ["", "Decided by one engine only:", ""]
        lines += [f"- {w['spec_id']} {w['model']}: wrappers {w['behavior']}, graphs {g['behavior']}"
                  for w, g in one]
    return lines


# ---------------------------------------------------------------------------------- running
def _read_rows(out_dir: Path) -> tuple[list[dict[str, Any]], dict[str, dict[str, Any]],
                                        list[dict[str, str]]]:
    """Rows, coverage checks and runs recorded so far (the final JSON, then the partial log)."""
    rows: list[dict[str, Any]] = []
    coverage: dict[str, dict[str, Any]] = {}
    runs: list[dict[str, str]] = []
    final = out_dir / "real_outputs.json"
    if final.is_file():
        data = json.loads(final.read_text(encoding="utf-8"))
        rows, coverage = list(data["rows"]), dict(data.get("coverage", {}))
        runs = list(data.get("runs", []))
    partial = out_dir / "real_outputs.partial.jsonl"
    if partial.is_file():
        for line in partial.read_text(encoding="utf-8").splitlines():
            if line.strip():
                item = json.loads(line)
                if "coverage" in item:
                    coverage.setdefault(item["engine"], {}).update(item["coverage"])
                else:
                    rows.append(item)
    seen: dict[tuple[str, str, str], dict[str, Any]] = {}
    for r in rows:
        seen[(r["spec_id"], r["model"], r["engine"])] = r  # the later row wins
    return list(seen.values()), coverage, runs


def _commit() -> str:
    """The checkout's commit, `+dirty` when tracked files differ from it."""
    def git(*argv: str) -> str:
        done = subprocess.run(["git", *argv], cwd=HERE, capture_output=True, text=True,
                              check=False)
        return done.stdout.strip() if done.returncode == 0 else ""
    head = git("rev-parse", "--short", "HEAD") or "unknown"
    return head + ("+dirty" if git("status", "--porcelain", "--untracked-files=no") else "")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", type=Path, default=shared_corpus(HERE.parent),
                    help="the shared corpus folder (default: ../shared/corpus beside the "
                    "checkout, or $ALIAS_SHARED_CORPUS)")
    ap.add_argument("--engines", default="wrappers,graphs,auto",
                    help="behavior engines, in the order run (wrappers,graphs,auto)")
    ap.add_argument("--manifest", choices=MANIFESTS, default="both",
                    help="manifest.json (examples: 75 outputs, tlaplus/Examples references), "
                    "manifest_release.json (release: 118, the release's gold specs) or both")
    ap.add_argument("--only", action="append", default=[], metavar="SPEC_ID",
                    help="only this TLA+-Bench spec id (repeatable)")
    ap.add_argument("--timeout", type=float, default=60.0, help="TLC limit per run (60 s)")
    ap.add_argument("--cap", type=float, default=600.0,
                    help="a behavior grade over this many seconds counts as undecided (600)")
    ap.add_argument("--jobs", type=int, default=1, choices=(1, 2),
                    help="outputs graded at once (1; 2 shares one harness of 2 JVM workers)")
    ap.add_argument("--sweep-jobs", type=int, default=1, metavar="N",
                    help="TLC runs of one output's sweep at once (1); the harness gets "
                    "--jobs x N JVM workers")
    ap.add_argument("--busy", type=int, default=0, metavar="N",
                    help="keep N busy processes running beside the grading (a loaded "
                    "machine; verdicts must not change: compare with real_outputs_diff.py)")
    ap.add_argument("--resume", action="store_true", help="skip rows already recorded")
    ap.add_argument("--redo", action="store_true",
                    help="with --resume: grade the --engines rows again, keep the others")
    ap.add_argument("--out", type=Path, default=HERE / "results")
    args = ap.parse_args()
    if args.corpus is None or not (args.corpus / "tla-bench-outputs").is_dir():
        ap.error(f"--corpus: no tla-bench-outputs under {args.corpus}")
    engines = [e.strip() for e in args.engines.split(",") if e.strip()]
    if bad := [e for e in engines if e not in ENGINES]:
        ap.error(f"--engines: unknown {', '.join(bad)} (one of {', '.join(ENGINES)})")
    outputs = read_outputs(args.corpus, args.manifest)
    if unknown := sorted(set(args.only) - {o.spec_id for o in outputs}):
        ap.error(f"--only: no output for spec id {', '.join(unknown)}")
    if args.only:
        outputs = [o for o in outputs if o.spec_id in args.only]
    if args.redo and not args.resume:
        ap.error("--redo needs --resume")
    if args.sweep_jobs < 1:
        ap.error("--sweep-jobs must be 1 or more")
    args.out.mkdir(parents=True, exist_ok=True)
    partial = args.out / "real_outputs.partial.jsonl"
    rows, coverage, runs = _read_rows(args.out) if args.resume else ([], {}, [])
    if args.redo:
        again = {(*o.key, e) for e in engines for o in outputs}
        dropped = [r for r in rows if (r["spec_id"], r["model"], r["engine"]) in again]
        rows = [r for r in rows if (r["spec_id"], r["model"], r["engine"]) not in again]
        for r in dropped:  # their references' coverage checks are made again too
            coverage.get(r["engine"], {}).pop(str(r["reference_task"]), None)
        if not args.only:  # a run all of whose rows are graded again is no longer a source
            runs = [r for r in runs if not set(r.get("engines", "").split(",")) <= set(engines)]
    if not args.resume:
        partial.unlink(missing_ok=True)
    done = {(r["spec_id"], r["model"], r["engine"]) for r in rows}
    work = [(e, o) for e in engines for o in outputs if (*o.key, e) not in done]
    tasks = load_examples(args.corpus / "tlaplus-examples", passing_only=False) \
        if args.manifest != "release" else []
    release = load_task_set(args.corpus / RELEASE).tasks if args.manifest != "examples" else ()
    commit = _commit()  # the code this run imports
    started = time.monotonic()
    write = threading.Lock()
    with Harness(tlc_timeout=args.timeout, pool_size=args.jobs * args.sweep_jobs) as harness, \
            partial.open("a", encoding="utf-8") as log:
        refs = References(harness, tasks, release)
        covers = {e: Coverage(harness, BehaviorOptions(engine=e, timeout=args.timeout))
                  for e in engines}
        counter = iter(range(1, len(work) + 1))
        logged: set[tuple[str, str]] = set()

        def run(item: tuple[str, Output]) -> None:
            engine, out = item
            row = grade_one(harness, refs, covers[engine], out, engine, args)
            with write:
                n = next(counter)
                rows.append(row)
                log.write(json.dumps(row) + "\n")
                timings = covers[engine].timings
                if fresh := {t: c for t, c in timings.items() if (engine, t) not in logged}:
                    logged.update((engine, t) for t in fresh)
                    log.write(json.dumps({"engine": engine, "coverage": fresh}) + "\n")
                log.flush()
                print(f"[{n}/{len(work)}] {out.spec_id} {out.model} {engine}: parse {row['parse']}"
                      f", name {row['name']}, behavior {row['behavior']}, "
                      f"{row['total_seconds']:.1f} s", file=sys.stderr, flush=True)

        hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"])
                for _ in range(args.busy)]
        try:
            with ThreadPoolExecutor(max_workers=args.jobs) as pool:
                list(pool.map(run, work))
        finally:
            for hog in hogs:
                hog.kill()
                hog.wait()
        for e, cov in covers.items():
            coverage.setdefault(e, {}).update(cov.timings)
        jar = harness.toolchain.jar_version
    wall = time.monotonic() - started
    wanted = {(*o.key, e) for e in engines for o in outputs}
    if not args.resume:
        rows = [r for r in rows if (r["spec_id"], r["model"], r["engine"]) in wanted]
    order = {o.key: i for i, o in enumerate(read_outputs(args.corpus))}
    rows = [r for r in rows if (r["spec_id"], r["model"]) in order]
    rows.sort(key=lambda r: (ORDER.index(r["engine"]), order[(r["spec_id"], r["model"])]))
    if work:
        runs.append({"command": "python scripts/real_outputs.py " + " ".join(sys.argv[1:]),
                     "engines": ",".join(engines), "commit": commit,
                     "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"), "jar": jar,
                     "timeout": f"{args.timeout:g}", "cap": f"{args.cap:g}",
                     "wall": f"{wall / 60:.1f} min for {len(work)} grades with --jobs {args.jobs}"
                     + (f" beside {args.busy} busy processes" if args.busy else "")})
    all_engines = [e for e in ORDER if any(r["engine"] == e for r in rows)]
    (args.out / "real_outputs.json").write_text(json.dumps(
        {"runs": runs, "coverage": coverage, "rows": rows}, indent=1) + "\n", encoding="utf-8")
    (args.out / "real_outputs.md").write_text(render(rows, coverage, all_engines, runs),
                                              encoding="utf-8")
    partial.unlink(missing_ok=True)
    print(f"{len(rows)} rows; wrote {args.out / 'real_outputs.md'} in {wall:.0f} s",
          file=sys.stderr)


if __name__ == "__main__":
    main()
