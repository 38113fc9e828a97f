"""Tests of `alias_fixtures.models.cost`: the shipped price table, user files, run costs."""

from __future__ import annotations

import math
import tomllib
from importlib import resources
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from alias_fixtures.models.cost import (
    PRICES_FILE,
    CaseUsage,
    CostSummary,
    Price,
    PriceFileError,
    Prices,
    Usage,
    cost_usd,
    packaged_prices,
    price_of,
)
from alias_fixtures.models.registry import Generation
from tests.conftest import ROOT

ENTRY = """
[models."m-1"]
input_per_million = 2.0
output_per_million = 8
read_on = "2026-03-01"
source = "https://example.org/pricing"
"""


def table(text: str, origin: str = "user.toml") -> Prices:
    return Prices.from_text(text, origin)


# -- the shipped table ---------------------------------------------------------------------------
def test_the_shipped_file_is_package_data() -> None:
    raw = (resources.files("alias_fixtures.models") / PRICES_FILE).read_text(encoding="utf-8")
    assert tomllib.loads(raw)["models"]
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    patterns = pyproject["tool"]["setuptools"]["package-data"]["alias_fixtures"]
    if not any(Path("models", PRICES_FILE).match(p) for p in patterns):
        pytest.xfail("pyproject.toml does not yet ship models/*.toml as package data")


def test_every_shipped_entry_says_where_it_was_read() -> None:
    prices = packaged_prices()
    assert prices.origin == "alias_fixtures/models/prices.toml"
    assert len(prices.entries) >= 10
    for price in prices.entries.values():
        assert price.read_on == "unknown" or price.read_on[:4].isdigit()
        if price.free:
            assert price.source.startswith("none: "), price.model  # offline adapters only
        else:
            assert price.source.startswith("https://"), price.model


def test_offline_adapters_are_free_and_hosted_ones_are_not() -> None:
    for model in ("demo", "replay:outputs.jsonl", "reference", "scripted:builtin"):
        assert cost_usd(model, 10_000, 10_000) == 0.0
    priced = [p for p in packaged_prices().entries.values() if not p.free]
    assert priced and all(p.input_per_million > 0 and p.output_per_million > 0 for p in priced)


def test_shipped_price_arithmetic() -> None:
    price = price_of("claude-sonnet-4-20250514")
    assert price is not None and price.name == "Claude Sonnet 4"
    assert price.input_per_million == 3.0 and price.output_per_million == 15.0
    assert cost_usd("claude-sonnet-4-20250514", 1_000_000, 1_000_000) == pytest.approx(18.0)
    assert cost_usd("anthropic:claude-sonnet-4-20250514", 2000, 1000) == pytest.approx(0.021)


# -- lookup --------------------------------------------------------------------------------------
def test_unknown_models_have_no_price() -> None:
    assert price_of("no-such-model") is None
    assert cost_usd("no-such-model", 1, 1) is None
    assert cost_usd("hf:tiny-model", 1, 1) is None
    assert cost_usd("anthropic:no-such-model", 1, 1) is None


def test_a_self_hosted_server_is_not_billed_at_the_provider_rate() -> None:
    assert price_of("openai:gpt-5") is not None
    assert price_of("openai:gpt-5@http://localhost:8000/v1") is None


def test_aliases_and_exact_ids() -> None:
    prices = table(ENTRY + 'aliases = ["m-1-latest"]\n')
    assert prices.price_of("m-1-latest") is prices.price_of("m-1") is not None
    assert prices.price_of("m-1-2026-01-01") is None  # no guessing from prefixes


def test_negative_token_counts_are_refused() -> None:
    with pytest.raises(ValueError, match="negative"):
        table(ENTRY).cost_usd("m-1", -1, 0)


@given(tokens_in=st.integers(0, 10**9), tokens_out=st.integers(0, 10**9))
def test_cost_is_linear_in_tokens(tokens_in: int, tokens_out: int) -> None:
    price = Price("m", 2.0, 8.0, "unknown", "https://example.org")
    cost = price.cost_usd(tokens_in, tokens_out)
    assert cost == pytest.approx(tokens_in * 2e-6 + tokens_out * 8e-6)
    assert cost == pytest.approx(price.cost_usd(tokens_in, 0) + price.cost_usd(0, tokens_out))


# -- user files ----------------------------------------------------------------------------------
def test_a_user_file_overrides_and_extends_the_shipped_table(tmp_path: Path) -> None:
    user = tmp_path / "mine.toml"
    user.write_text(ENTRY + '\n[models."gpt-5"]\ninput_per_million = 9\noutput_per_million = 9\n'
                    'read_on = "2026-07"\nsource = "https://example.org/gpt"\n', encoding="utf-8")
    prices = Prices.load(user)
    assert prices.origin == f"alias_fixtures/models/prices.toml + {user}"
    assert prices.cost_usd("m-1", 1_000_000, 0) == pytest.approx(2.0)
    assert prices.cost_usd("gpt-5", 1_000_000, 0) == pytest.approx(9.0)
    assert prices.price_of("claude-3-haiku-20240307") is not None  # kept from the shipped table
    assert Prices.load() is packaged_prices()
    alone = Prices.from_path(user)
    assert alone.price_of("claude-3-haiku-20240307") is None


