"""Generate the bundled demo outputs: fake model replies for every built-in task (DEMO DATA).

Run: `python scripts/make_demo_outputs.py [--seed 0] [--no-grade] [--repairs-only]`. Writes
`alias_fixtures/demo_outputs/outputs.jsonl` (one reply per task x condition x sample; see the
README beside it), then grades every reply and writes the table to `scripts/results/demo_outputs.md`.

The demo model imitates a model that knows each system and follows the description: it uses the
names the variant's description states and, for every other name, the ORIGINAL one (it remembers
them). In the `random` condition it therefore misses hidden cfg names (config_bind_fail) while its
behavior is right, the artefact the study describes. Each (task, sample) gets an archetype (the
same in both conditions) from a seeded shuffle; the output is the same bytes for the same seed.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import re
import sys
from collections import defaultdict
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path

from alias_fixtures.grading.grade import CaseGrades, ReferenceCoverage, grade_output
from alias_fixtures.tasks.descriptions import hidden_names, mentions
from alias_fixtures.tasks.task import Task, builtin_tasks
from alias_fixtures.tasks.variants import Variant, make_variant
from tlc_harness.behavior.mutants import behaves_differently, mutants
from tlc_harness.source.rename import random_rename_map, rename_modules, renameable_names
from tlc_harness.tools.runner import Harness
from tlc_harness.tools.spec import SpecSource, module_name_of

ROOT = Path(__file__).resolve().parent.parent
OUT_DIR = ROOT / "alias_fixtures" / "demo_outputs"
RESULTS = ROOT / "scripts" / "results" / "demo_outputs.md"
CONDITIONS = ("original", "random")
RUN_SEED = "0"  # the run seed of the random condition's rename maps
SAMPLES = 5
# archetype -> share of the (task, sample) slots; what each is: demo_outputs/README.md
ARCHETYPES: dict[str, float] = {"clean": 0.45, "different_names": 0.15, "wrong_behavior": 0.15,
                                "no_parse": 0.10, "no_module": 0.05, "renamed_invariant": 0.10}
INTROS = ("Here is a TLA+ specification of the system as described.",
          "Below is the complete module `{module}`, with `Init`, `Next` and `Spec` and the checks "
          "the description asks for.",
          "Sure. The following module models each step of the system as a separate action.",
          "This is my TLA+ model of the described system:")
OUTROS = (
    "`Init` fixes the initial state, `Next` is the disjunction of the actions and `Spec` adds "
    "the fairness conditions; the invariants and properties are defined at the end so TLC can "
    "check them.",
    "The state is held in {vars}. Every action leaves the variables it does not change "
    "UNCHANGED, so TLC can check the model as it is.",
    "Run it with TLC using the given configuration; the invariants should hold in every "
    "reachable state.", "")
FENCES = ("```tla", "```tla", "```tla", "```tla", "```tlaplus", "```")
_WORD = re.compile(r"\b\w+\b")
_DEF_LINE = re.compile(r"^(\w+(?:\([^)]*\))?) == (.+)$")


@dataclass(frozen=True)
class Reply:
    task: str
    condition: str
    sample: int
    archetype: str
    note: str
    text: str

    def row(self, generator: str) -> dict[str, object]:
        return {**asdict(self), "generator": generator}


# archetype -> the feedback level whose finding lets the demo model repair it on turn 2
REPAIRED_BY: dict[str, str] = {"no_parse": "parse", "no_module": "parse",
                               "renamed_invariant": "names"}


@dataclass(frozen=True)
class Repair:
    """A turn-2 reply: the slot's clean module, given only after feedback at level `needs`."""

    task: str
    condition: str
    sample: int
    turn: int
    needs: str
    note: str
    text: str

    def row(self, generator: str) -> dict[str, object]:
        return {**asdict(self), "generator": generator}


def rng_for(*parts: object) -> random.Random:
    return random.Random(hashlib.sha256(":".join(map(str, parts)).encode()).hexdigest())


