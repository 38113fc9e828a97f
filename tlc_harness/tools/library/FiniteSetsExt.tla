--------------------------- MODULE FiniteSetsExt ---------------------------
(***************************************************************************)
(* Written for ALIAS: the operators of the CommunityModules module         *)
(* FiniteSetsExt, defined from their documented meaning so that TLC        *)
(* evaluates them without Java overrides. Like the original, it extends    *)
(* Folds and Functions, whose operators it makes visible too.              *)
(***************************************************************************)
EXTENDS Integers, FiniteSets, Folds, Functions

\* op folded over the elements of set, starting from base:
\* op(x1, op(x2, ... op(xk, base))) in the order CHOOSE picks them.
FoldSet(op(_, _), base, set) ==
  MapThenFoldSet(op, base, LAMBDA x : x, LAMBDA R : CHOOSE x \in R : TRUE, set)

\* The older name of FoldSet, with the set before the starting value.
ReduceSet(op(_, _), set, acc) == FoldSet(op, acc, set)

\* Sum and product of a finite set of numbers (0 and 1 for the empty set).
Sum(set) == FoldSet(LAMBDA x, acc : x + acc, 0, set)
Product(set) == FoldSet(LAMBDA x, acc : x * acc, 1, set)

\* The sum of op(x) over the elements x of S.
MapThenSumSet(op(_), S) ==
  MapThenFoldSet(LAMBDA x, acc : x + acc, 0, op, LAMBDA R : CHOOSE x \in R : TRUE, S)

\* The union of a set of sets.
FlattenSet(S) == UNION S

\* How many elements of S satisfy P.
Quantify(S, P(_)) == Cardinality({x \in S : P(x)})

\* The subsets of S with exactly k elements.
kSubset(k, S) == {T \in SUBSET S : Cardinality(T) = k}

\* Largest and smallest element of a finite non-empty set of numbers.
Max(S) == CHOOSE x \in S : \A y \in S : y <= x
Min(S) == CHOOSE x \in S : \A y \in S : x <= y

\* Every set made of one element from each set in Sets.
Choices(Sets) ==
  LET Picks == {f \in [Sets -> UNION Sets] : \A T \in Sets : f[T] \in T}
  IN  {{f[T] : T \in Sets} : f \in Picks}

\* The one element of S that satisfies P (an error unless exactly one does).
ChooseUnique(S, P(_)) == CHOOSE x \in S : P(x) /\ \A y \in S : P(y) => (y = x)

=============================================================================
