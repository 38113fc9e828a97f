"""The study's task-set tables, reproduced on TLA+-Bench's release by ALIAS's own code.

Run (from the repository root; about 22 minutes on 2 cores with a cold variant cache, seconds
with a warm one):

    python scripts/study_tasks.py [--release ../shared/corpus/tla-bench-release]
        [--cache ROOT] [--seed 0] [--jobs 2] [--timeout 300] [--out scripts/results/study_tasks.md]

It loads the release's system specs (`load_task_set`), makes and verifies every task's random
variant (`build_variants`, the benchmark's run seed `--alias-seed`, default 0, cached under
`ROOT/variants`, ROOT the per-task cache root: `$XDG_CACHE_HOME/alias` unless `--cache`), runs the
original of every lost task once more to read why it fails, and writes six tables beside the
study's figures: the funnel from 146 specs to verified variants with the cause of every loss,
ALIAS against TLA+-Bench's renaming record, hidden required names, identifier kinds, renamed
descriptions and the exposure split. The Markdown goes to `--out`, the raw per-task data to the
same path with `.json`. Progress goes to stderr. Nothing of the corpus is copied: the files hold
task ids, counts and identifier names only.
"""

from __future__ import annotations

import argparse
import itertools
import json
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
RELEASE = ROOT.parent / "shared" / "corpus" / "tla-bench-release"

#: the study's figures (FACTS.md, "The study's numbers")
STUDY = {"system": 146, "verified": 111, "hidden_tasks": 78, "hidden_5": 29, "hidden_total": 333,
         "hidden_constant": 115, "hidden_invariant": 113, "hidden_property": 87,
         "hidden_constraint": 18, "hidden_conventions": 77, "renamed_identifiers": 1788,
         "domain_used": 219, "domain_kept": 199, "damage_avoided": 45, "half_a": 55,
         "half_b": 56}

#: modules that current TLA+ tools ship as standard modules and the 2020 jar lacks
NEWER_STANDARD = frozenset({"TLCExt", "_Possible", "IOUtils", "CSV", "Json", "Randomization2"})

#: Causes recorded after reading the spec, its cfg and TLC's messages (scripts/results explains
#: each). A note applies only when the task's original still ends with the verdict it names;
#: otherwise the loss is listed as unexplained. (verdict, cause, what would fix it, evidence)
NOTES: dict[str, tuple[str, str, str, str]] = {
    "1384": ("invariant_violated", "TLCEval not honoured (TLC bug, tlaplus issue 648)",
             "newer jar",
             "the spec is TLC's regression test for issue 648: its comment says Inv is violated "
             "if TestGraph's RandomElement is re-evaluated without TLCEval; the 2020 jar violates "
             "Inv in the initial state (2107) with the TLCEval in place"),
    "1394": ("eval_error", "INSTANCE substitution undefined in UNCHANGED (TLC bug, issue 702)",
             "newer jar",
             "its comment: 'Previously, TLC would fail with ... fizzbuzz undefined in an "
             "UNCHANGED expression'; the 2020 jar fails exactly so (1000, then 2103)"),
    "1399": ("config_bind_fail", "a variable as a PROPERTY rejected (TLC issue 715)",
             "newer jar",
             "PROPERTY Prop with Prop == x (a BOOLEAN variable); the 2020 jar answers 2236 "
             "'operator x cannot be used as a property'"),
    "1405": ("eval_error", "SelectSeq's LAMBDA over an INSTANCE's primed variable (TLC issue "
             "725)", "newer jar",
             "2154 then 2280 'identifier outerRes is either undefined or not an operator' inside "
             "the Java SelectSeq; the module is TLC's regression test Github725f"),
    "1447": ("invariant_violated", "RandomElement: x = y holds or not by chance",
             "nothing (nondeterministic)",
             "Next sets x and y to RandomElement(0..1) each and Inv is x = y; with TLC's -seed "
             "fixed, repeated runs here still differ (violated in most, passing in some)"),
    "1456": ("eval_error", "x \\subseteq S as an initial-state generator (newer TLC only)",
             "newer jar",
             "Init is x \\subseteq {1, 2}; the 2020 jar reads x there as undefined (2280); "
             "TLA+-Bench's newer TLC passes its renamed copy"),
}

