"""The output's own TLC run in the graph engine: its cfg under the reference's values, and its
state budget."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from tlc_harness.behavior.graph_engine.constant_values import carried_overrides
from tlc_harness.behavior.staging import (
    CfgValues,
    Reference,
    Staged,
    out_name,
    out_value_override,
    outside_values,
    value_overrides,
)
from tlc_harness.source.cfg import ModelConfig

OUTPUT_FACTOR = 20        # an output may have this many times the reference's states (at least
OUTPUT_FLOOR = 5_000      # this many) before its graph counts as too large for this engine,
OUTPUT_CAP = 4            # and at most this many times the budget (outputs often carry more
                          # state than the reference: a flag beside a value it overwrites)
#: what a cfg can hold as a constant's value: model values, numbers, strings, sets of them
_CFG_VALUE = re.compile(r'(?:[\w"{}, ]|-(?=\d))*')


@dataclass(frozen=True)
class OutputModel:
    """The model the output's graph is explored under: a cfg and the definitions it needs
    (values a cfg cannot hold, `AliasVal_N == 1..3`, and carried overrides)."""

    cfg: ModelConfig
    definitions: tuple[str, ...]


def output_model(ref: Reference, staged: Staged, values: CfgValues,
                 const_map: dict[str, str]) -> OutputModel:
    """The output's model with R's values for its constants (`const_map`: output constant ->
    the name of its value among `values.literals`), R's cfg values of definitions the output
    shares, R's bounding overrides (`Nat <- NatOverride`), and a model value for each value
    chosen outside a set (`None == CHOOSE v : v \\notin S`)."""
    constants, overrides, definitions = [], [], []
    for g, r in const_map.items():
        text = values.literals[r]
        if _CFG_VALUE.fullmatch(text.strip()):
            constants.append((g, text))
        else:  # a value a cfg cannot hold goes through a definition
            definitions.append(f"AliasVal_{g} == {text}")
            overrides.append((g, f"AliasVal_{g}"))
    for name, value, home in value_overrides(ref, staged):
        entry = out_value_override(ref, staged, name, value, home, qualify=True)
        if entry and entry[0] not in const_map:  # R's cfg gives a definition a value
            constants.append(entry)
    for name, text in carried_overrides(ref, staged, values).items():
        definitions.append(f"AliasOvr_{name} == {text}")  # `Nat <- NatOverride`, bounded
        overrides.append((name, f"AliasOvr_{name}"))
    given = {name for name, _ in constants}
    constants += [(name, name) for name in outside_values(staged.out_files)
                  if name not in given]  # `None == CHOOSE v : v \notin S`: a model value
    cfg = ModelConfig(constants=tuple(constants), overrides=tuple(overrides),
                      specification=staged.out_spec,
                      init=None if staged.out_spec else staged.out_init,
                      next=None if staged.out_spec else staged.out_next)
    return OutputModel(cfg, tuple(definitions))


def output_budget(ref_states: int, budget: int) -> int:
    """The distinct states the output's graph may have: `OUTPUT_FACTOR` times the reference's
    (at least `OUTPUT_FLOOR`), at most `OUTPUT_CAP` times the engine's budget."""
    return min(OUTPUT_CAP * budget, max(OUTPUT_FACTOR * ref_states, OUTPUT_FLOOR))


def uncarried_overrides(ref: Reference, staged: Staged, values: CfgValues) -> list[str]:
    """The reference's names its cfg gives by definition (`Op <- Def`, `Op <- [M]Def`, and
    `Op = v` for an operator its modules write) that the output's own run does not carry:
    a grade on that run alone leaves them out. (A name the reference's modules never write,
    such as `r1 = r1` beside `Replicas = {r1, ...}`, only names a model value.) A name the
    output never writes is not one of them: its run has nothing the override could act on,
    the reference's graph is explored under the reference's cfg, and the confirming wrapper
    carries the override into the reference's instance (`Faded = Faded` for the reference's
    `Faded == CHOOSE c : c \notin Color`, where the output keeps a flag of its own)."""
    carried = carried_overrides(ref, staged, values)
    found = {*(n for n in values.via_ref if out_name(ref, staged, n) not in carried),
             *(n for n, _ in values.qualified),
             *(n for n, _, _ in value_overrides(ref, staged) if _written(ref.files, n))}
    return sorted(n for n in found if _written(staged.out_files, out_name(ref, staged, n) or n))


def _written(files: Mapping[str, str], name: str) -> bool:
    """Whether a reference module writes `name` anywhere."""
    word = re.compile(rf"\b{re.escape(name)}\b")
    return any(word.search(text) for file, text in files.items() if file.endswith(".tla"))
