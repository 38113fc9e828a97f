------------------------------ MODULE Semaphore ------------------------------
(***************************************************************************)
(* A counting semaphore initialised to Permits guards a resource that at   *)
(* most Permits processes may use at the same time.  A process requests    *)
(* the resource, performs P (acquire) when a permit is available, uses     *)
(* the resource, and performs V (release).                                 *)
(***************************************************************************)
EXTENDS Naturals, FiniteSets

CONSTANTS Procs, Permits

ASSUME Permits \in Nat \ {0}

VARIABLES sem, pc

vars == <<sem, pc>>

Inside == {p \in Procs : pc[p] = "inside"}

Init == /\ sem = Permits
        /\ pc = [p \in Procs |-> "idle"]

Request(p) == /\ pc[p] = "idle"
              /\ pc' = [pc EXCEPT ![p] = "waiting"]
              /\ UNCHANGED sem

P(p) == /\ pc[p] = "waiting"
        /\ sem > 0
        /\ sem' = sem - 1
        /\ pc' = [pc EXCEPT ![p] = "inside"]

V(p) == /\ pc[p] = "inside"
        /\ sem' = sem + 1
        /\ pc' = [pc EXCEPT ![p] = "idle"]

Next == \E p \in Procs : Request(p) \/ P(p) \/ V(p)

Spec == /\ Init /\ [][Next]_vars
        /\ \A p \in Procs : SF_vars(P(p)) /\ WF_vars(V(p))

-----------------------------------------------------------------------------
TypeOK == /\ sem \in 0..Permits
          /\ pc \in [Procs -> {"idle", "waiting", "inside"}]

PermitsRespected == Cardinality(Inside) <= Permits

PermitsAccounted == sem + Cardinality(Inside) = Permits

WaitersGetIn == \A p \in Procs : pc[p] = "waiting" ~> pc[p] = "inside"
=============================================================================
