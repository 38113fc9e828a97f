------------------------------ MODULE BagsExt ------------------------------
(***************************************************************************)
(* Written for ALIAS: operators of the CommunityModules module BagsExt on  *)
(* bags as the standard module Bags represents them (a function from the   *)
(* elements to their positive multiplicities).                             *)
(***************************************************************************)
LOCAL INSTANCE Integers

\* B with one more copy of x.
BagAdd(B, x) ==
  IF x \in DOMAIN B THEN [B EXCEPT ![x] = @ + 1]
  ELSE [e \in DOMAIN B \cup {x} |-> IF e = x THEN 1 ELSE B[e]]

\* B with one copy of x less (B itself if x is not in B).
BagRemove(B, x) ==
  IF x \notin DOMAIN B THEN B
  ELSE IF B[x] = 1 THEN [e \in DOMAIN B \ {x} |-> B[e]]
  ELSE [B EXCEPT ![x] = @ - 1]

\* B without any copy of x.
BagRemoveAll(B, x) == [e \in DOMAIN B \ {x} |-> B[e]]

\* op folded over the elements of B, each as often as B holds it:
\* op(x, op(x, ... base)) taking the elements in the order CHOOSE picks them.
FoldBag(op(_, _), base, B) ==
  LET RECURSIVE Copies(_, _, _)
      Copies(x, k, acc) == IF k = 0 THEN acc ELSE Copies(x, k - 1, op(x, acc))
      RECURSIVE Go(_)
      Go(rest) == IF rest = {} THEN base
                  ELSE LET x == CHOOSE y \in rest : TRUE
                       IN  Copies(x, B[x], Go(rest \ {x}))
  IN  Go(DOMAIN B)

\* Sum and product of the elements of a bag of numbers, with multiplicity.
SumBag(B) == FoldBag(LAMBDA x, acc : x + acc, 0, B)
ProductBag(B) == FoldBag(LAMBDA x, acc : x * acc, 1, B)
=============================================================================
