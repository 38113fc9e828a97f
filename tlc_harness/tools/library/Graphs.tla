------------------------------- MODULE Graphs -------------------------------
(***************************************************************************)
(* Written for ALIAS: operators of the CommunityModules module Graphs on   *)
(* directed graphs, records [node |-> N, edge |-> E] whose edges are pairs *)
(* <<from, to>> of nodes.                                                  *)
(***************************************************************************)

\* G is such a record and each edge joins two of its nodes.
IsDirectedGraph(G) ==
  /\ G = [node |-> G.node, edge |-> G.edge]
  /\ G.edge \subseteq (G.node \X G.node)

\* The directed graphs made of some nodes and some edges of G.
DirectedSubgraph(G) ==
  {H \in [node : SUBSET G.node, edge : SUBSET G.edge] : IsDirectedGraph(H)}

\* G with every edge reversed.
Transpose(G) == [node |-> G.node, edge |-> {<<e[2], e[1]>> : e \in G.edge}]

\* The nodes reachable in G from the nodes in start along edges (start
\* included).
LOCAL ReachableFrom(start, G) ==
  LET RECURSIVE Grow(_)
      Grow(seen) ==
        LET more == seen \cup {e[2] : e \in {d \in G.edge : d[1] \in seen}}
        IN  IF more = seen THEN seen ELSE Grow(more)
  IN  Grow(start)

\* A directed path of G (possibly of no edge) leads from m to n.
AreConnectedIn(m, n, G) == n \in ReachableFrom({m}, G)

\* Every node of G reaches every other.
IsStronglyConnected(G) == \A m \in G.node : G.node \subseteq ReachableFrom({m}, G)

\* G is a tree whose edges point from child to parent: r has no outgoing
\* edge, every other node at most one, and every node reaches r.
IsTreeWithRoot(G, r) ==
  /\ IsDirectedGraph(G)
  /\ \A e \in G.edge : /\ e[1] # r
                       /\ \A d \in G.edge : (d[1] = e[1]) => (d = e)
  /\ \A n \in G.node : r \in ReachableFrom({n}, G)
=============================================================================
