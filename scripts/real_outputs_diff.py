"""Every behavior verdict that changed between two runs of `real_outputs.py`, with its reason.

Run: `python scripts/real_outputs_diff.py BEFORE.json AFTER.json [--engine auto]
[--merge OUT_DIR]`.

Rows are matched by (spec id, model, engine). A row whose verdict, reason code or soundness
class differs is listed with both sides: verdict, code, class and the after side's reason
(the reason says why the verdict is what it is now; nothing is listed silently). Rows only
one side has are counted. With `--merge OUT_DIR`, AFTER's rows replace BEFORE's and the
merged rows, coverage checks and runs are written as `OUT_DIR/real_outputs.json` and
`real_outputs.md` (for an AFTER run that re-graded only the rows a change can reach, with
`--only`), and the list as `OUT_DIR/real_outputs_changes.md`.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))  # the sibling script's report, run as a script

Key = tuple[str, str, str]


def _rows(path: Path) -> dict[Key, dict[str, Any]]:
    data = json.loads(path.read_text(encoding="utf-8"))
    return {(r["spec_id"], r["model"], r["engine"]): r for r in data["rows"]}


def _side(row: dict[str, Any]) -> str:
    code = f" ({row['behavior_code']})" if row.get("behavior_code") else ""
    sound = f" [{row['soundness']}]" if row.get("soundness") else ""
    return f"{row['behavior']}{code}{sound}"


def _cell(text: str | None, n: int = 400) -> str:
    text = (text or "").replace("|", "\\|").replace("\n", " ")
    return text if len(text) <= n else text[: n - 3] + "..."


def changes(before: dict[Key, dict[str, Any]], after: dict[Key, dict[str, Any]],
            engine: str) -> list[str]:
    """The Markdown list of changed verdicts (see the module)."""
    keys = [k for k in after if k[2] == engine and k in before]
    changed = [k for k in keys if (before[k]["behavior"], before[k].get("behavior_code"),
                                   before[k].get("soundness"))
               != (after[k]["behavior"], after[k].get("behavior_code"),
                   after[k].get("soundness"))]
    moves = Counter(f"{before[k]['behavior']} -> {after[k]['behavior']}" for k in changed)
    lines = [f"# Behavior verdicts that changed ({engine})", "",
             f"{len(keys)} rows on both sides; {len(changed)} changed"
             + (": " + ", ".join(f"{m} {n}" for m, n in moves.most_common()) if moves else "")
             + ".", "",
             "| spec | model | before | after | why now |", "|---|---|---|---|---|"]
    for k in sorted(changed, key=lambda k: (int(k[0]) if k[0].isdigit() else 0, k[1])):
        lines.append(f"| {k[0]} | {k[1]} | {_side(before[k])} | {_side(after[k])} | "
                     f"{_cell(after[k].get('behavior_reason') or after[k].get('reference_reason'))}"
                     " |")
    only = [k for k in after if k[2] == engine and k not in before]
    if only:
        lines += ["", f"Rows only after: {len(only)}."]
    return lines


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("before", type=Path)
    ap.add_argument("after", type=Path)
    ap.add_argument("--engine", default="auto")
    ap.add_argument("--merge", type=Path, default=None)
    args = ap.parse_args()
    before, after = _rows(args.before), _rows(args.after)
    text = "\n".join(changes(before, after, args.engine)) + "\n"
    if args.merge is None:
        print(text, end="")
        return
    import real_outputs  # noqa: PLC0415 - the sibling script, only for --merge

    from alias_fixtures.tasks.loaders import shared_corpus  # noqa: PLC0415

    old = json.loads(args.before.read_text(encoding="utf-8"))
    new = json.loads(args.after.read_text(encoding="utf-8"))
    rows = {**before, **after}
    corpus = shared_corpus(HERE.parent)
    order = {o.key: i for i, o in enumerate(real_outputs.read_outputs(corpus))} \
        if corpus is not None else {}
    merged = sorted(rows.values(), key=lambda r: (real_outputs.ORDER.index(r["engine"]),
                                                  order.get((r["spec_id"], r["model"]), 0)))
    coverage = {e: {**old.get("coverage", {}).get(e, {}), **new.get("coverage", {}).get(e, {})}
                for e in {*old.get("coverage", {}), *new.get("coverage", {})}}
    runs = [*old.get("runs", []), *new.get("runs", [])]
    engines = [e for e in real_outputs.ORDER if any(r["engine"] == e for r in merged)]
    args.merge.mkdir(parents=True, exist_ok=True)
    (args.merge / "real_outputs.json").write_text(json.dumps(
        {"runs": runs, "coverage": coverage, "rows": merged}, indent=1) + "\n",
        encoding="utf-8")
    (args.merge / "real_outputs.md").write_text(
        real_outputs.render(merged, coverage, engines, runs), encoding="utf-8")
    (args.merge / "real_outputs_changes.md").write_text(text, encoding="utf-8")
    print(f"merged {len(merged)} rows into {args.merge}", file=sys.stderr)


if __name__ == "__main__":
    main()
