------------------------------ MODULE WallClock ------------------------------
(***************************************************************************)
(* A twelve-hour wall clock that only shows hours, plus an AM/PM flag.    *)
(* The hour goes 12, 1, 2, ..., 11, 12, ...; the flag changes when the     *)
(* hour moves from 11 to 12.                                               *)
(***************************************************************************)
EXTENDS Naturals

VARIABLES hr, pm

vars == <<hr, pm>>

Init == /\ hr = 12
        /\ pm = FALSE

Tick == /\ hr' = IF hr = 12 THEN 1 ELSE hr + 1
        /\ pm' = IF hr = 11 THEN ~pm ELSE pm

Next == Tick

Spec == Init /\ [][Next]_vars /\ WF_vars(Tick)

TypeOK == /\ hr \in 1..12
          /\ pm \in BOOLEAN

NoonRecurs == []<>(hr = 12 /\ pm)
=============================================================================
