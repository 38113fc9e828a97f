------------------------------- MODULE Folds -------------------------------
(***************************************************************************)
(* Written for ALIAS: the fold of the CommunityModules module Folds.       *)
(***************************************************************************)

\* Starting from base, combine f(x) for every x of S with op:
\* op(f(x1), op(f(x2), ... op(f(xk), base))), where x1 = choose(S),
\* x2 = choose(S \ {x1}) and so on. choose(R) must be an element of R.
MapThenFoldSet(op(_, _), base, f(_), choose(_), S) ==
  LET RECURSIVE Go(_)
      Go(rest) == IF rest = {} THEN base
                  ELSE LET x == choose(rest)
                       IN  op(f(x), Go(rest \ {x}))
  IN  Go(S)
=============================================================================
