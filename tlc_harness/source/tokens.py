"""A flat TLA+ tokenizer for text comparison, and the longest run of tokens two texts share.

This is not a parser: it splits source text into the pieces a reader would compare, so that text
metrics (ROUGE-L, BLEU, shared runs) count TLA+ units instead of characters or English words.
Whitespace and layout are dropped; case is kept (TLA+ is case-sensitive). A token is one of:

- an identifier or number: a run of ``[A-Za-z0-9_]`` (``WF_vars``, ``x1``, ``42``);
- a string literal, quotes included, as one token (inner whitespace becomes ``\u2581``);
- a backslash operator (``\\in``, ``\\A``, ``\\cup``, ``\\o``), a junction (``/\\``, ``\\/``), or a
  symbolic operator of several characters (``==``, ``|->``, ``<=>``, ``<<``, ``>>``, ``[]``,
  ``<>``, ``~>``, ``..``, ``:=``, ...);
- a ruler: a run of three or more ``-``, ``=`` or ``*``, normalised to four (``----``), so that
  module headers and footers of different widths compare equal;
- any other single character (``(``, ``'``, ``,``, ...).

Comments are kept by default (``(*``, ``\\*``, ``*)`` and the words inside become tokens): verbatim
recall of a file includes its comments. With ``comments=False`` they are dropped, except a block
comment holding a PlusCal algorithm (that is code).
"""

from __future__ import annotations

import re
from collections.abc import Hashable, Sequence
from typing import NamedTuple

__all__ = ["CommonRun", "blank_comments", "longest_common_run", "strip_comments", "tla_tokens"]

_TOKEN = re.compile(
    r"""
      "(?:[^"\\\n]|\\.)*"?              # string literal (an unterminated one ends at the line)
    | \(\* | \*\)                        # block comment delimiters
    | \\\*                               # line comment start
    | -{3,} | ={3,} | \*{3,}(?!\))      # rulers (a `*` of `*)` is left to close it)
    | /\\ | \\/                          # junctions
    | \\[A-Za-z]+                        # \in \A \cup \o ...
    | <=> | \|-> | -\+-> | \.\.\.
    | == | => | -> | <- | << | >> | \[\] | <> | ~> | /= | >= | =< | <= | := | :: | \.\.
    | :> | @@ | \|\| | \|-
    | [A-Za-z0-9_]+                      # identifiers and numbers
    | \S                                 # anything else, one character
    """,
    re.VERBOSE,
)
_RULER = re.compile(r"[-=*]{3,}\Z")
_PLUSCAL = re.compile(r"--(?:fair\s+)?algorithm\b")


def tla_tokens(text: str, *, comments: bool = True) -> list[str]:
    """The tokens of `text` (see the module docstring); `comments=False` drops comments."""
    if not comments:
        text = strip_comments(text)
    out: list[str] = []
    for match in _TOKEN.finditer(text):
        token = match.group()
        if token.startswith('"'):
            token = re.sub(r"\s", "\u2581", token)
        elif _RULER.match(token):
            token = token[0] * 4
        out.append(token)
    return out


def strip_comments(text: str) -> str:
    """`text` with comments blanked (nested ``(* *)`` too), PlusCal algorithm comments kept."""
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch == '"':
            end = _string_end(text, i)
            out.append(text[i:end])
            i = end
        elif text.startswith("\\*", i):
            end = text.find("\n", i)
            i = n if end < 0 else end
        elif text.startswith("(*", i):
            end = _block_end(text, i)
            block = text[i:end]
            out.append(block if _PLUSCAL.search(block) else " ")
            i = end
        else:
            out.append(ch)
            i += 1
    return "".join(out)


def blank_comments(text: str) -> str:
    """`text` with every comment (PlusCal algorithms too) replaced by spaces, line breaks
    kept: each character becomes as many spaces as its UTF-8 bytes, so every line, column and
    byte offset outside the comments stays where it was."""
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        if text[i] == '"':
            end = _string_end(text, i)
            out.append(text[i:end])
        elif text.startswith("\\*", i):
            end = text.find("\n", i)
            end = n if end < 0 else end
            out.append(_spaces(text[i:end]))
        elif text.startswith("(*", i):
            end = _block_end(text, i)
            out.append(_spaces(text[i:end]))
        else:
            end = i + 1
            out.append(text[i])
        i = end
    return "".join(out)


def _spaces(comment: str) -> str:
    return "".join(ch if ch in "\r\n" else " " * len(ch.encode("utf-8")) for ch in comment)


def _string_end(text: str, start: int) -> int:
    i = start + 1
    while i < len(text) and text[i] not in '"\n':
        i += 2 if text[i] == "\\" else 1
    return min(i + 1, len(text))


def _block_end(text: str, start: int) -> int:
    """The index just past the ``*)`` that closes the (nested) comment opened at `start`."""
    depth, i = 0, start
    while i < len(text):
        if text.startswith("(*", i):
            depth += 1
            i += 2
        elif text.startswith("*)", i):
            depth -= 1
            i += 2
            if depth == 0:
                return i
        else:
            i += 1
    return len(text)


class CommonRun(NamedTuple):
    """The longest run shared by two sequences: its length and where it starts in each."""

    length: int
    start_a: int
    start_b: int


def longest_common_run(a: Sequence[Hashable], b: Sequence[Hashable]) -> CommonRun:
    """Longest common contiguous run of `a` and `b` (a suffix automaton: O(len(a) + len(b))).

    Among runs of the same length, the one that ends first in `b` is returned.
    """
    if not a or not b:
        return CommonRun(0, 0, 0)
    # Suffix automaton of `a`: per state its longest length, suffix link, transitions and the
    # end position in `a` of its first occurrence.
    length, link, first_end = [0], [-1], [-1]
    trans: list[dict[Hashable, int]] = [{}]
    last = 0
    for pos, item in enumerate(a):
        cur = len(length)
        length.append(length[last] + 1)
        link.append(-1)
        first_end.append(pos)
        trans.append({})
        p = last
        while p != -1 and item not in trans[p]:
            trans[p][item] = cur
            p = link[p]
        if p == -1:
            link[cur] = 0
        else:
            q = trans[p][item]
            if length[p] + 1 == length[q]:
                link[cur] = q
            else:
                clone = len(length)
                length.append(length[p] + 1)
                link.append(link[q])
                first_end.append(first_end[q])
                trans.append(dict(trans[q]))
                while p != -1 and trans[p].get(item) == q:
                    trans[p][item] = clone
                    p = link[p]
                link[q] = link[cur] = clone
        last = cur
    best = CommonRun(0, 0, 0)
    state, run = 0, 0
    for pos, item in enumerate(b):
        while state and item not in trans[state]:
            state = link[state]
            run = length[state]
        if item in trans[state]:
            state = trans[state][item]
            run += 1
        if run > best.length:
            best = CommonRun(run, first_end[state] - run + 1, pos - run + 1)
    return best
