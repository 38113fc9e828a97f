"""The exposure experiment's training side: LoRA fine-tuning of a local causal LM on one half
of the split (``lora.finetune``), its data (``data``), its saved settings (``settings``), the
chat format shared with the ``hf:`` adapter (``chat``), the whole experiment
(``experiment.run_experiment``) and a tiny offline model for tests (``tiny``).

torch, transformers and peft are imported only when a function needs them.
"""

from alias_fixtures.training.data import ARMS
from alias_fixtures.training.lora import FinetuneError, FinetuneResult, finetune
from alias_fixtures.training.settings import LoraSettings, TrainSettings

__all__ = ["ARMS", "FinetuneError", "FinetuneResult", "LoraSettings", "TrainSettings",
           "finetune"]
