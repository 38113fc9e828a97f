"""TLA+ values as TLC prints them, read into hashable Python values, and written back as TLA+.

The Python side follows TLA+ equality: records, tuples and functions are all `Fn` (a record is a
function on strings, a tuple a function on 1..n), so `<<1, 2>>` equals `(1 :> 1 @@ 2 :> 2)`.
Integers are `int`, strings `str`, booleans the `TRUE`/`FALSE` singletons (never Python's
`bool`, which would equal 0 and 1), model values `ModelValue`, sets `frozenset`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, TypeGuard, Union


@dataclass(frozen=True, slots=True)
class Bool:
    """A TLA+ boolean (kept apart from Python's `bool`, which equals 0 and 1)."""

    value: bool

    def __repr__(self) -> str:
        return "TRUE" if self.value else "FALSE"

    def __reduce__(self) -> tuple[Callable[[bool], Bool], tuple[bool]]:
        return (_boolean, (self.value,))  # read back as the singleton, and fast


TRUE = Bool(True)
FALSE = Bool(False)


def _boolean(value: bool) -> Bool:
    return TRUE if value else FALSE


@dataclass(frozen=True, slots=True)
class ModelValue:
    """A TLC model value: equal only to itself."""

    name: str

    def __repr__(self) -> str:
        return self.name

    def __reduce__(self) -> tuple[type[ModelValue], tuple[str]]:
        return (ModelValue, (self.name,))  # a frozen dataclass's own state restore is slow


class Fn:
    """A TLA+ function (records and tuples included): its pairs in a canonical key order."""

    __slots__ = ("_hash", "_map", "_order", "items")

    def __init__(self, pairs: Iterable[tuple[Value, Value]]) -> None:
        self._map: dict[Value, Value] = dict(pairs)
        self.items: tuple[tuple[Value, Value], ...] = tuple(
            sorted(self._map.items(), key=_pair_key(self._map)))
        self._hash = hash(self.items)
        self._order: tuple[object, ...] | None = None  # `sort_key`, once asked

    @classmethod
    def tuple_of(cls, values: Iterable[Value]) -> Fn:
        return cls(enumerate(values, 1))

    def __getitem__(self, key: Value) -> Value:
        return self._map[key]

    def get(self, key: Value) -> Value | None:
        return self._map.get(key)

    def __contains__(self, key: object) -> bool:
        return key in self._map

    def __len__(self) -> int:
        return len(self.items)

    def domain(self) -> frozenset[Value]:
        return frozenset(self._map)

    def values(self) -> list[Value]:
        return [v for _, v in self.items]

    def is_tuple(self) -> bool:
        return all(type(k) is int and k == i for i, (k, _) in enumerate(self.items, 1))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Fn) and self._hash == other._hash and self.items == other.items

    def __hash__(self) -> int:
        return self._hash

    def __reduce__(self) -> tuple[Callable[[Pairs], Fn], tuple[Pairs]]:
        return (_restored, (self.items,))  # the hash of strings differs between processes

    @classmethod
    def from_canonical(cls, items: Pairs) -> Fn:
        """The function of pairs already in the canonical order (as `items` holds them):
        not sorted again (a cached graph holds millions)."""
        made = cls.__new__(cls)
        made._map = dict(items)
        made.items = items
        made._hash = hash(items)
        made._order = None
        return made

    def __repr__(self) -> str:
        return to_tla(self)


Value = Union[int, str, Bool, ModelValue, frozenset["Value"], Fn]  # noqa: UP007
Pairs = tuple[tuple[Value, Value], ...]


def _restored(items: Pairs) -> Fn:
    """A pickled function read back (its pairs were pickled in the canonical order)."""
    return Fn.from_canonical(items)


def sort_key(value: Value) -> tuple[object, ...]:
    """A total order over values of any kind (for canonical forms and stable output)."""
    if isinstance(value, Bool):
        return (1, value.value)
    if isinstance(value, int):
        return (0, value)
    if isinstance(value, str):
        return (2, value)
    if isinstance(value, ModelValue):
        return (3, value.name)
    if isinstance(value, frozenset):
        return (4, tuple(sorted(sort_key(v) for v in value)))
    if value._order is None:  # noqa: SLF001 - the function's own cache of its order
        value._order = (5, tuple((sort_key(k), sort_key(v)) for k, v in value.items))  # noqa: SLF001
    return value._order  # noqa: SLF001


def _first_int(pair: tuple[Value, Value]) -> int:
    return pair[0]  # type: ignore[return-value]


def _first_str(pair: tuple[Value, Value]) -> str:
    return pair[0]  # type: ignore[return-value]


def _first_model(pair: tuple[Value, Value]) -> str:
    return pair[0].name  # type: ignore[union-attr]


def _first_any(pair: tuple[Value, Value]) -> tuple[object, ...]:
    return sort_key(pair[0])


