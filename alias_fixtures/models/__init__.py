"""Model adapters: the registry, hosted APIs, local weights, replays, the generation cache."""
