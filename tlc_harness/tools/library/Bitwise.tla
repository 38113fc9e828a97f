------------------------------ MODULE Bitwise ------------------------------
(***************************************************************************)
(* Written for ALIAS: the operators of the CommunityModules module Bitwise *)
(* on natural numbers, bit by bit.                                         *)
(***************************************************************************)
LOCAL INSTANCE Naturals

\* Combine a and b bit by bit, bit(x, y) giving each result bit (0 or 1).
LOCAL BitByBit(a, b, bit(_, _)) ==
  LET RECURSIVE Go(_, _)
      Go(x, y) == IF x = 0 /\ y = 0 THEN 0
                  ELSE 2 * Go(x \div 2, y \div 2) + bit(x % 2, y % 2)
  IN  Go(a, b)

\* Bitwise and, or, exclusive or.
a & b == BitByBit(a, b, LAMBDA x, y : x * y)
a | b == BitByBit(a, b, LAMBDA x, y : IF x + y > 0 THEN 1 ELSE 0)
a ^^ b == BitByBit(a, b, LAMBDA x, y : (x + y) % 2)

\* n shifted right by pos bits.
shiftR(n, pos) == n \div (2 ^ pos)
=============================================================================
