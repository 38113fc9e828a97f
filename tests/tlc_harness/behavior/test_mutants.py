"""Tests of `tlc_harness.behavior.mutants`: one-site mutants of reference modules (negative controls)."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from alias_fixtures.tasks.task import Task, builtin_tasks
from tlc_harness.behavior.mutants import (
    KINDS,
    Mutant,
    Site,
    apply_mutation,
    behaves_differently,
    mutants,
    mutation_sites,
)
from tlc_harness.source.cfg import parse_cfg
from tlc_harness.tools.runner import Harness
from tlc_harness.tools.spec import SpecSource

TASKS = {t.id: t for t in builtin_tasks()}
SAMPLE = ["two_phase_commit", "water_jugs", "peterson_mutex", "elevator", "hour_clock",
          "locked_counter", "up_down_counter", "bounded_buffer"]


def _text(task: Task) -> str:
    return task.modules[task.main_file]


def _sites(task_id: str) -> list[Site]:
    task = TASKS[task_id]
    return mutation_sites(_text(task), cfg=task.cfg)


ALL_SITES = [(tid, site) for tid in sorted(TASKS) for site in _sites(tid)]

TOY = """---- MODULE Toy ----
EXTENDS Naturals
CONSTANT Max
VARIABLES x, on
Limit == 7            \\* the cfg overrides it: never mutated
Cap == 4              \\* the cfg's override target: mutated
Init == /\\ x = 0
        /\\ on = FALSE
Inc == /\\ on
       /\\ x < Max     (* 3 < 4 in a comment *)
       /\\ x' = x + 1
       /\\ UNCHANGED on
Flip == on' = ~on /\\ x' = x
Next == \\/ Inc
        \\/ Flip
        \\/ IF x = 9 THEN /\\ x' = 0
                        /\\ on' = on
                   ELSE FALSE
