"""Tests for tlc_harness.behavior.values: TLC's printed values, read back and written as TLA+.

The parser is checked on every shape TLC prints, by Hypothesis against a small printer that
prints the way TLC does (`tlc_print` below), and against the real TLC: a spec whose only state
is `to_tla(v)` must come back from `explore` as exactly `v`.
"""

from __future__ import annotations

import os
import pickle
import re
import subprocess
import sys
from collections.abc import Sequence
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tlc_harness.behavior.graphs import explore
from tlc_harness.behavior.values import (
    FALSE,
    TRUE,
    Bool,
    Fn,
    ModelValue,
    SubValues,
    Value,
    ValueSyntaxError,
    atoms,
    is_atom,
    kind_of,
    parse_value,
    sort_key,
    to_tla,
    translate,
)
from tlc_harness.source.cfg import parse_cfg
from tlc_harness.tools.runner import Harness
from tlc_harness.tools.spec import SpecSource

A, B, C = ModelValue("a"), ModelValue("b"), ModelValue("c")


def fn(*pairs: tuple[Value, Value]) -> Fn:
    return Fn(pairs)


def tup(*values: Value) -> Fn:
    return Fn.tuple_of(values)


def rec(**fields: Value) -> Fn:
    return Fn(fields.items())


def fs(*values: Value) -> frozenset[Value]:
    return frozenset(values)


# --------------------------------------------------------------------------- a TLC-like printer

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_TLC_ESCAPES = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\t": "\\t", "\r": "\\r", "\f": "\\f"}


def tlc_string(text: str) -> str:
    """A string literal the way TLC prints it."""
    return '"' + "".join(_TLC_ESCAPES.get(ch, ch) for ch in text) + '"'


def tlc_print(value: Value) -> str:
    """`value` printed the way TLC prints values (on one line)."""
    if isinstance(value, Bool):
        return "TRUE" if value.value else "FALSE"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return tlc_string(value)
    if isinstance(value, ModelValue):
        return value.name
    if isinstance(value, frozenset):
        return "{" + ", ".join(tlc_print(v) for v in sorted(value, key=sort_key)) + "}"
    if not value.items:
        return "<<>>"
    if value.is_tuple():
        return "<<" + ", ".join(tlc_print(v) for v in value.values()) + ">>"
    if all(isinstance(k, str) and _IDENT.match(k) for k, _ in value.items):
        return "[" + ", ".join(f"{k} |-> {tlc_print(v)}" for k, v in value.items) + "]"
    return "(" + " @@ ".join(f"{tlc_print(k)} :> {tlc_print(v)}" for k, v in value.items) + ")"


_LAYOUT = re.compile(r'"(?:[^"\\]|\\.)*"|<<|>>|[{(\[]|[})\]]|, ')


def spread_out(printed: str) -> str:
    """`printed` laid out the way TLC's pretty printer does for long values: `<< 1,\n   2 >>`."""
    def respace(hit: re.Match[str]) -> str:
        tok = hit.group(0)
        if tok.startswith('"'):
            return tok
        if tok in ("<<", "{", "(", "["):
            return tok + " "
        if tok == ", ":
            return ",\n   "
        return " " + tok
    return _LAYOUT.sub(respace, printed)


def tlc_print_as_function(value: Fn) -> str:
    """A non-empty function in TLC's `(k :> v @@ ...)` form, whatever its domain."""
    return "(" + " @@ ".join(f"{tlc_print(k)} :> {tlc_print(v)}" for k, v in value.items) + ")"


# --------------------------------------------------------------------------- atoms and numbers


@pytest.mark.parametrize(("text", "expected"), [
    ("0", 0), ("42", 42), ("-7", -7), ("-0", 0), ("2147483647", 2147483647),
    ("  5  ", 5), ("\n5\n", 5),
])
def test_integers(text: str, expected: int) -> None:
    value = parse_value(text)
    assert value == expected
    assert type(value) is int


@pytest.mark.parametrize(("text", "expected"), [
    ('""', ""),
    ('"abc"', "abc"),
    ('"a b  c"', "a b  c"),
    (r'"say \"hi\""', 'say "hi"'),
    (r'"back\\slash"', "back\\slash"),
    (r'"line\nbreak"', "line\nbreak"),
    (r'"tab\tcr\rff\f"', "tab\tcr\rff\f"),
    (r'"\\n"', "\\n"),              # a backslash, then the letter n
    (r'"\\\""', '\\"'),             # a backslash, then a quote
    (r'"\"\""', '""'),
    ('"{1, 2} <<x>> [a |-> 1] (1 :> 2 @@ 3 :> 4) 1..3"', "{1, 2} <<x>> [a |-> 1] (1 :> 2 @@ 3 :> 4) 1..3"),
    ('"TRUE"', "TRUE"),
])
def test_strings_with_escapes(text: str, expected: str) -> None:
    value = parse_value(text)
    assert value == expected
    assert type(value) is str


