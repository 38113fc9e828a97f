------------------------- MODULE FunctionTheorems -------------------------
(***************************************************************************)
(* Written for ALIAS: statements of basic facts about functions, as in the *)
(* TLAPS library, under the names proofs cite. TLC does not check          *)
(* theorems; no proofs are given.                                          *)
(***************************************************************************)

THEOREM Fun_RangeProperties ==
  ASSUME NEW S, NEW T, NEW f \in [S -> T]
  PROVE  /\ {f[x] : x \in S} \subseteq T
         /\ \A y \in {f[x] : x \in S} : \E x \in S : f[x] = y

=============================================================================
