"""Whether a provider record is complete and agrees with the rest of the package: its factory
imports and builds an adapter class that names a registered provider, its extras exist, and
the price table prices it as the record says. The tests run it over every registered provider.
"""

from __future__ import annotations

import re
import typing
from collections.abc import Collection, Mapping

from alias_fixtures.models.cost import Prices
from alias_fixtures.models.registry import PRICINGS, PROVIDERS, TOKEN_SOURCES, Provider

_NAME = re.compile(r"[a-z][a-z0-9_-]*\Z")


def provider_problems(provider: Provider, *, extras: Collection[str], prices: Prices,
                      registered: Mapping[str, Provider] = PROVIDERS) -> list[str]:
    """What is missing or wrong in `provider` (empty when it is complete). `extras` are the
    package's extras, `prices` the shipped price table, `registered` the registry."""
    name = provider.name
    problems = []
    if not _NAME.match(name):
        problems.append(f"name {name!r} is not a lowercase word (it is the spec's kind)")
    if provider.spec != name and not provider.spec.startswith((f"{name}:", f"{name}[")):
        problems.append(f"spec {provider.spec!r} does not start with {name!r}")
    if provider.tokens not in TOKEN_SOURCES:
        problems.append(f"tokens {provider.tokens!r} is not one of {TOKEN_SOURCES}")
    if provider.priced not in PRICINGS:
        problems.append(f"priced {provider.priced!r} is not one of {PRICINGS}")
    problems += [f"extra {extra!r} is not an extra of the package" for extra in provider.extras
                 if extra not in extras]
    problems += _factory_problems(provider, registered)
    entry = prices.entries.get(name)
    if provider.priced == "free" and (entry is None or not entry.free):
        problems.append(f"priced 'free' but {prices.origin} has no zero-price entry {name!r}")
    if provider.priced != "free" and entry is not None:
        problems.append(f"priced {provider.priced!r} but {prices.origin} prices every model "
                        f"of it by the entry {name!r}")
    return [f"provider {name!r}: {p}" for p in problems]


def _factory_problems(provider: Provider, registered: Mapping[str, Provider]) -> list[str]:
    """The factory must import, be callable, and declare the adapter class it returns."""
    if provider.factory.count(":") != 1:
        return [f"factory {provider.factory!r} is not `module:attr`"]
    try:
        factory = provider.load_factory()
    except (ImportError, AttributeError) as exc:
        return [f"factory {provider.factory!r} cannot be imported: {exc}"]
    if not callable(factory):
        return [f"factory {provider.factory!r} is not callable"]
    try:
        returned = typing.get_type_hints(factory).get("return")
    except (NameError, TypeError) as exc:
        return [f"factory {provider.factory!r}: its return type cannot be read: {exc}"]
    kind = getattr(returned, "provider", None) if isinstance(returned, type) else None
    if not isinstance(kind, str):
        return [f"factory {provider.factory!r} does not declare an adapter class (one with a "
                f"`provider` name) as its return type"]
    if kind not in registered:
        return [f"factory {provider.factory!r} builds adapters of provider {kind!r}, which is "
                f"not registered"]
    return []