def test_booleans_are_the_singletons() -> None:
    assert parse_value("TRUE") is TRUE
    assert parse_value("FALSE") is FALSE
    assert TRUE == Bool(True)
    assert FALSE == Bool(False)
    assert TRUE != FALSE
    assert repr(TRUE) == "TRUE"
    assert repr(FALSE) == "FALSE"


@pytest.mark.parametrize("name", ["a", "alice", "m_1", "NoValue", "_x", "Nat"])
def test_model_values(name: str) -> None:
    value = parse_value(name)
    assert value != name  # never equal to the string of its name
    assert value == ModelValue(name)
    assert isinstance(value, ModelValue)
    assert repr(value) == name


def test_model_values_equal_only_to_themselves() -> None:
    a: object = ModelValue("a")
    assert a == ModelValue("a")
    assert hash(a) == hash(ModelValue("a"))
    assert a != ModelValue("b")
    assert parse_value("a") != "a"
    assert ModelValue("TRUE") != parse_value("TRUE")


# --------------------------------------------------------------------------- booleans vs numbers


@pytest.mark.parametrize("number", [0, 1])
@pytest.mark.parametrize("boolean", [TRUE, FALSE])
def test_bool_never_equals_an_integer(boolean: Value, number: Value) -> None:
    assert boolean != number
    assert number != boolean
    assert not isinstance(boolean, (bool, int))
    assert len({boolean, number}) == 2
    assert hash(boolean) != hash(number) or boolean != number
    table: dict[Value, str] = {boolean: "b"}
    assert table.get(number) is None


def test_bool_and_python_bool_are_different() -> None:
    true: object = TRUE
    false: object = FALSE
    assert true != True  # noqa: E712 - the point of the test
    assert false != False  # noqa: E712
    assert true is not True and false is not False
    assert parse_value("TRUE") != 1
    assert parse_value("FALSE") != 0


def test_sets_of_bits_and_of_booleans_are_distinct() -> None:
    bits = parse_value("{0, 1}")
    booleans = parse_value("{FALSE, TRUE}")
    assert bits == frozenset({0, 1})
    assert booleans == frozenset({FALSE, TRUE})
    assert bits != booleans
    assert len({bits, booleans}) == 2
    assert parse_value("<<0, 1>>") != parse_value("<<FALSE, TRUE>>")
    assert parse_value("(TRUE :> 1)") != parse_value("<<1>>")  # key TRUE is not key 1
    assert parse_value("[a |-> TRUE]") != parse_value("[a |-> 1]")


# --------------------------------------------------------------------------- sets and intervals


@pytest.mark.parametrize(("text", "expected"), [
    ("{}", fs()),
    ("{ }", fs()),
    ("{1}", fs(1)),
    ("{1, 2, 3}", fs(1, 2, 3)),
    ("{3, 1, 2}", fs(1, 2, 3)),
    ("{1, 1}", fs(1)),
    ('{"a", "b"}', fs("a", "b")),
    ("{a, b}", fs(A, B)),
    ("{a, 1}", fs(A, 1)),
    ("{{}}", fs(fs())),
    ("{{}, {1}, {1, 2}}", fs(fs(), fs(1), fs(1, 2))),
    ("{{{a}}}", fs(fs(fs(A)))),
    ("{<<1>>, <<>>}", fs(tup(1), tup())),
    ("{[a |-> 1], [b |-> 2]}", fs(rec(a=1), rec(b=2))),
    ("{TRUE, FALSE}", fs(TRUE, FALSE)),
])
def test_sets(text: str, expected: frozenset[Value]) -> None:
    value = parse_value(text)
    assert value == expected
    assert isinstance(value, frozenset)


@pytest.mark.parametrize(("text", "expected"), [
    ("1..3", fs(1, 2, 3)),
    ("0..0", fs(0)),
    ("-2..1", fs(-2, -1, 0, 1)),
    ("1..0", fs()),
    ("{1..2, 3..3}", fs(fs(1, 2), fs(3))),
    ("<<1..2>>", tup(fs(1, 2))),
    ("(1..2 :> 0)", fn((fs(1, 2), 0))),
    ("[s |-> 1..3]", rec(s=fs(1, 2, 3))),
])
def test_intervals(text: str, expected: Value) -> None:
    assert parse_value(text) == expected


def test_interval_equals_the_enumerated_set() -> None:
    assert parse_value("1..3") == parse_value("{1, 2, 3}")
    assert hash(parse_value("1..3")) == hash(parse_value("{3, 2, 1}"))
    assert parse_value("1..0") == parse_value("{}")


