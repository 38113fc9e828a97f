"""Behavior grade: refinement both ways between an output G and a reference R.

Forward: run G (its Spec, or Init/Next) with R's constants mapped; check R's specification formula,
R's invariants and properties through a wrapper that EXTENDS G and has a *named* INSTANCE of R with
the mapping. Reverse: run R with its own cfg; check `G!Init /\\ [][G!Next]_v` through a wrapper that
EXTENDS R and instances G with the inverse mapping. G is correct when both pass under one mapping.

Both sides are staged under fresh module names (`AliasOut*`, R keeps its own) so they never share
a name; SYMMETRY and VIEW of R's cfg are dropped; R's CONSTRAINTs apply to G's run (mapped).
"""

from __future__ import annotations

import re
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from tlc_harness.behavior.options import DEFAULT_LIMIT
from tlc_harness.behavior.search import (
    Candidate,
    SpecShape,
    candidate_mappings,
    shape_mismatch,
    spec_shape,
)
from tlc_harness.source.cfg import ModelConfig, format_cfg
from tlc_harness.source.identifiers import analyze_task
from tlc_harness.source.rename import RenameError, rename_module_names
from tlc_harness.source.stdlib import TLA_KEYWORDS, standard_names
from tlc_harness.source.tokens import blank_comments
from tlc_harness.tools.results import LIMIT_VERDICTS, CheckResult, TraceState, Verdict
from tlc_harness.tools.runner import Harness
from tlc_harness.tools.spec import SpecSource

OUT_MODULE = "AliasOut"
FORWARD = "AliasForward"
REVERSE = "AliasReverse"
REF_INSTANCE = "AliasRef"
OUT_INSTANCE = "AliasOutInst"
BEHAVIOR_VERDICTS = ("ok", "forward_fail", "reverse_fail", "no_mapping", "undecided",
                     "not_covered")


@dataclass(frozen=True)
class Reference:
    """R: its modules, main module, cfg and TLC flags (one condition's reference)."""

    main: str
    files: Mapping[str, str]
    cfg: ModelConfig
    tlc_args: tuple[str, ...] = ()


@dataclass(frozen=True)
class Attempt:
    """One mapping tried: the TLC runs made and what they said."""

    mapping: dict[str, Any]
    forward: str
    reverse: str | None
    seconds: float
    reason: str = ""


@dataclass(frozen=True)
class BehaviorResult:
    """The behavior verdict with everything needed to replay it."""

    verdict: str
    mapping: dict[str, Any] | None
    reason: str
    seconds: float
    attempts: tuple[Attempt, ...] = ()
    trace: tuple[TraceState, ...] = ()
    tlc_runs: int = 0
    engine: str = "wrappers"
    details: dict[str, Any] = field(default_factory=dict)  # the engine's own facts

    @property
    def passed(self) -> bool:
        return self.verdict == "ok"

    def to_json(self) -> dict[str, Any]:
        return {"verdict": self.verdict, "passed": self.passed, "mapping": self.mapping,
                "reason": self.reason, "seconds": round(self.seconds, 3),
                "tlc_runs": self.tlc_runs, "engine": self.engine,
                "attempts": [a.__dict__ for a in self.attempts],
                "trace": [s.__dict__ for s in self.trace], **self.details}


@dataclass
class _Staged:
    out_files: dict[str, str]
    out_main: str
    out_shape: SpecShape
    ref_shape: SpecShape
    ref_labels: tuple[str, ...] = ()
    out_labels: tuple[str, ...] = ()
    ref_pc_is_function: bool = False
    out_init: str | None = "Init"
    out_next: str | None = "Next"
    out_spec: str | None = None
    module_table: dict[str, str] = field(default_factory=dict)  # output module -> staged name
    notes: list[str] = field(default_factory=list)

    def label_map(self) -> dict[str, str]:
        """Output label -> reference label: same names first, then in order of appearance."""
        if not self.ref_labels or len(self.ref_labels) != len(self.out_labels):
            return {}
        fixed = {g: g for g in self.out_labels if g in self.ref_labels}
        rest_g = [g for g in self.out_labels if g not in fixed]
        rest_r = [r for r in self.ref_labels if r not in fixed]
        return {**fixed, **dict(zip(rest_g, rest_r, strict=False)), "Done": "Done"}


