"""The wrapper modules through which TLC checks a mapping, and how their results read.

Forward (`forward_wrapper`): run the output G with R's constants mapped and check R's
specification formula, invariants and properties through a module that EXTENDS G and has a
*named* INSTANCE of R with the mapping. Reverse (`reverse_wrapper`): run R with its own cfg and
check `G!Init /\\ [][G!Next]_v` through a module that EXTENDS R and instances G with the
inverse mapping. SYMMETRY and VIEW of R's cfg are dropped; R's CONSTRAINTs apply to G's run.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from tlc_harness.behavior.search import Candidate
from tlc_harness.behavior.staging import (
    GRADER_MODEL_VALUE,
    IDENT,
    CfgValues,
    Reference,
    Staged,
    constant_values,
    definition_arity,
    out_module,
    out_name,
    out_value_override,
    outside_values,
    safety_parts,
    stage_output,
    value_overrides,
)
from tlc_harness.source.cfg import ModelConfig, format_cfg
from tlc_harness.source.formulas import Conjunct
from tlc_harness.tools.results import CheckResult
from tlc_harness.tools.spec import SpecSource

FORWARD = "AliasForward"
REVERSE = "AliasReverse"
REF_INSTANCE = "AliasRef"
OUT_INSTANCE = "AliasOutInst"
LIVENESS_HELPER = "AliasRefLiveness"


def _lookup(name: str, table: Mapping[str, str]) -> str:
    """A TLA+ function literal mapping label strings through `table`."""
    cases = " [] ".join(f'AliasL = "{k}" -> "{v}"' for k, v in table.items())
    domain = ", ".join(f'"{k}"' for k in table)
    return f"{name} == [AliasL \\in {{{domain}}} |-> CASE {cases}]"


def _through(table_name: str, var: str, is_function: bool) -> str:
    if is_function:
        return f"[AliasP \\in DOMAIN {var} |-> {table_name}[{var}[AliasP]]]"
    return f"{table_name}[{var}]"


def _frames(table_name: str, var: str, is_function: bool) -> str:
    """A PlusCal `stack` with the label strings of each frame mapped through `table_name`."""
    frame = (f"[AliasK \\in DOMAIN AliasF |-> IF AliasK \\in {{\"pc\", \"procedure\"}} "
             f"THEN {table_name}[AliasF[AliasK]] ELSE AliasF[AliasK]]")
    def seq(s: str) -> str:
        return f"[AliasI \\in DOMAIN {s} |-> LET AliasF == {s}[AliasI] IN {frame}]"
    if is_function:
        return f"[AliasP \\in DOMAIN {var} |-> {seq(f'{var}[AliasP]')}]"
    return seq(var)


def _label_sub(ref_var: str, table: str, var: str, is_function: bool) -> str:
    """The substitution of a reference control variable, its labels mapped."""
    if ref_var == "stack":
        return _frames(table, var, is_function)
    return _through(table, var, is_function)



def _params(arity: int) -> str:
    return "(" + ", ".join(f"AliasA{i}" for i in range(arity)) + ")" if arity else ""



def _tuple(names: Sequence[str]) -> str:
    return "<<" + ", ".join(names) + ">>"



def forward_wrapper(ref: Reference, st: Staged, cand: Candidate, cfg_values: CfgValues,
             *, fairness: bool = True, liveness: Liveness | None = None
             ) -> tuple[SpecSource, ModelConfig]:
    """The forward wrapper: the output's spec must imply R's (`fairness=False`: R's safety
    part only, for a reference whose fairness TLC cannot evaluate; see `safety_parts`).
    `liveness`: instead, on the output's safety part, R's temporal conjuncts under the mapping
    must imply the output's (see `reverse_liveness`)."""
    values = cfg_values.literals
    inverse_consts = {r: g for g, r in cand.constants.items()}
    # Model values are declared in the wrapper only when a reference constant that the output
    # lacks is substituted by a value naming them, and never over a name the output defines.
    literal = [values[c] for c in st.ref_shape.constants
               if c not in inverse_consts and c in values]
    used = {w for text in literal for w in IDENT.findall(text)}
    used |= set(cand.model_values)  # named by the mapping's value translations
    made = {w for g, r in cand.constants.items() if r in values
            for w in IDENT.findall(values[r]) if GRADER_MODEL_VALUE.fullmatch(w)}
    made |= {w for w in cand.model_values if GRADER_MODEL_VALUE.fullmatch(w)}  # AliasNone
    model_values = sorted(((ref.cfg.model_values() & used) | made) - st.out_shape.definitions
                          - set(cand.constants))
    labels = st.label_map() if cand.labels else {}
    subs = [f"{r} <- {_label_sub(r, 'AliasLab', g, st.ref_pc_is_function)}"
            if r in ("pc", "stack") and labels else f"{r} <- {g}"
            for r, g in cand.variables.items()]
    for const in st.ref_shape.constants:
        if const in inverse_consts:
            subs.append(f"{const} <- {inverse_consts[const]}")
        elif const in values and const not in ref.cfg.model_values():
            subs.append(f"{const} <- {values[const]}")
    parts = None if fairness else safety_parts(ref)
    init, nxt = parts or (ref.cfg.init, ref.cfg.next)
    ref_spec = (f"{REF_INSTANCE}!{ref.cfg.specification}" if ref.cfg.specification and not parts
                else f"{REF_INSTANCE}!{init} /\\ [][{REF_INSTANCE}!{nxt}]_"
                f"{_tuple(list(cand.variables.values()))}")
    # `..` of a number range given to a constant (`AliasVal_Procs == 1..2`), for an output
    # that does not extend Naturals
    lines = [f"---- MODULE {FORWARD} ----", f"EXTENDS {st.out_main}", "LOCAL INSTANCE Naturals"]
    if model_values:
        lines.append("CONSTANTS " + ", ".join(model_values))
    if labels:
        lines.append(_lookup("AliasLab", labels))
    lines.extend(cand.definitions)
    instanced = LIVENESS_HELPER if liveness else ref.main  # R, and its temporal conjuncts
    lines.append(f"{REF_INSTANCE} == INSTANCE {instanced} WITH " + ", ".join(subs)
                 if subs else f"{REF_INSTANCE} == INSTANCE {instanced}")
    lines.append(f"AliasRefSpec == {ref_spec}")
    ref_values = dict(ref.cfg.constants)
    overrides = []
    for g, r in cand.constants.items():  # values TLC's cfg cannot hold go through a definition
        if r in cfg_values.via_ref:
            target, arity = cfg_values.via_ref[r]
            lines.append(f"AliasVal_{g}{_params(arity)} == {REF_INSTANCE}!{target}"
                         f"{_params(arity)}")
            overrides.append((g, f"AliasVal_{g}"))
        elif r in values and r not in ref_values and values[r] != g:
            lines.append(f"AliasVal_{g} == {values[r]}")
            overrides.append((g, f"AliasVal_{g}"))
    for name, (target, arity) in cfg_values.via_ref.items():  # e.g. `Seq <- BoundedSeq`
        renamed = out_name(ref, st, name)
        if name not in st.ref_shape.constants and renamed:
            lines.append(f"AliasOvr_{renamed}{_params(arity)} == {REF_INSTANCE}!{target}"
                         f"{_params(arity)}")
            overrides.append((renamed, f"AliasOvr_{renamed}"))
    for name, target in cfg_values.qualified:  # `[M]t` acts in R's module M and its copy
        module, _, rest = (x.strip() for x in target.lstrip()[1:].partition("]"))
        in_module, renamed = out_module(ref, st, module), out_name(ref, st, name)
        out_target = out_name(ref, st, rest)
        if in_module and renamed and out_target:
            overrides.append((renamed, f"[{in_module}]{out_target}"))  # R's copy: no need
        else:  # the output has no copy of M: R's definition for every module, via R's instance
            arity = definition_arity(ref.files, rest) or 0
            lines.append(f"AliasOvr_{name}{_params(arity)} == {REF_INSTANCE}!{rest}"
                         f"{_params(arity)}")
            overrides.append((name, f"AliasOvr_{name}"))
    defs: dict[str, list[str]] = {"inv": [], "prop": ["AliasRefSpec"], "con": [], "act": []}
    for key, names in (("inv", ref.cfg.invariants), ("prop", ref.cfg.properties),
                       ("con", ref.cfg.constraints), ("act", ref.cfg.action_constraints)):
        for name in dict.fromkeys(names):  # a name a cfg lists twice is one check (TLC's)
            alias = f"AliasRef_{key}_{name}"
            lines.append(f"{alias} == {REF_INSTANCE}!{name}")
            defs[key].append(alias)
    if liveness:
        lines += [c.definition(f"AliasOutLive_{k}") for k, c in enumerate(liveness.output, 1)]
        lines.append("AliasRefImpliesOut == " + f"{REF_INSTANCE}!AliasRefLive => ("
                     + " /\\ ".join(f"AliasOutLive_{k}"
                                     for k in range(1, len(liveness.output) + 1)) + ")")
    lines.append("====")
    constants = [(g, values[r]) for g, r in cand.constants.items()
                 if r in ref_values or values.get(r) == g]  # `C = C`: a model value
    for name, value, home in value_overrides(ref, st):
        constants.append((name, f"[{home}] {value}"))
        out_entry = out_value_override(ref, st, name, value, home)
        if out_entry and out_entry[0] not in cand.constants:
            constants.append(out_entry)
    constants += [(mv, mv) for mv in model_values if mv not in cand.constants]
    given = {name for name, _ in constants} | set(cand.constants)
    constants += [(name, name) for name in outside_values(st.out_files) if name not in given]
    uses_spec = st.out_spec is not None
    cfg = ModelConfig(
        constants=tuple(constants), overrides=tuple(overrides),
        specification=st.out_spec,
        init=None if uses_spec else st.out_init, next=None if uses_spec else st.out_next,
        invariants=tuple(defs["inv"]), properties=tuple(defs["prop"]),
        constraints=tuple(defs["con"]), action_constraints=tuple(defs["act"]),
        check_deadlock=ref.cfg.check_deadlock,
    )
    if liveness:  # the output's safety part; R's formula and the output's as one property
        cfg = replace(cfg, specification=None, init=st.out_init, next=st.out_next,
                      invariants=(), properties=("AliasRefImpliesOut",), check_deadlock=False)
    files = {**st.out_files, **ref.files, f"{FORWARD}.tla": "\n".join(lines) + "\n"}
    if liveness:
        files[f"{LIVENESS_HELPER}.tla"] = liveness_helper(ref.main, liveness.reference)
    return SpecSource(FORWARD, files), cfg


