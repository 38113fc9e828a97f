"""`alias/reference`: an inspect model that answers each ALIAS variant with its own reference.

The inspect counterpart of the benchmark's `reference` model, for sanity runs in which every
grade must pass: ``inspect eval alias_bench/tla_cir --model alias/reference``. The prompt alone
does not always tell variants apart (a description without renamed words reads the same under
every condition), so each ALIAS sample's user message carries its variant's key in its
metadata (which model providers never send); the reply is looked up among the variants of
the ALIAS runs open in this process.
"""

from __future__ import annotations

from typing import Any

from inspect_ai.model import ChatMessage, GenerateConfig, ModelAPI, ModelOutput, modelapi
from inspect_ai.tool import ToolChoice, ToolInfo

PROVIDER = "alias"
MODEL = "reference"
VARIANT_KEY = "alias_variant"
"""Key of the user message's metadata: {"task", "condition", "rename_map_sha256"}."""


class AliasReferenceAPI(ModelAPI):
    """Replies with the variant's reference modules, as the benchmark's `reference` does."""

    def __init__(self, model_name: str, base_url: str | None = None,
                 api_key: str | None = None, config: GenerateConfig = GenerateConfig(),  # noqa: B008
                 **model_args: Any) -> None:
        super().__init__(model_name, base_url, api_key, [], config)
        if model_name != MODEL:
            raise ValueError(f"the {PROVIDER} provider has one model, {PROVIDER}/{MODEL}, "
                             f"not {PROVIDER}/{model_name}")

    async def generate(self, input: list[ChatMessage], tools: list[ToolInfo],  # noqa: A002
                       tool_choice: ToolChoice, config: GenerateConfig) -> ModelOutput:
        from alias_fixtures.inspect_eval.cases import find_reference

        keys = [m.metadata[VARIANT_KEY] for m in input
                if m.role == "user" and m.metadata and VARIANT_KEY in m.metadata]
        if not keys:
            raise ValueError(f"{PROVIDER}/{MODEL} answers ALIAS samples only (their user "
                             f"message names the variant in metadata[{VARIANT_KEY!r}])")
        key = keys[-1]
        text = find_reference(str(key["task"]), str(key["condition"]),
                              str(key["rename_map_sha256"]))
        return ModelOutput.from_content(model=f"{PROVIDER}/{MODEL}", content=text)


@modelapi(name=PROVIDER)
def alias_reference() -> type[ModelAPI]:
    return AliasReferenceAPI
