---- MODULE Bag ----
\* A bag of items drawn from a set of sequences; Slot is a constant operator.
EXTENDS Naturals, Sequences
CONSTANTS Items, Cap, Slot(_)
VARIABLES bag, count
Empty == CHOOSE e : e \notin Items
Init == bag \in {s \in Seq(Items) : Len(s) = 0} /\ count = 0
Add(i) == /\ Len(bag) < Cap
          /\ bag' = Append(bag, Slot(i))
          /\ count' = count + 1
Drop == /\ bag # <<>> /\ Head(bag) # Empty
        /\ bag' = Tail(bag)
        /\ count' = count
Next == (\E i \in Items : Add(i)) \/ Drop
Stay == UNCHANGED <<bag, count>>
Frozen == Init /\ [][Stay]_<<bag, count>>
Spec == Frozen
Bag == Init /\ [][Next]_<<bag, count>>
TypeOK == bag \in Seq(Items \cup {Empty}) /\ count \in 0 .. Cap * 3
====
