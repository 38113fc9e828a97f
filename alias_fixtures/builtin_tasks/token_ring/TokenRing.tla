------------------------------ MODULE TokenRing ------------------------------
(***************************************************************************)
(* Mutual exclusion by passing a single token around a ring of N nodes,   *)
(* numbered 0..N-1.  Only the node holding the token may enter its         *)
(* critical section; a node leaving its critical section, or an idle       *)
(* holder, passes the token to the next node.                              *)
(***************************************************************************)
EXTENDS Naturals

CONSTANT N

ASSUME N \in Nat /\ N > 0

Nodes == 0..(N - 1)

VARIABLES token, state

vars == <<token, state>>

Init == /\ token = 0
        /\ state = [i \in Nodes |-> "idle"]

Request(i) == /\ state[i] = "idle"
              /\ state' = [state EXCEPT ![i] = "waiting"]
              /\ UNCHANGED token

Enter(i) == /\ state[i] = "waiting"
            /\ token = i
            /\ state' = [state EXCEPT ![i] = "critical"]
            /\ UNCHANGED token

Exit(i) == /\ state[i] = "critical"
           /\ state' = [state EXCEPT ![i] = "idle"]
           /\ token' = (i + 1) % N

Pass(i) == /\ token = i
           /\ state[i] = "idle"
           /\ token' = (i + 1) % N
           /\ UNCHANGED state

Next == \E i \in Nodes : Request(i) \/ Enter(i) \/ Exit(i) \/ Pass(i)

Fairness == \A i \in Nodes : /\ WF_vars(Enter(i))
                             /\ WF_vars(Exit(i))
                             /\ WF_vars(Pass(i))

Spec == Init /\ [][Next]_vars /\ Fairness

-----------------------------------------------------------------------------
TypeOK == /\ token \in Nodes
          /\ state \in [Nodes -> {"idle", "waiting", "critical"}]

OnlyHolderInCS == \A i \in Nodes : state[i] = "critical" => token = i

EveryRequestServed == \A i \in Nodes : state[i] = "waiting" ~> state[i] = "critical"
=============================================================================
