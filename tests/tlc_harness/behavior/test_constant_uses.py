"""What a spec's uses say about its constants: which are used only as symbols
(`search.symbol_constants`: any model value will do, and a grade under one holds under every
other) and which are numbers (`search.infer_types`)."""

from __future__ import annotations

import pytest

from tlc_harness.behavior.search import assignments, infer_types, symbol_constants

HEAD = "---- MODULE M ----\nEXTENDS Naturals\nCONSTANTS Yes, No, N\nVARIABLE v\n"


def _symbols(body: str) -> frozenset[str]:
    return symbol_constants({"M.tla": HEAD + body + "\n===="}, ["Yes", "No", "N"])


def test_enumerated_compared_and_stored_constants_are_symbols() -> None:
    body = """TypeOK == v \\in [1..N -> {Yes, No}]
Init == v = [p \\in 1..N |-> Yes]
Flip(p) == v' = [v EXCEPT ![p] = IF v[p] = Yes THEN No ELSE Yes]
Next == \\E p \\in 1..N : v[p] # No /\\ Flip(p)
Done == CASE v[1] = Yes -> 1 [] OTHER -> 0
ASSUME Yes # No"""
    assert _symbols(body) == {"Yes", "No"}


@pytest.mark.parametrize("use", [
    "Init == v = Yes + 1",               # a number
    "Init == v \\in Yes",                # a set
    "Init == v = Yes[1]",                # a function
    "Init == v = Yes.f",                 # a record
    "Init == v = Vote(Yes)",             # given to an operator: unknown use
    "Init == v = Yes /\\ Yes = \"yes\"",  # compared with a literal
    "Init == v = Yes /\\ 0 # Yes",
    "Init == v \\in [Yes -> 1..N]",
    "Init == v = Yes..No",
    "Init == v < Yes",
    "Init == v = 1 /\\ Yes",            # a boolean
    "ASSUME Yes",
])
def test_other_uses_are_not(use: str) -> None:
    assert "Yes" not in _symbols("TypeOK == v \\in {Yes, No}\n" + use)
    assert "No" in _symbols("TypeOK == v \\in {Yes, No}\n" + use)


def test_a_constant_never_enumerated_beside_another_is_not_a_symbol() -> None:
    # `v = Max` alone could as well be a number
    assert _symbols("Init == v = Yes\nNext == v' = No /\\ v = {Yes}") == frozenset()


def test_comments_and_strings_do_not_count() -> None:
    body = 'Init == v = Yes \\* Yes + 1\nNext == v\' = "Yes[1]" /\\ v \\in {Yes, No}'
    assert "Yes" in _symbols(body)


def test_a_constant_stored_in_a_numeric_variable_is_a_number() -> None:
    text = HEAD.replace("VARIABLE v", "VARIABLE t") + "Init == t = 25\nNext == t' = N\n===="
    assert infer_types({"M.tla": text}, ["t"], ["N"], None)["N"] == "int"


def test_a_module_separator_is_not_a_minus() -> None:
    text = "---- MODULE M ----\nCONSTANT RM\nVARIABLE st\n-----------\nInit == st \\in RM\n===="
    assert infer_types({"M.tla": text}, ["st"], ["RM"], None) == {"st": "any", "RM": "set"}


def test_a_model_value_is_an_atom_that_no_set_takes() -> None:
    # the reference's `none = none` beside `Replicas = {r1, r2}`: an output's set of
    # proposers may take the replicas, never the model value (its run would stop at `\in`)
    ref = infer_types({"M.tla": HEAD}, [], ["none", "Replicas"],
                      {"none": "none", "Replicas": "{r1, r2}"})
    assert ref == {"none": "atom", "Replicas": "set"}
    out = {"Proposers": "set", "Counter": "int"}
    assert assignments(("Proposers",), ("none", "Replicas"), out, ref) == [
        {"Proposers": "Replicas"}]
    # a number may still stand for a model value (numbered prisoners for `p1`)
    assert {"Counter": "none"} in assignments(("Counter",), ("none", "Replicas"), out, ref)
