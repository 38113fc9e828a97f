------------------------------ MODULE LockServer ------------------------------
(***************************************************************************)
(* A lock server grants one lock to clients that ask for it by message.   *)
(* The network is a set of messages; each client has at most one message  *)
(* of each kind outstanding, so a set is enough.                           *)
(***************************************************************************)
EXTENDS FiniteSets, Naturals

CONSTANTS Clients, Nobody

ASSUME Nobody \notin Clients

VARIABLES msgs, owner, cstate

vars == <<msgs, owner, cstate>>

Msg == [type : {"acquire", "grant", "release"}, client : Clients]

Init == /\ msgs = {}
        /\ owner = Nobody
        /\ cstate = [c \in Clients |-> "idle"]

Ask(c) == /\ cstate[c] = "idle"
          /\ cstate' = [cstate EXCEPT ![c] = "asking"]
          /\ msgs' = msgs \cup {[type |-> "acquire", client |-> c]}
          /\ UNCHANGED owner

Grant(c) == LET m == [type |-> "acquire", client |-> c]
            IN  /\ m \in msgs
                /\ owner = Nobody
                /\ owner' = c
                /\ msgs' = (msgs \ {m}) \cup {[type |-> "grant", client |-> c]}
                /\ UNCHANGED cstate

Obtain(c) == LET m == [type |-> "grant", client |-> c]
             IN  /\ m \in msgs
                 /\ cstate' = [cstate EXCEPT ![c] = "holding"]
                 /\ msgs' = msgs \ {m}
                 /\ UNCHANGED owner

Release(c) == /\ cstate[c] = "holding"
              /\ cstate' = [cstate EXCEPT ![c] = "idle"]
              /\ msgs' = msgs \cup {[type |-> "release", client |-> c]}
              /\ UNCHANGED owner

Reclaim(c) == LET m == [type |-> "release", client |-> c]
              IN  /\ m \in msgs
                  /\ owner = c
                  /\ owner' = Nobody
                  /\ msgs' = msgs \ {m}
                  /\ UNCHANGED cstate

Next == \E c \in Clients : \/ Ask(c) \/ Grant(c) \/ Obtain(c)
                           \/ Release(c) \/ Reclaim(c)

Spec == /\ Init /\ [][Next]_vars
        /\ \A c \in Clients : /\ SF_vars(Grant(c))
                              /\ WF_vars(Obtain(c))
                              /\ WF_vars(Release(c))
                              /\ WF_vars(Reclaim(c))

-----------------------------------------------------------------------------
TypeOK == /\ msgs \subseteq Msg
          /\ owner \in Clients \cup {Nobody}
          /\ cstate \in [Clients -> {"idle", "asking", "holding"}]

MutualExclusion == Cardinality({c \in Clients : cstate[c] = "holding"}) <= 1

OwnerAgrees == \A c \in Clients : cstate[c] = "holding" => owner = c

EventuallyGranted == \A c \in Clients : cstate[c] = "asking" ~> cstate[c] = "holding"
=============================================================================
