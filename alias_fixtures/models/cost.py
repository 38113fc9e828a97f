"""Prices of hosted models and what a run's generations cost.

The shipped table is `prices.toml` beside this module (USD per million input and output tokens,
with the page and date each price was read from). `Prices.load(path)` reads it and lays a user
file of the same shape over it; `Prices.from_path` reads a user file alone. A model the table
does not know has no price: its cost is None ("unknown"), never 0. Base rates only (no prompt
caching, batch discount or long-context tier).

A model is looked up by its exact id, then, for a spec `kind:model`, by `model` and then by
`kind` (so `anthropic:claude-...` finds `claude-...` and `replay:out.jsonl` finds `replay`). A
spec naming a server (`openai:MODEL@URL`) keeps its `@URL`, so it does not match MODEL: a
self-hosted model is not billed at the provider's rate.
"""

from __future__ import annotations

import dataclasses
import datetime
import functools
import math
import re
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from types import MappingProxyType
from typing import Any, Protocol

from reports.schema import TOKENS_FROM_TOKENIZER

__all__ = [
    "PRICES_FILE",
    "CaseUsage",
    "CostSummary",
    "ModelCost",
    "Price",
    "PriceFileError",
    "Prices",
    "Usage",
    "cost_usd",
    "counted_by_tokenizer",
    "packaged_prices",
    "price_of",
]

PRICES_FILE = "prices.toml"
_PACKAGE = "alias_fixtures.models"
_READ_ON = re.compile(r"\d{4}-\d{2}(?:-\d{2})?\Z")
_REQUIRED = ("input_per_million", "output_per_million", "read_on", "source")
_OPTIONAL = ("name", "note", "aliases")
_MILLION = 1_000_000


class PriceFileError(ValueError):
    """A price file cannot be read; the message names the file and the entry."""


@dataclass(frozen=True)
class Price:
    """One model's price in USD per million tokens, and where it was read."""

    model: str
    input_per_million: float
    output_per_million: float
    read_on: str
    source: str
    name: str = ""
    note: str = ""
    aliases: tuple[str, ...] = ()

    @property
    def free(self) -> bool:
        return self.input_per_million == 0 and self.output_per_million == 0

    def cost_usd(self, input_tokens: int, output_tokens: int) -> float:
        """The cost of one call with these token counts."""
        if input_tokens < 0 or output_tokens < 0:
            raise ValueError(f"negative token count: {input_tokens} in, {output_tokens} out")
        return (input_tokens * self.input_per_million
                + output_tokens * self.output_per_million) / _MILLION

    def to_json(self) -> dict[str, Any]:
        return {"model": self.model, "input_per_million": self.input_per_million,
                "output_per_million": self.output_per_million, "read_on": self.read_on,
                "source": self.source, "name": self.name, "note": self.note,
                "aliases": list(self.aliases)}


