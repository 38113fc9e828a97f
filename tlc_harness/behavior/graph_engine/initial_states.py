"""A check that needs no mapping and no graph: the output has fewer initial states than the
reference.

Under any mapping of the output's states onto the reference's, every reference behavior must
be the image of an output behavior, so every initial reference state the image of an initial
output state: an output with fewer initial states cannot refine the reference in reverse,
whatever the mapping. Both counts come from TLC runs whose next-state action takes no step
(`AliasNoStep == FALSE /\\ UNCHANGED vars`), the reference's under its own model (CONSTRAINT included, as the
graphs count it).

The output's initial states depend only on the constants its Init reads. Those must have
justified values (`ConstantPlan.sources`; paired by name or by use where pairings are
ambiguous), or take every admissible value in turn: a BOOLEAN (`AllYes` choosing every vote)
or a number its ASSUME bounds to a small set, each value counted, the failure holding under
every one (source `every_value`). Any other constant takes any value the output's ASSUMEs
admit, and the verdict holds for every value of it (source `not_read`). So this check decides
where the engines cannot: an output with a free parameter its Init never reads, a reference
whose CONSTRAINT cuts the output's graph, graphs over budget. It runs only on a verdict the engines left
undecided (`engine._graded`); on a decided one it could only add a second reason.
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import Any

from tlc_harness.behavior.facts import constant_facts
from tlc_harness.behavior.graph_engine.constant_maps import ConstantPlan, plan_constants, read_by
from tlc_harness.behavior.graph_engine.output_graph import output_model, uncarried_overrides
from tlc_harness.behavior.graphs import explore, graph_cache
from tlc_harness.behavior.policy import Job
from tlc_harness.behavior.soundness import by_name
from tlc_harness.behavior.staging import (
    constant_values,
    out_name,
    safety_parts,
    uncovered,
)
from tlc_harness.behavior.verdicts import (
    BehaviorResult,
    BehaviorVerdict,
    Reason,
    ValueSource,
    instead_of,
)
from tlc_harness.tools.spec import SpecSource

NO_STEP = "AliasNoStep"
MAX_RUNS = 4  # output runs (maps of the constants Init does not read) before giving up


def fewer_initial_states(job: Job, before: BehaviorResult) -> BehaviorResult | None:
    """A mapping-free reverse failure (`too_few_states`) when the output has fewer initial
    states than the reference under justified values of the constants its Init reads; None
    when it has as many, or the check cannot be made (see the module's docstring)."""
    started = time.monotonic()
    ref, options = job.ref, job.options
    values, unsupported = constant_values(ref)
    if uncovered(ref) or unsupported:
        return None
    staged = job.staged
    ref_init = ref.cfg.init or (safety_parts(ref) or (None, None))[0]
    if staged.out_init is None or ref_init is None or not staged.out_shape.variables \
            or not staged.ref_shape.variables:
        return None
    read = read_by(staged, (staged.out_init,))
    carried_not = {out_name(ref, staged, n) or n for n in uncarried_overrides(ref, staged, values)}
    if read & carried_not:
        return None  # Init reads a name the reference's cfg redefines and the run cannot carry
    theirs = explore(job.harness, SpecSource(ref.main, dict(ref.files)),
                     replace(ref.cfg, specification=None, init=ref_init, next=NO_STEP),
                     tlc_args=ref.tlc_args, budget=options.budget, timeout=options.timeout,
                     cache=graph_cache(options.cache),
                     definitions=(_no_step(staged.ref_shape.variables),))
    if theirs.graph is None:
        return None
    ref_count = len(set(theirs.graph.initial))
    runs, tried = theirs.tlc_runs, 0
    plan = plan_constants(ref, staged, values)
    for group in plan.groups:
        # the constants Init reads take justified values, or every admissible value of a
        # BOOLEAN or of a number its ASSUME bounds to a small set (the group holds each)
        varying = {g for g in read if len({m.get(g) for m in group}) > 1}
        if not varying <= {*plan.booleans, *plan.enumerated}:
            continue  # a few numbers tried for a free one: not every value
        counts: dict[tuple[tuple[str, str], ...], int] = {}
        rejected: set[tuple[tuple[str, str], ...]] = set()
        decidable = True
        shown: dict[str, str] | None = None  # the first map counted: its values are shown
        for const_map in group:
            sources = plan.sources(const_map)
            fixed = {g: c for g, c in sources.items() if g in read and g not in varying}
            if any(not ValueSource(c["source"]).justified for c in fixed.values()) or \
                    (plan.pairings > 1 and not by_name(constant_facts(fixed) or ())):
                decidable = False
                break
            key = tuple(sorted((g, const_map[g]) for g in read if g in const_map))
            if key in counts:  # the same values for Init; another map of the rest only if rejected
                continue
            if tried == MAX_RUNS:
                decidable = False
                break
            model = output_model(ref, staged, plan.values, const_map)
            tried += 1
            mine = explore(job.harness, SpecSource(staged.out_main, staged.out_files),
                           replace(model.cfg, specification=None, init=staged.out_init,
                                   next=NO_STEP),
                           budget=options.budget, timeout=options.timeout,
                           definitions=(*model.definitions, _no_step(staged.out_shape.variables)))
            runs += mine.tlc_runs
            if mine.verdict == "assumption_failed":
                rejected.add(key)  # the ASSUMEs reject a value: not an admissible one
                continue
            if mine.graph is None:
                decidable = False
                break
            counts[key] = len(set(mine.graph.initial))
            if counts[key] >= ref_count:
                return None  # as many under values the verdict would rest on: nothing to say
            shown = shown or const_map
        # every value counted (one only rejected may be admissible beside other values of
        # the constants Init does not read, which were not all tried)
        if decidable and shown is not None and rejected <= set(counts):
            return _too_few(before, started, runs, plan, shown, read, varying, counts,
                            ref_count)
    return None


def _too_few(before: BehaviorResult, started: float, runs: int, plan: ConstantPlan,
             const_map: dict[str, str], read: frozenset[str], varying: set[str],
             counts: dict[tuple[tuple[str, str], ...], int], ref_count: int) -> BehaviorResult:
    """The mapping-free reverse failure: fewer initial states under every value counted."""
    sources = plan.sources(const_map)
    out_count = max(counts.values())
    constants: dict[str, dict[str, Any]] = {}
    for g in sources:
        if g in varying:
            every = sorted({dict(key)[g] for key in counts})
            constants[g] = {"value": ", ".join(every), "from": None,
                            "source": ValueSource.EVERY_VALUE.value}
        elif g in read:
            constants[g] = sources[g]
        else:
            constants[g] = {"value": sources[g]["value"], "from": None,
                            "source": ValueSource.NOT_READ.value}
    free = sorted(set(sources) - read)
    swept = sorted(varying)
    return BehaviorResult(
        BehaviorVerdict.REVERSE_FAIL, None,
        f"the output has {out_count} initial state(s) at most, the reference {ref_count}: "
        f"under any mapping of the output's states onto the reference's, some initial "
        f"reference state is the image of no initial output state"
        + (f" (under every value of {', '.join(swept)})" if swept else "")
        + (f" (whatever the values of {', '.join(free)}, which the output's Init does not "
           f"read)" if free else ""),
        before.seconds + time.monotonic() - started, tlc_runs=before.tlc_runs + runs,
        engine=before.engine, code=Reason.TOO_FEW_STATES,
        details={"constants": constants, "mapping_free_check": "initial_states",
                 "pairings": {"total": plan.pairings, "graded": 1, "failed": 1},
                 "initial_states": {"output": out_count, "reference": ref_count},
                 "instead_of": instead_of(before)})


def _no_step(variables: tuple[str, ...]) -> str:
    """A next-state action that takes no step (TLC refuses a constant one, `FALSE`)."""
    return f"{NO_STEP} == FALSE /\\ UNCHANGED <<{', '.join(variables)}>>"
