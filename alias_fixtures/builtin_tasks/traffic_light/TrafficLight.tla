----------------------------- MODULE TrafficLight -----------------------------
(***************************************************************************)
(* A controller for the lights of a crossing of a north-south and an       *)
(* east-west road.  A light goes green, stays green for GreenTime ticks,   *)
(* turns yellow and then red, after which the other road gets its turn.    *)
(***************************************************************************)
EXTENDS Naturals

CONSTANT GreenTime

ASSUME GreenTime \in Nat \ {0}

Dirs == {"ns", "ew"}

Other(d) == IF d = "ns" THEN "ew" ELSE "ns"

VARIABLES light, turn, timer

vars == <<light, turn, timer>>

Init == /\ light = [d \in Dirs |-> "red"]
        /\ turn = "ns"
        /\ timer = 0

TurnGreen(d) == /\ turn = d
                /\ \A e \in Dirs : light[e] = "red"
                /\ light' = [light EXCEPT ![d] = "green"]
                /\ timer' = GreenTime
                /\ UNCHANGED turn

Tick == /\ timer > 0
        /\ timer' = timer - 1
        /\ UNCHANGED <<light, turn>>

TurnYellow(d) == /\ light[d] = "green"
                 /\ timer = 0
                 /\ light' = [light EXCEPT ![d] = "yellow"]
                 /\ UNCHANGED <<turn, timer>>

TurnRed(d) == /\ light[d] = "yellow"
              /\ light' = [light EXCEPT ![d] = "red"]
              /\ turn' = Other(d)
              /\ UNCHANGED timer

Next == \/ Tick
        \/ \E d \in Dirs : TurnGreen(d) \/ TurnYellow(d) \/ TurnRed(d)

Spec == Init /\ [][Next]_vars /\ WF_vars(Next)

-----------------------------------------------------------------------------
TypeOK == /\ light \in [Dirs -> {"red", "yellow", "green"}]
          /\ turn \in Dirs
          /\ timer \in 0..GreenTime

NeverBothGo == light["ns"] = "red" \/ light["ew"] = "red"

EachGetsGreen == \A d \in Dirs : []<>(light[d] = "green")
=============================================================================
