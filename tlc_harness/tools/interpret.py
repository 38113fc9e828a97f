"""Turn a TLC run (exit code + `-tool` messages) into a `CheckResult`.

Verdicts come from exit codes and message codes only. Numbers and names are read from the
bodies of messages already identified by their code (the parameters TLC fills in).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from tlc_harness.tools.results import CheckResult, TraceState, Verdict
from tlc_harness.tools.toolmsg import Message, ToolOutput, parse_state

# TLC 2.15 message codes (tlc2.output.EC)
GENERAL = 1000
INITIAL_STATE_ERROR = 2102
NESTED_EXPRESSION = 2103
ASSUMPTION_FALSE = 2104
ASSUMPTION_EVAL_ERROR = 2105
INVARIANT_VIOLATED_INITIAL = 2107
PROPERTY_VIOLATED_INITIAL = 2108
INVARIANT_VIOLATED = 2110
ACTION_PROPERTY_VIOLATED = 2112
DEADLOCK = 2114
NO_NEXT = 2115
TEMPORAL_VIOLATED = 2116
BACK_TO_STATE = 2122
SUCCESS = 2193
SANY_FINISHED = 2219
DEPTH = 2194
STATS = 2199
PROGRESS = 2200
INIT_GENERATED = 2190
STATE = 2217
STUTTERING = 2218
PARSING_FAILED = 3002
PARSING_FAILED2 = 2171
CFG_SYNTAX = 5006
CONFIG_BIND_CODES = frozenset({2222, 2223, 2224, 2225, 2226, 2228, 2229, 2231, 2232, 2233, 2234,
                               2235, 2242, NO_NEXT})
RESOURCE_CODES = frozenset({2172})

EXIT_RESOURCE = frozenset({3, 152})  # 3: -XX:+ExitOnOutOfMemoryError; 152: state space too large

_NUMBER = r"(\d[\d,]*)"
_GENERATED = re.compile(_NUMBER + r" states? generated")
_DISTINCT = re.compile(_NUMBER + r" distinct states?")
_DEPTH = re.compile(_NUMBER)
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# The one parameter TLC fills into each config-binding message (tlc2.output.MP templates).
_BIND_PARAM = {
    2222: re.compile(r"constant parameter (\S+)"),
    2229: re.compile(r"The \S+ (\S+) specified"),
    2226: re.compile(r"(\S+) was not found|identifier (\S+)"),
    2235: re.compile(r"the operator (\S+)|(\S+) is not"),
}


def _int(text: str) -> int:
    return int(text.replace(",", ""))


def _counts(msg: Message | None) -> tuple[int | None, int | None]:
    if msg is None:
        return None, None
    gen = _GENERATED.search(msg.text)
    dis = _DISTINCT.search(msg.text)
    return (_int(gen.group(1)) if gen else None, _int(dis.group(1)) if dis else None)


def _named(msg: Message, candidates: Iterable[str]) -> str | None:
    """The first candidate name that the message body mentions as a whole word."""
    words = set(_WORD.findall(msg.text))
    for name in candidates:
        if name in words:
            return name
    return None


def _bind_names(out: ToolOutput, known: Iterable[str]) -> tuple[str, ...]:
    names: list[str] = []
    known = list(known)
    for msg in out.all_messages():
        if msg.code not in CONFIG_BIND_CODES:
            continue
        if msg.code == NO_NEXT:
            names.append("NEXT")
            continue
        pattern = _BIND_PARAM.get(msg.code)
        hit = pattern.search(msg.text) if pattern else None
        name = next((g for g in hit.groups() if g), None) if hit else _named(msg, known)
        if name:
            name = name.strip(".,")
            if name not in names:
                names.append(name)
    return tuple(names)


def _trace(out: ToolOutput) -> tuple[tuple[TraceState, ...], str | None]:
    states: list[TraceState] = []
    kind: str | None = None
    for msg in out.all_messages():
        if msg.code == STATE:
            state = parse_state(msg.text)
            if state is not None:
                states.append(state)
        elif msg.code == STUTTERING:
            kind = "stuttering"
        elif msg.code == BACK_TO_STATE:
            kind = "lasso"
    if states and kind is None:
        kind = "finite"
    return tuple(states), kind


def interpret_tlc(
    exit_code: int | None,
    output: str,
    parsed: ToolOutput,
    *,
    seconds: float,
    timed_out: bool = False,
    invariants: Iterable[str] = (),
    properties: Iterable[str] = (),
    known_names: Iterable[str] = (),
) -> CheckResult:
    """Classify one TLC run. `invariants`/`properties` are the cfg's names (for reporting)."""
    invariants = tuple(invariants)
    properties = tuple(properties)
    codes = parsed.codes()
    code_set = set(codes)
    generated, distinct = _counts(parsed.last(STATS))
    if distinct is None:
        generated, distinct = _counts(parsed.last(PROGRESS))
    if distinct is None and exit_code == 0:
        init = parsed.last(INIT_GENERATED)
        generated, distinct = _counts(init)
    depth_msg = parsed.last(DEPTH)
    depth_hit = _DEPTH.search(depth_msg.text) if depth_msg else None
    trace, trace_kind = _trace(parsed)
    violated: str | None = None
    missing: tuple[str, ...] = ()
    detail = ""
    if timed_out:
        verdict = Verdict.TIMEOUT
    elif exit_code in EXIT_RESOURCE or code_set & RESOURCE_CODES:
        verdict = Verdict.RESOURCE_LIMIT
    elif PARSING_FAILED in code_set or PARSING_FAILED2 in code_set or exit_code == 150:
        verdict = Verdict.PARSE_ERROR
        detail = parsed.plain.strip()[-2000:]
    elif code_set & CONFIG_BIND_CODES:
        verdict = Verdict.CONFIG_BIND_FAIL
        missing = _bind_names(parsed, [*invariants, *properties, *known_names])
    elif ASSUMPTION_FALSE in code_set or exit_code == 10:
        verdict = Verdict.ASSUMPTION_FAILED
    elif INVARIANT_VIOLATED in code_set or INVARIANT_VIOLATED_INITIAL in code_set:
        msg = parsed.first(INVARIANT_VIOLATED, INVARIANT_VIOLATED_INITIAL)
        assert msg is not None
        violated = _named(msg, [*invariants, *properties])
        if violated is not None and violated in properties and violated not in invariants:
            verdict = Verdict.PROPERTY_VIOLATED
        else:
            verdict = Verdict.INVARIANT_VIOLATED
    elif code_set & {ACTION_PROPERTY_VIOLATED, TEMPORAL_VIOLATED, PROPERTY_VIOLATED_INITIAL} or (
        exit_code == 13
    ):
        verdict = Verdict.PROPERTY_VIOLATED
        msg = parsed.first(ACTION_PROPERTY_VIOLATED, TEMPORAL_VIOLATED, PROPERTY_VIOLATED_INITIAL)
        violated = _named(msg, properties) if msg else None
        if violated is None and len(properties) == 1:
            violated = properties[0]  # TLC names no property for liveness; there is only one
    elif DEADLOCK in code_set or exit_code == 11:
        verdict = Verdict.DEADLOCK
    elif exit_code == 0 and SUCCESS in code_set:
        verdict = Verdict.OK
    elif exit_code in (12, 14, 75, 76, 77, 255) and codes:
        verdict = Verdict.EVAL_ERROR
    elif exit_code == 151 and codes:
        verdict = Verdict.CONFIG_BIND_FAIL
        missing = _bind_names(parsed, known_names)
    else:
        verdict = Verdict.INFRA_ERROR
        detail = f"TLC exited with {exit_code} and message codes {sorted(code_set)}"
    if verdict is Verdict.EVAL_ERROR:
        detail = _eval_detail(parsed)
    if CFG_SYNTAX in code_set and verdict is Verdict.EVAL_ERROR:
        verdict = Verdict.INFRA_ERROR
        detail = "TLC rejected the cfg file: " + detail
    return CheckResult(
        verdict=verdict, exit_code=exit_code, seconds=seconds, distinct_states=distinct,
        generated_states=generated, depth=_int(depth_hit.group(1)) if depth_hit else None,
        violated=violated, missing_names=missing, message_codes=codes, trace=trace,
        trace_kind=trace_kind, detail=detail, output=output,
    )


def _eval_detail(parsed: ToolOutput) -> str:
    for msg in parsed.all_messages():
        if msg.code not in (GENERAL, NESTED_EXPRESSION, STATE) and msg.severity >= 1:
            return msg.text.strip()[:1000]
    return ""
