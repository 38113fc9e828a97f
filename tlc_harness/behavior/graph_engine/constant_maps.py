"""The values an output's constants take in the graph engine, likeliest first, and which of
them are the grader's guesses (a failure under a guess may be the guess's fault, not the
output's)."""

from __future__ import annotations

import itertools
import math
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import partial
from typing import Any

from tlc_harness.behavior.graph_engine.constant_values import (
    GUESSED_NUMBERS,
    cardinalities,
    definition_counts,
    distinct_bases,
    is_literal,
    literal_definitions,
    literal_values,
    operator_functions,
    unused_constants,
)
from tlc_harness.behavior.graph_engine.initial_roles import forced_by_init
from tlc_harness.behavior.search import assignments, named_alike, used_alike, value_type
from tlc_harness.behavior.staging import CfgValues, Reference, Staged, formula_parts
from tlc_harness.behavior.verdicts import ValueSource
from tlc_harness.source.formulas import (
    assumed_equalities,
    assumed_memberships,
    assumed_names,
    instantiates,
    names_read,
)
from tlc_harness.source.identifiers import analyze_module

MAX_CONSTANT_MAPS = 3     # constant maps explored before giving up
MAX_BOOLEAN_CONSTANTS = 3  # BOOLEAN constants of the output whose values are all tried
MAX_SWEPT_CONSTANTS = 2    # guessed numeric constants whose values are all tried
MAX_SWEPT_VALUES = 6       # numbers tried for each
MAX_VARIANTS = 16          # constant maps per base map, past which fewer numbers are tried
MAX_ENUMERATED = 8         # numbers of a set an output's ASSUME bounds a constant to, all tried
#: the value of a constant the output declares and never uses
UNUSED = '"unused"'


