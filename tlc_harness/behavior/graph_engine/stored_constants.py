"""A check that needs no mapping, for outputs whose free constants are only stored: the
output's graph is too small, or its behaviors halt too soon, whatever those constants' values.

An output may declare a constant nothing gives a value (`MaxTemp` in `temp' = MaxTemp`) and
store it in a variable its Init and Next never read (`source/stored.py`). Then the guards and
the other variables never depend on it, and the graph under a fresh model value for it maps
onto the graph under any value v (replace the model value by v): every initial state, state
and step of the v-graph is the image of one of the model value's graph, and every v-behavior
lifts to one as long. So the model value's graph has the most initial states, states and
steps between different states, and the longest behaviors, of any value; when it still has
fewer than the reference's graph (`checks.too_small`), or halts sooner
(`checks.halts_sooner`), no value and no mapping makes every reference behavior the image of
an output behavior. The other constants need justified values, as for the engines' own
mapping-free checks. Like `initial_states`, it runs only on a verdict the engines left
undecided (`engine._graded`).
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import Any

from tlc_harness.behavior.checks import halts_sooner, too_small
from tlc_harness.behavior.facts import constant_facts
from tlc_harness.behavior.graph_engine.constant_maps import ConstantPlan, plan_constants
from tlc_harness.behavior.graph_engine.output_graph import (
    output_budget,
    output_model,
    uncarried_overrides,
)
from tlc_harness.behavior.graphs import explore, graph_cache
from tlc_harness.behavior.policy import Job
from tlc_harness.behavior.soundness import by_name
from tlc_harness.behavior.staging import (
    constant_values,
    uncovered,
)
from tlc_harness.behavior.verdicts import (
    BehaviorResult,
    BehaviorVerdict,
    Reason,
    ValueSource,
    instead_of,
)
from tlc_harness.source.behavior_parts import spec_parts
from tlc_harness.source.formulas import instantiates
from tlc_harness.source.stored import stored_only
from tlc_harness.tools.spec import SpecSource


def smaller_whatever_stored(job: Job, before: BehaviorResult) -> BehaviorResult | None:
    """A mapping-free reverse failure (`too_few_states` or `halts_sooner`) of an output whose
    unjustified constants are all stored only, under a model value for each; None when the
    check does not apply or finds nothing (see the module's docstring)."""
    started = time.monotonic()
    ref, options = job.ref, job.options
    values, unsupported = constant_values(ref)
    if uncovered(ref) or unsupported or ref.cfg.constraints or ref.cfg.action_constraints:
        return None  # the counts compare whole graphs
    if ref.states is not None and ref.states >= options.budget:
        return None
    staged = job.staged
    if staged.out_init is None or staged.out_next is None or instantiates(staged.out_files) \
            or uncarried_overrides(ref, staged, values):
        return None
    if staged.out_spec is not None and spec_parts(staged.out_files, staged.out_spec) != (
            staged.out_init, staged.out_next):
        return None  # the graph explored must be that of the Init and Next read here
    stored = stored_only(staged.out_files, staged.out_init, staged.out_next,
                         staged.out_shape.variables, staged.out_shape.constants).constants
    if not stored:
        return None
    # the stored constants take model values, not the reference's: the rest are paired alone
    rest = replace(staged, out_shape=replace(staged.out_shape, constants=tuple(
        c for c in staged.out_shape.constants if c not in stored)))
    plan = plan_constants(ref, rest, values)
    const_map = _justified_map(plan, rest.out_shape.constants)
    if const_map is None:
        return None  # no map with every other value justified
    sources = plan.sources(const_map)
    free = sorted(stored)
    model = output_model(ref, staged, plan.values, const_map)
    cfg = replace(model.cfg, constants=(*model.cfg.constants, *((g, g) for g in free)),
                  specification=None, init=staged.out_init, next=staged.out_next)
    # the reference's graph as the grade explored it (its own checks too: one cache entry)
    theirs = explore(job.harness, SpecSource(ref.main, dict(ref.files)), ref.cfg,
                     tlc_args=ref.tlc_args, budget=options.budget, timeout=options.timeout,
                     cache=graph_cache(options.cache), own_checks=True)
    if theirs.graph is None:
        return None
    mine = explore(job.harness, SpecSource(staged.out_main, staged.out_files), cfg,
                   budget=output_budget(len(theirs.graph), options.budget),
                   timeout=options.timeout, definitions=model.definitions)
    runs = theirs.tlc_runs + mine.tlc_runs
    if mine.graph is None:
        return None
    small = too_small(mine.graph, theirs.graph)
    sooner = None if small else halts_sooner(mine.graph, theirs.graph)
    if small is None and sooner is None:
        return None
    constants: dict[str, dict[str, Any]] = {
        **sources, **{g: {"value": g, "from": None, "source": ValueSource.STORED_ONLY.value}
                      for g in free}}
    return BehaviorResult(
        BehaviorVerdict.REVERSE_FAIL, None,
        f"{small or sooner}, under a model value for {', '.join(free)}, which the output only "
        f"stores in variables it never reads: no other value gives more states, steps or "
        f"longer behaviors",
        before.seconds + time.monotonic() - started, tlc_runs=before.tlc_runs + runs,
        engine=before.engine,
        code=Reason.TOO_FEW_STATES if small else Reason.HALTS_SOONER,
        details={"constants": constants, "mapping_free_check": "stored_only",
                 "pairings": {"total": plan.pairings, "graded": 1, "failed": 1},
                 "output_states": len(mine.graph), "reference_states": len(theirs.graph),
                 "instead_of": instead_of(before)})


def _justified_map(plan: ConstantPlan, constants: tuple[str, ...]) -> dict[str, str] | None:
    """The likeliest constant map under which every constant has a justified value, paired by
    name where pairings are ambiguous; `{}` when there are no constants."""
    if not constants:
        return {}
    for group in plan.groups:
        const_map = group[0]
        sources = plan.sources(const_map)
        if len(group) == 1 and all(ValueSource(c["source"]).justified for c in sources.values()) \
                and (plan.pairings == 1 or by_name(constant_facts(sources) or ())):
            return const_map
    return None
