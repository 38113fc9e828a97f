"""One entry for the behavior grade, `grade_behavior`, and the state-graph engine behind it.

The graph engine: TLC explores the reference R once (cached on disk by content) and the output
G once under R's constant values, each writing its reachable graph; a refinement mapping is
inferred in memory (`inference`) and checked forward and in reverse on the graphs; then one TLC
run confirms it through the forward wrapper (R's fairness, temporal properties and invariants).
`auto` uses the wrapper engine where a graph is over budget or the graph engine cannot model
the spec (cfg values it cannot carry, an output with constants R has no values for).
"""

from __future__ import annotations

import re
import time
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from tlc_harness.behavior import wrappers
from tlc_harness.behavior.constant_maps import ConstantPlan
from tlc_harness.behavior.constant_values import (
    as_model_values,
    carried_overrides,
)
from tlc_harness.behavior.cuts import FAILURES, cut_seed, failing_mapping, same_mapping
from tlc_harness.behavior.graphs import Exploration, StateGraph, default_cache, explore
from tlc_harness.behavior.inference import Inferred, infer, plain_failure
from tlc_harness.behavior.options import BehaviorOptions
from tlc_harness.behavior.search import Candidate
from tlc_harness.behavior.values import to_tla
from tlc_harness.behavior.wrappers import BehaviorResult, Reference
from tlc_harness.source.cfg import ModelConfig
from tlc_harness.source.identifiers import analyze_module
from tlc_harness.source.rename import RenameError
from tlc_harness.source.tokens import blank_comments
from tlc_harness.tools.results import LIMIT_VERDICTS, TraceState, Verdict
from tlc_harness.tools.runner import Harness
from tlc_harness.tools.spec import SpecInputError, SpecSource

OUTPUT_FACTOR = 20        # an output may have this many times the reference's states (at least
OUTPUT_FLOOR = 5_000      # this many) before its graph counts as too large for this engine,
OUTPUT_CAP = 4            # and at most this many times the budget (outputs often carry more
                          # state than the reference: a flag beside a value it overwrites)
#: what a cfg can hold as a constant's value: model values, numbers, strings, sets of them
_CFG_VALUE = re.compile(r'(?:[\w"{}, ]|-(?=\d))*')
#: TLC verdicts of the confirming run that mean the wrapper itself is wrong, not the output
_WRAPPER_TROUBLE = frozenset({Verdict.PARSE_ERROR, Verdict.CONFIG_BIND_FAIL,
                              Verdict.EVAL_ERROR})


def grade_behavior(harness: Harness, ref: Reference, out_files: Mapping[str, str],
                   out_main: str, options: BehaviorOptions | None = None) -> BehaviorResult:
    """The behavior verdict of the output against `ref`, by the engine `options` chooses.

    An output whose main module tree-sitter cannot read, even with its comments blanked (both
    engines take its variables and constants from it), or that cannot be staged for TLC (its
    module names cannot be given fresh names), is `undecided`, with the reason: the grader's
    limit, not the output's failure.
    """
    options = options or BehaviorOptions()
    start = time.monotonic()
    source = out_files.get(f"{out_main}.tla")
    if source is not None and not analyze_module(source).module:
        # comments mean nothing to TLC; tree-sitter may fail on one (a PlusCal algorithm
        # that mixes the two syntaxes) and read the module without them
        out_files = {name: blank_comments(text) if name.endswith(".tla") else text
                     for name, text in out_files.items()}
        if not analyze_module(out_files[f"{out_main}.tla"]).module:
            return BehaviorResult("undecided", None, "tree-sitter cannot read the output's "
                                  "module, so its variables and constants are unknown to the "
                                  "grader", time.monotonic() - start, engine=options.engine)
    ref, system = wrappers.system_model(ref)
    try:
        result = _grade(harness, ref, out_files, out_main, options)
        return replace(result, details={**result.details, "reference_model": system}) \
            if system else result
    except (RenameError, SpecInputError) as exc:
        return BehaviorResult("undecided", None, f"the output cannot be staged for TLC: {exc}",
                              time.monotonic() - start, engine=options.engine)