# --------------------------------------------------------------------------- tuples


@pytest.mark.parametrize("text", ["<<>>", "<< >>", "<<  >>", "<<\n>>"])
def test_empty_tuple_and_empty_function(text: str) -> None:
    """TLC prints `<<>>` for the empty sequence and `<< >>` for an empty function: the same."""
    value = parse_value(text)
    assert isinstance(value, Fn)
    assert len(value) == 0
    assert value == Fn([])
    assert value == Fn.tuple_of([])
    assert value.is_tuple()
    assert value.domain() == frozenset()
    assert value != fs()


@pytest.mark.parametrize(("text", "expected"), [
    ("<<1>>", tup(1)),
    ("<<1, 2, 3>>", tup(1, 2, 3)),
    ('<<1, "x", TRUE, a>>', tup(1, "x", TRUE, A)),
    ("<< 1, 2 >>", tup(1, 2)),
    ("<<<<1>>, <<>>>>", tup(tup(1), tup())),
    ("<<<<<<1>>>>>>", tup(tup(tup(1)))),
    ("<<{1}, [f |-> 2], (a :> 3)>>", tup(fs(1), rec(f=2), fn((A, 3)))),
    ("<<-1, -2>>", tup(-1, -2)),
])
def test_tuples(text: str, expected: Fn) -> None:
    value = parse_value(text)
    assert value == expected
    assert isinstance(value, Fn)
    assert value.is_tuple()


def test_tuple_accessors() -> None:
    value = parse_value('<<"x", "y">>')
    assert isinstance(value, Fn)
    assert value[1] == "x"
    assert value[2] == "y"
    assert value.get(3) is None
    assert 1 in value
    assert 0 not in value
    assert len(value) == 2
    assert value.values() == ["x", "y"]
    assert value.domain() == fs(1, 2)


def test_tuple_equals_the_function_on_one_to_n() -> None:
    as_tuple = parse_value('<<"a", "b">>')
    as_function = parse_value('(1 :> "a" @@ 2 :> "b")')
    assert as_tuple == as_function
    assert hash(as_tuple) == hash(as_function)
    assert parse_value('(2 :> "b" @@ 1 :> "a")') == as_tuple
    assert as_tuple == fn((2, "b"), (1, "a"))
    assert parse_value("(1 :> 1)") == tup(1)


def test_function_on_other_integers_is_not_a_tuple() -> None:
    zero_based = parse_value('(0 :> "a" @@ 1 :> "b")')
    gap = parse_value('(1 :> "a" @@ 3 :> "b")')
    assert isinstance(zero_based, Fn) and isinstance(gap, Fn)
    assert not zero_based.is_tuple()
    assert not gap.is_tuple()
    assert zero_based != tup("a", "b")
    assert gap != tup("a", "b")


def test_tuple_order_matters() -> None:
    assert parse_value("<<1, 2>>") != parse_value("<<2, 1>>")
    assert parse_value("<<1, 1>>") != parse_value("<<1>>")


# --------------------------------------------------------------------------- records


@pytest.mark.parametrize(("text", "expected"), [
    ("[a |-> 1]", rec(a=1)),
    ('[a |-> 1, b |-> "x"]', rec(a=1, b="x")),
    ('[b |-> "x", a |-> 1]', rec(a=1, b="x")),
    ("[from |-> alice, to |-> bob, amt |-> 1]",
     Fn([("from", ModelValue("alice")), ("to", ModelValue("bob")), ("amt", 1)])),
    ("[outer |-> [inner |-> <<1>>]]", rec(outer=rec(inner=tup(1)))),
    ("[s |-> {}, t |-> << >>]", rec(s=fs(), t=tup())),
    ("[f |-> (1 :> 2 @@ 3 :> 4)]", rec(f=fn((1, 2), (3, 4)))),
    ("[IF |-> 1]", rec(IF=1)),
])
def test_records(text: str, expected: Fn) -> None:
    value = parse_value(text)
    assert value == expected
    assert isinstance(value, Fn)


def test_record_field_order_does_not_matter() -> None:
    one = parse_value('[a |-> 1, b |-> "x", c |-> TRUE]')
    for text in ('[c |-> TRUE, b |-> "x", a |-> 1]', '[b |-> "x", c |-> TRUE, a |-> 1]'):
        other = parse_value(text)
        assert other == one
        assert hash(other) == hash(one)
        assert isinstance(other, Fn) and isinstance(one, Fn)
        assert other.items == one.items
    assert parse_value('[a |-> 1, b |-> "y"]') != one


