"""A graph-engine counterexample shown as states of both specifications: for a forward failure,
the reference state each state of the output's witness maps to (`reference_image`), in the
record, the CLI's table and the HTML report; a reverse failure has none."""

from __future__ import annotations

import json
from typing import Any

import pytest

from alias_cli.grade_cmd import render
from alias_fixtures.grading.controls import reference
from alias_fixtures.grading.grade import CaseGrades, Grade
from alias_fixtures.tasks.task import builtin_tasks
from reports.render_html import _failure_details
from tlc_harness.behavior.checks import GraphVerdict
from tlc_harness.behavior.engine import grade_behavior
from tlc_harness.behavior.graph_engine.describe import counterexample_details, image_trace, trace
from tlc_harness.behavior.graph_engine.search_state import Inferred
from tlc_harness.behavior.graphs import StateGraph
from tlc_harness.behavior.options import BehaviorOptions
from tlc_harness.behavior.verdicts import BehaviorResult, BehaviorVerdict, Reason
from tlc_harness.tools.runner import Harness

#: the reference: a counter 0 -> 1 -> 2
REF = StateGraph(("x",), [(0,), (1,), (2,)], [0], [(0, 1), (1, 2)])
#: the output: a counter `n` beside a flag; state 4 maps to no reference state
OUT = StateGraph(("n", "tag"), [(0, "a"), (0, "b"), (1, "b"), (0, "c"), (7, "<z>")],
                 [0], [(0, 1), (1, 2), (2, 3), (2, 4)])
IMAGE = [0, 0, 1, 0, -1]        # each output state's reference state under the mapping n -> x


def _forward(path: tuple[int, ...], image: list[int] | None = None) -> Inferred:
    return Inferred(BehaviorVerdict.FORWARD_FAIL, "an output step maps to no reference step",
                    image=IMAGE if image is None else image,
                    counterexample=GraphVerdict(False, "no step", out_path=path))


def test_each_witness_state_shows_the_reference_state_it_maps_to_and_how_it_follows() -> None:
    shown = image_trace(_forward((0, 1, 2, 3)), OUT, REF)
    assert shown == [{"step": "initial", "variables": {"x": "0"}},
                     {"step": "stutter", "variables": {"x": "0"}},
                     {"step": "step", "variables": {"x": "1"}},
                     {"step": "no_step", "variables": {"x": "0"}}]   # 1 -> 0 is no step of R
    assert len(shown) == len(trace(_forward((0, 1, 2, 3)), OUT, REF))


def test_a_state_with_no_image_is_none_and_a_first_state_may_not_be_initial() -> None:
    assert image_trace(_forward((0, 1, 2, 4)), OUT, REF) == [
        {"step": "initial", "variables": {"x": "0"}},
        {"step": "stutter", "variables": {"x": "0"}},
        {"step": "step", "variables": {"x": "1"}},
        None]
    shifted = [1, 1, 2, 1, -1]    # under n -> x + 1 the output starts outside R's initial states
    assert image_trace(_forward((0,), shifted), OUT, REF) == [
        {"step": "not_initial", "variables": {"x": "1"}}]


def test_the_image_of_the_failing_mapping_serves_where_the_failure_keeps_none() -> None:
    failed_under = Inferred(BehaviorVerdict.OK, "", {"x": "n"}, image=IMAGE)
    closest = Inferred(BehaviorVerdict.FORWARD_FAIL, "no step", failed_under=failed_under,
                       counterexample=GraphVerdict(False, "no step", out_path=(0, 1, 2, 3)))
    assert image_trace(closest, OUT, REF) == image_trace(_forward((0, 1, 2, 3)), OUT, REF)


def test_no_image_without_a_forward_witness_or_a_mapping() -> None:
    reverse = Inferred(BehaviorVerdict.REVERSE_FAIL, "too few", image=IMAGE,
                       counterexample=GraphVerdict(False, "too few", ref_path=(0, 1, 2)))
    assert image_trace(reverse, OUT, REF) is None
    assert counterexample_details(reverse, OUT, REF) == {"trace_of": "reference"}
    kept_none = _forward((0, 1, 2, 3), image=[])
    assert image_trace(kept_none, OUT, REF) is None
    assert counterexample_details(kept_none, OUT, REF) == {"trace_of": "output"}
    nothing = Inferred(BehaviorVerdict.NO_MAPPING, "nothing corresponds")
    assert image_trace(nothing, OUT, REF) is None
    details = counterexample_details(_forward((0, 1, 2, 4)), OUT, REF)
    assert details["trace_of"] == "output" and len(details["reference_image"]) == 4


def test_the_image_survives_the_records_json_round_trip() -> None:
    inferred = _forward((0, 1, 2, 4))
    result = BehaviorResult(BehaviorVerdict.FORWARD_FAIL, None, "no step", 0.1,
                            trace=trace(inferred, OUT, REF), engine="graphs",
                            details=counterexample_details(inferred, OUT, REF),
                            code=Reason.GRAPH_FORWARD)
    again = BehaviorResult.from_json(json.loads(json.dumps(result.to_json())))
    assert again.details["reference_image"] == image_trace(inferred, OUT, REF)
    assert again.trace == result.trace


# -- the rendering, on a hand-built record ------------------------------------------------------

