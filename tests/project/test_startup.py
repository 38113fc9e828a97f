"""Start-up stays light: the pytest entry point and `alias-bench --help` import nothing heavy,
the plugin's hooks load only when a run switches ALIAS on, and the CLI's command table agrees
with the subcommands' own help."""

from __future__ import annotations

import argparse
import subprocess
import sys

import pytest

from alias_cli.main import COMMANDS, build_parser

pytest_plugins = ["pytester"]

HEAVY = ("pandas", "scipy", "numpy", "tree_sitter", "jpype", "torch", "transformers",
         "alias_fixtures.plugin.hooks", "alias_fixtures.plugin.session",
         "tlc_harness.tools.runner")


def _loaded_after(code: str) -> set[str]:
    probe = (f"{code}\nimport sys\nprint(' '.join(m for m in {HEAVY!r} if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          timeout=120, check=True)
    return set(done.stdout.split())


def test_the_entry_point_imports_nothing_heavy() -> None:
    assert _loaded_after("import alias_fixtures.plugin.entry") == set()


def test_the_top_level_help_imports_nothing_heavy() -> None:
    code = ("import contextlib, io\nfrom alias_cli.main import main\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n    main(['--help'])")
    assert _loaded_after(code) == set()


def _subcommand_help(parser: argparse.ArgumentParser) -> dict[str, str]:
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return {choice.dest: str(choice.help) for choice in action._choices_actions}


def test_the_command_table_matches_each_subcommand() -> None:
    full = _subcommand_help(build_parser())
    assert full == {name: text for name, (_, text) in COMMANDS.items()}
    assert _subcommand_help(build_parser("")) == full


PLAIN_TEST = """
import sys

def test_plain():
    assert "alias_fixtures.plugin.hooks" not in sys.modules
"""


def test_a_plain_run_does_not_load_the_hooks(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_plain=PLAIN_TEST)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)


def test_an_alias_option_switches_the_hooks_on(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_plain=PLAIN_TEST)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--alias-tasks",
                                           "no-such-folder")
    assert result.ret != 0  # the hooks loaded, started a session and refused the tasks
    assert "no-such-folder" in result.stdout.str() + result.stderr.str()


def test_the_ini_option_switches_the_hooks_on(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_plain=PLAIN_TEST.replace("not in", "in"))
    pytester.makeini("[pytest]\nalias_enable = true\nalias_tasks = builtin\n"
                     "alias_model = demo\n")
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-p", "no:xdist")
    result.assert_outcomes(passed=1)
