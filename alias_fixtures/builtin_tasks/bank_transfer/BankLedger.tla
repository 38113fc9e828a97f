------------------------------ MODULE BankLedger ------------------------------
(***************************************************************************)
(* Bookkeeping helpers for the bank transfer specification: the accounts, *)
(* their opening balance, and sums over balances and in-flight transfers. *)
(***************************************************************************)
EXTENDS Naturals, Bags

CONSTANTS Accounts, InitialBalance, MaxTransfer

ASSUME InitialBalance \in Nat /\ MaxTransfer \in Nat \ {0}

Amounts == 1..MaxTransfer

Transfers == [from : Accounts, to : Accounts, amt : Amounts]

RECURSIVE SumOver(_, _)
\* The sum of f[x] for all x in the finite set S.
SumOver(f, S) == IF S = {} THEN 0
                 ELSE LET x == CHOOSE y \in S : TRUE
                      IN  f[x] + SumOver(f, S \ {x})

\* The total amount of the transfers in bag B.
InTransit(B) == SumOver([t \in BagToSet(B) |-> t.amt * CopiesIn(t, B)], BagToSet(B))

OpeningTotal == InitialBalance * SumOver([a \in Accounts |-> 1], Accounts)
=============================================================================
