"""`scripted[:TASKS]`: an offline model that has "memorised" the tasks' reference files.

A deterministic test double for the probes and the benchmark (no network, no key). It knows
the tasks of ``TASKS`` (default: the built-in tasks) by id and answers as a model that has seen
their published files would:

- a benchmark prompt (any condition): the task's original modules (main first), each in a
  ```tla fence, so
  the original condition passes and a renamed one shows the cost of recalled names;
- a continuation prompt (``continuation:<condition>``): the true rest of the original file; for
  the renamed copy, the rest of the *original* file (recalled names where the copy has others);
- a name-proposal prompt (``propose-names``): a JSON object naming every listed identifier
  ``<old><Kind>`` (``hr`` -> ``hrVariable``), in a ```json fence.

On a feedback turn (a request with ``history``) it returns its previous reply again, word
for word: what it answers depends on the task alone, and a model that recalls rather than
reads does not learn from feedback, so every turn repeats the first one and the feedback
track's later turns never pass where the first failed. It never reads
``GenerationRequest.reference``; it reads the task files itself.
"""

from __future__ import annotations

import json
import re
from functools import cached_property

from alias_fixtures.models.registry import Generation, GenerationParams, GenerationRequest, ModelError
from alias_fixtures.tasks.task import Task, builtin_tasks

_LISTED = re.compile(r"^- ([A-Za-z0-9_]+) \(([^)]*)\)$", re.M)


class ScriptedModel:
    """Deterministic replies for the tasks of one source (see the module docstring)."""

    provider = "scripted"

    def __init__(self, source: str = "") -> None:
        self.source = source
        self.model_id = f"scripted:{source}" if source else "scripted"

    @classmethod
    def from_spec(cls, arg: str, params: GenerationParams) -> ScriptedModel:
        return cls(arg)

    @cached_property
    def tasks(self) -> dict[str, Task]:
        if not self.source:
            return {t.id: t for t in builtin_tasks()}
        from alias_fixtures.tasks.loaders import load_tasks

        return {t.id: t for t in load_tasks(self.source)}

    def generate(self, request: GenerationRequest) -> Generation:
        previous = [m.content for m in request.history if m.role == "assistant"]
        if previous:
            return Generation(previous[-1], self.model_id, "stop")
        task = self.tasks.get(request.task_id)
        if task is None:
            raise ModelError(f"{self.model_id} knows no task {request.task_id!r}")
        original = task.modules[task.main_file]
        if request.condition.startswith("continuation:"):
            text = f"```tla\n{continue_file(original, request.prompt)}```\n"
        elif request.condition == "propose-names":
            names = {old: old + kind.replace("_", " ").title().replace(" ", "")
                     for old, kind in _LISTED.findall(request.prompt.rsplit("Identifiers:", 1)[-1])}
            text = f"```json\n{json.dumps(names, indent=1)}\n```\n"
        else:
            helpers = [t.rstrip() for f, t in task.modules.items() if f != task.main_file]
            text = "Here is the specification.\n\n" + "".join(
                f"```tla\n{t}\n```\n" for t in (original.rstrip(), *helpers))
        return Generation(text, self.model_id, "stop")


def continue_file(original: str, prompt: str) -> str:
    """The rest of ``original`` after the prefix shown at the end of a continuation prompt.

    The prefix follows the prompt's first blank line. A prefix the original does not start
    with (a renamed copy) gets the original's rest after as many lines.
    """
    prefix = prompt.split("\n\n", 1)[-1]
    if original.startswith(prefix):
        return original[len(prefix):]
    return "".join(original.splitlines(keepends=True)[prefix.count("\n"):])
