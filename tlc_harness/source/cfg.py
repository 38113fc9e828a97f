"""TLC model-config (``.cfg``) files: parse, write, rename, and adapt them for the 2020 TLC."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace
from typing import Any, NamedTuple

__all__ = [
    "KEYWORDS",
    "CfgError",
    "CompatResult",
    "ModelConfig",
    "compat_for_legacy_tlc",
    "format_cfg",
    "normalize_value",
    "parse_cfg",
]


class CfgError(ValueError):
    """Malformed cfg text; the message names the line and what was expected."""

    def __init__(self, line: int, message: str) -> None:
        super().__init__(f"line {line}: {message}")
        self.line = line


# (ModelConfig field, reference kind, keywords; the first keyword is the one written).
_SECTIONS: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("init", "init", ("INIT",)),
    ("next", "next", ("NEXT",)),
    ("specification", "specification", ("SPECIFICATION",)),
    ("invariants", "invariant", ("INVARIANTS", "INVARIANT")),
    ("properties", "property", ("PROPERTIES", "PROPERTY")),
    ("constraints", "constraint", ("CONSTRAINTS", "CONSTRAINT")),
    ("action_constraints", "action_constraint", ("ACTION_CONSTRAINTS", "ACTION_CONSTRAINT")),
    ("symmetry", "symmetry", ("SYMMETRY",)),
    ("view", "view", ("VIEW",)),
    ("alias", "alias", ("ALIAS",)),
    ("postconditions", "postcondition", ("POSTCONDITION", "POSTCONDITIONS")),
    ("possible", "possible", ("_POSSIBLE",)),
    ("periodic", "periodic", ("_PERIODIC",)),
)
_LIST_FIELDS = frozenset({"invariants", "properties", "constraints", "action_constraints",
                          "postconditions", "possible", "periodic"})
_FIELD_OF = {kw: field for field, _, kws in _SECTIONS for kw in kws}
KEYWORDS = frozenset({"CONSTANT", "CONSTANTS", "CHECK_DEADLOCK", *_FIELD_OF})
"""Every section keyword of a cfg file. TLC 2.15 (2020) lacks CHECK_DEADLOCK, ALIAS,
POSTCONDITION(S), _POSSIBLE and _PERIODIC: `compat_for_legacy_tlc` rewrites them."""

_BOOLEANS = frozenset({"TRUE", "FALSE"})
_IDENT_RE = re.compile(r"[A-Za-z0-9_]*[A-Za-z][A-Za-z0-9_]*")
_TOKEN_RE = re.compile(
    r"""(?P<ws>\s+)
      | (?P<comment>\\\*[^\n]*)
      | (?P<open>\(\*)
      | (?P<string>"(?:[^"\\\n]|\\.)*")
      | (?P<ident>[A-Za-z0-9_]*[A-Za-z][A-Za-z0-9_]*)
      | (?P<number>[0-9]+)
      | (?P<sym><<|>>|<-|[=,{}\[\]()-])
    """,
    re.VERBOSE,
)


class _Tok(NamedTuple):
    kind: str  # "ident", "number", "string" or "sym"
    text: str
    line: int


def _tokenize(text: str) -> list[_Tok]:
    """Split cfg text into tokens, dropping whitespace and (nested) comments."""
    toks: list[_Tok] = []
    pos, line = 0, 1
    while pos < len(text):
        m = _TOKEN_RE.match(text, pos)
        if m is None:
            found = repr(text[pos])
            if text.startswith("*)", pos):
                found = "'*)' outside a comment"
            elif text[pos] == '"':
                found = "a string that does not end on this line"
            raise CfgError(line, f"expected a name, value, symbol or keyword, found {found}")
        end = _comment_end(text, pos, line) if m.lastgroup == "open" else m.end()
        if m.lastgroup in ("ident", "number", "string", "sym"):
            toks.append(_Tok(m.lastgroup, m.group(), line))
        line += text.count("\n", pos, end)
        pos = end
    return toks


def _comment_end(text: str, pos: int, line: int) -> int:
    """Return the index just after the (possibly nested) ``(* ... *)`` starting at ``pos``."""
    depth, i = 0, pos
    while i < len(text):
        if text.startswith("(*", i):
            depth, i = depth + 1, i + 2
        elif text.startswith("*)", i):
            depth, i = depth - 1, i + 2
            if depth == 0:
                return i
        else:
            i += 1
    raise CfgError(line, "expected '*)' to close the comment opened on this line")


class _Stream:
    """A cursor over tokens that builds :class:`CfgError` messages."""

    def __init__(self, toks: list[_Tok]) -> None:
        self.toks = toks
        self.i = 0

    def peek(self) -> _Tok | None:
        return self.toks[self.i] if self.i < len(self.toks) else None

    def take(self) -> str:
        self.i += 1
        return self.toks[self.i - 1].text

    def fail(self, expected: str) -> CfgError:
        tok = self.peek()
        if tok is None:
            line = self.toks[-1].line if self.toks else 1
            return CfgError(line, f"expected {expected}, found the end of the file")
        return CfgError(tok.line, f"expected {expected}, found {tok.text!r}")

    def at_keyword_or_end(self) -> bool:
        tok = self.peek()
        return tok is None or (tok.kind == "ident" and tok.text in KEYWORDS)

    def name(self, what: str) -> str:
        tok = self.peek()
        if tok is None or tok.kind != "ident" or tok.text in KEYWORDS:
            raise self.fail(what)
        return self.take()

    def sym(self, text: str) -> bool:
        tok = self.peek()
        if tok is not None and tok.kind == "sym" and tok.text == text:
            self.i += 1
            return True
        return False

    def value(self) -> str:
        """Read one constant value and return its normalized text."""
        tok = self.peek()
        if tok is not None and tok.kind != "sym" and tok.text not in KEYWORDS:
            return self.take()
        if self.sym("-"):
            nxt = self.peek()
            if nxt is None or nxt.kind != "number":
                raise self.fail("a number after '-'")
            return "-" + self.take()
        for opener, closer, what in (("{", "}", "set"), ("<<", ">>", "tuple")):
            if self.sym(opener):
                items: list[str] = []
                if not self.sym(closer):
                    items.append(self.value())
                    while self.sym(","):
                        items.append(self.value())
                    if not self.sym(closer):
                        raise self.fail(f"',' or '{closer}' in a {what}")
                return opener + ", ".join(items) + closer
        raise self.fail("a value (number, string, TRUE, FALSE, model value, {...} or <<...>>)")

    def qualifier(self) -> str:
        """Read an optional ``[Module]`` prefix; return ``"[Module] "`` or ``""``."""
        if not self.sym("["):
            return ""
        mod = self.name("a module name after '['")
        if not self.sym("]"):
            raise self.fail("']' after the module name")
        return f"[{mod}] "


def normalize_value(text: str) -> str:
    """Normalize a constant value's text, e.g. ``"{ a,b }"`` -> ``"{a, b}"``."""
    stream = _Stream(_tokenize(text))
    out = stream.qualifier() + stream.value()
    if stream.peek() is not None:
        raise stream.fail("the end of the value")
    return out


