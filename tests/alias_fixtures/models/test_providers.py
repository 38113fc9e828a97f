"""The Anthropic and OpenAI adapters against a local fake of each HTTP API (no network)."""

from __future__ import annotations

import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from alias_fixtures.models.providers import (
    AnthropicModel,
    Backoff,
    OpenAIModel,
    Sampling,
    max_concurrency,
    parse_spec,
    provider_slots,
    retry_after_seconds,
)
from alias_fixtures.models.registry import GenerationParams, GenerationRequest, ModelError, make_model
from tests.conftest import ROOT
from tests.fakeapi import FakeAPI, Reply, anthropic_message, error_body, openai_completion

SECRET = "sk-test-SECRET-0123456789abcdef"  # noqa: S105 - a fake key for the fake server
ChatModel = AnthropicModel | OpenAIModel


@dataclass(frozen=True)
class Flavor:
    """What differs between the two providers, for tests that run against both."""

    name: str
    path: str
    overloaded: int
    finish: str
    truncated: str
    payload: Callable[..., dict[str, Any]]

    def ok(self, text: str, **fields: Any) -> Reply:
        return Reply(body=self.payload(text, **fields))

    def make(self, api: FakeAPI, sleeps: list[float], sampling: Sampling | None = None) -> ChatModel:
        backoff = Backoff(base=0.004, sleep=sleeps.append)
        if self.name == "anthropic":
            return AnthropicModel("claude-test", api_key=SECRET, base_url=api.url,
                                  sampling=sampling, backoff=backoff)
        return OpenAIModel("gpt-test", api_key=SECRET, base_url=f"{api.url}/v1",
                           sampling=sampling, backoff=backoff)


ANTHROPIC = Flavor("anthropic", "/v1/messages", 529, "end_turn", "max_tokens", anthropic_message)
OPENAI = Flavor("openai", "/v1/chat/completions", 503, "stop", "length", openai_completion)


def request(prompt: str = "Write a TLA+ module.", system: str | None = None,
            **params: Any) -> GenerationRequest:
    return GenerationRequest("task", "plain", 0, prompt, system, GenerationParams(**params))


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> None:
    """No real keys, endpoints, proxies or SDK profiles leak into the tests."""
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL", "ANTHROPIC_PROFILE",
                 "OPENAI_API_KEY", "OPENAI_BASE_URL", "ALIAS_MAX_CONCURRENCY", "HTTP_PROXY",
                 "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    monkeypatch.setenv("ANTHROPIC_CONFIG_DIR", str(tmp_path / "anthropic-config"))


@pytest.fixture
def api() -> Iterator[FakeAPI]:
    with FakeAPI() as server:
        yield server


@pytest.fixture(params=[ANTHROPIC, OPENAI], ids=lambda flavor: flavor.name)
def flavor(request: pytest.FixtureRequest) -> Flavor:
    return request.param  # type: ignore[no-any-return]


@pytest.fixture
def sleeps() -> list[float]:
    """The backoff waits an adapter asked for (none is really slept)."""
    return []


@pytest.fixture
def model(flavor: Flavor, api: FakeAPI, sleeps: list[float]) -> Iterator[ChatModel]:
    with flavor.make(api, sleeps) as adapter:
        yield adapter


def test_completion(flavor: Flavor, api: FakeAPI, model: ChatModel, sleeps: list[float]) -> None:
    api.script(flavor.ok("---- MODULE M ----\n===="))
    out = model.generate(request())
    assert out.text == "---- MODULE M ----\n===="
    assert (out.finish_reason, out.truncated, out.cached) == (flavor.finish, False, False)
    assert (out.input_tokens, out.output_tokens) == (11, 7)
    assert out.model.endswith("-test")
    assert out.seconds > 0
    assert [seen.path for seen in api.seen] == [flavor.path]
    assert sleeps == []
    auth = api.seen[0].headers
    assert SECRET in (auth.get("x-api-key", "") + auth.get("authorization", ""))
    assert "x-stainless-retry-count" not in auth or auth["x-stainless-retry-count"] == "0"


def test_truncated(flavor: Flavor, api: FakeAPI, model: ChatModel) -> None:
    api.script(flavor.ok("---- MODULE M ----\nInit ==", **{_finish_field(flavor): flavor.truncated}))
    out = model.generate(request())
    assert (out.finish_reason, out.truncated) == (flavor.truncated, True)