def _labels(files: Mapping[str, str]) -> tuple[str, ...]:
    """PlusCal labels in order of appearance (the strings a `pc` variable holds)."""
    found: list[str] = []
    for info in analyze_task(files).values():
        defs = sorted((o.start, o.name) for o in info.occurrences
                      if o.is_definition and o.kind in ("label", "procedure"))
        found += [n for _, n in defs if n not in found]
    return tuple(found)


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


_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
#: model values the grader makes up: for an output's constant (`Procs = {AliasM1, AliasM2}`), for
#: an empty optional tuple and for a flag folded into a value (see `features`)
GRADER_MODEL_VALUE = re.compile(r"AliasM\d+|AliasNone|AliasFlag")


#: What starts the next unit of a module at the beginning of a line (a body may start on the
#: line after `==`, as the Toolbox writes `const_1 ==\n{"r1", "r2"}`).
_NEXT_UNIT = (r"(?:[A-Za-z_]\w*\s*(?:\(|==)|-{4}|={4}|\(\*|\\\*|ASSUMES?\b|VARIABLES?\b|"
              r"CONSTANTS?\b|THEOREM\b|LOCAL\b|INSTANCE\b|RECURSIVE\b)")


_BODY = re.compile(rf"(.*?)(?=^{_NEXT_UNIT}|\Z)", re.M | re.S)


def body_from(text: str, start: int) -> str:
    """A definition's right-hand side that starts at `start` of `text` (just after its
    `==`), up to the next unit of the module, on one line, without end-of-line comments."""
    hit = _BODY.match(text, start)
    body = re.sub(r"\\\*[^\n]*", "", hit.group(1) if hit else "").strip()
    return " ".join(body.split())


def _definition_body(files: Mapping[str, str], name: str) -> str | None:
    """The right-hand side of a zero-argument top-level definition `name == e`."""
    for text in files.values():
        hit = re.search(rf"^{re.escape(name)}\s*==\s*", text, re.M)
        if hit:
            return body_from(text, hit.end())
    return None


#: `None == CHOOSE v : v \\notin Values` (or `~(v \\in S)`): a value outside a set, which TLC
#: cannot evaluate unbounded and a model's cfg gives a model value (`None = None`)
_UNBOUNDED_CHOOSE = re.compile(
    r"^([A-Za-z_]\w*)\s*==\s*CHOOSE\s+(\w+)\s*:\s*(?:\2\s*\\notin\b|~\s*\(?\s*\2\s*\\in\b)",
    re.M)


def outside_values(files: Mapping[str, str]) -> list[str]:
    """The zero-argument definitions of `files` that choose a value outside a set without
    bounding it (`None == CHOOSE v : v \\notin Values`). A fresh model value is outside every
    set of the model, so it is one such value; TLC runs such a module only when its cfg says
    so (`None = None`), which the grader's cfg of the output does."""
    return sorted({hit.group(1) for name, text in files.items() if name.endswith(".tla")
                   for hit in _UNBOUNDED_CHOOSE.finditer(text)})


def _definition_arity(files: Mapping[str, str], name: str) -> int | None:
    """The number of parameters of a top-level definition `name(p, q) ==` (None: not found)."""
    for text in files.values():
        hit = re.search(rf"^{re.escape(name)}\s*(\(([^()]*)\))?\s*==", text, re.M)
        if hit:
            return len(hit.group(2).split(",")) if hit.group(1) else 0
    return None


@dataclass(frozen=True)
class CfgValues:
    """How the wrappers give R's cfg values to the output's run.

    `literals`: TLA+ expressions of R's constants (cfg values, and override bodies that are
    plain literals, kept for type inference and for constants the output lacks); `via_ref`:
    `name <- target` overrides evaluated through R's instance (`AliasRef!target`), with the
    target's arity; `qualified`: `name <- [Module]target` overrides, carried as they are.
    """

    literals: dict[str, str]
    via_ref: dict[str, tuple[str, int]] = field(default_factory=dict)
    qualified: tuple[tuple[str, str], ...] = ()