# ------------------------------------------------------------------------ one module, renamed
def _body(text: str) -> list[str]:
    """A module's lines between header and footer, without its opening comment block."""
    lines = text.split("\n")
    start = next(i for i, line in enumerate(lines) if "MODULE" in line) + 1
    end = max(i for i, line in enumerate(lines) if line.startswith("===="))
    out = lines[start:end]
    while out and (out[0].startswith("(*") or not out[0].strip()):
        out.pop(0)
    return out


def _subst(line: str, table: Mapping[str, str]) -> str:
    def one(m: re.Match[str]) -> str:
        word = m.group(0)
        if word.startswith("_") and word[1:] in table:  # the subscript of [][A]_v
            return "_" + table[word[1:]]
        return table.get(word, word)
    return _WORD.sub(one, line)


def flatten(modules: Mapping[str, str], main_file: str) -> str:
    """The task as one module: EXTENDed task modules inlined, `M == INSTANCE X WITH a <- b`
    replaced by X's definitions prefixed `M` (a model must not import the reference)."""
    others = {Path(f).stem: t for f, t in modules.items() if f != main_file}
    if not others:
        return modules[main_file]
    out: list[str] = []
    for line in modules[main_file].split("\n"):
        ext = re.match(r"EXTENDS\s+(.*)$", line)
        inst = re.match(r"(\w+) == INSTANCE (\w+)(?: WITH (.*))?$", line)
        if ext:
            names, inlined = [n.strip() for n in ext.group(1).split(",")], []
            extends = [n for n in names if n not in others]
            for name in (n for n in names if n in others):
                for bl in _body(others[name]):
                    more = re.match(r"EXTENDS\s+(.*)$", bl)
                    extends += [x.strip() for x in more.group(1).split(",")] if more else []
                    inlined += [] if more else [bl]
            out += ["EXTENDS " + ", ".join(dict.fromkeys(extends)), *inlined]
        elif inst and inst.group(2) in others:
            prefix, table = inst.group(1), dict(re.findall(r"(\w+)\s*<-\s*(\w+)", inst.group(3) or ""))
            body = [b for b in _body(others[inst.group(2)])
                    if b.strip() and not re.match(r"(CONSTANTS?|VARIABLES?)\b", b)]
            table |= {m.group(1): prefix + m.group(1) for b in body
                      if (m := re.match(r"(\w+)(?:\(.*?\))?\s*==", b))}
            out += [_subst(b, table) for b in body]
        else:
            out.append(line)
    text = re.sub(r"\n{3,}", "\n\n", "\n".join(out))
    return re.sub(r"\b(\w+)!(\w+)", r"\1\2", text)


def rename_text(text: str, table: Mapping[str, str], *, grow: bool = False) -> str:
    """Rename names in a one-module text (RenameError if the map is unsafe)."""
    known = renameable_names({"M.tla": text})
    table = {o: n for o, n in table.items() if o in known or o == module_name_of(text)}
    return next(iter(rename_modules({"M.tla": text}, table, allow_length_change=grow).values()))


def demo_module(task: Task, variant: Variant, modules: Mapping[str, str]) -> str:
    """What the demo model writes: names the variant's description states, else the originals."""
    stated = {o: n for o, n in variant.rename_map.items()
              if variant.description is not None and mentions(variant.description, n)}
    stated[task.main_module] = variant.main_module
    return rename_text(flatten(modules, task.main_file), stated)


def variables(text: str) -> list[str]:
    return sorted(n for n, kind in renameable_names({"M.tla": text}).items() if kind == "variable")


# ----------------------------------------------------------------------------- archetypes
def different_names(text: str, variant: Variant, seed: str) -> tuple[str, str]:
    desc = variant.description or ""
    names = renameable_names({"M.tla": text})
    targets = [v for v in variables(text) if not mentions(desc, v)] or variables(text)
    keep = [n for n in names if n not in targets]
    table = dict(random_rename_map({"M.tla": text}, seed, keep=keep).mapping)
    return rename_text(text, table), "variables renamed: " + ", ".join(
        f"{o}->{n}" for o, n in sorted(table.items()))


