"""The prompt a model sees: one template, its hash recorded in every run header."""

from __future__ import annotations

import hashlib

PROMPT_TEMPLATE = """\
Write a TLA+ specification of the system described below.

Answer with one complete TLA+ module, from its `---- MODULE Name ----` header to its `====`
footer. Define the initial-state predicate `Init`, the next-state relation `Next`, and the
specification `Spec` (`Init /\\ [][Next]_vars` plus any fairness conditions the description
calls for), and define every safety, liveness and fairness property the description mentions
as a named operator. Use only the standard modules (Naturals, Integers, Sequences, FiniteSets,
Bags, TLC).

Description:

{description}
"""


def render_prompt(description: str | None) -> str:
    """The prompt for one variant's description."""
    return PROMPT_TEMPLATE.format(description=(description or "").strip())


def template_hash() -> str:
    return hashlib.sha256(PROMPT_TEMPLATE.encode()).hexdigest()[:16]