def _number(value: object, key: str, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise PriceFileError(f"{where}: {key} must be a number of USD, not {value!r}")
    if not math.isfinite(value) or value < 0:
        raise PriceFileError(f"{where}: {key} must be a finite number >= 0, not {value!r}")
    return float(value)


def _text(value: object, key: str, where: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise PriceFileError(f"{where}: {key} must be a non-empty string, not {value!r}")
    return value


def _read_on(value: object, where: str) -> str:
    if isinstance(value, datetime.date) and not isinstance(value, datetime.datetime):
        return value.isoformat()
    if isinstance(value, str) and (value == "unknown" or _READ_ON.match(value)):
        return value
    raise PriceFileError(f"{where}: read_on must be a date (YYYY-MM-DD or YYYY-MM) or "
                         f"\"unknown\", not {value!r}")


def _entry(model: str, data: object, origin: str) -> Price:
    where = f"{origin}: entry {model!r}"
    if not isinstance(data, dict):
        raise PriceFileError(f"{where}: must be a table, not {data!r}")
    missing = [key for key in _REQUIRED if key not in data]
    unknown = sorted(set(data) - set(_REQUIRED) - set(_OPTIONAL))
    if missing or unknown:
        problems = [f"missing {', '.join(missing)}"] if missing else []
        problems += [f"unknown key(s) {', '.join(unknown)}"] if unknown else []
        raise PriceFileError(f"{where}: {'; '.join(problems)} (keys: {', '.join(_REQUIRED)}; "
                             f"optional: {', '.join(_OPTIONAL)})")
    aliases = data.get("aliases", [])
    if not isinstance(aliases, list) or not all(isinstance(a, str) and a for a in aliases):
        raise PriceFileError(f"{where}: aliases must be a list of model ids, not {aliases!r}")
    return Price(
        model=model,
        input_per_million=_number(data["input_per_million"], "input_per_million", where),
        output_per_million=_number(data["output_per_million"], "output_per_million", where),
        read_on=_read_on(data["read_on"], where),
        source=_text(data["source"], "source", where),
        name=_text(data["name"], "name", where) if "name" in data else "",
        note=_text(data["note"], "note", where) if "note" in data else "",
        aliases=tuple(aliases),
    )


@dataclass(frozen=True)
class Prices:
    """A price table: model id -> price; `origin` says which file(s) it came from."""

    entries: Mapping[str, Price]
    origin: str
    _index: Mapping[str, Price] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        index: dict[str, Price] = {}
        for price in self.entries.values():
            for key in (price.model, *price.aliases):
                other = index.get(key)
                if other is not None and other is not price:
                    raise PriceFileError(f"{self.origin}: entry {price.model!r}: id {key!r} is "
                                         f"also given by entry {other.model!r}")
                index[key] = price
        object.__setattr__(self, "_index", MappingProxyType(index))

    @classmethod
    def from_text(cls, text: str, origin: str) -> Prices:
        """Parse a price file's text; `origin` names it in errors."""
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise PriceFileError(f"{origin}: not valid TOML: {exc}") from exc
        models = data.get("models")
        stray = sorted(set(data) - {"models"})
        if not isinstance(models, dict) or stray:
            raise PriceFileError(f"{origin}: expected only [models.\"ID\"] tables"
                                 + (f", found {', '.join(stray)}" if stray else ""))
        return cls(MappingProxyType({model: _entry(model, entry, origin)
                                     for model, entry in models.items()}), origin)

    @classmethod
    def from_path(cls, path: str | Path) -> Prices:
        """A user's price file alone."""
        try:
            text = Path(path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise PriceFileError(f"{path}: cannot read the price file: {exc}") from exc
        return cls.from_text(text, str(path))

    @classmethod
    def packaged(cls) -> Prices:
        """The table shipped with the package."""
        text = (resources.files(_PACKAGE) / PRICES_FILE).read_text(encoding="utf-8")
        return cls.from_text(text, f"{_PACKAGE.replace('.', '/')}/{PRICES_FILE}")

    @classmethod
    def load(cls, user_file: str | Path | None = None) -> Prices:
        """The shipped table, with the entries of `user_file` (if any) laid over it."""
        shipped = packaged_prices()
        return shipped if user_file is None else shipped.updated(cls.from_path(user_file))

    def updated(self, other: Prices) -> Prices:
        """This table with `other`'s entries added or replacing the ones of the same id."""
        taken = {key for p in other.entries.values() for key in (p.model, *p.aliases)}
        entries = {m: dataclasses.replace(p, aliases=tuple(a for a in p.aliases if a not in taken))
                   for m, p in self.entries.items() if m not in taken}
        entries.update(other.entries)
        return Prices(MappingProxyType(entries), f"{self.origin} + {other.origin}")

    def price_of(self, model: str) -> Price | None:
        """The price of `model` (an id or an adapter spec), or None when it has none."""
        found = self._index.get(model)
        if found is not None or ":" not in model:
            return found
        kind, _, rest = model.partition(":")  # `rest` keeps any `@URL`: a server is not priced
        return self._index.get(rest) or self._index.get(kind)

    def cost_usd(self, model: str, input_tokens: int, output_tokens: int) -> float | None:
        """The cost of one call, or None when `model` has no price."""
        price = self.price_of(model)
        return None if price is None else price.cost_usd(input_tokens, output_tokens)


@functools.lru_cache(maxsize=1)
def packaged_prices() -> Prices:
    """The shipped table, read once."""
    return Prices.packaged()


def price_of(model: str, prices: Prices | None = None) -> Price | None:
    """The price of `model` in `prices` (default: the shipped table), or None."""
    return (prices or packaged_prices()).price_of(model)


def cost_usd(model: str, input_tokens: int, output_tokens: int,
             prices: Prices | None = None) -> float | None:
    """The cost of one call in USD, or None when `model` has no price."""
    return (prices or packaged_prices()).cost_usd(model, input_tokens, output_tokens)


class Usage(Protocol):
    """What a case needs for its cost (a `Generation` has it)."""

    @property
    def model(self) -> str: ...

    @property
    def input_tokens(self) -> int | None: ...

    @property
    def output_tokens(self) -> int | None: ...

    @property
    def token_source(self) -> str | None: ...


def counted_by_tokenizer(case: Usage) -> bool:
    """Whether a tokenizer counted some of the case's tokens (`--alias-tokenizer`)."""
    return (case.token_source or "").startswith(TOKENS_FROM_TOKENIZER)


@dataclass(frozen=True)
class CaseUsage:
    """One case's model and token counts (None: the adapter did not report them), and where
    the counts came from (`usage`, `tokenizer:NAME`, or None: not recorded)."""

    model: str
    input_tokens: int | None = None
    output_tokens: int | None = None
    token_source: str | None = None

    @classmethod
    def from_json(cls, generation: Mapping[str, Any]) -> CaseUsage:
        """From a record's `generation` (`Generation.to_json()`)."""
        return cls(str(generation["model"]), generation.get("input_tokens"),
                   generation.get("output_tokens"), generation.get("token_source"))


@dataclass(frozen=True)
class ModelCost:
    """The cases of one model: tokens, cost (None: no price), cases without token counts, and
    cases whose tokens a tokenizer counted (their cost is an estimate)."""

    model: str
    cases: int
    input_tokens: int
    output_tokens: int
    cost_usd: float | None
    cases_without_tokens: int = 0
    cases_tokenizer_counted: int = 0

    def to_json(self) -> dict[str, Any]:
        return {"model": self.model, "cases": self.cases, "input_tokens": self.input_tokens,
                "output_tokens": self.output_tokens,
                "cost_usd": None if self.cost_usd is None else round(self.cost_usd, 6),
                "cases_without_tokens": self.cases_without_tokens,
                "cases_tokenizer_counted": self.cases_tokenizer_counted}


@dataclass(frozen=True)
class CostSummary:
    """The cost of a list of cases, per model; which models had no price."""

    models: tuple[ModelCost, ...]
    prices_origin: str

    @classmethod
    def of(cls, cases: Iterable[Usage], prices: Prices | None = None) -> CostSummary:
        """Sum the cost of `cases` (a `Generation` per case, or `CaseUsage`)."""
        table = prices or packaged_prices()
        grouped: dict[str, list[Usage]] = {}
        for case in cases:
            grouped.setdefault(case.model, []).append(case)
        out: list[ModelCost] = []
        for model, group in sorted(grouped.items()):
            counted = [c for c in group if c.input_tokens is not None
                       and c.output_tokens is not None]
            tokens_in = sum(c.input_tokens or 0 for c in counted)
            tokens_out = sum(c.output_tokens or 0 for c in counted)
            price = table.price_of(model)
            cost = None if price is None else price.cost_usd(tokens_in, tokens_out)
            billed = price is None or not price.free
            unknown = len(group) - len(counted) if billed else 0
            estimated = sum(map(counted_by_tokenizer, counted)) if billed else 0
            out.append(ModelCost(model, len(group), tokens_in, tokens_out, cost, unknown,
                                 estimated))
        return cls(tuple(out), table.origin)

    @property
    def cases(self) -> int:
        return sum(m.cases for m in self.models)

    @property
    def total_usd(self) -> float:
        """The cost of the priced cases that reported token counts."""
        return sum(m.cost_usd for m in self.models if m.cost_usd is not None)

    @property
    def unpriced_models(self) -> tuple[str, ...]:
        return tuple(m.model for m in self.models if m.cost_usd is None)

    @property
    def cases_without_tokens(self) -> int:
        return sum(m.cases_without_tokens for m in self.models if m.cost_usd is not None)

    @property
    def cases_tokenizer_counted(self) -> int:
        """Priced cases whose tokens a tokenizer counted, not the model (an estimate)."""
        return sum(m.cases_tokenizer_counted for m in self.models if m.cost_usd is not None)

    @property
    def complete(self) -> bool:
        """Whether `total_usd` covers every case (else it is a lower bound)."""
        return not self.unpriced_models and not self.cases_without_tokens

    def to_json(self) -> dict[str, Any]:
        return {"total_usd": round(self.total_usd, 6), "complete": self.complete,
                "cases": self.cases, "unpriced_models": list(self.unpriced_models),
                "cases_without_tokens": self.cases_without_tokens,
                "cases_tokenizer_counted": self.cases_tokenizer_counted,
                "prices": self.prices_origin, "models": [m.to_json() for m in self.models]}

    def line(self) -> str:
        """One line for a summary: the total and what it leaves out."""
        text = f"cost ${self.total_usd:.4f} over {self.cases} cases"
        missing = [f"{m.model} ({m.cases} cases)" for m in self.models if m.cost_usd is None]
        if missing:
            text += f"; no price for {', '.join(missing)}"
        if self.cases_without_tokens:
            text += f"; {self.cases_without_tokens} cases without token counts"
        if self.cases_tokenizer_counted:
            text += f"; {self.cases_tokenizer_counted} cases with tokens counted by a tokenizer"
        return text + ("" if self.complete else " (a lower bound)")
