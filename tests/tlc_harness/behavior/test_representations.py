"""Representation variants of a reference: each layout verifies in TLC and has its shape; the
skipping rules hold (no boolean, no derived variable, too many states, unsupported specs)."""

from __future__ import annotations

import re

import pytest

from alias_fixtures.tasks.task import Task, builtin_tasks
from tlc_harness.behavior.graphs import StateGraph
from tlc_harness.behavior.representations import (
    ALL_KINDS,
    RepresentationVariant,
    model_values_named,
    representation_variants,
)
from tlc_harness.behavior.rules import MAX_TABLE, RULES
from tlc_harness.behavior.values import FALSE, TRUE, ModelValue, Value
from tlc_harness.source.cfg import parse_cfg
from tlc_harness.tools.runner import Harness

TASKS = {t.id: t for t in builtin_tasks()}

#: One owner among model values, a derived boolean, quantified weak fairness.
TOGGLE = r"""---- MODULE Toggle ----
CONSTANTS Procs, Nobody
VARIABLES owner, busy
vars == <<owner, busy>>
Init == owner = Nobody /\ busy = FALSE
Take(p) == owner = Nobody /\ owner' = p /\ busy' = TRUE
Drop == owner # Nobody /\ owner' = Nobody /\ busy' = FALSE
Next == (\E p \in Procs : Take(p)) \/ Drop
Spec == Init /\ [][Next]_vars /\ \A p \in Procs : WF_vars(Take(p))
====
"""
TOGGLE_CFG = "CONSTANTS\n    Procs = {p1, p2}\n    Nobody = Nobody\nSPECIFICATION Spec\n"


def _variables(variant: RepresentationVariant) -> list[str]:
    hit = re.search(r"^VARIABLES (.*)$", variant.files["AliasRep.tla"], re.M)
    assert hit, variant.files["AliasRep.tla"][:500]
    return [v.strip() for v in hit.group(1).split(",")]


def _of(task: Task, harness: Harness) -> dict[str, RepresentationVariant]:
    found = representation_variants(harness, task.modules, task.main_module, task.cfg,
                                    task.tlc_args)
    assert [v.kind for v in found] == list(ALL_KINDS)
    return {v.kind: v for v in found}


@pytest.fixture(scope="module")
def toggle(harness: Harness) -> dict[str, RepresentationVariant]:
    found = representation_variants(harness, {"Toggle.tla": TOGGLE}, "Toggle",
                                    parse_cfg(TOGGLE_CFG))
    return {v.kind: v for v in found}


def test_every_kind_of_a_small_spec_verifies(toggle: dict[str, RepresentationVariant]) -> None:
    unmade = ("index_shift", "count_as_sequence")
    assert all(v.made and v.verified for k, v in toggle.items() if k not in unmade), \
        {k: v.reason for k, v in toggle.items() if not v.verified}
    # nor does it hold a count
    assert toggle["count_as_sequence"].reason.startswith("skipped: no variable holds a count")
    assert _variables(toggle["flags_as_set"]) == ["flags", "owner"]
    # processes that are model values have no numbers to shift
    assert not toggle["index_shift"].made
    assert toggle["index_shift"].reason.startswith("skipped: no function of the reference")
    assert _variables(toggle["record"]) == ["st"]
    assert "owner <- st.owner" in toggle["record"].files["AliasRep.tla"]
    assert _variables(toggle["history"]) == ["owner", "busy", "aliasSteps"]
    assert _variables(toggle["derived_dropped"]) == ["owner"]
    assert "busy <- AliasTable[<<owner>>]" in toggle["derived_dropped"].files["AliasRep.tla"]
    assert _variables(toggle["bool_as_01"]) == ["owner", "busyNum"]
    assert "busy <- (busyNum = 1)" in toggle["bool_as_01"].files["AliasRep.tla"]
    assert _variables(toggle["bool_as_strings"]) == ["owner", "busyStr"]
    assert _variables(toggle["model_values_as_strings"]) == ["ownerName", "busy"]
    text = toggle["model_values_as_strings"].files["AliasRep.tla"]
    assert '"p1"' in text and "CHOOSE" in text
    # the files: AliasRep, the instanced copy of the reference, the reference itself
    assert set(toggle["record"].files) == {"AliasRep.tla", "AliasRepDefs.tla", "Toggle.tla"}
    assert toggle["record"].cfg.specification == "Spec"
    assert "3 distinct states" in toggle["record"].reason
    assert "WF_<<st>>(AliasA_1(AliasB1))" in toggle["record"].files["AliasRep.tla"]


def test_processes_numbered_from_one_instead_of_zero(harness: Harness) -> None:
    got = _of(TASKS["peterson_mutex"], harness)
    shifted = got["index_shift"]
    assert shifted.verified, shifted.reason
    # every variable holds processes (keys of interested and pc, the value of turn)
    assert _variables(shifted) == ["interestedIdx", "turnIdx", "pcIdx"]
    text = shifted.files["AliasRep.tla"]
    assert "turn <- AliasIdx_turn[turnIdx]" in text and "AliasK = 2 -> 1" in text


