"""TLC's confirming run, for the grammar's mapping and for the candidates the classes find.

The grammar's search gives one mapping; where it fails and its failure is no proof (the named
class holds a member that passes both graph checks, or the graphs are isomorphic or map onto
the reference's under a state mapping), those candidates are mappings too: each is written as
a table over the output's states (`table_mapping`) and confirmed by TLC like the grammar's
(forward run with the reference's fairness and properties, then the output's liveness in
reverse). One that TLC confirms is an `ok`; one it refutes is recorded and the failure keeps
its class. At most `MAX_TABLE_TRIES` candidates are tried per failure, and as many more as
there are isomorphisms where the graphs are isomorphic (`any_mapping.MAX_ISOMORPHISMS`):
counts, not seconds. Where the graphs are isomorphic and every isomorphism is tried and
refuted (the failure's own mapping included), the failure holds under every mapping that
could work (`mapping_class` `any_mapping`): a one-to-one mapping that keeps steps is one of
them. An isomorphism the table refuses (it routes around a named variable) is not refuted,
and the class stays incomplete.
"""

from __future__ import annotations

from dataclasses import replace

from tlc_harness.behavior.deadlock import DETAIL as DEADLOCK_DETAIL
from tlc_harness.behavior.deadlock import checks_deadlock, reference_deadlocks, without_deadlock
from tlc_harness.behavior.graph_engine.any_mapping import MAX_ISOMORPHISMS
from tlc_harness.behavior.graph_engine.completeness import MAX_HOLDERS
from tlc_harness.behavior.graph_engine.confirm import Confirmation, confirm
from tlc_harness.behavior.graph_engine.describe import substitutions
from tlc_harness.behavior.graph_engine.late_checks import LateChecks
from tlc_harness.behavior.graph_engine.table_mapping import table_mapping
from tlc_harness.behavior.graphs import StateGraph
from tlc_harness.behavior.search import Candidate
from tlc_harness.behavior.staging import CfgValues, Reference, Staged
from tlc_harness.behavior.verdicts import FAILURES, BehaviorResult, BehaviorVerdict
from tlc_harness.behavior.wrapper_modules import check_label
from tlc_harness.tools.results import Verdict

#: candidates confirmed by TLC per failure whose class is incomplete: every member of the
#: named class that the graphs cannot refute, and the graphs' own state mapping
MAX_TABLE_TRIES = MAX_HOLDERS + 1
#: what TLC's forward run finds that refutes a candidate (not a limit, not the wrapper's own
#: trouble: a violation of the reference's invariants, properties or freedom from deadlock)
REFUTED = frozenset({Verdict.INVARIANT_VIOLATED, Verdict.PROPERTY_VIOLATED, Verdict.DEADLOCK})


class TableCandidates(LateChecks):
    """TLC's confirming run, and the candidates of the classes confirmed as tables."""

    def confirmed(self, ref: Reference, staged: Staged, cand: Candidate,
                  values: CfgValues) -> tuple[Confirmation, Reference]:
        """TLC's forward run under `cand`, and the reference it ran against: where the run
        deadlocks and the reference's own model does too, without the deadlock check (under
        a CONSTRAINT a deadlock counts only where the reference has none)."""
        timeout = self.job.options.timeout
        with self.timed("confirm"):
            confirmed = confirm(self.job.harness, ref, staged, cand, values, timeout)
            self.runs += confirmed.tlc_runs
            if confirmed.check.verdict is Verdict.DEADLOCK and checks_deadlock(ref):
                stuck = reference_deadlocks(self.job.harness, ref, timeout)
                self.runs += 1
                if stuck is not None:
                    self.facts[DEADLOCK_DETAIL] = stuck
                    ref = without_deadlock(ref)
                    confirmed = confirm(self.job.harness, ref, staged, cand, values, timeout)
                    self.runs += confirmed.tlc_runs
        return confirmed, ref

    def or_table(self, failed: BehaviorResult, out_graph: StateGraph, ref_graph: StateGraph,
                 staged: Staged, values: CfgValues, const_map: dict[str, str], *,
                 deadlock: bool, found: list[int] | None = None,
                 images: list[tuple[str, tuple[int, ...]]] | None = None) -> BehaviorResult:
        """`failed`, or an `ok` under a candidate of the classes that TLC confirms (`images`,
        else those `with_class` found for this failure); only a failure whose class is not
        complete is tried."""
        pending = images if images is not None else self.class_candidates
        rest = self.class_rest if images is None else None
        every = self.class_every if images is None else None
        self.class_candidates, self.class_rest, self.class_every = [], None, None
        if failed.verdict in FAILURES and failed.details.get("mapping_class") != "incomplete":
            return failed
        tried: list[str] = []
        seen = {tuple(found)} if found else set()
        # the mapping the failure was found under is refuted by it
        refuted: set[tuple[int, ...]] = set(seen) if failed.verdict in FAILURES else set()
        rows = 0
        for source, image in pending:
            if len(tried) >= MAX_TABLE_TRIES + MAX_ISOMORPHISMS:
                break
            if image in seen:
                continue
            seen.add(image)
            inferred = table_mapping(out_graph, ref_graph, image, deadlock=deadlock)
            if inferred is None:
                continue
            cand = Candidate(inferred.variables, const_map, tuple(inferred.definitions),
                             labels=False, model_values=tuple(inferred.model_values))
            rows += len(out_graph)
            confirmed, _ = self.confirmed(self.job.ref, staged, cand, values)
            check = confirmed.check
            if check.verdict is Verdict.OK and not check.vacuous:
                live = self.reverse_liveness(staged, values, cand, inferred.image)
                if not isinstance(live, BehaviorResult):
                    ref_constants = frozenset(staged.ref_shape.constants)
                    return self.result(
                        BehaviorVerdict.OK, f"refines both ways under a table of the output's "
                        f"{len(out_graph)} states, found by {source}{confirmed.note}",
                        mapping=cand.to_json(), details={
                            **live, "mapping_source": source,
                            "mapping_tla": substitutions(cand, ref_constants)})
                tried.append(f"{source}: {live.verdict} ({live.code})")
                if live.verdict in FAILURES:
                    refuted.add(image)
            else:
                tried.append(f"{source}: {check_label(check)}")
                if check.verdict in REFUTED:
                    refuted.add(image)
        if not tried:
            return failed
        details = {**failed.details, "table_candidates": tried, "table_rows": rows}
        if every is not None and set(every.every_image) <= refuted:
            # the graphs are isomorphic, so every mapping that could work is one of these
            details.update(mapping_class="any_mapping", mapping_class_reason=(
                f"{every.why}: every mapping that could work is one of the isomorphisms, "
                f"and TLC refutes each (the reference's fairness and properties forward, "
                f"the output's liveness in reverse): no mapping of the output's states works"))
        elif rest is not None and set(rest.holders) <= refuted:
            # every member the graphs could not refute, TLC does: the named class is decided
            details.update(mapping_class=rest.kind, mapping_class_reason=(
                f"{rest.why}, each of which TLC refutes (the reference's fairness and "
                f"properties forward, the output's liveness in reverse)"))
        return replace(failed, details=details)