def _grade(harness: Harness, ref: Reference, out_files: Mapping[str, str], out_main: str,
           options: BehaviorOptions) -> BehaviorResult:
    if options.engine == "wrappers":
        return wrappers.behavior_grade(harness, ref, out_files, out_main, limit=options.limit,
                                       timeout=options.timeout)
    start = time.monotonic()
    graded = _GraphGrade(harness, ref, out_files, out_main, options).run()
    if isinstance(graded, BehaviorResult):
        return graded
    if options.engine == "graphs":
        return BehaviorResult("undecided", None, f"the graph engine cannot grade this: "
                              f"{graded.why}", time.monotonic() - start, engine="graphs",
                              tlc_runs=graded.tlc_runs, details=graded.details)
    result = wrappers.behavior_grade(harness, ref, out_files, out_main, limit=options.limit,
                                     timeout=options.timeout)
    return replace(result, seconds=time.monotonic() - start,
                   tlc_runs=result.tlc_runs + graded.tlc_runs,
                   details={**result.details, "fallback": graded.why})


@dataclass(frozen=True)
class _Fallback:
    """Why the graph engine steps aside (the wrapper engine decides under `auto`)."""

    why: str
    tlc_runs: int = 0
    details: dict[str, Any] = field(default_factory=dict)


@dataclass
class _GraphGrade:
    harness: Harness
    ref: Reference
    out_files: Mapping[str, str]
    out_main: str
    options: BehaviorOptions
    runs: int = 0
    started: float = field(default_factory=time.monotonic)
    facts: dict[str, Any] = field(default_factory=dict)
    #: the values of the output's constants (see `ConstantPlan`)
    plan: ConstantPlan = field(init=False)

    def __post_init__(self) -> None:
        self.plan = ConstantPlan(self.ref)

    def result(self, verdict: str, reason: str, **kw: Any) -> BehaviorResult:
        return BehaviorResult(verdict, kw.pop("mapping", None), reason,
                              time.monotonic() - self.started, tlc_runs=self.runs,
                              engine="graphs", details={**self.facts, **kw.pop("details", {})},
                              **kw)

    def fallback(self, why: str) -> _Fallback:
        return _Fallback(why, self.runs, dict(self.facts))

    def run(self) -> BehaviorResult | _Fallback:
        ref = self.ref
        why = wrappers.uncovered(ref)
        if why:
            return self.result("not_covered", why)
        values, unsupported = wrappers._constant_values(ref)
        if unsupported:
            return self.result("not_covered", unsupported)
        staged = wrappers._stage_output(self.out_files, self.out_main, ref)
        if staged.out_init is None or staged.out_next is None:
            missing = [d for d, v in (("Init", staged.out_init), ("Next", staged.out_next))
                       if v is None]
            return self.result("no_mapping", f"the output defines no {' or '.join(missing)}")
        ref_graph = self.explore(SpecSource(ref.main, dict(ref.files)), ref.cfg, ref.tlc_args,
                                 cached=True)
        if ref_graph.graph is None:
            if ref_graph.verdict == "over_budget":
                return self.fallback(f"the reference's graph has {ref_graph.detail}")
            if ref_graph.verdict in {v.value for v in LIMIT_VERDICTS}:
                return self.result("undecided", f"exploring the reference: {ref_graph.detail}")
            return self.result("not_covered", f"the reference's graph cannot be explored "
                               f"({ref_graph.verdict}: {ref_graph.detail[:200]})")
        self.facts["reference_states"] = len(ref_graph.graph)
        # cfg entries that give a reference definition a value (a name the reference's modules
        # never write, such as `r1 = r1` beside `Replicas = {r1, ...}`, only names a model value)
        carried = carried_overrides(ref, staged, values)
        overrides = sorted({*(n for n in values.via_ref
                              if wrappers._out_name(ref, staged, n) not in carried),
                            *(n for n, _ in values.qualified),
                            *(n for n, _, _ in wrappers._value_overrides(ref, staged)
                              if _written(ref, n))})
        groups = self.plan.maps(staged, values)
        first: BehaviorResult | None = None if groups else self.no_constants(staged)
        for group in groups or []:
            graded = self.under_every_value(staged, values, group, ref_graph.graph)
            if isinstance(graded, _Fallback) and first is not None and \
                    first.verdict in FAILURES and graded.details.get("cut_under"):
                # a likelier map failed; a less likely one whose cut TLC cannot run (the
                # mapping's fault, not the output's) leaves that failure standing
                continue
            if isinstance(graded, _Fallback) or graded.passed:
                return graded
            # a forward failure under every number tried is the output's, not the numbers'
            swept = set(graded.details.get("failed_under_every_value", ()))
            guessed = [g for g in self.plan.guessed(group[0]) if g not in swept]
            if guessed and graded.verdict in FAILURES:
                # a failure under values the reference does not fix may be the values' fault
                graded = replace(graded, verdict="no_mapping", reason=(
                    f"under values the reference does not fix for {', '.join(guessed)} "
                    f"({_given_text({g: group[0][g] for g in guessed})}): {graded.verdict}: "
                    f"{graded.reason}"))
            if first is None or _further(graded, first):  # a map that got further wins
                first = graded
        assert first is not None
        if overrides and self.options.engine == "auto":
            # the output's own run cannot carry these; TLC's wrappers can (an `ok` is
            # confirmed through them, a failure is theirs to decide)
            return self.fallback(f"the reference's cfg gives {', '.join(overrides)} by "
                                 f"definition, which the output's graph run does not carry "
                                 f"(graphs said {first.verdict})")
        return first

    def explore(self, spec: SpecSource, cfg: ModelConfig, tlc_args: tuple[str, ...], *,
                cached: bool, definitions: list[str] | None = None,
                budget: int | None = None) -> Exploration:
        cache = (self.options.cache or default_cache()) if cached else None
        found = explore(self.harness, spec, cfg, tlc_args=tlc_args,
                        budget=budget or self.options.budget, timeout=self.options.timeout,
                        cache=cache, definitions=definitions or ())
        self.runs += found.tlc_runs
        return found

    def under_every_value(self, staged: wrappers._Staged, values: wrappers.CfgValues,
                          group: list[dict[str, str]], ref_graph: StateGraph
                          ) -> BehaviorResult | _Fallback:
        """The grade under one constant map, whichever values its BOOLEAN constants and its
        guessed numbers take (each is tried: the output's parameter is the grader's to
        choose): `ok` under one of them; a failure only when every value the output's ASSUMEs
        allow fails. For guessed numbers a failure also needs one forward failure among them
        (a bound too small to follow the reference may be the number's fault; a step the
        reference forbids is the output's); not for a number that stands for a reference
        model value (the translation pairs it with that value whichever it is). Otherwise,
        or when the values disagree, the grade is `no_mapping`."""
        results: list[BehaviorResult] = []
        for const_map in group:
            graded = self.under(staged, values, const_map, ref_graph)
            if isinstance(graded, _Fallback) or graded.passed or len(group) == 1:
                return graded
            results.append(graded)
        varying = [g for g in group[0] if len({m[g] for m in group}) > 1]
        tried = "; ".join(f"{g} in {{{', '.join(dict.fromkeys(m[g] for m in group))}}}"
                          for g in varying)
        failed = [r for r in results if r.verdict in FAILURES]
        rejected = [r for r in results if r.details.get("assume_rejected")]
        forward = [r for r in results if r.verdict == "forward_fail"]
        if failed and len(failed) + len(rejected) == len(results):
            shown = (forward or failed)[0]
            return replace(shown, reason=f"under every value of {', '.join(varying)} "
                           f"({tried}: {len(failed)} tried, {len(rejected)} rejected by the "
                           f"output's ASSUME): {shown.reason}",
                           details={**shown.details, "failed_under_every_value": [
                               g for g in varying if forward or g in self.plan.standing
                               or group[0][g] in ("TRUE", "FALSE")]}, **self.totals())
        best = max(results, key=_progress)
        if best.verdict in FAILURES:  # another value gave no mapping: nothing is decided
            return replace(best, verdict="no_mapping", reason=(
                f"{best.verdict} under some values of {', '.join(varying)} ({tried}), no "
                f"mapping under others: {best.reason}"), **self.totals())
        return replace(best, **self.totals())

    def totals(self) -> dict[str, Any]:
        """The grade's TLC runs and seconds so far (a grade over several values sums them)."""
        return {"tlc_runs": self.runs, "seconds": time.monotonic() - self.started}

    def no_constants(self, staged: wrappers._Staged) -> BehaviorResult:
        return self.result("no_mapping", "the output declares more constants ("
                           f"{', '.join(staged.out_shape.constants)}) than the reference has "
                           "constants or literal definitions to give them values (of the "
                           "reference: " + (", ".join(staged.ref_shape.constants) or "none")
                           + ")")

    def under(self, staged: wrappers._Staged, values: wrappers.CfgValues,
              const_map: dict[str, str], ref_graph: StateGraph,
              cut: Candidate | None = None) -> BehaviorResult | _Fallback:
        """Explore G with R's values for its constants, infer, and confirm with TLC (`cut`:
        the mapping G's graph is cut under, for a reference bounded by a CONSTRAINT)."""
        constants, overrides, definitions = [], [], []
        for g, r in const_map.items():
            text = values.literals[r]
            if _CFG_VALUE.fullmatch(text.strip()):
                constants.append((g, text))
            else:  # a value a cfg cannot hold goes through a definition
                definitions.append(f"AliasVal_{g} == {text}")
                overrides.append((g, f"AliasVal_{g}"))
        for name, value, home in wrappers._value_overrides(self.ref, staged):
            entry = wrappers._out_value_override(self.ref, staged, name, value, home,
                                                 qualify=True)
            if entry and entry[0] not in const_map:  # R's cfg gives a definition a value
                constants.append(entry)
        for name, text in carried_overrides(self.ref, staged, values).items():
            definitions.append(f"AliasOvr_{name} == {text}")  # `Nat <- NatOverride`, bounded
            overrides.append((name, f"AliasOvr_{name}"))
        given = {name for name, _ in constants}
        constants += [(name, name) for name in wrappers.outside_values(staged.out_files)
                      if name not in given]  # `None == CHOOSE v : v \notin S`: a model value
        cfg = ModelConfig(constants=tuple(constants), overrides=tuple(overrides),
                          specification=staged.out_spec,
                          init=None if staged.out_spec else staged.out_init,
                          next=None if staged.out_spec else staged.out_next)
        budget = min(OUTPUT_CAP * self.options.budget,
                     max(OUTPUT_FACTOR * len(ref_graph), OUTPUT_FLOOR))
        # R's graph stops where its CONSTRAINT fails; G's is cut where its image does, under
        # a seed mapping (or, when none fits, explored whole): an `ok` found there holds, a
        # failure only under the mapping the graph was cut under (see below)
        bounded = bool(self.ref.cfg.constraints or self.ref.cfg.action_constraints)
        seeded = cut is None
        if bounded and cut is None:
            cut = cut_seed(staged, const_map)
        if cut is not None:
            self.facts["cut_under"] = _describe(cut)
            src, wcfg = wrappers._forward(self.ref, staged, cut, values)
            found = self.explore(src, wcfg, (), cached=False, budget=budget)
        else:
            found = self.explore(SpecSource(staged.out_main, staged.out_files), cfg, (),
                                 cached=False, definitions=definitions, budget=budget)
        if found.graph is None:
            if found.verdict == "over_budget":
                why = (f"cut at the reference's CONSTRAINT under {_describe(cut)}" if cut
                       else "the reference is bounded by a CONSTRAINT the output's run lacks"
                       if bounded else f"{OUTPUT_FACTOR} times the reference's"
                       if budget < OUTPUT_CAP * self.options.budget else
                       f"{OUTPUT_CAP} times the graph budget")
                return self.fallback(f"the output's graph has {found.detail} ({why})")
            if found.verdict in {v.value for v in LIMIT_VERDICTS}:
                return self.result("undecided", f"exploring the output: {found.detail}")
            if found.verdict == "assumption_failed":  # these values do not fit its constants
                return self.result("no_mapping", "the output's ASSUME rejects the reference's "
                                   f"values for its constants ({_given_text(const_map)})",
                                   details={"assume_rejected": True})
            if cut is not None:  # the cut's mapping, or the output: its own run tells
                own = self.explore(SpecSource(staged.out_main, staged.out_files), cfg, (),
                                   cached=False, definitions=definitions, budget=budget)
                if own.graph is not None or own.verdict == "over_budget" or \
                        own.verdict in {v.value for v in LIMIT_VERDICTS}:
                    return self.fallback(f"the output's run cut at the reference's "
                                         f"CONSTRAINT under {_describe(cut)} stops "
                                         f"({found.verdict}: {found.detail[:200]})")
                found = own
            why = ("the output has no initial state" if found.verdict == "vacuous" else
                   f"the output's own run fails under the reference's constants "
                   f"({found.verdict}: {found.detail[:200]})")
            chosen = sorted(g for g, r in const_map.items()
                            if self.plan.typed_values.get(r) == "set")
            if found.verdict == Verdict.EVAL_ERROR.value and chosen:
                # TLC compares an integer with a string only by stopping: a set of processes
                # written as numbers may break an output that works with any other elements,
                # such as model values (the translation pairs them with the numbers)
                other_elements = as_model_values(const_map, chosen, values)
                if other_elements is not None:
                    self.facts["model_values_for"] = chosen
                    return self.under(staged, values, other_elements, ref_graph)
                return self.result("no_mapping", f"{why}, with elements the grader chose for "
                                   f"{', '.join(chosen)} ({_given_text(const_map)})")
            return self.result("forward_fail", why)
        out_graph = found.graph
        self.facts["output_states"] = len(out_graph)
        t0 = time.monotonic()
        # a state whose successors a CONSTRAINT drops has no edge in either graph: TLC's
        # confirming run, not the graphs, checks deadlock then
        deadlock = (self.ref.cfg.check_deadlock is not False and not bounded
                    and "-deadlock" not in self.ref.tlc_args)
        inferred = infer(out_graph, ref_graph, seconds=max(10.0, (self.options.timeout or 300)),
                         deadlock=deadlock)
        self.facts["inference_seconds"] = round(time.monotonic() - t0, 3)
        self.facts["mappings_checked"] = inferred.tried
        if bounded and inferred.verdict != "ok":
            # an `ok` holds however G's graph was cut (its states are reachable, and TLC's
            # confirming run cuts under the mapping found); a failure holds under the mapping
            # G's graph was cut under, so it counts when found under that very mapping (G is
            # cut again under the one it was found under, once)
            failing = failing_mapping(inferred, const_map)
            settled = failing is not None and cut is not None and same_mapping(failing, cut)
            if not settled and failing is not None and seeded:
                recut = self.under(staged, values, const_map, ref_graph, cut=failing)
                if not isinstance(recut, _Fallback) or cut is None:
                    return recut
                # TLC cannot run the cut of the mapping the failure was found under; the
                # seed's own failure on its own cut is one, and no mapping passed there
                seed_failure = plain_failure(out_graph, ref_graph, dict(cut.variables))
                if seed_failure is None:
                    return recut
                self.facts["cut_under"] = _describe(cut)
                inferred, settled = seed_failure, True
            if not settled:
                where = f"cut under {_describe(cut)}" if cut else "not cut"
                return self.fallback(f"the reference is bounded by a CONSTRAINT; on the "
                                     f"output's graph ({where}) graphs found "
                                     f"{inferred.verdict} under another mapping than the "
                                     f"cut's: {inferred.reason}")
        failed = None
        if inferred.verdict != "ok":
            failed = self.result(inferred.verdict, inferred.reason,
                                 trace=_trace(inferred, out_graph, ref_graph),
                                 details={"trace_of": _trace_of(inferred)})
            if inferred.verdict != "reverse_fail" or not inferred.variables:
                return failed
        cand = Candidate(inferred.variables, const_map, tuple(inferred.definitions),
                         labels=False, model_values=tuple(inferred.model_values))
        mapping = cand.to_json()
        self.facts["hidden"] = list(inferred.hidden)
        ref_constants = frozenset(staged.ref_shape.constants)
        self.facts["mapping_tla"] = _substitutions(cand, ref_constants, frozenset(self.plan.symbols))
        src, wcfg = wrappers._forward(self.ref, staged, cand, values)
        check = self.harness.check(src, wcfg, tlc_args=self.ref.tlc_args,
                                   timeout=self.options.timeout, compat=True)
        self.runs += 1
        note = ""
        if check.verdict is Verdict.EVAL_ERROR and wrappers.safety_parts(self.ref):
            # TLC may be unable to evaluate R's fairness as a property (an action of it that
            # reads a primed variable it leaves unset): the graphs decided both directions,
            # TLC checks the rest without it
            src, wcfg = wrappers._forward(self.ref, staged, cand, values, fairness=False)
            retry = self.harness.check(src, wcfg, tlc_args=self.ref.tlc_args,
                                       timeout=self.options.timeout, compat=True)
            self.runs += 1
            if retry.verdict is not Verdict.EVAL_ERROR:
                self.facts["fairness_checked"] = False
                why = check.detail.strip()[:120]
                note = (" (without the reference's fairness, which TLC cannot evaluate as a "
                        "property here" + (f": {why}" if why else "") + ")")
                check = retry
        if failed is not None:  # reverse fails on the graphs; TLC's forward run may fail too
            if check.verdict in LIMIT_VERDICTS or check.verdict in _WRAPPER_TROUBLE or \
                    check.passed:
                return replace(failed, mapping=mapping, tlc_runs=self.runs,
                               seconds=time.monotonic() - self.started)
        elif check.verdict is Verdict.OK and not check.vacuous:
            return self.result("ok", f"refines both ways under {_describe(cand, ref_constants)}"
                               f"{note}", mapping=mapping)
        if check.verdict in LIMIT_VERDICTS:
            return self.result("undecided", f"confirming run: {wrappers._label(check)}",
                               mapping=mapping)
        if check.verdict in _WRAPPER_TROUBLE:
            return self.fallback(f"TLC could not run the inferred mapping "
                                 f"({wrappers._label(check)}: {check.detail[:200]})")
        return self.result("forward_fail", f"under {_describe(cand, ref_constants)}, TLC's "
                           f"forward run finds {wrappers._label(check)} (the reference's "
                           f"specification with its fairness, a temporal property or an "
                           f"invariant){note}", mapping=mapping,
                           trace=check.trace, details={"trace_of": "output"})


