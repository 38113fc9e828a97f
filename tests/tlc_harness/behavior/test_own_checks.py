"""The reference's graph is explored with its own checks: its invariants, and its properties
where none is liveness, hold on every reachable state and step of the whole graph (no SYMMETRY
or VIEW in an exploration). A mapping onto that graph then carries them, so TLC's confirming
run is not made for a reference with no fairness, even under a SYMMETRY or with safety
properties; where a check fails on the graph, or TLC checks a property as liveness, the graph
claims nothing and TLC confirms as before."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from tlc_harness.behavior.engine import grade_behavior
from tlc_harness.behavior.graph_engine.forward_on_graphs import (
    DECIDED_ON_GRAPHS,
    forward_on_graphs,
)
from tlc_harness.behavior.graphs import OwnCheck, explore
from tlc_harness.behavior.options import BehaviorOptions
from tlc_harness.behavior.staging import Reference
from tlc_harness.source.cfg import ModelConfig, parse_cfg
from tlc_harness.source.formulas import liveness_free
from tlc_harness.tools.runner import Harness
from tlc_harness.tools.spec import SpecSource

#: a lock two processes take in turn; `Perms` is a symmetry of the model
LOCK = """---- MODULE Lock ----
EXTENDS Naturals, TLC
CONSTANT Procs
VARIABLE owner
None == "none"
Init == owner = None
Take(p) == owner = None /\\ owner' = p
Drop == owner # None /\\ owner' = None
Next == Drop \\/ \\E p \\in Procs : Take(p)
Spec == Init /\\ [][Next]_owner
Perms == Permutations(Procs)
TypeOK == owner \\in Procs \\cup {None}
Alternates == [][owner = None \\/ owner' = None]_owner
Safe == Init /\\ Alternates /\\ []TypeOK
Freed == <>(owner = None)
Small == owner = None
Eventually == TRUE
H == INSTANCE Live
Hidden == H!Eventually
====
"""
LIVE = """---- MODULE Live ----
CONSTANT Procs
VARIABLE owner
Eventually == <>(owner = "none")
====
"""
FILES = {"Lock.tla": LOCK, "Live.tla": LIVE}


def _cfg(extra: str) -> ModelConfig:
    return parse_cfg(f"CONSTANT Procs = {{p1, p2}}\nSPECIFICATION Spec\n{extra}\n")


def test_the_liveness_screen_follows_the_modules_own_definitions() -> None:
    assert liveness_free(FILES, ["Safe", "Alternates"])
    assert liveness_free(FILES, [])
    assert not liveness_free(FILES, ["Safe", "Freed"])
    assert not liveness_free(FILES, ["Undefined"])
    # a name two modules define is read as the first writes it (`Eventually` here, where
    # `H!Eventually` is the other's): TLC's messages say what it checked
    assert liveness_free(FILES, ["Hidden"])


@pytest.mark.parametrize(("extra", "checked", "runs"), [
    ("INVARIANT TypeOK\nPROPERTY Safe\nPROPERTY Alternates",
     {OwnCheck.INVARIANTS, OwnCheck.PROPERTIES}, 1),
    # the screen leaves a liveness property out of the run
    ("INVARIANT TypeOK\nPROPERTY Freed", {OwnCheck.INVARIANTS}, 1),
    # behind an instance: TLC checks it as liveness, and says so
    ("INVARIANT TypeOK\nPROPERTY Hidden", {OwnCheck.INVARIANTS}, 1),
    # an invariant that fails on the whole graph: the graph alone, explored again
    ("INVARIANT Small\nPROPERTY Safe", set(), 2),
])
def test_the_exploration_says_which_checks_held(harness: Harness, extra: str,
                                                checked: set[OwnCheck], runs: int) -> None:
    found = explore(harness, SpecSource("Lock", FILES), _cfg(extra), own_checks=True)
    assert found.graph is not None and len(found.graph) == 3
    assert found.checked == checked
    assert found.tlc_runs == runs
    plain = explore(harness, SpecSource("Lock", FILES), _cfg(extra))
    assert plain.checked == set() and plain.graph is not None and len(plain.graph) == 3


def test_forward_on_graphs_reads_the_explorations_checks() -> None:
    ref = Reference("Lock", FILES, _cfg("SYMMETRY Perms\nINVARIANT TypeOK\nPROPERTY Safe"),
                    states=2)
    both = frozenset({OwnCheck.INVARIANTS, OwnCheck.PROPERTIES})
    assert forward_on_graphs(ref, True, both)
    assert not forward_on_graphs(ref, False, both)
    assert not forward_on_graphs(ref, True)  # the verified run saw one state of each class
    assert not forward_on_graphs(ref, True, frozenset({OwnCheck.INVARIANTS}))  # a property
    no_property = replace(ref, cfg=_cfg("SYMMETRY Perms\nINVARIANT TypeOK"), states=None)
    assert forward_on_graphs(no_property, True, frozenset({OwnCheck.INVARIANTS}))
    assert not forward_on_graphs(no_property, True)  # no run checked its invariants
    cut = replace(ref, cfg=replace(ref.cfg, constraints=("Small",)))
    assert not forward_on_graphs(cut, True, both)


def _output() -> dict[str, str]:
    """The reference's modules under other names: `Procs` and `owner` renamed."""
    lock = LOCK.replace("MODULE Lock", "MODULE Out").replace("owner", "holder")
    return {"Out.tla": lock.replace("Procs", "Workers"),
            "Live.tla": LIVE.replace("owner", "holder").replace("Procs", "Workers")}


@pytest.mark.parametrize(("extra", "decided"), [
    ("SYMMETRY Perms\nINVARIANT TypeOK\nPROPERTY Safe", True),
    ("INVARIANT TypeOK\nPROPERTY Alternates", True),
    ("SYMMETRY Perms\nINVARIANT TypeOK\nPROPERTY Freed", False),
    ("INVARIANT TypeOK\nPROPERTY Hidden", False),
])
def test_an_ok_needs_no_confirming_run_where_the_graph_checked_everything(
        harness: Harness, tmp_path: Path, extra: str, decided: bool) -> None:
    ref = Reference("Lock", FILES, _cfg(extra), states=None)
    result = grade_behavior(harness, ref, _output(), "Out",
                            BehaviorOptions(engine="graphs", cache=tmp_path))
    assert result.verdict == "ok", result.reason
    assert (result.details.get("forward_decided") == DECIDED_ON_GRAPHS) is decided
    assert ("confirm" in result.details["stage_seconds"]) is not decided


def test_a_check_the_whole_graph_fails_leaves_the_failure_to_tlc(
        harness: Harness, tmp_path: Path) -> None:
    # `Small` fails on a reachable state: the graph claims nothing, and TLC's forward run
    # finds the violation on the output under the mapping
    ref = Reference("Lock", FILES, _cfg("SYMMETRY Perms\nINVARIANT Small"), states=2)
    result = grade_behavior(harness, ref, _output(), "Out",
                            BehaviorOptions(engine="graphs", cache=tmp_path))
    assert result.verdict == "forward_fail", result.reason
    assert "forward_decided" not in result.details
