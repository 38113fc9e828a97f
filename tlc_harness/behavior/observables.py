"""Named observables: an output variable named like a reference variable is that variable.

A mapping may compute a reference variable from any of the output's state, but where the
output has a variable of the reference variable's name (case aside), the mapping must read it
for that variable: otherwise the output's own observable is routed around, and an `ok` says
nothing about it (`observable_recomputed`). What counts is the mapping's expression alone:
reads of the variable in `UNCHANGED`, `TypeOK` or an invariant do not make it used.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
_NAME = re.compile(r"[A-Za-z_]\w*")


def bypassed(variables: Mapping[str, str], out_variables: Iterable[str]) -> tuple[str, ...]:
    """The reference variables whose expression (TLA+ over the output's state) does not read
    the output's variable of the same name (case aside), where the output has one (`locked`
    computed from `mode` while the output's own `locked` goes unread)."""
    named = {v.lower(): v for v in out_variables}
    found = []
    for ref_var, text in variables.items():
        own = named.get(ref_var.lower())
        if own is not None and own not in _NAME.findall(_STRING.sub("", text)):
            found.append(ref_var)
    return tuple(found)
