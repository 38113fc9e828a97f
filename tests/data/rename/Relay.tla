------------------------------ MODULE Relay ------------------------------
(* A PlusCal fixture: labels, a procedure, a macro and processes. The    *)
(* labels are pc values ("Fetch", "Store"), renamed with the labels.     *)
EXTENDS Naturals, Sequences

CONSTANTS Workers, Rounds

(* --algorithm Relay
variables total = 0, queue = << >>;

define
  Busy(w) == pc[w] \in {"Fetch", "Store"}
  Bounded == total <= Rounds * 10
end define;

macro Push(val) begin
  queue := Append(queue, val);
end macro;

procedure Deposit(amount = 0)
variables before = 0;
begin
  Save:
    before := total;
  Add:
    total := before + amount;
    return;
end procedure;

fair process Worker \in Workers
variables round = 0;
begin
  Fetch:
    while round < Rounds do
      round := round + 1;
      Push(self);
  Store:
      call Deposit(round);
  Check:
      if total > Rounds * 10 then goto Fetch; end if;
    end while;
end process;

end algorithm; *)
\* BEGIN TRANSLATION - the hash of the PCal code: PCal-4c334427f48ad4574616f6cb18d5cacc
VARIABLES total, queue, pc, stack

(* define statement *)
Busy(w) == pc[w] \in {"Fetch", "Store"}
Bounded == total <= Rounds * 10

VARIABLES amount, before, round

vars == << total, queue, pc, stack, amount, before, round >>

ProcSet == (Workers)

Init == (* Global variables *)
        /\ total = 0
        /\ queue = << >>
        (* Procedure Deposit *)
        /\ amount = [ self \in ProcSet |-> 0]
        /\ before = [ self \in ProcSet |-> 0]
        (* Process Worker *)
        /\ round = [self \in Workers |-> 0]
        /\ stack = [self \in ProcSet |-> << >>]
        /\ pc = [self \in ProcSet |-> "Fetch"]

Save(self) == /\ pc[self] = "Save"
              /\ before' = [before EXCEPT ![self] = total]
              /\ pc' = [pc EXCEPT ![self] = "Add"]
              /\ UNCHANGED << total, queue, stack, amount, round >>

Add(self) == /\ pc[self] = "Add"
             /\ total' = before[self] + amount[self]
             /\ pc' = [pc EXCEPT ![self] = Head(stack[self]).pc]
             /\ before' = [before EXCEPT ![self] = Head(stack[self]).before]
             /\ amount' = [amount EXCEPT ![self] = Head(stack[self]).amount]
             /\ stack' = [stack EXCEPT ![self] = Tail(stack[self])]
             /\ UNCHANGED << queue, round >>

Deposit(self) == Save(self) \/ Add(self)

Fetch(self) == /\ pc[self] = "Fetch"
               /\ IF round[self] < Rounds
                     THEN /\ round' = [round EXCEPT ![self] = round[self] + 1]
                          /\ queue' = Append(queue, self)
                          /\ pc' = [pc EXCEPT ![self] = "Store"]
                     ELSE /\ pc' = [pc EXCEPT ![self] = "Done"]
                          /\ UNCHANGED << queue, round >>
               /\ UNCHANGED << total, stack, amount, before >>

Store(self) == /\ pc[self] = "Store"
               /\ /\ amount' = [amount EXCEPT ![self] = round[self]]
                  /\ stack' = [stack EXCEPT ![self] = << [ procedure |->  "Deposit",
                                                           pc        |->  "Check",
                                                           before    |->  before[self],
                                                           amount    |->  amount[self] ] >>
                                                       \o stack[self]]
               /\ before' = [before EXCEPT ![self] = 0]
               /\ pc' = [pc EXCEPT ![self] = "Save"]
               /\ UNCHANGED << total, queue, round >>

Check(self) == /\ pc[self] = "Check"
               /\ IF total > Rounds * 10
                     THEN /\ pc' = [pc EXCEPT ![self] = "Fetch"]
                     ELSE /\ pc' = [pc EXCEPT ![self] = "Fetch"]
               /\ UNCHANGED << total, queue, stack, amount, before, round >>

Worker(self) == Fetch(self) \/ Store(self) \/ Check(self)

(* Allow infinite stuttering to prevent deadlock on termination. *)
Terminating == /\ \A self \in ProcSet: pc[self] = "Done"
               /\ UNCHANGED vars

Next == (\E self \in ProcSet: Deposit(self))
           \/ (\E self \in Workers: Worker(self))
           \/ Terminating

Spec == /\ Init /\ [][Next]_vars
        /\ \A self \in Workers : WF_vars(Worker(self)) /\ WF_vars(Deposit(self))

Termination == <>(\A self \in ProcSet: pc[self] = "Done")

\* END TRANSLATION - the hash of the generated TLA code (remove to silence divergence warnings): TLA-5ab6c966e27316b8c4e8d6eaf99da8ab
=============================================================================