def _finish_field(flavor: Flavor) -> str:
    return "stop_reason" if flavor is ANTHROPIC else "finish_reason"


def test_request_body_anthropic(api: FakeAPI, sleeps: list[float]) -> None:
    api.script(ANTHROPIC.ok("x"))
    with ANTHROPIC.make(api, sleeps, sampling="both") as adapter:
        adapter.generate(request("the prompt", "the system", temperature=0.3, top_p=0.8,
                                 max_tokens=123, seed=9))
    body = api.seen[0].body
    assert body["model"] == "claude-test"
    assert body["messages"] == [{"role": "user", "content": "the prompt"}]
    assert body["system"] == "the system"
    assert (body["temperature"], body["top_p"], body["max_tokens"]) == (0.3, 0.8, 123)
    assert "seed" not in body
    assert "stream" not in body or body["stream"] is False


def test_request_body_openai(api: FakeAPI, sleeps: list[float]) -> None:
    api.script(OPENAI.ok("x"))
    with OPENAI.make(api, sleeps) as adapter:
        adapter.generate(request("the prompt", "the system", temperature=0.3, top_p=0.8,
                                 max_tokens=123, seed=9))
    body = api.seen[0].body
    assert body["model"] == "gpt-test"
    assert body["messages"] == [{"role": "system", "content": "the system"},
                                {"role": "user", "content": "the prompt"}]
    assert (body["temperature"], body["top_p"], body["max_tokens"], body["seed"]) == (0.3, 0.8, 123, 9)
    assert "max_completion_tokens" not in body


def test_openai_itself_gets_max_completion_tokens(api: FakeAPI) -> None:
    api.script(OPENAI.ok("x"))
    with OpenAIModel("gpt-test", api_key=SECRET, base_url=f"{api.url}/v1",
                     limit_param="max_completion_tokens") as adapter:
        adapter.generate(request(max_tokens=77))
    body = api.seen[0].body
    assert body["max_completion_tokens"] == 77
    assert "max_tokens" not in body
    assert "seed" not in body


@pytest.mark.parametrize(("sampling", "sent"), [
    (None, None), ("both", {"temperature", "top_p"}), ("temperature", {"temperature"}),
    ("top_p", {"top_p"}), ("none", set()),
])
def test_sampling_modes(flavor: Flavor, api: FakeAPI, sleeps: list[float],
                        sampling: Sampling | None, sent: set[str] | None) -> None:
    api.script(flavor.ok("x"))
    with flavor.make(api, sleeps, sampling=sampling) as adapter:
        adapter.generate(request())
        default = adapter.sampling == adapter.default_sampling
        assert adapter.model_id.endswith("-test") is default
    expected = sent if sent is not None else {"anthropic": {"temperature"},
                                              "openai": {"temperature", "top_p"}}[flavor.name]
    assert {"temperature", "top_p"} & set(api.seen[0].body) == expected


def test_rate_limit_then_success(flavor: Flavor, api: FakeAPI, model: ChatModel,
                                 sleeps: list[float]) -> None:
    api.script(Reply(429, error_body("rate_limit_error", "slow down"), {"retry-after": "0"}),
               flavor.ok("after the wait"))
    out = model.generate(request())
    assert out.text == "after the wait"
    assert len(api.seen) == 2
    assert sleeps == [0.0]


def test_overloaded_then_success(flavor: Flavor, api: FakeAPI, model: ChatModel,
                                 sleeps: list[float]) -> None:
    api.script(Reply(flavor.overloaded, error_body("overloaded_error", "Overloaded")),
               Reply(500, error_body("api_error", "oops")), flavor.ok("at last"))
    out = model.generate(request())
    assert out.text == "at last"
    assert len(api.seen) == 3
    assert len(sleeps) == 2
    assert 0.002 <= sleeps[0] <= 0.004
    assert 0.004 <= sleeps[1] <= 0.008


def test_dropped_connection_then_success(flavor: Flavor, api: FakeAPI, model: ChatModel,
                                         sleeps: list[float]) -> None:
    api.script(Reply(drop=True), flavor.ok("reconnected"))
    assert model.generate(request()).text == "reconnected"
    assert len(api.seen) == 2
    assert len(sleeps) == 1


