----------------------------- MODULE BankTransfer -----------------------------
(***************************************************************************)
(* Money moves between bank accounts in two steps: a transfer first        *)
(* debits the source account and is then in transit, and later it credits *)
(* the target account.  Several identical transfers may be in transit at   *)
(* once, so the transfers in transit form a bag.                           *)
(***************************************************************************)
EXTENDS BankLedger

VARIABLES balance, transit

vars == <<balance, transit>>

Init == /\ balance = [a \in Accounts |-> InitialBalance]
        /\ transit = EmptyBag

Withdraw(src, dst, n) ==
    /\ src # dst
    /\ balance[src] >= n
    /\ balance' = [balance EXCEPT ![src] = @ - n]
    /\ transit' = transit (+) SetToBag({[from |-> src, to |-> dst, amt |-> n]})

Deposit(t) ==
    /\ BagIn(t, transit)
    /\ balance' = [balance EXCEPT ![t.to] = @ + t.amt]
    /\ transit' = transit (-) SetToBag({t})

Next == \/ \E src, dst \in Accounts, n \in Amounts : Withdraw(src, dst, n)
        \/ \E t \in BagToSet(transit) : Deposit(t)

Spec == Init /\ [][Next]_vars

-----------------------------------------------------------------------------
TypeOK == /\ balance \in [Accounts -> Nat]
          /\ IsABag(transit)
          /\ BagToSet(transit) \subseteq Transfers

NoOverdraft == \A a \in Accounts : balance[a] >= 0

MoneyConserved == SumOver(balance, Accounts) + InTransit(transit) = OpeningTotal
=============================================================================
