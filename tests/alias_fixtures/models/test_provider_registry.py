"""The model providers are one registry of records: every record is complete, a record that
leaves something out fails the check, and what a run does around an adapter (cache, token
counts, install hints) follows the record."""

from __future__ import annotations

import dataclasses
import tomllib
from pathlib import Path

import pytest

from alias_fixtures.models import registry
from alias_fixtures.models.cache import CachedModel, cached_if_remote
from alias_fixtures.models.cost import Prices
from alias_fixtures.models.provider_check import provider_problems
from alias_fixtures.models.registry import (
    PROVIDERS,
    GenerationRequest,
    ModelError,
    Provider,
    ReferenceModel,
    make_model,
    provider_of,
)
from alias_fixtures.models.token_count import TokenizerError, counted_if_remote
from tests.conftest import ROOT

EXTRAS = frozenset(tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
                   ["project"]["optional-dependencies"])
PRICES = Prices.packaged()
GOOD = Provider(name="echo", spec="echo[:TEXT]",
                factory="alias_fixtures.models.registry:ReferenceModel.from_spec",
                remote=False, extras=(), tokens="none", priced="unpriced")


def problems(provider: Provider) -> list[str]:
    return provider_problems(provider, extras=EXTRAS, prices=PRICES)


@pytest.mark.parametrize("name", sorted(PROVIDERS))
def test_every_registered_provider_is_complete(name: str) -> None:
    assert PROVIDERS[name].name == name
    assert problems(PROVIDERS[name]) == []


def test_the_model_specs_of_the_readme_are_registered() -> None:
    assert set(PROVIDERS) == {"demo", "reference", "scripted", "replay", "anthropic", "openai",
                              "hf"}


def test_a_well_formed_new_provider_passes() -> None:
    assert problems(GOOD) == []


@pytest.mark.parametrize("field", [f.name for f in dataclasses.fields(Provider)])
def test_a_record_must_state_every_field(field: str) -> None:
    given = {f.name: getattr(GOOD, f.name) for f in dataclasses.fields(Provider)}
    del given[field]
    with pytest.raises(TypeError, match=field):
        Provider(**given)


@pytest.mark.parametrize(("change", "found"), [
    ({"name": ""}, "not a lowercase word"),
    ({"name": "Echo"}, "not a lowercase word"),
    ({"spec": "other:TEXT"}, "does not start with 'echo'"),
    ({"factory": ""}, "not `module:attr`"),
    ({"factory": "alias_fixtures.models.registry:NoSuchModel.from_spec"}, "cannot be imported"),
    ({"factory": "alias_fixtures.models.no_such_module:f"}, "cannot be imported"),
    ({"factory": "alias_fixtures.models.registry:PROVIDERS"}, "not callable"),
    ({"factory": "alias_fixtures.models.registry:make_model"}, "does not declare an adapter"),
    ({"factory": "alias_fixtures.models.cache:cached_if_remote"}, "does not declare an adapter"),
    ({"extras": ("no-such-extra",)}, "'no-such-extra' is not an extra"),
    ({"tokens": "counted"}, "tokens 'counted' is not one of"),
    ({"priced": "cheap"}, "priced 'cheap' is not one of"),
    ({"priced": "free"}, "no zero-price entry 'echo'"),
    ({"name": "demo", "spec": "demo", "priced": "by_model"}, "prices every model of it"),
])
def test_an_incomplete_record_fails_the_check(change: dict[str, object], found: str) -> None:
    broken = dataclasses.replace(GOOD, **change)  # type: ignore[arg-type]
    assert any(found in p for p in problems(broken)), problems(broken)


def test_an_adapter_class_of_an_unregistered_provider_fails_the_check() -> None:
    others = {k: v for k, v in PROVIDERS.items() if k != "reference"}
    found = provider_problems(GOOD, extras=EXTRAS, prices=PRICES, registered=others)
    assert found == ["provider 'echo': factory 'alias_fixtures.models.registry:ReferenceModel."
                     "from_spec' builds adapters of provider 'reference', which is not registered"]


# -- what follows from the record -----------------------------------------------------------

def test_an_unknown_spec_names_every_provider() -> None:
    with pytest.raises(ModelError) as caught:
        make_model("nosuch:thing")
    assert all(p.spec in str(caught.value) for p in PROVIDERS.values())


@pytest.mark.parametrize("spec", ["demo", "reference", "scripted"])
def test_offline_adapters_are_neither_cached_nor_counted(spec: str, tmp_path: Path) -> None:
    adapter = make_model(spec)
    assert not provider_of(adapter).remote
    assert cached_if_remote(adapter, tmp_path) is adapter
    assert counted_if_remote(adapter, "some-tokenizer") is adapter  # never loaded
    assert not (tmp_path / "cache").exists()


def test_a_remote_provider_is_cached(tmp_path: Path) -> None:
    pytest.importorskip("openai", reason="the openai adapter needs the models extra")
    adapter = make_model("openai:some-model@http://127.0.0.1:9/v1")
    wrapped = cached_if_remote(adapter, tmp_path)
    assert isinstance(wrapped, CachedModel) and wrapped.adapter is adapter
    assert wrapped.cache.path == tmp_path / "cache" / "generations.sqlite"
    wrapped.close()


def test_caching_and_counting_follow_the_record(monkeypatch: pytest.MonkeyPatch,
                                                tmp_path: Path) -> None:
    """Flip a record's fields and what a run does around its adapter flips with them."""
    reference = PROVIDERS["reference"]
    monkeypatch.setattr(registry, "PROVIDERS", {**PROVIDERS, "reference": dataclasses.replace(
        reference, remote=True, tokens="usage")})
    adapter = ReferenceModel()
    assert isinstance(cached_if_remote(adapter, tmp_path), CachedModel)
    with pytest.raises(TokenizerError):  # counting is attempted: the tokenizer is loaded
        counted_if_remote(adapter, str(tmp_path / "no-tokenizer"))


def test_an_adapter_of_no_registered_provider_is_refused(tmp_path: Path) -> None:
    class Unknown(ReferenceModel):
        provider = "unknown"

    with pytest.raises(ModelError, match="provider 'unknown' is not registered"):
        cached_if_remote(Unknown(), tmp_path)
    with pytest.raises(ModelError, match="provider 'unknown' is not registered"):
        counted_if_remote(Unknown(), "some-tokenizer")


def test_install_hints_come_from_the_extras() -> None:
    assert PROVIDERS["openai"].install_hint == "pip install 'alias-bench[models]'"
    assert PROVIDERS["demo"].install_hint == ""


def test_the_distinct_reference_model_writes_each_sample_apart() -> None:
    reference = "---- MODULE A ----\nVARIABLE x\n===="
    model = make_model("reference:distinct")
    texts = {model.generate(GenerationRequest("t", "original", n, "p", reference=reference)).text
             for n in range(3)}
    assert len(texts) == 3
    assert all(t.startswith("```tla\n---- MODULE A ----\n\\* sample ") for t in texts)
    plain = make_model("reference").generate(GenerationRequest("t", "original", 0, "p",
                                                               reference=reference))
    assert plain.text == f"```tla\n{reference}\n```\n"
    with pytest.raises(ModelError, match="unknown reference model 'other'"):
        make_model("reference:other")
