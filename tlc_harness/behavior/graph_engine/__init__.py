"""The state-graph engine: explore both graphs once, infer a refinement mapping in memory, and
confirm it with one TLC run (stages in `grade`)."""

from tlc_harness.behavior.graph_engine.grade import GraphEngine

__all__ = ["GraphEngine"]
