"""ALIAS as an inspect_ai task: the task, its cases and the reference model."""
