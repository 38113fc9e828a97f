"""Extract one TLA+ module from a language model's raw reply.

`extract_module(reply)` finds every `---- MODULE Name ----` ... `====` module in the reply, in
fenced code blocks (```` ``` ````/`~~~`, any info string) or in plain prose, and returns one of them
as ASCII text with verdict `"ok"`; `"no_module"` when the reply has text but no module header (a
verdict of its own, distinct from a parse failure); `"empty"` for an empty reply; `"too_large"`
for a reply longer than `MAX_REPLY_CHARS` (no specification that long is an answer; nothing in it
is run, and the reply is the model's failure, graded and recorded like any other).

Decisions, each recorded in `Extraction.notes` when it applies:

- The end of a module is its first `====` (four or more `=`) outside comments and strings, as SANY
  reads it; a module header before that footer opens a nested module. A module without a footer
  ends at the end of its code block (or of the reply) and gets a `====` line added.
- A header SANY rejects (fewer than four dashes, no closing dashes: `--- MODULE X ---`) is
  rewritten as `---- MODULE X ----`. Text on the footer line after the `=` signs is dropped.
- Several modules: the one named `prefer` if given and present; else the one module no other
  module of the reply EXTENDS or INSTANCEs (a reply that gives a specification with the modules
  it builds on: the importing module is the specification, whatever its helpers define); else,
  among the modules not imported (all of them if every one is), those defining both `Init` and
  `Next` (if any do), and among the rest the largest, the earliest on a tie. The others are
  kept in `other_modules`.
- A byte-order mark is dropped, Windows and old-Mac line endings become `\\n`, and `to_ascii`
  converts Unicode TLA+ symbols (the bundled 2020 SANY reads ASCII only).

`to_ascii` and column alignment: replacing one character by two or three (`∧` by `/\\`, `≜` by
`==`) shifts everything after it on its line, which would break the alignment of bulleted `/\\` and
`\\/` lists that SANY reads from columns. Each line is converted separately; a line that starts
with a junction bullet is then indented by the shift of the earlier bullet it was aligned with in
the original text, and any other line by the shift of the bullet item it continues (the nearest
earlier bullet left of its indent). The layout SANY sees is thus the model's own layout.

`forbidden_imports` names the reference modules an output EXTENDS or INSTANCEs (verdict
`forbidden_import`).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field

from tlc_harness.source.identifiers import analyze_module

__all__ = ["UNICODE_TO_ASCII", "Extraction", "extract_module", "forbidden_imports", "to_ascii"]

#: Unicode TLA+ symbols and typographic characters -> ASCII (the TLA+ standard Unicode table,
#: plus look-alikes models write: smart quotes, dashes, non-breaking and zero-width spaces).
UNICODE_TO_ASCII: dict[str, str] = {
    "≜": "==", "≝": "==", "∧": "/\\", "∨": "\\/", "¬": "~", "∈": "\\in", "∉": "\\notin",
    "⇒": "=>", "⟹": "=>", "⇔": "<=>", "⟺": "<=>", "≡": "<=>", "≠": "#", "≤": "<=", "⩽": "<=",
    "≥": ">=", "⩾": ">=", "□": "[]", "◻": "[]", "☐": "[]", "◇": "<>", "◊": "<>", "⋄": "<>",
    "′": "'", "∀": "\\A", "∃": "\\E", "⟨": "<<", "\u2329": "<<", "\u3008": "<<", "⟩": ">>",
    "\u232a": ">>", "\u3009": ">>", "∪": "\\cup", "∩": "\\cap", "⊆": "\\subseteq", "⊂": "\\subset",
    "⊇": "\\supseteq", "⊃": "\\supset", "⊑": "\\sqsubseteq", "⊒": "\\sqsupseteq",
    "⊏": "\\sqsubset", "⊐": "\\sqsupset", "⊓": "\\sqcap", "⊔": "\\sqcup", "⊎": "\\uplus",
    "×": "\\X", "↦": "|->", "⟼": "|->", "→": "->", "⟶": "->", "←": "<-", "⇝": "~>", "↝": "~>",
    "⊕": "(+)", "⊖": "(-)", "⊗": "(\\X)", "⊘": "(/)", "⊙": "(.)", "÷": "\\div", "∘": "\\o",
    "·": "\\cdot", "∙": "\\cdot", "•": "\\bullet", "⋆": "\\star", "○": "\\bigcirc",
    "∼": "\\sim", "≃": "\\simeq", "≍": "\\asymp", "≈": "\\approx", "≅": "\\cong",
    "≐": "\\doteq", "≺": "\\prec", "⪯": "\\preceq", "≻": "\\succ", "⪰": "\\succeq",
    "≪": "\\ll", "≫": "\\gg", "∝": "\\propto", "∖": "\\", "⊢": "|-", "⊨": "|=", "⊣": "-|",
    "‖": "||", "…": "...", "‥": "..", "≔": ":=", "⩴": "::=", "∅": "{}",
    "ℕ": "Nat", "ℤ": "Int", "ℝ": "Real", "−": "-", "–": "-", "—": "-",
    "“": '"', "”": '"', "„": '"', "‟": '"', "‘": "'", "’": "'",
    "\u00a0": " ", "\u2007": " ", "\u2009": " ", "\u202f": " ", "\u2002": " ", "\u2003": " ",
    "\u200b": "", "\u200c": "", "\u200d": "", "\u2060": "", "\ufeff": "",
}

_JUNCTIONS = ("/\\", "\\/", "∧", "∨")
_HEADER = re.compile(
    r"^[ \t]*(?P<open>-{2,})[ \t]*MODULE[ \t]+(?P<name>[A-Za-z0-9_]+)[ \t]*(?P<close>-*)",
    re.MULTILINE)
_SANY_HEADER = re.compile(r"[ \t]*-{4,}[ \t]*MODULE[ \t]+[A-Za-z0-9_]+[ \t]*-{4,}")
_FENCE = re.compile(r"^[ \t]{0,3}(?P<fence>`{3,}|~{3,})[ \t]*(?P<info>[^\n`]*)$", re.MULTILINE)
_DEFINES = "(?m)^[ \t]*{name}[ \t]*(?:\\([^)\n]*\\))?[ \t]*=="


MAX_REPLY_CHARS = 1_000_000  # the longest reply extracted (a spec is a few thousand characters)


@dataclass(frozen=True)
class Extraction:
    """The module taken from a reply; `text` is ASCII, from its header line to its footer."""

    verdict: str  # "ok" | "no_module" | "empty" | "too_large"
    module_name: str | None
    text: str | None
    notes: tuple[str, ...] = ()
    other_modules: dict[str, str] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.verdict == "ok"


@dataclass(frozen=True)
class _Found:
    name: str
    text: str
    fenced: bool
    notes: tuple[str, ...]


# ---------------------------------------------------------------------------------- to_ascii
def _ascii_char(ch: str) -> str:
    if ch in UNICODE_TO_ASCII:
        return UNICODE_TO_ASCII[ch]
    plain = unicodedata.normalize("NFKD", ch).encode("ascii", "ignore").decode("ascii")
    return plain or "?"


def _convert_line(line: str) -> tuple[str, list[int], int]:
    """ASCII line, new column of every original column (len+1 entries), replacements made."""
    parts: list[str] = []
    cols: list[int] = []
    pos = count = 0
    for ch in line:
        cols.append(pos)
        new = ch if ch.isascii() else _ascii_char(ch)
        count += new != ch
        parts.append(new)
        pos += len(new)
    cols.append(pos)
    return "".join(parts), cols, count


def _code_junctions(line: str, depth: int) -> tuple[list[int], int, bool]:
    """Columns of junction tokens outside comments and strings; block-comment depth after the
    line; whether the line holds any code at all."""
    cols: list[int] = []
    code = False
    i, n = 0, len(line)
    while i < n:
        if depth:
            if line.startswith("(*", i):
                depth, i = depth + 1, i + 2
            elif line.startswith("*)", i):
                depth, i = depth - 1, i + 2
            else:
                i += 1
            continue
        if line.startswith("(*", i):
            depth, i = 1, i + 2
        elif line.startswith("\\*", i):
            break
        elif line[i] == '"':
            code, i = True, i + 1
            while i < n and line[i] != '"':
                i += 2 if line[i] == "\\" else 1
            i += 1
        elif line[i].isspace():
            i += 1
        else:
            code = True
            hit = next((j for j in _JUNCTIONS if line.startswith(j, i)), None)
            if hit is not None:
                cols.append(i)
            i += len(hit) if hit else 1
    return cols, depth, code


def to_ascii(text: str) -> tuple[str, int]:
    """Replace Unicode TLA+ symbols (and other non-ASCII) by ASCII, keeping `/\\` `\\/` layout.

    Returns the text and the number of characters replaced. See the module docstring for how
    bulleted lists stay aligned; remaining non-ASCII characters become their NFKD base letter
    or `?`.
    """
    if text.isascii():
        return text, 0
    out: list[str] = []
    stack: list[tuple[int, int]] = []  # open bullets: (original column, shift)
    depth = total = 0
    for line in text.split("\n"):
        converted, cols, count = _convert_line(line)
        total += count
        starts_in_comment = depth > 0
        junctions, depth, code = _code_junctions(line, depth)
        if starts_in_comment or not code:
            out.append(converted)
            continue
        indent = len(line) - len(line.lstrip())
        leading = bool(junctions) and junctions[0] == indent
        while stack and (stack[-1][0] > indent or (stack[-1][0] == indent and not leading)):
            stack.pop()
        shift = stack[-1][1] if stack else 0
        if stack and stack[-1][0] == indent:
            stack.pop()
        pad = shift - (cols[indent] - indent)
        if pad < 0:
            pad = -min(-pad, len(converted) - len(converted.lstrip(" ")))
        converted = " " * pad + converted if pad >= 0 else converted[-pad:]
        stack.extend((c, cols[c] + pad - c) for c in junctions)
        out.append(converted)
    return "\n".join(out), total


# ---------------------------------------------------------------------------- module scanning
def _segments(reply: str) -> list[tuple[str, bool]]:
    """The reply cut into (text, fenced) pieces: code blocks and the prose between them."""
    pieces: list[tuple[str, bool]] = []
    pos = 0
    while True:
        opening = _FENCE.search(reply, pos)
        if opening is None:
            break
        fence = opening.group("fence")
        closing = re.compile(rf"^[ \t]{{0,3}}{re.escape(fence[0])}{{{len(fence)},}}[ \t]*$",
                             re.MULTILINE)
        body_start = opening.end() + 1
        close = closing.search(reply, body_start)
        pieces.append((reply[pos:opening.start()], False))
        end = close.start() if close else len(reply)
        pieces.append((reply[body_start:end], True))
        if close is None:
            return [p for p in pieces if p[0].strip()]
        pos = close.end()
    pieces.append((reply[pos:], False))
    return [p for p in pieces if p[0].strip()]


def _module_end(text: str, pos: int) -> int | None:
    """Index just past the `=` run closing the module whose header ends at `pos`, if any."""
    depth = nested = 0
    i, n = pos, len(text)
    while i < n:
        if depth:
            if text.startswith("(*", i):
                depth, i = depth + 1, i + 2
            elif text.startswith("*)", i):
                depth, i = depth - 1, i + 2
            else:
                i += 1
            continue
        ch = text[i]
        if text.startswith("(*", i):
            depth, i = 1, i + 2
        elif text.startswith("\\*", i):
            nl = text.find("\n", i)
            i = n if nl < 0 else nl
        elif ch == '"':
            i += 1
            while i < n and text[i] not in '"\n':
                i += 2 if text[i] == "\\" else 1
            i += 1
        elif (i == 0 or text[i - 1] == "\n") and _HEADER.match(text, i):
            nested += 1
            nl = text.find("\n", i)
            i = n if nl < 0 else nl
        elif text.startswith("====", i):
            j = i
            while j < n and text[j] == "=":
                j += 1
            if nested == 0:
                return j
            nested, i = nested - 1, j
        else:
            i += 1
    return None


def _modules_in(piece: str, fenced: bool) -> list[_Found]:
    found: list[_Found] = []
    pos = 0
    while (head := _HEADER.search(piece, pos)) is not None:
        notes: list[str] = []
        name = head.group("name")
        line_end = piece.find("\n", head.start())
        line_end = len(piece) if line_end < 0 else line_end
        end = _module_end(piece, line_end)
        if end is None:
            body = piece[head.start():].rstrip() + "\n===="
            notes.append("added missing ==== footer")
            pos = len(piece)
        else:
            body, pos = piece[head.start():end], end
        if not _SANY_HEADER.match(body):
            body = f"---- MODULE {name} ----" + body[head.end() - head.start():]
            notes.append(f"rewrote header {head.group(0).strip()!r} as '---- MODULE {name} ----'")
        found.append(_Found(name, body + "\n", fenced, tuple(notes)))
    return found


def _defines(text: str, name: str) -> bool:
    return re.search(_DEFINES.format(name=name), text) is not None


def _roots(found: list[_Found]) -> list[_Found]:
    """The modules no other module of the reply EXTENDS or INSTANCEs (a module's own use of
    its name does not count): what imports the rest is the specification they make up."""
    imported: set[str] = set()
    for f in found:
        info = analyze_module(f.text)
        imported |= {n for n in (*info.extends, *info.instances) if n != f.name}
    return [f for f in found if f.name not in imported]


def _choose(found: list[_Found], prefer: str | None) -> tuple[_Found, str | None]:
    if len(found) == 1:
        return found[0], None
    named = [f for f in found if f.name == prefer]
    roots = _roots(found)
    top = roots if roots and len(roots) < len(found) else []
    candidates = top or found
    full = [f for f in candidates if _defines(f.text, "Init") and _defines(f.text, "Next")]
    pool, rule = ((named, f"named {prefer}") if named else
                  (top[:1], "imports the others") if len(top) == 1 else
                  (full, "defines Init and Next") if full else (candidates, "largest"))
    if top and len(top) > 1 and not named:
        rule = f"not imported by another; {rule}"
    if len(pool) > 1 and not rule.endswith("largest"):
        rule += "; largest of those"
    best = max(pool, key=lambda f: (len(f.text), -found.index(f)))
    return best, f"{len(found)} modules found; took {best.name} ({rule})"


def extract_module(reply: str, *, prefer: str | None = None) -> Extraction:
    """The one TLA+ module of a model's reply, as ASCII text (see the module docstring)."""
    notes: list[str] = []
    if len(reply) > MAX_REPLY_CHARS:
        return Extraction("too_large", None, None,
                          (f"the reply has {len(reply):,} characters, more than the "
                           f"{MAX_REPLY_CHARS:,} a reply may have",))
    if reply.startswith("\ufeff"):
        reply = reply.lstrip("\ufeff")
        notes.append("dropped byte-order mark")
    if "\r" in reply:
        reply = reply.replace("\r\n", "\n").replace("\r", "\n")
        notes.append("converted Windows line endings")
    if not reply.strip():
        return Extraction("empty", None, None, tuple(notes))
    found = [m for piece, fenced in _segments(reply) for m in _modules_in(piece, fenced)]
    if not found:
        hint = ("; the reply defines Init and Next without a module around them"
                if _defines(reply, "Init") and _defines(reply, "Next") else "")
        return Extraction("no_module", None, None, (*notes, f"no MODULE header{hint}"))
    best, why = _choose(found, prefer)
    if why:
        notes.append(why)
    if prefer is not None and best.name != prefer:
        notes.append(f"no module named {prefer}; took {best.name}")
    notes.append("taken from a fenced code block" if best.fenced else "taken from unfenced text")
    notes.extend(best.notes)
    text, count = to_ascii(best.text)
    if count:
        notes.append(f"converted {count} Unicode symbols")
    others: dict[str, str] = {}
    for f in found:
        if f is not best:
            key = f.name if f.name not in others else f"{f.name}#{len(others) + 1}"
            others[key] = to_ascii(f.text)[0]
    return Extraction("ok", best.name, text, tuple(notes), others)


def forbidden_imports(module_text: str, reference_modules: Iterable[str]) -> tuple[str, ...]:
    """Reference modules that `module_text` EXTENDS or INSTANCEs, in order of appearance.

    A module nested in the output under a reference module's name is its own, not an import.
    """
    info = analyze_module(module_text)
    refs = set(reference_modules) - set(info.inner_modules)
    out: list[str] = []
    for name in (*info.extends, *info.instances):
        if name in refs and name not in out:
            out.append(name)
    return tuple(out)
