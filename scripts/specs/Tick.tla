---- MODULE Tick ----
\* Benchmark spec written for ALIAS: a 12-state clock.
EXTENDS Naturals
VARIABLE hour
Init == hour \in 1..12
Next == hour' = IF hour = 12 THEN 1 ELSE hour + 1
Spec == Init /\ [][Next]_hour
TypeOK == hour \in 1..12
====
