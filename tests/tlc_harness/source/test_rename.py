"""Tests of `tlc_harness.source.rename`: consistent identifier renaming of modules and cfg files."""

from __future__ import annotations

import json
import tempfile
from collections.abc import Mapping
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from tests.conftest import ROOT, shared_corpus
from tlc_harness.source.cfg import parse_cfg
from tlc_harness.source.identifiers import analyze_task
from tlc_harness.source.rename import (
    RenameError,
    RenameMap,
    random_rename_map,
    rename_cfg,
    rename_modules,
    renameable_names,
    validate_map,
)
from tlc_harness.source.stdlib import TLA_KEYWORDS, standard_operator_names

DATA = ROOT / "tests" / "data" / "rename"
CORPUS = (shared_corpus() or Path("shared-corpus-absent")) / "tlaplus-examples"
needs_corpus = pytest.mark.skipif(not (CORPUS / "manifest.json").is_file(),
                                  reason="shared corpus not found")


def _read(*names: str) -> dict[str, str]:
    return {n: (DATA / n).read_text(encoding="utf-8") for n in names}


FEATURES = _read("Features.tla", "Base.tla")
RELAY = _read("Relay.tla")


def _passing_models() -> list[dict[str, object]]:
    manifest = CORPUS / "manifest.json"
    if not manifest.is_file():
        return []
    return [e for e in json.loads(manifest.read_text(encoding="utf-8")) if e["passes"]]


def _model_id(entry: dict[str, object]) -> str:
    return f"{entry['spec_dir']}:{Path(str(entry['run_cfg'])).stem}"


def _model_modules(entry: dict[str, object]) -> dict[str, str]:
    folder = CORPUS / "examples" / str(entry["spec_dir"])
    files = entry["files"]
    assert isinstance(files, list)
    return {f: (folder / f).read_text(encoding="utf-8") for f in files if f.endswith(".tla")}


def _sany_ok(modules: Mapping[str, str], main: str) -> tuple[bool, str]:
    """Parse `main` with SANY in a directory holding only `modules`."""
    try:
        from tlc_harness.tools.process import run_process
        from tlc_harness.tools.toolchain import ToolchainError, get_toolchain

        tools = get_toolchain()
    except (ImportError, ToolchainError) as exc:  # pragma: no cover
        pytest.skip(f"no Java toolchain: {exc}")
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        for name, text in modules.items():
            (work / name).write_text(text, encoding="utf-8")
        res = run_process([str(tools.java), f"-Djava.io.tmpdir={work}", "-cp", str(tools.jar),
                           "tla2sany.SANY", main], cwd=work, timeout=120)
    bad = ("Semantic errors", "*** Errors", "*** Parse Error", "Fatal errors")
    return res.exit_code == 0 and not any(b in res.output for b in bad), res.output[-2000:]


# -- targeted unit tests --------------------------------------------------------------------


@pytest.fixture(scope="module")
def renamed_features() -> tuple[RenameMap, dict[str, str]]:
    rmap = random_rename_map(FEATURES, seed=7)
    return rmap, rename_modules(FEATURES, rmap)


def test_renameable_names_and_kinds() -> None:
    names = renameable_names(FEATURES)
    for name in ("Features", "Base", "MaxVal", "counter", "Helper", "SumTo", "fact", "B",
                 "nxt", "Ok", "lbl", "Safe", "Limit", "count", "Within"):
        assert name in names, name
    assert names["Helper"] == "operator"
    assert names["SumTo"] == "operator"
    assert names["fact"] == "function"
    assert names["B"] == "instance"
    for kept in ("n", "x", "i", "s", "Len", "Append", "Nat", "Naturals", "TLC"):
        assert kept not in names, kept
    with_bound = renameable_names(FEATURES, include_bound=True)
    assert {"n", "x", "i", "s", "v", "k"} <= set(with_bound)
    assert "Len" not in with_bound


def test_new_names_keep_length_and_first_letter_case(
    renamed_features: tuple[RenameMap, dict[str, str]],
) -> None:
    rmap, _ = renamed_features
    assert set(rmap.mapping) == set(renameable_names(FEATURES))
    existing = {o.name for info in analyze_task(FEATURES).values() for o in info.occurrences}
    for old, new in rmap.mapping.items():
        assert len(new) == len(old)
        assert new != old
        assert new[0].isupper() == old[0].isupper()
        assert new not in existing
        assert new not in TLA_KEYWORDS
        assert new not in standard_operator_names()
    assert len(set(rmap.mapping.values())) == len(rmap.mapping)


