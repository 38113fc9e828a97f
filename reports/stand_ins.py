"""Outputs that are not a language model's: the bundled demo data, the scripted test double and
the reference model. A report or summary of them says so, so that it never reads as a result."""

from __future__ import annotations

from collections.abc import Iterable

#: model kind (the part of `--alias-model` before `:`) -> what its outputs are
STAND_INS = {
    "demo": "the bundled demo outputs (recorded once, for trying ALIAS offline)",
    "scripted": "the scripted test double (canned replies, for tests and walkthroughs)",
    "reference": "the references themselves (every output is the task's own reference; "
                 "`reference:distinct` adds a comment naming the sample)",
}


def stand_in(model: str) -> str | None:
    """What the outputs of `model` are, when they are not a language model's (else None)."""
    return STAND_INS.get(model.partition(":")[0])


def stand_in_note(models: Iterable[str]) -> str | None:
    """One sentence naming the stand-in models among `models` (None: there is none)."""
    found = sorted({m for m in models if stand_in(m)})
    if not found:
        return None
    parts = "; ".join(f"{m}: {stand_in(m)}" for m in found)
    return f"Not a language model's outputs: {parts}. These numbers are not a result."
