------------------------------ MODULE TicketLock ------------------------------
(***************************************************************************)
(* A ticket lock, the simplest relative of Lamport's bakery algorithm.  A *)
(* process takes the next ticket from a dispenser and waits until the      *)
(* "now serving" display shows its number; leaving the critical section    *)
(* advances the display.  Ticket numbers wrap around modulo TicketSpace,   *)
(* which must exceed the number of processes.                              *)
(***************************************************************************)
EXTENDS Naturals, FiniteSets

CONSTANTS Procs, TicketSpace

ASSUME TicketSpace \in Nat /\ TicketSpace > Cardinality(Procs)

Tickets == 0..(TicketSpace - 1)

VARIABLES nextTicket, serving, ticket, pc

vars == <<nextTicket, serving, ticket, pc>>

Incr(n) == (n + 1) % TicketSpace

Init == /\ nextTicket = 0
        /\ serving = 0
        /\ ticket = [p \in Procs |-> 0]
        /\ pc = [p \in Procs |-> "idle"]

TakeTicket(p) == /\ pc[p] = "idle"
                 /\ ticket' = [ticket EXCEPT ![p] = nextTicket]
                 /\ nextTicket' = Incr(nextTicket)
                 /\ pc' = [pc EXCEPT ![p] = "waiting"]
                 /\ UNCHANGED serving

Enter(p) == /\ pc[p] = "waiting"
            /\ ticket[p] = serving
            /\ pc' = [pc EXCEPT ![p] = "cs"]
            /\ UNCHANGED <<nextTicket, serving, ticket>>

Leave(p) == /\ pc[p] = "cs"
            /\ serving' = Incr(serving)
            /\ pc' = [pc EXCEPT ![p] = "idle"]
            /\ ticket' = [ticket EXCEPT ![p] = 0]
            /\ UNCHANGED nextTicket

Next == \E p \in Procs : TakeTicket(p) \/ Enter(p) \/ Leave(p)

Spec == /\ Init /\ [][Next]_vars
        /\ \A p \in Procs : WF_vars(Enter(p)) /\ WF_vars(Leave(p))

-----------------------------------------------------------------------------
Active == {p \in Procs : pc[p] # "idle"}

TypeOK == /\ nextTicket \in Tickets
          /\ serving \in Tickets
          /\ ticket \in [Procs -> Tickets]
          /\ pc \in [Procs -> {"idle", "waiting", "cs"}]

MutualExclusion == \A p, q \in Procs : pc[p] = "cs" /\ pc[q] = "cs" => p = q

UniqueTickets == \A p, q \in Active : ticket[p] = ticket[q] => p = q

QueueMatches == (nextTicket + TicketSpace - serving) % TicketSpace = Cardinality(Active)

NoStarvation == \A p \in Procs : pc[p] = "waiting" ~> pc[p] = "cs"
=============================================================================
