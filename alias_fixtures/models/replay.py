"""Replay saved outputs: from a folder or a JSONL file keyed by task, condition and sample.

Folder layout: `<task>/<condition>/s<k>.txt` (or `.tla`). JSONL: one object per output with
`task`, `condition`, `sample` and `text` (other fields are kept as metadata). The `demo` model
replays the bundled demo outputs (written for this project; see demo_outputs/README.md).
"""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

from alias_fixtures.models.registry import Generation, GenerationParams, GenerationRequest, ModelError

DEMO_FILE = "demo_outputs/outputs.jsonl"


class ReplayModel:
    """Outputs looked up by (task, condition, sample); a missing one is a model error."""

    provider = "replay"

    def __init__(self, outputs: dict[tuple[str, str, int], str], model_id: str) -> None:
        self.outputs = outputs
        self.model_id = model_id

    @classmethod
    def from_path(cls, path: str | Path, model_id: str | None = None) -> ReplayModel:
        path = Path(path)
        outputs: dict[tuple[str, str, int], str] = {}
        if path.is_dir():
            for file in sorted(path.glob("*/*/s*.*")):
                if file.suffix in (".txt", ".tla", ".md") and file.stem[1:].isdigit():
                    key = (file.parent.parent.name, file.parent.name, int(file.stem[1:]))
                    outputs[key] = file.read_text(encoding="utf-8", errors="replace")
        elif path.is_file():
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if not line.strip():
                    continue
                try:
                    row = json.loads(line)
                    outputs[(str(row["task"]), str(row["condition"]), int(row["sample"]))] = \
                        str(row["text"])
                except (ValueError, KeyError, TypeError) as exc:
                    raise ModelError(f"{path}:{number}: not an output record ({exc})") from exc
        else:
            raise ModelError(f"replay source {path} does not exist")
        if not outputs:
            raise ModelError(f"no outputs found in {path}")
        return cls(outputs, model_id or f"replay:{path.name}")

    @classmethod
    def from_spec(cls, arg: str, params: GenerationParams) -> ReplayModel:
        if not arg:
            raise ModelError("replay needs a source: replay:PATH (a folder or a .jsonl file)")
        return cls.from_path(arg)

    def generate(self, request: GenerationRequest) -> Generation:
        key = (request.task_id, request.condition, request.sample)
        if key not in self.outputs:
            raise ModelError(f"no saved output for {request.task_id}/{request.condition}/"
                             f"s{request.sample} in {self.model_id}")
        return Generation(self.outputs[key], self.model_id, "stop")


def demo_model(arg: str, params: GenerationParams) -> ReplayModel:
    """The bundled demo outputs (no network, no API key)."""
    path = Path(str(resources.files("alias_fixtures") / DEMO_FILE))
    return ReplayModel.from_path(path, "demo")