def _constant_values(ref: Reference) -> tuple[CfgValues, str | None]:
    """R's cfg values as the wrappers use them, or why one cannot be carried over."""
    values = dict(ref.cfg.constants)
    via_ref: dict[str, tuple[str, int]] = {}
    qualified: list[tuple[str, str]] = []
    allowed = standard_names() | TLA_KEYWORDS | {"TRUE", "FALSE"}
    for name, target in ref.cfg.overrides:
        if target.lstrip().startswith("["):
            qualified.append((name, target))
            continue
        arity = _definition_arity(ref.files, target)
        if arity is None:
            return CfgValues(values), (f"the reference cfg overrides {name} with {target}, "
                                       "which no reference module defines")
        body = _definition_body(ref.files, target) if arity == 0 else None
        if body and all(w in allowed for w in _IDENT.findall(body)):
            values[name] = body
        else:
            via_ref[name] = (target, arity)
    return CfgValues(values, via_ref, tuple(qualified)), None


def _params(arity: int) -> str:
    return "(" + ", ".join(f"AliasA{i}" for i in range(arity)) + ")" if arity else ""


def _value_overrides(ref: Reference, st: _Staged) -> list[tuple[str, str, str]]:
    """R's cfg entries `Op = v` that replace a *defined operator* by a value (not a constant):
    (name, value without its `[Module]`, module defining it). TLC must see them in R's instance
    and, for an output defining the same name, in the output too (else e.g. an unbounded
    CHOOSE is evaluated)."""
    out = []
    for name, value in ref.cfg.constants:
        if name in st.ref_shape.constants:
            continue
        hit = re.match(r"\s*\[\s*(\w+)\s*\]\s*(.*)", value, re.S)
        if hit:
            out.append((name, hit.group(2).strip(), hit.group(1)))
            continue
        pattern = re.compile(rf"^{re.escape(name)}\s*(\(|==)", re.M)
        home = next((f[:-4] for f, text in ref.files.items() if pattern.search(text)), ref.main)
        out.append((name, value, home))
    return out


def _out_module(ref: Reference, st: _Staged, module: str) -> str | None:
    """The staged name of the output's copy of R's module `module`: same name, or (a renamed
    copy, as many modules with the main one at the same place) the module at the same place."""
    if module in st.module_table:
        return st.module_table[module]
    ref_mods = [f[:-4] for f in ref.files]
    out_mods = [f[:-4] for f in st.out_files]
    if module in ref_mods and ref.main in ref_mods and len(ref_mods) == len(out_mods) \
            and ref_mods.index(ref.main) == out_mods.index(st.out_main):
        return out_mods[ref_mods.index(module)]
    return None


def _out_name(ref: Reference, st: _Staged, name: str) -> str | None:
    """The output's name for R's definition `name` (standard operators keep theirs)."""
    if name in st.out_shape.definitions or name in standard_names():
        return name
    return _same_place(ref, st, name)


def _out_value_override(ref: Reference, st: _Staged, name: str, value: str, home: str,
                        qualify: bool = False) -> tuple[str, str] | None:
    """The cfg entry giving the output's copy of R's `name` R's value (None: it has none).

    In the output's copy of R's module `home` when it has one, else in its main module."""
    out_name = _out_name(ref, st, name)
    module = _out_module(ref, st, home)
    if out_name is None:
        return None
    if module:
        return out_name, f"[{module}] {value}"
    if out_name in st.out_shape.definitions:
        return out_name, (f"[{st.out_main}] {value}" if qualify else value)
    return None


def _formula_parts(text: str, name: str) -> tuple[str, str] | None:
    """(Init, Next) of a definition `name == I /\\ [][N]_v ...`, if it has that shape."""
    hit = re.search(rf"^{re.escape(name)}\s*==\s*(?:/\\\s*)?(\w+)\s*/\\\s*\[\]\[\s*(\w+)\s*\]_",
                    text, re.M)
    return (hit.group(1), hit.group(2)) if hit else None


_TOP_DEFINITION = re.compile(r"^(\w+)\s*(?:\([^()]*\))?\s*==", re.M)


def _same_place(ref: Reference, st: _Staged, name: str | None) -> str | None:
    """The output's definition at the place `name` has among R's top-level definitions.

    A renamed copy keeps R's text in order, so its k-th definition is R's k-th; used only when
    both define equally many operators (a model's own module rarely does)."""
    if not name:
        return None
    ref_defs = [m.group(1) for text in ref.files.values() for m in _TOP_DEFINITION.finditer(text)]
    out_defs = [m.group(1) for text in st.out_files.values()
                for m in _TOP_DEFINITION.finditer(text)]
    if name not in ref_defs or len(ref_defs) != len(out_defs):
        return None
    return out_defs[ref_defs.index(name)]


