------------------------------ MODULE Barrier ------------------------------
(***************************************************************************)
(* A reusable sense-reversing barrier.  Every process alternates between   *)
(* doing work and synchronising at the barrier.  A shared counter records  *)
(* how many processes have arrived in the current round; the last process  *)
(* to arrive resets the counter and flips the global sense, which releases *)
(* everybody waiting.                                                      *)
(***************************************************************************)
EXTENDS Naturals, FiniteSets

CONSTANT Procs

ASSUME Procs # {} /\ IsFiniteSet(Procs)

VARIABLES count, sense, localSense, stage

vars == <<count, sense, localSense, stage>>

N == Cardinality(Procs)

Init == /\ count = 0
        /\ sense = FALSE
        /\ localSense = [p \in Procs |-> FALSE]
        /\ stage = [p \in Procs |-> "working"]

Arrive(p) ==
    LET mySense == ~localSense[p]
    IN  /\ stage[p] = "working"
        /\ localSense' = [localSense EXCEPT ![p] = mySense]
        /\ IF count + 1 = N
              THEN /\ count' = 0
                   /\ sense' = mySense
              ELSE /\ count' = count + 1
                   /\ sense' = sense
        /\ stage' = [stage EXCEPT ![p] = "waiting"]

Depart(p) ==
    /\ stage[p] = "waiting"
    /\ sense = localSense[p]
    /\ stage' = [stage EXCEPT ![p] = "working"]
    /\ UNCHANGED <<count, sense, localSense>>

Next == \E p \in Procs : Arrive(p) \/ Depart(p)

Spec == Init /\ [][Next]_vars /\ \A p \in Procs : WF_vars(Arrive(p) \/ Depart(p))

-----------------------------------------------------------------------------

TypeOK == /\ count \in 0..(N - 1)
          /\ sense \in BOOLEAN
          /\ localSense \in [Procs -> BOOLEAN]
          /\ stage \in [Procs -> {"working", "waiting"}]

\* The counter equals the number of processes that arrived in this round.
CountMatches == count = Cardinality({p \in Procs : localSense[p] # sense})

\* A process that is working has been released from the latest barrier.
NoEarlyRelease == \A p \in Procs : stage[p] = "working" => localSense[p] = sense

\* Every process passes the barrier infinitely often.
KeepsGoing == \A p \in Procs : []<>(stage[p] = "waiting") /\ []<>(stage[p] = "working")
=============================================================================
