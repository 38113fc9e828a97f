"""Token counts for replies that report none (`--alias-tokenizer`), offline: a tiny WordLevel
tokenizer saved into a temporary folder, and the local fake of the OpenAI API."""

from __future__ import annotations

import json
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from alias_fixtures.models.cache import CachedModel, GenerationCache
from alias_fixtures.models.cost import CaseUsage, CostSummary, Prices
from alias_fixtures.models.providers import Backoff, OpenAIModel
from alias_fixtures.models.registry import (
    ChatMessage,
    Generation,
    GenerationParams,
    GenerationRequest,
    ModelError,
    ReferenceModel,
)
from alias_fixtures.models.token_count import (
    CountingModel,
    TokenizerError,
    counted_if_remote,
    load_counter,
)
from alias_fixtures.plugin.options import OPTIONS, read_settings
from alias_fixtures.tasks.task import builtin_tasks_dir
from reports.render_turns import arm_costs, cost_section
from reports.summary import turn_lines
from reports.turns import case_turns
from tests.fakeapi import FakeAPI, Reply, openai_completion

pytest_plugins = ["pytester"]

ROLES = ("<|system|>", "<|user|>", "<|assistant|>")
UNK, EOS = "[UNK]", "</s>"
TEMPLATE = ("{% for m in messages %}<|{{ m['role'] }}|> {{ m['content'] }} {% endfor %}"
            "{% if add_generation_prompt %}<|assistant|>{% endif %}")
PROMPT = "write a module"                # 3 words
REPLY = "a spec a module"                # 4 words
FEEDBACK = "write it again"              # 3 words
# Every word and punctuation run is one token (unknown ones are [UNK]), a role marker is one:
# with the template, `<|user|> write a module <|assistant|>`; without, the plain
# `### Instruction / ### Response` template of alias_fixtures.models.chat.
FIRST_TURN = {"template": 1 + 3 + 1, "plain": 2 + 3 + 2}
SECOND_TURN = {"template": (1 + 3) + (1 + 4) + (1 + 3) + 1, "plain": (2 + 3 + 2) + 4 + (2 + 3 + 2)}
OLD_GENERATION_KEYS = ["model", "finish_reason", "truncated", "input_tokens", "output_tokens",
                       "seconds", "cached"]


def save_tokenizer(folder: Path, template: str | None) -> Path:
    """A WordLevel tokenizer split on whitespace and punctuation, saved as transformers
    saves one."""
    tokenizers = pytest.importorskip("tokenizers")
    transformers = pytest.importorskip("transformers")
    words = [UNK, EOS, *ROLES, "write", "a", "module", "spec", "it", "again"]
    core = tokenizers.Tokenizer(tokenizers.models.WordLevel(
        {w: i for i, w in enumerate(words)}, unk_token=UNK))
    core.pre_tokenizer = tokenizers.pre_tokenizers.Whitespace()
    fast: Any = transformers.PreTrainedTokenizerFast(tokenizer_object=core, unk_token=UNK,
                                                     eos_token=EOS)
    fast.add_special_tokens({"additional_special_tokens": list(ROLES)})
    if template is not None:
        fast.chat_template = template
    fast.save_pretrained(folder)
    return folder


@pytest.fixture(scope="module", params=["template", "plain"])
def kind(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture(scope="module")
def tokenizer_dir(kind: str, tmp_path_factory: pytest.TempPathFactory) -> str:
    folder = tmp_path_factory.mktemp(f"tok-{kind}")
    return str(save_tokenizer(folder, TEMPLATE if kind == "template" else None))


@pytest.fixture
def templated(tmp_path_factory: pytest.TempPathFactory) -> str:
    return str(save_tokenizer(tmp_path_factory.mktemp("tok"), TEMPLATE))


@pytest.fixture(autouse=True)
def _offline(monkeypatch: pytest.MonkeyPatch) -> None:
    """No hub, key, endpoint or proxy reaches the tests."""
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "ALIAS_MAX_CONCURRENCY", "HTTP_PROXY",
                 "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")


@pytest.fixture
def api() -> Iterator[FakeAPI]:
    with FakeAPI() as server:
        yield server


def request(*history: ChatMessage) -> GenerationRequest:
    return GenerationRequest("task", "original", 0, PROMPT, params=GenerationParams(retries=0),
                             history=history)


def openai(api: FakeAPI) -> OpenAIModel:
    return OpenAIModel("gpt-test", api_key="local", base_url=f"{api.url}/v1",
                       backoff=Backoff(sleep=lambda _: None))


def no_usage(text: str = REPLY, usage: dict[str, int] | None = None) -> Reply:
    body = openai_completion(text)
    if usage is None:
        del body["usage"]
    else:
        body["usage"] = usage
    return Reply(body=body)