def _split_qualified(text: str) -> tuple[str | None, str]:
    """Split ``"[Mod] rest"`` into ``("Mod", "rest")``; unqualified text gives ``(None, text)``."""
    m = re.fullmatch(r"\[\s*([^\]\s]+)\s*\]\s*(.*)", text, re.DOTALL)
    return (m.group(1), m.group(2)) if m else (None, text)


def _join_qualified(mod: str | None, rest: str) -> str:
    return rest if mod is None else f"[{mod}] {rest}"


@dataclass(frozen=True)
class ModelConfig:
    """The content of one TLC cfg file; each field keeps the order of appearance."""

    constants: tuple[tuple[str, str], ...] = ()
    overrides: tuple[tuple[str, str], ...] = ()
    init: str | None = None
    next: str | None = None
    specification: str | None = None
    invariants: tuple[str, ...] = ()
    properties: tuple[str, ...] = ()
    constraints: tuple[str, ...] = ()
    action_constraints: tuple[str, ...] = ()
    symmetry: str | None = None
    view: str | None = None
    alias: str | None = None
    #: checks TLC makes once, after exploring every state (newer TLC only)
    postconditions: tuple[str, ...] = ()
    #: predicates some reachable state must satisfy, checked with the `_Possible` module
    possible: tuple[str, ...] = ()
    #: operators TLC evaluates every so often while exploring (statistics)
    periodic: tuple[str, ...] = ()
    check_deadlock: bool | None = None

    def _section_names(self, field: str) -> tuple[str, ...]:
        value = getattr(self, field)
        if isinstance(value, tuple):
            return value
        return () if value is None else (value,)

    def references(self) -> tuple[tuple[str, str], ...]:
        """All (name, kind) pairs the cfg refers to, in kind order, duplicates kept.

        The left sides of ``x = v`` and ``x <- y`` have kind ``"constant"``, ``y`` has kind
        ``"override_target"``. Model values and ``[Module]`` qualifiers are not references.
        """
        refs = [(name, "constant") for name, _ in (*self.constants, *self.overrides)]
        refs += [(_split_qualified(t)[1], "override_target") for _, t in self.overrides]
        for field, kind, _ in _SECTIONS:
            refs += [(name, kind) for name in self._section_names(field)]
        return tuple(refs)

    def referenced_names(self) -> dict[str, str]:
        """Map each referenced identifier to its kind; if it has several, the first in order."""
        out: dict[str, str] = {}
        for name, kind in self.references():
            out.setdefault(name, kind)
        return out

    @property
    def has_behavior(self) -> bool:
        """Whether the cfg names a SPECIFICATION or INIT and NEXT (else: a constant model)."""
        return bool(self.specification or (self.init and self.next))

    def model_values(self) -> frozenset[str]:
        """Identifiers used as values in constant assignments (``p1`` in ``P = {p1}``)."""
        found: set[str] = set()
        for _, value in self.constants:
            toks = _tokenize(_split_qualified(value)[1])
            found.update(t.text for t in toks if t.kind == "ident" and t.text not in _BOOLEANS)
        return frozenset(found)

    def module_qualifiers(self) -> frozenset[str]:
        """Module names of ``[Module]`` qualifiers (``x <- [M] y``, ``x = [M] v``)."""
        mods = (_split_qualified(v)[0] for _, v in (*self.constants, *self.overrides))
        return frozenset(m for m in mods if m is not None)

    def rename(self, mapping: Mapping[str, str]) -> ModelConfig:
        """Rename referenced names and ``[Module]`` qualifiers; values are never renamed."""

        def ren(name: str) -> str:
            return mapping.get(name, name)

        def ren_qualified(text: str, rename_rest: bool) -> str:
            mod, rest = _split_qualified(text)
            return _join_qualified(
                None if mod is None else ren(mod), ren(rest) if rename_rest else rest
            )

        changes: dict[str, Any] = {
            "constants": tuple((ren(n), ren_qualified(v, False)) for n, v in self.constants),
            "overrides": tuple((ren(n), ren_qualified(t, True)) for n, t in self.overrides),
        }
        for field, _, _ in _SECTIONS:
            value = getattr(self, field)
            if isinstance(value, tuple):
                changes[field] = tuple(ren(n) for n in value)
            elif value is not None:
                changes[field] = ren(value)
        return replace(self, **changes)

    def to_json(self) -> dict[str, object]:
        """A JSON-able dict: pairs as two-element lists, absent sections as ``None`` or ``[]``."""
        out: dict[str, object] = {
            "constants": [list(p) for p in self.constants],
            "overrides": [list(p) for p in self.overrides],
        }
        for field, _, _ in _SECTIONS:
            value = getattr(self, field)
            out[field] = list(value) if isinstance(value, tuple) else value
        out["check_deadlock"] = self.check_deadlock
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ModelConfig:
        """Inverse of :meth:`to_json`."""
        kwargs: dict[str, Any] = {
            key: tuple((str(a), str(b)) for a, b in data.get(key) or ())
            for key in ("constants", "overrides")
        }
        for field, _, _ in _SECTIONS:
            value = data.get(field)
            if field == "postconditions" and value is None and data.get("postcondition"):
                value = [data["postcondition"]]  # a record written before the list
            if field in _LIST_FIELDS:
                kwargs[field] = tuple(str(x) for x in value or ())
            else:
                kwargs[field] = None if value is None else str(value)
        deadlock = data.get("check_deadlock")
        kwargs["check_deadlock"] = None if deadlock is None else bool(deadlock)
        return cls(**kwargs)


