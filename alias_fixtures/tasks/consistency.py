"""Is the reference the task's? A description names, as code, the identifiers of the spec it
describes (`NumProcs`, `Invariant`, a label `cs`); a reference that writes none of some of them
describes another spec (a local module that only shares the task's module name), and no output
can be graded against it by behavior.

A name the description writes between backticks must be written somewhere in the reference:
its modules (comments and strings included) or its cfg. TLA+ keywords and standard modules'
names are not the reference's to write, and neither is a name the variant's rename map renames
(the three-part rule keeps some original names in a renamed description).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from alias_fixtures.tasks.descriptions import words_of
from tlc_harness.source.stdlib import TLA_KEYWORDS, standard_names

#: an identifier written as code: `Name` (not `x + 1`, not ``Init /\ Next``)
_CODE_NAME = re.compile(r"`([A-Za-z_][A-Za-z0-9_]*)`")


def unwritten_names(description: str | None, modules: Mapping[str, str], cfg_text: str = "",
                    renamed: Iterable[str] = ()) -> list[str]:
    """The identifiers `description` writes as code that the reference never writes, sorted
    (empty: consistent, or no description)."""
    if not description:
        return []
    written = {w for text in (*modules.values(), cfg_text) for w in words_of(text)}
    exempt = written | set(renamed) | TLA_KEYWORDS | standard_names()
    return sorted({name for name in _CODE_NAME.findall(description) if name not in exempt})
