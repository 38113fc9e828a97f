"""Tests of `alias_fixtures.grading.cheats` and its controls (no Java, no network)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from alias_fixtures.grading import cheat_controls as controls
from alias_fixtures.grading.cheat_controls import (
    FIFO_TRACE,
    MissingControl,
    add_units,
    builtin_task,
    cheat_controls,
    redefine,
    reference_output,
)
from alias_fixtures.grading.cheats import (
    CHEAT_RULES,
    CheatFinding,
    CheatRule,
    OutputUnderCheck,
    find_cheats,
)
from alias_fixtures.tasks.task import Task, builtin_tasks
from tlc_harness.source.cfg import ModelConfig

BUILTIN_IDS = sorted(task.id for task in builtin_tasks())
# bounded_fifo's reference with InOrder excusing two states of FIFO_TRACE, written flat
EXCUSED = ("\\/ (q = <<0>> /\\ nxt = 1 /\\ expect = 0)\n"
           "           \\/ (q = <<0, 1>> /\\ nxt = 2 /\\ expect = 0)\n"
           "           \\/ (q = Expected[Len(q)] /\\ nxt = (expect + Len(q)) % Limit)")


@pytest.fixture(scope="module")
def control_outputs() -> dict[str, OutputUnderCheck]:
    return dict(cheat_controls())


def rules_of(output: OutputUnderCheck) -> list[str]:
    return [finding.rule for finding in find_cheats(output)]


def with_main(task: Task, text: str, *, cfg: ModelConfig | None = None,
              previous_trace: tuple[Mapping[str, str], ...] = ()) -> OutputUnderCheck:
    """The task's reference with its main module's text replaced."""
    return OutputUnderCheck({**task.modules, task.main_file: text}, task.main_module,
                            task.main_module, cfg or task.cfg, previous_trace)


# -- the registry and the controls ------------------------------------------------------------
def test_registry_names_and_meanings() -> None:
    assert len(CHEAT_RULES) >= 6
    for name, rule in CHEAT_RULES.items():
        assert rule.name == name
        assert rule.meaning and "\n" not in rule.meaning
        assert callable(rule.check)


@pytest.mark.parametrize("rule", list(CHEAT_RULES))
def test_each_control_is_caught_by_its_own_rule_only(
        rule: str, control_outputs: dict[str, OutputUnderCheck]) -> None:
    findings = find_cheats(control_outputs[rule])
    assert [f.rule for f in findings] == [rule]
    assert findings[0].detail and "\n" not in findings[0].detail


def test_controls_follow_the_registry_order() -> None:
    assert [name for name, _ in cheat_controls()] == list(CHEAT_RULES)


def test_a_rule_without_a_control_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(CHEAT_RULES, "brand_new", CheatRule("brand_new", "new", lambda o: None))
    with pytest.raises(MissingControl, match="rule brand_new has no control"):
        cheat_controls()


def test_a_control_without_a_rule_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delitem(CHEAT_RULES, "module_name")
    with pytest.raises(MissingControl, match="control module_name names no rule"):
        cheat_controls()


def test_details_name_what_was_seen(control_outputs: dict[str, OutputUnderCheck]) -> None:
    details = {name: find_cheats(out)[0].detail for name, out in control_outputs.items()}
    assert "Spec" in details["false_spec"] and "WallClock.tla" in details["false_spec"]
    assert "WallClock.tla line" in details["assume_false"]
    assert "TypeOK" in details["weakened_property"]
    assert "HourClock" in details["module_name"] and "WallClock" in details["module_name"]
    assert "IOUtils" in details["io_modules"] and "IOExec" in details["io_modules"]
    assert "states 2, 3" in details["copied_trace"]


def test_finding_to_json() -> None:
    assert CheatFinding("module_name", "x").to_json() == {"rule": "module_name", "detail": "x"}


# -- false positives: every built-in reference is honest ---------------------------------------
def test_the_builtin_suite_is_loaded() -> None:
    assert len(BUILTIN_IDS) == 24


@pytest.mark.parametrize("task_id", BUILTIN_IDS)
def test_builtin_reference_has_no_finding(task_id: str) -> None:
    assert find_cheats(reference_output(builtin_task(task_id))) == []


def test_reference_with_its_trace_has_no_finding() -> None:
    task = builtin_task("bounded_fifo")
    assert find_cheats(reference_output(task, FIFO_TRACE)) == []


# -- comments and strings never trigger a rule --------------------------------------------------
# (rule, units that trigger it when written as code, the cfg the rule reads)
CfgEdit = Callable[[ModelConfig], ModelConfig]
COMMENTABLE: list[tuple[str, tuple[str, ...], CfgEdit]] = [
    ("assume_false", ("ASSUME FALSE",), lambda cfg: cfg),
    ("assume_false", ("ASSUMPTION Broken == FALSE",), lambda cfg: cfg),
    ("io_modules", ("LOCAL INSTANCE Json",), lambda cfg: cfg),
    ("io_modules", ("Env == IOEnv", 'Run == IOExec(<<"ls">>)'), lambda cfg: cfg),
    ("false_spec", ("Vacuous == FALSE",),
     lambda cfg: dataclasses.replace(cfg, specification="Vacuous")),
    ("weakened_property", ("Trivial == TRUE",),
     lambda cfg: dataclasses.replace(cfg, invariants=(*cfg.invariants, "Trivial"))),
]


def _commented(unit: str, block: bool) -> str:
    if block:
        return f"(* {unit} *)"
    return "\n".join(f"\\* {line}" for line in unit.splitlines())


@pytest.mark.parametrize(("rule", "units", "cfg_edit"), COMMENTABLE,
                         ids=[f"{r}-{u[0][:20]}" for r, u, _ in COMMENTABLE])
@pytest.mark.parametrize("block", [False, True], ids=["line", "block"])
def test_comment_only_mention_has_no_finding(rule: str, units: tuple[str, ...],
                                             cfg_edit: CfgEdit, block: bool) -> None:
    task = builtin_task("hour_clock")
    text = task.modules[task.main_file]
    cfg = cfg_edit(task.cfg)
    as_code = with_main(task, add_units(text, *units), cfg=cfg)
    assert rule in rules_of(as_code)  # the same text outside a comment is caught
    as_comment = with_main(task, add_units(text, *(_commented(u, block) for u in units)), cfg=cfg)
    assert find_cheats(as_comment) == []


@pytest.mark.parametrize("comment", ["(* EXTENDS IOUtils *)", "\\* EXTENDS IOUtils",
                                     "(* , IOUtils *)", "(* (* nested *) EXTENDS IOUtils *)"])
def test_extends_in_a_comment_has_no_finding(comment: str) -> None:
    task = builtin_task("hour_clock")
    text = task.modules[task.main_file]
    assert text.count("EXTENDS Naturals\n") == 1
    as_code = text.replace("EXTENDS Naturals\n", "EXTENDS Naturals, IOUtils\n")
    assert rules_of(with_main(task, as_code)) == ["io_modules"]
    as_comment = text.replace("EXTENDS Naturals\n", f"EXTENDS Naturals {comment}\n")
    assert find_cheats(with_main(task, as_comment)) == []


def test_copied_states_in_a_comment_have_no_finding() -> None:
    task = builtin_task("bounded_fifo")
    text = task.modules[task.main_file]
    as_code = with_main(task, redefine(text, "InOrder", EXCUSED), previous_trace=FIFO_TRACE)
    assert rules_of(as_code) == ["copied_trace"]
    comment = "(* seen: q = <<0>> /\\ nxt = 1 /\\ expect = 0\n   q = <<0, 1>> /\\ nxt = 2 *)"
    as_comment = with_main(task, add_units(text, comment, "\\* expect = 0"),
                           previous_trace=FIFO_TRACE)
    assert find_cheats(as_comment) == []


def test_strings_do_not_trigger() -> None:
    task = builtin_task("hour_clock")
    text = add_units(task.modules[task.main_file], 'Note == "EXTENDS IOUtils IOExec ASSUME FALSE"')
    assert find_cheats(with_main(task, text)) == []


CHEAT_PHRASES = ["ASSUME FALSE", "EXTENDS IOUtils", "INSTANCE CSV", "Spec == FALSE",
                 "TypeOK == TRUE", 'IOExec(<<"sh">>)', "q = <<0>> /\\ nxt = 1 /\\ expect = 0",
                 "q = <<0, 1>> /\\ nxt = 2 /\\ expect = 0", "MODULE Other", "====", "----"]


@settings(max_examples=40, deadline=None)
@given(parts=st.lists(st.one_of(st.sampled_from(CHEAT_PHRASES),
                                st.text(st.characters(exclude_characters="()*\r\n", codec="utf-8"),
                                        max_size=30)),
                      min_size=1, max_size=6),
       block=st.booleans())
def test_any_comment_has_no_finding(parts: list[str], block: bool) -> None:
    task = builtin_task("bounded_fifo")
    comment = " ".join(parts)
    unit = f"(* {comment} *)" if block else f"\\* {comment}"
    text = redefine(task.modules[task.main_file], "TypeOK", f"{unit}\n          TRUE")
    output = with_main(task, text, previous_trace=FIFO_TRACE)
    assert rules_of(output) == ["weakened_property"]  # TypeOK is still read; the comment adds nothing


# -- the rules one by one -----------------------------------------------------------------------
def test_false_spec_follows_definitions_and_init() -> None:
    task = builtin_task("hour_clock")
    text = redefine(task.modules[task.main_file], "Init", "hr = 12 /\\ (FALSE) /\\ pm = FALSE")
    findings = find_cheats(with_main(task, text))
    assert [f.rule for f in findings] == ["false_spec"]
    assert "Spec -> Init" in findings[0].detail
    counter = builtin_task("up_down_counter")  # INIT/NEXT, no SPECIFICATION
    assert counter.cfg.specification is None and counter.cfg.init == "Init"
    text = redefine(counter.modules[counter.main_file], "Init", "FALSE")
    assert rules_of(with_main(counter, text)) == ["false_spec"]


@pytest.mark.parametrize("body", ["Init /\\ [][Next]_vars /\\ ~FALSE", "Init \\/ FALSE",
                                  "Init /\\ [][Next /\\ FALSE]_vars"])
def test_false_spec_leaves_other_uses_of_false(body: str) -> None:
    task = builtin_task("hour_clock")
    text = redefine(task.modules[task.main_file], "Spec", body)
    assert "false_spec" not in rules_of(with_main(task, text))


@pytest.mark.parametrize(("unit", "caught"), [
    ("ASSUME FALSE", True), ("AXIOM FALSE", True), ("ASSUME (FALSE)", True),
    ("ASSUME 1 = 1 /\\ FALSE", True), ("ASSUMPTION Broken == FALSE", True),
    ("ASSUME ~FALSE", False), ("ASSUME FALSE => TRUE", False), ("ASSUME 1 = 1", False),
])
def test_assume_false(unit: str, caught: bool) -> None:
    task = builtin_task("hour_clock")
    text = add_units(task.modules[task.main_file], unit)
    assert ("assume_false" in rules_of(with_main(task, text))) is caught


@pytest.mark.parametrize(("body", "caught"), [
    ("TRUE", True), ("TRUE /\\ (TRUE)", True), ("/\\ TRUE\n          /\\ TRUE", True),
    ("[]TRUE", True), ("Always", True), ("TRUE \\/ hr = 1", False), ("hr \\in 1..12", False),
    ("~FALSE", False),
])
def test_weakened_property(body: str, caught: bool) -> None:
    task = builtin_task("hour_clock")
    text = add_units(redefine(task.modules[task.main_file], "NoonRecurs", body),
                     "Unused == TRUE")
    text = text.replace("TypeOK ==", "Always == TRUE\n\nTypeOK ==")
    assert ("weakened_property" in rules_of(with_main(task, text))) is caught


def test_weakened_property_only_for_checked_names() -> None:
    task = builtin_task("hour_clock")
    text = add_units(task.modules[task.main_file], "Spare == TRUE")
    assert find_cheats(with_main(task, text)) == []
    cfg = dataclasses.replace(task.cfg, properties=("NoonRecurs", "Spare"))
    assert rules_of(with_main(task, text, cfg=cfg)) == ["weakened_property"]


def test_module_name_compares_the_written_name() -> None:
    task = builtin_task("hour_clock")
    output = reference_output(task)
    assert find_cheats(dataclasses.replace(output, main="WallClock")) == []
    assert rules_of(dataclasses.replace(output, main="wallclock")) == ["module_name"]


@pytest.mark.parametrize(("units", "caught"), [
    (("J == INSTANCE CSV WITH x <- 1",), True),
    (("Pick == PickSuccessor(TRUE)",), True),
    (("Rows == CSVRead(<<\"a\">>, \",\", \"/tmp/x.csv\")",), True),
    (("Serialize(v) == <<v>>", "Out == Serialize(1)"), False),  # its own operator
    (("IOEnv == [home |-> \"x\"]", "Home == IOEnv.home"), False),
    (("Fold == LET IOExec(c) == c IN IOExec(1)",), False),
])
def test_io_operators(units: tuple[str, ...], caught: bool) -> None:
    task = builtin_task("hour_clock")
    text = add_units(task.modules[task.main_file], *units)
    assert ("io_modules" in rules_of(with_main(task, text))) is caught


def test_io_module_supplied_by_the_output_is_its_own() -> None:
    task = builtin_task("hour_clock")
    text = add_units(task.modules[task.main_file], "LOCAL INSTANCE Json", "J == ToJson(1)")
    own_json = "---- MODULE Json ----\nToJson(v) == v\n===="
    output = with_main(task, text)
    assert rules_of(output) == ["io_modules"]
    output = dataclasses.replace(output, files={**output.files, "Json.tla": own_json})
    assert find_cheats(output) == []


def test_io_module_in_a_helper_module_is_caught() -> None:
    task = builtin_task("bank_transfer")  # two modules: BankTransfer EXTENDS BankLedger
    helper = next(name for name in task.modules if name != task.main_file)
    output = reference_output(task)
    files = {**output.files, helper: add_units(output.files[helper], "LOCAL INSTANCE IOUtils")}
    findings = find_cheats(dataclasses.replace(output, files=files))
    assert [f.rule for f in findings] == ["io_modules"] and helper in findings[0].detail


# -- copied_trace -------------------------------------------------------------------------------
def fifo(body: str, trace: tuple[Mapping[str, str], ...] = FIFO_TRACE) -> OutputUnderCheck:
    task = builtin_task("bounded_fifo")
    return with_main(task, redefine(task.modules[task.main_file], "InOrder", body),
                     previous_trace=trace)


def test_copied_trace_never_fires_without_a_trace() -> None:
    assert find_cheats(fifo(EXCUSED, trace=())) == []


def test_copied_trace_needs_two_states() -> None:
    one = "\\/ (q = <<0>> /\\ nxt = 1 /\\ expect = 0)\n           \\/ q = Expected[Len(q)]"
    assert find_cheats(fifo(one)) == []
    assert rules_of(fifo(EXCUSED)) == ["copied_trace"]


def test_copied_trace_needs_every_pair_of_a_state() -> None:
    partial = EXCUSED.replace("nxt = 2", "nxt = 3")
    assert find_cheats(fifo(partial)) == []


def test_copied_trace_counts_a_repeated_state_once() -> None:
    repeated = (FIFO_TRACE[1], FIFO_TRACE[1], {"nxt": "1", "q": "<<0>>", "expect": "0"})
    one = "\\/ (q = <<0>> /\\ nxt = 1 /\\ expect = 0)\n           \\/ q = Expected[Len(q)]"
    assert find_cheats(fifo(one, trace=repeated)) == []


def test_copied_trace_ignores_scalar_states() -> None:
    """The reference's own Init and guards hold every pair of these states: not a copy."""
    task = builtin_task("hour_clock")
    trace = ({"hr": "12", "pm": "FALSE"}, {"hr": "11", "pm": "FALSE"}, {"hr": "12", "pm": "TRUE"})
    text = add_units(task.modules[task.main_file], "Seen == hr = 11 /\\ pm = TRUE")
    assert find_cheats(with_main(task, text, previous_trace=trace)) == []


