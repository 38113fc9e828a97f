------------------------ MODULE WellFoundedInduction ------------------------
(***************************************************************************)
(* Written for ALIAS: well-founded relations and induction over them, as   *)
(* in the TLAPS library, under the names proofs cite. A relation is a set  *)
(* of pairs <<smaller, larger>>. TLC does not check theorems; no proofs    *)
(* are given.                                                              *)
(***************************************************************************)
EXTENDS Naturals

\* No infinite descending chain of elements of S under R.
IsWellFoundedOn(R, S) ==
  ~ \E f \in [Nat -> S] : \A n \in Nat : <<f[n + 1], f[n]>> \in R

\* The elements of S below x under R.
SetLessThan(x, R, S) == {y \in S : <<y, x>> \in R}

\* The relation on S given by a binary operator.
OpToRel(_\prec_, S) == {p \in S \X S : p[1] \prec p[2]}

\* Def(g, x) depends only on the values of g below x.
WFDefOn(R, S, Def(_, _)) ==
  \A g, h : \A x \in S :
    (\A y \in SetLessThan(x, R, S) : g[y] = h[y]) => (Def(g, x) = Def(h, x))

\* f is the function on S that the definition f[x \in S] == Def(f, x) gives.
OpDefinesFcn(f, S, Def(_, _)) == f = CHOOSE g : g = [x \in S |-> Def(g, x)]

\* f satisfies the equation of that definition.
WFInductiveDefines(f, S, Def(_, _)) == f = [x \in S |-> Def(f, x)]

\* At most one function satisfies it.
WFInductiveUnique(S, Def(_, _)) ==
  \A g, h : WFInductiveDefines(g, S, Def) /\ WFInductiveDefines(h, S, Def) => (g = h)

THEOREM WFInduction ==
  ASSUME NEW P(_), NEW S, NEW R, IsWellFoundedOn(R, S),
         \A x \in S : (\A y \in SetLessThan(x, R, S) : P(y)) => P(x)
  PROVE  \A x \in S : P(x)

THEOREM WFInductiveDef ==
  ASSUME NEW R, NEW S, NEW Def(_, _), NEW f,
         IsWellFoundedOn(R, S), WFDefOn(R, S, Def), OpDefinesFcn(f, S, Def)
  PROVE  WFInductiveDefines(f, S, Def)
=============================================================================
