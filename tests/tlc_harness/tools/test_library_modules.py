"""The module library (`tlc_harness/tools/library`): each operator against hand-computed values run
through TLC, proofs citing TLAPS pragmas, which copy of a module a run gets, and the records.

Operator checks are ASSUMEs: TLC evaluates every ASSUME before exploring, and a false one ends
the run with message 2104 and exit 10 (`assumption_failed`).
"""

from __future__ import annotations

import textwrap
from collections.abc import Iterator
from types import SimpleNamespace

import pytest

from alias_fixtures.grading.extract import forbidden_imports
from alias_fixtures.grading.grade import grade_output
from alias_fixtures.plugin.provenance import RunFacts, run_header
from alias_fixtures.tasks.task import builtin_tasks
from alias_fixtures.tasks.variants import make_variant
from tests.conftest import ROOT
from tlc_harness.source.cfg import ModelConfig
from tlc_harness.tools.library import ModuleLibrary, bundled_library, imported_modules
from tlc_harness.tools.results import CheckResult, Verdict
from tlc_harness.tools.runner import Harness
from tlc_harness.tools.spec import SpecSource

ASSUMPTION_FALSE_CODE = 2104
ASSUMPTION_FALSE_EXIT = 10
TRIVIAL_CFG = ModelConfig(init="Init", next="Next")

