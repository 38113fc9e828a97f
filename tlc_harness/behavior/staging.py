"""What both behavior engines share: the reference, its cfg values, and the staged output.

`stage_output` gives the output's modules fresh names (`AliasOut*`) so they never meet the
reference's, and reads the output's shape and entry points (`Staged`, frozen). The readers of
module text here (`definition_body`, `outside_values`, ...) work on plain text. `uncovered` and
`system_model` say what a reference's model allows to be graded at all.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from tlc_harness.behavior.search import SpecShape, spec_shape
from tlc_harness.behavior.verdicts import Reason
from tlc_harness.source.behavior_parts import spec_expressions, spec_parts
from tlc_harness.source.cfg import ModelConfig
from tlc_harness.source.draws import drawn_operators
from tlc_harness.source.formulas import infinite_sets, top_definitions
from tlc_harness.source.identifiers import analyze_task
from tlc_harness.source.rename import RenameError, rename_module_names
from tlc_harness.source.stdlib import TLA_KEYWORDS, standard_names

OUT_MODULE = "AliasOut"


@dataclass(frozen=True)
class Reference:
    """R: its modules, main module, cfg and TLC flags (one condition's reference), and the
    distinct states TLC found in the model's own full run, where known (`states`: the task
    variant's verification)."""

    main: str
    files: Mapping[str, str]
    cfg: ModelConfig
    tlc_args: tuple[str, ...] = ()
    states: int | None = None



@dataclass(frozen=True)
class Staged:
    """The output as TLC runs it beside R: its modules under fresh names, the shapes of both
    specs, PlusCal labels, and the output's entry points (read through R's names)."""

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

    @property
    def spec_unread(self) -> bool:
        """Whether the output's specification formula has no initial predicate and next-state
        action the grader can read (then `out_init`, `out_next` are None: never operators
        found by their usual names, which need not be the formula's)."""
        return self.out_spec is not None and (self.out_init is None or self.out_next is None)

    def infinite_sets(self) -> frozenset[str]:
        """The infinite standard sets (`Nat`, `Int`, `Seq`, ...) the output's specification,
        or its Init and Next, reads (TLC cannot enumerate them)."""
        roots = (self.out_spec,) if self.out_spec else (self.out_init, self.out_next)
        return infinite_sets(self.out_files, tuple(r for r in roots if r))

    def label_map(self) -> dict[str, str]:
        """Output label -> reference label: same names first, then in order of appearance."""
        if not self.ref_labels or len(self.ref_labels) != len(self.out_labels):
            return {}
        fixed = {g: g for g in self.out_labels if g in self.ref_labels}
        rest_g = [g for g in self.out_labels if g not in fixed]
        rest_r = [r for r in self.ref_labels if r not in fixed]
        return {**fixed, **dict(zip(rest_g, rest_r, strict=False)), "Done": "Done"}


def pluscal_labels(files: Mapping[str, str]) -> tuple[str, ...]:
    """PlusCal labels in order of appearance (the strings a `pc` variable holds)."""
    found: list[str] = []
    for info in analyze_task(files).values():
        defs = sorted((o.start, o.name) for o in info.occurrences
                      if o.is_definition and o.kind in ("label", "procedure"))
        found += [n for _, n in defs if n not in found]
    return tuple(found)



IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
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


def definition_body(files: Mapping[str, str], name: str) -> str | None:
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


def definition_arity(files: Mapping[str, str], name: str) -> int | None:
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


def constant_values(ref: Reference) -> tuple[CfgValues, str | None]:
    """R's cfg values as the wrappers use them, or why one cannot be carried over."""
    values = dict(ref.cfg.constants)
    via_ref: dict[str, tuple[str, int]] = {}
    qualified: list[tuple[str, str]] = []
    allowed = standard_names() | TLA_KEYWORDS | {"TRUE", "FALSE"}
    for name, target in ref.cfg.overrides:
        if target.lstrip().startswith("["):
            qualified.append((name, target))
            continue
        arity = definition_arity(ref.files, target)
        if arity is None:
            return CfgValues(values), (f"the reference cfg overrides {name} with {target}, "
                                       "which no reference module defines")
        body = definition_body(ref.files, target) if arity == 0 else None
        if body and all(w in allowed for w in IDENT.findall(body)):
            values[name] = body
        else:
            via_ref[name] = (target, arity)
    return CfgValues(values, via_ref, tuple(qualified)), None



def value_overrides(ref: Reference, st: Staged) -> list[tuple[str, str, str]]:
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


def out_module(ref: Reference, st: Staged, module: str) -> str | None:
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


def out_name(ref: Reference, st: Staged, name: str) -> str | None:
    """The output's name for R's definition `name` (standard operators keep theirs)."""
    if name in st.out_shape.definitions or name in standard_names():
        return name
    return same_place(ref, st.out_files, name)


def out_value_override(ref: Reference, st: Staged, name: str, value: str, home: str,
                        qualify: bool = False) -> tuple[str, str] | None:
    """The cfg entry giving the output's copy of R's `name` R's value (None: it has none).

    In the output's copy of R's module `home` when it has one, else in its main module."""
    renamed = out_name(ref, st, name)
    module = out_module(ref, st, home)
    if renamed is None:
        return None
    if module:
        return renamed, f"[{module}] {value}"
    if renamed in st.out_shape.definitions:
        return renamed, (f"[{st.out_main}] {value}" if qualify else value)
    return None


def formula_parts(text: str, name: str) -> tuple[str, str] | None:
    """(Init, Next) of a definition `name == I /\\ [][N]_v ...`, if it has that shape."""
    hit = re.search(rf"^{re.escape(name)}\s*==\s*(?:/\\\s*)?(\w+)\s*/\\\s*\[\]\[\s*(\w+)\s*\]_",
                    text, re.M)
    return (hit.group(1), hit.group(2)) if hit else None


TOP_DEFINITION = re.compile(r"^(\w+)\s*(?:\(([^()]*)\))?\s*==", re.M)


def same_place(ref: Reference, out_files: Mapping[str, str], name: str | None) -> str | None:
    """The output's definition at the place `name` has among R's top-level definitions.

    A renamed copy keeps R's text in order, so its k-th definition is R's k-th, with as many
    parameters; used only when both define equally many operators, each with the arity of
    the other's at its place (a model's own module rarely does)."""
    if not name:
        return None
    ref_defs = _top_definitions(ref.files)
    out_defs = _top_definitions(out_files)
    names = [n for n, _ in ref_defs]
    if name not in names or [a for _, a in ref_defs] != [a for _, a in out_defs]:
        return None
    return out_defs[names.index(name)][0]


def _top_definitions(files: Mapping[str, str]) -> list[tuple[str, int]]:
    """Each module's top-level definitions in order, with their numbers of parameters; the
    entry points a scratch copy adds (`stage_output`) are not the output's and are left out,
    so a renamed copy still lines up with R."""
    return [(m.group(1), len(m.group(2).split(",")) if m.group(2) else 0)
            for text in files.values() for m in TOP_DEFINITION.finditer(text)
            if not _ADDED_ENTRY.fullmatch(m.group(1))]


def entry_points(out_shape: SpecShape, out_files: Mapping[str, str], ref: Reference
                 ) -> tuple[str | None, str | None, str | None]:
    """The output's initial predicate, next-state action and spec formula names (None: none).

    The prompt asks for `Init`, `Next`, `Spec`; a module that names them otherwise (as many
    published references do) is read through the reference cfg's names, through the definition
    at the same place as R's (a renamed copy), or through a `Spec`-shaped formula
    (`Name == I /\\ [][N]_v ...`). Every stage reads the behavior the cfg names: under
    SPECIFICATION, the output's formula's own parts (`spec_parts`; None, None where they are
    expressions or unread: see `stage_output`), never operators by their usual names; under
    INIT and NEXT, a formula only where it is those two.
    """
    defs = out_shape.definitions
    text = "\n".join(out_files.values())
    spec = None
    # R's own name first, then its place (`Spec` may be another formula: LSpec == Spec /\ L)
    for name in (ref.cfg.specification, same_place(ref, out_files, ref.cfg.specification),
                 "Spec"):
        if name and name in defs:
            spec = name
            break
    if spec and ref.cfg.specification:
        return (*(formula_entry(out_files, spec) or (None, None)), spec)
    if ref.cfg.init in defs and ref.cfg.next in defs:
        return ref.cfg.init, ref.cfg.next, _same_behavior(out_files, spec, ref.cfg.init,
                                                          ref.cfg.next)
    if {"Init", "Next"} <= defs:
        return "Init", "Next", _same_behavior(out_files, spec, "Init", "Next")
    init, nxt = same_place(ref, out_files, ref.cfg.init), same_place(ref, out_files, ref.cfg.next)
    if init in defs and nxt in defs:
        return init, nxt, _same_behavior(out_files, spec, init, nxt)
    parts = formula_parts(text, spec) if spec else None
    if parts is None:  # any Spec-shaped formula, e.g. a renamed copy's `TQ == Xini /\ [][Xnxt]_v`
        hit = re.search(r"^(\w+)\s*==\s*(?:/\\\s*)?\w+\s*/\\\s*\[\]\[\s*\w+\s*\]_", text, re.M)
        if hit:  # then the formula graded is that one, whose parts these are
            spec = hit.group(1)
            parts = formula_parts(text, spec)
    if parts:
        return parts[0], parts[1], spec
    init, nxt = ("Init" if "Init" in defs else None), ("Next" if "Next" in defs else None)
    return init, nxt, _same_behavior(out_files, spec, init, nxt)


def _same_behavior(out_files: Mapping[str, str], spec: str | None, init: str | None,
                   nxt: str | None) -> str | None:
    """`spec` where its parts are `init` and `nxt` (under a cfg's INIT and NEXT, a formula
    of another behavior is not the one graded), else None."""
    return spec if spec and formula_entry(out_files, spec) == (init, nxt) else None


def formula_entry(files: Mapping[str, str], spec: str) -> tuple[str, str] | None:
    """(Init, Next) of the formula `spec` as `spec_parts` reads it; where tree-sitter loses
    the definition itself (a module it reads only in part), as `formula_parts` reads its
    text: either way the formula's own parts, never operators by their usual names."""
    if spec in top_definitions(files):
        return spec_parts(files, spec)
    return formula_parts("\n".join(files.values()), spec)


def stage_output(files: Mapping[str, str], main: str, ref: Reference) -> Staged:
    """Give the output's modules fresh names so they never meet R's module names."""
    names = {f[:-4] for f in files}
    table = {m: (OUT_MODULE if m == main else f"{OUT_MODULE}_{m}") for m in sorted(names)}
    renamed = rename_module_names(files, table)
    if f"{OUT_MODULE}.tla" not in renamed:
        raise RenameError([f"module {main} could not be renamed to {OUT_MODULE}"])
    values, _ = constant_values(ref)
    ref_shape = spec_shape(ref.files, ref.main, values.literals)
    out_shape = spec_shape(renamed, OUT_MODULE)
    labels: dict[str, Any] = {}
    if "pc" in ref_shape.variables:
        labels = {"ref_labels": pluscal_labels(ref.files), "out_labels": pluscal_labels(renamed),
                  "ref_pc_is_function": bool(re.search(r"\bpc\s*=\s*\[", "\n".join(
                      ref.files.values())))}
    init, nxt, spec = entry_points(out_shape, renamed, ref)
    if (init is None or nxt is None) and spec is not None:
        # a formula `Spec == I /\\ [][N]_v` whose parts are expressions (`[][A \\/ B]_v`,
        # `Init(s)`): they are named, in the scratch copy, as the grade's entry points
        parts = spec_expressions(renamed, spec)
        main_file = f"{OUT_MODULE}.tla"
        end = list(re.finditer(r"^={4,}", renamed[main_file], re.M)) if parts else []
        if parts and end:
            cut = end[-1].start()
            text = renamed[main_file]
            conjuncts = [f"{ENTRY_INIT}_{k} =={part}\n" for k, part in enumerate(parts[0])]
            whole = " /\\ ".join(f"{ENTRY_INIT}_{k}" for k in range(len(parts[0])))
            renamed = {**renamed, main_file: f"{text[:cut]}{''.join(conjuncts)}"
                       f"{ENTRY_INIT} == {whole}\n{ENTRY_NEXT} =={parts[1]}\n{text[cut:]}"}
            out_shape = spec_shape(renamed, OUT_MODULE)
            init, nxt = ENTRY_INIT, ENTRY_NEXT
    return Staged(renamed, OUT_MODULE, out_shape, ref_shape, out_init=init, out_next=nxt,
                  out_spec=spec, module_table=table, **labels)


#: the names the scratch copy gives the parts of a specification formula written as
#: expressions (`stage_output`)
ENTRY_INIT, ENTRY_NEXT = "AliasEntryInit", "AliasEntryNext"
_ADDED_ENTRY = re.compile(rf"{ENTRY_INIT}(?:_\d+)?|{ENTRY_NEXT}")



def safety_parts(ref: Reference) -> tuple[str, str] | None:
    """(Init, Next) of the reference's SPECIFICATION formula (`Spec == I /\\ [][N]_v /\\ WF..`),
    if it has that shape: its safety part without its fairness."""
    if not ref.cfg.specification:
        return None
    return formula_parts("\n".join(ref.files.values()), ref.cfg.specification)


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
            or definition_body(ref.files, "Init") is None:
        return ref, None
    inv, nxt = parts
    text = "\n".join(ref.files.values())
    specs = [name for name in dict.fromkeys(m.group(1) for m in TOP_DEFINITION.finditer(text))
             if formula_parts(text, name) == ("Init", nxt)]
    cfg = (replace(ref.cfg, specification=specs[0], init=None, next=None) if specs
           else replace(ref.cfg, specification=None, init="Init", next=nxt))
    to = f"SPECIFICATION {specs[0]}" if specs else f"INIT Init NEXT {nxt}"
    return replace(ref, cfg=cfg, states=None), (f"the reference's model checks that its invariant {inv} is "
                                   f"inductive (its behaviors start from every state of {inv}); "
                                   f"graded against the same model with {to}, the system's "
                                   f"own behaviors from Init")


#: TLC's operators that pick a value at random in each run (module Randomization, and TLC's)
def uncovered(ref: Reference) -> tuple[Reason, str] | None:
    """Why no output can be graded by behavior against `ref`, read from its model alone: a
    constant model (no SPECIFICATION nor INIT and NEXT), or modules that draw values at random
    (`RandomElement`): TLC draws them from its seed and each state's fingerprint, so a run over
    other states (an output's, a wrapper's) draws other values. (A model of an inductive invariant
    is graded against its `system_model`.)"""
    if not ref.cfg.has_behavior:
        return Reason.REFERENCE_NO_BEHAVIOR, (
            "the reference has no behavior: its cfg names no SPECIFICATION nor INIT and NEXT (a "
            "constant model: grade it by name)")
    drawn = drawn_operators(ref.files)
    if drawn:
        return Reason.REFERENCE_RANDOM, (
            f"the reference draws values at random ({', '.join(drawn)}): TLC draws them from its "
            f"seed and each state's fingerprint, so a run over an output's states draws other "
            f"values than the reference's own run, and the two check different behaviors")
    return None

