----------------------------- MODULE RingElection -----------------------------
(***************************************************************************)
(* Leader election on a unidirectional ring in the style of Chang and     *)
(* Roberts.  Nodes 1..N sit on a ring; node n sends to node (n % N) + 1.   *)
(* Each node starts by sending its own identifier.  A node forwards an     *)
(* identifier larger than its own, drops a smaller one, and becomes the    *)
(* leader when its own identifier comes back to it.  Channels are          *)
(* unordered and hold sets of identifiers.                                 *)
(***************************************************************************)
EXTENDS Naturals

CONSTANT N

ASSUME N \in Nat /\ N >= 2

Node == 1..N

succ(n) == (n % N) + 1
pred(n) == IF n = 1 THEN N ELSE n - 1

\* Identifiers are a fixed permutation of 1..N (valid when N is odd).
uid[n \in Node] == ((2 * n) % N) + 1

RECURSIVE MaxOf(_)
MaxOf(S) == IF S = {} THEN 0
            ELSE LET x == CHOOSE y \in S : TRUE
                     m == MaxOf(S \ {x})
                 IN  IF x > m THEN x ELSE m

VARIABLES chan, elected

vars == <<chan, elected>>

Init == /\ chan = [n \in Node |-> {uid[pred(n)]}]
        /\ elected = [n \in Node |-> FALSE]

Receive(n) ==
    \E m \in chan[n] :
        LET rest == [chan EXCEPT ![n] = @ \ {m}]
        IN  \/ /\ m > uid[n]
               /\ chan' = [rest EXCEPT ![succ(n)] = @ \cup {m}]
               /\ UNCHANGED elected
            \/ /\ m < uid[n]
               /\ chan' = rest
               /\ UNCHANGED elected
            \/ /\ m = uid[n]
               /\ chan' = rest
               /\ elected' = [elected EXCEPT ![n] = TRUE]

Quiet == /\ \A n \in Node : chan[n] = {}
         /\ UNCHANGED vars

Next == (\E n \in Node : Receive(n)) \/ Quiet

Spec == Init /\ [][Next]_vars /\ \A n \in Node : WF_vars(Receive(n))

-----------------------------------------------------------------------------
TypeOK == /\ chan \in [Node -> SUBSET Node]
          /\ elected \in [Node -> BOOLEAN]

AtMostOneLeader == \A a, b \in Node : elected[a] /\ elected[b] => a = b

LeaderHasMaxId == \A n \in Node : elected[n] => uid[n] = MaxOf({uid[k] : k \in Node})

EventuallyElected == <>(\E n \in Node : elected[n])
=============================================================================