def renamed_invariant(text: str, task: Task, variant: Variant, rng: random.Random) -> tuple[str, str]:
    cfg = task.cfg
    old = "TypeOK" if "TypeOK" in cfg.invariants else (cfg.invariants or cfg.properties)[0]
    new = (rng.choice(("TypeInvariant", "TypeInv", "TypeCorrect")) if old == "TypeOK"
           else "Mutex" if old == "MutualExclusion" else old + "Inv")
    desc = variant.description or ""
    written = variant.rename_map.get(old, old) if mentions(desc, variant.rename_map.get(old, old)) \
        else old
    out = rename_text(text, {written: new}, grow=True).split("\n")
    delta = len(new) - len(written)
    for i, line in enumerate(out):  # keep the /\ layout of the renamed definition
        if line.startswith(f"{new} =="):
            j = i + 1
            while j < len(out) and out[j].startswith(" ") and out[j].strip():
                out[j] = " " * delta + out[j] if delta > 0 else out[j][-delta:]
                j += 1
    return "\n".join(out), f"{written} renamed to {new}"


def _breakers(text: str) -> dict[str, Callable[[str], str]]:
    ext = re.search(r"^EXTENDS (.*)$", text, re.MULTILINE)
    mods = [m.strip() for m in ext.group(1).split(",")] if ext else []
    const = re.search(r"^CONSTANTS? (\w+)", text, re.MULTILINE)

    def drop(names: set[str]) -> Callable[[str], str]:
        keep = [m for m in mods if m not in names]
        line = "EXTENDS " + ", ".join(keep) + "\n" if keep else ""
        return lambda t: t.replace(ext.group(0) + "\n", line, 1) if ext else t

    helper = (f"NumItems == Cardinality({const.group(1)})" if const and "FiniteSets" not in mods
              else "Largest == Max({1, 2, 3})")
    out: dict[str, Callable[[str], str]] = {
        "EXTENDS without Naturals": drop({"Naturals", "Integers"}),
        "undefined operator": lambda t: t[:t.rindex("\n====")] + f"\n\n\\* helper\n{helper}"
        + t[t.rindex("\n===="):],
        "syntax slip (!= for #)": lambda t: re.sub(r"^(\S.*?|\s+/\\.*?) # ", r"\1 != ", t, count=1,
                                                   flags=re.MULTILINE),
        "syntax slip (Init =)": lambda t: t.replace("\nInit == ", "\nInit = ", 1),
    }
    if "FiniteSets" in mods:
        out["EXTENDS without FiniteSets"] = drop({"FiniteSets"})
    return out


def no_parse(harness: Harness, text: str, rng: random.Random) -> tuple[str, str]:
    """The first breakage (in a seeded order) that SANY really rejects."""
    kinds = sorted(_breakers(text))
    rng.shuffle(kinds)
    for kind in kinds:
        broken, name = _breakers(text)[kind](text), module_name_of(text) or "M"
        if broken != text and not harness.parse(SpecSource(name, {f"{name}.tla": broken})).ok:
            return kind, broken
    raise RuntimeError("no breakage fails SANY")


def find_mutants(harness: Harness, task: Task, seed: int, want: int) -> list[tuple[str, str]]:
    """Up to `want` mutants of the main module that change the reachable-state count."""
    rng, found = rng_for(seed, task.id, "mutants"), []
    assert task.expected_distinct_states is not None
    original = task.modules[task.main_file]
    for mutant in mutants(original, rng, 16, cfg=task.cfg):
        if mutant.kind != "negate_guard" and behaves_differently(  # `~(G)` reads unlike a slip
                harness, task.modules, task.cfg, mutant, task.expected_distinct_states,
                tlc_args=task.tlc_args):
            # a dropped conjunct or disjunct is blanked: drop lines it left empty
            kept = [m.rstrip() for m, o in zip(mutant.text.split("\n"), original.split("\n"),
                                                strict=True) if m.strip() or not o.strip()]
            found.append((mutant.site, "\n".join(kept)))
            if len(found) == want:
                break
    if not found:
        raise RuntimeError(f"{task.id}: no mutant behaves differently")
    return found