#: a short, named reading of each deadlock (all five end because their Next does)
DEADLOCK_NOTES = {
    "589": "the trace ends with both clients committed and no client step enabled",
    "1283": "Next is CASE ... OTHER -> FALSE: no step after pc = 2",
    "1444": "Next needs x < 3: no step at x = 3",
    "1457": "a deadlock test by name: Next needs x <= 3",
    "1505": "x \\in Nat with Nat <- 0..1 in the cfg: no step at x = 2",
}


# --------------------------------------------------------------------------- collecting


def _git() -> str | None:
    try:
        return subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True,
                              text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None


def _say(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def _first_error(text: str) -> str:
    """The first line of SANY's or TLC's text that says what went wrong (for the record)."""
    keys = ("Cannot find source file", "cannot be used", "undefined", "is violated",
            "Deadlock", "Error", "error")
    for key in keys:
        for line in text.splitlines():
            if key in line:
                return line.strip()[:240]
    return ""


def _module_copies(repo: Path, name: str) -> list[str]:
    """Paths (relative to the release's repository root) of files named `name`.tla."""
    data = repo / "data"
    return sorted(str(p.relative_to(repo)) for p in data.rglob(f"{name}.tla")) if data.is_dir() \
        else []


def _loss_details(harness: Any, task: Any, repo: Path) -> dict[str, Any]:
    """The original's TLC run (and SANY's answer), read again for the loss table."""
    from alias_fixtures.tasks.descriptions import words_of
    from alias_fixtures.tasks.variants import check_original

    run = check_original(harness, task)
    parsed = harness.parse(task.spec())
    missing = sorted({e.split()[-1] for e in parsed.errors if e.startswith("missing module ")})
    copies = {m: _module_copies(repo, m) for m in missing}
    imports = {m: sorted(n for n in NEWER_STANDARD - {m}
                         if any(n in words_of((repo / c).read_text(errors="replace"))
                                for c in cs))
               for m, cs in copies.items()}
    return {"verdict": run.verdict.value, "exit_code": run.exit_code,
            "codes": sorted(set(run.message_codes)), "violated": run.violated,
            "missing_names": list(run.missing_names), "distinct_states": run.distinct_states,
            "message": _first_error(run.output) or _first_error("\n".join(parsed.errors)),
            "sany_ok": parsed.ok, "missing_modules": missing, "module_copies": copies,
            "copy_imports": imports, "tlc_args": list(task.tlc_args), "notes": list(run.notes)}


def _release_record(dataset: Path) -> tuple[list[dict[str, Any]], dict[str, dict[str, Any]]]:
    rows = [json.loads(line) for line in (dataset / "manifest.jsonl").read_text().splitlines()
            if line.strip()]
    record = json.loads((dataset / "perturbation" / "perturb_gold_system.json").read_text())
    return rows, {str(r["spec_id"]): r for r in record}


def _description_rows(task: Any, alias_map: Mapping[str, str], tb: Mapping[str, Any] | None,
                      perturbed: str | None) -> dict[str, Any]:
    from dataclasses import asdict

    from alias_fixtures.tasks.descriptions import describe_renaming

    cfg_names, mods = task.cfg.referenced_names(), task.module_names()
    out: dict[str, Any] = {}
    desc = task.description or ""
    out["alias"] = asdict(describe_renaming(desc, alias_map, cfg_names=cfg_names,
                                            module_names=mods))
    tb_map = dict((tb or {}).get("rename_map") or {})
    if tb_map:
        try:
            out["tlabench_map_alias_rule"] = asdict(describe_renaming(
                desc, tb_map, cfg_names=cfg_names, module_names=mods))
        except ValueError as exc:
            out["tlabench_map_alias_rule"] = {"error": str(exc)}
    if tb_map and perturbed is not None:
        out["tlabench_text"] = whole_word_report(desc, perturbed, tb_map, cfg_names, mods)
    return out


def collect(args: argparse.Namespace) -> dict[str, Any]:
    """Load, verify and measure every task; the raw data the tables are built from."""
    from alias_fixtures.tasks.descriptions import identifier_kind, task_name_report
    from alias_fixtures.tasks.loaders import load_task_set
    from alias_fixtures.tasks.release import ReleaseLayout
    from alias_fixtures.tasks.variants import OriginalRuns, VariantStore, build_variant
    from tlc_harness.tools.disk_cache import cache_root
    from tlc_harness.tools.runner import Harness, HarnessSettings

    layout = ReleaseLayout.find(args.release)
    if layout is None:
        raise SystemExit(f"{args.release}: not a TLA+-Bench release")
    manifest, record = _release_record(layout.dataset)
    system = [str(r["spec_id"]) for r in manifest if r.get("category") == "system"]
    task_set = load_task_set(args.release)
    tasks = {t.id: t for t in task_set.tasks}
    cache = cache_root(args.cache) / "variants"
    _say(f"{len(tasks)} tasks loaded, {len(task_set.skipped)} skipped; variants cached in {cache}")
    start = time.monotonic()
    settings = HarnessSettings(tlc_timeout=args.timeout, pool_size=args.jobs)
    with Harness(settings=settings) as harness:
        store = VariantStore(cache, jar_sha256=harness.toolchain.jar_sha256)
        originals = OriginalRuns(harness)
        cached = sum(store.lookup(store.key(t, "random", args.seed), harness) is not None
                     for t in tasks.values())
        _say(f"{cached} of {len(tasks)} variants already in the cache")
        done = itertools.count(1)  # next() is atomic: the threads share it

        def one(task_id: str) -> tuple[str, Any, Any]:
            variant, check = build_variant(harness, tasks[task_id], "random", seed=args.seed,
                                           store=store, original=originals)
            _say(f"[{next(done)}/{len(tasks)}] {task_id}: "
                 f"{'verified' if check.verified else 'NOT verified: ' + str(check.reason)} "
                 f"({time.monotonic() - start:.0f} s)")
            return task_id, variant, check

        with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            built = list(pool.map(one, sorted(tasks, key=int)))
        rows = []
        for task_id, variant, check in built:
            task = tasks[task_id]
            tb = record.get(task_id)
            mapping = dict(variant.rename_map) if variant is not None else {}
            names = task_name_report(task, mapping)
            path = layout.dataset / "descriptions" / "perturbed" / f"{task_id}.txt"
            perturbed = path.read_text(encoding="utf-8") if path.is_file() else None
            row: dict[str, Any] = {
                "id": task_id, "module": task.main_module, "verified": check.verified,
                "reason": check.reason, "original_states": check.original_states,
                "renamed_states": check.renamed_states, "seconds": round(check.seconds, 2),
                "limit": check.limit, "modules": sorted(task.module_names()),
                "original_ok": original_ok(check.verified, check.reason),
                "hidden": [{"name": h.name, "kind": h.kind, "identifier_kind": h.identifier_kind}
                           for h in names.hidden],
                "renamed": {old: identifier_kind(old) for old in mapping},
                "tlabench": None if tb is None else tlabench_facts(tb),
                "descriptions": _description_rows(task, mapping, tb, perturbed),
            }
            if not check.verified:
                _say(f"reading the loss of {task_id} again")
                row["loss"] = _loss_details(harness, task, layout.repo)
            rows.append(row)
        provenance = {"date": datetime.now(UTC).isoformat(timespec="seconds"),
                      "git_commit": _git(), "command": "python scripts/study_tasks.py "
                      + " ".join(sys.argv[1:]), "seed": str(args.seed), "cache": str(cache),
                      "tlc_timeout": args.timeout, "wall_seconds": round(time.monotonic() - start),
                      "variants_cached": cached,
                      **harness.toolchain.describe()}
    tb_ids = sorted((i for i, r in record.items() if r.get("verified")), key=int)
    return {"provenance": provenance, "system_ids": system,
            "skipped": [{"id": s.id, "reason": s.reason} for s in task_set.skipped],
            "tlabench_verified": tb_ids, "tasks": rows,
            "tlabench_maps": {i: {old: identifier_kind(old) for old in r.get("rename_map") or {}}
                              for i, r in sorted(record.items(), key=lambda kv: int(kv[0]))},
            "not_loaded": [_record_only(layout.dataset, record[s.id])
                           for s in task_set.skipped if s.id in record]}


def tlabench_facts(entry: Mapping[str, Any]) -> dict[str, Any]:
    """What TLA+-Bench's record says of one spec (its map's names are kept at the top level)."""
    mapping = entry.get("rename_map") or {}
    return {**{k: entry.get(k) for k in ("verified", "fail_stage", "error", "n_renamed",
                                          "tlc_status", "module")},
            "length_changed": sum(len(a) != len(b) for a, b in mapping.items())}


def _record_only(dataset: Path, entry: Mapping[str, Any]) -> dict[str, Any]:
    """A spec of the record that is no task here (no cfg): its description measures, with no
    cfg names and its own module as the only module name."""
    task_id = str(entry["spec_id"])
    desc = dataset / "descriptions" / "declarative_gpt" / f"{task_id}.txt"
    renamed = dataset / "descriptions" / "perturbed" / f"{task_id}.txt"
    row: dict[str, Any] = {"id": task_id, "hidden": [], "descriptions": {}}
    mapping = entry.get("rename_map") or {}
    if desc.is_file() and mapping:
        from dataclasses import asdict

        from alias_fixtures.tasks.descriptions import describe_renaming

        text = desc.read_text(encoding="utf-8")
        mods = {str(entry.get("module"))}
        row["descriptions"]["tlabench_map_alias_rule"] = asdict(
            describe_renaming(text, mapping, cfg_names=(), module_names=mods))
        if renamed.is_file():
            row["descriptions"]["tlabench_text"] = whole_word_report(
                text, renamed.read_text(encoding="utf-8"), mapping, (), mods)
    return row


# --------------------------------------------------------------------------- pure measures


def original_ok(verified: bool, reason: str | None) -> bool:
    """Whether the original passed SANY and TLC, from a verification's outcome."""
    return verified or not (reason or "").startswith("the original does not pass")


def _parts(text: str) -> set[str]:
    from alias_fixtures.tasks.descriptions import split_identifier, words_of

    return {p.lower() for w in words_of(text) for p in split_identifier(w)}


def _english(name: str) -> set[str]:
    from alias_fixtures.tasks.descriptions import split_identifier

    return {p.lower() for p in split_identifier(name) if p.isalpha() and len(p) >= 3}


def whole_word_report(description: str, renamed: str, mapping: Mapping[str, str],
                      cfg_names: Iterable[str], module_names: Iterable[str]) -> dict[str, Any]:
    """TLA+-Bench's renamed text measured as `DescriptionReport` measures ALIAS's rule: domain
    identifiers of the map whose words the description uses and whose words the renamed text
    keeps; `damaged`: names the description mentions that part 2 of the rule would keep and
    the renamed text replaced."""
    from alias_fixtures.tasks.descriptions import identifier_kind, rename_rule, words_of

    before, after = _parts(description), _parts(renamed)
    used_words, new_words = set(words_of(description)), set(words_of(renamed))
    cfg, mods = frozenset(cfg_names), frozenset(module_names)
    used = kept = 0
    for old in mapping:
        parts = _english(old)
        if identifier_kind(old) == "domain" and parts <= before:
            used += 1
            kept += parts <= after
    damaged = sorted(old for old in mapping if old in used_words and old not in new_words
                     and rename_rule(old, cfg_names=cfg, module_names=mods)
                     in ("lowercase", "module"))
    return {"domain_used": used, "domain_words_kept": kept, "damaged": damaged}


def loss_cause(row: Mapping[str, Any]) -> tuple[str, str, str]:
    """(named cause, what would fix it, evidence) of a task that did not verify."""
    loss = row.get("loss") or {}
    verdict = loss.get("verdict")
    stored = str(row.get("reason") or "")
    if row.get("original_ok"):
        return ("the renamed variant fails: " + stored, "ALIAS's renamer", stored)
    note = NOTES.get(str(row["id"]))
    if note and note[0] in (verdict, stored.rsplit("(", 1)[-1].rstrip(")")):
        return note[1], note[2], note[3]
    missing = loss.get("missing_modules") or []
    if verdict == "parse_error" and missing:
        parts = []
        for mod in missing:
            copies = loss.get("module_copies", {}).get(mod) or []
            via = loss.get("copy_imports", {}).get(mod) or []
            where = (f"a copy is in the release ({copies[0]}) but it imports {', '.join(via)}"
                     if copies and via else f"a copy is in the release ({copies[0]})" if copies
                     else "no copy in the release")
            parts.append(f"{mod}: {where}")
        newer = all(m in NEWER_STANDARD for m in missing)
        return (f"missing module {', '.join(missing)}",
                "newer jar (a standard module of current TLA+ tools)" if newer
                else "the missing file", "; ".join(parts))
    if verdict == "deadlock" and "-deadlock" not in (loss.get("tlc_args") or []):
        reading = DEADLOCK_NOTES.get(str(row["id"]), "")
        return ("deadlock: the behaviors end and the cfg leaves deadlock checking on",
                "nothing (the spec and cfg)",
                f"TLC 2114 after {loss.get('distinct_states')} distinct states"
                + (f"; {reading}" if reading else ""))
    return ("unexplained: " + str(verdict or stored), "?", str(loss.get("message", "")))


# --------------------------------------------------------------------------- tables


def _pct(part: int, whole: int) -> str:
    return f"{part} of {whole} ({100 * part / whole:.0f}%)" if whole else f"{part} of 0"


def funnel_table(data: Mapping[str, Any]) -> list[str]:
    rows = data["tasks"]
    skipped = data["skipped"]
    ok = [r for r in rows if r["original_ok"]]
    verified = [r for r in rows if r["verified"]]
    skip = "; ".join(f"{s['id']}: no cfg" if "no cfg" in s["reason"] else f"{s['id']}"
                     for s in skipped)
    out = ["| measure | study | ALIAS | note |", "|---|---|---|---|",
           f"| system specs in the release | {STUDY['system']} | {len(data['system_ids'])} | |",
           f"| ... with a cfg (tasks loaded) | - | {len(rows)} | skipped: {skip or 'none'} |",
           f"| ... whose original passes SANY and TLC here (2020 jar) | - | {len(ok)} | "
           f"{len(rows) - len(ok)} fail (below) |",
           f"| ... whose random variant is verified | {STUDY['verified']} | {len(verified)} | "
           f"{len(ok) - len(verified)} lost after the original passed |", "",
           "| task | module | verdict here (TLC codes) | named cause | would fix it | evidence "
           "| TLA+-Bench's record |", "|---|---|---|---|---|---|---|"]
    for r in rows:
        if r["verified"]:
            continue
        loss = r.get("loss") or {}
        cause, fix, evidence = loss_cause(r)
        stored = str(r.get("reason") or "")
        verdict = loss.get("verdict", "?")
        if stored.endswith(")") and f"({verdict})" not in stored:
            verdict = f"{verdict} (stored run: {stored.rsplit('(', 1)[-1].rstrip(')')})"
        codes = ", ".join(str(c) for c in loss.get("codes", []) if c in _DECIDING_CODES)
        out.append(f"| {r['id']} | {r['module']} | {verdict} ({codes}) | {cause} | {fix} | "
                   f"{evidence} | {_tb_text(r)} |")
    return out


#: TLC message codes that say why a run ended (FACTS.md's table)
_DECIDING_CODES = frozenset({2103, 2104, 2107, 2110, 2112, 2114, 2116, 2146, 2154, 2222, 2229,
                             2236, 2241, 2280, 3002, 1000})


def _tb_text(row: Mapping[str, Any]) -> str:
    tb = row.get("tlabench")
    if not tb:
        return "not in its record"
    if tb.get("verified"):
        return "verified"
    return f"not verified ({tb.get('fail_stage')}: {str(tb.get('error') or '')[:70]})"


def study_set(data: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The study's task set: the specs TLA+-Bench's record marks verified (its 111), as loaded
    here, plus those that are no task here (1142, no cfg: no hidden names)."""
    ids = set(data["tlabench_verified"])
    return [r for r in [*data["tasks"], *data.get("not_loaded", [])] if r["id"] in ids]


def _why_not_theirs(row: Mapping[str, Any], maps: Mapping[str, Mapping[str, str]]) -> str:
    """Facts about TLA+-Bench's renaming of a task ALIAS verifies and TLA+-Bench did not."""
    tb = row.get("tlabench") or {}
    theirs = set(maps.get(row["id"], {})) - {"Init", "Next", "Spec"}
    ours = set(row["renamed"])
    facts = []
    if len(row["modules"]) > 1:
        facts.append(f"{len(row['modules'])} task modules, renamed here by one map")
    if tb.get("module") is None:
        facts.append("its record names no module")
    if tb.get("length_changed"):
        facts.append(f"{tb['length_changed']} new name(s) of another length")
    only = sorted(theirs - ours)
    if only:
        facts.append(f"renames {len(only)} name(s) ALIAS keeps: {', '.join(only[:6])}"
                     + (" ..." if len(only) > 6 else ""))
    if ours - theirs:
        facts.append(f"keeps {len(ours - theirs)} name(s) ALIAS renames")
    return "; ".join(facts)


def agreement_table(data: Mapping[str, Any]) -> list[str]:
    """ALIAS's verified set beside TLA+-Bench's record's `verified`, with each difference."""
    tb_ok = set(data["tlabench_verified"])
    rows = {r["id"]: r for r in data["tasks"]}
    ours = {i for i, r in rows.items() if r["verified"]}
    loaded = set(rows)
    out = ["| | TLA+-Bench verified | TLA+-Bench not verified |", "|---|---|---|",
           f"| ALIAS verified | {len(ours & tb_ok)} | {len(ours - tb_ok)} |",
           f"| ALIAS not verified | {len((loaded - ours) & tb_ok)} | "
           f"{len(loaded - ours - tb_ok)} |",
           f"| not loaded (no cfg) | {len(tb_ok - loaded)} | "
           f"{len(set(data['system_ids']) - loaded - tb_ok)} |", "",
           "TLA+-Bench verified, ALIAS not:", "",
           "| task | ALIAS's cause | would fix it |", "|---|---|---|"]
    for i in sorted(tb_ok - ours, key=int):
        if i in rows:
            cause, fix, _ = loss_cause(rows[i])
            out.append(f"| {i} | {cause} | {fix} |")
        else:
            out.append(f"| {i} | not a task: no cfg (TLA+-Bench's record: tlc_status "
                       "no_cfg, counted verified) | a cfg |")
    out += ["", "ALIAS verified, TLA+-Bench not: its record's stage and error, and facts of "
            "its renaming beside ALIAS's (Init/Next/Spec, which ALIAS never renames, left out):",
            "", "| task | TLA+-Bench's stage: error | its renaming |", "|---|---|---|"]
    for i in sorted(ours - tb_ok, key=int):
        tb = rows[i].get("tlabench") or {}
        out.append(f"| {i} | {tb.get('fail_stage')}: {str(tb.get('error') or '')[:70]} | "
                   f"{_why_not_theirs(rows[i], data.get('tlabench_maps', {}))} |")
    return out


def hidden_summary(rows: Sequence[Mapping[str, Any]]) -> dict[str, int]:
    per_task = [len(r["hidden"]) for r in rows]
    kinds = Counter(h["kind"] for r in rows for h in r["hidden"])
    return {"tasks": len(rows), "hidden_tasks": sum(n > 0 for n in per_task),
            "hidden_5": sum(n >= 5 for n in per_task), "hidden_total": sum(per_task),
            **{f"hidden_{k}": kinds.get(k, 0)
               for k in ("constant", "invariant", "property", "constraint")},
            "hidden_conventions": sum(h["identifier_kind"] == "convention"
                                      for r in rows for h in r["hidden"])}


def hidden_table(data: Mapping[str, Any]) -> list[str]:
    a = hidden_summary([r for r in data["tasks"] if r["verified"]])
    b = hidden_summary(study_set(data))
    labels = [("tasks", "tasks counted"), ("hidden_tasks", "tasks with a hidden required name"),
              ("hidden_5", "tasks with five or more"), ("hidden_total", "hidden names"),
              ("hidden_constant", "... constants"), ("hidden_invariant", "... invariants"),
              ("hidden_property", "... properties"), ("hidden_constraint", "... constraints"),
              ("hidden_conventions", "... following TLA+ conventions")]
    out = ["| measure | study | ALIAS, its verified tasks | ALIAS, the study's task set |",
           "|---|---|---|---|"]
    for key, label in labels:
        study = STUDY["verified"] if key == "tasks" else STUDY.get(key, "-")
        out.append(f"| {label} | {study} | {a[key]} | {b[key]} |")
    return out


def kinds_summary(maps: Iterable[Mapping[str, str]]) -> dict[str, int]:
    kinds = Counter(k for m in maps for k in m.values())
    return {"total": sum(kinds.values()), **{k: kinds.get(k, 0)
                                             for k in ("domain", "convention", "abbreviation")}}


def _study_maps(data: Mapping[str, Any]) -> list[Mapping[str, str]]:
    maps = data.get("tlabench_maps", {})
    return [maps.get(i, {}) for i in data["tlabench_verified"]]


def kinds_table(data: Mapping[str, Any]) -> list[str]:
    ours = kinds_summary(r["renamed"] for r in data["tasks"] if r["verified"])
    theirs = kinds_summary(_study_maps(data))
    out = ["| measure | study | ALIAS's maps, its verified tasks | TLA+-Bench's maps, the "
           "study's task set |", "|---|---|---|---|",
           f"| renamed identifiers | {STUDY['renamed_identifiers']:,} | {ours['total']:,} | "
           f"{theirs['total']:,} |"]
    for kind in ("domain", "convention", "abbreviation"):
        study = "about a third" if kind == "domain" else "-"
        out.append(f"| ... {kind} | {study} | {_pct(ours[kind], ours['total'])} | "
                   f"{_pct(theirs[kind], theirs['total'])} |")
    return out


def description_summary(rows: Sequence[Mapping[str, Any]], key: str) -> dict[str, int]:
    reports = [r["descriptions"].get(key) for r in rows]
    good = [d for d in reports if d and "error" not in d]
    damage = (sum(bool(d["kept_lowercase"] or d["kept_module"]) for d in good)
              if key != "tlabench_text" else sum(bool(d["damaged"]) for d in good))
    return {"descriptions": len(good), "domain_used": sum(d["domain_used"] for d in good),
            "domain_kept": sum(d["domain_words_kept"] for d in good), "damage": damage}


def description_table(data: Mapping[str, Any]) -> list[str]:
    ours = description_summary([r for r in data["tasks"] if r["verified"]], "alias")
    theirs = study_set(data)
    rule = description_summary(theirs, "tlabench_map_alias_rule")
    text = description_summary(theirs, "tlabench_text")
    return ["| measure | study | three-part rule, ALIAS's maps, its verified tasks | "
            "three-part rule, TLA+-Bench's maps, the study's task set | TLA+-Bench's renamed "
            "texts (whole words), the study's task set |", "|---|---|---|---|---|",
            f"| descriptions | {STUDY['verified']} | {ours['descriptions']} | "
            f"{rule['descriptions']} | {text['descriptions']} |",
            f"| domain identifiers whose words the description uses | {STUDY['domain_used']} | "
            f"{ours['domain_used']} | {rule['domain_used']} | {text['domain_used']} |",
            f"| ... whose words survive renaming | 199 of 219 (91%) | "
            f"{_pct(ours['domain_kept'], ours['domain_used'])} | "
            f"{_pct(rule['domain_kept'], rule['domain_used'])} | "
            f"{_pct(text['domain_kept'], text['domain_used'])} |",
            f"| descriptions kept from damage by part 2 | {STUDY['damage_avoided']} | "
            f"{ours['damage']} | {rule['damage']} | damaged (such a name replaced): "
            f"{text['damage']} |"]


def split_table(data: Mapping[str, Any]) -> tuple[list[str], dict[str, list[str]]]:
    from reports.exposure import EXPOSURE_SEED, exposure_split

    ours = [r["id"] for r in data["tasks"] if r["verified"]]
    a, b = exposure_split(ours, seed=EXPOSURE_SEED)
    ta, tb = exposure_split(data["tlabench_verified"], seed=EXPOSURE_SEED)
    out = ["| measure | study | ALIAS, its verified tasks | ALIAS's split of the study's task "
           "set |", "|---|---|---|---|",
           f"| tasks | {STUDY['verified']} | {len(a) + len(b)} | {len(ta) + len(tb)} |",
           f"| half A | {STUDY['half_a']} | {len(a)} | {len(ta)} |",
           f"| half B | {STUDY['half_b']} | {len(b)} | {len(tb)} |"]
    return out, {"A": list(a), "B": list(b), "study_set_A": list(ta), "study_set_B": list(tb)}


def render(data: Mapping[str, Any]) -> str:
    prov = data["provenance"]
    split, halves = split_table(data)
    lines = ["# The study's task-set tables on TLA+-Bench's release", "",
             f"Command: `{prov['command']}`; {prov['date']}, commit "
             f"{str(prov.get('git_commit'))[:12]}, {prov.get('jar_version')} "
             f"(sha256 {str(prov.get('jar_sha256'))[:12]}), Java {prov.get('java_version')}, "
             f"run seed {prov['seed']}, TLC limit {prov['tlc_timeout']} s, "
             f"wall {prov['wall_seconds']} s with {prov.get('variants_cached', '?')} of "
             f"{len(data['tasks'])} variants read from the cache (a cold run verifies every "
             "variant: about 22 minutes on 2 cores). Raw per-task data: `study_tasks.json`.", "",
             "*The study's task set* below is the 111 specs TLA+-Bench's renaming record "
             "marks `verified` (1142, which has no cfg, among them), renamed by TLA+-Bench's "
             "maps: those maps hold exactly the study's 1,788 renamed identifiers "
             f"({kinds_summary(_study_maps(data))['total']:,} here). "
             "*ALIAS's verified tasks* are the tasks whose random variant ALIAS verifies here, "
             "renamed by ALIAS's maps.", "",
             "## 1. Funnel, and the cause of every loss", "", *funnel_table(data), "",
             "## 2. ALIAS against TLA+-Bench's renaming record", "", *agreement_table(data), "",
             "## 3. Hidden required names (verified tasks)", "", *hidden_table(data), "",
             "## 4. Identifier kinds of the renamed identifiers", "", *kinds_table(data), "",
             "## 5. Renamed descriptions", "",
             "Definitions (`DescriptionReport`, as FACTS.md states the study's): a *domain "
             "identifier the description uses* is a name of the rename map whose kind is "
             "`domain` and all of whose English parts (3+ letters, split at case and `_`) occur "
             "among the description's words split alike, case-insensitively; its words "
             "*survive* when they all still occur in the renamed description. A description is "
             "*kept from damage* when part 2 of the rule kept at least one name it mentions "
             "(a lowercase word or a module name that the map renames and the cfg does not "
             "name). TLA+-Bench's texts are measured the same way against its own map; there "
             "*damaged* counts texts in which such a name was replaced.", "",
             *description_table(data), "",
             "## 6. Exposure split (seed 20260926, `reports.exposure.exposure_split`)", "",
             *split, "", f"ALIAS's half A: {', '.join(halves['A'])}", "",
             f"ALIAS's half B: {', '.join(halves['B'])}", ""]
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--release", default=str(RELEASE), help="TLA+-Bench release folder")
    ap.add_argument("--cache", default=None, help="per-task cache root (variants under "
                    "ROOT/variants); default $XDG_CACHE_HOME/alias, else ~/.cache/alias")
    ap.add_argument("--seed", default="0", help="run seed of the random condition (the "
                    "benchmark's --alias-seed default, 0)")
    ap.add_argument("--jobs", type=int, default=2, help="variants verified at once (2)")
    ap.add_argument("--timeout", type=float, default=300, help="TLC limit per run, s (300)")
    ap.add_argument("--out", type=Path, default=HERE / "results" / "study_tasks.md")
    ap.add_argument("--from-json", type=Path, help="render the tables from a saved .json only")
    args = ap.parse_args()
    data = (json.loads(args.from_json.read_text(encoding="utf-8")) if args.from_json
            else collect(args))
    data = {**data, "split": split_table(data)[1]}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.with_suffix(".json").write_text(json.dumps(data, indent=1) + "\n")
    text = render(data)
    args.out.write_text(text)
    print(text)


if __name__ == "__main__":
    main()