def parse_cfg(text: str) -> ModelConfig:
    """Parse TLC cfg text; raise :class:`CfgError` on anything not understood."""
    stream = _Stream(_tokenize(text))
    constants: list[tuple[str, str]] = []
    overrides: list[tuple[str, str]] = []
    lists: dict[str, list[str]] = {field: [] for field in _LIST_FIELDS}
    singles: dict[str, Any] = {}
    while (tok := stream.peek()) is not None:
        if tok.kind != "ident" or tok.text not in KEYWORDS:
            raise stream.fail("a keyword (" + ", ".join(sorted(KEYWORDS)) + ")")
        keyword = stream.take()
        field = _FIELD_OF.get(keyword, "check_deadlock")
        if keyword in ("CONSTANT", "CONSTANTS"):
            while not stream.at_keyword_or_end():
                name = stream.name("a constant name or a keyword")
                if stream.sym("<-"):
                    qual = stream.qualifier()
                    overrides.append((name, qual + stream.name(f"a name after '{name} <-'")))
                elif stream.sym("="):
                    constants.append((name, stream.qualifier() + stream.value()))
                else:
                    raise stream.fail(f"'=' or '<-' after the constant {name}")
        elif field in _LIST_FIELDS:
            while not stream.at_keyword_or_end():
                lists[field].append(stream.name(f"a name in {keyword}"))
        elif field in singles:
            raise CfgError(tok.line, f"expected {keyword} at most once, found it again")
        elif keyword == "CHECK_DEADLOCK":
            nxt = stream.peek()
            if nxt is None or nxt.kind != "ident" or nxt.text not in _BOOLEANS:
                raise stream.fail("TRUE or FALSE after CHECK_DEADLOCK")
            singles[field] = stream.take() == "TRUE"
        else:
            singles[field] = stream.name(f"a name after {keyword}")
    kwargs: dict[str, Any] = {k: tuple(v) for k, v in lists.items()}
    kwargs.update(singles, constants=tuple(constants), overrides=tuple(overrides))
    return ModelConfig(**kwargs)


