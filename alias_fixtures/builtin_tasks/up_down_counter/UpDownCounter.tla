---------------------------- MODULE UpDownCounter ----------------------------
(***************************************************************************)
(* A saturating counter between 0 and Max that can be incremented,        *)
(* decremented and reset.  It also remembers the last operation applied.  *)
(***************************************************************************)
EXTENDS Naturals

CONSTANT Max

ASSUME Max \in Nat \ {0}

VARIABLES count, lastOp

vars == <<count, lastOp>>

Init == /\ count = 0
        /\ lastOp = "none"

Inc == /\ count < Max
       /\ count' = count + 1
       /\ lastOp' = "inc"

Dec == /\ count > 0
       /\ count' = count - 1
       /\ lastOp' = "dec"

Reset == /\ count' = 0
         /\ lastOp' = "reset"

Next == Inc \/ Dec \/ Reset

Spec == Init /\ [][Next]_vars

TypeOK == /\ count \in Nat
          /\ lastOp \in {"none", "inc", "dec", "reset"}

InRange == 0 <= count /\ count <= Max
=============================================================================
