"""What each model call of a case cost, and the cost of a model × feedback arm.

Prices come in as a :class:`PriceTable`: anything with ``origin`` and ``price_of(model)``
returning an object with ``input_per_million`` and ``output_per_million`` (USD), or None when
the model has no price. ``alias_fixtures.models.cost.Prices`` is one; ``alias-bench report``
passes it (``--prices``), so this package never imports the price table's code. Without a table
the cost stored in the records (each turn's ``cost_usd``, written by the run with its own
table) is used. No price is never zero: such calls are counted as unpriced, and a total that
leaves calls out says it is a lower bound. A call whose tokens a tokenizer counted (its
generation's ``token_source`` is ``tokenizer:NAME``) is priced like the others and counted
apart: its tokens and cost are estimates.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from reports.schema import TOKENS_FROM_TOKENIZER

_MILLION = 1_000_000
STORED = "the records' stored cost_usd"
"""The origin of costs read from the records (no price table given)."""


class Rate(Protocol):
    """A model's price in USD per million tokens."""

    @property
    def input_per_million(self) -> float: ...

    @property
    def output_per_million(self) -> float: ...


class PriceTable(Protocol):
    """A price table: ``price_of(model)`` is None when the model has no price."""

    @property
    def origin(self) -> str: ...

    def price_of(self, model: str) -> Rate | None: ...


PRICED, UNPRICED, NO_TOKENS, NOT_RECORDED, NO_CALL = (
    "priced", "unpriced", "no_tokens", "not_recorded", "no_call")


@dataclass(frozen=True)
class CallCost:
    """One model call (one turn): its tokens and cost; ``usd`` is None unless ``status`` is
    ``priced`` (or ``no_call``: the turn made no call, so it cost 0). ``by_tokenizer``: a
    tokenizer counted some of its tokens, not the model (the generation's ``token_source``)."""

    status: str
    usd: float | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    by_tokenizer: bool = False


def call_cost(generation: Mapping[str, Any] | None, model: str, prices: PriceTable | None,
              stored: Any = None, has_stored: bool = False) -> CallCost:
    """The cost of the call that made ``generation`` (None: the turn made no call).

    With ``prices``: looked up by the generation's model, then by the case's ``model``; a
    free model costs 0 even without token counts. Without: ``stored`` when ``has_stored``.
    """
    if generation is None:
        return CallCost(NO_CALL, 0.0)
    tokens_in, tokens_out = generation.get("input_tokens"), generation.get("output_tokens")
    source = generation.get("token_source")
    tokens = (tokens_in, tokens_out,
              isinstance(source, str) and source.startswith(TOKENS_FROM_TOKENIZER))
    counted = tokens_in is not None and tokens_out is not None
    if prices is None:
        if not has_stored:
            return CallCost(NOT_RECORDED, None, *tokens)
        if stored is not None:
            return CallCost(PRICED, float(stored), *tokens)
        return CallCost(UNPRICED if counted else NO_TOKENS, None, *tokens)
    name = generation.get("model")
    rate = (prices.price_of(name) if isinstance(name, str) else None) or prices.price_of(model)
    if rate is None:
        return CallCost(UNPRICED, None, *tokens)
    if rate.input_per_million == 0 and rate.output_per_million == 0:
        return CallCost(PRICED, 0.0, *tokens)
    if tokens_in is None or tokens_out is None:
        return CallCost(NO_TOKENS, None, *tokens)
    usd = (tokens_in * rate.input_per_million + tokens_out * rate.output_per_million) / _MILLION
    return CallCost(PRICED, usd, *tokens)


@dataclass(frozen=True)
class ArmCost:
    """The calls of one model × feedback arm, summed over every turn of every case.

    ``usd`` sums the priced calls (None when no call could be priced). ``unpriced``: calls of a
    model without a price; ``without_tokens``: priced calls without token counts;
    ``not_recorded``: calls whose cost the records do not hold. ``passes``: cases passing each
    grade at their last turn. ``tokenizer_counted``: calls whose tokens a tokenizer counted,
    not the model (their tokens and cost are estimates).
    """

    model: str
    feedback: str
    cases: int
    calls: int
    input_tokens: int
    output_tokens: int
    usd: float | None
    unpriced: int
    without_tokens: int
    not_recorded: int
    passes: Mapping[str, int]
    tokenizer_counted: int = 0

    @property
    def complete(self) -> bool:
        """Whether ``usd`` covers every call (else it is a lower bound)."""
        return not (self.unpriced or self.without_tokens or self.not_recorded)

    @property
    def per_case(self) -> float | None:
        """Cost per case (None: no cost or no cases)."""
        return None if self.usd is None or not self.cases else self.usd / self.cases

    def per_pass(self, grade: str) -> float | None:
        """Total cost over the cases passing ``grade`` (None: no cost or no pass)."""
        passes = self.passes.get(grade, 0)
        return None if self.usd is None or not passes else self.usd / passes

    def to_json(self) -> dict[str, Any]:
        """Every field and the derived costs, JSON-able."""
        return {"model": self.model, "feedback": self.feedback, "cases": self.cases,
                "calls": self.calls, "input_tokens": self.input_tokens,
                "output_tokens": self.output_tokens, "cost_usd": self.usd,
                "cost_per_case": self.per_case,
                **{f"cost_per_{g}_pass": self.per_pass(g) for g in sorted(self.passes)},
                **{f"{g}_passes": n for g, n in sorted(self.passes.items())},
                "complete": self.complete, "unpriced_calls": self.unpriced,
                "calls_without_tokens": self.without_tokens,
                "calls_tokenizer_counted": self.tokenizer_counted,
                "calls_not_recorded": self.not_recorded}


def arm_cost(model: str, feedback: str, calls_per_case: Iterable[Iterable[CallCost]],
             passes: Mapping[str, int]) -> ArmCost:
    """Sum the calls of an arm's cases (one iterable of calls per case)."""
    cases = calls = tokens_in = tokens_out = estimated = 0
    counts = {UNPRICED: 0, NO_TOKENS: 0, NOT_RECORDED: 0}
    priced: list[float] = []
    for case in calls_per_case:
        cases += 1
        for call in case:
            if call.status == NO_CALL:
                continue
            calls += 1
            tokens_in += call.input_tokens or 0
            tokens_out += call.output_tokens or 0
            estimated += call.by_tokenizer
            if call.status == PRICED and call.usd is not None:
                priced.append(call.usd)
            else:
                counts[call.status] += 1
    usd = math.fsum(priced) if priced or not any(counts.values()) else None
    return ArmCost(model, feedback, cases, calls, tokens_in, tokens_out, usd,
                   counts[UNPRICED], counts[NO_TOKENS], counts[NOT_RECORDED], dict(passes),
                   estimated)
