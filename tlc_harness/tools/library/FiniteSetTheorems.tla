------------------------- MODULE FiniteSetTheorems -------------------------
(***************************************************************************)
(* Written for ALIAS: statements of the TLAPS library's facts about finite *)
(* sets and their cardinalities, under the names proofs cite. TLC does not *)
(* check theorems; the statements are here so that modules whose proofs    *)
(* cite them parse and can be model-checked. No proofs are given.          *)
(***************************************************************************)
EXTENDS Integers, FiniteSets

THEOREM FS_CardinalityType ==
  ASSUME NEW S, IsFiniteSet(S)
  PROVE  Cardinality(S) \in Nat

THEOREM FS_EmptySet ==
  /\ IsFiniteSet({})
  /\ Cardinality({}) = 0
  /\ \A S : IsFiniteSet(S) => ((Cardinality(S) = 0) <=> (S = {}))

THEOREM FS_Singleton ==
  /\ \A x : IsFiniteSet({x}) /\ Cardinality({x}) = 1
  /\ \A S : IsFiniteSet(S) => ((Cardinality(S) = 1) <=> \E x : S = {x})

THEOREM FS_Interval ==
  ASSUME NEW a \in Int, NEW b \in Int
  PROVE  /\ IsFiniteSet(a .. b)
         /\ Cardinality(a .. b) = IF a > b THEN 0 ELSE b - a + 1

THEOREM FS_AddElement ==
  ASSUME NEW S, NEW x, IsFiniteSet(S)
  PROVE  /\ IsFiniteSet(S \cup {x})
         /\ Cardinality(S \cup {x}) =
              IF x \in S THEN Cardinality(S) ELSE Cardinality(S) + 1

THEOREM FS_RemoveElement ==
  ASSUME NEW S, NEW x, IsFiniteSet(S)
  PROVE  /\ IsFiniteSet(S \ {x})
         /\ Cardinality(S \ {x}) =
              IF x \in S THEN Cardinality(S) - 1 ELSE Cardinality(S)

THEOREM FS_Subset ==
  ASSUME NEW S, IsFiniteSet(S), NEW T \in SUBSET S
  PROVE  /\ IsFiniteSet(T)
         /\ Cardinality(T) <= Cardinality(S)
         /\ (Cardinality(T) = Cardinality(S)) => (T = S)

THEOREM FS_Union ==
  ASSUME NEW S, NEW T, IsFiniteSet(S), IsFiniteSet(T)
  PROVE  /\ IsFiniteSet(S \cup T)
         /\ Cardinality(S \cup T) =
              Cardinality(S) + Cardinality(T) - Cardinality(S \cap T)

THEOREM FS_Intersection ==
  ASSUME NEW S, NEW T, IsFiniteSet(S)
  PROVE  /\ IsFiniteSet(S \cap T)
         /\ IsFiniteSet(T \cap S)
         /\ Cardinality(S \cap T) <= Cardinality(S)

THEOREM FS_Difference ==
  ASSUME NEW S, NEW T, IsFiniteSet(S)
  PROVE  /\ IsFiniteSet(S \ T)
         /\ Cardinality(S \ T) = Cardinality(S) - Cardinality(S \cap T)

THEOREM FS_Product ==
  ASSUME NEW S, NEW T, IsFiniteSet(S), IsFiniteSet(T)
  PROVE  /\ IsFiniteSet(S \X T)
         /\ Cardinality(S \X T) = Cardinality(S) * Cardinality(T)

THEOREM FS_SUBSET ==
  ASSUME NEW S, IsFiniteSet(S)
  PROVE  /\ IsFiniteSet(SUBSET S)
         /\ Cardinality(SUBSET S) = 2 ^ Cardinality(S)

THEOREM FS_Image ==
  ASSUME NEW S, IsFiniteSet(S), NEW f(_)
  PROVE  /\ IsFiniteSet({f(x) : x \in S})
         /\ Cardinality({f(x) : x \in S}) <= Cardinality(S)

\* Induction over finite sets: a property of {} that survives adding one
\* element holds of every finite set.
THEOREM FS_Induction ==
  ASSUME NEW S, IsFiniteSet(S), NEW P(_), P({}),
         ASSUME NEW T, NEW x, IsFiniteSet(T), P(T), x \notin T
         PROVE  P(T \cup {x})
  PROVE  P(S)
=============================================================================
