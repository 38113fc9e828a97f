"""Tests of `alias_fixtures.tasks.descriptions`: hidden names, identifier kinds, renamed descriptions."""

from __future__ import annotations

import re
import tomllib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from alias_fixtures.tasks.descriptions import (
    CONVENTION_NAMES,
    DescriptionReport,
    HiddenName,
    cfg_required_names,
    describe_renaming,
    hidden_names,
    identifier_kind,
    mentions,
    names_in_cfg,
    rename_description,
    rename_rule,
    split_identifier,
    task_name_report,
    words_of,
)
from alias_fixtures.tasks.task import Task, builtin_tasks
from tlc_harness.source.cfg import parse_cfg
from tlc_harness.source.stdlib import STANDARD_MODULES

TASKS = builtin_tasks()


def _toml_hidden(task: Task) -> list[str]:
    assert task.root is not None
    with (task.root / "task.toml").open("rb") as fh:
        return list(tomllib.load(fh)["hidden_names"])


# --------------------------------------------------------------------------- hidden names


@pytest.mark.parametrize("task", TASKS, ids=[t.id for t in TASKS])
def test_builtin_hidden_names_match_task_toml(task: Task) -> None:
    got = hidden_names(task.description, task.cfg)
    assert {h.name for h in got} == set(_toml_hidden(task))
    assert [h.name for h in got] == _toml_hidden(task)  # the toml lists them in cfg order too


def test_builtin_suite_has_tasks_with_and_without_hidden_names() -> None:
    counts = [len(hidden_names(t.description, t.cfg)) for t in TASKS]
    assert len(TASKS) == 24
    assert any(c == 0 for c in counts)
    assert any(c >= 5 for c in counts)


CFG = parse_cfg(
    """
    CONSTANTS
        Procs = {p1, p2}
        None = None
        N = 3
        Capacity <- JugSizes
    INIT MyInit
    NEXT MyNext
    INVARIANTS TypeOK Safe MyInit
    PROPERTY Live
    CONSTRAINT Bound
    ACTION_CONSTRAINT StepBound
    SYMMETRY Perms
    """
)


def test_cfg_required_names_kinds_and_exclusions() -> None:
    assert cfg_required_names(CFG) == {
        "Procs": "constant", "None": "constant", "N": "constant", "Capacity": "constant",
        "TypeOK": "invariant", "Safe": "invariant", "Live": "property",
        "Bound": "constraint", "StepBound": "constraint",
    }
    spec_cfg = parse_cfg("SPECIFICATION Spec\nINVARIANT Init Next Spec Inv\n")
    assert cfg_required_names(spec_cfg) == {"Inv": "invariant"}


def test_model_values_and_override_targets_are_not_required() -> None:
    names = cfg_required_names(CFG)
    assert not {"p1", "p2", "JugSizes", "Perms"} & names.keys()
    assert "None" in names  # a constant bound to a model value of its own name is required


def test_hidden_names_without_description_are_all_required_names() -> None:
    assert [h.name for h in hidden_names(None, CFG)] == list(cfg_required_names(CFG))
    assert hidden_names("", CFG) == hidden_names(None, CFG)


def test_hidden_names_carry_both_kinds() -> None:
    text = "Processes `Procs`, `N` of them, bounded by `Bound`; check Safe and `Live`."
    assert hidden_names(text, CFG) == [
        HiddenName("None", "constant", "domain"),
        HiddenName("Capacity", "constant", "domain"),
        HiddenName("TypeOK", "invariant", "convention"),
        HiddenName("StepBound", "constraint", "domain"),
    ]


# --------------------------------------------------------------------------- mentions


@pytest.mark.parametrize(
    ("text", "name", "expected"),
    [
        ("Define `TypeOK`.", "TypeOK", True),
        ("Define TypeOK, then Inv.", "TypeOK", True),
        ("(TypeOK)", "TypeOK", True),
        ("Define `TypeOKish`.", "TypeOK", False),
        ("Define `isTypeOK`.", "TypeOK", False),
        ("Define TypeOK_2.", "TypeOK", False),
        ("Define `typeok`.", "TypeOK", False),
        ("the max of x", "x", True),
        ("the max of y", "x", False),
        ("`a0` and `b0`", "a", False),
        ("`a`+`b`", "b", True),
        ("x'", "x", True),
        ("Gcd[m, 0] = m", "m", True),
        ("é TypeOK é", "TypeOK", True),
        ("fairness `WF_vars(Next)`", "vars", True),
        ("fairness `WF_vars(Next)`", "Next", True),
        ("fairness `WF_vars(Next)`", "WF_vars", False),
        ("`SF_x`", "x", True),
        ("", "x", False),
    ],
)
def test_mentions_whole_words(text: str, name: str, expected: bool) -> None:
    assert mentions(text, name) is expected


