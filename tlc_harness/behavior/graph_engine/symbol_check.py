"""The check a decided verdict under symbol constants must pass: each constant given a model
value of its own name (`ValueSource.OPAQUE_TOKEN`) meets only symbols in the output's graph
(`symbol_sorts`); the ones that meet another sort are withdrawn and the output graded again
with them as values (`engine`)."""

from __future__ import annotations

from tlc_harness.behavior.graph_engine.constant_maps import plan_constants
from tlc_harness.behavior.graph_engine.output_graph import output_model
from tlc_harness.behavior.graph_engine.symbol_sorts import mixed_symbols
from tlc_harness.behavior.graphs import explore
from tlc_harness.behavior.policy import Job
from tlc_harness.behavior.staging import constant_values
from tlc_harness.behavior.verdicts import BehaviorResult, ValueSource
from tlc_harness.tools.spec import SpecSource


def opaque_tokens(result: BehaviorResult) -> frozenset[str]:
    """The output constants a verdict's grade gave model values of their own names."""
    constants = result.details.get("constants") or {}
    return frozenset(g for g, c in constants.items()
                     if c.get("source") == ValueSource.OPAQUE_TOKEN.value)


def symbols_to_withdraw(job: Job, result: BehaviorResult) -> dict[str, str] | None:
    """The opaque tokens of a decided `result` that the output's graph, under the values its
    grade gave every constant, shows meeting another sort, each with where (empty: each
    one holds); None when that graph cannot be had (the output's run stops or is too big)."""
    tokens = opaque_tokens(result)
    if not tokens or not result.verdict.decided:
        return {}
    ref, staged = job.ref, job.staged
    values, _ = constant_values(ref)
    plan = plan_constants(ref, staged, values)
    given = {g: c["from"] for g, c in (result.details.get("constants") or {}).items()}
    if any(r not in plan.values.literals for r in given.values()):
        return None
    model = output_model(ref, staged, plan.values, given)
    found = explore(job.harness, SpecSource(staged.out_main, staged.out_files), model.cfg,
                    budget=job.options.budget, timeout=job.options.timeout,
                    definitions=model.definitions)
    if found.graph is None:
        return None
    return mixed_symbols(found.graph, staged.out_files, tokens, found.graph.variables)
