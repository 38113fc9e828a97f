------------------------- MODULE NaturalsInduction -------------------------
(***************************************************************************)
(* Written for ALIAS: the induction principles over the naturals of the    *)
(* TLAPS library, and the two operators that describe a function on Nat    *)
(* defined by primitive recursion, under the names proofs cite. TLC does   *)
(* not check theorems; no proofs are given.                                *)
(***************************************************************************)
EXTENDS Integers

\* f is the function that the recursive definition
\*   f[i \in Nat] == IF i = 0 THEN f0 ELSE Def(f[i-1], i)
\* defines, stated as that definition's CHOOSE ...
NatInductiveDefHypothesis(f, f0, Def(_, _)) ==
  f = CHOOSE g : g = [i \in Nat |-> IF i = 0 THEN f0 ELSE Def(g[i - 1], i)]

\* ... and as the equation it satisfies.
NatInductiveDefConclusion(f, f0, Def(_, _)) ==
  f = [i \in Nat |-> IF i = 0 THEN f0 ELSE Def(f[i - 1], i)]

THEOREM NatInduction ==
  ASSUME NEW P(_), P(0), \A n \in Nat : P(n) => P(n + 1)
  PROVE  \A n \in Nat : P(n)

THEOREM GeneralNatInduction ==
  ASSUME NEW P(_), \A n \in Nat : (\A m \in 0 .. (n - 1) : P(m)) => P(n)
  PROVE  \A n \in Nat : P(n)

THEOREM NatInductiveDef ==
  ASSUME NEW Def(_, _), NEW f, NEW f0,
         NatInductiveDefHypothesis(f, f0, Def)
  PROVE  NatInductiveDefConclusion(f, f0, Def)

\* A definition f[n \in Nat] == Def(f, n) in which Def(g, n) reads g only
\* below n defines a function that satisfies its equation.
THEOREM RecursiveFcnOfNat ==
  ASSUME NEW Def(_, _),
         ASSUME NEW n \in Nat, NEW g, NEW h,
                \A i \in 0 .. (n - 1) : g[i] = h[i]
         PROVE  Def(g, n) = Def(h, n)
  PROVE  LET f[n \in Nat] == Def(f, n)
         IN  f = [n \in Nat |-> Def(f, n)]
=============================================================================
