"""Replay a counterexample with TLC: is this sequence of states a behavior of the spec?

A forward failure shows a behavior of the output: states from TLC's own dump of the output's
graph, under the constants' values the verdict rests on. Replaying it asks TLC again, on the
output alone: a wrapper module follows the states one by one, each step through the output's
own `Next` (`AliasNext == aliasStep < Len(AliasTrace) /\\ Next /\\ vars' = AliasTrace[...]`),
and an invariant says the last state is never reached. TLC reaching it (the invariant
violated, after as many states as the witness has) is the proof that the output takes
exactly those steps; no violation means the witness is not the output's behavior.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from tlc_harness.behavior.values import ModelValue, Value, atoms, to_tla
from tlc_harness.source.cfg import ModelConfig
from tlc_harness.tools.results import Verdict
from tlc_harness.tools.runner import Harness
from tlc_harness.tools.spec import SpecSource

REPLAY = "AliasReplay"
STEP = "aliasStep"


@dataclass(frozen=True)
class Replay:
    """TLC's answer: `replayed` True (the states are a behavior), False (they are not), or
    None (TLC could not tell: an error or a limit), with what it said."""

    replayed: bool | None
    detail: str = ""
    seconds: float = 0.0


def replay_module(main: str, variables: Sequence[str], states: Sequence[Sequence[Value]],
                  init: str, next_: str, definitions: Sequence[str] = (),
                  model_values: Sequence[str] = ()) -> str:
    """The wrapper module that follows `states` from `init` through `next_`, declaring the
    `model_values` the states hold that the spec does not declare (the cfg gives each its own
    name)."""
    tuple_of = f"<<{', '.join(variables)}>>"
    rows = ",\n    ".join("<<" + ", ".join(to_tla(v) for v in s) + ">>" for s in states)
    return "\n".join([
        f"---- MODULE {REPLAY} ----", f"EXTENDS {main}",
        "LOCAL INSTANCE Naturals", "LOCAL INSTANCE Sequences", f"VARIABLE {STEP}",
        *([f"CONSTANTS {', '.join(model_values)}"] if model_values else []), *definitions,
        f"AliasTrace == <<\n    {rows}>>",
        f"AliasInit == {init} /\\ {STEP} = 1 /\\ {tuple_of} = AliasTrace[1]",
        f"AliasNext == /\\ {STEP} < Len(AliasTrace)",
        f"             /\\ {next_}",
        f"             /\\ {tuple_of}' = AliasTrace[{STEP} + 1]",
        f"             /\\ {STEP}' = {STEP} + 1",
        f"AliasNotDone == {STEP} < Len(AliasTrace)",
        "====", ""])


def undeclared(cfg: ModelConfig, states: Sequence[Sequence[Value]]) -> list[str]:
    """The model values the states hold that no constant of the cfg names (`p1` of
    `Procs = {p1, p2}`): the replay declares them, each its own model value."""
    given = {name for name, _ in cfg.constants}
    return sorted({a.name for s in states for v in s for a in atoms(v)
                   if isinstance(a, ModelValue)} - given)


def replay_cfg(cfg: ModelConfig, held: Sequence[str]) -> ModelConfig:
    """The output's cfg (its constants and overrides) checking the replay, the model values
    `held` given their own names."""
    return replace(cfg, constants=(*cfg.constants, *((m, m) for m in held)), init="AliasInit",
                   next="AliasNext", specification=None, invariants=("AliasNotDone",),
                   properties=(), constraints=(), action_constraints=(), symmetry=None,
                   view=None, alias=None, postconditions=(), possible=(), periodic=(),
                   check_deadlock=False)


def replay(harness: Harness, spec: SpecSource, cfg: ModelConfig, variables: Sequence[str],
           states: Sequence[Sequence[Value]], init: str, next_: str, *,
           definitions: Sequence[str] = (), timeout: float | None = None) -> Replay:
    """Whether `states` (in `variables` order) are a behavior of `spec` from `init` through
    `next_` under `cfg`'s constants (`definitions`: what its overrides name)."""
    if not states:
        return Replay(None, "no states to replay")
    held = undeclared(cfg, states)
    module = replay_module(spec.main, variables, states, init, next_, definitions, held)
    files = {**spec.files, f"{REPLAY}.tla": module}
    result = harness.check(SpecSource(REPLAY, files), replay_cfg(cfg, held),
                           timeout=timeout, compat=True)
    if result.verdict is Verdict.INVARIANT_VIOLATED:
        steps = len(result.trace) if result.trace else None
        if steps in (None, len(states)):
            return Replay(True, f"TLC follows the {len(states)} states", result.seconds)
        return Replay(None, f"TLC stops after {steps} of {len(states)} states", result.seconds)
    if result.verdict is Verdict.OK:
        return Replay(False, f"TLC cannot follow the {len(states)} states from the initial "
                      f"predicate through the next-state action", result.seconds)
    return Replay(None, f"{result.verdict.value}: {(result.violated or result.detail)[:200]}",
                  result.seconds)
