----------------------------- MODULE Functions -----------------------------
(***************************************************************************)
(* Written for ALIAS: the operators of the CommunityModules module         *)
(* Functions, defined from their documented meaning so that TLC evaluates  *)
(* them without Java overrides.                                            *)
(***************************************************************************)
LOCAL INSTANCE Naturals

\* f with its domain cut down to the elements of S.
Restrict(f, S) == [e \in S |-> f[e]]

\* f on the arguments that pass Test.
RestrictDomain(f, Test(_)) == Restrict(f, {e \in DOMAIN f : Test(e)})

\* f on the arguments whose value passes Test.
RestrictValues(f, Test(_)) == Restrict(f, {e \in DOMAIN f : Test(f[e])})

\* f agrees with g on all of f's domain, which is part of g's.
IsRestriction(f, g) ==
  /\ DOMAIN f \subseteq DOMAIN g
  /\ \A e \in DOMAIN f : f[e] = g[e]

\* The set of values f takes.
Range(f) == {f[e] : e \in DOMAIN f}

\* A function from T back to S: each t that f reaches maps to some
\* argument s with f[s] = t (any element of S for a t outside the range).
Inverse(f, S, T) ==
  [t \in T |-> CHOOSE s \in S : (t \in Range(f)) => (f[s] = t)]

\* The inverse of an injective f, on its range.
AntiFunction(f) == Inverse(f, DOMAIN f, Range(f))

\* No two arguments share a value.
IsInjective(f) == \A a, b \in DOMAIN f : (f[a] = f[b]) => (a = b)

\* The injective, surjective and bijective functions from S to T.
Injection(S, T) == {f \in [S -> T] : IsInjective(f)}
Surjection(S, T) == {f \in [S -> T] : \A t \in T : \E s \in S : f[s] = t}
Bijection(S, T) == Injection(S, T) \cap Surjection(S, T)

ExistsInjection(S, T) == Injection(S, T) # {}
ExistsSurjection(S, T) == Surjection(S, T) # {}
ExistsBijection(S, T) == Bijection(S, T) # {}

\* op folded over the values fun takes on the arguments in indices,
\* starting from base: op(fun[i1], op(fun[i2], ... op(fun[ik], base))),
\* the arguments taken in the order CHOOSE picks them. For an op that is
\* associative and commutative the order does not matter.
FoldFunctionOnSet(op(_, _), base, fun, indices) ==
  LET RECURSIVE Go(_)
      Go(rest) == IF rest = {} THEN base
                  ELSE LET i == CHOOSE j \in rest : TRUE
                       IN  op(fun[i], Go(rest \ {i}))
  IN  Go(indices)

\* op folded over every value of fun, as FoldFunctionOnSet on DOMAIN fun.
FoldFunction(op(_, _), base, fun) == FoldFunctionOnSet(op, base, fun, DOMAIN fun)
=============================================================================
