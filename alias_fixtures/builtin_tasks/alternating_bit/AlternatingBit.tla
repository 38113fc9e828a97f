---------------------------- MODULE AlternatingBit ----------------------------
(***************************************************************************)
(* The alternating bit protocol over two lossy FIFO channels.  The sender *)
(* keeps retransmitting its current value tagged with its bit until it     *)
(* receives an acknowledgement carrying that bit; the receiver delivers a  *)
(* value when the tag matches the bit it expects, and keeps acknowledging  *)
(* the last bit it delivered.                                              *)
(***************************************************************************)
EXTENDS Naturals, Sequences

CONSTANTS Data, MaxQueue

ASSUME MaxQueue \in Nat

VARIABLES sBit, sVal, rBit, rVal, msgChan, ackChan

vars == <<sBit, sVal, rBit, rVal, msgChan, ackChan>>

Flip(b) == 1 - b

\* Remove the i-th element of a sequence.
Drop(s, i) == [j \in 1..(Len(s) - 1) |-> IF j < i THEN s[j] ELSE s[j + 1]]

Init == /\ sBit = 0
        /\ sVal \in Data
        /\ rBit = 0
        /\ rVal \in Data
        /\ msgChan = <<>>
        /\ ackChan = <<>>

SendMsg == /\ msgChan' = Append(msgChan, [bit |-> sBit, val |-> sVal])
           /\ UNCHANGED <<sBit, sVal, rBit, rVal, ackChan>>

RcvMsg == /\ msgChan # <<>>
          /\ msgChan' = Tail(msgChan)
          /\ IF Head(msgChan).bit = rBit
                THEN /\ rVal' = Head(msgChan).val
                     /\ rBit' = Flip(rBit)
                ELSE UNCHANGED <<rVal, rBit>>
          /\ UNCHANGED <<sBit, sVal, ackChan>>

SendAck == /\ ackChan' = Append(ackChan, Flip(rBit))
           /\ UNCHANGED <<sBit, sVal, rBit, rVal, msgChan>>

RcvAck == /\ ackChan # <<>>
          /\ ackChan' = Tail(ackChan)
          /\ IF Head(ackChan) = sBit
                THEN /\ sBit' = Flip(sBit)
                     /\ sVal' \in Data
                ELSE UNCHANGED <<sBit, sVal>>
          /\ UNCHANGED <<rBit, rVal, msgChan>>

LoseMsg == /\ \E i \in 1..Len(msgChan) : msgChan' = Drop(msgChan, i)
           /\ UNCHANGED <<sBit, sVal, rBit, rVal, ackChan>>

LoseAck == /\ \E i \in 1..Len(ackChan) : ackChan' = Drop(ackChan, i)
           /\ UNCHANGED <<sBit, sVal, rBit, rVal, msgChan>>

Next == \/ SendMsg \/ RcvMsg \/ SendAck \/ RcvAck
        \/ LoseMsg \/ LoseAck

Spec == Init /\ [][Next]_vars

-----------------------------------------------------------------------------
TypeOK == /\ sBit \in {0, 1} /\ rBit \in {0, 1}
          /\ sVal \in Data /\ rVal \in Data
          /\ msgChan \in Seq([bit : {0, 1}, val : Data])
          /\ ackChan \in Seq({0, 1})

\* Once the receiver has moved past the sender's bit, it holds the sender's value.
Delivered == rBit # sBit => rVal = sVal

\* Every message tagged with the sender's current bit carries its current value.
NoStaleMessages == \A i \in 1..Len(msgChan) :
                       msgChan[i].bit = sBit => msgChan[i].val = sVal

ChannelBound == Len(msgChan) <= MaxQueue /\ Len(ackChan) <= MaxQueue
=============================================================================
