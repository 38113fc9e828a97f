"""Layouts that keep the reference's simpler values inside a set or a sequence: a count as a
sequence of tokens (its length), several booleans as the set of the flags that hold."""

from __future__ import annotations

import pytest

from tlc_harness.behavior.engine import grade_behavior
from tlc_harness.behavior.options import BehaviorOptions
from tlc_harness.behavior.staging import Reference
from tlc_harness.source.cfg import parse_cfg
from tlc_harness.tools.runner import Harness

GRAPHS = BehaviorOptions(engine="graphs")
COUNTER = Reference("Counter", {"Counter.tla": """---- MODULE Counter ----
EXTENDS Naturals
VARIABLES credit, light
Init == credit = 0 /\\ light = "off"
Insert == credit < 3 /\\ credit' = credit + 1 /\\ UNCHANGED light
Toggle == light' = (IF light = "on" THEN "off" ELSE "on") /\\ UNCHANGED credit
Next == Insert \\/ Toggle
Spec == Init /\\ [][Next]_<<credit, light>>
====
"""}, parse_cfg("SPECIFICATION Spec\n"))
COINS = """---- MODULE Coins ----
EXTENDS Naturals, Sequences
VARIABLES coins, light
Init == coins = <<>> /\\ light = "off"
Insert == Len(coins) < {limit} /\\ coins' = Append(coins, "c") /\\ UNCHANGED light
Toggle == light' = (IF light = "on" THEN "off" ELSE "on") /\\ UNCHANGED coins
Next == Insert \\/ Toggle
Spec == Init /\\ [][Next]_<<coins, light>>
====
"""


@pytest.mark.parametrize(("limit", "passes"), [(3, True), (2, False), (4, False)])
def test_a_count_kept_as_a_sequence_of_tokens(harness: Harness, limit: int,
                                               passes: bool) -> None:
    graded = grade_behavior(harness, COUNTER, {"Coins.tla": COINS.format(limit=limit)},
                            "Coins", GRAPHS)
    assert graded.passed is passes, graded.reason
    if passes:
        assert "DOMAIN coins" in graded.mapping["variables"]["credit"]
    else:  # a changed behavior, not a file TLC cannot read
        assert graded.code is not None and graded.code.value != "own_run_limit", graded.reason


DOOR = Reference("Door", {"Door.tla": """---- MODULE Door ----
VARIABLES open, locked
Init == open = FALSE /\\ locked = FALSE
Next == \\/ ~locked /\\ open' = ~open /\\ UNCHANGED locked
        \\/ ~open /\\ locked' = ~locked /\\ UNCHANGED open
Spec == Init /\\ [][Next]_<<open, locked>>
====
"""}, parse_cfg("SPECIFICATION Spec\n"))
FLAGS = """---- MODULE Flags ----
VARIABLE flags
Init == flags = {{}}
Next == \\/ "locked" \\notin flags /\\ "open" \\in flags /\\ flags' = flags \\ {{"open"}}
        \\/ "locked" \\notin flags /\\ "open" \\notin flags /\\ flags' = flags \\cup {{"open"}}
        \\/ "open" \\notin flags /\\ "locked" \\in flags /\\ flags' = flags \\ {{"locked"}}
        \\/ {guard}"locked" \\notin flags /\\ flags' = flags \\cup {{"locked"}}
Spec == Init /\\ [][Next]_flags
====
"""


@pytest.mark.parametrize(("guard", "passes"), [('"open" \\notin flags /\\ ', True),
                                               ("", False)])  # locks while open
def test_booleans_kept_as_the_set_of_flags_that_hold(harness: Harness, guard: str,
                                                     passes: bool) -> None:
    graded = grade_behavior(harness, DOOR, {"Flags.tla": FLAGS.format(guard=guard)}, "Flags",
                            GRAPHS)
    assert graded.passed is passes, graded.reason
    if not passes:  # a changed behavior, not a file TLC cannot read
        assert graded.code is not None and graded.code.value != "own_run_limit", graded.reason
