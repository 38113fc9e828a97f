"""Which of TLC's drawing operators a spec uses, read from its tokens (not its comments).

`RandomElement` (module TLC) and module Randomization's operators draw a value each time TLC
evaluates them. The 2020 jar (TLC 2.15) draws them from a generator seeded by TLC's `-seed`
combined with the fingerprint of the state being explored, and fingerprints depend on the
fingerprint polynomial TLC picks at random in each run (`-fp`, "Running ... with fp 13 and
seed 0"): `-seed` alone does not make two runs draw alike, `-seed` with `-fp` does
(docs/harness.md, "Specs that draw values"). The harness fixes `-fp` for the specs this
module finds drawing (`runner.HarnessSettings.tlc_fp`).

`JavaTime`, and `TLCGet("duration")`, read the clock: no TLC option repeats them, and they are
not listed here.
"""

from __future__ import annotations

from collections.abc import Mapping

from tlc_harness.source.tokens import tla_tokens

#: TLC's operators whose value is drawn at random in each evaluation (module TLC's
#: RandomElement, module Randomization's; the last two are newer jars' names)
DRAWING_OPERATORS = frozenset({"RandomElement", "RandomSubset", "RandomSetOfSubsets",
                               "TestRandomSetOfSubsets", "RandomSubsetSet", "TestRandomSubset"})


def drawn_operators(files: Mapping[str, str]) -> tuple[str, ...]:
    """The drawing operators the `.tla` files name outside comments and strings, sorted.

    A module's own operator of such a name counts too: fixing TLC's draws for a spec that
    makes none changes nothing."""
    found: set[str] = set()
    for name, text in files.items():
        if name.endswith(".tla") and any(op in text for op in DRAWING_OPERATORS):
            found.update(DRAWING_OPERATORS.intersection(tla_tokens(text, comments=False)))
    return tuple(sorted(found))