def test_module_file_is_renamed(renamed_features: tuple[RenameMap, dict[str, str]]) -> None:
    rmap, out = renamed_features
    assert set(out) == {rmap.mapping["Features"] + ".tla", rmap.mapping["Base"] + ".tla"}
    text = out[rmap.mapping["Features"] + ".tla"]
    header = text.splitlines()[0]
    assert header == FEATURES["Features.tla"].splitlines()[0].replace(
        "Features", rmap.mapping["Features"])


def test_fields_strings_comments_untouched(
    renamed_features: tuple[RenameMap, dict[str, str]],
) -> None:
    rmap, out = renamed_features
    text = out[rmap.mapping["Features"] + ".tla"]
    new_counter = rmap.mapping["counter"]
    assert "[kind : {\"ping\", \"pong\"}, counter : 0..MaxVal]".replace(
        "MaxVal", rmap.mapping["MaxVal"]) in text
    assert '[kind |-> "ping", counter |-> 0]' in text
    assert "!.counter = IF" in text
    assert f"{new_counter} = 0" in text
    assert '"Limit reached"' in text
    assert "(* Exercises the identifier kinds CIR renames. The word Limit in    *)" in text
    assert text.count("\n") == FEATURES["Features.tla"].count("\n")


def test_instances_prefixed_local_recursive_renamed(
    renamed_features: tuple[RenameMap, dict[str, str]],
) -> None:
    m, out = renamed_features
    mp = m.mapping
    text = out[mp["Features"] + ".tla"]
    assert f"{mp['B']} == INSTANCE {mp['Base']} WITH {mp['Limit']} <- {mp['MaxVal']}, " \
           f"{mp['count']} <- {mp['counter']}" in text
    assert f"{mp['B']}!{mp['Within']}(v)" in text
    assert f"{mp['B']}!{mp['Bump']}" in text
    assert f"LOCAL {mp['Helper']}(x) == x + 1" in text
    assert f"RECURSIVE {mp['SumTo']}(_)" in text
    assert f"{mp['Bounded']}!{mp['lbl']}" in text
    assert "EXTENDS Naturals, Sequences, FiniteSets, TLC\n" in text
    base = out[mp["Base"] + ".tla"]
    assert f"CONSTANT {mp['Limit']}" in base
    assert f"VARIABLE {mp['count']}" in base


def test_determinism_and_seed_dependence() -> None:
    first = random_rename_map(FEATURES, seed="task-a")
    assert random_rename_map(FEATURES, seed="task-a") == first
    assert random_rename_map(FEATURES, seed="task-b") != first
    assert random_rename_map(FEATURES, seed=1) != random_rename_map(FEATURES, seed=2)
    assert random_rename_map(RELAY, seed="task-a").mapping != first.mapping
    assert len({first, random_rename_map(FEATURES, seed="task-a")}) == 1  # hashable, equal


def test_keep_and_extra_reserved() -> None:
    rmap = random_rename_map(FEATURES, seed=3, keep=["Init", "Next", "Spec"])
    assert not {"Init", "Next", "Spec"} & set(rmap.mapping)
    base = random_rename_map(FEATURES, seed=3)
    blocked = random_rename_map(FEATURES, seed=3, extra_reserved=[base.mapping["MaxVal"]])
    assert blocked.mapping["MaxVal"] != base.mapping["MaxVal"]


def test_single_letter_names() -> None:
    letters = "abcdefghijklmnopqrstuvwxy"  # 25 of 26 lowercase letters taken
    src = ("---- MODULE Letters ----\nCONSTANTS " + ", ".join(letters) + "\n====\n")
    rmap = random_rename_map({"Letters.tla": src}, seed=0, keep=letters[1:])
    assert rmap.mapping["a"] == "z"
    full = src.replace("CONSTANTS ", "CONSTANTS z, ")
    with pytest.raises(RenameError, match="no free name of length 1"):
        random_rename_map({"Letters.tla": full}, seed=0)


def test_pluscal_labels_and_pc_strings() -> None:
    rmap = random_rename_map(RELAY, seed=11)
    mp = rmap.mapping
    for kept in ("pc", "stack", "self", "ProcSet", "Init", "Next", "Spec", "Terminating"):
        assert kept not in mp
    out = rename_modules(RELAY, rmap)
    text = out[mp["Relay"] + ".tla"]
    fetch, store, deposit = mp["Fetch"], mp["Store"], mp["Deposit"]
    assert f"(* --algorithm {mp['Relay']}" in text
    assert f"  {fetch}:\n" in text
    assert f"goto {fetch};" in text
    assert f"call {deposit}(" in text
    assert f'Busy(w) == pc[w] \\in {{"{fetch}", "{store}"}}'.replace(
        "Busy", mp["Busy"]) in text
    assert f'procedure |->  "{deposit}"' in text
    assert f'pc[self] = "{fetch}"' in text
    assert '"Done"' in text
    assert "Fetch" not in text.split("end algorithm")[1]
    # record fields of stack frames keep the old variable names (they are values)
    assert "Head(stack[self]).before" in text
    assert rename_modules(out, rmap.inverse()) == RELAY


