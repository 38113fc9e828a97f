"""Task descriptions: hidden required names, identifier kinds and renamed descriptions.

Readings chosen here (each is a deliberate decision):

- A *word* of a text is a maximal run of identifier characters ``[A-Za-z0-9_]``, except that a
  leading ``WF_`` or ``SF_`` is split off, as TLA+ reads ``WF_vars(Next)`` as ``WF_`` + ``vars``.
  A name is *mentioned* when it equals one of the words (case-sensitive): ``TypeOK`` is not
  mentioned by ``TypeOKish``, ``x`` not by ``max``; backticks and punctuation do not matter.
- *Required names* of a cfg: the left sides of ``CONSTANT x = v`` and ``x <- y`` (also when ``v``
  is a model value of the same name, as in ``None = None``), INVARIANTs, PROPERTYs, CONSTRAINTs
  and ACTION_CONSTRAINTs (kind ``"constraint"``); never ``Init``/``Next``/``Spec`` nor the names of
  INIT, NEXT and SPECIFICATION, never model values or override targets. Order: constants,
  overrides, invariants, properties, constraints, action constraints (the cfg file order within
  each section); a name listed twice keeps its first kind.
- Three-part rule: (1) a cfg name is renamed; otherwise (2) a *lowercase word*, read as a name
  made only of the letters a-z (``barrier``, ``hr``; not ``inCritical``, ``a0`` or ``max_q``),
  or a module name (the task's modules and the standard modules) keeps its name; (3) any other
  name the map renames is renamed. Replacement is simultaneous and by whole words.
- Identifier kinds: :data:`CONVENTION_NAMES` (exact names only) is ``"convention"``; a name is a
  ``"domain"`` word if it has an alphabetic part of 3+ letters and every such part is an English
  word: in the ``web2`` list of ``english-words``, or an inflection of one (``messages``,
  ``delivered``, ``served``, ``matches``, ``waiting``; web2 lists lemmas only), or one of a few
  irregular forms missing from web2 (:data:`EXTRA_WORDS`); anything else is ``"abbreviation"``.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import lru_cache

from alias_fixtures.tasks.task import Task
from tlc_harness.source.cfg import ModelConfig
from tlc_harness.source.stdlib import STANDARD_MODULES

__all__ = [
    "CONVENTION_NAMES",
    "EXTRA_WORDS",
    "IDENTIFIER_KINDS",
    "DescriptionReport",
    "HiddenName",
    "TaskNameReport",
    "cfg_required_names",
    "describe_renaming",
    "english_words",
    "hidden_names",
    "identifier_kind",
    "is_english_word",
    "mentions",
    "names_in_cfg",
    "rename_description",
    "rename_rule",
    "split_identifier",
    "words_of",
]

IDENTIFIER_KINDS = ("domain", "convention", "abbreviation")

#: Names that follow TLA+ / TLC / PlusCal conventions (exact, case-sensitive matches only; a
#: convention word with a modifier, such as ``TypeOKish`` or ``SafetyInv``, is not listed).
CONVENTION_NAMES: frozenset[str] = frozenset(
    {
        # the specification and its parts
        "Init", "Next", "Spec", "vars", "FairSpec", "LiveSpec",
        # type invariants
        "TypeOK", "TypeOk", "TypeInv", "TypeInvariant", "TypeCorrect", "TypeCorrectness",
        # generic invariant / property names
        "Inv", "Invariant", "Invariants", "Safety", "Liveness", "Fairness", "Termination",
        "Properties", "Property",
        # model-checking helpers named after cfg sections
        "Symmetry", "Constraint", "StateConstraint", "ActionConstraint",
        # PlusCal translation names
        "ProcSet", "Terminating",
    }
)

#: Forms that web2 lacks although they are plain English (irregular past tenses, ``has``).
EXTRA_WORDS: frozenset[str] = frozenset({"has", "held", "paid", "heard", "began", "laid"})

_RUN = re.compile(r"[A-Za-z0-9_]+")
_FAIRNESS_PREFIX = ("WF_", "SF_")
_PART = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")
_LOWERCASE_WORD = re.compile(r"[a-z]+")
_CFG_KINDS = {
    "invariants": "invariant",
    "properties": "property",
    "constraints": "constraint",
    "action_constraints": "constraint",
}
_ALWAYS_EXCLUDED = frozenset({"Init", "Next", "Spec"})


# --------------------------------------------------------------------------- words and mentions


def _word_spans(text: str) -> Iterator[tuple[int, int]]:
    """(start, end) of every word of ``text`` (see the module docstring)."""
    for m in _RUN.finditer(text):
        start, end = m.span()
        if text.startswith(_FAIRNESS_PREFIX, start) and end - start > 3:
            yield start, start + 3
            start += 3
        yield start, end


def words_of(text: str) -> list[str]:
    """The words of ``text`` in order (identifier-character runs, ``WF_``/``SF_`` split off)."""
    return [text[a:b] for a, b in _word_spans(text)]


def mentions(description: str, name: str) -> bool:
    """True if ``name`` occurs in ``description`` as a whole word (case-sensitive)."""
    return name in words_of(description)


def _substitute(text: str, table: Mapping[str, str]) -> str:
    """Replace every word of ``text`` found in ``table``, all at once."""
    if not table:
        return text
    out: list[str] = []
    pos = 0
    for start, end in _word_spans(text):
        new = table.get(text[start:end])
        if new is not None:
            out += [text[pos:start], new]
            pos = end
    out.append(text[pos:])
    return "".join(out)


# --------------------------------------------------------------------------- hidden names


@dataclass(frozen=True)
class HiddenName:
    """A name the cfg requires that the description never mentions."""

    name: str
    kind: str  # "constant" | "invariant" | "property" | "constraint"
    identifier_kind: str  # "domain" | "convention" | "abbreviation"


def cfg_required_names(cfg: ModelConfig) -> dict[str, str]:
    """Names the cfg requires of a spec, mapped to their kind, in cfg order."""
    excluded = _ALWAYS_EXCLUDED | {n for n in (cfg.init, cfg.next, cfg.specification) if n}
    out: dict[str, str] = {}
    for name, _ in (*cfg.constants, *cfg.overrides):
        out.setdefault(name, "constant")
    for section, kind in _CFG_KINDS.items():
        names: tuple[str, ...] = getattr(cfg, section)
        for name in names:
            out.setdefault(name, kind)
    return {name: kind for name, kind in out.items() if name not in excluded}


def hidden_names(description: str | None, cfg: ModelConfig) -> list[HiddenName]:
    """Required names that ``description`` never mentions (all of them if there is none)."""
    words = set(words_of(description or ""))
    return [
        HiddenName(name, kind, identifier_kind(name))
        for name, kind in cfg_required_names(cfg).items()
        if name not in words
    ]


# --------------------------------------------------------------------------- identifier kinds


@lru_cache(maxsize=1)
def english_words() -> frozenset[str]:
    """The lowercased ``web2`` word list of the ``english-words`` package."""
    from english_words import get_english_words_set

    return frozenset(get_english_words_set(["web2"], lower=True))


def split_identifier(name: str) -> list[str]:
    """Split camelCase, PascalCase, snake_case, acronyms and digits: ``MAX_QUEUE2`` ->
    ``["MAX", "QUEUE", "2"]``, ``inCritical`` -> ``["in", "Critical"]``."""
    return _PART.findall(name)


def _stems(word: str) -> Iterator[str]:
    """Candidate lemmas of an inflected form (plural, past, -ing, comparative)."""
    for suffix, repl in (("ies", "y"), ("ied", "y"), ("es", ""), ("s", ""), ("ed", ""),
                         ("ed", "e"), ("ing", ""), ("ing", "e"), ("er", ""), ("er", "e"),
                         ("est", ""), ("est", "e")):
        if word.endswith(suffix) and len(word) - len(suffix) >= 2:
            stem = word[: len(word) - len(suffix)]
            yield stem + repl
            if not repl and len(stem) >= 3 and stem[-1] == stem[-2]:
                yield stem[:-1]  # stopped -> stop, running -> run


@lru_cache(maxsize=4096)
def is_english_word(word: str) -> bool:
    """True for an English word (web2, an inflection of a web2 word, or :data:`EXTRA_WORDS`)."""
    w = word.lower()
    vocab = english_words()
    return w in vocab or w in EXTRA_WORDS or any(s in vocab for s in _stems(w))


def _english_parts(name: str) -> list[str]:
    """The lowercased alphabetic parts of ``name`` that have 3 or more letters."""
    return [p.lower() for p in split_identifier(name) if p.isalpha() and len(p) >= 3]


def identifier_kind(name: str) -> str:
    """``"convention"``, ``"domain"`` or ``"abbreviation"`` (see the module docstring)."""
    if name in CONVENTION_NAMES:
        return "convention"
    parts = _english_parts(name)
    if parts and all(is_english_word(p) for p in parts):
        return "domain"
    return "abbreviation"


# --------------------------------------------------------------------------- renamed descriptions


def names_in_cfg(cfg: ModelConfig) -> frozenset[str]:
    """Every name ``cfg`` refers to (part 1 of the rule): required names, INIT/NEXT/
    SPECIFICATION and the other sections' names, and ``<-`` override targets."""
    return frozenset(cfg.referenced_names())


