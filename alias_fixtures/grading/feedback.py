"""What a model is told after a turn whose output fails: only what a TLA+ user would see of
their own module, never the reference.

Feedback is built from the parse and name grades of the output alone (SANY's errors; TLC's
result on the output with the task's cfg), at named levels a study switches on or off:

- `parse`: the reply has no module, or SANY's errors on it;
- `tlc`: TLC's verdict on the output with the task's model (a deadlock, a violated invariant
  or property the output defines, an evaluation error, no initial state) and TLC's trace of
  the output's own states; a cfg binding TLC cannot make is *not* reported at this level (it
  would point at a name the model was never shown);
- `names`: the names the task's cfg needs that the output does not define, of those the
  description states (a hidden name, which the description never states, is never named).

The behavior grade's verdict, witness and mapping, the reference's text, states and names are
never part of it: `feedback_for` does not receive them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from alias_fixtures.grading.grade import CaseGrades

#: the feedback levels, in the order their findings are shown
LEVELS: tuple[str, ...] = ("parse", "tlc", "names")
MAX_ERRORS = 5          # SANY errors shown
MAX_TRACE_STATES = 12   # states of TLC's trace shown (the last ones, where it breaks)
_TLC_SAYS = {
    "deadlock": "TLC reached a deadlock: a state with no next state",
    "invariant_violated": "TLC found an invariant violated",
    "property_violated": "TLC found a property violated",
    "eval_error": "TLC stopped at an evaluation error",
    "assumption_failed": "an ASSUME of your module is false under the task's constants",
}
_EXTRACTION = {
    "no_module": "Your reply contains no TLA+ module (`---- MODULE Name ----` ... `====`).",
    "empty": "Your reply is empty.",
    "too_large": "Your reply is too large to be checked.",
}


@dataclass(frozen=True)
class Feedback:
    """The text a model is given, and which levels' findings it holds."""

    text: str
    levels: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {"text": self.text, "levels": list(self.levels)}


def parse_levels(text: str) -> tuple[str, ...]:
    """`parse,tlc,names` (any order, any subset; `none` for no feedback) as levels in their
    order; raises ValueError naming an unknown level."""
    asked = [t.strip() for t in text.split(",") if t.strip()]
    if asked == ["none"]:
        return ()
    unknown = [t for t in asked if t not in LEVELS]
    if unknown:
        raise ValueError(f"unknown feedback level(s) {', '.join(unknown)}: choose from "
                         f"{', '.join(LEVELS)} (or none)")
    return tuple(level for level in LEVELS if level in asked)


def feedback_for(grades: CaseGrades, levels: Iterable[str]) -> Feedback:
    """The feedback on one failed turn's grades at `levels` (see the module's docstring)."""
    wanted = set(levels)
    parts: list[str] = []
    shown: list[str] = []
    parse = grades.parse
    if parse.verdict in _EXTRACTION:
        if "parse" in wanted:
            parts.append(_EXTRACTION[parse.verdict])
            shown.append("parse")
        return Feedback("\n\n".join(parts), tuple(shown))
    if parse.verdict == "forbidden_import":
        if "parse" in wanted:
            parts.append(f"{parse.reason}: those modules are not available; write the "
                         f"specification in your own module.")
            shown.append("parse")
        return Feedback("\n\n".join(parts), tuple(shown))
    if not parse.passed:
        if "parse" in wanted:
            errors = [str(e) for e in parse.details.get("errors", [])][:MAX_ERRORS]
            listed = "\n".join(f"- {e}" for e in errors) or f"- {parse.reason}"
            parts.append(f"SANY cannot parse your module:\n{listed}")
            shown.append("parse")
        return Feedback("\n\n".join(parts), tuple(shown))
    name = grades.name
    if "tlc" in wanted:
        said = _tlc_text(name.verdict, name.reason, name.details)
        if said:
            parts.append(said)
            shown.append("tlc")
    if "names" in wanted:
        missing = _stated_missing(name.details)
        if missing:
            parts.append("The task's model refers to names the description states and your "
                         f"module does not define: {', '.join(missing)}.")
            shown.append("names")
    return Feedback("\n\n".join(parts), tuple(shown))


def _tlc_text(verdict: str, reason: str, details: Mapping[str, Any]) -> str | None:
    """TLC's result on the output with the task's cfg, in a user's words (None: nothing to
    say at this level: the grade was not run, or TLC could not bind the cfg)."""
    if verdict in ("not_run", "config_bind_fail", "parse_error", "infra_error", "timeout",
                   "resource_limit"):
        return None
    if verdict == "ok":
        if details.get("vacuous"):
            return "TLC found no initial state: your Init admits no state."
        return "TLC checked your module with the task's model and found no error."
    head = _TLC_SAYS.get(verdict, f"TLC reports {verdict.replace('_', ' ')}")
    violated = details.get("violated")
    text = f"{head}{f': {violated}' if violated else ''}."
    trace = _trace_text(details.get("trace") or ())
    return f"{text}\n{trace}" if trace else text


def _trace_text(states: Sequence[Mapping[str, Any]]) -> str:
    if not states:
        return ""
    kept = list(states)[-MAX_TRACE_STATES:]
    last = f", the last {len(kept)} shown" if len(kept) < len(states) else ""
    lines = [f"TLC's trace ({len(states)} states{last}):"]
    for state in kept:
        lines.append(f"State {state.get('number', '?')}: {state.get('action', '')}".rstrip())
        values = state.get("variables") or {}
        lines.extend(f"  /\\ {var} = {value}" for var, value in values.items())
    return "\n".join(lines)


def _stated_missing(details: Mapping[str, Any]) -> list[str]:
    hidden = set(details.get("missing_hidden") or ())
    return [m for m in details.get("missing_names") or () if m not in hidden]