@dataclass(frozen=True)
class Liveness:
    """The temporal conjuncts of R's formula and of the output's, each in its module's scope."""

    reference: tuple[Conjunct, ...]
    output: tuple[Conjunct, ...]


def liveness_helper(main: str, conjuncts: Sequence[Conjunct]) -> str:
    """A module that EXTENDS R and names the conjunction of its temporal conjuncts
    `AliasRefLive` (TRUE where R's formula has none)."""
    lines = [f"---- MODULE {LIVENESS_HELPER} ----", f"EXTENDS {main}"]
    lines += [c.definition(f"AliasRefLive_{k}") for k, c in enumerate(conjuncts, 1)]
    lines.append("AliasRefLive == " + (" /\\ ".join(
        f"AliasRefLive_{k}" for k in range(1, len(conjuncts) + 1)) or "TRUE"))
    return "\n".join([*lines, "===="]) + "\n"


def reverse_wrapper(ref: Reference, st: Staged, cand: Candidate
             ) -> tuple[SpecSource, ModelConfig]:
    inverse_vars = {g: r for r, g in cand.variables.items()}
    labels = {r: g for g, r in st.label_map().items()}
    subs = [f"{g} <- {_label_sub(r, 'AliasLabInv', r, st.ref_pc_is_function)}"
            if r in ("pc", "stack") and labels else f"{g} <- {r}"
            for g, r in inverse_vars.items()]
    subs += [f"{g} <- {r}" for g, r in cand.constants.items()]
    lines = [f"---- MODULE {REVERSE} ----", f"EXTENDS {ref.main}",
             *([_lookup("AliasLabInv", labels)] if labels else []),
             f"{OUT_INSTANCE} == INSTANCE {st.out_main}" + (" WITH " + ", ".join(subs)
                                                             if subs else ""),
             f"AliasOutSafety == {OUT_INSTANCE}!{st.out_init} /\\ "
             f"[][{OUT_INSTANCE}!{st.out_next}]_"
             f"{_tuple([inverse_vars[g] for g in st.out_shape.variables])}",
             "===="]
    extra = [entry for name, value, home in value_overrides(ref, st)
             if (entry := out_value_override(ref, st, name, value, home, qualify=True))
             and entry[0] not in cand.constants]
    main_file = f"{st.out_main}.tla"
    given = {name for name, _ in extra}
    extra += [(name, f"[{st.out_main}] {name}")  # in the output's instance, as `forward_wrapper` does
              for name in outside_values({main_file: st.out_files[main_file]})
              if name not in given]
    cfg = ModelConfig(
        constants=(*ref.cfg.constants, *extra), overrides=ref.cfg.overrides, init=ref.cfg.init,
        next=ref.cfg.next, specification=ref.cfg.specification,
        properties=("AliasOutSafety",), constraints=ref.cfg.constraints,
        action_constraints=ref.cfg.action_constraints, check_deadlock=ref.cfg.check_deadlock,
    )
    files = {**st.out_files, **ref.files, f"{REVERSE}.tla": "\n".join(lines) + "\n"}
    return SpecSource(REVERSE, files), cfg


def wrapper_texts(ref: Reference, out_files: Mapping[str, str], out_main: str, cand: Candidate
             ) -> dict[str, str]:
    """The two wrapper modules and cfgs for one mapping, for `--explain` and debugging."""
    st = stage_output(out_files, out_main, ref)
    values, _ = constant_values(ref)
    fwd, fcfg = forward_wrapper(ref, st, cand, values)
    rev, rcfg = reverse_wrapper(ref, st, cand)
    return {f"{FORWARD}.tla": fwd.files[f"{FORWARD}.tla"], f"{FORWARD}.cfg": format_cfg(fcfg),
            f"{REVERSE}.tla": rev.files[f"{REVERSE}.tla"], f"{REVERSE}.cfg": format_cfg(rcfg)}


def check_label(result: CheckResult) -> str:
    extra = result.violated or ", ".join(result.missing_names)
    for prefix in ("AliasRef_inv_", "AliasRef_prop_"):  # the wrapper's names for R's checks
        if extra.startswith(prefix):
            extra = "reference's " + extra[len(prefix):]
    if extra == "AliasRefSpec":
        extra = "reference's specification"
    return result.verdict.value + (f" ({extra})" if extra else "")