def unicode_symbols(text: str, rng: random.Random) -> str:
    """≜ (and ∧ ∨) on a few single-line definitions, as some models write."""
    lines = text.split("\n")
    spots = [i for i, line in enumerate(lines[:-1]) if _DEF_LINE.match(line)
             and "(*" not in line and "\\*" not in line and '"' not in line
             and not lines[i + 1].startswith((" ", "\t"))]
    for i in sorted(rng.sample(spots, min(3, len(spots)))):
        head, body = _DEF_LINE.match(lines[i]).groups()  # type: ignore[union-attr]
        lines[i] = f"{head} ≜ " + body.replace(" /\\ ", " ∧ ").replace(" \\/ ", " ∨ ")
    return "\n".join(lines)


def wrap(module: str, rng: random.Random, *, unicode: bool) -> str:
    vars_ = listing(variables(module)) or "the variables"
    module = unicode_symbols(module, rng) if unicode else module
    intro = rng.choice(INTROS).format(module=module_name_of(module))
    outro = rng.choice(OUTROS).format(vars=vars_)
    text = f"{intro}\n\n{rng.choice(FENCES)}\n{module.rstrip()}\n```\n"
    return text + (f"\n{outro}\n" if outro else "")


def listing(names: list[str]) -> str:
    quoted = [f"`{n}`" for n in names]
    return " and ".join([", ".join(quoted[:-1]), quoted[-1]] if len(quoted) > 1 else quoted)


def no_module(module: str, rng: random.Random) -> tuple[str, str]:
    vars_ = listing(variables(module))
    if rng.random() < 0.5:
        lines = module.rstrip().split("\n")
        body = "\n".join(lines[1:-1]).strip("\n")
        return "definitions without a module header", (
            "Here are the definitions of the specification:\n\n```tla\n" + body + "\n```\n")
    return "prose only", (
        f"To specify this system in TLA+ I would keep the state in {vars_}. `Init` gives each "
        "variable its initial value, each step of the description becomes one action, and "
        "`Next` is their disjunction. `Spec` is `Init /\\ [][Next]_vars` plus the fairness the "
        "description asks for, and the safety conditions become invariants checked by TLC.\n\n"
        "Would you like me to write out the complete module?\n")


# ----------------------------------------------------------------------------- generation
def assign(tasks: list[Task], seed: int) -> dict[tuple[str, int], str]:
    slots = [(t.id, s) for t in tasks for s in range(SAMPLES)]
    pool = [a for a, share in ARCHETYPES.items() if a != "clean"
            for _ in range(round(share * len(slots)))]
    pool += ["clean"] * (len(slots) - len(pool))
    rng_for(seed, "archetypes").shuffle(pool)
    return dict(zip(slots, pool, strict=True))