def test_record_equals_the_function_on_strings() -> None:
    record = parse_value('[a |-> 1, b |-> "x"]')
    function = parse_value('("a" :> 1 @@ "b" :> "x")')
    assert record == function
    assert hash(record) == hash(function)
    assert isinstance(record, Fn)
    assert record["a"] == 1
    assert record.domain() == fs("a", "b")
    # but not the function on the model values a, b
    assert record != parse_value('(a :> 1 @@ b :> "x")')


# --------------------------------------------------------------------------- functions


@pytest.mark.parametrize(("text", "expected"), [
    ('(1 :> "a" @@ 2 :> "b")', tup("a", "b")),
    ('(0 :> "a")', fn((0, "a"))),
    ("(-1 :> TRUE @@ 5 :> FALSE)", fn((-1, TRUE), (5, FALSE))),
    ("(a :> 1 @@ b :> 2)", fn((A, 1), (B, 2))),
    ("(alice :> 1 @@ bob :> 1 @@ carol :> 1)",
     fn((ModelValue("alice"), 1), (ModelValue("bob"), 1), (ModelValue("carol"), 1))),
    ('("a b" :> 1 @@ "c" :> 2)', fn(("a b", 1), ("c", 2))),
    ("(TRUE :> 1 @@ FALSE :> 0)", fn((TRUE, 1), (FALSE, 0))),
    ("(a :> (b :> 1))", fn((A, fn((B, 1))))),
    ("(a :> (b :> (c :> {})))", fn((A, fn((B, fn((C, fs()))))))),
    ("((a :> 1) :> 2)", fn((fn((A, 1)), 2))),
    ("({1} :> 2 @@ {} :> 3)", fn((fs(1), 2), (fs(), 3))),
    ("(<<1>> :> 1 @@ <<2>> :> 2)", fn((tup(1), 1), (tup(2), 2))),
    ("([f |-> 1] :> 3)", fn((rec(f=1), 3))),
    ("(a :> <<1, 2>> @@ b :> [x |-> {a}])", fn((A, tup(1, 2)), (B, rec(x=fs(A))))),
    ("([from |-> bob, to |-> alice, amt |-> 1] :> 1)",
     fn((Fn([("from", ModelValue("bob")), ("to", ModelValue("alice")), ("amt", 1)]), 1))),
    ("( 1 :> 2 @@\n   3 :> 4 )", fn((1, 2), (3, 4))),
    # without the parentheses, at the top level
    ("1 :> 2 @@ 3 :> 4", fn((1, 2), (3, 4))),
])
def test_functions(text: str, expected: Fn) -> None:
    value = parse_value(text)
    assert value == expected
    assert isinstance(value, Fn)


def test_function_pair_order_does_not_matter() -> None:
    one = parse_value("(a :> 1 @@ b :> 2 @@ c :> 3)")
    other = parse_value("(c :> 3 @@ a :> 1 @@ b :> 2)")
    assert one == other
    assert hash(one) == hash(other)


def test_functions_with_different_values_or_domains_differ() -> None:
    base = parse_value("(a :> 1 @@ b :> 2)")
    assert base != parse_value("(a :> 1 @@ b :> 3)")
    assert base != parse_value("(a :> 1)")
    assert base != parse_value("(a :> 1 @@ b :> 2 @@ c :> 2)")
    assert base != parse_value('("a" :> 1 @@ "b" :> 2)')


def test_bank_transfer_state_values() -> None:
    """The values of one state of the builtin bank_transfer task, as TLC prints them."""
    transit = parse_value("([from |-> bob, to |-> alice, amt |-> 1] :> 1)")
    balance = parse_value("(alice :> 1 @@ bob :> 0 @@ carol :> 1)")
    assert isinstance(transit, Fn) and isinstance(balance, Fn)
    (key, count), = transit.items
    assert count == 1
    assert isinstance(key, Fn)
    assert key["from"] == ModelValue("bob")
    assert key["amt"] == 1
    assert balance[ModelValue("bob")] == 0


# --------------------------------------------------------------------------- syntax errors


@pytest.mark.parametrize("text", [
    "", "   ", "{", "}", "{1,", "{1 2}", "{,}", "{1,}", "<<1", "<<1,,2>>", "<<1 >> >>", ")", "()",
    "[a |-> ]", "[a 1]", "[a |-> 1,]", "(1 :> 2", "1 :> ", "(1 :> 2 @@)", "(1 :> 2 @@ 3)",
    "@@", "1 :> 2 :> 3", "1..", '"abc', '"a\\"', "1 2", "x y", "#", "-", "--1", "1.5", "a.b",
    "[a : {1}]", "{1} {2}",
])
def test_syntax_errors(text: str) -> None:
    with pytest.raises(ValueSyntaxError):
        parse_value(text)
    seen: SubValues = {}
    with pytest.raises(ValueSyntaxError):  # read with the parts of other values at hand
        parse_value(text, seen)
    assert parse_value("{1}", seen) == frozenset({1})


