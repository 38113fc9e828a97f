"""Constants the reference hard-codes, paired by role: the value an output constant takes
where the output's Init writes it in the place the reference's Init writes a literal.

An output variable named as a reference variable is that variable (named observables), and
both directions of refinement make the output's initial states the reference's. Where the
output's Init has a conjunct `u = C` (or `v \\in lo .. C`) for such a variable, and the
reference's Init the conjunct `u = 24` (or `v \\in lo .. 50`, the same `lo`) for the variable
of that name, the constant C holds, in the output's instance meant to be the reference's, the
literal the reference writes there: its role is that literal's (a number stands for itself,
as in the grammar). The plan pairs so only a constant the output's own ASSUME names (it says
the constant is data, `ASSUME InitU \\in Nat`); a token-like constant nothing describes that
happens to be right at the reference's literal is a guess (`test_soundness`'s degenerate
controls). `forced_by_init` finds such pairs in the top-level conjuncts of the two
Inits; anything else (a conjunct under a disjunction, two constants in one place, another
shape) pairs nothing.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from tlc_harness.behavior.graph_engine.constant_values import is_literal
from tlc_harness.source.formulas import conjunction_items, top_definitions

_EQUAL = re.compile(r"(\w+)\s*=\s*(.+)", re.S)
_MEMBER = re.compile(r"(\w+)\s*\\in\s*(.+?)\s*\.\.\s*(.+)", re.S)


def init_conjuncts(files: Mapping[str, str], init: str | None) -> dict[tuple[str, str], str]:
    """(variable lowered, `=` or `..` with its lower end) -> the right-hand side, for each
    top-level conjunct of `init` that gives one variable a value or a range."""
    defs = top_definitions(files)
    if init is None or init not in defs:
        return {}
    body, src, arity = defs[init]
    if arity:
        return {}
    found: dict[tuple[str, str], str] = {}
    for item in conjunction_items(body):
        text = " ".join(src[item.start_byte:item.end_byte].decode("utf-8").split())
        if member := _MEMBER.fullmatch(text):
            key = (member.group(1).lower(), f".. {member.group(2)}")
            found[key] = member.group(3).strip()
        elif equal := _EQUAL.fullmatch(text):
            if "\\in" not in equal.group(2) and "=" not in equal.group(2):
                found[(equal.group(1).lower(), "=")] = equal.group(2).strip()
    return found


def forced_by_init(out_files: Mapping[str, str], out_init: str | None,
                   ref_files: Mapping[str, str], ref_init: str | None,
                   constants: set[str], variables: set[str]) -> dict[str, str]:
    """Output constant -> the literal the reference's Init writes in its place (see the
    module); `constants`: the output's constants free to pair this way, `variables`: the
    reference's variables (lowered) the output names."""
    ours = init_conjuncts(out_files, out_init)
    theirs = init_conjuncts(ref_files, ref_init)
    found: dict[str, str] = {}
    clash: set[str] = set()
    for key, rhs in ours.items():
        if rhs not in constants or key[0] not in variables or key not in theirs:
            continue
        literal = theirs[key]
        if not is_literal(literal):
            continue
        if rhs in found and found[rhs] != literal:
            clash.add(rhs)
        found[rhs] = literal
    return {c: v for c, v in found.items() if c not in clash}
