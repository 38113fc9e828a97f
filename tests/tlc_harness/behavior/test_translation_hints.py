"""Atom hints (where each atom of a column first shows, and in how many states) are read once
per distinct value: the same as reading every state."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from tlc_harness.behavior.translation import atom_hints
from tlc_harness.behavior.values import Value, atoms

values = st.one_of(st.integers(0, 4), st.sampled_from(["a", "b", "c"]),
                   st.frozensets(st.integers(0, 4), max_size=3))


@given(st.lists(st.tuples(values, st.integers(0, 5)), min_size=1, max_size=30))
def test_hints_are_those_of_every_state(rows: list[tuple[Value, int]]) -> None:
    column = [v for v, _ in rows]
    depths = [d for _, d in rows]
    expected: dict[Value, tuple[int, int]] = {}
    for value, depth in rows:
        for atom in set(atoms(value)):
            first, count = expected.get(atom, (depth, 0))
            expected[atom] = (min(first, depth), count + 1)
    assert atom_hints(column, depths) == expected