def test_words_of() -> None:
    assert words_of("Use `msgChan` (a0, b_1) and WF_vars.") == [
        "Use", "msgChan", "a0", "b_1", "and", "WF_", "vars"]


# --------------------------------------------------------------------------- identifier kinds


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        ("TypeOK", "convention"), ("Init", "convention"), ("Next", "convention"),
        ("Spec", "convention"), ("vars", "convention"), ("TypeInvariant", "convention"),
        ("Inv", "convention"), ("Safety", "convention"), ("Liveness", "convention"),
        ("Fairness", "convention"), ("Termination", "convention"), ("Symmetry", "convention"),
        ("StateConstraint", "convention"),
        ("inCritical", "domain"), ("NoOverdraft", "domain"), ("MAX_QUEUE", "domain"),
        ("barrier", "domain"), ("MutualExclusion", "domain"), ("NoStaleMessages", "domain"),
        ("Delivered", "domain"), ("RequestsServed", "domain"), ("max_queue", "domain"),
        ("Queue2", "domain"), ("ForkHeldOnce", "domain"), ("waiting", "domain"),
        ("hr", "abbreviation"), ("x", "abbreviation"), ("msgs", "abbreviation"),
        ("rm", "abbreviation"), ("pc", "abbreviation"), ("RM", "abbreviation"),
        ("nxt", "abbreviation"), ("msgChan", "abbreviation"), ("a0", "abbreviation"),
        ("Gcd", "abbreviation"), ("Procs", "abbreviation"), ("x1", "abbreviation"),
    ],
)
def test_identifier_kind(name: str, kind: str) -> None:
    assert identifier_kind(name) == kind


def test_convention_list_is_exact() -> None:
    assert "TypeOK" in CONVENTION_NAMES
    assert all(identifier_kind(n) == "convention" for n in CONVENTION_NAMES)
    for name in ("MyInit", "TypeOKish", "SafetyInv", "Inv2", "InitState", "typeOK"):
        assert identifier_kind(name) != "convention", name


@pytest.mark.parametrize(
    ("name", "parts"),
    [
        ("inCritical", ["in", "Critical"]), ("NoOverdraft", ["No", "Overdraft"]),
        ("MAX_QUEUE", ["MAX", "QUEUE"]), ("TypeOK", ["Type", "OK"]),
        ("HTTPServer", ["HTTP", "Server"]), ("rmState", ["rm", "State"]),
        ("queue2Size", ["queue", "2", "Size"]), ("x", ["x"]), ("RMStep", ["RM", "Step"]),
    ],
)
def test_split_identifier(name: str, parts: list[str]) -> None:
    assert split_identifier(name) == parts


# --------------------------------------------------------------------------- three-part rule

MODS = {"Bank"}
CFG_NAMES = {"count", "NoOverdraft", "Bags"}


@pytest.mark.parametrize(
    ("name", "rule"),
    [
        ("count", "cfg"), ("NoOverdraft", "cfg"), ("Bags", "cfg"),
        ("barrier", "lowercase"), ("hr", "lowercase"), ("Bank", "module"),
        ("Sequences", "module"), ("inCritical", "other"), ("a0", "other"), ("max_q", "other"),
        ("Tick", "other"),
    ],
)
def test_rename_rule(name: str, rule: str) -> None:
    assert rename_rule(name, cfg_names=CFG_NAMES, module_names=MODS) == rule


def _ren(text: str, mapping: dict[str, str], cfg: set[str] | None = None,
         mods: set[str] | None = None) -> str:
    return rename_description(text, mapping, cfg_names=cfg or set(), module_names=mods or set())


def test_swap_is_simultaneous() -> None:
    assert _ren("`Ab` then `Ba`, Ab.", {"Ab": "Ba", "Ba": "Ab"}) == "`Ba` then `Ab`, Ba."
    assert _ren("A B C", {"A": "B", "B": "C", "C": "A"}) == "B C A"