def _pair_key(mapping: dict[Value, Value]) -> Callable[[tuple[Value, Value]], Any]:
    """The sort key of a function's pairs: `sort_key` of the key; where every key is an int,
    every one a string or every one a model value, the key itself (or its name), which
    orders them the same way at a fraction of the cost (a graph has millions of functions)."""
    kinds = {type(k) for k in mapping}
    if len(kinds) != 1:
        return _first_any
    kind = kinds.pop()
    return {int: _first_int, str: _first_str, ModelValue: _first_model}.get(kind, _first_any)


def is_atom(value: Value) -> bool:
    return not isinstance(value, (frozenset, Fn))


def is_number(value: Value) -> TypeGuard[int]:
    """An integer value (TLA+'s booleans are not numbers)."""
    return isinstance(value, int) and not isinstance(value, Bool)


class ValueSyntaxError(ValueError):
    """The text is not a value as TLC prints it."""


#: TLC's tokens, in the order tried: integers, strings, operators, names; `\S` keeps any
#: other character as a token of its own, which the reader then refuses
_TOKENS = re.compile(r'''-?\d+|"(?:[^"\\]|\\.)*"|<<|>>|\|->|:>|@@|\.\.|->|[{}\[\](),:]'''
                     r"|[A-Za-z_][A-Za-z0-9_]*|\S")
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "f": "\f", '"': '"', "\\": "\\"}
_ESCAPE = re.compile(r"\\(.)")
_CLOSING = {"{": "}", "<<": ">>", "[": "]", "(": ")"}
_DIGITS = frozenset("0123456789")
_NAME_START = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_")

#: values already read, by their tokens: a `Fn`, a set or a parenthesized value (`parse_value`)
SubValues = dict[tuple[str, ...], "Value"]


def _is_int(token: str) -> bool:
    return token[0] in _DIGITS or (token[0] == "-" and len(token) > 1 and token[1] in _DIGITS)


class _Reader:
    """One value's tokens, read left to right; with `seen`, every bracketed part (a set, a
    tuple, a record, a parenthesized function) read once and looked up after, by its tokens
    (the parts of a graph's states repeat: the same messages in many states' sets)."""

    def __init__(self, text: str, seen: SubValues | None) -> None:
        self.text = text
        self.toks: list[str] = _TOKENS.findall(text)
        self.i = 0
        self.seen = seen
        self.ends: dict[int, int] = {}  # an opening bracket's token -> its closing one's
        if seen is not None:
            opened: list[int] = []
            for j, tok in enumerate(self.toks):
                if tok in _CLOSING:
                    opened.append(j)
                elif tok in ("}", ">>", "]", ")") and opened:
                    self.ends[opened.pop()] = j

    def fail(self, why: str) -> ValueSyntaxError:
        return ValueSyntaxError(f"{why} in {self.text[:60]!r}")

    def peek(self) -> str:
        return self.toks[self.i] if self.i < len(self.toks) else ""

    def take(self, expected: str | None = None) -> str:
        if self.i >= len(self.toks):
            raise self.fail("unexpected end")
        tok = self.toks[self.i]
        if expected is not None and tok != expected:
            raise self.fail(f"expected {expected!r}, found {tok!r}")
        self.i += 1
        return tok

    def closed(self, close: str) -> bool:
        """After an item: True at `close` (consumed), False at a comma (consumed)."""
        tok = self.take()
        if tok == close:
            return True
        if tok != ",":
            raise self.fail(f"expected ',' or {close!r}")
        return False

    def value(self) -> Value:
        first = self.primary()
        if self.peek() != ":>":
            return first
        pairs = []  # (k :> v @@ k :> v ...) without the parentheses
        key = first
        while True:
            self.take(":>")
            pairs.append((key, self.primary()))
            if self.peek() != "@@":
                return Fn(pairs)
            self.take()
            key = self.primary()

    def primary(self) -> Value:
        start = self.i
        tok = self.take()
        close = _CLOSING.get(tok)
        if close is None:
            return self.atom(tok)
        end = self.ends.get(start)
        if self.seen is None or end is None:
            return self.bracketed(tok, close)
        key = tuple(self.toks[start:end + 1])
        hit = self.seen.get(key)
        if hit is not None:
            self.i = end + 1
            return hit
        value = self.bracketed(tok, close)
        if self.i == end + 1:
            self.seen[key] = value
        return value

    def atom(self, tok: str) -> Value:
        if _is_int(tok):
            if self.peek() == "..":
                self.take()
                high = self.take()
                if not _is_int(high):
                    raise self.fail(f"an interval ends with {high!r}")
                return frozenset(range(int(tok), int(high) + 1))
            return int(tok)
        if tok[0] == '"' and len(tok) > 1 and tok[-1] == '"':
            return _ESCAPE.sub(lambda m: _ESCAPES.get(m.group(1), m.group(1)), tok[1:-1])
        if tok[0] in _NAME_START:
            if tok in ("TRUE", "FALSE"):
                return TRUE if tok == "TRUE" else FALSE
            return ModelValue(tok)
        raise self.fail(f"unexpected {tok!r}")

    def bracketed(self, tok: str, close: str) -> Value:
        if tok == "(":
            inner = self.value()
            self.take(")")
            return inner
        if self.peek() == close:
            self.take()
            return frozenset() if tok == "{" else Fn(())
        if tok == "{":
            elems: list[Value] = []
            while True:
                elems.append(self.value())
                if self.closed(close):
                    return frozenset(elems)
        if tok == "<<":
            seq: list[Value] = []
            while True:
                seq.append(self.value())
                if self.closed(close):
                    return Fn.tuple_of(seq)
        fields: list[tuple[Value, Value]] = []
        while True:
            name = self.take()
            if name[0] not in _NAME_START:
                raise self.fail(f"a record field {name!r}")
            self.take("|->")
            fields.append((name, self.value()))
            if self.closed(close):
                return Fn(fields)


