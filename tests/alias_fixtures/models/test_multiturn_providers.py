"""Model adapters on feedback turns: the whole conversation goes to the Anthropic and OpenAI
APIs (a local fake of each, no network), to the `hf:` adapter (a tiny local GPT-2) and to the
`scripted` double; a first turn sends exactly what a one-shot run sends; token counts and the
generation cache key.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from alias_fixtures.models.cache import SCHEMA_VERSION, request_key
from alias_fixtures.models.chat import (
    PLAIN_TEMPLATE,
    conversation_text,
    encode_prompt,
    prompt_text,
)
from alias_fixtures.models.hf import case_seed
from alias_fixtures.models.providers import EMPTY_REPLY, AnthropicModel, OpenAIModel
from alias_fixtures.models.registry import (
    ChatMessage,
    GenerationParams,
    GenerationRequest,
    make_model,
)
from tests.alias_fixtures.models import test_providers
from tests.fakeapi import FakeAPI, Reply, anthropic_message, openai_completion

_clean_env = test_providers._clean_env  # the same fixtures as the one-shot tests
api = test_providers.api
KEY = "sk-test-0123456789abcdef"  # noqa: S105 - a fake key for the fake server
PROMPT, SYSTEM = "Write the module.", "You write TLA+."
REPLY_1, FEEDBACK_1 = "```tla\n---- MODULE M ----\n====\n```", "SANY cannot parse your module."
REPLY_2, FEEDBACK_2 = "Here it is again.", "Your reply contains no TLA+ module."
HISTORY = (ChatMessage("assistant", REPLY_1), ChatMessage("user", FEEDBACK_1, ("parse",)),
           ChatMessage("assistant", REPLY_2), ChatMessage("user", FEEDBACK_2, ("parse",)))


def request(history: tuple[ChatMessage, ...] = (), system: str | None = SYSTEM,
            **params: Any) -> GenerationRequest:
    return GenerationRequest("hour_clock", "original", 0, PROMPT, system,
                             GenerationParams(**params), history=history)


def openai_model(api: FakeAPI) -> OpenAIModel:
    return OpenAIModel("gpt-test", api_key=KEY, base_url=f"{api.url}/v1")


def anthropic_model(api: FakeAPI) -> AnthropicModel:
    return AnthropicModel("claude-test", api_key=KEY, base_url=api.url)


# -- the request ----------------------------------------------------------------------------

def test_turn_and_messages() -> None:
    first = request()
    assert first.turn == 1
    assert first.messages() == [{"role": "system", "content": SYSTEM},
                                {"role": "user", "content": PROMPT}]
    assert request(system=None).messages() == [{"role": "user", "content": PROMPT}]
    assert request(HISTORY[:2]).turn == 2
    third = request(HISTORY)
    assert third.turn == 3
    assert third.messages() == [
        {"role": "system", "content": SYSTEM}, {"role": "user", "content": PROMPT},
        {"role": "assistant", "content": REPLY_1}, {"role": "user", "content": FEEDBACK_1},
        {"role": "assistant", "content": REPLY_2}, {"role": "user", "content": FEEDBACK_2}]
    with pytest.raises(ValueError, match="role"):
        ChatMessage("system", "no")


def _one_shot_key(provider: str, model_id: str, req: GenerationRequest) -> str:
    """The cache key as one-shot runs have always computed it."""
    fields = {"provider": provider, "model": model_id, "prompt": req.prompt,
              "system": req.system, "params": req.params.key(), "sample": req.sample,
              "schema": SCHEMA_VERSION}
    blob = json.dumps(fields, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def test_cache_key_of_a_first_turn_is_unchanged_and_history_counts(api: FakeAPI) -> None:
    with openai_model(api) as adapter:
        first = request()
        assert request_key(adapter, first) == _one_shot_key("openai", "gpt-test", first)
        keys = {request_key(adapter, request(history)) for history in
                ((), HISTORY[:2], HISTORY, (HISTORY[0], ChatMessage("user", "other feedback")))}
        assert len(keys) == 4
        # the feedback's levels are metadata: the text the model sees decides the key
        relabelled = (HISTORY[0], ChatMessage("user", FEEDBACK_1, ("parse", "tlc")))
        assert request_key(adapter, request(relabelled)) == request_key(adapter,
                                                                         request(HISTORY[:2]))


# -- OpenAI-compatible -----------------------------------------------------------------------

def test_openai_first_turn_body_is_the_one_shot_body(api: FakeAPI) -> None:
    api.script(Reply(body=openai_completion("x")))
    with openai_model(api) as adapter:
        adapter.generate(request(seed=3))
    assert api.seen[0].body == {
        "model": "gpt-test", "max_tokens": 4096, "seed": 3, "temperature": 0.7, "top_p": 0.95,
        "messages": [{"role": "system", "content": SYSTEM}, {"role": "user", "content": PROMPT}]}


def test_openai_sends_the_conversation(api: FakeAPI) -> None:
    api.script(Reply(body=openai_completion("third", prompt_tokens=321, completion_tokens=45)))
    with openai_model(api) as adapter:
        out = adapter.generate(request(HISTORY))
    assert api.seen[0].body["messages"] == [
        {"role": "system", "content": SYSTEM}, {"role": "user", "content": PROMPT},
        {"role": "assistant", "content": REPLY_1}, {"role": "user", "content": FEEDBACK_1},
        {"role": "assistant", "content": REPLY_2}, {"role": "user", "content": FEEDBACK_2}]
    assert (out.text, out.input_tokens, out.output_tokens) == ("third", 321, 45)


def test_openai_two_turns_without_a_system_prompt(api: FakeAPI) -> None:
    api.script(Reply(body=openai_completion("second")))
    with openai_model(api) as adapter:
        adapter.generate(request(HISTORY[:2], system=None))
    assert [(m["role"], m["content"]) for m in api.seen[0].body["messages"]] == [
        ("user", PROMPT), ("assistant", REPLY_1), ("user", FEEDBACK_1)]


@pytest.mark.parametrize("usage", [None, {}, {"total_tokens": 9}])
def test_openai_server_without_usage_leaves_counts_unknown(api: FakeAPI, usage: Any) -> None:
    body = openai_completion("x")
    if usage is None:
        del body["usage"]
    else:
        body["usage"] = usage
    api.script(Reply(body=body))
    with openai_model(api) as adapter:
        out = adapter.generate(request(HISTORY[:2]))
    assert (out.text, out.input_tokens, out.output_tokens) == ("x", None, None)


# -- Anthropic -------------------------------------------------------------------------------

def test_anthropic_first_turn_body_is_the_one_shot_body(api: FakeAPI) -> None:
    api.script(Reply(body=anthropic_message("x")))
    with anthropic_model(api) as adapter:
        adapter.generate(request())
    assert api.seen[0].body == {"model": "claude-test", "max_tokens": 4096, "system": SYSTEM,
                                "temperature": 0.7,
                                "messages": [{"role": "user", "content": PROMPT}]}


def test_anthropic_sends_the_conversation(api: FakeAPI) -> None:
    api.script(Reply(body=anthropic_message("third", input_tokens=654, output_tokens=32)))
    with anthropic_model(api) as adapter:
        out = adapter.generate(request(HISTORY))
    body = api.seen[0].body
    assert body["system"] == SYSTEM
    assert body["messages"] == [
        {"role": "user", "content": PROMPT},
        {"role": "assistant", "content": REPLY_1}, {"role": "user", "content": FEEDBACK_1},
        {"role": "assistant", "content": REPLY_2}, {"role": "user", "content": FEEDBACK_2}]
    assert (out.text, out.input_tokens, out.output_tokens) == ("third", 654, 32)


def test_anthropic_gets_a_stand_in_for_an_empty_reply(api: FakeAPI) -> None:
    api.script(Reply(body=anthropic_message("x")))
    history = (ChatMessage("assistant", " \n"), ChatMessage("user", "Your reply is empty."))
    with anthropic_model(api) as adapter:
        adapter.generate(request(history, system=None))
    body = api.seen[0].body
    assert "system" not in body
    assert body["messages"][1:] == [{"role": "assistant", "content": EMPTY_REPLY},
                                    {"role": "user", "content": "Your reply is empty."}]


# -- the plain and chat templates -------------------------------------------------------------

class TemplateTokenizer:
    """A tokenizer with a chat template that writes each message as `<role>content</role>`."""

    chat_template = "{% for m in messages %}...{% endfor %}"

    def __init__(self) -> None:
        self.seen: list[list[dict[str, str]]] = []

    def apply_chat_template(self, messages: list[dict[str, str]], tokenize: bool,
                            add_generation_prompt: bool = False) -> str:
        assert tokenize is False
        self.seen.append(messages)
        text = "".join(f"<{m['role']}>{m['content']}</{m['role']}>" for m in messages)
        return text + ("<assistant>" if add_generation_prompt else "")


def _turns(history: tuple[ChatMessage, ...] = ()) -> list[dict[str, str]]:
    return [m for m in request(history).messages() if m["role"] != "system"]


@pytest.mark.parametrize("system", [None, "", SYSTEM])
@pytest.mark.parametrize("templated", [False, True], ids=["plain", "chat-template"])
def test_one_turn_conversation_is_the_prompt_text(system: str | None, templated: bool) -> None:
    tokenizer = TemplateTokenizer() if templated else object()
    assert conversation_text(tokenizer, _turns(), system) == prompt_text(tokenizer, PROMPT, system)


def test_plain_conversation() -> None:
    text = conversation_text(object(), _turns(HISTORY[:2]), SYSTEM)
    assert text == (f"### System\n{SYSTEM}\n\n"
                    f"### Instruction\n{PROMPT}\n\n### Response\n"
                    f"{REPLY_1}\n\n"
                    f"### Instruction\n{FEEDBACK_1}\n\n### Response\n")
    assert text.startswith(prompt_text(object(), PROMPT, SYSTEM))
    assert text.endswith(PLAIN_TEMPLATE.format(prompt=FEEDBACK_1))


def test_chat_template_gets_the_conversation() -> None:
    tokenizer = TemplateTokenizer()
    text = conversation_text(tokenizer, _turns(HISTORY), SYSTEM)
    assert [m["role"] for m in tokenizer.seen[-1]] == ["system", "user", "assistant", "user",
                                                       "assistant", "user"]
    assert tokenizer.seen[-1][-1] == {"role": "user", "content": FEEDBACK_2}
    assert text.endswith(f"<user>{FEEDBACK_2}</user><assistant>")


@pytest.mark.parametrize("turns", [[], [{"role": "assistant", "content": "a"}],
                                   [{"role": "user", "content": "p"},
                                    {"role": "assistant", "content": "a"}],
                                   [{"role": "system", "content": "s"},
                                    {"role": "user", "content": "p"}]])
def test_malformed_conversations(turns: list[dict[str, str]]) -> None:
    with pytest.raises(ValueError, match="conversation"):
        conversation_text(object(), turns)


def test_hf_seed_of_a_first_turn_is_unchanged() -> None:
    params = GenerationParams(seed=None)
    key = f"{params.seed}|hour_clock|original|0"
    expected = int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "big") >> 1
    assert case_seed(params, request()) == expected
    assert len({case_seed(params, request(h)) for h in ((), HISTORY[:2], HISTORY)}) == 3


# -- the scripted double ----------------------------------------------------------------------

def test_scripted_repeats_its_previous_reply() -> None:
    model = make_model("scripted")
    first = model.generate(request())
    assert first.text.startswith("Here is the specification.")
    again = model.generate(request((ChatMessage("assistant", first.text),
                                    ChatMessage("user", FEEDBACK_1))))
    assert again.text == first.text
    assert model.generate(request(HISTORY)).text == REPLY_2


# -- the hf adapter on a tiny local model -------------------------------------------------------

@pytest.fixture(scope="module", params=[True, False], ids=["chat-template", "plain"])
def tiny(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    for name in ("torch", "transformers", "tokenizers"):
        pytest.importorskip(name, reason=f"the hf adapter's tests need {name}")
    from alias_fixtures.training.tiny import build_tiny_model

    texts = [PROMPT, REPLY_1, FEEDBACK_1, REPLY_2, FEEDBACK_2]
    return build_tiny_model(tmp_path_factory.mktemp("tiny"), texts, vocab_size=400,
                            n_layer=1, n_embd=32, chat_template=bool(request.param))


def test_hf_generates_from_the_whole_conversation(tiny: Path) -> None:
    from alias_fixtures.models.hf import HFModel

    model = make_model(f"hf:{tiny}?device=cpu&max_new_tokens=4")
    assert isinstance(model, HFModel)
    tokenizer = model.tokenizer
    assert model.conversation(request()) == prompt_text(tokenizer, PROMPT, SYSTEM)
    later = request(HISTORY[:2], temperature=0.0)
    text = model.conversation(later)
    assert text == conversation_text(tokenizer, _turns(HISTORY[:2]), SYSTEM)
    assert REPLY_1 in text and text.index(PROMPT) < text.index(REPLY_1) < text.index(FEEDBACK_1)
    out = model.generate(later)
    assert out.input_tokens == len(encode_prompt(tokenizer, text))
    assert out.input_tokens > len(encode_prompt(tokenizer, model.conversation(request())))
    assert out.output_tokens is not None and 0 < out.output_tokens <= 4
