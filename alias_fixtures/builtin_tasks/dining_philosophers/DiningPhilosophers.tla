-------------------------- MODULE DiningPhilosophers --------------------------
(***************************************************************************)
(* N philosophers around a table with one fork between each pair of      *)
(* neighbours.  Philosopher p uses forks p and (p + 1) % N and always      *)
(* picks up the lower-numbered of the two first, which rules out the       *)
(* circular wait that would otherwise cause a deadlock.                    *)
(***************************************************************************)
EXTENDS Naturals

CONSTANT N

ASSUME N \in Nat /\ N >= 2

Phils == 0..(N - 1)
Forks == 0..(N - 1)

LeftFork(p)  == p
RightFork(p) == (p + 1) % N
First(p)  == IF LeftFork(p) < RightFork(p) THEN LeftFork(p) ELSE RightFork(p)
Second(p) == IF LeftFork(p) < RightFork(p) THEN RightFork(p) ELSE LeftFork(p)

VARIABLES state, holding

vars == <<state, holding>>

IsFree(f) == \A p \in Phils : f \notin holding[p]

Init == /\ state = [p \in Phils |-> "thinking"]
        /\ holding = [p \in Phils |-> {}]

BecomeHungry(p) == /\ state[p] = "thinking"
                   /\ state' = [state EXCEPT ![p] = "hungry"]
                   /\ UNCHANGED holding

TakeFirst(p) == /\ state[p] = "hungry"
                /\ holding[p] = {}
                /\ IsFree(First(p))
                /\ holding' = [holding EXCEPT ![p] = {First(p)}]
                /\ UNCHANGED state

TakeSecond(p) == /\ state[p] = "hungry"
                 /\ holding[p] = {First(p)}
                 /\ IsFree(Second(p))
                 /\ holding' = [holding EXCEPT ![p] = @ \cup {Second(p)}]
                 /\ state' = [state EXCEPT ![p] = "eating"]

PutDown(p) == /\ state[p] = "eating"
              /\ holding' = [holding EXCEPT ![p] = {}]
              /\ state' = [state EXCEPT ![p] = "thinking"]

Next == \E p \in Phils : \/ BecomeHungry(p)
                         \/ TakeFirst(p)
                         \/ TakeSecond(p)
                         \/ PutDown(p)

Spec == /\ Init /\ [][Next]_vars
        /\ \A p \in Phils : /\ SF_vars(TakeFirst(p))
                            /\ SF_vars(TakeSecond(p))
                            /\ WF_vars(PutDown(p))

-----------------------------------------------------------------------------
TypeOK == /\ state \in [Phils -> {"thinking", "hungry", "eating"}]
          /\ holding \in [Phils -> SUBSET Forks]

ForkHeldOnce == \A p, q \in Phils : p # q => holding[p] \cap holding[q] = {}

EatWithBothForks == \A p \in Phils :
                        state[p] = "eating" => holding[p] = {LeftFork(p), RightFork(p)}

HungryEventuallyEat == \A p \in Phils : state[p] = "hungry" ~> state[p] = "eating"
=============================================================================
