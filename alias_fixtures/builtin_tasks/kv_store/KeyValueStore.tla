---------------------------- MODULE KeyValueStore ----------------------------
(***************************************************************************)
(* A single-node key-value store with put, delete and get.  Every write   *)
(* to a key bumps that key's version number, and a get remembers the      *)
(* value and version it saw, so that stale reads can be recognised.        *)
(***************************************************************************)
EXTENDS Naturals

CONSTANTS Keys, Vals, NoVal, MaxVersion

ASSUME NoVal \notin Vals
ASSUME MaxVersion \in Nat

VARIABLES store, version, seen

vars == <<store, version, seen>>

Init == /\ store = [k \in Keys |-> NoVal]
        /\ version = [k \in Keys |-> 0]
        /\ seen = [k \in Keys |-> [val |-> NoVal, ver |-> 0]]

Put(k, v) == /\ store' = [store EXCEPT ![k] = v]
             /\ version' = [version EXCEPT ![k] = @ + 1]
             /\ UNCHANGED seen

Delete(k) == /\ store[k] # NoVal
             /\ store' = [store EXCEPT ![k] = NoVal]
             /\ version' = [version EXCEPT ![k] = @ + 1]
             /\ UNCHANGED seen

Get(k) == /\ seen' = [seen EXCEPT ![k] = [val |-> store[k], ver |-> version[k]]]
          /\ UNCHANGED <<store, version>>

Next == \E k \in Keys : \/ \E v \in Vals : Put(k, v)
                        \/ Delete(k)
                        \/ Get(k)

Spec == Init /\ [][Next]_vars

-----------------------------------------------------------------------------
TypeOK == /\ store \in [Keys -> Vals \cup {NoVal}]
          /\ version \in [Keys -> Nat]
          /\ seen \in [Keys -> [val : Vals \cup {NoVal}, ver : Nat]]

\* A read taken at the current version returned the current value.
CurrentReadsAgree == \A k \in Keys : seen[k].ver = version[k] => seen[k].val = store[k]

\* A key that was never written holds no value.
UnwrittenEmpty == \A k \in Keys : version[k] = 0 => store[k] = NoVal

\* A read never comes from the future.
NoFutureReads == \A k \in Keys : seen[k].ver <= version[k]

\* Bounds the model: only finitely many writes per key are explored.
VersionBound == \A k \in Keys : version[k] <= MaxVersion
=============================================================================
