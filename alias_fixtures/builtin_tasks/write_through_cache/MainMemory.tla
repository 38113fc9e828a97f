------------------------------ MODULE MainMemory ------------------------------
(***************************************************************************)
(* The simplest memory: a map from addresses to values in which, at each  *)
(* step, one address is overwritten with some value.                       *)
(***************************************************************************)
CONSTANTS Addrs, Vals

VARIABLE mem

Init == mem \in [Addrs -> Vals]

Store(a, v) == mem' = [mem EXCEPT ![a] = v]

Next == \E a \in Addrs, v \in Vals : Store(a, v)

Spec == Init /\ [][Next]_mem
=============================================================================
