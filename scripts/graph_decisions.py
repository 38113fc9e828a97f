"""How long the class of every state mapping takes to decide on graphs of about 50,000 states.

Run: `python scripts/graph_decisions.py [--procs 10] [--permits 4] [--repeats 3]
[--small-procs 4 --small-permits 2] [--seed 51] [--out scripts/results/graph_decisions.md]`
(from the repository root, with it on `PYTHONPATH`; about 3 minutes on 2 cores).

Issue 51 asks for the figure "on a pair of graphs of about 50,000 states each (a reference with
larger constants against a behavior-preserving transformation of it) the graph decisions take at
most 10 s beyond TLC's explorations". The reference is the built-in counting semaphore
(`alias_fixtures/builtin_tasks/counting_semaphore/Semaphore.tla`, read in place) with
`Procs` = `--procs` model values and `Permits` = `--permits` (10 and 4: 46,464 reachable states,
under the grader's default reference budget of 50,000). Each output below is TLA+ text built
here at run time and explored by TLC like the reference (no graph cache), then
`any_mapping.decide(output, reference)` is timed `--repeats` times (the median is reported):

- renamed: the same behavior written otherwise: variables renamed (`pc` -> `phase`, `sem` ->
  `held`), a value bijection (the phases "idle"/"waiting"/"inside" -> 0/1/2, the free permits
  `sem` -> the permits in use `held` = Permits - sem), the processes other model values, the
  actions renamed and reordered. Its graph is isomorphic to the reference's: expect CANDIDATE by
  isomorphism (bliss through igraph);
- history: the reference module itself, instanced, plus a step counter mod 2 (`parity`): twice
  the states, so the decision is an onto homomorphism (CP-SAT), but only where the graphs'
  product stays under `any_mapping.MAX_PRODUCT`; past it the answer is OPEN ("too large");
- mutant: one guard weakened (`P(p)` lets an idle process take a permit directly: `pc[p] =
  "waiting"` -> `pc[p] \\in {"idle", "waiting"}`): the same reachable states, more steps, a
  different behavior: expect FAILS.

Two pairs need no TLC (the reference's graph in memory): a random permutation of its states
(isomorphic: CANDIDATE, a sanity figure) and a copy with one pair of steps swapped so that every
state keeps its initial mark, in- and out-degree and distance from the initial states (the
colours the isomorphism check starts from), so bliss itself must find there is no isomorphism.
And one pair at small constants (`--small-procs`, `--small-permits`), reference against its
history variant, where the homomorphism model fits under MAX_PRODUCT and CP-SAT runs.

Per pair: the states and steps of each graph, TLC's seconds and the whole exploration's wall
seconds (TLC plus reading its dot dump) of each side, decide()'s wall seconds (every run and the
median) and CPU seconds (median; the machine may be shared), where they went (the colour
invariants, bliss, the CP-SAT model and solve) and how much of them Python's cycle collector
took, the outcome, kind, reason and solver stats. Writes Markdown to --out and the same rows as JSON
beside it (.json).
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import igraph

from tlc_harness.behavior.graph_engine import any_mapping
from tlc_harness.behavior.graphs import StateGraph, explore
from tlc_harness.behavior.options import DEFAULT_BUDGET
from tlc_harness.source.cfg import parse_cfg
from tlc_harness.tools.runner import Harness
from tlc_harness.tools.spec import SpecSource

ROOT = Path(__file__).resolve().parents[1]
TASK = ROOT / "alias_fixtures" / "builtin_tasks" / "counting_semaphore"
MAIN = "Semaphore"

# ------------------------------------------------------------------------------ the specs
#: the reference's behavior in another layout (see the module docstring, "renamed")
RENAMED = """---- MODULE Gate ----
EXTENDS Naturals
CONSTANTS Workers, Slots
VARIABLES phase, held
vars == <<phase, held>>
Init == /\\ phase = [w \\in Workers |-> 0]
        /\\ held = 0