@pytest.mark.parametrize(("headers", "wait"), [
    ({"retry-after": "7"}, 7.0), ({"retry-after-ms": "1500", "retry-after": "9"}, 1.5),
    ({"retry-after": "100000"}, 300.0),
])
def test_retry_after_is_honoured(flavor: Flavor, api: FakeAPI, model: ChatModel, sleeps: list[float],
                                 headers: dict[str, str], wait: float) -> None:
    api.script(Reply(429, error_body("rate_limit_error", "slow down"), headers), flavor.ok("ok"))
    model.generate(request())
    assert sleeps == [wait]


def test_gives_up_after_the_retries(flavor: Flavor, api: FakeAPI, model: ChatModel,
                                    sleeps: list[float]) -> None:
    api.script(*[Reply(503, error_body("api_error", "down for maintenance"))] * 3)
    with pytest.raises(ModelError, match=r"HTTP 503 api_error: down for maintenance.*after 3 attempts"):
        model.generate(request(retries=2))
    assert len(api.seen) == 3
    assert len(sleeps) == 2


def test_real_sleeps_are_short(flavor: Flavor, api: FakeAPI) -> None:
    api.script(Reply(503, error_body("api_error", "busy")), flavor.ok("ok"))
    with flavor.make(api, []) as adapter:
        adapter.backoff = Backoff(base=0.001)
        assert adapter.generate(request()).text == "ok"


def test_unauthorized_fails_at_once_without_the_key(flavor: Flavor, api: FakeAPI, model: ChatModel,
                                                    sleeps: list[float]) -> None:
    api.script(Reply(401, error_body("authentication_error", f"invalid x-api-key {SECRET}")))
    with pytest.raises(ModelError) as info:
        model.generate(request())
    message = str(info.value)
    assert "HTTP 401 authentication_error" in message
    assert f"{flavor.name}:" in message
    assert SECRET not in message
    assert info.value.__cause__ is None
    assert info.value.__suppress_context__
    assert len(api.seen) == 1
    assert sleeps == []


@pytest.mark.parametrize("status", [400, 404, 422])
def test_client_errors_are_not_retried(flavor: Flavor, api: FakeAPI, model: ChatModel, status: int) -> None:
    api.script(Reply(status, error_body("invalid_request_error", "temperature is deprecated")))
    with pytest.raises(ModelError, match=f"HTTP {status} invalid_request_error") as info:
        model.generate(request())
    assert len(api.seen) == 1
    assert ("sampling=none" in str(info.value)) is (status == 400)


def test_malformed_response_is_a_model_error(flavor: Flavor, api: FakeAPI, model: ChatModel) -> None:
    api.script(Reply(body={"unexpected": True}))
    with pytest.raises(ModelError, match=f"{flavor.name}:.*(malformed response|no choices)"):
        model.generate(request())
    assert len(api.seen) == 1


def test_concurrency_is_capped(flavor: Flavor, api: FakeAPI, model: ChatModel,
                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ALIAS_MAX_CONCURRENCY", "2")
    replies = [Reply(body=flavor.payload(f"answer {i}"), delay=0.05) for i in range(6)]
    api.script(*replies)
    texts: list[str] = []
    errors: list[BaseException] = []

    def call() -> None:
        try:
            texts.append(model.generate(request()).text)
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=call) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert sorted(texts) == [f"answer {i}" for i in range(6)]
    assert 1 <= api.peak <= 2


def test_concurrency_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    assert max_concurrency() == 4
    monkeypatch.setenv("ALIAS_MAX_CONCURRENCY", "3")
    assert provider_slots("anthropic") is provider_slots("anthropic")
    assert provider_slots("anthropic") is not provider_slots("openai")
    for bad in ("0", "-1", "many"):
        monkeypatch.setenv("ALIAS_MAX_CONCURRENCY", bad)
        with pytest.raises(ModelError, match="ALIAS_MAX_CONCURRENCY"):
            max_concurrency()


