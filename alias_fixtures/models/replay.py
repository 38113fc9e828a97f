"""Replay saved outputs: from a folder or a JSONL file keyed by task, condition and sample
(and turn, for the feedback track).

Folder layout: `<task>/<condition>/s<k>.txt` (or `.tla`), a later turn `s<k>_t<n>.txt` (the
layout a run's `outputs/` folder has, so a recorded multi-turn run replays exactly). JSONL: one
object per output with `task`, `condition`, `sample` and `text`, optionally `turn` (default 1)
and `needs` (a feedback level: the output is given only when the feedback before it held that
level); other fields are kept as metadata.

A recorded output for a later turn that is missing is a model error for `replay:`. The `demo`
model (the bundled demo outputs, written for this project; see demo_outputs/README.md) instead
repeats its previous reply when it has no repair for a turn, or when the feedback it got lacks
the level its repair needs: it repairs only from what it is told.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from importlib import resources
from pathlib import Path

from alias_fixtures.models.registry import Generation, GenerationParams, GenerationRequest, ModelError

DEMO_FILE = "demo_outputs/outputs.jsonl"


Key = tuple[str, str, int, int]  # task, condition, sample, turn
_TURN_FILE = re.compile(r"^s(\d+)(?:_t(\d+))?$")


class ReplayModel:
    """Outputs looked up by (task, condition, sample, turn); a missing one is a model error
    (or, with `repeat_missing`, a later turn repeats the previous reply)."""

    provider = "replay"

    def __init__(self, outputs: Mapping[Key, str], model_id: str, *,
                 needs: Mapping[Key, str] | None = None, repeat_missing: bool = False) -> None:
        self.outputs = dict(outputs)
        self.model_id = model_id
        self.needs = dict(needs or {})
        self.repeat_missing = repeat_missing

    @classmethod
    def from_path(cls, path: str | Path, model_id: str | None = None, *,
                  repeat_missing: bool = False) -> ReplayModel:
        path = Path(path)
        outputs: dict[Key, str] = {}
        needs: dict[Key, str] = {}
        if path.is_dir():
            for file in sorted(path.glob("*/*/s*.*")):
                named = _TURN_FILE.match(file.stem)
                if file.suffix in (".txt", ".tla", ".md") and named:
                    key = (file.parent.parent.name, file.parent.name, int(named[1]),
                           int(named[2] or 1))
                    outputs[key] = file.read_text(encoding="utf-8", errors="replace")
        elif path.is_file():
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if not line.strip():
                    continue
                try:
                    row = json.loads(line)
                    key = (str(row["task"]), str(row["condition"]), int(row["sample"]),
                           int(row.get("turn", 1)))
                    if key[3] < 1:
                        raise ValueError(f"turn {key[3]} is not a turn")
                    outputs[key] = str(row["text"])
                    if row.get("needs"):
                        needs[key] = str(row["needs"])
                except (ValueError, KeyError, TypeError, AttributeError) as exc:
                    raise ModelError(f"{path}:{number}: not an output record ({exc})") from exc
        else:
            raise ModelError(f"replay source {path} does not exist")
        if not outputs:
            raise ModelError(f"no outputs found in {path}")
        return cls(outputs, model_id or f"replay:{path.name}", needs=needs,
                   repeat_missing=repeat_missing)

    @classmethod
    def from_spec(cls, arg: str, params: GenerationParams) -> ReplayModel:
        if not arg:
            raise ModelError("replay needs a source: replay:PATH (a folder or a .jsonl file)")
        return cls.from_path(arg)

    def generate(self, request: GenerationRequest) -> Generation:
        key = (request.task_id, request.condition, request.sample, request.turn)
        text = self.outputs.get(key)
        if text is not None and key in self.needs:
            told = request.history[-1].levels if request.history else ()
            text = text if self.needs[key] in told else None
        if text is None and self.repeat_missing and request.turn > 1:
            text = next(m.content for m in reversed(request.history) if m.role == "assistant")
        if text is None:
            turn = f" turn {request.turn}" if request.turn > 1 else ""
            raise ModelError(f"no saved output for {request.task_id}/{request.condition}/"
                             f"s{request.sample}{turn} in {self.model_id}")
        return Generation(text, self.model_id, "stop")


def demo_model(arg: str, params: GenerationParams) -> ReplayModel:
    """The bundled demo outputs (no network, no API key); repairs on turn 2 as they say."""
    path = Path(str(resources.files("alias_fixtures") / DEMO_FILE))
    return ReplayModel.from_path(path, "demo", repeat_missing=True)
