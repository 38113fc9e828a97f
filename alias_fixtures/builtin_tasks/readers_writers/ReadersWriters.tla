---------------------------- MODULE ReadersWriters ----------------------------
(***************************************************************************)
(* Readers and writers sharing one resource, with writer preference: once *)
(* a writer is queued no new reader may start, so writers cannot starve.   *)
(***************************************************************************)
EXTENDS Naturals, FiniteSets

CONSTANTS Readers, Writers

ASSUME Readers \cap Writers = {}

VARIABLES reading, writing, queued

vars == <<reading, writing, queued>>

LOCAL Busy(w) == w \in writing \cup queued

Init == /\ reading = {}
        /\ writing = {}
        /\ queued = {}

StartRead(r) == /\ r \notin reading
                /\ writing = {}
                /\ queued = {}
                /\ reading' = reading \cup {r}
                /\ UNCHANGED <<writing, queued>>

EndRead(r) == /\ r \in reading
              /\ reading' = reading \ {r}
              /\ UNCHANGED <<writing, queued>>

WantWrite(w) == /\ ~Busy(w)
                /\ queued' = queued \cup {w}
                /\ UNCHANGED <<reading, writing>>

StartWrite(w) == /\ w \in queued
                 /\ reading = {}
                 /\ writing = {}
                 /\ writing' = {w}
                 /\ queued' = queued \ {w}
                 /\ UNCHANGED reading

EndWrite(w) == /\ w \in writing
               /\ writing' = {}
               /\ UNCHANGED <<reading, queued>>

Next == \/ \E r \in Readers : StartRead(r) \/ EndRead(r)
        \/ \E w \in Writers : WantWrite(w) \/ StartWrite(w) \/ EndWrite(w)

Spec == /\ Init /\ [][Next]_vars
        /\ \A r \in Readers : WF_vars(EndRead(r))
        /\ \A w \in Writers : SF_vars(StartWrite(w)) /\ WF_vars(EndWrite(w))

-----------------------------------------------------------------------------
TypeOK == /\ reading \subseteq Readers
          /\ writing \subseteq Writers
          /\ queued \subseteq Writers

NoReadDuringWrite == reading = {} \/ writing = {}

SingleWriter == Cardinality(writing) <= 1

WritersProceed == \A w \in Writers : w \in queued ~> w \in writing
=============================================================================