def _written(ref: Reference, name: str) -> bool:
    """Whether a reference module writes `name` anywhere."""
    word = re.compile(rf"\b{re.escape(name)}\b")
    return any(word.search(text) for file, text in ref.files.items() if file.endswith(".tla"))


def _progress(result: BehaviorResult) -> int:
    """How far a grade got: a failure > no mapping found > values rejected by an ASSUME."""
    if result.verdict in FAILURES:
        return 2
    return 0 if result.details.get("assume_rejected") else 1


def _further(graded: BehaviorResult, first: BehaviorResult) -> bool:
    """Whether `graded` replaces `first` as the grade to report: the first failure stays;
    among the rest the one that got further (an ASSUME's rejection says least)."""
    if first.verdict != "no_mapping":
        return False
    return graded.verdict != "no_mapping" or _progress(graded) > _progress(first)


def _given_text(const_map: Mapping[str, str]) -> str:
    return ", ".join(f"{g} = {r}" for g, r in const_map.items()) or "none"


def _describe(cand: Candidate, ref_constants: frozenset[str] = frozenset()) -> str:
    """The mapping in a line: `r <- e` per reference variable and constant; an output constant
    that a reference definition or count gives its value reads `N = Cardinality(Procs)`."""
    parts = [f"{r} <- {e}" for r, e in cand.variables.items() if r != e]
    parts += [f"{r} <- {g}" if r in ref_constants else f"{g} = {r}"
              for g, r in cand.constants.items() if r != g]
    text = ", ".join(parts) or "identity"
    return text if len(text) <= 300 else text[:297] + "..."


