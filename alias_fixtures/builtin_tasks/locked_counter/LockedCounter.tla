---------------------------- MODULE LockedCounter ----------------------------
(***************************************************************************)
(* Several workers each increment a shared counter Rounds times.  An      *)
(* increment is not atomic (read, then write), so it is protected by a     *)
(* spin lock; the increment is written as a PlusCal procedure.             *)
(***************************************************************************)
EXTENDS Naturals, Sequences, FiniteSets

CONSTANTS Workers, Rounds

ASSUME Rounds \in Nat

(* --algorithm LockedCounter
variables counter = 0, lock = FALSE;

procedure Increment()
variable tmp = 0;
begin
  Acquire:
    await ~lock;
    lock := TRUE;
  ReadCtr:
    tmp := counter;
  WriteCtr:
    counter := tmp + 1;
  Release:
    lock := FALSE;
    return;
end procedure;

fair process Worker \in Workers
variable done = 0;
begin
  Work:
    while done < Rounds do
      call Increment();
  Count:
      done := done + 1;
    end while;
end process;
end algorithm *)
\* BEGIN TRANSLATION
VARIABLES counter, lock, pc, stack, tmp, done

vars == << counter, lock, pc, stack, tmp, done >>

ProcSet == (Workers)

Init == (* Global variables *)
        /\ counter = 0
        /\ lock = FALSE
        (* Procedure Increment *)
        /\ tmp = [ self \in ProcSet |-> 0]
        (* Process Worker *)
        /\ done = [self \in Workers |-> 0]
        /\ stack = [self \in ProcSet |-> << >>]
        /\ pc = [self \in ProcSet |-> "Work"]

Acquire(self) == /\ pc[self] = "Acquire"
                 /\ ~lock
                 /\ lock' = TRUE
                 /\ pc' = [pc EXCEPT ![self] = "ReadCtr"]
                 /\ UNCHANGED << counter, stack, tmp, done >>

ReadCtr(self) == /\ pc[self] = "ReadCtr"
                 /\ tmp' = [tmp EXCEPT ![self] = counter]
                 /\ pc' = [pc EXCEPT ![self] = "WriteCtr"]
                 /\ UNCHANGED << counter, lock, stack, done >>

WriteCtr(self) == /\ pc[self] = "WriteCtr"
                  /\ counter' = tmp[self] + 1
                  /\ pc' = [pc EXCEPT ![self] = "Release"]
                  /\ UNCHANGED << lock, stack, tmp, done >>

Release(self) == /\ pc[self] = "Release"
                 /\ lock' = FALSE
                 /\ pc' = [pc EXCEPT ![self] = Head(stack[self]).pc]
                 /\ tmp' = [tmp EXCEPT ![self] = Head(stack[self]).tmp]
                 /\ stack' = [stack EXCEPT ![self] = Tail(stack[self])]
                 /\ UNCHANGED << counter, done >>

Increment(self) == Acquire(self) \/ ReadCtr(self) \/ WriteCtr(self)
                      \/ Release(self)

Work(self) == /\ pc[self] = "Work"
              /\ IF done[self] < Rounds
                    THEN /\ stack' = [stack EXCEPT ![self] = << [ procedure |->  "Increment",
                                                                  pc        |->  "Count",
                                                                  tmp       |->  tmp[self] ] >>
                                                              \o stack[self]]
                         /\ tmp' = [tmp EXCEPT ![self] = 0]
                         /\ pc' = [pc EXCEPT ![self] = "Acquire"]
                    ELSE /\ pc' = [pc EXCEPT ![self] = "Done"]
                         /\ UNCHANGED << stack, tmp >>
              /\ UNCHANGED << counter, lock, done >>

Count(self) == /\ pc[self] = "Count"
               /\ done' = [done EXCEPT ![self] = done[self] + 1]
               /\ pc' = [pc EXCEPT ![self] = "Work"]
               /\ UNCHANGED << counter, lock, stack, tmp >>

Worker(self) == Work(self) \/ Count(self)

(* Allow infinite stuttering to prevent deadlock on termination. *)
Terminating == /\ \A self \in ProcSet: pc[self] = "Done"
               /\ UNCHANGED vars

Next == (\E self \in ProcSet: Increment(self))
           \/ (\E self \in Workers: Worker(self))
           \/ Terminating

Spec == /\ Init /\ [][Next]_vars
        /\ \A self \in Workers : WF_vars(Worker(self)) /\ WF_vars(Increment(self))

Termination == <>(\A self \in ProcSet: pc[self] = "Done")

\* END TRANSLATION

Holding == {w \in Workers : pc[w] \in {"ReadCtr", "WriteCtr", "Release"}}

LockConsistent == /\ Cardinality(Holding) <= 1
                  /\ lock = (Holding # {})

RECURSIVE SumDone(_)
\* The sum of done[w] over the workers in S.
SumDone(S) == IF S = {} THEN 0
              ELSE LET w == CHOOSE x \in S : TRUE
                   IN  done[w] + SumDone(S \ {w})

\* Increments that have been written but not yet counted by their worker.
Uncounted == {w \in Workers : pc[w] \in {"Release", "Count"}}

NoLostUpdate == counter = SumDone(Workers) + Cardinality(Uncounted)

CountCorrect == (\A w \in Workers : pc[w] = "Done") => counter = Rounds * Cardinality(Workers)
=============================================================================
