------------------------------ MODULE BoundedFifo ------------------------------
(***************************************************************************)
(* A sender and a receiver connected by a FIFO queue of bounded size.     *)
(* The sender sends sequence numbers 0, 1, 2, ... modulo Limit; the        *)
(* receiver checks that they arrive in the order they were sent.           *)
(***************************************************************************)
EXTENDS Naturals, Sequences

CONSTANTS Size, Limit

ASSUME Size \in Nat \ {0} /\ Limit \in Nat /\ Limit > Size

VARIABLES q, nxt, expect

vars == <<q, nxt, expect>>

\* The queue contents the receiver expects when it holds n messages.
Expected[n \in 0..Size] == [i \in 1..n |-> (expect + i - 1) % Limit]

Init == /\ q = <<>>
        /\ nxt = 0
        /\ expect = 0

Enq == /\ Len(q) < Size
       /\ q' = Append(q, nxt)
       /\ nxt' = (nxt + 1) % Limit
       /\ UNCHANGED expect

Deq == /\ q # <<>>
       /\ q' = Tail(q)
       /\ expect' = (Head(q) + 1) % Limit
       /\ UNCHANGED nxt

Next == Enq \/ Deq

Spec == Init /\ [][Next]_vars /\ WF_vars(Enq) /\ WF_vars(Deq)

-----------------------------------------------------------------------------
TypeOK == /\ q \in Seq(0..(Limit - 1))
          /\ Len(q) <= Size
          /\ nxt \in 0..(Limit - 1)
          /\ expect \in 0..(Limit - 1)

InOrder == /\ q = Expected[Len(q)]
           /\ nxt = (expect + Len(q)) % Limit

FullQueueDrains == Len(q) = Size ~> Len(q) < Size
=============================================================================