def test_openai_spec_with_local_server_and_no_key(api: FakeAPI) -> None:
    api.script(OPENAI.ok("local answer"))
    adapter = make_model(f"openai:qwen3:8b@{api.url}/v1")
    assert isinstance(adapter, OpenAIModel)
    with adapter:
        assert (adapter.provider, adapter.model_id) == ("openai", "qwen3:8b")
        assert adapter.generate(request()).text == "local answer"
    seen = api.seen[0]
    assert seen.headers["authorization"] == "Bearer local"
    assert seen.body["model"] == "qwen3:8b"
    assert "max_tokens" in seen.body


def test_openai_spec_uses_the_environment_key(api: FakeAPI, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    api.script(OPENAI.ok("x"))
    with OpenAIModel.from_spec(f"gpt-test?sampling=none@{api.url}/v1", GenerationParams()) as adapter:
        assert adapter.model_id == "gpt-test?sampling=none"
        adapter.generate(request())
    assert api.seen[0].headers["authorization"] == f"Bearer {SECRET}"
    assert not {"temperature", "top_p"} & set(api.seen[0].body)


def test_anthropic_spec_uses_the_environment(api: FakeAPI, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", SECRET)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", api.url)
    api.script(ANTHROPIC.ok("from env"))
    adapter = make_model("anthropic:claude-test")
    assert isinstance(adapter, AnthropicModel)
    with adapter:
        assert adapter.generate(request()).text == "from env"
    assert api.seen[0].headers["authorization"] == f"Bearer {SECRET}"


@pytest.mark.parametrize(("spec", "match"), [
    ("openai:gpt-test", "OPENAI_API_KEY"),
    ("anthropic:claude-test", "ANTHROPIC_API_KEY"),
    ("anthropic:claude-test@http://127.0.0.1:9", "ANTHROPIC_BASE_URL"),
    ("openai:gpt-test?temperature=0@http://127.0.0.1:9/v1", "bad model option"),
    ("openai:?sampling=none@http://127.0.0.1:9/v1", "names no model"),
    ("openai:gpt-test@", "empty base URL"),
])
def test_bad_specs(spec: str, match: str) -> None:
    with pytest.raises(ModelError, match=match):
        make_model(spec)


@pytest.mark.parametrize(("arg", "parts"), [
    ("gpt-5", ("gpt-5", "both", None)),
    ("llama3:8b@http://h:1/v1", ("llama3:8b", "both", "http://h:1/v1")),
    ("m?sampling=top_p", ("m", "top_p", None)),
    ("m?sampling=none@http://h/v1", ("m", "none", "http://h/v1")),
])
def test_parse_spec(arg: str, parts: tuple[str, str, str | None]) -> None:
    assert parse_spec(arg, "both") == parts


@pytest.mark.parametrize("sdk", ["anthropic", "openai"])
def test_missing_sdk_is_a_model_error(sdk: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, sdk, None)
    monkeypatch.setenv("ANTHROPIC_API_KEY", SECRET)
    with pytest.raises(ModelError, match=r"pip install 'alias-bench\[models\]'"):
        make_model(f"{sdk}:some-model@http://127.0.0.1:9/v1" if sdk == "openai" else f"{sdk}:m")


def test_module_imports_without_the_sdks() -> None:
    code = ("import sys; sys.modules['anthropic'] = sys.modules['openai'] = None; "
            "import alias_fixtures.models.providers as p; print(p.AnthropicModel.provider)")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                          timeout=60, check=False)
    assert (done.returncode, done.stdout.strip()) == (0, "anthropic"), done.stderr


def test_retry_after_parsing() -> None:
    assert retry_after_seconds({}) is None
    assert retry_after_seconds({"retry-after": "2.5"}) == 2.5
    assert retry_after_seconds({"retry-after-ms": "250"}) == 0.25
    assert retry_after_seconds({"retry-after": "soon"}) is None
    assert retry_after_seconds({"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}) == 0.0


def test_backoff_grows_with_jitter_and_a_cap() -> None:
    backoff = Backoff(base=1.0, cap=8.0)
    for attempt, ceiling in [(0, 1.0), (1, 2.0), (2, 4.0), (3, 8.0), (9, 8.0)]:
        delays = {backoff.delay(attempt) for _ in range(20)}
        assert all(ceiling / 2 <= d <= ceiling for d in delays)
        assert len(delays) > 1
    assert backoff.delay(5, retry_after=3.0) == 3.0
    assert backoff.delay(5, retry_after=-1.0) == 0.0