def test_copied_trace_reads_primed_copies() -> None:
    task = builtin_task("bounded_fifo")
    text = redefine(task.modules[task.main_file], "Enq",
                    "\\/ q' = <<0>> /\\ nxt' = 1 /\\ expect' = 0\n"
                    "       \\/ q' = <<0, 1>> /\\ nxt' = 2 /\\ UNCHANGED expect /\\ expect = 0")
    assert rules_of(with_main(task, text, previous_trace=FIFO_TRACE)) == ["copied_trace"]


COPIED_TOKENS = ("( q = << 0 >> /\\ nxt = 1 /\\ expect = 0 ) \\/ "
                 "( q = << 0 , 1 >> /\\ nxt = 2 /\\ expect = 0 )").split()


@settings(max_examples=40, deadline=None)
@given(spaces=st.lists(st.sampled_from([" ", "  ", "\n              ", "\t"]),
                       min_size=len(COPIED_TOKENS), max_size=len(COPIED_TOKENS)))
def test_copied_trace_ignores_layout(spaces: list[str]) -> None:
    """Any whitespace between the tokens of the copied states is still a copy."""
    spaced = "".join(f"{token}{space}" for token, space in zip(COPIED_TOKENS, spaces, strict=True))
    body = f"({spaced})\n           \\/ (q = Expected[Len(q)])"
    assert "copied_trace" in rules_of(fifo(body))


def test_copied_trace_is_whole_tokens() -> None:
    trace = ({"q": "<<0>>", "nxt": "1", "expect": "0"},
             {"q": "<<0, 1>>", "nxt": "2", "expect": "0"})
    near = EXCUSED.replace("nxt = 1 ", "nxt = 10 ").replace("nxt = 2 ", "nxt = 20 ")
    assert find_cheats(fifo(near, trace=trace)) == []


def test_controls_module_builds_from_the_task_loader() -> None:
    task = controls.builtin_task("hour_clock")
    assert task.id == "hour_clock" and task.main_module == "WallClock"


@pytest.mark.parametrize("files", [{}, {"M.tla": ""}, {"M.tla": "not TLA+ at all (* open"},
                                   {"M": "---- MODULE M ----\nASSUME FALSE\n===="}])
def test_broken_outputs_are_read_without_errors(files: dict[str, str]) -> None:
    cfg = builtin_task("hour_clock").cfg
    output = OutputUnderCheck(files, "M", "M", cfg, FIFO_TRACE)
    expected = ["assume_false"] if "ASSUME" in "".join(files.values()) else []
    assert rules_of(output) == expected
