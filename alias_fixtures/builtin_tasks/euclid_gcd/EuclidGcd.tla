------------------------------ MODULE EuclidGcd ------------------------------
(***************************************************************************)
(* Euclid's algorithm with remainders, as a PlusCal algorithm.  Starting   *)
(* from any a and b in 1..MaxInput it repeatedly replaces (a, b) by        *)
(* (b, a % b) until b is 0; a is then the greatest common divisor of the   *)
(* inputs, which are kept in a0 and b0.                                    *)
(***************************************************************************)
EXTENDS Naturals

CONSTANT MaxInput

ASSUME MaxInput \in Nat \ {0}

\* The greatest common divisor, as a recursive function.
Gcd[m \in 0..MaxInput, n \in 0..MaxInput] == IF n = 0 THEN m ELSE Gcd[n, m % n]

(* --fair algorithm Euclid
variables a \in 1..MaxInput, b \in 1..MaxInput, a0 = a, b0 = b, t = 0;
begin
  Loop:
    while b # 0 do
      Rem:
        t := a % b;
      Shift:
        a := b;
        b := t;
    end while;
end algorithm *)
\* BEGIN TRANSLATION
VARIABLES a, b, a0, b0, t, pc

vars == << a, b, a0, b0, t, pc >>

Init == (* Global variables *)
        /\ a \in 1..MaxInput
        /\ b \in 1..MaxInput
        /\ a0 = a
        /\ b0 = b
        /\ t = 0
        /\ pc = "Loop"

Loop == /\ pc = "Loop"
        /\ IF b # 0
              THEN /\ pc' = "Rem"
              ELSE /\ pc' = "Done"
        /\ UNCHANGED << a, b, a0, b0, t >>

Rem == /\ pc = "Rem"
       /\ t' = a % b
       /\ pc' = "Shift"
       /\ UNCHANGED << a, b, a0, b0 >>

Shift == /\ pc = "Shift"
         /\ a' = b
         /\ b' = t
         /\ pc' = "Loop"
         /\ UNCHANGED << a0, b0, t >>

(* Allow infinite stuttering to prevent deadlock on termination. *)
Terminating == pc = "Done" /\ UNCHANGED vars

Next == Loop \/ Rem \/ Shift
           \/ Terminating

Spec == /\ Init /\ [][Next]_vars
        /\ WF_vars(Next)

Termination == <>(pc = "Done")

\* END TRANSLATION

TypeOK == /\ a \in 0..MaxInput /\ b \in 0..MaxInput /\ t \in 0..MaxInput
          /\ a0 \in 1..MaxInput /\ b0 \in 1..MaxInput
          /\ pc \in {"Loop", "Rem", "Shift", "Done"}

GcdPreserved == Gcd[a, b] = Gcd[a0, b0]

PartialCorrectness == pc = "Done" => a = Gcd[a0, b0]
=============================================================================