def rename_rule(name: str, *, cfg_names: Iterable[str], module_names: Iterable[str]) -> str:
    """Which part of the three-part rule applies to ``name``.

    ``"cfg"`` (1, renamed), ``"lowercase"`` or ``"module"`` (2, kept), ``"other"`` (3, renamed).
    ``module_names`` are the task's modules; the standard modules are always added.
    """
    if name in set(cfg_names):
        return "cfg"
    if _LOWERCASE_WORD.fullmatch(name):
        return "lowercase"
    if name in STANDARD_MODULES or name in set(module_names):
        return "module"
    return "other"


def _checked_words(mapping: Mapping[str, str]) -> None:
    for old, new in mapping.items():
        for name in (old, new):
            if words_of(name) != [name] or name.startswith(_FAIRNESS_PREFIX):
                raise ValueError(f"rename map entry {old!r} -> {new!r}: {name!r} is not a word")


def _rules(
    mapping: Mapping[str, str], cfg_names: Iterable[str], module_names: Iterable[str]
) -> dict[str, str]:
    cfg, mods = frozenset(cfg_names), frozenset(module_names)
    return {old: rename_rule(old, cfg_names=cfg, module_names=mods) for old in mapping}


def rename_description(
    description: str,
    mapping: Mapping[str, str],
    *,
    cfg_names: Iterable[str],
    module_names: Iterable[str],
) -> str:
    """The variant's description: ``description`` with names replaced by the three-part rule.

    Every whole-word occurrence (code spans and prose alike) of a renamed name is replaced,
    simultaneously, so a map ``a -> b, b -> a`` swaps them. Map entries must be single words.
    """
    _checked_words(mapping)
    rules = _rules(mapping, cfg_names, module_names)
    table = {old: new for old, new in mapping.items() if rules[old] in ("cfg", "other")}
    return _substitute(description, table)


