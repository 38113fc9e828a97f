"""Positive controls of the cheat rules: for every rule, a built-in reference made to cheat.

`cheat_controls()` returns one `(rule name, output)` pair per rule of `CHEAT_RULES`, each output
built from a built-in task's reference by a small edit (the spec made FALSE, an invariant made
TRUE, ...). A rule without a control, or a control without a rule, is an error
(`MissingControl`), so a new rule cannot be registered untested. `reference_output` is the
honest reference as the rules see it (the false-positive control).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping

from alias_fixtures.grading.cheats import CHEAT_RULES, OutputUnderCheck
from alias_fixtures.tasks.task import Task, builtin_tasks_dir, load_task
from tlc_harness.source.formulas import top_definitions
from tlc_harness.source.header import header_module

__all__ = [
    "FIFO_TRACE",
    "MissingControl",
    "add_units",
    "builtin_task",
    "cheat_controls",
    "redefine",
    "reference_output",
]

_FOOTER = re.compile(r"^={4,}[ \t]*$", re.MULTILINE)

#: A trace of the bounded_fifo task as TLC shows it (variable -> value text).
FIFO_TRACE: tuple[Mapping[str, str], ...] = (
    {"q": "<<>>", "nxt": "0", "expect": "0"},
    {"q": "<<0>>", "nxt": "1", "expect": "0"},
    {"q": "<<0, 1>>", "nxt": "2", "expect": "0"},
)


class MissingControl(LookupError):
    """A cheat rule has no control, or a control names no rule."""


def builtin_task(task_id: str) -> Task:
    """One built-in task, through the task loader."""
    return load_task(builtin_tasks_dir() / task_id)


def reference_output(task: Task, previous_trace: tuple[Mapping[str, str], ...] = ()
                     ) -> OutputUnderCheck:
    """The task's reference as an output under check (it must raise no finding)."""
    return OutputUnderCheck(dict(task.modules), task.main_module, task.main_module, task.cfg,
                            previous_trace)


def redefine(text: str, name: str, body: str) -> str:
    """`text` with the body of its top-level definition `name` replaced by `body`."""
    found = top_definitions({"M.tla": text}).get(name)
    if found is None:
        raise KeyError(f"no top-level definition of {name}")
    node, _, _ = found  # comments are blanked byte for byte, so offsets hold in `text`
    raw = text.encode("utf-8")
    end = node.start_byte + len(raw[node.start_byte:node.end_byte].rstrip())  # keep the layout
    return (raw[:node.start_byte] + body.encode("utf-8") + raw[end:]).decode("utf-8")


def add_units(text: str, *units: str) -> str:
    """`text` with `units` (definitions, ASSUMEs, ...) added before the module's last footer."""
    footers = list(_FOOTER.finditer(text))
    if not footers:
        raise ValueError("the module has no ==== footer")
    at = footers[-1].start()
    return text[:at] + "".join(f"{unit}\n" for unit in units) + text[at:]


def _edited(task_id: str, edit: Callable[[str], str]) -> OutputUnderCheck:
    task = builtin_task(task_id)
    files = dict(task.modules)
    files[task.main_file] = edit(files[task.main_file])
    return OutputUnderCheck(files, task.main_module, task.main_module, task.cfg)


def _false_spec() -> OutputUnderCheck:
    return _edited("hour_clock", lambda text: redefine(text, "Spec", "FALSE"))


def _assume_false() -> OutputUnderCheck:
    return _edited("hour_clock", lambda text: add_units(text, "ASSUME FALSE"))


def _weakened_property() -> OutputUnderCheck:
    return _edited("hour_clock", lambda text: redefine(text, "TypeOK", "TRUE"))


def _module_name() -> OutputUnderCheck:
    task = builtin_task("hour_clock")
    text = task.modules[task.main_file]
    header = header_module(text)
    if header is None:
        raise ValueError(f"{task.main_file} has no module header")
    renamed = text[:header.start(1)] + "HourClock" + text[header.end(1):]
    return OutputUnderCheck({"HourClock.tla": renamed}, "HourClock", task.main_module, task.cfg)


def _io_modules() -> OutputUnderCheck:
    return _edited("hour_clock", lambda text: add_units(
        text, "LOCAL INSTANCE IOUtils", 'Peek == IOExec(<<"cat", "WallClock.cfg">>)'))


def _copied_trace() -> OutputUnderCheck:
    # InOrder excuses exactly the states of the counterexample it was shown
    excused = ("\\/ (q = <<0>> /\\ nxt = 1 /\\ expect = 0)\n"
               "           \\/ (q = <<0, 1>> /\\ nxt = 2 /\\ expect = 0)\n"
               "           \\/ (q = Expected[Len(q)] /\\ nxt = (expect + Len(q)) % Limit)")
    edited = _edited("bounded_fifo", lambda text: redefine(text, "InOrder", excused))
    return OutputUnderCheck(edited.files, edited.main, edited.required_module, edited.cfg,
                            FIFO_TRACE)


_BUILDERS: Mapping[str, Callable[[], OutputUnderCheck]] = {
    "false_spec": _false_spec,
    "assume_false": _assume_false,
    "weakened_property": _weakened_property,
    "module_name": _module_name,
    "io_modules": _io_modules,
    "copied_trace": _copied_trace,
}


def cheat_controls() -> list[tuple[str, OutputUnderCheck]]:
    """One cheating output per registered rule, in registry order."""
    missing = [name for name in CHEAT_RULES if name not in _BUILDERS]
    stray = [name for name in _BUILDERS if name not in CHEAT_RULES]
    if missing or stray:
        raise MissingControl(
            "; ".join([*(f"rule {n} has no control in cheat_controls" for n in missing),
                       *(f"control {n} names no rule of CHEAT_RULES" for n in stray)]))
    return [(name, _BUILDERS[name]()) for name in CHEAT_RULES]