def generate(harness: Harness, seed: int) -> list[Reply]:
    tasks = builtin_tasks()
    plan = assign(tasks, seed)
    replies: list[Reply] = []
    for task in tasks:
        wrong = [s for s in range(SAMPLES) if plan[(task.id, s)] == "wrong_behavior"]
        found = find_mutants(harness, task, seed, min(2, len(wrong))) if wrong else []
        breakage: dict[int, str] = {}
        for cond in CONDITIONS:
            variant = make_variant(task, cond, seed=RUN_SEED)
            clean = demo_module(task, variant, task.modules)
            for s in range(SAMPLES):
                arch, rng = plan[(task.id, s)], rng_for(seed, task.id, cond, s)
                module, note = clean, ""
                if arch == "different_names":
                    module, note = different_names(clean, variant, f"{seed}:{task.id}:{cond}:{s}")
                elif arch == "renamed_invariant":
                    module, note = renamed_invariant(clean, task, variant, rng_for(seed, task.id, s))
                elif arch == "wrong_behavior":
                    site, mutated = found[wrong.index(s) % len(found)]
                    module = demo_module(task, variant, {**task.modules, task.main_file: mutated})
                    note = f"mutant: {site}"
                if arch == "no_parse":
                    if s not in breakage:
                        breakage[s] = no_parse(harness, clean, rng_for(seed, task.id, s))[0]
                    note, text = breakage[s], wrap(_breakers(clean)[breakage[s]](clean), rng,
                                                   unicode=False)
                elif arch == "no_module":
                    note, text = no_module(clean, rng_for(seed, task.id, s))
                else:
                    text = wrap(module, rng, unicode=rng.random() < 0.12)
                    note = "; ".join(x for x in (note, "unicode symbols" * ("≜" in text)) if x)
                replies.append(Reply(task.id, cond, s, arch, note, text))
        print(f"generated {task.id}", file=sys.stderr, flush=True)
    return replies


def make_repairs(seed: int) -> list[Repair]:
    """The turn-2 repairs: for each slot whose archetype feedback can fix, its clean module
    (no TLC run: the clean module is the variant's reference as the demo writes it)."""
    tasks = builtin_tasks()
    plan = assign(tasks, seed)
    repairs: list[Repair] = []
    for task in tasks:
        for cond in CONDITIONS:
            variant = make_variant(task, cond, seed=RUN_SEED)
            clean = demo_module(task, variant, task.modules)
            for s in range(SAMPLES):
                arch = plan[(task.id, s)]
                if arch in REPAIRED_BY:
                    fixed = wrap(clean, rng_for(seed, task.id, cond, s, "repair"), unicode=False)
                    repairs.append(Repair(task.id, cond, s, 2, REPAIRED_BY[arch],
                                          f"{arch} repaired after {REPAIRED_BY[arch]} feedback",
                                          fixed))
    return repairs


def write_outputs(rows: list[Reply] | list[Repair], generator: str, mode: str = "w") -> None:
    OUT_DIR.mkdir(parents=True, exist_ok=True)
    with (OUT_DIR / "outputs.jsonl").open(mode, encoding="utf-8", newline="\n") as fh:
        for row in rows:
            fh.write(json.dumps(row.row(generator), ensure_ascii=False) + "\n")


def first_turns_only() -> None:
    """Drop the repair rows from outputs.jsonl (before writing fresh ones)."""
    path = OUT_DIR / "outputs.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    path.write_text("".join(line for line in lines if '"turn": ' not in line), encoding="utf-8")


# -------------------------------------------------------------------------------- grading
def grade_all(harness: Harness, replies: list[Reply]) -> list[CaseGrades]:
    tasks = {t.id: t for t in builtin_tasks()}
    variants = {(r.task, r.condition): make_variant(tasks[r.task], r.condition, seed=RUN_SEED)
                for r in replies}
    coverage = ReferenceCoverage(harness)
    for v in variants.values():  # fill the coverage cache before the threads share it
        coverage.check(v)

    def one(r: Reply) -> CaseGrades:
        return grade_output(harness, variants[(r.task, r.condition)], r.text, coverage=coverage)
    with ThreadPoolExecutor(max_workers=2) as pool:
        return list(pool.map(one, replies))


def pct(xs: list[bool]) -> str:
    return f"{100 * sum(xs) / len(xs):.0f}%" if xs else "-"