def test_syntax_error_is_a_value_error() -> None:
    assert issubclass(ValueSyntaxError, ValueError)


@pytest.mark.parametrize("text", ["1..a", "1..{", '1.."x"'])
def test_interval_with_a_bad_upper_bound_is_a_syntax_error(text: str) -> None:
    with pytest.raises(ValueSyntaxError):
        parse_value(text)


@pytest.mark.parametrize("text", ["[1 |-> 2]", '["a" |-> 2]', "[{ |-> 2]"])
def test_record_field_must_be_a_name(text: str) -> None:
    with pytest.raises(ValueSyntaxError):
        parse_value(text)


# --------------------------------------------------------------------------- to_tla


@pytest.mark.parametrize(("value", "text"), [
    (0, "0"), (-3, "-3"), (TRUE, "TRUE"), (FALSE, "FALSE"), (A, "a"),
    ("x", '"x"'), ('q"b\\n\n', '"q\\"b\\\\n\\n"'),
    (fs(), "{}"), (fs(2, 1), "{1, 2}"), (tup(), "<<>>"), (tup(1, "x"), '<<1, "x">>'),
    (rec(b=2, a=1), "[a |-> 1, b |-> 2]"),
    (fn((0, 1)), "[AliasX \\in {0} |-> CASE AliasX = 0 -> 1]"),
    (fn((A, 1), (B, 2)), "[AliasX \\in {a, b} |-> CASE AliasX = a -> 1 [] AliasX = b -> 2]"),
    (fn(("a b", 1)), '[AliasX \\in {"a b"} |-> CASE AliasX = "a b" -> 1]'),
])
def test_to_tla(value: Value, text: str) -> None:
    assert to_tla(value) == text


def test_repr_of_fn_is_its_tla() -> None:
    value = rec(a=1)
    assert repr(value) == to_tla(value)


@pytest.mark.parametrize("text", [
    "1", "-1", '"a\\"b\\\\c\\nd"', "TRUE", "a", "{}", "{1, {2}}", "<<>>", "<<1, <<a>>>>",
    '[a |-> 1, b |-> "x"]', "[r |-> [s |-> {<<>>}]]",
])
def test_to_tla_is_read_back_where_tlc_prints_the_same(text: str) -> None:
    """For values without a general function, `to_tla` writes what TLC prints."""
    value = parse_value(text)
    assert parse_value(to_tla(value)) == value


# --------------------------------------------------------------------------- helpers


def test_kind_of() -> None:
    assert kind_of(1) == "int"
    assert kind_of(-1) == "int"
    assert kind_of(TRUE) == "bool"
    assert kind_of("s") == "str"
    assert kind_of(A) == "model"
    assert kind_of(fs()) == "set"
    assert kind_of(tup()) == "fn"
    assert kind_of(rec(a=1)) == "fn"
    assert kind_of(fn((A, 1))) == "fn"


def test_is_atom() -> None:
    assert all(is_atom(v) for v in (1, TRUE, "s", A))
    assert not any(is_atom(v) for v in (fs(), tup(), rec(a=1)))


def test_atoms_include_keys() -> None:
    value = parse_value('(a :> {1, "s"} @@ b :> [f |-> <<TRUE>>])')
    # keys a, b; the values 1, "s"; the record key "f"; the tuple key 1 and TRUE
    expected: list[Value] = [A, 1, "s", B, "f", 1, TRUE]
    assert sorted(map(sort_key, atoms(value))) == sorted(map(sort_key, expected))
    assert list(atoms(5)) == [5]
    assert list(atoms(fs())) == []


def test_translate_replaces_atoms_and_keys() -> None:
    value = parse_value('(a :> "x" @@ b :> [x |-> a])')
    table: dict[Value, Value] = {A: ModelValue("p"), "x": "y", B: 7}
    assert translate(value, table) == parse_value('(p :> "y" @@ 7 :> [y |-> p])')
    assert translate(value, {}) == value
    assert translate(fs(A, 1), {A: 1}) == fs(1)  # a non-injective table may merge elements


def test_translate_keeps_booleans_apart_from_integers() -> None:
    assert translate(fs(TRUE, 1), {1: 2}) == fs(TRUE, 2)
    assert translate(fs(TRUE, 1), {TRUE: FALSE}) == fs(FALSE, 1)
    assert translate(rec(f=TRUE, g=1), {1: 0}) == rec(f=TRUE, g=0)
    assert translate(tup(TRUE), {1: 5}) == fn((5, TRUE))  # tuple keys are atoms too


