-------------------------- MODULE Features --------------------------
(* Exercises the identifier kinds CIR renames. The word Limit in    *)
(* this comment, and "Limit" in strings, are never renamed.          *)
EXTENDS Naturals, Sequences, FiniteSets, TLC
CONSTANTS MaxVal, Nodes
VARIABLES counter, log, msg

LOCAL Helper(x) == x + 1
RECURSIVE SumTo(_)
SumTo(n) == IF n = 0 THEN 0 ELSE n + SumTo(n - 1)
fact[i \in 0..MaxVal] == IF i = 0 THEN 1 ELSE i * fact[i - 1]

B == INSTANCE Base WITH Limit <- MaxVal, count <- counter
Title == "Limit reached"

TypeOK ==
  /\ counter \in 0..MaxVal
  /\ log \in Seq(Nodes)
  /\ msg \in [kind : {"ping", "pong"}, counter : 0..MaxVal]

Init ==
  /\ counter = 0
  /\ log = << >>
  /\ msg = [kind |-> "ping", counter |-> 0]

Step(n) ==
  LET nxt == Helper(counter)
      Ok(v) == B!Within(v)
  IN  /\ Len(log) < MaxVal
      /\ B!Bump
      /\ log' = Append(log, n)
      /\ msg' = [msg EXCEPT !.counter = IF Ok(nxt) THEN nxt ELSE 0,
                            !.kind = "pong"]

vars == << counter, log, msg >>
Finish == Len(log) >= MaxVal /\ UNCHANGED vars
Next == (\E n \in Nodes : Step(n)) \/ Finish
Spec == Init /\ [][Next]_vars /\ WF_vars(Next)

Bounded == lbl:: counter <= MaxVal /\ SumTo(2) = 3 /\ fact[2] = 2
Named == Bounded!lbl
Chosen == CHOOSE s \in SUBSET Nodes : Cardinality(s) = 1
THEOREM Safe == Spec => []TypeOK
=====================================================================
