"""A mapping given as a table over the output's reachable states, written as TLA+.

A candidate the solvers find (`any_mapping`: an isomorphism or an onto homomorphism of the
graphs; `completeness`: a member of the named class that holds both ways) is an image per
output state, not an expression of the grammar. TLC confirms it as one: `AliasState` maps
each reachable output state (the tuple of its variables) to the reference state it stands
for, and each reference variable reads its component, `r <- AliasState[<<x, y>>][k]`. TLC's
confirming run explores the output's reachable states under the same constants, so every
state it meets is in the table's domain.

A candidate must read each reference variable from the output variable of its name (every
reference variable that holds a count needs one, or must be held as it is by an output
variable or a record field of one: a table would read a nameless one from anything, a count
started wrong included; one holding only names, booleans, identities
(processes numbered `1..N` that index a function) and structures of them may be read from
anything, as any renaming of names and identities is a mapping) through a map of that
variable's values (`routes_around`): the output's
observable is what the description names, and a mapping may not go around it. And those maps
must be one renaming of each sort's atoms applied everywhere (`renaming`): processes that
index a function (`1..N`) may be numbered otherwise, but a process renumbered in one variable
is renumbered in every other and in function domains, so an output that counts a neighbour's
steps where the reference counts its own is not taken for a renaming of it; and a count
stands for itself (cash that starts at 1 is not the reference's cash starting at 0).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from tlc_harness.behavior import checks
from tlc_harness.behavior.graph_engine.completeness import identity_numbers
from tlc_harness.behavior.graph_engine.search_state import Inferred, tuple_value
from tlc_harness.behavior.graphs import StateGraph
from tlc_harness.behavior.translation import TextBuilder
from tlc_harness.behavior.values import Fn, Value, atoms, is_number, sort_key
from tlc_harness.behavior.verdicts import BehaviorVerdict

#: the largest output graph written as a table: TLC's confirming run of a table of 723 states
#: (TLA+-Bench 976, claude-opus-4-5) reached TLC's 60 s limit; tables of tens of states
#: confirm in about a second
MAX_TABLE_STATES = 300
TABLE = "AliasState"


def routes_around(out: StateGraph, ref: StateGraph, image: Sequence[int]) -> str | None:
    """The first reference variable the image does not read from its output namesake through
    a map of that variable's values, or None."""
    lowered = {v.lower(): k for k, v in enumerate(out.variables)}
    for r, name in enumerate(ref.variables):
        g = lowered.get(name.lower())
        if g is None:
            continue
        read: dict[object, object] = {}
        for state, target in zip(out.states, image, strict=True):
            if read.setdefault(state[g], ref.states[target][r]) != ref.states[target][r]:
                return name
    return None


def table_mapping(out: StateGraph, ref: StateGraph, image: Sequence[int], *,
                  deadlock: bool = False) -> Inferred | None:
    """The image as a TLA+ mapping that holds both ways on the graphs, or None where it is
    not one (a check fails, a named variable is routed around or renamed otherwise than one
    renaming per sort, a reference variable holding counts has no namesake, the table is too
    large)."""
    if len(out) > MAX_TABLE_STATES or len(image) != len(out) or min(image, default=0) < 0:
        return None
    named = {v.lower() for v in out.variables}
    identities = identity_numbers(ref)
    if any(r.lower() not in named and _holds_counts(ref, r, identities)
           and not _carried(out, ref, image, r) for r in ref.variables):
        return None  # a table would read that variable from anything, a wrong count too
    if routes_around(out, ref, image) is not None or renaming(out, ref, image) is None:
        return None
    image = list(image)
    if not checks.forward(out, ref, image, deadlock=deadlock).ok or \
            not checks.reverse(out, ref, image).ok:
        return None
    texts = TextBuilder()
    pairs = [(tuple_value(state), tuple_value(ref.states[target]))
             for state, target in zip(out.states, image, strict=True)]
    name = texts.table(TABLE, pairs)
    key = "<<" + ", ".join(out.variables) + ">>"
    variables = {r: f"{name}[{key}][{k}]" for k, r in enumerate(ref.variables, 1)}
    return Inferred(BehaviorVerdict.OK, "a table of the output's states holds both ways on "
                    "the graphs", variables, texts.definitions, sorted(texts.model_values),
                    image)