def _substitutions(cand: Candidate, ref_constants: frozenset[str],
                   symbols: frozenset[str] = frozenset()) -> str:
    """The mapping as TLA+: the definitions it needs and the INSTANCE substitutions."""
    subs = [f"{r} <- {e}" for r, e in cand.variables.items()]
    subs += [f"{r} <- {g}" for g, r in cand.constants.items() if r in ref_constants]
    given = [f"\\* the output's constant {g} is " + ("a model value" if g in symbols
                                                   else f"given {r}")
             for g, r in cand.constants.items() if r not in ref_constants]
    return "\n".join([*cand.definitions, *given,
                      "INSTANCE Reference WITH " + ",\n    ".join(subs)])


def _trace_of(inferred: Inferred) -> str:
    cx = inferred.counterexample
    return "reference" if cx is not None and cx.ref_path and not cx.out_path else "output"


def _trace(inferred: Inferred, out: StateGraph, ref: StateGraph) -> tuple[TraceState, ...]:
    """The counterexample's states: G's behavior (forward) or R's (reverse)."""
    cx = inferred.counterexample
    if cx is None:
        return ()
    graph, path = (out, cx.out_path) if cx.out_path else (ref, cx.ref_path)
    states = []
    for n, s in enumerate(path, 1):
        action = "Initial predicate" if n == 1 else graph.actions.get((path[n - 2], s), "")
        states.append(TraceState(n, action, {v: to_tla(x) for v, x in
                                             zip(graph.variables, graph.states[s], strict=True)}))
    return tuple(states)