def test_a_clock_with_a_boolean(harness: Harness) -> None:
    got = _of(TASKS["hour_clock"], harness)
    for kind in ("record", "history", "bool_as_01", "bool_as_strings"):
        assert got[kind].verified, (kind, got[kind].reason)
        assert "24 distinct states" in got[kind].reason
    assert _variables(got["record"]) == ["st"]
    assert _variables(got["bool_as_01"]) == ["hr", "pmNum"]
    assert _variables(got["bool_as_strings"]) == ["hr", "pmStr"]
    assert "WF_" in got["history"].files["AliasRep.tla"]  # R's WF_vars(Tick) is carried over
    assert not got["derived_dropped"].made
    assert got["derived_dropped"].reason == "skipped: no variable is a function of the others"
    assert not got["model_values_as_strings"].made


def test_a_counter_with_init_and_next_in_its_cfg(harness: Harness) -> None:
    got = _of(TASKS["up_down_counter"], harness)
    assert got["record"].verified and got["history"].verified
    assert "AliasFairness" not in got["record"].files["AliasRep.tla"]
    assert _variables(got["history"]) == ["count", "lastOp", "aliasSteps"]
    assert "distinct states (the reference has 12)" in got["history"].reason
    for kind in ("bool_as_01", "bool_as_strings"):
        assert not got[kind].made and not got[kind].verified
        assert got[kind].reason == "skipped: no variable holds only booleans"


def test_model_values_and_strong_fairness(harness: Harness) -> None:
    got = _of(TASKS["counting_semaphore"], harness)
    for kind in ("record", "history", "derived_dropped"):
        assert got[kind].verified, (kind, got[kind].reason)
    text = got["record"].files["AliasRep.tla"]
    assert "AliasM_Procs_3 == CHOOSE AliasX \\in Procs \\ {AliasM_Procs_1, AliasM_Procs_2}" \
        in text
    assert "SF_<<st>>" in text and "WF_<<st>>" in text
    assert _variables(got["derived_dropped"]) in (["sem"], ["pc"])
    assert "AliasK = <<[AliasX \\in" in got["derived_dropped"].files["AliasRep.tla"]  # a function
    assert max(map(len, got["derived_dropped"].files["AliasRep.tla"].splitlines())) < 2000


def test_a_large_graph_is_skipped_and_said_so(harness: Harness) -> None:
    task = TASKS["hour_clock"]
    got = representation_variants(harness, task.modules, task.main_module, task.cfg,
                                  max_states=10, kinds=("record", "history"))
    assert [v.kind for v in got] == ["record", "history"]
    assert all(not v.made and not v.verified for v in got)
    assert all("more than 10 states" in v.reason for v in got)


def test_an_unsupported_specification_is_reported(harness: Harness) -> None:
    text = TOGGLE.replace(r"\A p \in Procs : WF_vars(Take(p))", r"[]<>(owner = Nobody)")
    got = representation_variants(harness, {"Toggle.tla": text}, "Toggle",
                                  parse_cfg(TOGGLE_CFG), kinds=("record",))
    assert not got[0].made and got[0].reason.startswith("unsupported: the conjunct")


def test_derived_tables_are_bounded() -> None:
    states: list[tuple[Value, ...]] = [(n, TRUE if n % 2 else FALSE)
                                       for n in range(MAX_TABLE + 1)]
    graph = StateGraph(("n", "odd"), states, [0], [])
    assert RULES["derived_dropped"].layout(graph, set(), {}) == \
        f"skipped: a table of {MAX_TABLE + 1} entries (more than {MAX_TABLE})"
    small = StateGraph(("n", "odd"), states[:4], [0], [])
    layout = RULES["derived_dropped"].layout(small, set(), {})
    assert not isinstance(layout, str) and layout.variables == ("n",)
    lone = StateGraph(("n",), [(1,), (2,)], [0], [])
    assert RULES["derived_dropped"].layout(lone, set(), {}) == \
        "skipped: the reference has one variable"


def test_model_values_are_named_in_tlc_order() -> None:
    cfg = parse_cfg("CONSTANTS\n  Leader = b\n  Procs = {a, b, c}\n  None = None\n"
                    "SPECIFICATION Spec\n")
    names, defs = model_values_named(cfg, ["Leader", "Procs", "None"])
    # b appears first in the cfg, so TLC creates it first and CHOOSE picks it first
    assert defs[0] == "AliasM_Procs_1 == CHOOSE AliasX \\in Procs : TRUE"
    assert names[ModelValue("b")] == ModelValue("Leader")
    assert names[ModelValue("a")] == ModelValue("AliasM_Procs_2")
    assert names[ModelValue("None")] == ModelValue("None")