# -- validation -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("old", "new", "problem"),
    [
        ("counter", "ELSE", "keyword"),
        ("MaxVal", "SUBSET", "keyword"),
        ("counter", "Nat", "reserved or standard"),
        ("SumTo", "Len", "reserved or standard"),
        ("counter", "Naturals", "reserved or standard"),
        ("Init", "INIT", "reserved or standard"),
        ("counter", "WF_abc", "not a valid"),
        ("counter", "12", "not a valid"),
        ("counter", "Nodes", "collides"),
        ("counter", "msg", "collides"),
        ("Len", "Lxn", "standard"),
        ("nope", "abcd", "not a name defined"),
        ("counter", "cnt", "changes the length"),
    ],
)
def test_validate_map_refuses(old: str, new: str, problem: str) -> None:
    problems = validate_map(FEATURES, {old: new})
    assert any(problem in p for p in problems), problems
    with pytest.raises(RenameError):
        rename_modules(FEATURES, {old: new})


def test_validate_map_accepts_swaps_and_refuses_non_injective() -> None:
    assert validate_map(FEATURES, {"Nodes": "MaxVal", "MaxVal": "Nodes"}) != []  # lengths
    assert validate_map(FEATURES, {"counter": "Kounter", "msg": "log", "log": "msg"}) == []
    problems = validate_map(FEATURES, {"msg": "qqq", "log": "qqq"})
    assert any("not injective" in p for p in problems)
    assert validate_map(FEATURES, {"msg": "abcdef"}, allow_length_change=True) == []
    cfg = (DATA / "Features.cfg").read_text(encoding="utf-8")
    assert validate_map(FEATURES, {"Ok": "n1"}) == []
    assert any("collides" in p for p in validate_map(FEATURES, {"Ok": "n1"}, cfg))


@pytest.mark.tlc  # SANY on the renamed modules
def test_swap_renames_consistently() -> None:
    out = rename_modules(FEATURES, {"msg": "log", "log": "msg"})
    back = rename_modules(out, {"msg": "log", "log": "msg"})
    assert back == FEATURES
    ok, output = _sany_ok(out, "Features.tla")
    assert ok, output


def test_rename_cfg() -> None:
    cfg = (DATA / "Features.cfg").read_text(encoding="utf-8")
    rmap = random_rename_map(FEATURES, seed=5, cfg_text=cfg)
    renamed = parse_cfg(rename_cfg(cfg, rmap))
    assert dict(renamed.constants)[rmap.mapping["Nodes"]] == "{n1, n2}"
    assert renamed.specification == rmap.mapping["Spec"]
    assert renamed.invariants == tuple(rmap.mapping[n] for n in ("TypeOK", "Bounded", "Named"))
    assert parse_cfg(rename_cfg(rename_cfg(cfg, rmap), rmap.inverse())) == parse_cfg(cfg)


@pytest.mark.tlc  # SANY on the renamed modules
def test_renamed_fixtures_parse_with_sany() -> None:
    for modules, main in ((FEATURES, "Features"), (RELAY, "Relay")):
        for seed in (1, 2):
            rmap = random_rename_map(modules, seed=seed)
            ok, output = _sany_ok(rename_modules(modules, rmap), rmap.mapping[main] + ".tla")
            assert ok, output


# -- properties (Hypothesis) ----------------------------------------------------------------

_TARGETS = sorted(renameable_names(FEATURES))
_ADVERSARIAL = sorted({"ELSE", "SUBSET", "Nat", "Len", "CHOOSE", "Seq", "TRUE", "WF_x", "Print",
                       "LET", "Int", "Append", "Naturals", "TLC", "DOMAIN", "BOOLEAN", "Head"})
_IDENT = st.from_regex(r"[A-Za-z][A-Za-z0-9_]{0,11}", fullmatch=True)


