------------------------------- MODULE TLAPS -------------------------------
(***************************************************************************)
(* Written for ALIAS. The names a proof cites to choose a TLAPS backend    *)
(* prover (and its timeout or tactic). TLC never checks proofs, so every   *)
(* name here is just TRUE: a module whose proofs cite them parses and can  *)
(* be model-checked. The arguments (a timeout, a tactic) are ignored.      *)
(***************************************************************************)

\* SMT solvers, with an optional timeout in seconds.
SMT == TRUE
SMTT(seconds) == TRUE
CVC3 == TRUE
CVC3T(seconds) == TRUE
Yices == TRUE
YicesT(seconds) == TRUE
veriT == TRUE
veriTT(seconds) == TRUE
Z3 == TRUE
Z3T(seconds) == TRUE
Spass == TRUE
SpassT(seconds) == TRUE
SimpleArithmetic == TRUE

\* Propositional temporal logic (the LS4 prover).
PTL == TRUE
LS4 == TRUE

\* Zenon, with an optional timeout.
Zenon == TRUE
ZenonT(seconds) == TRUE
SlowZenon == TRUE
SlowerZenon == TRUE
VerySlowZenon == TRUE
SlowestZenon == TRUE

\* Isabelle: a timeout, a tactic, or both.
Isa == TRUE
IsaT(seconds) == TRUE
IsaM(tactic) == TRUE
IsaMT(tactic, seconds) == TRUE
IsaWithSetExtensionality == TRUE
Auto == TRUE
SlowAuto == TRUE
SlowerAuto == TRUE
SlowestAuto == TRUE
Force == TRUE
SlowForce == TRUE
SlowerForce == TRUE
SlowestForce == TRUE
SimplifyAndSolve == TRUE
SlowSimplifyAndSolve == TRUE
SlowerSimplifyAndSolve == TRUE
SlowestSimplifyAndSolve == TRUE
Simplification == TRUE
SlowSimplification == TRUE
SlowerSimplification == TRUE
SlowestSimplification == TRUE
Blast == TRUE
SlowBlast == TRUE
SlowerBlast == TRUE
SlowestBlast == TRUE
AutoBlast == TRUE

\* Several provers tried in turn.
AllProvers == TRUE
AllProversT(seconds) == TRUE
AllSMT == TRUE
AllSMTT(seconds) == TRUE
AllIsa == TRUE
AllIsaT(seconds) == TRUE

\* Directives of the proof manager (ENABLED, \cdot, levels, USE).
ExpandENABLED == TRUE
ExpandCdot == TRUE
AutoUSE == TRUE
Lambdify == TRUE
ENABLEDaxioms == TRUE
ENABLEDrewrites == TRUE
ENABLEDrules == TRUE
LevelComparison == TRUE

\* Two facts of set theory that proofs cite by name.
THEOREM SetExtensionality ==
  \A A, B : (\A e : (e \in A) <=> (e \in B)) => (A = B)

THEOREM NoSetContainsEverything == \A A : \E e : ~(e \in A)
=============================================================================
