---- MODULE Dials ----
\* Benchmark spec written for ALIAS: five dials, each turned up or down one step at a time.
\* 10^5 distinct states, about 10^6 generated.
EXTENDS Naturals
CONSTANTS Dials, Top
VARIABLE dial
Init == dial = [d \in Dials |-> 0]
Up(d) == dial[d] < Top /\ dial' = [dial EXCEPT ![d] = @ + 1]
Down(d) == dial[d] > 0 /\ dial' = [dial EXCEPT ![d] = @ - 1]
Next == \E d \in Dials : Up(d) \/ Down(d)
Spec == Init /\ [][Next]_dial
TypeOK == dial \in [Dials -> 0..Top]
====