def report(replies: list[Reply], grades: list[CaseGrades], seed: int) -> str:
    rows: dict[tuple[str, str], list[CaseGrades]] = defaultdict(list)
    for r, g in zip(replies, grades, strict=True):
        rows[(r.archetype, r.condition)].append(g)
        rows[("all", r.condition)].append(g)
    lines = [f"# Demo outputs graded (scripts/make_demo_outputs.py, seed {seed})", "",
             "DEMO DATA written by the generator, not real model outputs. Pass rates of parse, "
             "name and behavior grades per archetype and condition (random: run seed "
             f"{RUN_SEED}).", "",
             "| archetype | condition | n | parse | name | behavior |", "|---|---|---:|---:|---:|---:|"]
    for arch in [*ARCHETYPES, "all"]:
        for cond in CONDITIONS:
            gs = rows[(arch, cond)]
            lines.append(f"| {arch} | {cond} | {len(gs)} | {pct([g.parse.passed for g in gs])} | "
                         f"{pct([g.name.passed for g in gs])} | "
                         f"{pct([g.behavior.passed for g in gs])} |")
    tasks = {t.id: t for t in builtin_tasks()}
    good = [g for r, g in zip(replies, grades, strict=True) if r.condition == "random"
            and r.archetype in ("clean", "different_names")]
    bind = [g for g in good if g.name.verdict == "config_bind_fail"]
    with_hidden = sum(bool(hidden_names(t.description, t.cfg)) for t in tasks.values())
    lines += ["", f"Clean and different-names replies failing the name grade with config_bind_fail "
              f"in `random`: {len(bind)} of {len(good)}"
              f" ({sum(bool(g.name.details.get('missing_hidden')) for g in bind)} name a renamed "
              f"hidden cfg name; the rest leave a remembered hidden constant without a value). "
              f"Tasks with hidden names: {with_hidden}/{len(tasks)}."]
    return "\n".join(lines) + "\n"


def check_outcomes(replies: list[Reply], grades: list[CaseGrades]) -> list[str]:
    bad: list[str] = []
    for r, g in zip(replies, grades, strict=True):
        want = {"clean": g.parse.passed and g.behavior.passed
                and (g.name.passed or r.condition == "random"),
                "different_names": g.behavior.passed,
                "wrong_behavior": g.parse.passed and not g.behavior.passed,
                "no_parse": g.parse.verdict == "parse_error",
                "no_module": g.parse.verdict == "no_module",
                "renamed_invariant": g.behavior.passed and g.name.verdict == "config_bind_fail",
                }[r.archetype]
        if not want:
            bad.append(f"{r.task}/{r.condition}/s{r.sample} {r.archetype}: parse "
                       f"{g.parse.verdict}, name {g.name.verdict} ({g.name.reason[:80]}), "
                       f"behavior {g.behavior.verdict} ({g.behavior.reason[:120]})")
    return bad


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--no-grade", action="store_true", help="write the outputs only")
    ap.add_argument("--repairs-only", action="store_true",
                    help="rewrite only the turn-2 repair rows (no TLC run; the first replies stay)")
    args = ap.parse_args()
    generator = f"scripts/make_demo_outputs.py seed {args.seed}"
    if args.repairs_only:
        first_turns_only()
        repairs = make_repairs(args.seed)
        write_outputs(repairs, generator, "a")
        print(f"wrote {len(repairs)} turn-2 repairs to {OUT_DIR / 'outputs.jsonl'}")
        return 0
    with Harness(pool_size=2) as harness:
        replies = generate(harness, args.seed)
        repairs = make_repairs(args.seed)
        write_outputs([*replies, *repairs], generator)
        print(f"wrote {len(replies)} replies and {len(repairs)} turn-2 repairs to "
              f"{OUT_DIR / 'outputs.jsonl'}")
        if args.no_grade:
            return 0
        grades = grade_all(harness, replies)
    table = report(replies, grades, args.seed)
    RESULTS.write_text(table, encoding="utf-8")
    print(table)
    bad = check_outcomes(replies, grades)
    for line in bad:
        print("UNEXPECTED:", line)
    assert not bad, f"{len(bad)} replies did not get their archetype's intended outcome"
    return 0


if __name__ == "__main__":
    sys.exit(main())
