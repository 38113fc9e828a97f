"""Grading one output: extraction, parse/name/behavior grades, controls, executors."""
