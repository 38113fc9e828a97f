"""The failure taxonomy (reports.taxonomy, reports.render_taxonomy*): a crafted record lands in
each class of each stage, the classes add up to the totals and agree with Table 1's passes,
the tables of a committed fixture of crafted records (tests/fixtures/taxonomy/results.jsonl,
written for these tests: every class of every stage, two models, two conditions) are
snapshot-tested, and the HTML page shows the stacked bars and links the examples."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from syrupy.assertion import SnapshotAssertion

from alias_fixtures.grading.parse_failures import PARSE_FAILURE_CLASSES
from reports.records import load_records, records_to_frame
from reports.render import write_report
from reports.render_taxonomy_svg import stacked_bars
from reports.schema import GRADES
from reports.summary import summary_lines
from reports.taxonomy import (
    CLASSES,
    STAGES,
    UNDECIDED_CAUSES,
    class_changes,
    class_counts,
    classify,
    taxonomy_frame,
)
from tlc_harness.behavior.verdicts import BehaviorVerdict, Reason

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "taxonomy" / "results.jsonl"
FAST = 2000

OK = {"verdict": "ok", "passed": True}
NO_PARSE = {"verdict": "parse_error", "passed": False}


def record(parse: dict[str, Any] | None = None, name: dict[str, Any] | None = None,
           behavior: dict[str, Any] | None = None, **extra: Any) -> dict[str, Any]:
    """A case record with the grades given (absent: not in the record)."""
    grades = {g: v for g, v in (("parse", parse), ("name", name), ("behavior", behavior))
              if v is not None}
    return {"schema_version": 1, "kind": "case", "model": "m", "task": "t",
            "condition": "original", "sample": 0, "hidden_names": ["Hid"], "grades": grades,
            "infra_error": None, **extra}


def bind(*missing: str, **extra: Any) -> dict[str, Any]:
    return {"verdict": "config_bind_fail", "passed": False, "missing_names": list(missing),
            **extra}


def fail(verdict: str, code: str | None, basis: str | None = None) -> dict[str, Any]:
    return {"verdict": verdict, "passed": False, "covered": True, "reason_code": code,
            **({"mapping_basis": basis} if basis else {})}


def parse_error(kind: str) -> dict[str, Any]:
    return {"verdict": "parse_error", "passed": False, "failure_class": kind,
            "failure_evidence": "shown"}


INFRA = record(OK, OK, OK, infra_error="TLC worker died")
CHEAT = record(OK, OK, OK, cheats=[{"rule": "spec_false"}])
#: stage -> class -> a crafted record that lands in it
CRAFTED: dict[str, dict[str, dict[str, Any]]] = {
    "parse": {
        "passed": record(OK),
        "no_module": record({"verdict": "no_module", "passed": False}),
        "forbidden_import": record({"verdict": "forbidden_import", "passed": False}),
        **{kind: record(parse_error(kind)) for kind in PARSE_FAILURE_CLASSES},
        "unclassified": record(NO_PARSE),
        "not_run": record(None, OK),
        "cheat": CHEAT, "infra": INFRA,
    },
    "name": {
        "passed": record(OK, OK),
        "missing_hidden": record(OK, bind("Hid")),
        "missing_stated": record(OK, bind("Hid", "Said")),
        "bind_error": record(OK, bind()),
        "assumption": record(OK, {"verdict": "assumption_failed", "passed": False}),
        "invariant": record(OK, {"verdict": "invariant_violated", "passed": False,
                                 "violated": "TypeOK"}),
        "property": record(OK, {"verdict": "property_violated", "passed": False}),
        "deadlock": record(OK, {"verdict": "deadlock", "passed": False}),
        "eval_error": record(OK, {"verdict": "eval_error", "passed": False}),
        "vacuous": record(OK, {"verdict": "ok", "passed": False, "vacuous": True}),
        "limit": record(OK, {"verdict": "timeout", "passed": False}),
        "not_parsed": record(NO_PARSE, NO_PARSE),
        "unclassified": record(OK, {"verdict": "config_bind_fail", "passed": False}),
        "not_run": record(OK, {"verdict": "not_run", "passed": False}),
        "cheat": CHEAT, "infra": INFRA,
    },
    "behavior": {
        "passed": record(OK, OK, {**OK, "covered": True}),
        "forward_any_mapping": record(OK, OK, fail("forward_fail", "graph_forward",
                                                   "any_mapping")),
        "forward_named": record(OK, OK, fail("forward_fail", "graph_forward",
                                             "named_bijections")),
        "forward_natural": record(OK, OK, fail("forward_fail", "graph_forward",
                                               "named_renamings")),
        "forward_own_run": record(OK, OK, fail("forward_fail", "output_run_fails", "own_run")),
        "reverse_any_mapping": record(OK, OK, fail("reverse_fail", "too_few_states",
                                                   "any_mapping")),
        "reverse_named": record(OK, OK, fail("reverse_fail", "graph_reverse",
                                             "named_functions")),
        "reverse_natural": record(OK, OK, fail("reverse_fail", "graph_reverse",
                                               "named_renamings")),
        "undecided_no_mapping": record(OK, OK, fail("no_mapping", "no_candidate")),
        "undecided_class_incomplete": record(OK, OK, fail("no_mapping",
                                                          "mapping_class_incomplete")),
        "undecided_constants": record(OK, OK, fail("undecided", "value_guessed")),
        "undecided_budget": record(OK, OK, fail("undecided", "state_budget")),
        "undecided_unchecked": record(OK, OK, fail("undecided", "liveness_unchecked")),
        "undecided_tool": record(OK, OK, fail("undecided", "unstageable_output")),
        "not_covered": record(OK, OK, {"verdict": "not_covered", "passed": False,
                                       "covered": False}),
        "not_parsed": record(NO_PARSE, NO_PARSE, NO_PARSE),
        "unclassified": record(OK, OK, fail("forward_fail", "graph_forward")),
        "not_run": record(OK, OK, {"verdict": "not_run", "passed": False}),
        "cheat": CHEAT, "infra": INFRA,
    },
}
CASES = [pytest.param(stage, key, id=f"{stage}-{key}") for stage, by in CRAFTED.items()
         for key in by]


def placed(case: dict[str, Any]) -> dict[str, str]:
    """The class of `case` in each stage, as the report reads it (the record validated and its
    infrastructure error and cheat read by the records frame)."""
    row = records_to_frame([case]).iloc[0]
    return {s: p.key for s, p in classify(case, infra=bool(row["infra"]),
                                          cheat=bool(row["cheat"])).items()}


# -- every class ------------------------------------------------------------------------------

def test_every_class_of_every_stage_has_a_crafted_record() -> None:
    assert {s: list(by) for s, by in CRAFTED.items()} == {
        s: [c.key for c in CLASSES[s]] for s in STAGES}


@pytest.mark.parametrize(("stage", "key"), CASES)
def test_a_crafted_record_lands_in_its_class(stage: str, key: str) -> None:
    assert placed(CRAFTED[stage][key])[stage] == key


def test_the_classes_are_closed_sets() -> None:
    assert STAGES == GRADES
    for stage, classes in CLASSES.items():
        keys = [c.key for c in classes]
        assert len(keys) == len(set(keys)), stage
        assert len({c.color for c in classes}) == len(classes), stage
    parse = {c.key for c in CLASSES["parse"]}
    assert set(PARSE_FAILURE_CLASSES) <= parse
    undecided = [r for r in Reason if r.verdict in (BehaviorVerdict.NO_MAPPING,
                                                    BehaviorVerdict.UNDECIDED)]
    assert sorted(UNDECIDED_CAUSES) == sorted(undecided)  # every code has its class
    assert set(UNDECIDED_CAUSES.values()) <= {c.key for c in CLASSES["behavior"]}


def test_no_class_is_read_from_a_messages_text() -> None:
    """The reason and SANY's errors may say anything: the class stays the record's."""
    talkative = record({**NO_PARSE, "reason": "Unknown operator: `Cardinality'.",
                        "errors": ["Cannot find source file for module Booleans"]})
    assert placed(talkative)["parse"] == "unclassified"
    hidden = record(OK, {"verdict": "config_bind_fail", "passed": False,
                         "reason": "not defined or without value: X (hidden name)"})
    assert placed(hidden)["name"] == "unclassified"


# -- the committed fixture --------------------------------------------------------------------

@pytest.fixture(scope="module")
def report_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("taxonomy") / "report"
    write_report([FIXTURE], out, n_boot=FAST)
    return out


def test_the_fixture_holds_every_class() -> None:
    frame = taxonomy_frame([str(FIXTURE)])
    for stage in STAGES:
        assert set(frame[f"{stage}_class"]) == {c.key for c in CLASSES[stage]}, stage


def test_classes_add_up_to_the_totals_and_passed_is_table1s_pass() -> None:
    frame = taxonomy_frame([str(FIXTURE)])
    records = load_records(FIXTURE)
    for stage in STAGES:
        counts = class_counts(frame, stage)
        for (model, cond), part in counts.groupby(["model", "condition"]):
            cases = records[(records["model"] == model) & (records["condition"] == cond)]
            assert part["count"].sum() == len(cases) == part["total"].iloc[0]
            assert abs(part["share"].sum() - 100.0) < 1e-9
            passed = part.loc[part["key"] == "passed", "count"].sum()
            assert passed == cases[f"{stage}_pass"].sum(), (stage, model, cond)


def test_a_class_change_is_the_difference_of_its_shares() -> None:
    frame = taxonomy_frame([str(FIXTURE)])
    changes = class_changes(frame, "name", "original", "random", n_boot=FAST, seed=2026,
                            level=0.95)
    hidden = next(c for c in changes if c.model == "mock-a" and c.cls == "missing_hidden")
    assert (hidden.mean_a, hidden.mean_b, hidden.change) == (10.0, 30.0, 20.0)
    assert hidden.ci_low <= hidden.change <= hidden.ci_high
    for model in ("mock-a", "mock-b"):
        mine = [c for c in changes if c.model == model]
        assert abs(sum(c.mean_a for c in mine) - 100) < 1e-9
        assert abs(sum(c.change for c in mine)) < 1e-9


@pytest.mark.parametrize("name", ["taxonomy.md", "taxonomy_parse.csv", "taxonomy_name.csv",
                                  "taxonomy_behavior.csv", "taxonomy_change.csv",
                                  "taxonomy_examples.csv"])
def test_tables_match_snapshot(report_dir: Path, name: str, snapshot: SnapshotAssertion) -> None:
    assert (report_dir / name).read_text(encoding="utf-8") == snapshot


def test_stats_json_has_the_taxonomy(report_dir: Path) -> None:
    stats = json.loads((report_dir / "stats.json").read_text(encoding="utf-8"))
    assert stats["schema_version"] == 3
    sections = stats["sections"]
    rows = sections["taxonomy_behavior"]["rows"]
    assert {r["class"] for r in rows} == {c.key for c in CLASSES["behavior"]}
    assert sections["taxonomy_change"]["rows"][0]["seed"] == 2026


def test_the_page_shows_the_bars_and_links_each_example(report_dir: Path) -> None:
    html = (report_dir / "index.html").read_text(encoding="utf-8")
    assert 'id="taxonomy"' in html and '<a href="#taxonomy">' in html
    for stage in STAGES:
        assert f'aria-label="failure taxonomy, {stage}"' in html
        assert f'id="taxonomy_{stage}"' in html
    assert "missing hidden name</text>" in html  # a legend entry, inside the SVG
    assert "mock-b · random: undecided: budget or limit, 1 of 10 (10.0%)" in html  # a tooltip
    links = set(re.findall(r'<a href="#(task-[^"]+)"><code>', html))
    assert links == {f"task-{t}" for t in ("clock", "queue", "lock", "ring", "relay")}
    for anchor in links:
        assert f'id="{anchor}"' in html


def test_each_stages_chart_is_also_an_svg_file(report_dir: Path, tmp_path: Path) -> None:
    for stage in STAGES:
        svg = (report_dir / f"taxonomy_{stage}.svg").read_text(encoding="utf-8")
        assert svg.startswith('<svg xmlns="http://www.w3.org/2000/svg" ')
        assert f'aria-label="failure taxonomy, {stage}"' in svg
    stale = tmp_path / "out"
    stale.mkdir()
    (stale / "taxonomy_name.svg").write_text("old", encoding="utf-8")
    empty = tmp_path / "empty.jsonl"
    empty.write_text("", encoding="utf-8")
    write_report([empty], stale, n_boot=FAST)
    assert not (stale / "taxonomy_name.svg").exists()


def test_the_terminal_summary_counts_the_classes() -> None:
    cases = [json.loads(line) for line in FIXTURE.read_text(encoding="utf-8").splitlines()]
    lines = summary_lines([c for c in cases if c.get("model") == "mock-a"])
    start = lines.index("failure classes (docs/failure-taxonomy.md):")
    assert lines[start + 1:start + 7] == [
        "  original   parse     passed=8, std_module_not_extended=1",
        "  original   name      passed=3, missing_hidden=1, invariant=2, deadlock=1, "
        "not_parsed=1, not_run=1",
        "  original   behavior  passed=4, forward_named=1, forward_natural=1, not_covered=1, "
        "not_parsed=1, not_run=1",
        "  random     parse     passed=6, syntax=1, not_run=1, infra=1",
        "  random     name      missing_hidden=3, missing_stated=1, bind_error=1, invariant=1, "
        "not_parsed=1, not_run=1, infra=1",
        "  random     behavior  passed=1, forward_any_mapping=1, forward_natural=1, "
        "reverse_any_mapping=1, undecided_class_incomplete=1, not_covered=1, not_parsed=1, "
        "not_run=1, infra=1"]


def test_a_bar_is_as_wide_as_its_share() -> None:
    svg = stacked_bars("name", {("m", "original"): {"passed": 3, "missing_hidden": 1}},
                       ["original"])
    widths = [float(w) for w in re.findall(r'<rect x="[\d.]+" y="30" width="([\d.]+)"', svg)]
    assert len(widths) == 2 and widths[0] == pytest.approx(3 * widths[1])
    assert "75%" in svg and "25%" in svg and "n = 4" in svg
