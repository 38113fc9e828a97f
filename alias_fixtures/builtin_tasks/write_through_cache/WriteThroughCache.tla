--------------------------- MODULE WriteThroughCache ---------------------------
(***************************************************************************)
(* Processors with private write-through caches in front of one shared    *)
(* memory.  A write goes to the memory and to the writer's cache at once  *)
(* and invalidates the other caches' copies of that address.  Seen through *)
(* the memory alone, the system behaves like the plain memory MainMemory.  *)
(***************************************************************************)
CONSTANTS Procs, Addrs, Vals, Invalid

ASSUME Invalid \notin Vals

VARIABLES memory, cache

vars == <<memory, cache>>

Mem == INSTANCE MainMemory WITH mem <- memory

Init == /\ memory \in [Addrs -> Vals]
        /\ cache = [p \in Procs |-> [a \in Addrs |-> Invalid]]

Load(p, a) == /\ cache[p][a] = Invalid
              /\ cache' = [cache EXCEPT ![p][a] = memory[a]]
              /\ UNCHANGED memory

Write(p, a, v) ==
    /\ memory' = [memory EXCEPT ![a] = v]
    /\ cache' = [q \in Procs |->
                    IF q = p THEN [cache[q] EXCEPT ![a] = v]
                             ELSE [cache[q] EXCEPT ![a] = Invalid]]

Evict(p, a) == /\ cache[p][a] # Invalid
               /\ cache' = [cache EXCEPT ![p][a] = Invalid]
               /\ UNCHANGED memory

Next == \E p \in Procs, a \in Addrs :
            \/ Load(p, a)
            \/ Evict(p, a)
            \/ \E v \in Vals : Write(p, a, v)

Spec == Init /\ [][Next]_vars

-----------------------------------------------------------------------------
TypeOK == /\ memory \in [Addrs -> Vals]
          /\ cache \in [Procs -> [Addrs -> Vals \cup {Invalid}]]

Coherent == \A p \in Procs, a \in Addrs : cache[p][a] \in {Invalid, memory[a]}

ImplementsMemory == Mem!Spec
=============================================================================
