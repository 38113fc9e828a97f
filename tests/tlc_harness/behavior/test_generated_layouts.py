"""Generated layout controls (issue 51 item 4, "controls generated, not written").

Hypothesis draws, from each built-in reference R's reachable graph, a composition of layout
transformations that preserve behavior (`tlc_harness.behavior.layout_transforms`: identities
permuted everywhere, one sort's strings renamed by a bijection, functions re-indexed or kept
as records, records split, sets kept as characteristic functions, booleans complemented,
optionally a registered rule on top) with their parameters (the permutation, the bijection).
`AliasRep` laid out by the plan must get `ok`; the same plan over a behavior mutant of R (one
whose reachable graph has another number of states, edges or initial states: no layout of it
behaves like R) must get `forward_fail` or `reverse_fail`. A mutant graded `no_mapping` or
`undecided` is recorded (an xfail with its verdict, so the share shows in the summary); an
`ok` for a mutant, or anything but `ok` for R's layout, fails.

Drawing is deterministic (`derandomize=True`, no example database, no shrinking): the plans
depend only on R's graph. CI grades one plan per task of `CI_TASKS` (the drawn plan with the
most kinds of step); the `slow` sweep grades `SWEEP_EXAMPLES` plans of every built-in task.
A case whose positive control fails because of the grade (not of the layout, which TLC has
confirmed) is listed in `GRADE_MISSES` (strict xfail: a fixed grade turns it red).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from alias_fixtures.grading.controls import reference
from alias_fixtures.tasks.task import Task, builtin_tasks
from tlc_harness.behavior.engine import grade_behavior
from tlc_harness.behavior.graphs import StateGraph
from tlc_harness.behavior.layout_transforms import (
    FINAL_RULES,
    KINDS,
    Plan,
    Step,
    apply_step,
    candidates,
    plan_layout,
)
from tlc_harness.behavior.mutants import mutants
from tlc_harness.behavior.options import BehaviorOptions
from tlc_harness.behavior.representations import (
    RepresentationVariant,
    model_values_named,
    reference_graph,
    representation_variants,
)
from tlc_harness.behavior.rules import RULES
from tlc_harness.behavior.values import FALSE, TRUE, Fn, Value
from tlc_harness.tools.runner import Harness

TASKS = {t.id: t for t in builtin_tasks()}
#: CI's tasks: their drawn plans together use every kind of step (checked below)
CI_TASKS = ("dining_philosophers", "peterson_mutex", "readers_writers",
            "two_phase_commit")
DRAWN = 4            # plans Hypothesis draws per task (the first is its simplest)
SWEEP_EXAMPLES = 3   # plans per task the slow sweep grades
MAX_STEPS = 4
MUTANT_TRIES = 8
MAX_STATES = 2000
OPTIONS = BehaviorOptions().without_budget()  # a control measures the grade, not wall time
#: (task, plan index) -> why the grade, not the layout, misses R's layout (strict xfail)
GRADE_MISSES: dict[tuple[str, int], str] = {
    ("ticket_lock", 1): "R's ticket (a count per process) is kept in a record over processes "
                        "renumbered: no output variable of its name and not held as it is, so "
                        "no table candidate is tried (a count must be read as that count), "
                        "and the named class stops at the nameless variable: no_mapping",
    ("ring_election", 1): "processes renumbered and re-indexed, a history variable: the named "
                          "class has 2.2e37 members that keep the colours (over its budget) and "
                          "no candidate is confirmed: no_mapping",
    ("kv_store", 0): "R's CONSTRAINT VersionBound is evaluated on the output under a candidate "
                     "(version <- version_k1, one of the split variables): an eval error, so the "
                     "graph engine is undecided (constraint_cut) and auto falls back to the "
                     "wrapper engine: no_mapping shape_mismatch",
}
#: (task, plan index) -> the grade ends the test's process (a worker crash, which no xfail
#: catches): skipped, saying so
GRADE_CRASHES: dict[tuple[str, int], str] = {
    ("kv_store", 1): "grading R's layout (fn_as_record store, k1/k2 permuted, history) "
                     "crashes the pytest worker (reproduced twice; cause not yet known)",
}
#: (task, plan index) -> why the grade accepts the mutant's layout (strict xfail)
GRADE_ACCEPTS: dict[tuple[str, int], str] = {}

_graphs: dict[str, tuple[StateGraph, dict[Value, Value]]] = {}
_plans: dict[str, list[Plan]] = {}


def _reference(harness: Harness, task: Task) -> tuple[StateGraph, dict[Value, Value]]:
    if task.id not in _graphs:
        found = reference_graph(harness, task.modules, task.main_module, task.cfg,
                                task.tlc_args, MAX_STATES)
        assert not isinstance(found, str), found
        graph, constants = found
        _graphs[task.id] = graph, model_values_named(task.cfg, constants)[0]
    return _graphs[task.id]


def _moves(domain: tuple[Value, ...]) -> Callable[[list[Value]], bool]:
    """A permutation that moves something (of a domain of two or more)."""
    return lambda p: len(domain) < 2 or tuple(p) != domain


@st.composite
def plans(draw: st.DrawFn, graph: StateGraph, mv_names: dict[Value, Value]) -> Plan:
    """Up to MAX_STEPS steps, each drawn among those that apply to the graph the steps
    before it made (a kind once), with a permutation that moves something; then maybe a
    registered rule."""
    steps: list[Step] = []
    current = graph
    for _ in range(draw(st.integers(1, MAX_STEPS))):
        options = [c for c in candidates(current, mv_names)
                   if c.kind not in {s.kind for s in steps}]
        if not options:
            break
        c = draw(st.sampled_from(options))
        order: tuple[Value, ...] = ()
        if c.domain and c.kind != "reindex":
            order = tuple(draw(st.permutations(c.domain).filter(_moves(c.domain))))
        step = Step(c.kind, c.target, c.domain, order,
                    fresh=c.kind == "rename_values" and draw(st.booleans()),
                    rename=draw(st.booleans()), label=c.label)
        made = apply_step(step, current, set(current.variables), mv_names)
        if isinstance(made, str):
            continue
        steps.append(step)
        current = made.graph
    fits = [r for r in FINAL_RULES
            if not isinstance(RULES[r].layout(current, set(current.variables), mv_names), str)]
    return Plan(tuple(steps), draw(st.sampled_from((None, *fits))))


def drawn_plans(graph: StateGraph, mv_names: dict[Value, Value]) -> list[Plan]:
    """DRAWN plans of the graph (deterministic), without repeats, in the order drawn."""
    found: list[Plan] = []

    @settings(max_examples=DRAWN, derandomize=True, database=None, deadline=None,
              phases=(Phase.generate,), suppress_health_check=list(HealthCheck))
    @given(plans(graph, mv_names))
    def collect(plan: Plan) -> None:
        if plan.steps and plan not in found:
            found.append(plan)

    collect()
    return found


def _task_plans(harness: Harness, task_id: str) -> list[Plan]:
    """The task's plans, the one with the most kinds first (CI grades it)."""
    if task_id not in _plans:
        found = drawn_plans(*_reference(harness, TASKS[task_id]))
        _plans[task_id] = sorted(found, key=lambda p: -len(p.kinds()))
    return _plans[task_id]


