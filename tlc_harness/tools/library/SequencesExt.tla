---------------------------- MODULE SequencesExt ----------------------------
(***************************************************************************)
(* Written for ALIAS: operators of the CommunityModules module             *)
(* SequencesExt, defined from their documented meaning so that TLC         *)
(* evaluates them without Java overrides.                                  *)
(***************************************************************************)
LOCAL INSTANCE Integers
LOCAL INSTANCE Sequences
LOCAL INSTANCE FiniteSets

\* The set of the elements of s.
ToSet(s) == {s[i] : i \in DOMAIN s}

\* A sequence holding each element of the finite set S once (in the order
\* TLC enumerates S).
SetToSeq(S) ==
  LET RECURSIVE Go(_)
      Go(rest) == IF rest = {} THEN <<>>
                  ELSE LET x == CHOOSE y \in rest : TRUE
                       IN  <<x>> \o Go(rest \ {x})
  IN  Go(S)

\* The elements of S as a sequence ordered by the strict order lt.
SetToSortSeq(S, lt(_, _)) ==
  LET RECURSIVE Go(_)
      Go(rest) == IF rest = {} THEN <<>>
                  ELSE LET x == CHOOSE y \in rest : \A z \in rest \ {y} : lt(y, z)
                       IN  <<x>> \o Go(rest \ {x})
  IN  Go(S)

\* The sequences of length n (tuples) with elements from S.
TupleOf(S, n) == [1..n -> S]

\* The sequences of length at most n with elements from S.
SeqOf(S, n) == UNION {[1..m -> S] : m \in 0..n}
BoundedSeq(S, n) == SeqOf(S, n)

\* e occurs in s.
Contains(s, e) == \E i \in DOMAIN s : s[i] = e

\* s backwards.
Reverse(s) == [i \in 1..Len(s) |-> s[Len(s) - i + 1]]

\* s without any occurrence of e.
Remove(s, e) == SelectSeq(s, LAMBDA x : x # e)

\* s with every occurrence of old replaced by new.
ReplaceAll(s, old, new) == [i \in 1..Len(s) |-> IF s[i] = old THEN new ELSE s[i]]

\* s with e put at position i (1 <= i <= Len(s) + 1), later elements moved up.
InsertAt(s, i, e) == SubSeq(s, 1, i - 1) \o <<e>> \o SubSeq(s, i, Len(s))

\* s with the element at position i replaced by e.
ReplaceAt(s, i, e) == [s EXCEPT ![i] = e]

\* s without its i-th element.
RemoveAt(s, i) == SubSeq(s, 1, i - 1) \o SubSeq(s, i + 1, Len(s))

\* s with e in front.
Cons(e, s) == <<e>> \o s

\* s without its last element, and its last element (s non-empty).
Front(s) == SubSeq(s, 1, Len(s) - 1)
Last(s) == s[Len(s)]

\* s is a prefix / suffix of t (strictly: and shorter).
IsPrefix(s, t) == Len(s) <= Len(t) /\ SubSeq(t, 1, Len(s)) = s
IsStrictPrefix(s, t) == IsPrefix(s, t) /\ s # t
IsSuffix(s, t) == Len(s) <= Len(t) /\ SubSeq(t, Len(t) - Len(s) + 1, Len(t)) = s
IsStrictSuffix(s, t) == IsSuffix(s, t) /\ s # t

\* All prefixes / suffixes of s, the empty sequence and s included.
Prefixes(s) == {SubSeq(s, 1, n) : n \in 0..Len(s)}
Suffixes(s) == {SubSeq(s, n + 1, Len(s)) : n \in 0..Len(s)}

\* Folds over the elements of s: FoldLeft gives op(...op(op(base, s1), s2)..., sk),
\* FoldRight gives op(s1, op(s2, ... op(sk, base))); FoldSeq(op, base, s) is
\* FoldRight(op, s, base).
FoldLeft(op(_, _), base, s) ==
  LET RECURSIVE Go(_, _)
      Go(acc, i) == IF i > Len(s) THEN acc ELSE Go(op(acc, s[i]), i + 1)
  IN  Go(base, 1)
FoldRight(op(_, _), s, base) ==
  LET RECURSIVE Go(_)
      Go(i) == IF i > Len(s) THEN base ELSE op(s[i], Go(i + 1))
  IN  Go(1)
FoldSeq(op(_, _), base, s) == FoldRight(op, s, base)

\* The concatenation of a sequence of sequences.
FlattenSeq(seqs) == FoldRight(LAMBDA a, b : a \o b, seqs, <<>>)

\* The pairs <<s[i], t[i]>> for i up to Len(s) (s and t of equal length).
Zip(s, t) == [i \in 1..Len(s) |-> <<s[i], t[i]>>]

\* The first / last index whose element passes Test, 0 if none does.
SelectInSeq(s, Test(_)) ==
  LET hits == {i \in 1..Len(s) : Test(s[i])}
  IN  IF hits = {} THEN 0 ELSE CHOOSE i \in hits : \A j \in hits : i <= j
SelectLastInSeq(s, Test(_)) ==
  LET hits == {i \in 1..Len(s) : Test(s[i])}
  IN  IF hits = {} THEN 0 ELSE CHOOSE i \in hits : \A j \in hits : j <= i
=============================================================================