TypeOK == x \\in 0..10 /\\ "x < 3" # "5"
====
"""
TOY_CFG = parse_cfg("CONSTANT Max <- Cap\nCONSTANT Limit <- Cap\nINIT Init\nNEXT Next\n"
                    "INVARIANT TypeOK\n")


def test_each_kind_has_sites_on_five_builtin_tasks() -> None:
    tasks_per_kind = Counter(kind for tid in TASKS for kind in {s.kind for s in _sites(tid)})
    assert set(tasks_per_kind) == set(KINDS)
    assert all(n >= 5 for n in tasks_per_kind.values()), tasks_per_kind


@pytest.mark.parametrize("task_id", SAMPLE)
def test_sample_tasks_have_several_kinds(task_id: str) -> None:
    kinds = {s.kind for s in _sites(task_id)}
    assert len(kinds) >= 3, kinds


def test_toy_sites_respect_scope_comments_strings_and_cfg() -> None:
    sites = mutation_sites(TOY, cfg=TOY_CFG)
    lines = TOY.splitlines()
    described = {(s.kind, s.definition, s.old.strip(), s.new.strip()) for s in sites}
    assert ("number", "Cap", "4", "5") not in described     # override target: part of the model
    assert ("init_value", "Init", "0", "1") in described
    assert ("init_value", "Init", "FALSE", "TRUE") in described
    assert ("comparison", "Inc", "<", "<=") in described
    assert ("drop_guard", "Inc", "/\\ x < Max", "") in described
    assert ("negate_guard", "Inc", "x < Max", "~(x < Max)") in described
    assert ("drop_disjunct", "Next", "\\/ Flip", "") in described
    assert {s.definition for s in sites} == {"Init", "Inc", "Next"}  # not Cap, Limit, TypeOK
    assert not [s for s in sites if s.kind == "drop_guard" and "UNCHANGED" in s.old]
    assert not [s for s in sites if s.kind == "comparison" and s.definition == "Init"]
    for site in sites:  # nothing inside a comment or a string
        line = lines[site.line - 1]
        assert "\\*" not in line[:site.column]
        assert "(*" not in line[:site.column]
        assert line[:site.column].count('"') % 2 == 0


#: an operator constant the cfg binds to a definition (`Op <- Pick`) that uses another
OPERATOR = """---- MODULE Pick ----
EXTENDS Naturals
CONSTANT Op(_)
VARIABLE x
Base(n) == SUBSET {1, 2, 3}
Pick(n) == Base(n)
Both == 5
Init == x = 0
Next == x' \\in Op(x) \\cup {Both}
====
"""


def test_what_only_an_override_target_uses_is_part_of_the_model() -> None:
    # the grader gives the output the reference model's `Op` (its own `Pick`, with its
    # `Base`): a changed `Base` changes the mutant's own model, not its behavior under the
    # task's; a definition the spec uses directly is mutated as before
    cfg = parse_cfg("CONSTANT Op <- Pick\nINIT Init\nNEXT Next\n")
    sites = mutation_sites(OPERATOR, cfg=cfg)
    assert {s.definition for s in sites} == {"Init", "Both"}
    assert not {s.definition for s in sites} & {"Base", "Pick"}
    bare = OPERATOR.replace("Op(x)", "Pick(x)").replace("CONSTANT Op(_)\n", "")
    both = mutation_sites(bare, cfg=parse_cfg("INIT Init\nNEXT Next\n"))
    assert {"Base", "Both"} <= {s.definition for s in both}


def test_growth_that_would_shift_a_bullet_is_skipped(harness: Harness) -> None:
    nines = [s for s in mutation_sites(TOY, cfg=TOY_CFG) if s.old.strip() == "9"]
    assert [s.new for s in nines] == ["8"]  # 10 would push the `/\` after THEN one column
    flip = next(s for s in mutation_sites(TOY, cfg=TOY_CFG) if s.old == "=" and s.line == 16)
    assert flip.new == "#"
    for site in (*nines, flip):
        assert harness.parse(SpecSource.from_text(apply_mutation(TOY, site).text)).ok


def test_growth_takes_a_following_space() -> None:
    site = next(s for s in mutation_sites(TOY, cfg=TOY_CFG) if s.kind == "comparison"
                and s.old.startswith("<"))
    assert (site.old, site.new) == ("< ", "<=")
    short = next(s for s in mutation_sites(TOY, cfg=TOY_CFG) if s.old == "FALSE")
    assert short.new == "TRUE "


def test_without_init_and_next_every_definition_is_used() -> None:
    text = "---- MODULE Free ----\nEXTENDS Naturals\nA == 1 < 2\nB == 3\n====\n"
    assert {s.definition for s in mutation_sites(text)} == {"A", "B"}


def test_spec_formula_names_init_and_next() -> None:
    text = TOY.replace("Init ==", "Start ==").replace("Next ==", "Step ==")
    text = text.replace("TypeOK ==", "Spec == Start /\\ [][Step]_<<x, on>>\nTypeOK ==")
    cfg = parse_cfg("CONSTANT Max <- Cap\nSPECIFICATION Spec\n")
    kinds = {s.kind: s.definition for s in mutation_sites(text, cfg=cfg)}
    assert kinds["init_value"] == "Start"
    assert kinds["drop_disjunct"] == "Step"


def test_mutants_sample_is_seeded_and_spread_over_kinds() -> None:
    text, cfg = _text(TASKS["peterson_mutex"]), TASKS["peterson_mutex"].cfg
    first = mutants(text, random.Random(7), len(KINDS), cfg=cfg)
    again = mutants(text, random.Random(7), len(KINDS), cfg=cfg)
    assert first == again
    assert sorted(m.kind for m in first) == sorted(KINDS)
    assert len({m.text for m in mutants(text, random.Random(1), 1000, cfg=cfg)}) == len(
        mutation_sites(text, cfg=cfg))


def test_apply_rejects_a_site_from_another_text() -> None:
    site = _sites("hour_clock")[0]
    with pytest.raises(ValueError, match="does not match"):
        apply_mutation("x" * (site.end + 5), site)


def test_sample_mutants_parse_with_sany(harness: Harness) -> None:
    total = ok = 0
    failures = []
    for task in TASKS.values():
        for mutant in mutants(_text(task), random.Random(task.id), 8, cfg=task.cfg):
            files = {**task.modules, task.main_file: mutant.text}
            result = harness.parse(SpecSource(task.main_module, files))
            total, ok = total + 1, ok + result.ok
            if not result.ok:
                failures.append((task.id, mutant.site, result.errors[:1]))
    assert total >= 150
    assert ok >= 0.95 * total, failures  # measured: every one of 578 sites parses


@settings(max_examples=200, deadline=None)
@given(pick=st.sampled_from(ALL_SITES))
def test_mutant_differs_exactly_at_its_site(pick: tuple[str, Site]) -> None:
    task_id, site = pick
    text = _text(TASKS[task_id])
    mutant = apply_mutation(text, site)
    assert isinstance(mutant, Mutant)
    assert mutant.kind == site.kind
    assert mutant.site.startswith(f"line {site.line} col {site.column}: ")
    assert mutant.text != text
    assert mutant.text[:site.start] == text[:site.start]
    assert mutant.text[site.start + len(site.new):] == text[site.end:]
    assert mutant.text[site.start:site.start + len(site.new)] == site.new
    assert text[site.start:site.end] == site.old
    assert mutant.text.count("\n") == text.count("\n")  # layout: lines never move
    if site.kind.startswith("drop_") or len(site.new) == len(site.old):
        assert len(mutant.text) == len(text)  # blanked or same width: columns never move


@pytest.mark.slow  # two minutes: every mutant of a model is run to completion
def test_behaves_differently_keeps_only_changed_state_counts(harness: Harness) -> None:
    task = TASKS["hour_clock"]
    states = task.expected_distinct_states
    assert states is not None
    sites = _sites("hour_clock")
    same = next(s for s in sites if s.kind == "init_value" and s.old.strip() == "12"
                and s.new.strip() == "11")  # 12 -> 11 starts the cycle elsewhere: same states
    changed = [s for s in sites if s.kind == "number"]
    text = _text(task)
    assert not behaves_differently(harness, task.modules, task.cfg,
                                   apply_mutation(text, same), states)
    kept = [s for s in changed[:4] if behaves_differently(harness, task.modules, task.cfg,
                                                          apply_mutation(text, s), states)]
    assert kept
    broken = Mutant("number", "made up", text.replace("==", "=", 1))
    assert not behaves_differently(harness, task.modules, task.cfg, broken, states)


def test_a_mutant_of_an_invariant_alone_is_not_kept(harness: Harness) -> None:
    """TLC stops at the violation with fewer states, but the behaviors are the original's."""
    task = TASKS["hour_clock"]
    states = task.expected_distinct_states
    assert states is not None
    text = _text(task)
    assert "hr \\in 1..12" in text
    weaker = Mutant("number", "TypeOK", text.replace("hr \\in 1..12", "hr \\in 1..11"))
    assert not behaves_differently(harness, task.modules, task.cfg, weaker, states)
    deadlocking = Mutant("drop_disjunct", "Next", text.replace("Next == Tick", "Next == FALSE"))
    assert behaves_differently(harness, task.modules, task.cfg, deadlocking, states)
