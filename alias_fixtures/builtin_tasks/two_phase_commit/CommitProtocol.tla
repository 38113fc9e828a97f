---------------------------- MODULE CommitProtocol ----------------------------
(***************************************************************************)
(* Two-phase commit with a single transaction manager (TM) and a set RM of *)
(* resource managers.  Every resource manager casts a ballot; the TM       *)
(* commits when every ballot is "yes" and aborts as soon as one is "no".   *)
(* Prepared resource managers then learn the outcome.                      *)
(***************************************************************************)
CONSTANT RM

VARIABLES rmState, ballot, decision

vars == <<rmState, ballot, decision>>

Init == /\ rmState = [r \in RM |-> "working"]
        /\ ballot = [r \in RM |-> "none"]
        /\ decision = "none"

VoteYes(r) == /\ rmState[r] = "working"
              /\ rmState' = [rmState EXCEPT ![r] = "prepared"]
              /\ ballot' = [ballot EXCEPT ![r] = "yes"]
              /\ UNCHANGED decision

VoteNo(r) == /\ rmState[r] = "working"
             /\ rmState' = [rmState EXCEPT ![r] = "aborted"]
             /\ ballot' = [ballot EXCEPT ![r] = "no"]
             /\ UNCHANGED decision

Learn(r) == /\ rmState[r] = "prepared"
            /\ decision # "none"
            /\ rmState' = [rmState EXCEPT ![r] =
                              IF decision = "commit" THEN "committed" ELSE "aborted"]
            /\ UNCHANGED <<ballot, decision>>

TMCommit == /\ decision = "none"
            /\ \A r \in RM : ballot[r] = "yes"
            /\ decision' = "commit"
            /\ UNCHANGED <<rmState, ballot>>

TMAbort == /\ decision = "none"
           /\ \E r \in RM : ballot[r] = "no"
           /\ decision' = "abort"
           /\ UNCHANGED <<rmState, ballot>>

RMStep(r) == VoteYes(r) \/ VoteNo(r) \/ Learn(r)

TMStep == TMCommit \/ TMAbort

Next == TMStep \/ \E r \in RM : RMStep(r)

Spec == /\ Init /\ [][Next]_vars
        /\ WF_vars(TMStep)
        /\ \A r \in RM : WF_vars(RMStep(r))

-----------------------------------------------------------------------------
TypeOK == /\ rmState \in [RM -> {"working", "prepared", "committed", "aborted"}]
          /\ ballot \in [RM -> {"none", "yes", "no"}]
          /\ decision \in {"none", "commit", "abort"}

Consistent == \A r1, r2 \in RM : ~(rmState[r1] = "committed" /\ rmState[r2] = "aborted")

CommitNeedsAllYes == (\E r \in RM : rmState[r] = "committed") => \A r \in RM : ballot[r] = "yes"

AllFinish == <>(\A r \in RM : rmState[r] \in {"committed", "aborted"})
=============================================================================
