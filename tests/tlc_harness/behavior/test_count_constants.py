"""Constants from meaning: an output's ASSUME wanting a number where the reference has a set
of model values gets the set's size (`reference_count`), and a failure of the output's own
run under that count is the output's (`soundness.grader_chosen`, `counts`)."""

from __future__ import annotations

from tlc_harness.behavior.engine import grade_behavior
from tlc_harness.behavior.options import BehaviorOptions
from tlc_harness.behavior.staging import Reference
from tlc_harness.behavior.verdicts import BehaviorResult, BehaviorVerdict, Reason, Soundness
from tlc_harness.source.cfg import ModelConfig
from tlc_harness.tools.runner import Harness

DONE = """---- MODULE Done ----
CONSTANT Procs
VARIABLE done
Init == done = {}
Next == \\/ \\E p \\in Procs \\ done : done' = done \\cup {p}
        \\/ done = Procs /\\ UNCHANGED done
Spec == Init /\\ [][Next]_done
====
"""
REF = Reference("Done", {"Done.tla": DONE},
                ModelConfig(constants=(("Procs", "{p1, p2, p3}"),), specification="Spec"))

#: the output counts its processes: `N` with an ASSUME that says it is a number
COUNTED = """---- MODULE Other ----
EXTENDS Naturals
CONSTANT N
ASSUME N \\in Nat /\\ N >= 2
VARIABLE done
Names == <<"a", "b", "c">>
Procs == 1 .. N
Init == done = {} /\\ Names[N] = Names[N]
Next == \\/ \\E p \\in Procs \\ done : done' = done \\cup {p}
        \\/ done = Procs /\\ UNCHANGED done
Spec == Init /\\ [][Next]_done
====
"""


def _grade(harness: Harness, out: str) -> BehaviorResult:
    return grade_behavior(harness, REF, {"Other.tla": out}, "Other",
                          BehaviorOptions(engine="auto", timeout=120))


def test_a_count_the_outputs_assume_names_is_the_references(harness: Harness) -> None:
    graded = _grade(harness, COUNTED)
    assert graded.verdict is BehaviorVerdict.OK, graded.reason
    assert graded.soundness is Soundness.JUSTIFIED
    n = graded.details["constants"]["N"]
    assert (n["value"], n["source"], n.get("named_by_assume")) == ("3", "reference_count", True)
    # the same layout whose own definitions fail under the count: the output's failure
    broken = _grade(harness, COUNTED.replace('<<"a", "b", "c">>', '<<"a", "b">>'))
    assert broken.verdict is BehaviorVerdict.FORWARD_FAIL, broken.reason
    assert broken.code is Reason.OUTPUT_RUN_FAILS and broken.soundness is Soundness.JUSTIFIED
    # without the ASSUME nothing says the constant is a number of things: a limit
    plain = _grade(harness, COUNTED.replace('<<"a", "b", "c">>', '<<"a", "b">>')
                   .replace("ASSUME N \\in Nat /\\ N >= 2\n", ""))
    assert (plain.verdict, plain.code) == (BehaviorVerdict.UNDECIDED, Reason.OWN_RUN_LIMIT)


GCD = """---- MODULE Gcd ----
EXTENDS Integers
VARIABLES u, v
Init == /\\ u = 6
        /\\ v \\in 1 .. 4
Next == \\/ u > 0 /\\ u >= v /\\ u' = u - v /\\ v' = v
        \\/ u > 0 /\\ u < v /\\ u' = v /\\ v' = u
        \\/ u = 0 /\\ UNCHANGED <<u, v>>
Spec == Init /\\ [][Next]_<<u, v>>
====
"""
GCD_REF = Reference("Gcd", {"Gcd.tla": GCD}, ModelConfig(specification="Spec"))

#: the output writes constants where the reference hard-codes 6 and 4
ROLES = GCD.replace("MODULE Gcd", "MODULE Other").replace(
    "VARIABLES u, v", "CONSTANTS InitU, MaxV\nASSUME InitU \\in Nat /\\ MaxV \\in Nat\n"
    "VARIABLES u, v").replace(
    "u = 6", "u = InitU").replace("1 .. 4", "1 .. MaxV")


def test_a_constant_in_the_place_of_a_literal_of_the_references_init_takes_it(
        harness: Harness) -> None:
    def grade(out: str) -> BehaviorResult:
        return grade_behavior(harness, GCD_REF, {"Other.tla": out}, "Other",
                              BehaviorOptions(engine="auto", timeout=120))
    graded = grade(ROLES)
    assert graded.verdict is BehaviorVerdict.OK and graded.soundness is Soundness.JUSTIFIED, \
        graded.reason
    assert {c: (v["value"], v["source"]) for c, v in graded.details["constants"].items()} == {
        "InitU": ("6", "reference_role"), "MaxV": ("4", "reference_role")}
    # the same layout, changed behavior (the swap keeps v): a failure the values back
    changed = grade(ROLES.replace("u' = v /\\ v' = u", "u' = v /\\ v' = v"))
    assert changed.verdict.decided and not changed.passed, changed.reason
    assert changed.soundness is not None
    assert changed.details["constants"]["InitU"]["source"] == "reference_role"
    # without the ASSUME nothing says the constants are data: no role, a guess decides nothing
    bare = grade(ROLES.replace("ASSUME InitU \\in Nat /\\ MaxV \\in Nat\n", "")
                 .replace("u' = v /\\ v' = u", "u' = v /\\ v' = v"))
    assert not bare.verdict.decided, bare.reason
    # a constant in another place (under a disjunction) takes no role: a guess decides nothing
    other = grade(ROLES.replace("u = InitU", "(u = InitU \\/ u = InitU + 1)")
                  .replace("u' = v /\\ v' = u", "u' = v /\\ v' = v"))
    assert not other.verdict.decided, other.reason