def test_sort_key_orders_kinds() -> None:
    values: list[Value] = [fn((A, 1)), fs(1), A, "s", TRUE, FALSE, -1, 3]
    ordered = sorted(values, key=sort_key)
    assert [kind_of(v) for v in ordered] == ["int", "int", "bool", "bool", "str", "model", "set",
                                            "fn"]
    assert ordered[:4] == [-1, 3, FALSE, TRUE]


def test_fn_with_repeated_key_keeps_one_pair() -> None:
    value = Fn([(1, "a"), (1, "a")])
    assert len(value) == 1
    assert value == tup("a")


_PICKLED = ['[a |-> "x"]', "(m :> 1 @@ n :> 2)", '{<<"s">>, [f |-> m]}', "<<1, <<2>>>>"]


def _other_hash_seed() -> str:
    return "2" if os.environ.get("PYTHONHASHSEED") == "1" else "1"


def test_values_survive_pickle_in_the_same_process() -> None:
    for text in _PICKLED:
        value = parse_value(text)
        loaded = pickle.loads(pickle.dumps(value))  # noqa: S301 - our own bytes
        assert loaded == value
        assert hash(loaded) == hash(value)


def _pickled_by_another_process(texts: Sequence[str]) -> list[Value]:
    code = ("import pickle, sys\nfrom tlc_harness.behavior.values import parse_value\n"
            "sys.stdout.buffer.write(pickle.dumps([parse_value(t) for t in sys.argv[1:]]))\n")
    out = subprocess.run([sys.executable, "-c", code, *texts], capture_output=True, check=True,
                         env={**os.environ, "PYTHONHASHSEED": _other_hash_seed()}).stdout
    loaded: list[Value] = pickle.loads(out)  # noqa: S301 - our own child's bytes
    return loaded


def test_integer_values_pickled_by_another_process() -> None:
    (loaded,) = _pickled_by_another_process(["<<1, <<2>>, {3}>>"])
    assert loaded == parse_value("<<1, <<2>>, {3}>>")


def test_values_pickled_by_another_process_equal_fresh_ones() -> None:
    """String hashes differ between processes (PYTHONHASHSEED): an Fn must not carry its hash
    through a pickle, or a graph cached by one process is useless to the next."""
    loaded = _pickled_by_another_process(_PICKLED)
    for text, value in zip(_PICKLED, loaded, strict=True):
        fresh = parse_value(text)
        assert value == fresh, text
        assert hash(value) == hash(fresh), text


# --------------------------------------------------------------------------- Hypothesis

_NAMES = st.from_regex(r"[a-z][a-z0-9_]{0,5}", fullmatch=True)
_FIELDS = st.from_regex(r"[a-zA-Z][a-zA-Z0-9_]{0,4}", fullmatch=True)
_TEXT = st.text(alphabet=st.sampled_from(list('ab Z0"\\\n\t{}<>[](),:@|-.')), max_size=6)


def _models() -> st.SearchStrategy[ModelValue]:
    return st.sampled_from(["m1", "m2", "alice", "bob", "NoVal"]).map(ModelValue)


def atom_values() -> st.SearchStrategy[Value]:
    return st.one_of(
        st.integers(min_value=-1000, max_value=1000),
        _TEXT,
        st.sampled_from([TRUE, FALSE]),
        _models(),
    )


def _extend(children: st.SearchStrategy[Value]) -> st.SearchStrategy[Value]:
    return st.one_of(
        st.frozensets(children, max_size=4),
        st.lists(children, max_size=4).map(Fn.tuple_of),
        st.dictionaries(_FIELDS, children, max_size=4).map(lambda d: Fn(d.items())),
        st.dictionaries(atom_values(), children, max_size=4).map(lambda d: Fn(d.items())),
    )


values = st.recursive(atom_values(), _extend, max_leaves=14)


@settings(max_examples=300, deadline=None)
@given(values)
def test_parse_reads_back_what_tlc_prints(value: Value) -> None:
    printed = tlc_print(value)
    parsed = parse_value(printed)
    assert parsed == value
    assert hash(parsed) == hash(value)
    assert kind_of(parsed) == kind_of(value)
    assert tlc_print(parsed) == printed