# Hand-computed values, one claim per ASSUME, per library module.
CLAIMS: dict[str, list[str]] = {
    "Functions": [
        "Restrict(f, {1, 3}) = (1 :> 10 @@ 3 :> 30)",
        "RestrictDomain(f, LAMBDA i : i > 1) = (2 :> 20 @@ 3 :> 30)",
        "RestrictValues(f, LAMBDA v : v < 25) = (1 :> 10 @@ 2 :> 20)",
        "IsRestriction(2 :> 20, f)",
        "~IsRestriction(2 :> 21, f)",
        "~IsRestriction(4 :> 40, f)",
        "Range(f) = {10, 20, 30}",
        "Range(<<>>) = {}",
        "Inverse(f, 1..3, {10, 30}) = (10 :> 1 @@ 30 :> 3)",
        "AntiFunction(<<\"a\", \"b\">>) = (\"a\" :> 1 @@ \"b\" :> 2)",
        "IsInjective(<<1, 2>>)",
        "~IsInjective(<<1, 1>>)",
        "Cardinality(Injection({1, 2}, {\"x\", \"y\"})) = 2",
        "Injection({1, 2, 3}, {\"x\", \"y\"}) = {}",
        "Cardinality(Surjection({1, 2, 3}, {\"x\", \"y\"})) = 6",
        "Bijection({1, 2}, {\"x\", \"y\"}) = "
        "{(1 :> \"x\" @@ 2 :> \"y\"), (1 :> \"y\" @@ 2 :> \"x\")}",
        "ExistsInjection({1, 2}, {1, 2, 3})",
        "~ExistsSurjection({1, 2}, {1, 2, 3})",
        "ExistsBijection({1, 2}, {3, 4})",
        "~ExistsBijection({1}, {})",
        "FoldFunction(LAMBDA x, y : x + y, 0, f) = 60",
        "FoldFunctionOnSet(LAMBDA x, y : x + y, 0, f, {1, 2}) = 30",
        # op(s[1], op(s[2], op(s[3], base))): TLC's CHOOSE takes the smallest index first
        "FoldFunction(LAMBDA x, acc : Append(acc, x), <<>>, <<\"a\", \"b\", \"c\">>)"
        " = <<\"c\", \"b\", \"a\">>",
    ],
    "Folds": [
        "MapThenFoldSet(LAMBDA x, y : x + y, 0, LAMBDA x : x * x,"
        " LAMBDA S : CHOOSE x \\in S : TRUE, 1..3) = 14",
        "MapThenFoldSet(LAMBDA x, acc : Append(acc, x), <<>>, LAMBDA x : x,"
        " LAMBDA S : CHOOSE x \\in S : \\A y \\in S : y <= x, {1, 2, 3}) = <<1, 2, 3>>",
        "MapThenFoldSet(LAMBDA x, y : x + y, 7, LAMBDA x : x,"
        " LAMBDA S : CHOOSE x \\in S : TRUE, {}) = 7",
    ],
    "FiniteSetsExt": [
        "FoldSet(LAMBDA x, y : x + y, 0, 0..10) = 55",
        "ReduceSet(LAMBDA x, y : x + y, {1, 2, 3}, 10) = 16",
        "Sum(0..10) = 55",
        "Sum({}) = 0",
        "Product(1..4) = 24",
        "MapThenSumSet(LAMBDA x : 2 * x, {1, 2, 3}) = 12",
        "FlattenSet({{1}, {2, 3}, {}}) = {1, 2, 3}",
        "Quantify(1..9, LAMBDA n : n % 2 = 0) = 4",
        "kSubset(2, 1..3) = {{1, 2}, {1, 3}, {2, 3}}",
        "kSubset(4, 1..3) = {}",
        "Max({3, 1, 2}) = 3",
        "Min({3, -1, 2}) = -1",
        "Choices({{1, 2}, {2, 3}, {5}}) = {{2, 5}, {1, 2, 5}, {1, 3, 5}, {2, 3, 5}}",
        "ChooseUnique({2, 3, 4, 5}, LAMBDA x : x % 3 = 1) = 4",
        "Range(<<1, 1>>) = {1}",   # re-exported from Functions, as the original does
    ],
    "SequencesExt": [
        "ToSet(<<1, 2, 1>>) = {1, 2}",
        "SetToSeq({}) = <<>>",
        "ToSet(SetToSeq({1, 2, 3})) = {1, 2, 3} /\\ Len(SetToSeq({1, 2, 3})) = 3",
        "SetToSortSeq({3, 1, 2}, <) = <<1, 2, 3>>",
        "SetToSortSeq({3, 1, 2}, >) = <<3, 2, 1>>",
        "TupleOf({0, 1}, 2) = {<<0, 0>>, <<0, 1>>, <<1, 0>>, <<1, 1>>}",
        "SeqOf({\"a\"}, 2) = {<<>>, <<\"a\">>, <<\"a\", \"a\">>}",
        "BoundedSeq({\"a\"}, 1) = {<<>>, <<\"a\">>}",
        "Contains(<<1, 2>>, 2)",
        "~Contains(<<>>, 1)",
        "Reverse(<<1, 2, 3>>) = <<3, 2, 1>>",
        "Reverse(<<>>) = <<>>",
        "Remove(<<1, 2, 1, 3>>, 1) = <<2, 3>>",
        "ReplaceAll(<<1, 2, 1>>, 1, 0) = <<0, 2, 0>>",
        "InsertAt(<<1, 3>>, 2, 2) = <<1, 2, 3>>",
        "InsertAt(<<1>>, 2, 2) = <<1, 2>>",
        "ReplaceAt(<<1, 2, 3>>, 2, 9) = <<1, 9, 3>>",
        "RemoveAt(<<1, 2, 3>>, 2) = <<1, 3>>",
        "RemoveAt(<<1>>, 1) = <<>>",
        "Cons(0, <<1>>) = <<0, 1>>",
        "Front(<<1, 2, 3>>) = <<1, 2>>",
        "Last(<<1, 2, 3>>) = 3",
        "IsPrefix(<<1>>, <<1, 2>>)",
        "IsPrefix(<<>>, <<>>)",
        "~IsPrefix(<<2>>, <<1, 2>>)",
        "~IsPrefix(<<1, 2, 3>>, <<1, 2>>)",
        "IsStrictPrefix(<<1>>, <<1, 2>>)",
        "~IsStrictPrefix(<<1, 2>>, <<1, 2>>)",
        "IsSuffix(<<2>>, <<1, 2>>)",
        "~IsSuffix(<<1>>, <<1, 2>>)",
        "IsStrictSuffix(<<2>>, <<1, 2>>)",
        "~IsStrictSuffix(<<1, 2>>, <<1, 2>>)",
        "Prefixes(<<1, 2>>) = {<<>>, <<1>>, <<1, 2>>}",
        "Suffixes(<<1, 2>>) = {<<>>, <<2>>, <<1, 2>>}",
        "FoldLeft(LAMBDA acc, x : acc - x, 10, <<1, 2, 3>>) = 4",
        "FoldRight(LAMBDA x, acc : x - acc, <<1, 2, 3>>, 10) = -8",
        "FoldSeq(LAMBDA x, acc : x - acc, 10, <<1, 2, 3>>) = -8",
        "FlattenSeq(<<<<1>>, <<>>, <<2, 3>>>>) = <<1, 2, 3>>",
        "Zip(<<1, 2>>, <<\"a\", \"b\">>) = <<<<1, \"a\">>, <<2, \"b\">>>>",
        "SelectInSeq(<<5, 6, 5>>, LAMBDA x : x = 5) = 1",
        "SelectLastInSeq(<<5, 6, 5>>, LAMBDA x : x = 5) = 3",
        "SelectInSeq(<<>>, LAMBDA x : TRUE) = 0",
    ],
    "BagsExt": [
        "BagAdd(EmptyBag, \"a\") = SetToBag({\"a\"})",
        "BagAdd(SetToBag({\"a\"}), \"a\") = (\"a\" :> 2)",
        "BagAdd((\"a\" :> 2), \"b\") = (\"a\" :> 2 @@ \"b\" :> 1)",
        "BagRemove((\"a\" :> 2), \"a\") = (\"a\" :> 1)",
        "BagRemove(SetToBag({\"a\"}), \"a\") = EmptyBag",
        "BagRemove(EmptyBag, \"a\") = EmptyBag",
        "BagRemoveAll((\"a\" :> 3 @@ \"b\" :> 1), \"a\") = (\"b\" :> 1)",
        "SumBag((1 :> 2 @@ 5 :> 1)) = 7",
        "ProductBag((2 :> 3)) = 8",
        "FoldBag(LAMBDA x, acc : acc + 1, 0, (\"a\" :> 2 @@ \"b\" :> 3)) = 5",
    ],
    "UndirectedGraphs": [
        "IsUndirectedGraph(G1)",
        "~IsUndirectedGraph([node |-> {1}, edge |-> {{1, 2}}])",
        "IsUndirectedGraph([node |-> {1}, edge |-> {{1}}])",
        "~IsLoopFreeUndirectedGraph([node |-> {1}, edge |-> {{1}}])",
        "IsLoopFreeUndirectedGraph(G1)",
        "AreConnectedIn(1, 3, G1)",
        "~AreConnectedIn(1, 3, [node |-> {1, 2, 3}, edge |-> {{1, 2}}])",
        "AreConnectedIn(1, 1, [node |-> {1}, edge |-> {}])",
        "ConnectedComponents([node |-> {1, 2, 3}, edge |-> {{1, 2}}]) = {{1, 2}, {3}}",
        "IsStronglyConnected(G1)",
        "~IsStronglyConnected([node |-> {1, 2, 3}, edge |-> {{1, 2}}])",
        "IsStronglyConnected([node |-> {}, edge |-> {}])",
        "Cardinality(UndirectedSubgraph([node |-> {1, 2}, edge |-> {{1, 2}}])) = 5",
    ],
    "Graphs": [
        "IsDirectedGraph(D)",
        "~IsDirectedGraph([node |-> {1}, edge |-> {<<1, 2>>}])",
        "Transpose(D) = [node |-> {1, 2, 3}, edge |-> {<<1, 2>>, <<1, 3>>}]",
        "AreConnectedIn(2, 1, D)",
        "~AreConnectedIn(1, 2, D)",
        "IsTreeWithRoot(D, 1)",
        "~IsTreeWithRoot(D, 2)",
        "~IsTreeWithRoot([node |-> {1, 2, 3}, edge |-> {<<2, 1>>, <<2, 3>>}], 1)",
        "~IsTreeWithRoot([node |-> {1, 2, 3}, edge |-> {<<2, 1>>}], 1)",
        "IsStronglyConnected([node |-> {1, 2}, edge |-> {<<1, 2>>, <<2, 1>>}])",
        "~IsStronglyConnected(D)",
        "Cardinality(DirectedSubgraph([node |-> {1, 2}, edge |-> {<<1, 2>>}])) = 5",
    ],
    "DyadicRationals": [
        "IsDyadicRational(Zero) /\\ IsDyadicRational(One)",
        "Half(One) = [num |-> 1, den |-> 2]",
        "Add(Half(One), Half(One)) = One",
        "Add(Half(Half(One)), Half(One)) = [num |-> 3, den |-> 4]",
        "Add(Zero, Zero) = Zero",
        "Half(Zero) = Zero",
        "~IsDyadicRational([num |-> 1, den |-> 3])",
        "~IsDyadicRational([num |-> 2, den |-> 4])",
        "PrettyPrint(Half(One)) = \"1/2\"",
        "PrettyPrint(One) = \"1\"",
    ],
    "Bitwise": [
        "(12 & 10) = 8",
        "(12 | 10) = 14",
        "(12 ^^ 10) = 6",
        "(0 ^^ 5) = 5",
        "(7 & 0) = 0",
        "shiftR(12, 2) = 3",
        "shiftR(1, 1) = 0",
    ],
}