def parse_value(text: str, seen: SubValues | None = None) -> Value:
    """Read one value as TLC prints it (`{1, 2}`, `<<a, "s">>`, `[f |-> 1]`, `(1 :> 2 @@ ...)`);
    `seen`: the bracketed parts of values read before, by their tokens, which it reads from
    and adds to (values are immutable, so one object serves every place a part occurs)."""
    try:
        reader = _Reader(text, seen)
        value = reader.value()
    except ValueError as exc:
        raise ValueSyntaxError(str(exc)) from exc
    if reader.i != len(reader.toks):
        raise ValueSyntaxError(f"text after the value: {reader.peek()!r} in {text[:60]!r}")
    return value


_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_RESERVED = frozenset(
    "ASSUME ASSUMPTION AXIOM CASE CHOOSE CONSTANT CONSTANTS DOMAIN ELSE ENABLED EXCEPT EXTENDS "
    "IF IN INSTANCE LET LOCAL MODULE OTHER SF_ SUBSET THEN THEOREM UNCHANGED UNION VARIABLE "
    "VARIABLES WF_ WITH BOOLEAN STRING TRUE FALSE".split())


def is_field_name(key: object) -> bool:
    """Whether `key` can be written as a record field (`r.key`, `[key |-> v]`)."""
    return (isinstance(key, str) and bool(_IDENT.match(key)) and key not in _RESERVED
            and not key.startswith(("WF_", "SF_")))


_STRING_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\t": "\\t", "\r": "\\r",
                   "\f": "\\f"}


def _tla_string(text: str) -> str:
    return '"' + "".join(_STRING_ESCAPES.get(c, c) for c in text) + '"'


def to_tla(value: Value, depth: int = 0) -> str:
    """The value as a TLA+ expression that needs no module but Naturals/Integers.

    Functions that are neither tuples nor records are written `[x \\in D |-> CASE ...]`, so the
    expression needs no `TLC` module for `:>` and `@@`."""
    if isinstance(value, Bool):
        return "TRUE" if value.value else "FALSE"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return _tla_string(value)
    if isinstance(value, ModelValue):
        return value.name
    if isinstance(value, frozenset):
        return "{" + ", ".join(to_tla(v, depth) for v in sorted(value, key=sort_key)) + "}"
    if not value.items or value.is_tuple():
        return "<<" + ", ".join(to_tla(v, depth) for v in value.values()) + ">>"
    if all(is_field_name(k) for k, _ in value.items):
        return "[" + ", ".join(f"{k} |-> {to_tla(v, depth)}" for k, v in value.items) + "]"
    var = f"AliasX{depth}" if depth else "AliasX"
    domain = "{" + ", ".join(to_tla(k, depth + 1) for k, _ in value.items) + "}"
    cases = " [] ".join(f"{var} = {to_tla(k, depth + 1)} -> {to_tla(v, depth + 1)}"
                        for k, v in value.items)
    return f"[{var} \\in {domain} |-> CASE {cases}]"


def kind_of(value: Value) -> str:
    """A coarse kind: int, bool, str, model, set, fn."""
    if isinstance(value, Bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, str):
        return "str"
    if isinstance(value, ModelValue):
        return "model"
    return "set" if isinstance(value, frozenset) else "fn"


def atoms(value: Value) -> Iterator[Value]:
    """Every atom inside a value (keys of functions included)."""
    if isinstance(value, frozenset):
        for v in value:
            yield from atoms(v)
    elif isinstance(value, Fn):
        for k, v in value.items:
            yield from atoms(k)
            yield from atoms(v)
    else:
        yield value


def translate(value: Value, table: dict[Value, Value]) -> Value:
    """The value with every atom (keys included) replaced through `table` (others kept)."""
    if isinstance(value, frozenset):
        return frozenset(translate(v, table) for v in value)
    if isinstance(value, Fn):
        return Fn((translate(k, table), translate(v, table)) for k, v in value.items)
    return table.get(value, value)