def _holds_counts(graph: StateGraph, variable: str, identities: set[Value]) -> bool:
    """Whether any value of `variable` holds a number that is no identity (a count)."""
    return any(is_number(a) and a not in identities
               for v in set(graph.column(variable)) for a in atoms(v))


def _carried(out: StateGraph, ref: StateGraph, image: Sequence[int], variable: str) -> bool:
    """Whether the output holds the reference's `variable` as it is, in every state: in a
    variable of its own or in a record field (`rec.b`) of one, equal to the variable's value
    in the state's image (a count read as that count)."""
    k = ref.variables.index(variable)
    wanted = [ref.states[target][k] for target in image]
    for g in range(len(out.variables)):
        column = [state[g] for state in out.states]
        if column == wanted:
            return True
        functions = [v for v in column if isinstance(v, Fn)]
        if column and len(functions) == len(column):
            keys = set.intersection(*({key for key, _ in v.items} for v in functions))
            for key in sorted(keys, key=sort_key):
                if [v[key] for v in functions] == wanted:
                    return True
    return False


# ------------------------------------------------------ one renaming of each sort's atoms
#: partial renamings tried when the values alone do not fix one (a count of work)
MAX_RENAMINGS = 20_000

Path = tuple[str, ...]
Key = tuple[int, Value]  # (sort, atom)


def renaming(out: StateGraph, ref: StateGraph, image: Sequence[int]) -> dict[Key, Value] | None:
    """One bijection of each sort's atoms (strings, model values, booleans, and numbers that
    are identities: a count stands for itself; an output number that stands for one of the
    reference's identities, a number that indexes one of its function variables, is an
    identity too: the observable's values mean what the reference's do) that turns
    every named output variable's
    value into its reference namesake's value in the image; None where there is none, or
    the search's count runs out.

    A *slot* is where an atom sits in a named variable's values: the variable itself, a set's
    elements (`{}`), a sequence's items (`[]`, positions stay), a function's (a record's)
    domain (`dom`: keys, field names) and range (`[]`). A tuple is a function over `1..n` (processes
    numbered from 1) where every tuple in its slot has one length, else a sequence. Slots are
    one *sort* where one indexes the other: a slot whose atoms lie in a domain's atoms, on
    both sides, is that domain's sort (a process held by `tok` and indexing `count` is renamed
    by one permutation in both); other slots are sorts of their own (a counter's values). The
    numbers of a sort that indexes a function are identities, renamed like names; any other
    number is a count and stands for itself."""
    lowered = {v.lower(): k for k, v in enumerate(out.variables)}
    named = [(lowered[r.lower()], k, r.lower()) for k, r in enumerate(ref.variables)
             if r.lower() in lowered]
    pairs: set[tuple[Path, Value, Value]] = {((name,), state[g], ref.states[target][r])
             for state, target in zip(out.states, image, strict=True) for g, r, name in named}
    sequences = sequence_slots([(path, v) for path, g, r in pairs for v in (g, r)])
    sorts = _sorts(pairs, sequences)
    budget = [MAX_RENAMINGS]
    numbers = frozenset(identity_numbers(ref))
    return _solve({}, {}, sorted(pairs, key=lambda p: _size(p[1])), sorts, sequences, budget,
                  numbers)


def sequence_slots(values: Iterable[tuple[Path, Value]]) -> frozenset[Path]:
    """The slots whose tuples differ in length (sequences, whose positions stay)."""
    lengths: dict[Path, set[int]] = {}
    for path, value in values:
        _lengths(path, value, lengths)
    return frozenset(p for p, n in lengths.items() if len(n) > 1)


