"""One turn of the feedback track: an output's grades, the cheat rules on it, whether the turn
passed, and the feedback the model gets when it did not.

A turn passes when its primary grade passed and no cheat rule fired; a cheat is recorded as
the turn's reason, never a pass. The feedback is :func:`feedback_for` at the run's levels
plus, when any level is on, one line per cheat finding (each names only the output's own
definitions). The trace states the feedback showed are kept so the next turn's output can be
checked for copying them (`copied_trace`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from alias_fixtures.grading.cheats import CHEAT_RULES, CheatFinding, OutputUnderCheck, find_cheats
from alias_fixtures.grading.extract import extract_module
from alias_fixtures.grading.feedback import MAX_TRACE_STATES, Feedback, feedback_for
from alias_fixtures.grading.grade import CaseGrades, own_modules
from alias_fixtures.tasks.variants import Variant

TraceStates = tuple[Mapping[str, str], ...]
_MEANING = {name: rule.meaning for name, rule in CHEAT_RULES.items()}


def cheats_in(variant: Variant, reply: str, shown_trace: TraceStates = ()) -> tuple[CheatFinding, ...]:
    """The cheat rules that fire on a reply's module (none when it has no module)."""
    extraction = extract_module(reply)
    if not extraction.ok or extraction.text is None or extraction.module_name is None:
        return ()
    name = extraction.module_name
    files = {f"{name}.tla": extraction.text,
             **{f"{m}.tla": t for m, t in own_modules(extraction.text,
                                                       extraction.other_modules).items()}}
    return tuple(find_cheats(OutputUnderCheck(files, name, variant.main_module, variant.cfg,
                                              shown_trace)))


def failure_reason(grades: Mapping[str, Any], primary: str) -> str:
    """Why recorded grades fail ('' when the primary grade passed): the first failing of the
    parse and primary grades, as `grade: verdict: reason`, at most 300 characters."""
    if grades.get(primary, {}).get("passed"):
        return ""
    failing = next((g for g in ("parse", primary) if not grades.get(g, {}).get("passed")),
                   primary)
    detail = grades.get(failing, {})
    reason = f"{failing}: {detail.get('verdict')}"
    if detail.get("reason"):
        reason += f": {detail['reason']}"
    return reason[:300]


@dataclass(frozen=True)
class TurnCheck:
    """One turn's grades and cheat findings, judged by the run's primary grade."""

    grades: CaseGrades
    cheats: tuple[CheatFinding, ...]
    primary: str

    @property
    def passed(self) -> bool:
        return bool(self.grades.to_json().get(self.primary, {}).get("passed")) and not self.cheats

    @property
    def reason(self) -> str:
        """Why the turn failed ('' when it passed): a cheat first, then the first failing of
        the parse and primary grades, as `grade: verdict: reason`."""
        if self.cheats:
            return "cheat: " + "; ".join(f"{c.rule}: {c.detail}" for c in self.cheats)[:300]
        return failure_reason(self.grades.to_json(), self.primary)

    def to_json(self) -> dict[str, Any]:
        return {"cheats": [c.to_json() for c in self.cheats], "passed": self.passed,
                "reason": self.reason}


def feedback_after(check: TurnCheck, levels: Iterable[str]) -> Feedback:
    """What the model is told after a failed turn (see the module's docstring)."""
    wanted = tuple(levels)
    said = feedback_for(check.grades, wanted)
    if not wanted or not check.cheats:
        return said
    lines = [f"- {_MEANING.get(c.rule, c.rule)} ({c.detail})" for c in check.cheats]
    cheat_text = "Your module is rejected, whatever TLC says:\n" + "\n".join(lines)
    text = f"{said.text}\n\n{cheat_text}" if said.text else cheat_text
    return Feedback(text, said.levels)


def shown_trace(check: TurnCheck, feedback: Feedback) -> TraceStates:
    """The states of TLC's trace that `feedback` showed (variable -> value text)."""
    if "tlc" not in feedback.levels:
        return ()
    trace = check.grades.name.details.get("trace") or ()
    return tuple({str(k): str(v) for k, v in (state.get("variables") or {}).items()}
                 for state in list(trace)[-MAX_TRACE_STATES:])
