-------------------------- MODULE UndirectedGraphs --------------------------
(***************************************************************************)
(* Written for ALIAS: operators of the CommunityModules module             *)
(* UndirectedGraphs. A graph is a record [node |-> N, edge |-> E] whose    *)
(* edges are sets {m, n} of one or two nodes.                              *)
(***************************************************************************)
LOCAL INSTANCE Naturals
LOCAL INSTANCE FiniteSets

\* G is such a record and each edge joins one or two of its nodes.
IsUndirectedGraph(G) ==
  /\ G = [node |-> G.node, edge |-> G.edge]
  /\ \A e \in G.edge : e \subseteq G.node /\ Cardinality(e) \in {1, 2}

\* An undirected graph without self-loops.
IsLoopFreeUndirectedGraph(G) ==
  IsUndirectedGraph(G) /\ \A e \in G.edge : Cardinality(e) = 2

\* The undirected graphs made of some nodes and some edges of G.
UndirectedSubgraph(G) ==
  {H \in [node : SUBSET G.node, edge : SUBSET G.edge] : IsUndirectedGraph(H)}

\* The nodes reachable in G from the nodes in start (start included).
LOCAL ReachableFrom(start, G) ==
  LET RECURSIVE Grow(_)
      Grow(seen) ==
        LET more == seen \cup {n \in G.node : \E m \in seen : {m, n} \in G.edge}
        IN  IF more = seen THEN seen ELSE Grow(more)
  IN  Grow(start)

\* A path of G (possibly of no edge) connects m and n.
AreConnectedIn(m, n, G) == n \in ReachableFrom({m}, G)

\* The sets of nodes of G that are connected to each other.
ConnectedComponents(G) == {ReachableFrom({n}, G) : n \in G.node}

\* Every two nodes of G are connected.
IsStronglyConnected(G) ==
  \/ G.node = {}
  \/ ReachableFrom({CHOOSE n \in G.node : TRUE}, G) = G.node
=============================================================================