def _checked(name: str, where: str) -> str:
    if not _IDENT_RE.fullmatch(name) or name in KEYWORDS:
        raise ValueError(f"{where}: {name!r} is not a name a cfg file can hold")
    return name


def _format_lines(cfg: ModelConfig) -> Iterator[str]:
    entries = [f"{_checked(n, 'CONSTANTS')} = {normalize_value(v)}" for n, v in cfg.constants]
    for name, target in cfg.overrides:
        mod, rest = _split_qualified(target)
        mod = None if mod is None else _checked(mod, f"module in override of {name}")
        target = _join_qualified(mod, _checked(rest, f"override of {name}"))
        entries.append(f"{_checked(name, 'CONSTANTS')} <- {target}")
    if entries:
        yield "CONSTANTS"
        yield from (f"    {entry}" for entry in entries)
    for field, _, keywords in _SECTIONS:
        names = cfg._section_names(field)
        if names:
            yield keywords[0]
            yield from (f"    {_checked(n, keywords[0])}" for n in names)
    if cfg.check_deadlock is not None:
        yield f"CHECK_DEADLOCK {'TRUE' if cfg.check_deadlock else 'FALSE'}"


def format_cfg(cfg: ModelConfig) -> str:
    """Write ``cfg`` as cfg text; ``parse_cfg(format_cfg(c)) == c`` when ``c``'s values are normal.

    Values are normalized on the way out; a name that is not an identifier raises ``ValueError``.
    TLC 2.15 reads the result once :func:`compat_for_legacy_tlc` has removed newer keywords.
    """
    return "".join(line + "\n" for line in _format_lines(cfg))


@dataclass(frozen=True)
class CompatResult:
    """A cfg adapted for TLC 2.15, the extra TLC arguments, and notes on what was changed."""

    cfg: ModelConfig
    tlc_args: tuple[str, ...]
    notes: tuple[str, ...]
    unsupported: tuple[str, ...] = ()
    """Parts kept unchanged that TLC 2.15 still cannot read (e.g. negative numbers, tuples)."""


def _legacy_unreadable(tok: _Tok) -> bool:
    if tok.kind == "number":
        return int(tok.text) >= 2**31
    return tok.kind == "sym" and tok.text in ("-", "<<")


def compat_for_legacy_tlc(cfg: ModelConfig) -> CompatResult:
    """Rewrite ``cfg`` for the bundled 2020 TLC, which reads no CHECK_DEADLOCK, ALIAS,
    POSTCONDITION(S), _POSSIBLE or _PERIODIC. Each note says what the rewrite loses: none of
    these sections changes which behaviors the model has, only what TLC reports of them."""
    args: list[str] = []
    notes: list[str] = []
    if cfg.check_deadlock is False:
        args.append("-deadlock")
        notes.append("replaced CHECK_DEADLOCK FALSE by the TLC option -deadlock")
    elif cfg.check_deadlock is True:
        notes.append("dropped CHECK_DEADLOCK TRUE (the default; unsupported by TLC 2.15)")
    if cfg.alias is not None:
        notes.append(f"dropped ALIAS {cfg.alias} (unsupported by TLC 2.15): it only changes "
                     "how TLC prints the states of a trace")
    for keyword, names, lost in _LEGACY_LISTS:
        value: tuple[str, ...] = getattr(cfg, names)
        if value:
            notes.append(f"dropped {keyword} {', '.join(value)} (unsupported by TLC 2.15): "
                         f"{lost}; the behaviors are the same")
    unsupported = tuple(
        f"constant {name} = {value}: TLC 2.15 reads no negative numbers, tuples or numbers"
        " of 2^31 or more in a cfg"
        for name, value in cfg.constants
        if any(_legacy_unreadable(t) for t in _tokenize(value))
    )
    new = replace(cfg, check_deadlock=None, alias=None, postconditions=(), possible=(),
                  periodic=())
    return CompatResult(cfg=new, tlc_args=tuple(args), notes=tuple(notes), unsupported=unsupported)


# (keyword, ModelConfig field, what dropping the section loses)
_LEGACY_LISTS: tuple[tuple[str, str, str], ...] = (
    ("POSTCONDITION", "postconditions", "not checked once TLC has explored every state"),
    ("_POSSIBLE", "possible", "no check that some reachable state satisfies each"),
    ("_PERIODIC", "periodic", "not evaluated while TLC explores (it only reports on the run)"),
)