# -- counting ----------------------------------------------------------------------------------

def test_counts_are_the_tokenizers(tokenizer_dir: str, kind: str) -> None:
    counter = load_counter(tokenizer_dir)
    assert counter.source == f"tokenizer:{tokenizer_dir}"
    assert counter.input_tokens(request()) == FIRST_TURN[kind]
    later = request(ChatMessage("assistant", REPLY), ChatMessage("user", FEEDBACK))
    assert counter.input_tokens(later) == SECOND_TURN[kind]
    assert counter.output_tokens(REPLY) == 4 and counter.output_tokens("") == 0


@pytest.mark.parametrize("usage", [None, {}, {"total_tokens": 9}], ids=["none", "empty", "total"])
def test_a_reply_without_usage_is_counted(api: FakeAPI, tokenizer_dir: str, kind: str,
                                          usage: dict[str, int] | None) -> None:
    api.script(no_usage(usage=usage))
    with openai(api) as inner:
        adapter = counted_if_remote(inner, tokenizer_dir)
        assert isinstance(adapter, CountingModel) and adapter.model_id == inner.model_id
        out = adapter.generate(request())
    assert (out.text, out.input_tokens, out.output_tokens) == (REPLY, FIRST_TURN[kind], 4)
    assert out.token_source == f"tokenizer:{tokenizer_dir}"
    record = out.to_json()
    assert list(record) == [*OLD_GENERATION_KEYS[:5], "token_source", *OLD_GENERATION_KEYS[5:]]
    assert record["token_source"] == f"tokenizer:{tokenizer_dir}"


def test_a_reported_usage_wins(api: FakeAPI, templated: str) -> None:
    api.script(Reply(body=openai_completion(REPLY, prompt_tokens=11, completion_tokens=7)),
               no_usage(usage={"prompt_tokens": 11}), no_usage(usage={"completion_tokens": 7}))
    with openai(api) as inner:
        adapter = counted_if_remote(inner, templated)
        full, only_in, only_out = (adapter.generate(request()) for _ in range(3))
    assert (full.input_tokens, full.output_tokens, full.token_source) == (11, 7, "usage")
    counted = f"tokenizer:{templated}"
    assert (only_in.input_tokens, only_in.output_tokens, only_in.token_source) == (11, 4, counted)
    assert (only_out.input_tokens, only_out.output_tokens, only_out.token_source) == (5, 7, counted)


def test_without_a_tokenizer_records_are_todays(api: FakeAPI, templated: str) -> None:
    api.script(no_usage())
    with openai(api) as inner:
        assert counted_if_remote(inner, "") is inner
        out = inner.generate(request())
    assert out.token_source is None
    assert list(out.to_json()) == OLD_GENERATION_KEYS
    assert out.to_json() == {"model": "gpt-test", "finish_reason": "stop", "truncated": False,
                             "input_tokens": None, "output_tokens": None,
                             "seconds": round(out.seconds, 3), "cached": False}
    offline = ReferenceModel()
    assert counted_if_remote(offline, templated) is offline  # only API adapters are counted


def test_a_cached_generation_keeps_its_counts_and_source(api: FakeAPI, tmp_path: Path,
                                                         templated: str) -> None:
    api.script(no_usage())
    cache = GenerationCache(tmp_path / "generations.sqlite")
    with openai(api) as inner:
        plain = CachedModel(inner, cache)
        before = plain.generate(request())  # a run without the option fills the cache
        adapter = counted_if_remote(plain, templated)
        first, again = adapter.generate(request()), adapter.generate(request())
    assert len(api.seen) == 1 and (before.input_tokens, before.token_source) == (None, None)
    for out in (first, again):
        assert out.cached
        assert (out.input_tokens, out.output_tokens, out.token_source) == (
            5, 4, f"tokenizer:{templated}")
    source = "tokenizer:t"
    assert cache.put("k", Generation("x", "m", input_tokens=3, output_tokens=2,
                                     token_source=source))
    hit = cache.get("k")
    assert hit is not None and (hit.input_tokens, hit.output_tokens, hit.token_source) == (
        3, 2, source)
    cache.close()


def test_a_conversation_the_tokenizer_cannot_count_is_a_model_error(templated: str) -> None:
    counter = load_counter(templated)
    broken = CountingModel(ReferenceModel(), counter)
    bad = GenerationRequest("t", "original", 0, PROMPT, history=(ChatMessage("assistant", "x"),),
                            reference="---- MODULE M ----\n====")
    with pytest.raises(ModelError, match="cannot count the request"):
        broken.generate(bad)  # a conversation must end with a user turn