def test_an_alias_taken_over_by_a_user_file() -> None:
    shipped = table(ENTRY + 'aliases = ["shared"]\n', "a.toml")
    user = table(ENTRY.replace("m-1", "m-2") + 'aliases = ["shared"]\n', "b.toml")
    merged = shipped.updated(user)
    price = merged.price_of("shared")
    assert price is not None and price.model == "m-2"
    assert merged.price_of("m-1") is not None


def test_toml_dates_are_accepted() -> None:
    prices = table(ENTRY.replace('"2026-03-01"', "2026-03-01"))
    price = prices.price_of("m-1")
    assert price is not None and price.read_on == "2026-03-01"


MALFORMED = [
    ("not toml = [", "not valid TOML"),
    ("[other]\nx = 1\n", "expected only"),
    (ENTRY.replace("output_per_million = 8\n", ""), "entry 'm-1': missing output_per_million"),
    (ENTRY.replace("read_on", "read_at"), "entry 'm-1': missing read_on; unknown key(s) read_at"),
    (ENTRY.replace("= 2.0", '= "2.0"'), "entry 'm-1': input_per_million must be a number"),
    (ENTRY.replace("= 2.0", "= -1"), "entry 'm-1': input_per_million must be a finite number"),
    (ENTRY.replace("= 2.0", "= true"), "entry 'm-1': input_per_million must be a number"),
    (ENTRY.replace("= 2.0", "= inf"), "must be a finite number"),
    (ENTRY.replace('"2026-03-01"', '"March 2026"'), "entry 'm-1': read_on must be a date"),
    (ENTRY.replace('"https://example.org/pricing"', '""'), "entry 'm-1': source must be"),
    (ENTRY + "aliases = \"m\"\n", "entry 'm-1': aliases must be a list"),
    ("[models]\nm-1 = 3\n", "entry 'm-1': must be a table"),
    (ENTRY + ENTRY.replace('"m-1"', '"m-2"') + 'aliases = ["m-1"]\n',
     "entry 'm-2': id 'm-1' is also given by entry 'm-1'"),
]


@pytest.mark.parametrize(("text", "message"), MALFORMED, ids=[m for _, m in MALFORMED])
def test_malformed_files_name_the_file_and_entry(text: str, message: str) -> None:
    with pytest.raises(PriceFileError) as err:
        table(text, "mine.toml")
    assert str(err.value).startswith("mine.toml: ")
    assert message in str(err.value)


def test_a_missing_user_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(PriceFileError, match="absent.toml: cannot read"):
        Prices.load(tmp_path / "absent.toml")


# -- summaries -----------------------------------------------------------------------------------
def test_summary_sums_per_model_and_names_unpriced_models() -> None:
    cases: list[Usage] = [
        Generation("x", "claude-sonnet-4-20250514", input_tokens=1_000_000, output_tokens=0),
        Generation("x", "claude-sonnet-4-20250514", input_tokens=0, output_tokens=1_000_000),
        Generation("x", "demo"),  # a free adapter reports no tokens: its cost is still known
        CaseUsage("hf:tiny", 10, 10),
        CaseUsage("hf:tiny", 10, 10),
    ]
    summary = CostSummary.of(cases)
    assert summary.cases == 5
    assert summary.total_usd == pytest.approx(18.0)
    assert summary.unpriced_models == ("hf:tiny",)
    assert not summary.complete
    assert summary.line() == "cost $18.0000 over 5 cases; no price for hf:tiny (2 cases) " \
                             "(a lower bound)"
    data = summary.to_json()
    assert data["unpriced_models"] == ["hf:tiny"] and data["complete"] is False
    by_model = {m["model"]: m for m in data["models"]}
    assert by_model["demo"]["cost_usd"] == 0.0 and by_model["hf:tiny"]["cost_usd"] is None


def test_summary_counts_priced_cases_without_tokens() -> None:
    prices = table(ENTRY)
    cases = [CaseUsage("m-1", 1_000_000, 1_000_000), CaseUsage("m-1")]
    summary = CostSummary.of(cases, prices)
    assert summary.total_usd == pytest.approx(10.0)
    assert summary.cases_without_tokens == 1 and not summary.complete
    assert summary.prices_origin == "user.toml"
    assert summary.line().endswith("; 1 cases without token counts (a lower bound)")


def test_summary_of_fully_priced_cases_is_complete() -> None:
    summary = CostSummary.of([CaseUsage.from_json({"model": "m-1", "input_tokens": 500_000,
                                                   "output_tokens": 250_000})], table(ENTRY))
    assert summary.complete and summary.unpriced_models == ()
    assert summary.total_usd == pytest.approx(3.0)
    assert summary.line() == "cost $3.0000 over 1 cases"


def test_empty_summary() -> None:
    summary = CostSummary.of([])
    assert summary.cases == 0 and summary.total_usd == 0 and summary.complete
    assert math.isfinite(summary.to_json()["total_usd"])