# Values the claims refer to (defined in the checking module).
FIXTURE_DEFS = """\
f == [i \\in 1..3 |-> i * 10]
G1 == [node |-> {1, 2, 3}, edge |-> {{1, 2}, {2, 3}}]
D == [node |-> {1, 2, 3}, edge |-> {<<2, 1>>, <<3, 1>>}]
"""
STANDARD = "Integers, Sequences, FiniteSets, TLC"


def claims_module(name: str, module: str, claims: list[str], *, extra: str = "Bags") -> str:
    """A module that EXTENDS `module` and ASSUMEs each claim, with a one-state behavior."""
    assumes = "\n".join(f"ASSUME {claim}" for claim in claims)
    return (f"---- MODULE {name} ----\nEXTENDS {STANDARD}, {extra}, {module}\n"
            f"{FIXTURE_DEFS}VARIABLE tick\nInit == tick = 0\nNext == UNCHANGED tick\n"
            f"{assumes}\n====\n")


def run_claims(harness: Harness, module: str, claims: list[str]) -> CheckResult:
    text = claims_module("LibraryClaims", module, claims)
    return harness.check(SpecSource.from_text(text), TRIVIAL_CFG, timeout=120)


# ---------------------------------------------------------------- operators through TLC
@pytest.mark.parametrize("module", sorted(CLAIMS))
def test_every_operator_gives_the_hand_computed_values(harness: Harness, module: str) -> None:
    result = run_claims(harness, module, CLAIMS[module])
    assert result.verdict is Verdict.OK, (result.detail, result.output[-2000:])
    assert result.distinct_states == 1
    assert module in result.library_modules