# -- start-up errors ---------------------------------------------------------------------------

class _Config:
    """The two lookups `read_settings` makes, with the options' defaults as the ini values."""

    def __init__(self, ini: dict[str, str] | None = None, **given: str) -> None:
        self.given = given
        self.ini: dict[str, Any] = {f"alias_{n.replace('-', '_')}": d for n, d, _ in OPTIONS}
        self.ini.update(ini or {})

    def getoption(self, key: str) -> Any:
        return self.given.get(key)

    def getini(self, key: str) -> Any:
        return self.ini.get(key, False)


def test_the_option_and_its_ini_reach_the_settings(templated: str) -> None:
    assert read_settings(_Config()).tokenizer == ""  # type: ignore[arg-type]
    given = read_settings(_Config(alias_tokenizer=templated))  # type: ignore[arg-type]
    assert given.tokenizer == templated
    ini = read_settings(_Config({"alias_tokenizer": templated}))  # type: ignore[arg-type]
    assert ini.tokenizer == templated


def _bad_folders(tmp_path: Path) -> dict[str, tuple[str, str]]:
    (tmp_path / "empty").mkdir()
    (tmp_path / "file.json").write_text("{}")
    refusing = tmp_path / "refusing"
    save_tokenizer(refusing, "{{ raise_exception('roles must alternate') }}")
    return {"missing": (str(tmp_path / "missing"), "not a folder"),
            "file": (str(tmp_path / "file.json"), "not a folder"),
            "empty": (str(tmp_path / "empty"), "cannot load a tokenizer"),
            "template": (str(refusing), "cannot count a conversation: .*roles must alternate")}


def test_a_bad_tokenizer_fails_at_startup_in_one_line(tmp_path: Path) -> None:
    for name, (value, message) in _bad_folders(tmp_path).items():
        with pytest.raises(pytest.UsageError, match=f"^--alias-tokenizer: .*{message}") as caught:
            read_settings(_Config(alias_tokenizer=value))  # type: ignore[arg-type]
        assert "\n" not in str(caught.value), name


def test_without_transformers_the_error_says_how_to_install(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "transformers", None)  # `import transformers` fails
    with pytest.raises(TokenizerError, match=r"needs transformers \(pip install"):
        load_counter(str(tmp_path))


def test_a_run_with_a_bad_tokenizer_stops_before_any_case(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_bench="def test_never():\n    raise AssertionError\n")
    missing = str(pytester.path / "no-tokenizer")
    result = pytester.runpytest("-p", "no:cacheprovider", "--alias-tokenizer", missing)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"ERROR: --alias-tokenizer: {missing}: not a folder*"])


# -- cost --------------------------------------------------------------------------------------

PRICES = Prices.from_text(
    '[models.m]\ninput_per_million = 1.0\noutput_per_million = 2.0\nread_on = "unknown"\n'
    'source = "test"\n[models.free]\ninput_per_million = 0\noutput_per_million = 0\n'
    'read_on = "unknown"\nsource = "test"\n', "test prices")


def generation(source: str | None, tokens: tuple[int, int] | None = (1000, 500),
               model: str = "m") -> dict[str, Any]:
    out: dict[str, Any] = {"model": model, "finish_reason": "stop", "truncated": False,
                           "input_tokens": tokens[0] if tokens else None,
                           "output_tokens": tokens[1] if tokens else None}
    if source is not None:
        out["token_source"] = source
    return {**out, "seconds": 1.0, "cached": False}


def test_the_cost_summary_counts_tokenizer_counted_cases() -> None:
    cases = [CaseUsage.from_json(generation("tokenizer:tok")),
             CaseUsage.from_json(generation("usage")), CaseUsage.from_json(generation(None)),
             CaseUsage.from_json(generation(None, None)),
             CaseUsage.from_json(generation("tokenizer:tok", model="free"))]
    summary = CostSummary.of(cases, PRICES)
    assert summary.cases_tokenizer_counted == 1 and summary.cases_without_tokens == 1
    assert summary.total_usd == pytest.approx(3 * 0.002)
    assert summary.to_json()["cases_tokenizer_counted"] == 1
    by_model = {m.model: m.to_json() for m in summary.models}
    assert by_model["m"]["cases_tokenizer_counted"] == 1
    assert by_model["free"]["cases_tokenizer_counted"] == 0  # a free model's count costs nothing
    assert summary.line() == ("cost $0.0060 over 5 cases; 1 cases without token counts; "
                              "1 cases with tokens counted by a tokenizer (a lower bound)")
    reported = CostSummary.of([CaseUsage.from_json(generation("usage"))], PRICES)
    assert reported.cases_tokenizer_counted == 0 and "tokenizer" not in reported.line()


