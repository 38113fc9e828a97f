"""One check of the run settings: a bad value is rejected the same way by the plugin's options
and by the inspect task's parameters (`options.check_settings` behind both), and a bad number
by pytest's and the CLI's argument parsers (`values.setting_type`, registered as `type=`)."""

from __future__ import annotations

import re

import pytest
from _pytest.config.argparsing import Parser

from alias_cli.main import main
from alias_fixtures.inspect_eval.cases import inspect_settings
from alias_fixtures.plugin.options import SettingError, add_options, read_settings
from alias_fixtures.plugin.values import VALUE_RULES

# (option name, bad value, the problem both sides name)
BAD = [
    ("samples", "0", "must be at least 1"),
    ("turns", "0", "must be at least 1"),
    ("graph-budget", "1", "must be at least 2"),
    ("behavior-budget", "-1", "must be 0 (no budget) or more seconds"),
    ("behavior-engine", "fast", "must be one of"),
    ("mappings", "0", "must be at least 1"),
    ("timeout", "0", "must be more than 0 seconds"),
    ("category", "toys", "must be one of"),
    ("exposure-half", "C", "must be A or B"),
    ("primary", "parse", "must be `name` or `behavior`"),
    ("conditions", "upside_down", "unknown ['upside_down']"),
    ("executor", "cloud", "executor must be"),
]


class _Config:
    """The part of pytest.Config that `read_settings` reads: one option set, the rest ini
    defaults (the plugin's option table)."""

    def __init__(self, name: str, value: str) -> None:
        from alias_fixtures.plugin.options import FLAGS, OPTIONS

        self.ini: dict[str, object] = {f"alias_{n.replace('-', '_')}": d for n, d, _ in OPTIONS}
        self.ini.update({f"alias_{n.replace('-', '_')}": False for n, _ in FLAGS})
        self.given = {f"alias_{name.replace('-', '_')}": value}

    def getoption(self, key: str) -> object:
        return self.given.get(key)

    def getini(self, key: str) -> object:
        return self.ini[key]


@pytest.mark.parametrize(("name", "value", "problem"), BAD, ids=[b[0] for b in BAD])
def test_a_bad_value_is_rejected_alike_by_the_plugin_and_the_inspect_task(
        name: str, value: str, problem: str) -> None:
    with pytest.raises(pytest.UsageError) as plugin:
        read_settings(_Config(name, value))  # type: ignore[arg-type]
    assert str(plugin.value).startswith(f"--alias-{name}: "), plugin.value
    with pytest.raises(SettingError) as inspect:
        inspect_settings({name.replace("-", "_"): value})
    assert inspect.value.name == name
    assert problem in inspect.value.problem
    assert str(plugin.value) == f"--alias-{name}: {inspect.value.problem}"


NUMERIC = [(n, v, p) for n, v, p in BAD if n in VALUE_RULES]
CLI = {"graph-budget": ("grade", "regrade"), "mappings": ("grade", "regrade"),
       "timeout": ("grade", "regrade"), "behavior-budget": ("grade", "regrade")}


@pytest.mark.parametrize(("name", "value", "problem"), NUMERIC, ids=[b[0] for b in NUMERIC])
def test_a_bad_number_is_refused_at_the_command_line_with_the_same_words(
        name: str, value: str, problem: str, capsys: pytest.CaptureFixture[str]) -> None:
    """Registered with `type=`: pytest's parser and the CLI's refuse it as the table says."""
    parser = Parser(_ispytest=True)
    add_options(parser)
    with pytest.raises(pytest.UsageError, match=re.escape(f"--alias-{name}: {problem}")):
        parser.parse([f"--alias-{name}={value}"])
    for command in CLI.get(name, ()):
        argv = ([command, "--task", "hour_clock", "reply.txt"] if command == "grade"
                else [command, "results.jsonl"])
        assert main([*argv, f"--{name}={value}"]) == 2
        assert f"argument --{name}: {problem}" in capsys.readouterr().err