def _entry_points(st: _Staged, ref: Reference) -> None:
    """The output's initial predicate, next-state action and spec formula names.

    The prompt asks for `Init`, `Next`, `Spec`; a module that names them otherwise (as many
    published references do) is read through the reference cfg's names, through the definition
    at the same place as R's (a renamed copy), or through a `Spec`-shaped formula
    (`Name == I /\\ [][N]_v ...`).
    """
    defs = st.out_shape.definitions
    text = "\n".join(st.out_files.values())
    # R's own name first, then its place (`Spec` may be another formula: LSpec == Spec /\ L)
    for name in (ref.cfg.specification, _same_place(ref, st, ref.cfg.specification), "Spec"):
        if name and name in defs:
            st.out_spec = name
            break
    if ref.cfg.init in defs and ref.cfg.next in defs:
        st.out_init, st.out_next = ref.cfg.init, ref.cfg.next
        return
    if {"Init", "Next"} <= defs:
        return
    init, nxt = _same_place(ref, st, ref.cfg.init), _same_place(ref, st, ref.cfg.next)
    if init in defs and nxt in defs:
        st.out_init, st.out_next = init, nxt
        return
    parts = _formula_parts(text, st.out_spec) if st.out_spec else None
    if parts is None:  # any Spec-shaped formula, e.g. a renamed copy's `TQ == Xini /\ [][Xnxt]_v`
        hit = re.search(r"^(\w+)\s*==\s*(?:/\\\s*)?\w+\s*/\\\s*\[\]\[\s*\w+\s*\]_", text, re.M)
        if hit:
            st.out_spec = st.out_spec or hit.group(1)
            parts = _formula_parts(text, hit.group(1))
    st.out_init, st.out_next = parts if parts else (
        "Init" if "Init" in defs else None, "Next" if "Next" in defs else None)


def _stage_output(files: Mapping[str, str], main: str, ref: Reference) -> _Staged:
    """Give the output's modules fresh names so they never meet R's module names."""
    names = {f[:-4] for f in files}
    table = {m: (OUT_MODULE if m == main else f"{OUT_MODULE}_{m}") for m in sorted(names)}
    renamed = rename_module_names(files, table)
    if f"{OUT_MODULE}.tla" not in renamed:
        raise RenameError([f"module {main} could not be renamed to {OUT_MODULE}"])
    values, _ = _constant_values(ref)
    ref_shape = spec_shape(ref.files, ref.main, values.literals)
    staged = _Staged(renamed, OUT_MODULE, spec_shape(renamed, OUT_MODULE), ref_shape,
                     module_table=table)
    if "pc" in ref_shape.variables:
        staged.ref_labels = _labels(ref.files)
        staged.out_labels = _labels(renamed)
        staged.ref_pc_is_function = bool(re.search(r"\bpc\s*=\s*\[", "\n".join(
            ref.files.values())))
    _entry_points(staged, ref)
    return staged


def _tuple(names: Sequence[str]) -> str:
    return "<<" + ", ".join(names) + ">>"


def safety_parts(ref: Reference) -> tuple[str, str] | None:
    """(Init, Next) of the reference's SPECIFICATION formula (`Spec == I /\\ [][N]_v /\\ WF..`),
    if it has that shape: its safety part without its fairness."""
    if not ref.cfg.specification:
        return None
    return _formula_parts("\n".join(ref.files.values()), ref.cfg.specification)