@pytest.mark.parametrize("module", sorted(CLAIMS))
def test_a_wrong_value_is_an_assumption_failure(harness: Harness, module: str) -> None:
    """The same claims with the first one negated: TLC must reject it (code 2104, exit 10)."""
    claims = [f"~({CLAIMS[module][0]})", *CLAIMS[module][1:]]
    result = run_claims(harness, module, claims)
    assert result.verdict is Verdict.ASSUMPTION_FAILED, (result.detail, result.output[-2000:])
    assert ASSUMPTION_FALSE_CODE in result.message_codes
    assert result.exit_code == ASSUMPTION_FALSE_EXIT


# ---------------------------------------------------------------- proofs
PROOF_SPEC = textwrap.dedent("""\
    ---- MODULE ProofDemo ----
    EXTENDS Naturals, FiniteSets, Sequences, TLAPS, FiniteSetTheorems, NaturalsInduction,
            SequenceTheorems, WellFoundedInduction, FunctionTheorems
    VARIABLE x
    Init == x = 0
    Next == x' = (x + 1) % 3
    Spec == Init /\\ [][Next]_x
    TypeOK == x \\in 0..2

    THEOREM TypeCorrect == Spec => []TypeOK
    <1>1. Init => TypeOK
      BY SMT DEF Init, TypeOK
    <1>2. TypeOK /\\ [Next]_x => TypeOK'
      BY Zenon, SMTT(30), ZenonT(20), Isa, IsaT(5), IsaM("blast"), IsaMT("auto", 10),
         Z3, CVC3T(3), AllProvers DEF TypeOK, Next
    <1>. QED
      BY <1>1, <1>2, PTL, ExpandENABLED DEF Spec

    THEOREM IntervalSize == Cardinality(0..2) = 3
      BY FS_Interval, FS_CardinalityType, FS_Subset, FS_EmptySet, FS_Singleton

    THEOREM Counting == \\A n \\in Nat : n + 0 = n
      BY NatInduction, GeneralNatInduction, LenProperties, EmptySeq, WFInduction,
         Fun_RangeProperties, SetExtensionality

    LEMMA Unused == ASSUME NEW S, IsFiniteSet(S) PROVE Cardinality(S) \\in Nat
    PROOF BY FS_CardinalityType
    ====
    """)
PROOF_LIBRARY = ("FiniteSetTheorems", "FunctionTheorems", "NaturalsInduction",
                 "SequenceTheorems", "TLAPS", "WellFoundedInduction")


