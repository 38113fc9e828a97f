------------------------------ MODULE WaterJugs ------------------------------
(***************************************************************************)
(* A water-jug puzzle in the style of the one in "Die Hard 3", for any    *)
(* number of jugs.  Capacity is a tuple of jug sizes; a jug can be filled *)
(* from the tap, emptied onto the ground, or poured into another jug until *)
(* the source is empty or the target is full.  The amount in every jug is  *)
(* always a multiple of the greatest common divisor of the sizes.          *)
(***************************************************************************)
EXTENDS Naturals, Sequences

CONSTANT Capacity

\* The jug sizes used by the model (the cfg binds Capacity to this tuple).
JugSizes == <<4, 6, 10>>

Jugs == DOMAIN Capacity

Min(a, b) == IF a < b THEN a ELSE b

RECURSIVE Gcd(_, _)
Gcd(a, b) == IF b = 0 THEN a ELSE Gcd(b, a % b)

RECURSIVE GcdFrom(_)
\* The gcd of Capacity[1], ..., Capacity[n].
GcdFrom(n) == IF n = 1 THEN Capacity[1] ELSE Gcd(GcdFrom(n - 1), Capacity[n])

Unit == GcdFrom(Len(Capacity))

VARIABLE water

vars == <<water>>

Init == water = [j \in Jugs |-> 0]

Fill(j) == water' = [water EXCEPT ![j] = Capacity[j]]

Empty(j) == water' = [water EXCEPT ![j] = 0]

Pour(i, k) == LET amount == Min(water[i], Capacity[k] - water[k])
              IN  water' = [water EXCEPT ![i] = @ - amount, ![k] = @ + amount]

Next == \E j \in Jugs : \/ Fill(j)
                        \/ Empty(j)
                        \/ \E k \in Jugs \ {j} : Pour(j, k)

Spec == Init /\ [][Next]_vars

-----------------------------------------------------------------------------
TypeOK == water \in [Jugs -> 0..20] /\ \A j \in Jugs : water[j] <= Capacity[j]

MultipleOfGcd == \A j \in Jugs : water[j] % Unit = 0
=============================================================================