def system_model(ref: Reference) -> tuple[Reference, str | None]:
    """The model of the system's own specification that `ref`'s model stands for, and why.

    A model that starts from one of its own INVARIANTs where the module has an `Init`
    (`SPECIFICATION ISpec` with `ISpec == Inv /\\ [][Next]_vars` and `INVARIANT Inv`) checks
    that the invariant is inductive; the behaviors a task describes start from `Init`. The
    same model (constants, overrides, invariants) with the module's specification of the same
    next-state action from `Init` (`Spec == Init /\\ [][Next]_vars ...`, fairness kept), or
    `INIT Init` `NEXT Next` where the module has no such formula, is the one graded against.
    Any other model is returned as it is, with no reason."""
    parts = (ref.cfg.init, ref.cfg.next) if ref.cfg.init else safety_parts(ref)
    if not parts or not parts[0] or parts[0] == "Init" or parts[0] not in ref.cfg.invariants \
            or _definition_body(ref.files, "Init") is None:
        return ref, None
    inv, nxt = parts
    text = "\n".join(ref.files.values())
    specs = [name for name in dict.fromkeys(_TOP_DEFINITION.findall(text))
             if _formula_parts(text, name) == ("Init", nxt)]
    cfg = (replace(ref.cfg, specification=specs[0], init=None, next=None) if specs
           else replace(ref.cfg, specification=None, init="Init", next=nxt))
    to = f"SPECIFICATION {specs[0]}" if specs else f"INIT Init NEXT {nxt}"
    return replace(ref, cfg=cfg), (f"the reference's model checks that its invariant {inv} is "
                                   f"inductive (its behaviors start from every state of {inv}); "
                                   f"graded against the same model with {to}, the system's "
                                   f"own behaviors from Init")


#: TLC's operators that pick a value at random in each run (module Randomization, and TLC's)
_RANDOM = re.compile(r"\b(RandomElement|RandomSubset|RandomSetOfSubsets|RandomSubsetSet|"
                     r"TestRandomSubset|TestRandomSetOfSubsets)\b")


def uncovered(ref: Reference) -> str | None:
    """Why no output can be graded by behavior against `ref`, read from its model alone: a
    constant model (no SPECIFICATION nor INIT and NEXT), or modules that draw values at random
    (`RandomElement`): TLC draws them anew in every run. (A model of an inductive invariant
    is graded against its `system_model`.)"""
    if not ref.cfg.has_behavior:
        return ("the reference has no behavior: its cfg names no SPECIFICATION nor INIT and "
                "NEXT (a constant model: grade it by name)")
    drawn = sorted({hit for name, text in ref.files.items() if name.endswith(".tla")
                    for hit in _RANDOM.findall(blank_comments(text))})
    if drawn:
        return (f"the reference draws values at random ({', '.join(drawn)}): TLC picks them "
                f"anew in every run, so no two runs, of the reference or of an output against "
                f"it, check the same behaviors")
    return None


def _forward(ref: Reference, st: _Staged, cand: Candidate, cfg_values: CfgValues,
             *, fairness: bool = True) -> tuple[SpecSource, ModelConfig]:
    """The forward wrapper: the output's spec must imply R's (`fairness=False`: R's safety
    part only, for a reference whose fairness TLC cannot evaluate; see `safety_parts`)."""
    values = cfg_values.literals
    inverse_consts = {r: g for g, r in cand.constants.items()}
    # Model values are declared in the wrapper only when a reference constant that the output
    # lacks is substituted by a value naming them, and never over a name the output defines.
    literal = [values[c] for c in st.ref_shape.constants
               if c not in inverse_consts and c in values]
    used = {w for text in literal for w in _IDENT.findall(text)}
    used |= set(cand.model_values)  # named by the mapping's value translations
    made = {w for g, r in cand.constants.items() if r in values
            for w in _IDENT.findall(values[r]) if GRADER_MODEL_VALUE.fullmatch(w)}
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
    lines.append(f"{REF_INSTANCE} == INSTANCE {ref.main} WITH " + ", ".join(subs)
                 if subs else f"{REF_INSTANCE} == INSTANCE {ref.main}")
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
        out_name = _out_name(ref, st, name)
        if name not in st.ref_shape.constants and out_name:
            lines.append(f"AliasOvr_{out_name}{_params(arity)} == {REF_INSTANCE}!{target}"
                         f"{_params(arity)}")
            overrides.append((out_name, f"AliasOvr_{out_name}"))
    for name, target in cfg_values.qualified:  # `[M]t` acts in R's module M and its copy
        module, _, rest = (x.strip() for x in target.lstrip()[1:].partition("]"))
        out_module, out_name = _out_module(ref, st, module), _out_name(ref, st, name)
        out_target = _out_name(ref, st, rest)
        if out_module and out_name and out_target:
            overrides.append((out_name, f"[{out_module}]{out_target}"))  # R's copy: no need
        else:  # the output has no copy of M: R's definition for every module, via R's instance
            arity = _definition_arity(ref.files, rest) or 0
            lines.append(f"AliasOvr_{name}{_params(arity)} == {REF_INSTANCE}!{rest}"
                         f"{_params(arity)}")
            overrides.append((name, f"AliasOvr_{name}"))
    defs: dict[str, list[str]] = {"inv": [], "prop": ["AliasRefSpec"], "con": [], "act": []}
    for key, names in (("inv", ref.cfg.invariants), ("prop", ref.cfg.properties),
                       ("con", ref.cfg.constraints), ("act", ref.cfg.action_constraints)):
        for name in names:
            alias = f"AliasRef_{key}_{name}"
            lines.append(f"{alias} == {REF_INSTANCE}!{name}")
            defs[key].append(alias)
    lines.append("====")
    constants = [(g, values[r]) for g, r in cand.constants.items()
                 if r in ref_values or values.get(r) == g]  # `C = C`: a model value
    for name, value, home in _value_overrides(ref, st):
        constants.append((name, f"[{home}] {value}"))
        out_entry = _out_value_override(ref, st, name, value, home)
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
    files = {**st.out_files, **ref.files, f"{FORWARD}.tla": "\n".join(lines) + "\n"}
    return SpecSource(FORWARD, files), cfg