def test_module_with_proofs_parses_and_model_checks(any_harness: Harness) -> None:
    spec = SpecSource.from_text(PROOF_SPEC)
    parsed = any_harness.parse(spec)
    assert parsed.ok, parsed.errors
    assert parsed.library_modules == PROOF_LIBRARY
    result = any_harness.check(spec, ModelConfig(specification="Spec", invariants=("TypeOK",)))
    assert result.verdict is Verdict.OK, (result.detail, result.output[-2000:])
    assert result.distinct_states == 3
    assert result.library_modules == PROOF_LIBRARY


@pytest.fixture(scope="module")
def bare_harness(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Harness]:
    """A harness without the library (fresh JVMs: the few runs here need no pool)."""
    with Harness(backend="fresh", module_library=False, tlc_timeout=120,
                 tmp_root=str(tmp_path_factory.mktemp("bare"))) as h:
        yield h


@pytest.mark.tlc
def test_without_the_library_the_proof_module_does_not_parse(bare_harness: Harness) -> None:
    parsed = bare_harness.parse(SpecSource.from_text(PROOF_SPEC))
    assert not parsed.ok
    assert parsed.library_modules == ()
    assert bare_harness.module_library.modules == {}


# ---------------------------------------------------------------- which copy a run gets
OWN_FUNCTIONS = '---- MODULE Functions ----\nRange(f) == "own copy"\n====\n'


def test_the_specs_own_copy_wins(harness: Harness) -> None:
    main = claims_module("OwnCopy", "Functions", ['Range(<<1>>) = "own copy"'])
    spec = SpecSource.from_text(main, {"Functions.tla": OWN_FUNCTIONS})
    result = harness.check(spec, TRIVIAL_CFG)
    assert result.verdict is Verdict.OK, (result.detail, result.output[-2000:])
    assert result.library_modules == ()


def test_a_library_module_importing_a_module_the_spec_has_gets_the_specs_copy(
        harness: Harness) -> None:
    """FiniteSetsExt comes from the library; the Functions it extends is the spec's own."""
    main = claims_module("OwnInside", "FiniteSetsExt",
                         ['Range(<<1>>) = "own copy"', "Sum({1, 2}) = 3"])
    spec = SpecSource.from_text(main, {"Functions.tla": OWN_FUNCTIONS})
    result = harness.check(spec, TRIVIAL_CFG)
    assert result.verdict is Verdict.OK, (result.detail, result.output[-2000:])
    assert result.library_modules == ("FiniteSetsExt", "Folds")


POISON_FINITE_SETS = "---- MODULE FiniteSets ----\nCardinality(S) == 99\n====\n"
POISON_EXTRA = "---- MODULE PoisonExtra ----\nMarker == 99\n====\n"


@pytest.fixture(scope="module")
def poisoned_harness(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Harness]:
    """A harness whose library has its own FiniteSets (the jar's must win) and one new module."""
    library = ModuleLibrary({"FiniteSets": POISON_FINITE_SETS, "PoisonExtra": POISON_EXTRA})
    with Harness(backend="fresh", library=library, tlc_timeout=120,
                 tmp_root=str(tmp_path_factory.mktemp("poison"))) as h:
        yield h


@pytest.mark.tlc
def test_a_module_the_jar_has_is_never_taken_from_the_library(poisoned_harness: Harness) -> None:
    assert poisoned_harness.module_library.shadowed == ("FiniteSets",)
    assert set(poisoned_harness.module_library.modules) == {"PoisonExtra"}
    main = ("---- MODULE JarWins ----\nEXTENDS FiniteSets, PoisonExtra\nVARIABLE x\n"
            "Init == x = 0\nNext == UNCHANGED x\nASSUME Cardinality({1, 2}) = 2\n"
            "ASSUME Marker = 99\n====\n")
    result = poisoned_harness.check(SpecSource.from_text(main), TRIVIAL_CFG)
    assert result.verdict is Verdict.OK, (result.detail, result.output[-2000:])
    assert result.library_modules == ("PoisonExtra",)


def test_the_bundled_library_has_no_module_the_2020_jar_has(harness: Harness) -> None:
    names = set(bundled_library().modules)
    assert names & harness.toolchain.standard_modules == set()
    assert {"TLAPS", "Functions", "SequencesExt", "FiniteSetsExt", "Folds",
            "FiniteSetTheorems"} <= names
    assert set(harness.module_library.modules) == names