def _lengths(path: Path, value: Value, found: dict[Path, set[int]]) -> None:
    """The lengths of the tuples at each slot."""
    if isinstance(value, frozenset):
        for v in value:
            _lengths((*path, "{}"), v, found)
    elif isinstance(value, Fn):
        if value.is_tuple():
            found.setdefault(path, set()).add(len(value))
        for _, v in value.items:
            _lengths((*path, "[]"), v, found)


def atom_slots(path: Path, value: Value, found: dict[Path, set[Value]],
           sequences: frozenset[Path]) -> None:
    if isinstance(value, frozenset):
        for v in value:
            atom_slots((*path, "{}"), v, found, sequences)
    elif isinstance(value, Fn):
        for k, v in value.items:
            if not _positional(value, path, sequences):
                atom_slots((*path, "dom"), k, found, sequences)
            atom_slots((*path, "[]"), v, found, sequences)
    else:
        found.setdefault(path, set()).add(value)


def _positional(value: Fn, path: Path, sequences: frozenset[Path]) -> bool:
    """A tuple of a slot whose tuples differ in length (a sequence): its positions stay. A
    record is a function of its field names, which may be identities (`[i0 |-> TRUE, ...]`
    for processes named by strings) renamed like any name of their sort."""
    return value.is_tuple() and path in sequences


def _sorts(pairs: set[tuple[Path, Value, Value]], sequences: frozenset[Path]
           ) -> dict[Path, int]:
    """Each slot's sort (see `renaming`)."""
    mine: dict[Path, set[Value]] = {}
    theirs: dict[Path, set[Value]] = {}
    for path, g, r in pairs:
        atom_slots(path, g, mine, sequences)
        atom_slots(path, r, theirs, sequences)
    return slot_sorts(mine, theirs)


def slot_sorts(mine: dict[Path, set[Value]], theirs: dict[Path, set[Value]]
               ) -> dict[Path, int]:
    """Each slot's sort, from the atoms each side holds there (see `renaming`)."""
    paths = sorted(set(mine) | set(theirs))
    parent = {p: p for p in paths}

    def root(p: Path) -> Path:
        while parent[p] != p:
            p = parent[p]
        return p

    domains = [d for d in paths if d[-1] == "dom"]
    for d in domains:
        for p in paths:
            if p != d and mine.get(p, set()) <= mine.get(d, set()) and \
                    theirs.get(p, set()) <= theirs.get(d, set()):
                parent[root(p)] = root(d)
    ids: dict[Path, int] = {}
    return {p: ids.setdefault(root(p), len(ids)) for p in paths}


def _size(value: Value) -> int:
    return len(value) if isinstance(value, (frozenset, Fn)) else 0


def _solve(pi: dict[Key, Value], back: dict[Key, Value],
           todo: list[tuple[Path, Value, Value]], sorts: dict[Path, int],
           sequences: frozenset[Path], budget: list[int],
           numbers: frozenset[Value] = frozenset()) -> dict[Key, Value] | None:
    """Propagate the pairs into `pi` until nothing is left (a renaming) or a pair cannot hold
    (None); where only a choice of an unbound atom is left, try each in turn."""
    budget[0] -= 1
    if budget[0] < 0:
        return None
    while True:
        left: list[tuple[Path, Value, Value]] = []
        moved = False
        for path, g, r in todo:
            got = Unifier(pi, back, sorts, sequences, numbers).unify(path, g, r)
            if got is False:
                return None
            if got is None:
                left.append((path, g, r))
            else:
                moved = True
        todo = left
        if not todo:
            return pi
        if not moved:
            break
    # a choice: the first unbound atom of the first open pair, to each free atom of its sort
    unifier = Unifier(pi, back, sorts, sequences, numbers)
    path, g, r = todo[0]
    slot, atom = unifier.unbound(path, g)
    sort = sorts[slot]
    mine: dict[Path, set[Value]] = {}
    atom_slots(path, r, mine, sequences)
    free = sorted({b for p, vs in mine.items() if sorts.get(p) == sort for b in vs
                   if (sort, b) not in back}, key=sort_key)
    for target in free:
        tried_pi, tried_back = dict(pi), dict(back)
        tried_pi[(sort, atom)], tried_back[(sort, target)] = target, atom
        found = _solve(tried_pi, tried_back, list(todo), sorts, sequences, budget, numbers)
        if found is not None:
            return found
    return None


