---- MODULE MCBag ----
\* The model: Items through a definition built from another one, Seq and Slot bounded.
EXTENDS Bag
CONSTANT NoItem
Size == 2
MCItems == 1 .. Size
MCSlot(i) == IF i = 1 THEN 2 ELSE i
BoundedSeq(S) == UNION {[1 .. n -> S] : n \in 0 .. Cap}
Bounded == count <= 4
====