@dataclass(frozen=True)
class ConstantPlan:
    """The constant maps of one grade (`groups`, likeliest first, each with its variants over
    the output's BOOLEAN constants and swept numbers; empty: no map exists), the reference's
    values they name (`values`), and what they fixed: which values are the reference's own and
    which output constants stand for what. Made by `plan_constants`."""

    groups: tuple[tuple[dict[str, str], ...], ...]
    values: CfgValues
    #: values an output constant takes as the reference's own: a reference constant (constants
    #: are paired as variables are), or a reference literal definition of the output
    #: constant's own name; any other value (another definition, a cardinality) is a guess
    ref_constants: frozenset[str] = frozenset()
    own_name_definitions: frozenset[str] = frozenset()
    #: (output constant, reference literal definition) pairs whose names say they are the
    #: same thing (`Colors` and `Color`, `search.named_alike`): the definition's value is
    #: the reference's own for that constant
    alike_definitions: frozenset[tuple[str, str]] = frozenset()
    #: reference definitions that name a count (`ChameneosID == 1 .. M`) -> that count
    #: (`1..M`): the definition's value is the count's, justified as the count is
    definition_counts: Mapping[str, str] = field(default_factory=dict)
    #: values the reference fixes for an output constant of one type, 1:1 -> that type: counts
    #: of its constants (`Cardinality(Procs)`, `1..N`) and PlusCal's set of processes `ProcSet`
    typed_values: Mapping[str, str] = field(default_factory=dict)
    out_types: Mapping[str, str] = field(default_factory=dict)
    #: output constants the output's specification never reads (an invariant's, a
    #: constraint's) and no ASSUME names: any value gives the same behaviors (`UNUSED`)
    unread: frozenset[str] = frozenset()
    #: output constants the specification never reads but an ASSUME names: paired or guessed
    #: as any other (their value must be one the ASSUME admits), and any admitted value gives
    #: the same behaviors, so their values are not guesses (`not_read`, `named_by_assume`)
    assumed_unread: frozenset[str] = frozenset()
    #: output constants used only as symbols, each a model value of its own name
    symbols: frozenset[str] = frozenset()
    #: numeric output constants where the reference has a model value: each number is tried
    standing: frozenset[str] = frozenset()
    #: the output's BOOLEAN constants that take TRUE and FALSE in turn
    booleans: tuple[str, ...] = ()
    #: the reference's BOOLEAN constants (cfg value TRUE or FALSE) whose roles they may play
    ref_booleans: Mapping[str, str] = field(default_factory=dict)
    #: output constants whose own ASSUME fixes their value (`ASSUME Hours = 1..12`)
    assumed: frozenset[str] = frozenset()
    #: output constants in the place of a literal of the reference's Init
    #: (`initial_roles.forced_by_init`: `u = InitU` where the reference has `u = 24`)
    by_role: frozenset[str] = frozenset()
    #: free numbers whose own ASSUME bounds them to a small set, every number of it swept
    enumerated: frozenset[str] = frozenset()
    #: (output constant, reference constant) pairs whose names say they are the same thing,
    #: and those whose uses do (`search.used_alike`)
    alike: frozenset[tuple[str, str]] = frozenset()
    used_alike: frozenset[tuple[str, str]] = frozenset()
    #: how many pairings of the output's constants with the reference's values exist (the
    #: plan keeps the likeliest `MAX_CONSTANT_MAPS` as `groups`)
    pairings: int = 1
    #: output constants the output's own ASSUMEs name (`ASSUME N \in Nat /\ N >= 2`): one
    #: that takes a count of the reference's is recorded `named_by_assume` (the output says
    #: it is a number, and TLC checks the ASSUME admits the count before its run goes on)
    assume_named: frozenset[str] = frozenset()

    def plays_roles(self, const_map: Mapping[str, str]) -> bool:
        """Whether the values `const_map` gives the output's BOOLEAN constants are those of
        reference BOOLEAN constants it pairs with no other output constant, each its own (a
        renamed parameter keeps the reference's value): an `ok` under them stands."""
        return _plays_roles(const_map, self.booleans, self.ref_booleans)

    def sources(self, const_map: Mapping[str, str], every_value: Sequence[str] = (),
                tried: Sequence[str] = ()) -> dict[str, dict[str, Any]]:
        """Each output constant of `const_map`: its value, what it was paired with (`from`)
        and the value's source (`ValueSource`); `every_value` names the constants whose every
        admissible value was graded with the same verdict, `tried` those of which a few
        values were."""
        guessed = set(self.guessed(const_map))
        found: dict[str, dict[str, Any]] = {}
        for g, r in const_map.items():
            if g in self.assumed_unread:
                source = ValueSource.NOT_READ
            elif g in every_value:
                source = ValueSource.EVERY_VALUE
            elif g in tried:
                source = ValueSource.VALUES_TRIED
            elif r == UNUSED:
                source = ValueSource.NOT_READ if g in self.unread else ValueSource.UNUSED
            elif g in self.assumed:
                source = ValueSource.OUTPUT_ASSUME
            elif g in self.by_role:
                source = ValueSource.REFERENCE_ROLE
            elif g in self.symbols:
                source = ValueSource.OPAQUE_TOKEN
            elif g in self.booleans and r in ("TRUE", "FALSE"):
                source = (ValueSource.BOOLEAN_ROLE if self.plays_roles(const_map)
                          else ValueSource.GUESSED)
            elif g in guessed or (g in self.standing and re.fullmatch(r"-?\d+", r)):
                # (a standing constant takes each number in turn, in the maps it stands in)
                source = ValueSource.GUESSED
            elif r in self.ref_constants:
                source = ValueSource.REFERENCE_CONSTANT
            elif (r == g and r in self.own_name_definitions) or (g, r) in self.alike_definitions:
                source = ValueSource.REFERENCE_DEFINITION
            else:
                source = ValueSource.REFERENCE_COUNT
            found[g] = {"value": self.values.literals.get(r, r).strip(), "from": r,
                        "source": source.value}
            if g in self.assumed_unread or (source is ValueSource.REFERENCE_COUNT
                                            and g in self.assume_named):
                found[g]["named_by_assume"] = True
            if (source is ValueSource.REFERENCE_CONSTANT and (g, r) in self.alike) or \
                    (source is ValueSource.REFERENCE_DEFINITION and (g, r) in self.alike_definitions):
                found[g]["named_alike"] = True
            if source is ValueSource.REFERENCE_CONSTANT and (g, r) in self.used_alike:
                found[g]["used_alike"] = True
        return found

    def guessed(self, const_map: Mapping[str, str]) -> list[str]:
        """The output constants of `const_map` whose values the reference does not fix: a
        value that is neither a reference constant's, a count of one (`Cardinality(Procs)`
        for a constant used as a number, `1..N` for one used as a set), the processes of a
        PlusCal reference (`ProcSet`, for a constant used as a set), nor the reference's
        definition of the constant's own name, or one given to other output constants too (a
        constant keeps its value only where the names agree). TRUE and FALSE are not guesses
        (each is tried), nor the value of a constant the output never uses, nor the model
        value a symbol takes (`symbol_constants`: any other would do as well)."""
        count = {r: self.definition_counts.get(r, r) for r in const_map.values()}
        shared = Counter(count.values())
        return sorted(g for g, r in const_map.items()
                      if r not in ("TRUE", "FALSE", UNUSED) and g not in self.symbols
                      and g not in self.assumed and g not in self.assumed_unread
                      and g not in self.by_role
                      and not (r == g and r in self.own_name_definitions)
                      and not ((g, r) in self.alike_definitions and shared[r] == 1)
                      and not (count[r] in self.typed_values and shared[count[r]] == 1
                               and self.out_types.get(g) == self.typed_values[count[r]]
                               and counted(count[r]) not in const_map.values())
                      and (r not in self.ref_constants or (shared[r] > 1 and r != g)))


