------------------------------ MODULE Peterson ------------------------------
(***************************************************************************)
(* Peterson's mutual exclusion algorithm for two processes, numbered 0 and *)
(* 1, written in PlusCal.  A process announces its interest, gives the     *)
(* turn away, and spins until the other process is not interested or the   *)
(* turn has come back to it.                                               *)
(***************************************************************************)
EXTENDS Naturals

Other(i) == 1 - i

(* --algorithm Peterson
variables interested = [i \in {0, 1} |-> FALSE],
          turn = 0;

fair process Proc \in {0, 1}
begin
  idle:
    while TRUE do
      announce:
        interested[self] := TRUE;
      giveWay:
        turn := Other(self);
      spin:
        await ~interested[Other(self)] \/ turn = self;
      critical:
        skip;
      leave:
        interested[self] := FALSE;
    end while;
end process;
end algorithm *)
\* BEGIN TRANSLATION
VARIABLES interested, turn, pc

vars == << interested, turn, pc >>

ProcSet == ({0, 1})

Init == (* Global variables *)
        /\ interested = [i \in {0, 1} |-> FALSE]
        /\ turn = 0
        /\ pc = [self \in ProcSet |-> "idle"]

idle(self) == /\ pc[self] = "idle"
              /\ pc' = [pc EXCEPT ![self] = "announce"]
              /\ UNCHANGED << interested, turn >>

announce(self) == /\ pc[self] = "announce"
                  /\ interested' = [interested EXCEPT ![self] = TRUE]
                  /\ pc' = [pc EXCEPT ![self] = "giveWay"]
                  /\ turn' = turn

giveWay(self) == /\ pc[self] = "giveWay"
                 /\ turn' = Other(self)
                 /\ pc' = [pc EXCEPT ![self] = "spin"]
                 /\ UNCHANGED interested

spin(self) == /\ pc[self] = "spin"
              /\ ~interested[Other(self)] \/ turn = self
              /\ pc' = [pc EXCEPT ![self] = "critical"]
              /\ UNCHANGED << interested, turn >>

critical(self) == /\ pc[self] = "critical"
                  /\ TRUE
                  /\ pc' = [pc EXCEPT ![self] = "leave"]
                  /\ UNCHANGED << interested, turn >>

leave(self) == /\ pc[self] = "leave"
               /\ interested' = [interested EXCEPT ![self] = FALSE]
               /\ pc' = [pc EXCEPT ![self] = "idle"]
               /\ turn' = turn

Proc(self) == idle(self) \/ announce(self) \/ giveWay(self) \/ spin(self)
                 \/ critical(self) \/ leave(self)

Next == (\E self \in {0, 1}: Proc(self))

Spec == /\ Init /\ [][Next]_vars
        /\ \A self \in {0, 1} : WF_vars(Proc(self))

\* END TRANSLATION

InCritical(i) == pc[i] = "critical"

TypeOK == /\ interested \in [{0, 1} -> BOOLEAN]
          /\ turn \in {0, 1}
          /\ pc \in [{0, 1} -> {"idle", "announce", "giveWay", "spin", "critical", "leave"}]

MutualExclusion == ~(InCritical(0) /\ InCritical(1))

NoStarvation == \A i \in {0, 1} : (pc[i] = "announce") ~> InCritical(i)
=============================================================================