class Unifier:
    """Whether a value renamed sort by sort is another, binding what the shapes force."""

    def __init__(self, pi: dict[Key, Value], back: dict[Key, Value],
                 sorts: dict[Path, int], sequences: frozenset[Path],
                 numbers: frozenset[Value] = frozenset()) -> None:
        self.pi, self.back, self.sorts, self.sequences = pi, back, sorts, sequences
        #: the sorts that index a function: their numbers are identities, the others counts
        self.identities = {s for p, s in sorts.items() if p[-1] == "dom"}
        #: the reference's identities (numbers that index one of its function variables): an
        #: output atom that stands for one is an identity too, whatever it is written as
        self.numbers = numbers

    def bind(self, path: Path, a: Value, b: Value) -> bool:
        sort = self.sorts[path]
        if is_number(a) and sort not in self.identities and a != b and b not in self.numbers:
            return False  # a count is that count
        if (sort, a) in self.pi:
            return self.pi[(sort, a)] == b
        if (sort, b) in self.back:
            return False  # one-to-one within a sort
        self.pi[(sort, a)], self.back[(sort, b)] = b, a
        return True

    def unbound(self, path: Path, value: Value) -> tuple[Path, Value]:
        """The first atom of `value` (at `path`) whose sort's renaming does not name it."""
        found: dict[Path, set[Value]] = {}
        atom_slots(path, value, found, self.sequences)
        for slot in sorted(found):
            for atom in sorted(found[slot], key=sort_key):
                if (self.sorts[slot], atom) not in self.pi:
                    return slot, atom
        raise ValueError("every atom is bound")

    def renamed(self, path: Path, value: Value) -> Value | None:
        """`value` renamed, or None where an atom is not bound yet."""
        if isinstance(value, frozenset):
            items = [self.renamed((*path, "{}"), v) for v in value]
            return None if any(v is None for v in items) else frozenset(
                v for v in items if v is not None)
        if isinstance(value, Fn):
            pairs = []
            for k, v in value.items:
                key = k if _positional(value, path, self.sequences) else \
                    self.renamed((*path, "dom"), k)
                item = self.renamed((*path, "[]"), v)
                if key is None or item is None:
                    return None
                pairs.append((key, item))
            return Fn(pairs)
        return self.pi.get((self.sorts[path], value))

    def unify(self, path: Path, g: Value, r: Value) -> bool | None:
        """True/False: whether `g` renamed is `r`; None where that needs a choice."""
        if _atom(g) or _atom(r):
            return _atom(g) and _atom(r) and self.bind(path, g, r)
        done = self.renamed(path, g)
        if done is not None:
            return done == r
        if isinstance(g, frozenset) or isinstance(r, frozenset):
            if not (isinstance(g, frozenset) and isinstance(r, frozenset)) or len(g) != len(r):
                return False
            if len(g) == 1:
                return self.unify((*path, "{}"), next(iter(g)), next(iter(r)))
            return None
        assert isinstance(g, Fn) and isinstance(r, Fn)
        fixed = _positional(g, path, self.sequences)
        if len(g) != len(r) or fixed != _positional(r, path, self.sequences):
            return False
        if fixed:  # a sequence's positions stay
            if {k for k, _ in g.items} != {k for k, _ in r.items}:
                return False
            results = [self.unify((*path, "[]"), v, r[k]) for k, v in g.items]
            return False if False in results else None if None in results else True
        undecided = False
        for k, v in g.items:
            key = self.renamed((*path, "dom"), k)
            if key is None:
                undecided = True
                continue
            if key not in r:
                return False
            got = self.unify((*path, "[]"), v, r[key])
            if got is False:
                return False
            undecided = undecided or got is None
        return None if undecided else True


def _atom(value: Value) -> bool:
    return not isinstance(value, (frozenset, Fn))
