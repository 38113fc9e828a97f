"""Repo-local wiring only: the project's plugins register through pyproject entry points."""