def test_whole_words_only() -> None:
    text = "`TypeOK`, TypeOKish, isTypeOK, (TypeOK). max x x1 x_y"
    assert _ren(text, {"TypeOK": "QwertY", "x": "z"}, cfg={"TypeOK", "x"}) == (
        "`QwertY`, TypeOKish, isTypeOK, (QwertY). max z x1 x_y")


def test_cfg_names_renamed_even_when_lowercase_or_module() -> None:
    text = "The `count` of `Bank` processes in `Bags`."
    mapping = {"count": "qwert", "Bank": "Zxcv", "Bags": "Plmo"}
    assert _ren(text, mapping, cfg={"count", "Bank", "Bags"}, mods={"Bank"}) == (
        "The `qwert` of `Zxcv` processes in `Plmo`.")


def test_lowercase_words_and_module_names_kept() -> None:
    text = "Each `process` waits at the `barrier`; use `Bags` and module `Bank`; `hr` is kept."
    mapping = {"process": "qwerty", "barrier": "Asdfghj", "Bags": "Qqqq", "Bank": "Wwww",
               "hr": "zz"}
    assert _ren(text, mapping, mods={"Bank"}) == text


def test_other_names_renamed() -> None:
    text = "Track `inCritical`, `a0` and `msg_q`; the action `Tick` (see Tick)."
    mapping = {"inCritical": "abCdefghij", "a0": "q7", "msg_q": "zzz_z", "Tick": "Tock"}
    assert _ren(text, mapping) == (
        "Track `abCdefghij`, `q7` and `zzz_z`; the action `Tock` (see Tock).")


def test_fairness_subscripts_are_renamed() -> None:
    assert _ren("`WF_vars(Next)` and SF_Vs(A)", {"Next": "Nxet", "Vs": "Ws", "A": "B"}) == (
        "`WF_vars(Nxet)` and SF_Ws(B)")


@pytest.mark.parametrize(
    "bad", [{"a b": "c"}, {"a": "b c"}, {"WF_x": "y"}, {"WF_": "y"}, {"x": ""}])
def test_map_entries_must_be_words(bad: dict[str, str]) -> None:
    with pytest.raises(ValueError, match="not a word"):
        _ren("a", bad)


def test_builtin_task_renaming_keeps_lowercase_words() -> None:
    task = next(t for t in TASKS if t.id == "barrier_sync")
    assert task.description is not None
    mapping = {"count": "qwert", "sense": "zxcvb", "Procs": "Abcde", "TypeOK": "Qwerty"}
    out = rename_description(task.description, mapping, cfg_names=names_in_cfg(task.cfg),
                             module_names=task.module_names())
    assert out == task.description  # `count` and `sense` are lowercase words, not cfg names


def test_describe_renaming_report() -> None:
    text = ("The `barrier` process keeps a `count`. Check `NoOverdraft` and `inCritical`; "
            "see module `Bank` and `x`.")
    mapping = {"barrier": "qwertyu", "count": "asdfg", "NoOverdraft": "Zxcvbnmlkjh",
               "inCritical": "poIuytrewq", "Bank": "Wxyz", "Other": "Qwert", "x": "y"}
    report = describe_renaming(text, mapping, cfg_names={"count", "NoOverdraft"},
                               module_names={"Bank"})
    assert report == DescriptionReport(
        renamed=3, kept_lowercase=2, kept_module=1, forced_cfg=1,
        domain_used=5, domain_words_kept=2,
        kept_names=("Bank", "barrier", "x"), forced_names=("count",),
    )
    assert report.damage_avoided
    none = describe_renaming(text, {"NoOverdraft": "Zxcvbnmlkjh"}, cfg_names=(),
                             module_names=())
    assert (none.damage_avoided, none.renamed) == (False, 1)


# --------------------------------------------------------------------------- task report


def test_task_name_report() -> None:
    task = next(t for t in TASKS if t.id == "two_phase_commit")
    report = task_name_report(task, ["RM", "TypeOK", "Init", "rmState", "ballot", "RM", "x"])
    assert report.task_id == "two_phase_commit"
    assert [h.name for h in report.hidden] == _toml_hidden(task)
    assert report.kind_counts == {"domain": 2, "convention": 2, "abbreviation": 2}
    assert report.hidden_by_kind == {"constant": 1, "invariant": 3, "property": 1}
    assert report.hidden_conventions == 1


