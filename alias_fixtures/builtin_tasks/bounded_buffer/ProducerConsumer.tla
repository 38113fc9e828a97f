--------------------------- MODULE ProducerConsumer ---------------------------
(***************************************************************************)
(* One producer and one consumer share a bounded buffer.  The producer     *)
(* makes an item and then deposits it when there is room; the consumer     *)
(* removes the oldest item and then uses it.                               *)
(***************************************************************************)
EXTENDS Naturals, Sequences

CONSTANTS Capacity, Items, None

ASSUME Capacity \in Nat \ {0}
ASSUME None \notin Items

VARIABLES buffer, made, held

vars == <<buffer, made, held>>

Init == /\ buffer = <<>>
        /\ made = None
        /\ held = None

Produce == /\ made = None
           /\ \E i \in Items : made' = i
           /\ UNCHANGED <<buffer, held>>

Deposit == /\ made # None
           /\ Len(buffer) < Capacity
           /\ buffer' = Append(buffer, made)
           /\ made' = None
           /\ UNCHANGED held

Fetch == /\ held = None
         /\ buffer # <<>>
         /\ held' = Head(buffer)
         /\ buffer' = Tail(buffer)
         /\ UNCHANGED made

Consume == /\ held # None
           /\ held' = None
           /\ UNCHANGED <<buffer, made>>

Producer == Produce \/ Deposit
Consumer == Fetch \/ Consume

Next == Producer \/ Consumer

Spec == /\ Init /\ [][Next]_vars
        /\ WF_vars(Producer)
        /\ WF_vars(Consumer)

-----------------------------------------------------------------------------
TypeOK == /\ buffer \in Seq(Items)
          /\ made \in Items \cup {None}
          /\ held \in Items \cup {None}

NoOverflow == Len(buffer) <= Capacity

\* An item that has been made is eventually deposited.
ProducerProgress == (made # None) ~> (made = None)
=============================================================================
