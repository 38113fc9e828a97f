"""When the output's own run failing is a failure of the output, and not a limit.

TLC stopping the output's own run says something about the output only where nothing the
grader chose can be the cause: the run's error is in the output's definitions (an evaluation
error TLC reports in a nested message, code 1000), the output has no initial state, or it
reaches a stuck state where the reference's model checks deadlock (as the graphs' forward
check counts one), and not
a state TLC cannot complete (a variable Init or Next leaves unassigned, codes 2102 and 2109),
nor a set it cannot enumerate (the output's specification reads `Nat`, `Int`, `Seq`: graded
under bounds instead). `soundness.classify` also needs every value to be the task's or the
output's own (`soundness.grader_chosen`); anything else is `undecided` (`own_run_limit`).
"""

from __future__ import annotations

import enum
from collections.abc import Iterable

NESTED_ERROR = 1000                 # an evaluation error, with the expression that failed
UNASSIGNED = frozenset({2102, 2109})  # Init or Next does not give every variable a value


class OwnRunError(enum.StrEnum):
    """What stopped the output's own run (`own_run_error` in the record)."""

    DEFINITIONS = "definitions"           #: an evaluation error in the output's definitions
    NO_INITIAL_STATE = "no_initial_state"  #: no initial state under the constants
    DEADLOCK = "deadlock"                 #: a stuck state, where R's model checks deadlock
    UNASSIGNED_STATE = "unassigned_state"  #: a variable Init or Next leaves without a value
    OTHER = "other"                       #: any other verdict (a cfg binding, a parse error)

    @property
    def decides(self) -> bool:
        return self in (OwnRunError.DEFINITIONS, OwnRunError.NO_INITIAL_STATE,
                        OwnRunError.DEADLOCK)


def own_run_error(verdict: str, codes: Iterable[int]) -> OwnRunError:
    """What stopped the run, from its verdict and TLC's message codes (never its text)."""
    found = set(codes)
    if verdict == "vacuous":
        return OwnRunError.NO_INITIAL_STATE
    if verdict == "deadlock":  # TLC checks it only where R's model does (its flags)
        return OwnRunError.DEADLOCK
    if verdict != "eval_error":
        return OwnRunError.OTHER
    if found & UNASSIGNED:
        return OwnRunError.UNASSIGNED_STATE
    return OwnRunError.DEFINITIONS if NESTED_ERROR in found else OwnRunError.OTHER
