"""Parse TLC's `-tool` output into coded messages (`@!@!@STARTMSG code:severity @!@!@`)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from tlc_harness.tools.results import TraceState

_TOKEN = re.compile(r"@!@!@STARTMSG (\d+):(\d+) @!@!@\n?|@!@!@ENDMSG (\d+) @!@!@\n?")


@dataclass
class Message:
    """One `-tool` message; `text` is its own body without nested messages."""

    code: int
    severity: int
    text: str = ""
    children: list[Message] = field(default_factory=list)

    def walk(self) -> list[Message]:
        """This message and all nested ones, depth first."""
        out = [self]
        for child in self.children:
            out.extend(child.walk())
        return out


@dataclass
class ToolOutput:
    """All top-level messages plus the text printed outside any message (SANY's errors)."""

    messages: list[Message]
    plain: str

    def all_messages(self) -> list[Message]:
        out: list[Message] = []
        for msg in self.messages:
            out.extend(msg.walk())
        return out

    def codes(self) -> tuple[int, ...]:
        return tuple(m.code for m in self.all_messages())

    def first(self, *codes: int) -> Message | None:
        for msg in self.all_messages():
            if msg.code in codes:
                return msg
        return None

    def last(self, *codes: int) -> Message | None:
        found = None
        for msg in self.all_messages():
            if msg.code in codes:
                found = msg
        return found


def parse_tool_output(text: str) -> ToolOutput:
    """Split raw `-tool` output into a message tree; tolerate truncation and stray text."""
    top: list[Message] = []
    stack: list[Message] = []
    plain: list[str] = []
    pos = 0
    for match in _TOKEN.finditer(text):
        chunk = text[pos : match.start()]
        if stack:
            stack[-1].text += chunk
        else:
            plain.append(chunk)
        pos = match.end()
        if match.group(1) is not None:
            msg = Message(int(match.group(1)), int(match.group(2)))
            (stack[-1].children if stack else top).append(msg)
            stack.append(msg)
        else:
            code = int(match.group(3))
            # pop up to and including the matching start; ignore unmatched ends
            for depth in range(len(stack) - 1, -1, -1):
                if stack[depth].code == code:
                    del stack[depth:]
                    break
    rest = text[pos:]
    if stack:
        stack[-1].text += rest
    else:
        plain.append(rest)
    for msg in top:
        for m in msg.walk():
            m.text = m.text.strip("\n")
    return ToolOutput(top, "".join(plain))


_STATE_HEADER = re.compile(r"^(\d+): (.*)$")
_CONJUNCT = re.compile(r"^/\\ ", re.M)


def parse_state(text: str) -> TraceState | None:
    """Parse a 2217 message body: `N: <Action ...>` then `/\\ var = value` conjuncts."""
    lines = text.strip("\n").split("\n", 1)
    head = _STATE_HEADER.match(lines[0].strip())
    if not head:
        return None
    body = lines[1] if len(lines) > 1 else ""
    variables: dict[str, str] = {}
    parts = _CONJUNCT.split(body) if body.startswith("/\\ ") else [body]
    for part in parts:
        part = part.strip()
        if not part:
            continue
        name, sep, value = part.partition(" = ")
        if sep:
            variables[name.strip()] = " ".join(value.split())
    return TraceState(int(head.group(1)), head.group(2).strip(), variables)
