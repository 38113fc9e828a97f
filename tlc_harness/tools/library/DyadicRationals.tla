-------------------------- MODULE DyadicRationals --------------------------
(***************************************************************************)
(* Written for ALIAS: the operators of the CommunityModules module         *)
(* DyadicRationals. A dyadic rational is a record [num |-> a, den |-> d]   *)
(* with d a power of two, kept in lowest terms so that equal numbers are   *)
(* equal values.                                                           *)
(***************************************************************************)
LOCAL INSTANCE Naturals
LOCAL INSTANCE Sequences
LOCAL INSTANCE TLC

LOCAL IsPowerOfTwo(d) ==
  LET RECURSIVE Go(_)
      Go(k) == IF k = 1 THEN TRUE ELSE IF k % 2 = 1 THEN FALSE ELSE Go(k \div 2)
  IN  d \in Nat /\ d > 0 /\ Go(d)

\* num / den in lowest terms (den a power of two).
LOCAL Lowest(num, den) ==
  LET RECURSIVE Go(_, _)
      Go(a, d) == IF d > 1 /\ a % 2 = 0 THEN Go(a \div 2, d \div 2)
                  ELSE [num |-> a, den |-> d]
  IN  Go(num, den)

Zero == [num |-> 0, den |-> 1]
One == [num |-> 1, den |-> 1]

\* r is a dyadic rational in lowest terms.
IsDyadicRational(r) ==
  /\ r = [num |-> r.num, den |-> r.den]
  /\ r.num \in Nat
  /\ IsPowerOfTwo(r.den)
  /\ r = Lowest(r.num, r.den)

\* p + q and p / 2.
Add(p, q) ==
  LET d == IF p.den >= q.den THEN p.den ELSE q.den
  IN  Lowest(p.num * (d \div p.den) + q.num * (d \div q.den), d)
Half(p) == Lowest(p.num, 2 * p.den)

\* p as a string, "3/4" (or "1" for a whole number).
PrettyPrint(p) ==
  IF p.den = 1 THEN ToString(p.num) ELSE ToString(p.num) \o "/" \o ToString(p.den)
=============================================================================
