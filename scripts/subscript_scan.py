"""List every spec whose `[][Next]_v` subscript leaves a variable out (or cannot be read): the real
TLA+-Bench outputs, the built-in demo outputs, the built-in and corpus references.

The behavior grade turns an `ok` of such an output into `undecided` (`subscript_incomplete`)
unless the reference leaves the same variables out; it changes no other verdict. So the verdicts
this rule can change are the `ok`s among the outputs listed here, which the report shows next to
each output's recorded behavior verdict (from `scripts/results/real_outputs.json`, engine auto).
Reads text only (no TLC): a second or two.

Run: `python scripts/subscript_scan.py [--corpus ../shared/corpus] [--out scripts/results/subscripts.md]`
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterator, Mapping
from pathlib import Path

from alias_fixtures.grading.extract import extract_module
from alias_fixtures.tasks.loaders import load_examples, shared_corpus
from alias_fixtures.tasks.task import builtin_tasks
from tlc_harness.behavior.search import spec_shape
from tlc_harness.behavior.staging import Reference, entry_points
from tlc_harness.behavior.subscripts import Subscripts, spec_subscripts
from tlc_harness.source.cfg import ModelConfig
from tlc_harness.source.identifiers import analyze_module
from tlc_harness.source.tokens import blank_comments

HERE = Path(__file__).resolve().parent
#: a task whose cfg names `SPECIFICATION Spec`, as the prompt asks (the grade reads the formula
#: the cfg names; a cfg without one would keep a `Spec` only where it is `Init` and `Next`)
NOBODY = Reference("None", {}, ModelConfig(specification="Spec"))


def _output_subscripts(text: str) -> tuple[str, Subscripts] | None:
    """The graded module's specification name and its subscripts (None: no Spec, or no module)."""
    found = extract_module(text)
    if not found.text or not found.module_name:
        return None
    files = {f"{found.module_name}.tla": found.text}
    if not analyze_module(found.text).module:  # as the grade does: comments blanked
        files = {name: blank_comments(body) for name, body in files.items()}
    shape = spec_shape(files, found.module_name)
    spec = entry_points(shape, files, NOBODY)[2]
    return (spec, spec_subscripts(files, spec, shape.variables, found.module_name)) \
        if spec else None


def _rows(corpus: Path) -> Iterator[tuple[str, str, str, Subscripts, str]]:
    """(kind, id, specification, subscripts, recorded verdict) of every incomplete spec."""
    verdicts: Mapping[tuple[str, str], str] = {}
    recorded = HERE / "results" / "real_outputs.json"
    if recorded.is_file():
        verdicts = {(r["spec_id"], r["model"]): r["behavior"]
                    for r in json.loads(recorded.read_text(encoding="utf-8"))["rows"]
                    if r["engine"] == "auto"}
    folder = corpus / "tla-bench-outputs"
    for entry in json.loads((folder / "manifest.json").read_text(encoding="utf-8")):
        got = _output_subscripts((folder / entry["generation_path"]).read_text(encoding="utf-8"))
        if got and not got[1].complete:
            key = (str(entry["spec_id"]), entry["model"])
            yield "real output", f"{key[0]} {key[1]}", got[0], got[1], verdicts.get(key, "-")
    demo = HERE.parent / "alias_fixtures" / "demo_outputs" / "outputs.jsonl"
    for line in demo.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        got = _output_subscripts(row["text"])
        if got and not got[1].complete:
            yield ("demo output", f"{row['task']}/{row['condition']}/s{row['sample']}", got[0],
                   got[1], row.get("archetype", "-"))
    tasks = [*builtin_tasks(), *load_examples(corpus / "tlaplus-examples")]
    for task in tasks:
        if task.cfg.specification:
            shape = spec_shape(dict(task.modules), task.main_module)
            subs = spec_subscripts(dict(task.modules), task.cfg.specification, shape.variables,
                                   task.main_module)
            if not subs.complete:
                yield "reference", task.id, task.cfg.specification, subs, "-"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--corpus", type=Path, default=shared_corpus(HERE.parent))
    ap.add_argument("--out", type=Path, default=HERE / "results" / "subscripts.md")
    args = ap.parse_args()
    rows = list(_rows(args.corpus))
    lines = ["# Specs whose [][Next]_v subscript leaves a variable out", "",
             "Made by `python scripts/subscript_scan.py`. An `ok` of a listed output becomes "
             "`undecided` (`subscript_incomplete`) unless its reference leaves the same "
             "variables out; no other verdict changes. Verdict: the output's recorded behavior "
             "verdict (engine auto, `real_outputs.json`); for a demo output, its archetype.", "",
             "| kind | spec | specification | omitted | unreadable | verdict |",
             "|---|---|---|---|---|---|"]
    lines += [f"| {kind} | {name} | {spec} | {', '.join(sorted(s.omitted)) or '-'} | "
              f"{', '.join(s.unreadable) or '-'} | {verdict} |"
              for kind, name, spec, s, verdict in rows]
    oks = [name for kind, name, _, _, verdict in rows if verdict == "ok"]
    lines += ["", f"{len(rows)} incomplete specs; recorded `ok`s among them: "
              f"{', '.join(oks) or 'none'}."]
    args.out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
