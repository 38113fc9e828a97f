"""The search's inner check on whole columns: the classes of states the parts assigned so
far tell apart, in both graphs, compared with numpy (`layer_of`, `consistent`)."""


from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from tlc_harness.behavior.graphs import StateGraph

PAIR_SHIFT = 32          # a (class, value id) pair as one int64: class << 32 | value id


@dataclass(frozen=True)
class Arrays:
    """A graph's initial states (each once) and the two ends of its edges, as arrays: the
    search's inner loop compares whole columns of both graphs at once."""

    initial: npt.NDArray[np.int64]
    src: npt.NDArray[np.int64]
    dst: npt.NDArray[np.int64]

    @staticmethod
    def of(graph: StateGraph) -> Arrays:
        edges = np.array(graph.edges, dtype=np.int64).reshape(-1, 2)
        return Arrays(np.unique(np.array(graph.initial, dtype=np.int64)),
                       edges[:, 0].copy(), edges[:, 1].copy())


@dataclass(frozen=True)
class Layer:
    """R's states told apart by the parts assigned so far: `keys[s]`, the class of state s
    (an index into `codes`, the sorted distinct (earlier class, value) pairs); the classes of
    the initial states and the class pairs of the edges (`a * len(codes) + b`), sorted."""

    codes: npt.NDArray[np.int64]
    keys: npt.NDArray[np.int64]
    initial: npt.NDArray[np.int64]
    edges: npt.NDArray[np.int64]


def pair_ids(keys: npt.NDArray[np.int64], values: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """Each state's (class, value id) pair as one number (both are below 2**31)."""
    return (keys << PAIR_SHIFT) | values


def layer_of(ref: Arrays, keys: npt.NDArray[np.int64], values: npt.NDArray[np.int64]) -> Layer:
    codes, classes = np.unique(pair_ids(keys, values), return_inverse=True)
    classes = classes.astype(np.int64).reshape(-1)
    size = len(codes)
    return Layer(codes, classes, np.unique(classes[ref.initial]),
                  np.unique(classes[ref.src] * size + classes[ref.dst]))


def consistent(out: Arrays, keys: npt.NDArray[np.int64], values: npt.NDArray[np.int64],
                layer: Layer) -> npt.NDArray[np.int64] | None:
    """G's states in R's classes under one more part, or None where the parts so far cannot
    belong to a mapping under which G refines R both ways: G and R must have the same classes
    and the same initial classes, and each step of G that changes its class must be a step
    of R between those classes."""
    paired = pair_ids(keys, values)
    size = len(layer.codes)
    at = np.minimum(np.searchsorted(layer.codes, paired), size - 1)
    if not np.array_equal(layer.codes[at], paired):
        return None  # a state of G in a class no state of R is in
    if np.count_nonzero(np.bincount(at, minlength=size)) != size:
        return None  # a class of R that no state of G is in
    if not np.array_equal(np.unique(at[out.initial]), layer.initial):
        return None
    moved = at[out.src] != at[out.dst]
    steps = at[out.src[moved]] * size + at[out.dst[moved]]
    return at if np.isin(steps, layer.edges).all() else None