def plan_constants(ref: Reference, staged: Staged, values: CfgValues) -> ConstantPlan:
    """Output constant -> value maps, likeliest first, each with its variants over the
    output's BOOLEAN constants.

    A value is named by a reference constant, a reference definition that is a literal
    once the reference's own constants have their cfg values (`MaxVal == 3`,
    `Node == 0 .. N-1` with `N = 3`), a count (`Cardinality(Procs)`), or a literal: every
    BOOLEAN constant not named as a reference constant takes TRUE and FALSE in turn, a
    constant the output never uses takes `UNUSED`, and a number the reference does not
    give is guessed (see `ConstantPlan.guessed`)."""
    out_consts, ref_consts = staged.out_shape.constants, staged.ref_shape.constants
    if not out_consts:
        return ConstantPlan(groups=(({},),), values=values)
    literals = dict(values.literals)
    out_types = staged.out_shape.types
    usable = tuple(c for c in ref_consts if c in literals)
    # an unused constant named as a reference constant keeps it (no other takes it)
    unused = unused_constants(staged.out_files, out_consts) - set(usable)
    # so does one the specification never reads (an invariant's bound): any value will do,
    # unless an ASSUME names it (that value must then be one the ASSUME admits)
    unread, assumed_unread = not_read_by_spec(staged)
    unread -= set(usable) | unused
    unused |= unread
    # a BOOLEAN constant named as a reference constant means it: it keeps its value
    types = dict(staged.ref_shape.types)
    booleans = tuple(c for c in out_consts if c not in unused and c not in usable
                     and out_types.get(c) == "bool")[:MAX_BOOLEAN_CONSTANTS]
    # each of these may play the role of a reference BOOLEAN constant (a renamed parameter):
    # values that are those of reference constants, one each, are tried first, and an `ok`
    # under them stands; a failure still needs every value to fail (the output may mean the
    # opposite)
    ref_booleans = {c: literals[c].strip() for c in usable if c not in out_consts
                    and literals[c].strip() in ("TRUE", "FALSE")}
    # a constant whose own ASSUME says its value (`ASSUME Hours = 1..12`) has that value
    # alone: it takes it, unless it is named as a reference constant (whose cfg value the
    # task's model gives it, and which the ASSUME then admits or rejects)
    said = assumed_equalities(staged.out_files)
    # (so does an ASSUME that puts it in a set of one number: `ASSUME N \in {3}`)
    said = {**{c: only for c, texts in assumed_memberships(staged.out_files).items()
               if (only := finite_numbers(texts)) is not None and len(only) == 1}, **said}
    assumed = {c: said[c][0] for c in out_consts if len(said.get(c, ())) == 1
               and c not in unused and c not in usable and c not in booleans
               and is_literal(said[c][0])}
    # a constant the output's Init writes where the reference's Init writes a literal, for a
    # variable of the same name (`u = InitU` for `u = 24`), holds that literal (by role),
    # where the output's own ASSUME names it (`ASSUME InitU \in Nat`: it says the constant
    # is data; a token-like constant nothing describes is no role, only a guess)
    assume_named = assumed_names(staged.out_files)
    named = {v.lower() for v in staged.out_shape.variables} & \
        {v.lower() for v in staged.ref_shape.variables}
    by_role = forced_by_init(
        staged.out_files, staged.out_init, ref.files, reference_init(ref),
        {c for c in out_consts if c not in unused and c not in usable and c not in booleans
         and c not in assumed and c in assume_named}, named)
    assumed.update(by_role)
    # a constant used only as a symbol (`Null`, a message kind, a vote) names a thing: a model
    # value of its own name, distinct from every other value (any distinct values give the
    # same behaviors up to renaming them), not a reference number it could collide with;
    # unless the reference has a constant or a definition of its name
    symbols = {c: c for c in out_consts if c in staged.out_shape.symbols and c not in usable
               and c not in unused and c not in assumed and c not in booleans
               and c not in staged.ref_shape.definitions and c not in ref_consts}
    paired = tuple(c for c in out_consts if c not in unused and c not in booleans
                   and c not in assumed and c not in symbols)
    roles = (staged.out_shape.roles, staged.ref_shape.roles)
    maps = assignments(paired, usable, out_types, types, by_meaning=True, roles=roles)
    targets = usable
    own_names: set[str] = set()
    typed_values: dict[str, str] = {}
    alike_definitions: set[tuple[str, str]] = set()
    counts_named: dict[str, str] = {}
    if not maps:
        fixed = literal_definitions(ref, set(ref_consts), literals)
        # an output constant function named as a reference operator is that operator
        fixed.update(operator_functions(ref, {**literal_values(literals, usable), **fixed},
                                        set(paired) - set(fixed)))
        # a symbol the reference has no value for is a model value of its own name
        symbols.update({c: c for c in paired if c in staged.out_shape.symbols
                        and c not in fixed and c not in literals})
        paired = tuple(c for c in paired if c not in symbols)
        own_names = set(fixed) & set(paired)
        # a literal definition whose name says it is an output constant's thing (`Color`
        # for `Colors`), or one that names a count (`ChameneosID == 1 .. M`)
        alike_definitions = {(g, d) for g, d in named_alike(paired, tuple(fixed))
                             if g not in own_names and d not in own_names
                             and d not in ref_consts}
        counts = cardinalities(literals, usable)
        counts_named = definition_counts(ref, tuple(fixed), counts)
        typed_values = {n: value_type(body) for n, body in counts.items()}
        if "ProcSet" in fixed and _is_pluscal(ref):  # the reference's processes
            typed_values["ProcSet"] = "set"
        fixed.update(counts)
        literals.update(fixed)
        types.update({name: value_type(body) for name, body in fixed.items()})
        targets = usable + tuple(fixed)
        maps = assignments(paired, targets, out_types, types, by_meaning=True, roles=roles)
    if not maps and any(out_types.get(c) == "int" for c in paired):
        literals.update({n: n for n in GUESSED_NUMBERS})
        types.update({n: "int" for n in GUESSED_NUMBERS})
        maps = assignments(paired, targets + GUESSED_NUMBERS, out_types, types, by_meaning=True)
    facts = partial(ConstantPlan, ref_constants=frozenset(usable),
                    assumed=frozenset(set(assumed) - set(by_role)), by_role=frozenset(by_role),
                    alike=frozenset(named_alike(out_consts, usable)),
                    used_alike=frozenset(used_alike(out_consts, usable, *roles, out_types,
                                                    dict(staged.ref_shape.types))),
                    own_name_definitions=frozenset(own_names), typed_values=typed_values,
                    alike_definitions=frozenset(alike_definitions),
                    definition_counts=counts_named,
                    out_types=out_types, symbols=frozenset(symbols),
                    unread=frozenset(unread), assumed_unread=frozenset(assumed_unread - unused),
                    assume_named=assume_named & frozenset(out_consts))
    if not maps:
        return facts(groups=(), values=replace(values, literals=literals))
    literals.update({"TRUE": "TRUE", "FALSE": "FALSE", UNUSED: UNUSED, **symbols})
    literals.update({value: value for value in assumed.values()})
    free = {**{c: UNUSED for c in unused}, **assumed}
    groups: list[tuple[dict[str, str], ...]] = []
    standing_all: set[str] = set()
    enumerated_all: set[str] = set()
    # a number whose own ASSUME puts it in a small literal set (`ASSUME N \in 1..3`) takes
    # every number of that set: a verdict under all of them holds for every admissible value
    bounded_to = {c: numbers for c, texts in assumed_memberships(staged.out_files).items()
                  if (numbers := finite_numbers(texts)) is not None and c not in assumed}
    model_values = ref.cfg.model_values()
    bases = distinct_bases(maps)
    for base in bases:
        # a number where the reference has a model value (the counter among numbered
        # prisoners) stands for it through the value translation: any number may. Not a
        # constant paired with the reference constant of its own name: that is the
        # reference's constant, and the task's model gives it the model value (its uses
        # only suggest a number: a variable may hold the model value and numbers in turn,
        # as PlusCal's `defaultInitValue`); a number there would be a value the reference
        # never runs under, and may collide with the data
        standing = {g for g, r in base.items() if out_types.get(g) == "int" and g != r
                    and literals[r].strip() in model_values}
        standing_all |= standing
        swept = [g for g, r in base.items() if r in GUESSED_NUMBERS or g in standing]
        swept = swept[:MAX_SWEPT_CONSTANTS]
        numbers = swept_numbers(ref, literals) if swept else ()
        enumerated = [g for g in swept if g not in standing and g in bounded_to]
        sizes = [len(bounded_to[g]) if g in enumerated else len(numbers) for g in swept]
        if 2 ** len(booleans) * math.prod(sizes) > MAX_VARIANTS * (2 if enumerated else 1):
            # every boolean value stays; one constant, fewer numbers (each still tried for
            # all of them), all of its ASSUME's set if it has one
            swept = swept[:1]
            enumerated = enumerated[:1] if swept and swept[0] in enumerated else []
            numbers = numbers[:max(2, MAX_VARIANTS // 2 ** len(booleans))]
        each = {g: bounded_to[g] if g in enumerated else numbers for g in swept}
        literals.update({n: n for ns in each.values() for n in ns})
        enumerated_all |= set(enumerated)
        choices = [*[("TRUE", "FALSE")] * len(booleans), *[each[g] for g in swept]]
        variants = [{**base, **free, **symbols, **dict(zip((*booleans, *swept), choice,
                                                           strict=True))}
                    for choice in itertools.product(*choices)]
        # values the reference's own constants give come first (a stable sort)
        groups.append(tuple(sorted(variants, key=lambda m: not _plays_roles(
            m, booleans, ref_booleans))))
        if len(groups) == MAX_CONSTANT_MAPS:
            break
    return facts(groups=tuple(groups), values=replace(values, literals=literals),
                 standing=frozenset(standing_all), enumerated=frozenset(enumerated_all),
                 booleans=booleans,
                 ref_booleans=ref_booleans, pairings=len(bases))


def not_read_by_spec(staged: Staged) -> tuple[set[str], set[str]]:
    """The output's constants its specification (the formula TLC runs, its Init and Next,
    and the definitions they use) never reads: a constant only an invariant or a constraint
    of the output's own uses; those no ASSUME names either, and those an ASSUME names. None
    where a module instantiates another of the output's (an instance's operators are not
    followed)."""
    read = read_by(staged, tuple(r for r in (staged.out_spec, staged.out_init,
                                              staged.out_next) if r))
    assumed = assumed_names(staged.out_files)
    unread = {c for c in staged.out_shape.constants if c not in read}
    return unread - assumed, unread & assumed


def read_by(staged: Staged, roots: tuple[str, ...]) -> frozenset[str]:
    """The output's names the definitions `roots` read, followed through its definitions;
    every one of its constants as well where a module instantiates another of the output's
    (an instance's operators are not followed)."""
    read = names_read(staged.out_files, roots)
    if instantiates(staged.out_files):
        return read | frozenset(staged.out_shape.constants)
    return read


def swept_numbers(ref: Reference, literals: Mapping[str, str]) -> tuple[str, ...]:
    """The numbers a constant the reference has no value for takes in turn: 0 to 3 and the
    reference's own small numbers (its cfg's, and the literals of its modules), at most
    `MAX_SWEPT_VALUES`, smallest first."""
    found = {0, 1, 2, 3}
    for value in literals.values():
        if re.fullmatch(r"\s*\d+\s*", value) and int(value) <= 20:
            found.add(int(value))
    for text in ref.files.values():
        code = re.sub(r'\(\*.*?\*\)|\\\*[^\n]*|"[^"\n]*"', " ", text, flags=re.S)
        found.update(int(n) for n in re.findall(r"(?<![\w.])\d(?![\w.])", code))
    small = sorted(found)[:MAX_SWEPT_VALUES]
    return tuple(str(n) for n in small)


def finite_numbers(sets: Sequence[str]) -> tuple[str, ...] | None:
    """The numbers every literal set of `sets` holds (`1..3`, `{0, 2}`; other sets, such as
    `Nat` or a constant, only narrow what the ASSUME admits further, which its run checks),
    smallest first; None without a literal set or with more than `MAX_ENUMERATED` numbers."""
    held: set[int] | None = None
    for text in sets:
        span = re.fullmatch(r"\(?\s*(-?\d+)\s*\.\.\s*(-?\d+)\s*\)?", text)
        listed = re.fullmatch(r"\{\s*(-?\d+(?:\s*,\s*-?\d+)*)?\s*\}", text)
        if span and int(span.group(2)) - int(span.group(1)) < 10 * MAX_ENUMERATED:
            numbers = set(range(int(span.group(1)), int(span.group(2)) + 1))
        elif listed:
            numbers = {int(n) for n in re.findall(r"-?\d+", listed.group(1) or "")}
        else:
            continue
        held = numbers if held is None else held & numbers
    if held is None or not held or len(held) > MAX_ENUMERATED:
        return None
    return tuple(str(n) for n in sorted(held))


def counted(value: str) -> str | None:
    """The reference constant a count names (`Cardinality(Procs)`, `1..N`): an output constant
    takes it only where no other output constant stands for that reference constant itself
    (an output with both `Procs` and `N` counts something else with `N`)."""
    hit = re.fullmatch(r"Cardinality\((\w+)\)|1\.\.(\w+)", value)
    return (hit.group(1) or hit.group(2)) if hit else None


def _plays_roles(const_map: Mapping[str, str], booleans: tuple[str, ...],
                 ref_booleans: Mapping[str, str]) -> bool:
    """Whether the output `booleans`' values in `const_map` can be matched one to one with
    values of reference BOOLEAN constants that no output constant is paired with."""
    if not booleans:
        return False
    free = Counter(v for r, v in ref_booleans.items() if r not in const_map.values())
    return not Counter(const_map[b] for b in booleans) - free


def reference_init(ref: Reference) -> str | None:
    """The name of the reference's initial predicate: its cfg's INIT, or the one its
    SPECIFICATION formula names (`Spec == Init /\\ [][Next]_vars`)."""
    if ref.cfg.init:
        return ref.cfg.init
    if ref.cfg.specification:
        parts = formula_parts("\n".join(ref.files.values()), ref.cfg.specification)
        return parts[0] if parts else None
    return None


def _is_pluscal(ref: Reference) -> bool:
    return any(analyze_module(text).has_pluscal for name, text in ref.files.items()
               if name.endswith(".tla"))