def _reverse(ref: Reference, st: _Staged, cand: Candidate
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
    extra = [entry for name, value, home in _value_overrides(ref, st)
             if (entry := _out_value_override(ref, st, name, value, home, qualify=True))
             and entry[0] not in cand.constants]
    main_file = f"{st.out_main}.tla"
    given = {name for name, _ in extra}
    extra += [(name, f"[{st.out_main}] {name}")  # in the output's instance, as `_forward` does
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


def wrappers(ref: Reference, out_files: Mapping[str, str], out_main: str, cand: Candidate
             ) -> dict[str, str]:
    """The two wrapper modules and cfgs for one mapping, for `--explain` and debugging."""
    st = _stage_output(out_files, out_main, ref)
    values, _ = _constant_values(ref)
    fwd, fcfg = _forward(ref, st, cand, values)
    rev, rcfg = _reverse(ref, st, cand)
    return {f"{FORWARD}.tla": fwd.files[f"{FORWARD}.tla"], f"{FORWARD}.cfg": format_cfg(fcfg),
            f"{REVERSE}.tla": rev.files[f"{REVERSE}.tla"], f"{REVERSE}.cfg": format_cfg(rcfg)}


def _label(result: CheckResult) -> str:
    extra = result.violated or ", ".join(result.missing_names)
    for prefix in ("AliasRef_inv_", "AliasRef_prop_"):  # the wrapper's names for R's checks
        if extra.startswith(prefix):
            extra = "reference's " + extra[len(prefix):]
    if extra == "AliasRefSpec":
        extra = "reference's specification"
    return result.verdict.value + (f" ({extra})" if extra else "")


def behavior_grade(harness: Harness, ref: Reference, out_files: Mapping[str, str],
                   out_main: str, *, limit: int = DEFAULT_LIMIT,
                   timeout: float | None = None) -> BehaviorResult:
    """Search mappings and run the forward and reverse checks (R must pass its own check)."""
    start = time.monotonic()
    why = uncovered(ref)
    if why:
        return BehaviorResult("not_covered", None, why, 0.0)
    values, unsupported = _constant_values(ref)
    if unsupported:
        return BehaviorResult("not_covered", None, unsupported, time.monotonic() - start)
    st = _stage_output(out_files, out_main, ref)
    if st.out_init is None or st.out_next is None:
        missing = [d for d, v in (("Init", st.out_init), ("Next", st.out_next)) if v is None]
        return BehaviorResult("no_mapping", None, f"the output defines no {' or '.join(missing)}",
                              time.monotonic() - start)
    why = shape_mismatch(st.ref_shape, st.out_shape)
    if why:
        return BehaviorResult("no_mapping", None, why, time.monotonic() - start)
    attempts: list[Attempt] = []
    runs = 0
    first_trace: tuple[TraceState, ...] = ()
    passed_forward = False
    undecided = ""
    failed: Counter[bool] = Counter()  # forward failures: at an evaluation error, or not
    rejected = 0  # forward checks whose run the output's ASSUME stopped
    first_cand: Candidate | None = None
    for cand in candidate_mappings(st.ref_shape, st.out_shape, limit=limit):
        first_cand = first_cand or cand
        t0 = time.monotonic()
        src, cfg = _forward(ref, st, cand, values)
        fwd = harness.check(src, cfg, tlc_args=ref.tlc_args, timeout=timeout, compat=True)
        runs += 1
        if fwd.verdict is Verdict.OK and fwd.vacuous:  # no initial state: nothing refines R
            attempts.append(Attempt(cand.to_json(), "vacuous (the output has no initial state)",
                                    None, time.monotonic() - t0))
            continue
        if fwd.verdict is not Verdict.OK:
            failed[fwd.verdict is Verdict.EVAL_ERROR] += 1
            rejected += fwd.verdict is Verdict.ASSUMPTION_FAILED
            if fwd.verdict in LIMIT_VERDICTS:
                undecided = undecided or f"forward check under {cand.describe()}: {_label(fwd)}"
            if not first_trace and fwd.trace:
                first_trace = fwd.trace
            attempts.append(Attempt(cand.to_json(), _label(fwd), None,
                                    time.monotonic() - t0, fwd.detail[:300]))
            continue
        passed_forward = True
        src, cfg = _reverse(ref, st, cand)
        rev = harness.check(src, cfg, tlc_args=ref.tlc_args, timeout=timeout, compat=True)
        runs += 1
        attempts.append(Attempt(cand.to_json(), _label(fwd), _label(rev),
                                time.monotonic() - t0, rev.detail[:300]))
        if rev.verdict is Verdict.OK:
            return BehaviorResult("ok", cand.to_json(), f"refines both ways under "
                                  f"{cand.describe()}", time.monotonic() - start,
                                  tuple(attempts), (), runs)
        if rev.verdict in LIMIT_VERDICTS:
            undecided = undecided or f"reverse check under {cand.describe()}: {_label(rev)}"
        elif rev.trace:
            first_trace = rev.trace
    seconds = time.monotonic() - start
    last = attempts[-1].mapping if attempts else None
    if not attempts:
        return BehaviorResult("no_mapping", None, "no candidate mapping", seconds)
    if undecided:
        return BehaviorResult("undecided", last, undecided, seconds, tuple(attempts),
                              first_trace, runs)
    if passed_forward:
        return BehaviorResult("reverse_fail", last, "the output allows too few behaviors "
                              "(reverse check failed under every mapping that passed forward)",
                              seconds, tuple(attempts), first_trace, runs)
    if attempts and rejected == len(attempts):
        return BehaviorResult("no_mapping", last, f"the output's ASSUME rejects the reference's "
                              f"values for its constants under all {len(attempts)} mapping(s)",
                              seconds, tuple(attempts), first_trace, runs)
    if failed[True] and not failed[False] and len(attempts) == failed[True] and first_cand:
        # An evaluation error under every mapping may be the mappings' fault (a reference
        # function applied outside its domain) or the output's own: its run alone tells.
        src, cfg = _forward(ref, st, first_cand, values)
        own = harness.check(src, replace(cfg, invariants=(), properties=(), constraints=(),
                                         action_constraints=()),
                            tlc_args=ref.tlc_args, timeout=timeout, compat=True)
        runs += 1
        seconds = time.monotonic() - start
        if own.verdict is Verdict.OK:
            return BehaviorResult("no_mapping", last, f"every mapping's forward check stopped at "
                                  f"an evaluation error (first: {attempts[0].forward}), and the "
                                  f"output runs on its own: no mapping fits it",
                                  seconds, tuple(attempts), first_trace, runs)
        if own.verdict in LIMIT_VERDICTS:
            return BehaviorResult("undecided", last, f"every mapping's forward check stopped at "
                                  f"an evaluation error; the output's own run: {_label(own)}",
                                  seconds, tuple(attempts), first_trace, runs)
        return BehaviorResult("forward_fail", last, f"the output's own run fails under the "
                              f"reference's constants ({_label(own)})", seconds,
                              tuple(attempts), own.trace or first_trace, runs)
    return BehaviorResult("forward_fail", last, f"forward check failed under all "
                          f"{len(attempts)} mapping(s); first: {attempts[0].forward}",
                          seconds, tuple(attempts), first_trace, runs)