def _plan(harness: Harness, task_id: str, index: int) -> Plan:
    found = _task_plans(harness, task_id)
    if index >= len(found):
        pytest.skip(f"{len(found)} distinct plans drawn for {task_id}")
    return found[index]


def _variant(harness: Harness, task: Task, files: dict[str, str], plan: Plan
             ) -> RepresentationVariant:
    return representation_variants(harness, files, task.main_module, task.cfg, task.tlc_args,
                                   max_states=MAX_STATES, check_fairness=False,
                                   makers={"generated": plan_layout(plan)})[0]


def _cases(known: dict[tuple[str, int], str]) -> Iterator[Any]:
    for task_id in CI_TASKS:
        why = known.get((task_id, 0))
        yield pytest.param(task_id, 0, id=f"{task_id}-0",
                           marks=[pytest.mark.xfail(strict=True, reason=why)] if why else [])
    for index in range(SWEEP_EXAMPLES):  # every task's first plan, then the next
        for task_id in sorted(TASKS):
            if task_id in CI_TASKS and index == 0:
                continue
            why = known.get((task_id, index))
            marks = [pytest.mark.slow, *([pytest.mark.xfail(strict=True, reason=why)]
                                         if why else [])]
            if known is GRADE_MISSES and (crash := GRADE_CRASHES.get((task_id, index))):
                marks.append(pytest.mark.skip(reason=crash))
            yield pytest.param(task_id, index, id=f"{task_id}-{index}", marks=marks)


def test_ci_plans_use_every_kind(harness: Harness) -> None:
    used = {k for t in CI_TASKS for k in _task_plans(harness, t)[0].kinds()}
    assert set(KINDS) <= used, f"no CI plan uses {sorted(set(KINDS) - used)}"


def test_plans_are_drawn_deterministically(harness: Harness) -> None:
    graph, mv_names = _reference(harness, TASKS["peterson_mutex"])
    assert drawn_plans(graph, mv_names) == drawn_plans(graph, mv_names)


