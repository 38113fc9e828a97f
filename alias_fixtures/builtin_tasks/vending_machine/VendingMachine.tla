---------------------------- MODULE VendingMachine ----------------------------
(***************************************************************************)
(* A vending machine that sells one kind of item for Price cents.  It     *)
(* accepts 5- and 10-cent coins while the credit is below the price,      *)
(* vends when the credit covers the price (returning any change), refunds *)
(* on request, and is restocked by an operator who empties the cash box.  *)
(***************************************************************************)
EXTENDS Naturals

CONSTANTS Price, MaxStock

ASSUME Price \in Nat \ {0} /\ Price % 5 = 0
ASSUME MaxStock \in Nat \ {0}

Coins == {5, 10}

VARIABLES credit, stock, cash

vars == <<credit, stock, cash>>

Init == /\ credit = 0
        /\ stock = MaxStock
        /\ cash = 0

InsertCoin(c) == /\ credit < Price
                 /\ credit' = credit + c
                 /\ UNCHANGED <<stock, cash>>

Vend == /\ credit >= Price
        /\ stock > 0
        /\ stock' = stock - 1
        /\ cash' = cash + Price
        /\ credit' = 0

Refund == /\ credit > 0
          /\ credit' = 0
          /\ UNCHANGED <<stock, cash>>

Restock == /\ stock = 0
           /\ stock' = MaxStock
           /\ cash' = 0
           /\ UNCHANGED credit

Next == \/ \E c \in Coins : InsertCoin(c)
        \/ Vend
        \/ Refund
        \/ Restock

Spec == Init /\ [][Next]_vars

-----------------------------------------------------------------------------
TypeOK == /\ credit \in 0..(Price + 5)
          /\ stock \in 0..MaxStock
          /\ cash \in Nat

CashMatchesSales == cash = (MaxStock - stock) * Price

CreditBounded == credit < Price + 10
=============================================================================