@settings(max_examples=200, deadline=None)
@given(st.lists(values, min_size=1, max_size=6))
def test_values_read_with_the_parts_of_others_are_the_same(group: list[Value]) -> None:
    """A graph's reader hands every value the parts read before (`seen`): each value read so
    is the one read alone, and a part met again is the object read the first time."""
    seen: SubValues = {}
    first = []
    for value in group:
        printed = spread_out(tlc_print(value))
        first.append(parse_value(printed, seen))
        assert first[-1] == parse_value(printed) == value
        assert kind_of(first[-1]) == kind_of(value)
    again = parse_value("{" + ", ".join(tlc_print(v) for v in group) + "}", seen)
    assert again == frozenset(group)
    for value, read in zip(group, first, strict=True):
        if tlc_print(value)[:1] in ("{", "<", "[", "("):  # a bracketed part: read once
            assert any(part is read for part in again), tlc_print(value)


@settings(max_examples=150, deadline=None)
@given(values)
def test_parse_tolerates_tlc_layout(value: Value) -> None:
    """TLC's pretty printer puts spaces inside brackets and breaks lines after commas."""
    printed = tlc_print(value)
    assert parse_value(spread_out(printed)) == value


@settings(max_examples=150, deadline=None)
@given(st.dictionaries(_FIELDS, values, min_size=1, max_size=4))
def test_record_form_equals_function_form(fields: dict[str, Value]) -> None:
    value = Fn(fields.items())
    as_record = "[" + ", ".join(f"{k} |-> {tlc_print(v)}" for k, v in fields.items()) + "]"
    assert parse_value(as_record) == parse_value(tlc_print_as_function(value)) == value


@settings(max_examples=150, deadline=None)
@given(st.lists(values, min_size=1, max_size=5))
def test_tuple_form_equals_function_form(items: list[Value]) -> None:
    value = Fn.tuple_of(items)
    assert parse_value(tlc_print(value)) == parse_value(tlc_print_as_function(value)) == value


def _renamable(value: Value) -> list[Value]:
    seen: dict[Value, None] = {}
    for atom in atoms(value):
        if isinstance(atom, (str, ModelValue)):
            seen.setdefault(atom)
    return list(seen)


@settings(max_examples=300, deadline=None)
@given(values, st.data())
def test_translate_through_an_injective_table_and_back(value: Value, data: st.DataObject) -> None:
    names = _renamable(value)
    # a permutation of the string and model atoms (mixing the two kinds), or fresh atoms
    if data.draw(st.booleans(), label="permute"):
        targets: list[Value] = data.draw(st.permutations(names), label="permutation")
    else:
        targets = [ModelValue(f"fresh{i}") if i % 2 else f"§fresh{i}" for i in range(len(names))]
    table: dict[Value, Value] = dict(zip(names, targets, strict=True))
    inverse = {v: k for k, v in table.items()}
    assert len(inverse) == len(table)
    moved = translate(value, table)
    if not is_atom(value):
        assert kind_of(moved) == kind_of(value)
    assert sorted(map(sort_key, atoms(moved))) == sorted(sort_key(table.get(a, a)) for a in atoms(value))
    assert translate(moved, inverse) == value
    assert hash(translate(moved, inverse)) == hash(value)


@settings(max_examples=300, deadline=None)
@given(values, values)
def test_equality_hash_and_sort_key_agree(one: Value, other: Value) -> None:
    assert one == one
    assert (one == other) == (other == one)
    assert (one == other) == (sort_key(one) == sort_key(other))
    if one == other:
        assert hash(one) == hash(other)
    copy = translate(one, {})  # rebuilt from scratch
    assert copy == one
    assert hash(copy) == hash(one)
    assert len({one, copy}) == 1


@settings(max_examples=150, deadline=None)
@given(st.dictionaries(atom_values(), values, max_size=5), st.randoms(use_true_random=False))
def test_fn_ignores_pair_order(pairs: dict[Value, Value], rnd: Any) -> None:
    shuffled = list(pairs.items())
    rnd.shuffle(shuffled)
    one, other = Fn(pairs.items()), Fn(shuffled)
    assert one == other
    assert hash(one) == hash(other)
    assert one.items == other.items
    assert one.domain() == frozenset(pairs)
    for k, v in pairs.items():
        assert one[k] == v


@settings(max_examples=100, deadline=None)
@given(values)
def test_bools_stay_apart_from_ints(value: Value) -> None:
    """Swapping TRUE/FALSE for 1/0 changes the value whenever it holds a boolean."""
    swapped = translate(value, {TRUE: 1, FALSE: 0})
    has_bool = any(isinstance(a, Bool) for a in atoms(value))
    if has_bool:
        assert swapped != value
    else:
        assert swapped == value


# --------------------------------------------------------------------------- against the real TLC