def _record() -> dict[str, Any]:
    inferred = _forward((0, 1, 2, 4))
    result = BehaviorResult(BehaviorVerdict.FORWARD_FAIL, None, "no step", 0.1,
                            trace=trace(inferred, OUT, REF), engine="graphs",
                            details=counterexample_details(inferred, OUT, REF),
                            code=Reason.GRAPH_FORWARD)
    return result.to_json()


def _cli_text(behavior: dict[str, Any]) -> str:
    data = dict(behavior)
    verdict, reason, seconds = data.pop("verdict"), data.pop("reason"), data.pop("seconds")
    data.pop("passed")
    grades = CaseGrades(Grade("ok", True), Grade("ok", True),
                        Grade(verdict, False, seconds, reason, data))
    return render("toy", "original", grades)


def _html(behavior: dict[str, Any]) -> str:
    return "\n".join(_failure_details({"grades": {"behavior": behavior}}))


def test_the_cli_table_shows_the_image_beside_each_output_state() -> None:
    lines = _cli_text(_record()).splitlines()
    rows = lines[next(i for i, line in enumerate(lines) if "counterexample" in line) + 1:]
    assert "| maps to" in rows[0] and rows[0].split()[-1] == "x"
    assert rows[1].split()[-3:] == ["|", "initial", "0"]
    assert rows[2].split()[-3:] == ["|", "stutter", "0"]
    assert rows[3].split()[-3:] == ["|", "step", "1"]
    assert rows[4].split()[-3:] == ["|", "NO", "STATE"]     # state 4 maps to none


def test_the_cli_table_has_no_image_columns_for_a_reverse_failure() -> None:
    record = {**_record(), "trace_of": "reference"}
    del record["reference_image"]
    assert "maps to" not in _cli_text(record)
    assert "counterexample" in _cli_text(record)


def test_the_html_trace_shows_the_image_in_shaded_columns_escaped() -> None:
    html = _html(_record())
    assert '<th class="image">maps to</th><th class="image">x</th>' in html
    assert '<td class="image">initial</td><td class="image">0</td>' in html
    assert '<td class="image leaves">no reference state</td>' in html
    assert "&quot;&lt;z&gt;&quot;" in html and '"<z>"' not in html   # the output's own value
    record = _record()
    record["reference_image"][2] = {"step": "no_step", "variables": {"x": "<b>1</b>"}}
    html = _html(record)
    assert '<td class="image leaves">no reference step</td>' in html
    assert "&lt;b&gt;1&lt;/b&gt;" in html and "<b>1</b>" not in html
    del record["reference_image"]
    assert 'class="image' not in _html(record)


# -- end to end: a mutant of a built-in task -------------------------------------------------

#: hour_clock's reference with the AM/PM flag turned one hour early: the step from 10 to 11
#: also turns the flag, which no step of the reference does
HOUR_CLOCK = next(t for t in builtin_tasks() if t.id == "hour_clock")
MUTANT = HOUR_CLOCK.modules[HOUR_CLOCK.main_file].replace("WallClock", "Other").replace(
    "IF hr = 11 THEN ~pm", "IF hr = 10 THEN ~pm")


@pytest.fixture(scope="module")
def graded(harness: Harness) -> BehaviorResult:
    assert MUTANT != HOUR_CLOCK.modules[HOUR_CLOCK.main_file].replace("WallClock", "Other")
    return grade_behavior(harness, reference(HOUR_CLOCK), {"Other.tla": MUTANT}, "Other",
                          BehaviorOptions(engine="graphs", timeout=120))


def test_a_forward_failure_of_the_graph_engine_carries_its_reference_image(
        graded: BehaviorResult) -> None:
    assert graded.verdict is BehaviorVerdict.FORWARD_FAIL, graded.reason
    assert graded.code is Reason.GRAPH_FORWARD and graded.engine == "graphs"
    assert graded.details["trace_of"] == "output"
    image = graded.details["reference_image"]
    assert len(image) == len(graded.trace) > 1
    assert image[0] == {"step": "initial", "variables": {"hr": "12", "pm": "FALSE"}}
    # the output's last step, 10 to 11 with the flag turned, leaves the reference
    last = image[-1]
    assert last is None or last["step"] == "no_step", last
    assert all(s is not None and s["step"] == "step" for s in image[1:-1])
    assert graded.trace[-1].variables == {"hr": "11", "pm": "TRUE"}
    again = BehaviorResult.from_json(json.loads(json.dumps(graded.to_json())))
    assert again.details["reference_image"] == image
    assert again.trace == graded.trace


def test_the_rendered_failure_shows_both_specifications_states(graded: BehaviorResult) -> None:
    record = graded.to_json()
    text = _cli_text(record)
    assert "| maps to" in text and "NO STEP" in text
    html = _html(record)
    assert '<td class="image leaves">no reference step</td>' in html
    assert html.count('<td class="image">initial</td>') == 1


def test_the_cli_shows_a_failures_class_and_mapping_basis() -> None:
    record = {**_record(), "soundness": "justified", "mapping_basis": "any_mapping",
              "mapping_class": "any_mapping", "mapping_class_reason": "not isomorphic",
              "any_mapping": "fails", "any_mapping_kind": "isomorphism",
              "any_mapping_reason": "not isomorphic"}
    text = _cli_text(record)
    assert "  mapping basis: any_mapping" in text.splitlines()
    assert "  mapping class: any_mapping: not isomorphic" in text.splitlines()
    assert "  every state mapping (isomorphism): fails: not isomorphic" in text.splitlines()