def _turn(number: int, source: str | None) -> dict[str, Any]:
    return {"turn": number, "generation": generation(source), "output_sha256": "0" * 64,
            "output_path": f"s0_t{number}.txt",
            "grades": {g: {"verdict": "ok" if number == 2 else "fail", "passed": number == 2}
                       for g in ("parse", "name", "behavior")},
            "cheats": [], "passed": number == 2, "reason": "", "cost_usd": 0.002,
            "feedback": {"text": "TLC says", "levels": ["tlc"]} if number == 1 else None,
            "seconds": 1.0, "infra_error": None}


def _case(sample: int, sources: tuple[str | None, str | None]) -> dict[str, Any]:
    turns = [_turn(1, sources[0]), _turn(2, sources[1])]
    return {"schema_version": 1, "kind": "case", "id": f"t/original/s{sample}", "model": "m",
            "task": "t", "condition": "original", "sample": sample, "hidden_names": [],
            "grades": turns[-1]["grades"], "infra_error": None,
            "generation": turns[-1]["generation"], "turns_max": 2, "feedback_levels": ["tlc"],
            "cheats": [], "cost_usd": 0.004, "turns": turns}


def test_the_turn_report_counts_calls_a_tokenizer_counted() -> None:
    records = [_case(0, ("tokenizer:tok", "usage")), _case(1, (None, "tokenizer:tok"))]
    [cost] = arm_costs(case_turns(records, prices=PRICES))
    assert (cost.calls, cost.tokenizer_counted, cost.without_tokens) == (4, 2, 0)
    assert cost.complete and cost.to_json()["calls_tokenizer_counted"] == 2
    section = cost_section(case_turns(records, prices=PRICES), PRICES.origin)
    row = next(r for r in section.rows if r[0] == "m")
    assert row[-1] == "2 call(s) with tokens counted by a tokenizer"
    assert any("a tokenizer counted their tokens" in n for n in section.notes)
    assert any("2 call(s) counted by a tokenizer" in line for line in turn_lines(records))
    plain = [_case(0, ("usage", "usage"))]
    [reported] = arm_costs(case_turns(plain, prices=PRICES))
    assert reported.tokenizer_counted == 0
    section = cost_section(case_turns(plain, prices=PRICES), PRICES.origin)
    assert not any("tokenizer" in " ".join(r) for r in section.rows)
    assert not any("tokenizer" in n for n in section.notes)


# -- a run end to end --------------------------------------------------------------------------

CASE_TEST = """
import pytest

@pytest.mark.alias_case
def test_case(alias_outcome):
    if not alias_outcome.passed:
        pytest.fail(alias_outcome.reason, pytrace=False)
"""


def _rows(out: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]


@pytest.mark.tlc
def test_a_run_records_counted_tokens_and_a_run_without_the_option_is_unchanged(
        pytester: pytest.Pytester, api: FakeAPI, templated: str) -> None:
    """Two inner sessions in this process (numpy is already imported here, so the second
    does not import it again): one with the option, one without."""
    shutil.copytree(builtin_tasks_dir() / "hour_clock", pytester.path / "tasks" / "hour_clock")
    pytester.makepyfile(test_bench=CASE_TEST)
    api.script(no_usage("no module here"), no_usage("no module here"))

    def run(out: str, *args: str) -> list[dict[str, Any]]:
        result = pytester.runpytest(
            "-p", "no:cacheprovider", "--alias-tasks", str(pytester.path / "tasks"),
            "--alias-out", str(pytester.path / out), "--alias-cache", str(pytester.path / "cache"),
            "--alias-model", f"openai:gpt-test@{api.url}/v1", "--alias-conditions", "original",
            "--alias-samples", "1", "--alias-grades", "parse,name", "--alias-primary", "name",
            *args)
        assert result.ret == 0, result.stdout.str()
        return _rows(pytester.path / out)

    counted = run("counted", "--alias-tokenizer", templated)
    plain = run("plain")
    header, case = counted[0], counted[1]
    assert header["tokenizer"] == templated and "tokenizer" not in plain[0]
    sent = api.seen[0].body["messages"]
    counter = load_counter(templated)
    prompt = GenerationRequest("hour_clock", "original", 0, sent[-1]["content"])
    assert case["generation"]["token_source"] == f"tokenizer:{templated}"
    assert case["generation"]["input_tokens"] == counter.input_tokens(prompt) > 5
    assert case["generation"]["output_tokens"] == 3
    assert list(plain[1]["generation"]) == OLD_GENERATION_KEYS
    assert plain[1]["generation"]["input_tokens"] is None