@st.composite
def _maps(draw: st.DrawFn) -> dict[str, str]:
    keys = draw(st.lists(st.sampled_from(_TARGETS), min_size=1, max_size=8, unique=True))
    values = st.one_of(_IDENT, st.sampled_from(_ADVERSARIAL))
    return {k: draw(values) for k in keys}


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_maps())
def test_hypothesis_maps_round_trip_or_are_refused(mapping: dict[str, str]) -> None:
    problems = validate_map(FEATURES, mapping, allow_length_change=True)
    adversarial = set(mapping.values()) & set(_ADVERSARIAL)
    if adversarial:
        assert problems, mapping
    if problems:
        with pytest.raises(RenameError):
            rename_modules(FEATURES, mapping, allow_length_change=True)
        return
    out = rename_modules(FEATURES, mapping, allow_length_change=True)
    inverse = RenameMap({k: v for k, v in mapping.items() if k != v}).inverse()
    assert rename_modules(out, inverse, allow_length_change=True) == FEATURES


@settings(max_examples=25, deadline=None)
@given(st.one_of(st.integers(), st.text(max_size=20)))
def test_seeded_maps_round_trip(seed: int | str) -> None:
    for modules in (FEATURES, RELAY):
        rmap = random_rename_map(modules, seed=seed)
        assert validate_map(modules, rmap.mapping) == []
        out = rename_modules(modules, rmap)
        assert rename_modules(out, rmap.inverse()) == modules


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(_TARGETS), st.sampled_from(_ADVERSARIAL))
def test_adversarial_names_are_refused(old: str, new: str) -> None:
    assume(old != new)
    assert validate_map(FEATURES, {old: new}, allow_length_change=True)


# -- the corpus -----------------------------------------------------------------------------


@needs_corpus
@pytest.mark.parametrize("entry", _passing_models(), ids=_model_id)
def test_corpus_round_trip(entry: dict[str, object]) -> None:
    modules = _model_modules(entry)
    cfg = (CORPUS / str(entry["run_cfg"])).read_text(encoding="utf-8")
    rmap = random_rename_map(modules, seed=_model_id(entry), cfg_text=cfg)
    assert validate_map(modules, rmap.mapping, cfg) == []
    out = rename_modules(modules, rmap)
    assert rename_modules(out, rmap.inverse()) == modules
    assert parse_cfg(rename_cfg(rename_cfg(cfg, rmap), rmap.inverse())) == parse_cfg(cfg)


@needs_corpus
@pytest.mark.tlc  # SANY on the renamed modules
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_corpus_hypothesis_maps(data: st.DataObject) -> None:
    entry = data.draw(st.sampled_from(_passing_models()), label="model")
    modules = _model_modules(entry)
    targets = sorted(renameable_names(modules, include_bound=True))
    keys = data.draw(st.lists(st.sampled_from(targets), min_size=1, max_size=10, unique=True))
    values = st.one_of(_IDENT, st.sampled_from(_ADVERSARIAL))
    mapping = {k: data.draw(values, label=k) for k in keys}
    problems = validate_map(modules, mapping, allow_length_change=True)
    if set(mapping.values()) & set(_ADVERSARIAL):
        assert problems
    if problems:
        return
    out = rename_modules(modules, mapping, allow_length_change=True)
    inverse = RenameMap({k: v for k, v in mapping.items() if k != v}).inverse()
    assert rename_modules(out, inverse, allow_length_change=True) == modules


_SANY_SAMPLE = ("DiningPhilosophers:DiningPhilosophers", "MisraReachability:MCParReach",
                "SpecifyingSystems/TLC:MCAlternatingBit", "NanoBlockchain:MCNanoSmall",
                "dag-consensus:TLCSailfish1", "echo:MCEcho", "allocator:AllocatorRefinement",
                "SpecifyingSystems/CachingMemory:MCWriteThroughCache")


def _check_sany(entry: dict[str, object]) -> None:
    modules = _model_modules(entry)
    rmap = random_rename_map(modules, seed=_model_id(entry))
    main = Path(str(entry["module"])).stem
    ok, output = _sany_ok(rename_modules(modules, rmap), rmap.mapping.get(main, main) + ".tla")
    assert ok, output


@needs_corpus
@pytest.mark.parametrize("entry", [e for e in _passing_models() if _model_id(e) in _SANY_SAMPLE],
                         ids=_model_id)
def test_corpus_sample_parses_after_renaming(entry: dict[str, object]) -> None:
    _check_sany(entry)


@pytest.mark.slow
@needs_corpus
@pytest.mark.parametrize("entry", _passing_models(), ids=_model_id)
def test_corpus_all_parse_after_renaming(entry: dict[str, object]) -> None:
    _check_sany(entry)
