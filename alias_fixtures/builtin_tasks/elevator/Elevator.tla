------------------------------- MODULE Elevator -------------------------------
(***************************************************************************)
(* A single elevator serving floors 1..Floors with the "elevator          *)
(* algorithm": it keeps moving in its current direction while there are   *)
(* requests ahead, stops at requested floors to open its door, and turns  *)
(* around only when nothing is left ahead.                                 *)
(***************************************************************************)
EXTENDS Naturals

CONSTANT Floors

ASSUME Floors \in Nat /\ Floors >= 2

Levels == 1..Floors

VARIABLES floor, dir, door, requests

vars == <<floor, dir, door, requests>>

Ahead == IF dir = "up" THEN {f \in requests : f > floor}
                       ELSE {f \in requests : f < floor}

Init == /\ floor = 1
        /\ dir = "up"
        /\ door = "closed"
        /\ requests = {}

Call(f) == /\ f \notin requests
           /\ f # floor
           /\ requests' = requests \cup {f}
           /\ UNCHANGED <<floor, dir, door>>

OpenDoor == /\ door = "closed"
            /\ floor \in requests
            /\ door' = "open"
            /\ requests' = requests \ {floor}
            /\ UNCHANGED <<floor, dir>>

CloseDoor == /\ door = "open"
             /\ door' = "closed"
             /\ UNCHANGED <<floor, dir, requests>>

Move == /\ door = "closed"
        /\ floor \notin requests
        /\ Ahead # {}
        /\ floor' = IF dir = "up" THEN floor + 1 ELSE floor - 1
        /\ UNCHANGED <<dir, door, requests>>

Reverse == /\ door = "closed"
           /\ floor \notin requests
           /\ requests # {}
           /\ Ahead = {}
           /\ dir' = IF dir = "up" THEN "down" ELSE "up"
           /\ UNCHANGED <<floor, door, requests>>

Car == OpenDoor \/ CloseDoor \/ Move \/ Reverse

Next == Car \/ \E f \in Levels : Call(f)

Spec == Init /\ [][Next]_vars /\ WF_vars(Car)

-----------------------------------------------------------------------------
TypeOK == /\ floor \in Levels
          /\ dir \in {"up", "down"}
          /\ door \in {"open", "closed"}
          /\ requests \subseteq Levels

OpenFloorServed == door = "open" => floor \notin requests

RequestsServed == \A f \in Levels : f \in requests ~> (floor = f /\ door = "open")
=============================================================================