# --------------------------------------------------------------------------- properties

_LOWER = st.from_regex(r"[a-z]{1,8}", fullmatch=True)
_OTHER = st.from_regex(r"[A-Za-z][A-Za-z0-9_]{0,7}", fullmatch=True).filter(
    lambda s: not re.fullmatch(r"[a-z]+", s) and not s.startswith(("WF_", "SF_")))
_SEPARATORS = st.sampled_from([" ", "`", "`, `", ". ", "(", ")", "\n", "'", "[", "] ", "-", ""])
_FILLER = st.sampled_from(["the", "a", "set", "of", "Each", "x", "max", "TypeOK", "WF_"])


@settings(deadline=None)
@given(data=st.data())
def test_renaming_then_inverse_is_identity(data: st.DataObject) -> None:
    """Class-preserving maps: lowercase olds get lowercase new names, others do not."""
    olds = data.draw(st.lists(st.one_of(_LOWER, _OTHER), min_size=1, max_size=6, unique=True))
    cfg = set(data.draw(st.lists(st.sampled_from(olds), max_size=3)))
    mods = set(data.draw(st.lists(st.sampled_from(olds), max_size=2)))
    tokens = data.draw(st.lists(st.one_of(st.sampled_from(olds), _FILLER), max_size=20))
    seps = data.draw(st.lists(_SEPARATORS, min_size=len(tokens) + 1,
                              max_size=len(tokens) + 1))
    text = seps[0] + "".join(tok + sep for tok, sep in zip(tokens, seps[1:], strict=True))
    used = set(words_of(text))
    mapping: dict[str, str] = {}
    for old in olds:
        fresh = _LOWER if re.fullmatch(r"[a-z]+", old) else _OTHER
        mapping[old] = data.draw(fresh.filter(
            lambda n: n not in used and n not in olds and n not in mapping.values()
            and n not in STANDARD_MODULES))
    renamed = rename_description(text, mapping, cfg_names=cfg, module_names=mods)
    inverse = {new: old for old, new in mapping.items()}
    back = rename_description(renamed, inverse, cfg_names={mapping[c] for c in cfg},
                              module_names={mapping[m] for m in mods})
    assert back == text


@given(text=st.text(alphabet=st.sampled_from("abAB_0`., ()\n'éW F"), max_size=40),
       mapping=st.dictionaries(st.sampled_from(["a", "b", "A", "ab", "B_0", "W"]),
                               st.sampled_from(["q", "Q", "qq", "Zz9"]), max_size=4))
def test_renaming_replaces_words_and_keeps_the_rest(text: str, mapping: dict[str, str]) -> None:
    out = rename_description(text, mapping, cfg_names=mapping, module_names=())
    assert words_of(out) == [mapping.get(w, w) for w in words_of(text)]
    skeleton = re.compile(r"[A-Za-z0-9_]+")
    assert skeleton.split(out) == skeleton.split(text)


@given(text=st.text(max_size=60))
def test_empty_map_changes_nothing(text: str) -> None:
    assert rename_description(text, {}, cfg_names=(), module_names=()) == text


@settings(deadline=None)
@given(data=st.data())
def test_permutation_then_inverse_is_identity(data: st.DataObject) -> None:
    """A map that permutes names occurring in the text (swaps, cycles) is undone by its inverse."""
    olds = data.draw(st.lists(_OTHER.filter(lambda n: n not in STANDARD_MODULES),
                              min_size=2, max_size=5, unique=True))
    mapping = dict(zip(olds, data.draw(st.permutations(olds)), strict=True))
    cfg = set(data.draw(st.lists(st.sampled_from(olds), max_size=3)))
    tokens = data.draw(st.lists(st.one_of(st.sampled_from(olds), _FILLER), max_size=20))
    text = " `".join(tokens) + "."
    renamed = rename_description(text, mapping, cfg_names=cfg, module_names=())
    assert words_of(renamed) == [mapping.get(w, w) for w in words_of(text)]
    inverse = {new: old for old, new in mapping.items()}
    back = rename_description(renamed, inverse, cfg_names={mapping[c] for c in cfg},
                              module_names=())
    assert back == text