@pytest.mark.parametrize(("task_id", "index"), list(_cases(GRADE_MISSES)))
def test_generated_layout_accepted(harness: Harness, task_id: str, index: int,
                                   record_property: Any) -> None:
    task, plan = TASKS[task_id], _plan(harness, task_id, index)
    record_property("plan", plan.describe())
    variant = _variant(harness, task, dict(task.modules), plan)
    assert variant.verified, f"{plan.describe()}: the layout is not confirmed: {variant.reason}"
    result = grade_behavior(harness, reference(task), variant.files, variant.main, OPTIONS)
    record_property("verdict", f"{result.verdict} {result.code}")
    assert result.verdict == "ok", \
        f"{plan.describe()}: {result.verdict} ({result.code}): {result.reason[:500]}"


@pytest.mark.parametrize(("task_id", "index"), list(_cases(GRADE_ACCEPTS)))
def test_generated_layout_of_a_mutant_rejected(harness: Harness, task_id: str, index: int,
                                               record_property: Any) -> None:
    task, plan = TASKS[task_id], _plan(harness, task_id, index)
    graph, _ = _reference(harness, task)
    shape = (len(graph), len(graph.edges), len(graph.initial))
    rng = random.Random(f"generated-layouts:{task_id}")
    tried = []
    for mutant in mutants(task.modules[task.main_file], rng, MUTANT_TRIES, cfg=task.cfg):
        files = {**task.modules, task.main_file: mutant.text}
        found = reference_graph(harness, files, task.main_module, task.cfg, task.tlc_args,
                                MAX_STATES)
        if isinstance(found, str) or (len(found[0]), len(found[0].edges),
                                      len(found[0].initial)) == shape:
            tried.append(f"{mutant.site}: {found if isinstance(found, str) else 'same shape'}")
            continue
        variant = _variant(harness, task, files, plan)
        if not variant.verified:
            tried.append(f"{mutant.site}: {variant.reason[:120]}")
            continue
        break
    else:
        pytest.skip(f"no mutant with another graph takes the plan: {tried}")
    record_property("plan", plan.describe())
    record_property("mutant", f"{mutant.kind} at {mutant.site}")
    result = grade_behavior(harness, reference(task), variant.files, variant.main, OPTIONS)
    record_property("verdict", f"{result.verdict} {result.code}")
    what = f"{plan.describe()} over {mutant.kind} at {mutant.site}"
    assert result.verdict != "ok", f"{what}: accepted: {result.reason[:500]}"
    if result.verdict not in ("forward_fail", "reverse_fail"):
        pytest.xfail(f"{result.verdict} ({result.code}) for a mutant, recorded: {what}")


# --- the steps on a small graph (no TLC) ---------------------------------------------------

def _toy() -> StateGraph:
    """pc over processes 1..2, a count 0..3 (not a process), a set of processes, a flag."""
    states: list[tuple[Value, ...]] = [
        (Fn({1: "idle", 2: "idle"}.items()), 0, frozenset(), FALSE),
        (Fn({1: "busy", 2: "idle"}.items()), 1, frozenset({1}), TRUE),
        (Fn({1: "busy", 2: "busy"}.items()), 3, frozenset({1, 2}), TRUE)]
    return StateGraph(("pc", "count", "waiting", "flag"), states, [0], [(0, 1), (1, 2)])


def test_candidates_of_a_small_graph() -> None:
    found = {(c.kind, c.target) for c in candidates(_toy(), {})}
    assert found == {("permute_ids", -1), ("reindex", -1), ("rename_values", 0),
                     ("fn_as_record", 0), ("char_function", 2), ("complement", 3)}


def test_identities_move_everywhere_and_counts_stay() -> None:
    graph = _toy()
    step = Step("permute_ids", -1, (1, 2), (2, 1), rename=False)
    made = apply_step(step, graph, set(graph.variables), {})
    assert not isinstance(made, str)
    pc, count, waiting, _ = made.graph.states[1]
    assert pc == Fn({2: "busy", 1: "idle"}.items()) and waiting == frozenset({2})
    assert count == 1  # a count reaches 3: not a process
    assert made.graph.variables == graph.variables


def test_a_plan_composes_and_reads_back() -> None:
    graph = _toy()
    plan = Plan((Step("fn_as_record", 0), Step("split_record", 0),
                 Step("char_function", 3), Step("complement", 4, rename=True)), "record")
    layout = plan_layout(plan)(graph, set(graph.variables), {})
    assert not isinstance(layout, str)
    assert layout.variables == ("st",)
    subs = dict(layout.subs)
    assert subs["pc"] == "AliasL_pcRec[[i1 |-> st.pcRec_i1, i2 |-> st.pcRec_i2]]"
    assert subs["count"] == "st.count"
    encoded = [layout.encode(s) for s in graph.states]
    assert len(set(encoded)) == len(graph.states)
    assert encoded[0][0]["flagNot"] == TRUE  # type: ignore[index]


def test_a_step_that_does_not_fit_says_why() -> None:
    graph = _toy()
    layout = plan_layout(Plan((Step("split_record", 1),)))(graph, set(), {})
    assert layout == "skipped: step 1 (split_record) does not apply: count is not a record " \
                     "in every state"