Leave(w) == /\\ phase[w] = 2
            /\\ held' = held - 1
            /\\ phase' = [phase EXCEPT ![w] = 0]
Acquire(w) == /\\ phase[w] = 1
              /\\ held < Slots
              /\\ held' = held + 1
              /\\ phase' = [phase EXCEPT ![w] = 2]
Ask(w) == /\\ phase[w] = 0
          /\\ phase' = [phase EXCEPT ![w] = 1]
          /\\ UNCHANGED held
Next == \\E w \\in Workers : Leave(w) \\/ Acquire(w) \\/ Ask(w)
Spec == Init /\\ [][Next]_vars
====
"""

#: the reference module itself plus a history variable (a step counter mod 2)
HISTORY = f"""---- MODULE SemaphoreParity ----
EXTENDS Naturals
CONSTANTS Procs, Permits
VARIABLES sem, pc, parity
R == INSTANCE {MAIN}
Init == R!Init /\\ parity = 0
Next == R!Next /\\ parity' = 1 - parity
Spec == Init /\\ [][Next]_<<sem, pc, parity>>
====
"""

#: the one guard the mutant changes (`P(p)`), and what it becomes
GUARD = 'P(p) == /\\ pc[p] = "waiting"'
MUTATED = 'P(p) == /\\ pc[p] \\in {"idle", "waiting"}'


def reference_text() -> str:
    return (TASK / f"{MAIN}.tla").read_text(encoding="utf-8")


def semaphore_cfg(procs: int, permits: int, names: str = "Procs", bound: str = "Permits",
                  prefix: str = "p", order: list[int] | None = None) -> str:
    values = ", ".join(f"{prefix}{i}" for i in (order or range(1, procs + 1)))
    return f"CONSTANTS\n    {names} = {{{values}}}\n    {bound} = {permits}\nSPECIFICATION Spec\n"


def specs(procs: int, permits: int, rng: random.Random) -> dict[str, tuple[SpecSource, str]]:
    """The reference and each output: (spec, cfg text)."""
    ref = reference_text()
    if ref.count(GUARD) != 1:
        sys.exit(f"the reference no longer has the guard {GUARD!r} once: update the mutant")
    order = list(range(1, procs + 1))
    rng.shuffle(order)
    return {
        "reference": (SpecSource(MAIN, {f"{MAIN}.tla": ref}), semaphore_cfg(procs, permits)),
        "renamed": (SpecSource("Gate", {"Gate.tla": RENAMED}),
                    semaphore_cfg(procs, permits, "Workers", "Slots", "w", order)),
        "history": (SpecSource("SemaphoreParity", {f"{MAIN}.tla": ref,
                                                   "SemaphoreParity.tla": HISTORY}),
                    semaphore_cfg(procs, permits)),
        "mutant": (SpecSource(MAIN, {f"{MAIN}.tla": ref.replace(GUARD, MUTATED)}),
                   semaphore_cfg(procs, permits)),
    }


# ------------------------------------------------------------------------- explorations
def explored(harness: Harness, name: str, spec: SpecSource, cfg: str, budget: int,
             timeout: float) -> tuple[StateGraph, dict[str, Any]]:
    t0 = time.monotonic()
    found = explore(harness, spec, parse_cfg(cfg), budget=budget, timeout=timeout)
    wall = time.monotonic() - t0
    if found.graph is None:
        sys.exit(f"{name}: no graph ({found.verdict}: {found.detail})")
    graph = found.graph
    info = {"states": len(graph), "steps": len(set(graph.edges)),
            "initial": len(set(graph.initial)), "tlc_seconds": round(found.seconds, 2),
            "explore_seconds": round(wall, 2)}
    log(f"{name}: {info['states']} states, {info['steps']} steps, TLC {found.seconds:.1f} s, "
        f"exploration {wall:.1f} s")
    return graph, info


def permuted(graph: StateGraph, rng: random.Random) -> StateGraph:
    """The same graph with its states renumbered at random (and its steps listed shuffled)."""
    new = list(range(len(graph)))
    rng.shuffle(new)
    states: list[Any] = [None] * len(graph)
    for old, state in enumerate(graph.states):
        states[new[old]] = state
    edges = [(new[a], new[b]) for a, b in graph.edges]
    rng.shuffle(edges)
    return StateGraph(graph.variables, states, sorted(new[g] for g in graph.initial), edges)


def swapped(graph: StateGraph, rng: random.Random) -> tuple[StateGraph, str]:
    """A copy with steps a->b, c->d replaced by a->d, c->b, where a and c lie at one distance
    from the initial states and b and d at another: every state keeps its initial mark,
    in- and out-degree and distance, so only a search tells it from the original."""
    depth = any_mapping.depths(graph)
    edges = sorted(set(graph.edges))
    present = set(edges)
    rng.shuffle(edges)
    by_depths: dict[tuple[int, int], list[tuple[int, int]]] = {}
    for a, b in edges:
        by_depths.setdefault((depth[a], depth[b]), []).append((a, b))
    for a, b in edges:
        for c, d in by_depths[(depth[a], depth[b])]:
            if len({a, b, c, d}) == 4 and (a, d) not in present and (c, b) not in present:
                kept = [e for e in graph.edges if e not in ((a, b), (c, d))]
                return (StateGraph(graph.variables, list(graph.states), list(graph.initial),
                                   [*kept, (a, d), (c, b)]),
                        f"{a}->{b}, {c}->{d} became {a}->{d}, {c}->{b}")
    sys.exit("no pair of steps to swap")


# ------------------------------------------------------------------------------ decisions
@contextmanager
def step_clock() -> Iterator[dict[str, float]]:
    """Seconds decide() spends in the colour invariants, bliss and the CP-SAT model + solve
    (the module's functions wrapped for the duration; the rest is counts and igraph graphs),
    and in Python's cycle collector (wherever it ran: `gc.callbacks`)."""
    spent: dict[str, float] = {"invariants": 0.0, "bliss": 0.0, "cp_sat": 0.0, "gc": 0.0}
    gc_start = [0.0]

    def collector(phase: str, info: dict[str, int]) -> None:  # the cycle collector's passes
        if phase == "start":
            gc_start[0] = time.perf_counter()
        else:
            spent["gc"] += time.perf_counter() - gc_start[0]

    def timed(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            t0 = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                spent[name] += time.perf_counter() - t0
        return wrapper

    saved = (any_mapping._invariants, any_mapping.solve, igraph.Graph.isomorphic_bliss)
    any_mapping._invariants = timed("invariants", saved[0])
    any_mapping.solve = timed("cp_sat", saved[1])
    igraph.Graph.isomorphic_bliss = timed("bliss", saved[2])
    gc.callbacks.append(collector)
    try:
        yield spent
    finally:
        gc.callbacks.remove(collector)
        any_mapping._invariants, any_mapping.solve = saved[0], saved[1]
        igraph.Graph.isomorphic_bliss = saved[2]


def decided(name: str, out: StateGraph, ref: StateGraph, repeats: int,
            expected: str) -> dict[str, Any]:
    runs: list[float] = []
    cpu: list[float] = []
    steps: list[dict[str, float]] = []
    result = None
    for _ in range(repeats):
        with step_clock() as spent:
            t0, c0 = time.perf_counter(), time.process_time()
            result = any_mapping.decide(out, ref)
            runs.append(time.perf_counter() - t0)
            cpu.append(time.process_time() - c0)
        steps.append(dict(spent))
    assert result is not None
    median = statistics.median(runs)
    where = {k: round(statistics.median(s[k] for s in steps), 3) for k in steps[0]}
    if result.image and result.kind == "isomorphism":  # a candidate is checked, not trusted
        image = result.image
        ok = (sorted(image) == list(range(len(ref)))
              and {(image[a], image[b]) for a, b in set(out.edges)} == set(ref.edges)
              and {image[g] for g in out.initial} == set(ref.initial))
    elif result.image:
        image = result.image
        ref_steps = set(ref.edges)
        ok = (set(image) == set(range(len(ref)))
              and all(image[a] == image[b] or (image[a], image[b]) in ref_steps
                      for a, b in out.edges)
              and {image[g] for g in out.initial} <= set(ref.initial))
    else:
        ok = None
    log(f"{name}: {result.outcome.value} ({result.kind}) in {median:.2f} s "
        f"(runs {', '.join(f'{r:.2f}' for r in runs)}; CPU {statistics.median(cpu):.2f} s); "
        f"steps {where}")
    return {"outcome": result.outcome.value, "kind": result.kind, "expected": expected,
            "why": result.why, "solver": result.solver, "decide_seconds": round(median, 3),
            "decide_runs": [round(r, 3) for r in runs],
            "decide_cpu_seconds": round(statistics.median(cpu), 3), "decide_steps": where,
            "image_checked": ok}


# ------------------------------------------------------------------------------- output
def log(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def git(*args: str) -> str:
    return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True,
                          check=False).stdout.strip()


def provenance(args: argparse.Namespace, harness: Harness, started: float) -> dict[str, Any]:
    dirty = git("status", "--porcelain", "--", "scripts/graph_decisions.py", "tlc_harness")
    return {"command": "python scripts/graph_decisions.py " + " ".join(sys.argv[1:]),
            "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
            "commit": git("rev-parse", "HEAD") + (" (with local changes)" if dirty else ""),
            "nproc": len(os.sched_getaffinity(0)), "cpu_count": os.cpu_count(),
            "load_average": [round(x, 2) for x in os.getloadavg()],
            "machine": f"{platform.machine()}, {platform.platform()}",
            "python": platform.python_version(), "java": harness.toolchain.java_version,
            "igraph": igraph.__version__, "ortools": _version("ortools"),
            "max_product": any_mapping.MAX_PRODUCT,
            "deterministic_limit": any_mapping.DETERMINISTIC_LIMIT,
            "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
            "wall_seconds": round(time.monotonic() - started, 1)}


def _version(package: str) -> str:
    from importlib.metadata import PackageNotFoundError, version
    try:
        return version(package)
    except PackageNotFoundError:
        return "not installed"


def render(rows: list[dict[str, Any]], meta: dict[str, Any], args: argparse.Namespace) -> str:
    lines = ["# The class of every state mapping, decided on whole graphs (issue 51)", "",
             f"`{meta['command']}` at {meta['commit']}, {meta['date']}; {meta['nproc']} cores "
             f"(nproc), load average {meta['load_average']} at the end, Python {meta['python']}, "
             f"{meta['java']}, igraph {meta['igraph']}, ortools {meta['ortools']}; "
             f"{meta['machine']}. Whole run {meta['wall_seconds']} s, peak RSS "
             f"{meta['peak_rss_mb']} MB.", "",
             f"Reference: the built-in counting semaphore with {args.procs} processes and "
             f"{args.permits} permits (`{MAIN}.tla` read in place); each output is TLA+ built by "
             "the script and explored by TLC without the graph cache (see the script's "
             "docstring). decide() is `tlc_harness.behavior.graph_engine.any_mapping.decide("
             f"output, reference)`, median of {args.repeats} runs; MAX_PRODUCT "
             f"{meta['max_product']:,}.", "",
             "| pair | output states / steps | reference states / steps | TLC s (output, "
             "reference) | exploration s (output, reference) | decide s, median (runs) | "
             "decide CPU s | of which invariants / bliss / CP-SAT s; cycle collector s | "
             "outcome (kind) | expected | solver |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        o, f = r["output"], r["reference"]
        tlc = f"{o.get('tlc_seconds', '-')}, {f.get('tlc_seconds', '-')}"
        exp = f"{o.get('explore_seconds', '-')}, {f.get('explore_seconds', '-')}"
        s = r["decide_steps"]
        lines.append(
            f"| {r['pair']} | {o['states']:,} / {o['steps']:,} | {f['states']:,} / "
            f"{f['steps']:,} | {tlc} | {exp} | {r['decide_seconds']} "
            f"({', '.join(str(x) for x in r['decide_runs'])}) | {r['decide_cpu_seconds']} | "
            f"{s['invariants']} / {s['bliss']} / {s['cp_sat']}; {s['gc']} | "
            f"{r['outcome']} ({r['kind']}) | {r['expected']} | "
            f"{json.dumps(r['solver']) if r['solver'] else '-'} |")
    lines += ["", "Reasons decide() gave:", ""]
    lines += [f"- {r['pair']}: {r['why']}" + (f" (image checked against the graphs: "
                                              f"{r['image_checked']})"
                                              if r["image_checked"] is not None else "")
              + (f" [{r['note']}]" if r.get("note") else "") for r in rows]
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------------- main
def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--procs", type=int, default=10, help="processes of the reference")
    parser.add_argument("--permits", type=int, default=4, help="permits of the reference")
    parser.add_argument("--small-procs", type=int, default=4,
                        help="processes of the small history pair (0: none)")
    parser.add_argument("--small-permits", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=3, help="decide() runs per pair")
    parser.add_argument("--seed", type=int, default=51, help="for the permutations")
    parser.add_argument("--timeout", type=float, default=300.0, help="TLC limit per run (s)")
    parser.add_argument("--out", type=Path, default=ROOT / "scripts" / "results"
                        / "graph_decisions.md", help="Markdown; the JSON goes beside it")
    args = parser.parse_args()
    started = time.monotonic()
    rng = random.Random(args.seed)
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="graph-decisions-") as tmp, \
            Harness(backend="pool", tlc_timeout=args.timeout, tmp_root=tmp) as harness:
        made = specs(args.procs, args.permits, rng)
        graphs: dict[str, tuple[StateGraph, dict[str, Any]]] = {}
        for name, (spec, cfg) in made.items():  # the reference with the grader's budgets
            budget = DEFAULT_BUDGET if name == "reference" else 4 * DEFAULT_BUDGET
            graphs[name] = explored(harness, name, spec, cfg, budget, args.timeout)
        ref, ref_info = graphs["reference"]
        expected = {"renamed": "candidate (isomorphism)",
                    "history": "candidate or open (homomorphism)", "mutant": "fails"}
        for name in ("renamed", "history", "mutant"):
            out, info = graphs[name]
            rows.append({"pair": f"{name} vs reference", "output": info, "reference": ref_info,
                         **decided(name, out, ref, args.repeats, expected[name])})
        mem = {"states": len(ref), "steps": len(set(ref.edges)), "initial": len(set(ref.initial))}
        rows.append({"pair": "permuted reference (in memory) vs reference", "output": mem,
                     "reference": ref_info, **decided("permuted", permuted(ref, rng), ref,
                                                      args.repeats, "candidate (isomorphism)")})
        other, how = swapped(ref, rng)
        rows.append({"pair": "reference with two steps swapped (in memory) vs reference",
                     "output": mem, "reference": ref_info, "note": how,
                     **decided("swapped", other, ref, args.repeats, "fails (by bliss)")})
        if args.small_procs:
            small = specs(args.small_procs, args.small_permits, rng)
            s_ref, s_ref_info = explored(harness, "small reference", *small["reference"],
                                         DEFAULT_BUDGET, args.timeout)
            s_out, s_info = explored(harness, "small history", *small["history"],
                                     4 * DEFAULT_BUDGET, args.timeout)
            rows.append({"pair": f"history vs reference at {args.small_procs} processes, "
                         f"{args.small_permits} permits", "output": s_info,
                         "reference": s_ref_info,
                         **decided("small history", s_out, s_ref, args.repeats,
                                   "candidate (homomorphism)")})
        meta = provenance(args, harness, started)
    text = render(rows, meta, args)
    print(text)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text, encoding="utf-8")
    args.out.with_suffix(".json").write_text(
        json.dumps({**meta, "procs": args.procs, "permits": args.permits, "rows": rows},
                   indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
