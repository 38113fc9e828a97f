---------------------------- MODULE Base ----------------------------
(* A small module instanced by Features; its names are renamed too. *)
EXTENDS Naturals
CONSTANT Limit
VARIABLE count

Bump == count' = IF count < Limit THEN count + 1 ELSE 0
Within(k) == k <= Limit
=====================================================================