def test_imported_modules_skip_comments_and_strings_and_span_lines() -> None:
    text = textwrap.dedent("""\
        ---- MODULE A ----
        EXTENDS Naturals,
                TLAPS, \\* EXTENDS Bogus
                Functions
        (* INSTANCE NotThis *)
        S == "INSTANCE NorThis"
        G == INSTANCE Graphs WITH x <- 1
        ====
        """)
    assert imported_modules(text) == ("Naturals", "TLAPS", "Functions", "Graphs")


def test_needed_by_follows_imports_and_stops_at_the_specs_own_modules() -> None:
    library = ModuleLibrary({
        "Top": "---- MODULE Top ----\nEXTENDS Mid\n====\n",
        "Mid": "---- MODULE Mid ----\nEXTENDS Low\n====\n",
        "Low": "---- MODULE Low ----\n====\n",
        "Unused": "---- MODULE Unused ----\n====\n",
    })
    files = {"Main.tla": "---- MODULE Main ----\nEXTENDS Helper\n====\n",
             "Helper.tla": "---- MODULE Helper ----\nEXTENDS Naturals, Top\n====\n"}
    assert list(library.needed_by("Main", files)) == ["Low.tla", "Mid.tla", "Top.tla"]
    own_mid = {**files, "Mid.tla": "---- MODULE Mid ----\n====\n"}
    assert list(library.needed_by("Main", own_mid)) == ["Top.tla"]


# ---------------------------------------------------------------- records
def test_result_json_and_run_header_record_the_library(harness: Harness) -> None:
    result = run_claims(harness, "Bitwise", CLAIMS["Bitwise"][:1])
    assert result.to_json()["library_modules"] == ["Bitwise"]
    settings = SimpleNamespace(model="demo", seed=0, tasks="builtin", conditions=("original",),
                               samples=1, grades=("name",), primary="name", mappings=1,
                               timeout=10, exposure_half=None)
    facts = RunFacts(settings, provider="demo", model_id="demo",  # type: ignore[arg-type]
                     toolchain=harness.toolchain.describe(),
                     module_library=harness.module_library.describe(), task_count=0, params={})
    header = run_header(facts)
    described = header["module_library"]
    library = bundled_library()
    assert set(described["modules"]) == set(library.modules)
    assert described["sha256"] == library.sha256
    assert described["shadowed_by_jar"] == []
    changed = ModuleLibrary({**library.modules, "TLAPS": library.modules["TLAPS"] + "\n"})
    assert changed.sha256 != library.sha256


# ---------------------------------------------------------------- isolation of model outputs
HOUR_CLOCK = next(t for t in builtin_tasks() if t.id == "hour_clock")


def test_output_extending_tlaps_parses_and_is_name_graded(harness: Harness) -> None:
    variant = make_variant(HOUR_CLOCK, "original", seed="0")
    main = variant.modules[f"{variant.main_module}.tla"]
    with_proof = main.replace("EXTENDS Naturals", "EXTENDS Naturals, TLAPS", 1)
    with_proof = with_proof.replace(
        "\n====", "\nTHEOREM Tidy == Init => hr = 12\n  BY Zenon DEF Init\n====", 1)
    assert with_proof != main and "TLAPS" in with_proof
    graded = grade_output(harness, variant, f"```tla\n{with_proof}\n```", grades=("name",))
    assert graded.parse.verdict == "ok", graded.parse.reason
    assert graded.name.verdict == "ok", graded.name.reason


def test_isolation_still_refuses_a_reference_module_even_under_a_library_name() -> None:
    """A reference that ships its own `Functions.tla` keeps it off limits: in runs that stage
    the reference beside the output, its copy would win over the library's."""
    output = "---- MODULE Out ----\nEXTENDS Naturals, TLAPS, Functions, Clock\n====\n"
    assert forbidden_imports(output, {"Clock", "Functions"}) == ("Functions", "Clock")
    assert forbidden_imports(output, {"Clock"}) == ("Clock",)


def test_library_folder_holds_only_modules_named_after_their_file() -> None:
    folder = ROOT / "tlc_harness" / "tools" / "library"
    paths = sorted(folder.glob("*.tla"))
    assert paths, folder
    for path in paths:
        first = path.read_text(encoding="utf-8").splitlines()[0]
        assert f"MODULE {path.stem} " in first, path.name