@dataclass(frozen=True)
class DescriptionReport:
    """What the three-part rule did to one description (names counted once each).

    Counts cover the map's names that the description mentions. ``forced_cfg`` counts cfg
    names renamed that part 2 would otherwise have kept. ``domain_used`` counts the map's
    domain identifiers whose English words (parts of 3+ letters) all occur among the words of
    the description, case-insensitively, identifiers split into parts; ``domain_words_kept``
    counts those whose words all still occur in the renamed description.
    """

    renamed: int
    kept_lowercase: int
    kept_module: int
    forced_cfg: int
    domain_used: int
    domain_words_kept: int
    kept_names: tuple[str, ...] = ()
    forced_names: tuple[str, ...] = ()

    @property
    def damage_avoided(self) -> bool:
        """True when part 2 kept at least one name the description mentions."""
        return self.kept_lowercase + self.kept_module > 0


def _lower_parts(text: str) -> set[str]:
    return {p.lower() for w in words_of(text) for p in split_identifier(w)}


def describe_renaming(
    description: str,
    mapping: Mapping[str, str],
    *,
    cfg_names: Iterable[str],
    module_names: Iterable[str],
) -> DescriptionReport:
    """Apply the three-part rule to ``description`` and report what it renamed and kept."""
    cfg, mods = frozenset(cfg_names), frozenset(module_names)
    renamed_text = rename_description(description, mapping, cfg_names=cfg, module_names=mods)
    rules = _rules(mapping, cfg, mods)
    used = set(words_of(description))
    counts = Counter(rules[old] for old in mapping if old in used)
    forced = sorted(
        old for old in mapping
        if old in used and rules[old] == "cfg"
        and rename_rule(old, cfg_names=(), module_names=mods) != "other"
    )
    before, after = _lower_parts(description), _lower_parts(renamed_text)
    domain_used = domain_kept = 0
    for old in mapping:
        parts = set(_english_parts(old))
        if identifier_kind(old) == "domain" and parts <= before:
            domain_used += 1
            domain_kept += parts <= after
    return DescriptionReport(
        renamed=counts["cfg"] + counts["other"],
        kept_lowercase=counts["lowercase"],
        kept_module=counts["module"],
        forced_cfg=len(forced),
        domain_used=domain_used,
        domain_words_kept=domain_kept,
        kept_names=tuple(sorted(o for o in mapping if o in used and rules[o] in
                                ("lowercase", "module"))),
        forced_names=tuple(forced),
    )


# --------------------------------------------------------------------------- per-task report


@dataclass(frozen=True)
class TaskNameReport:
    """Hidden required names of a task and the kinds of its renameable identifiers."""

    task_id: str
    hidden: tuple[HiddenName, ...]
    kind_counts: dict[str, int] = field(default_factory=dict)

    @property
    def hidden_by_kind(self) -> dict[str, int]:
        """Hidden names per cfg kind (constant, invariant, property, constraint)."""
        return dict(Counter(h.kind for h in self.hidden))

    @property
    def hidden_conventions(self) -> int:
        """Hidden names that follow a TLA+ convention (such as ``TypeOK``)."""
        return sum(h.identifier_kind == "convention" for h in self.hidden)


def task_name_report(task: Task, identifiers: Iterable[str]) -> TaskNameReport:
    """Hidden names of ``task`` and identifier-kind counts over ``identifiers`` (deduplicated)."""
    counts = dict.fromkeys(IDENTIFIER_KINDS, 0)
    for name in dict.fromkeys(identifiers):
        counts[identifier_kind(name)] += 1
    return TaskNameReport(task.id, tuple(hidden_names(task.description, task.cfg)), counts)