def _spec(value: Value) -> tuple[SpecSource, Any]:
    models = sorted({a.name for a in atoms(value) if isinstance(a, ModelValue)})
    consts = f"CONSTANTS {', '.join(models)}\n" if models else ""
    text = ("---- MODULE RoundTrip ----\nEXTENDS Integers, Sequences\n" + consts
            + f"VARIABLE x\nInit == x = {to_tla(value)}\nNext == x' = x\n====\n")
    cfg = "".join(f"CONSTANT {m} = {m}\n" for m in models) + "INIT Init\nNEXT Next\n"
    return SpecSource("RoundTrip", {"RoundTrip.tla": text}), parse_cfg(cfg)


def _id(value: Value) -> str:
    return re.sub(r"\s+", " ", to_tla(value))[:50]


ROUND_TRIP: Sequence[Any] = [
    0, 42, -7, 2147483647,
    "", "plain", 'say "hi"', "back\\slash", "line\nbreak", "tab\there", "\\n", 'm\\"ix\n"',
    "form\ffeed",
    TRUE, FALSE, A,
    fs(), fs(1, 2, 3), fs(fs(), fs(1)), fs("a", "b"), fs(TRUE, FALSE), fs(0, 1), fs(A, B), fs(A, 1),
    tup(), tup(1, "x", TRUE), tup(tup(1), tup()), tup(fs(1), rec(f=2)),
    rec(a=1, b="x"), rec(outer=rec(inner=tup(1, 2))), rec(IF=1),
    fn((0, "a"), (1, "b")), fn((2, 1), (3, 2)), fn((A, 1), (B, 2)), fn(("a b", 1), ("c", 2)),
    fn((-1, TRUE)), fn((fs(1), 2), (fs(), 3)), fn((tup(1), 1), (tup(2), 2)), fn((TRUE, 1), (FALSE, 0)),
    fn((rec(f=1), A)), rec(r=fn((0, 1))), tup(fn((0, 1)), fn((A, 2))), fs(fn((0, 1)), fn((2, 3))),
    fs(*range(1, 11)),
    fn((A, fn((B, 1)))),
    fn((fn((0, 1)), 2)),
    "cr\rhere",
    rec(WF_x=1),
    tup(*["abcdefgh"] * 40),
]


@pytest.mark.parametrize("value", [v if hasattr(v, "marks") else pytest.param(v, id=_id(v))
                                   for v in ROUND_TRIP])
def test_real_tlc_reads_to_tla_back(harness: Harness, value: Value) -> None:
    spec, cfg = _spec(value)
    found = explore(harness, spec, cfg, budget=10)
    assert found.verdict == "ok", (to_tla(value), found.verdict, found.detail)
    graph = found.graph
    assert graph is not None
    assert graph.variables == ("x",)
    assert len(graph) == 1
    assert graph.initial == [0]
    assert graph.edges == []  # x' = x is a self-loop, a stutter
    (state,) = graph.states
    assert state == (value,)
    assert hash(state[0]) == hash(value)


def _order_by_sort_key(pairs: dict[Value, Value]) -> tuple[tuple[Value, Value], ...]:
    """The canonical order written out: the pairs sorted by `sort_key` of their keys."""
    keys = sorted(pairs, key=sort_key)
    return tuple((k, pairs[k]) for k in keys)


_SAME_KIND_KEYS = st.one_of(
    st.dictionaries(st.integers(min_value=-50, max_value=50), values, max_size=6),
    st.dictionaries(_TEXT, values, max_size=6),
    st.dictionaries(_models(), values, max_size=5),
    st.dictionaries(values, values, max_size=5),
)


@settings(max_examples=300, deadline=None)
@given(_SAME_KIND_KEYS)
def test_function_pairs_in_sort_key_order(pairs: dict[Value, Value]) -> None:
    """Keys of one kind are ordered natively (a fast path), mixed ones by `sort_key`: either
    way the canonical order, so equal functions print, hash and compare alike."""
    made = Fn(pairs.items())
    assert made.items == _order_by_sort_key(pairs)
    assert Fn(reversed(list(pairs.items()))).items == made.items


@settings(max_examples=150, deadline=None)
@given(values)
def test_sort_key_of_a_function_is_kept(value: Value) -> None:
    """A function's `sort_key` is computed once and kept; it must equal a fresh one's."""
    first = sort_key(value)
    assert sort_key(value) == first
    back = pickle.loads(pickle.dumps(value))  # noqa: S301 - our own bytes
    assert back == value
    assert hash(back) == hash(value)
    assert sort_key(back) == first
    if isinstance(value, Fn):  # read back in the canonical order, not sorted again
        assert back.items == Fn(dict(value.items).items()).items


def test_pickled_booleans_come_back_as_the_singletons() -> None:
    back = pickle.loads(pickle.dumps([TRUE, FALSE, ModelValue("p1")]))  # noqa: S301
    assert back[0] is TRUE
    assert back[1] is FALSE
    assert back[2] == ModelValue("p1")
