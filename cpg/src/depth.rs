//! Chain depth D(g) of a phase (seed 004 Fig. 2 step 5): the longest chain of messages embedded
//! in pairs(g), counted in messages, so a line of P processors has D = P-1 (the seed's "chain
//! depth 3" for 4 processors).
//!
//! Without a global clock the chain is built from per-processor order: the first message of pair
//! (p→q) follows the first message of pair (o→p) when p's first receive from o precedes p's
//! first send to q. Causality makes this graph acyclic on a consistent trace, including a ring
//! (the processor that starts the ring sends before it receives, so the ring's closing pair
//! chains into nothing). Should a cycle still appear (an inconsistent trace), the back edges
//! of a depth-first search from the pairs in order are dropped and `cycle` is reported.

use std::collections::BTreeMap;

use petgraph::graph::{DiGraph, NodeIndex};
use petgraph::visit::{depth_first_search, Control, DfsEvent};

use crate::matching::Pos;

/// One message: sender, receiver, where the sender posted it, where the receiver got it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hop {
    pub from: u32,
    pub to: u32,
    pub sent: Pos,
    pub received: Pos,
}

/// (sender, receiver).
type Pair = (u32, u32);

/// Depth and whether a cycle had to be broken.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Depth {
    pub depth: u32,
    pub cycle: bool,
}

/// The longest chain of first-instance messages (see module docs).
pub fn chain_depth(hops: &[Hop]) -> Depth {
    let mut first_send: BTreeMap<(u32, u32), Pos> = BTreeMap::new();
    let mut first_recv: BTreeMap<(u32, u32), Pos> = BTreeMap::new();
    for h in hops {
        let s = first_send.entry((h.from, h.to)).or_insert(h.sent);
        *s = (*s).min(h.sent);
        let r = first_recv.entry((h.from, h.to)).or_insert(h.received);
        *r = (*r).min(h.received);
    }
    if first_send.is_empty() {
        return Depth {
            depth: 0,
            cycle: false,
        };
    }
    let mut g: DiGraph<(u32, u32), ()> = DiGraph::new();
    let idx: BTreeMap<(u32, u32), NodeIndex> =
        first_send.keys().map(|&k| (k, g.add_node(k))).collect();
    // incoming pairs per receiving processor
    let mut into: BTreeMap<u32, Vec<(Pair, Pos)>> = BTreeMap::new();
    for (&k, &pos) in &first_recv {
        into.entry(k.1).or_default().push((k, pos));
    }
    for (&(p, q), &sent) in &first_send {
        for &(inc, got) in into.get(&p).map(Vec::as_slice).unwrap_or(&[]) {
            if got < sent {
                if let (Some(&a), Some(&b)) = (idx.get(&inc), idx.get(&(p, q))) {
                    g.add_edge(a, b, ());
                }
            }
        }
    }
    let mut back = Vec::new();
    let starts: Vec<NodeIndex> = g.node_indices().collect();
    depth_first_search(&g, starts, |e| {
        if let DfsEvent::BackEdge(a, b) = e {
            back.push((a, b));
        }
        Control::<()>::Continue
    });
    let cycle = !back.is_empty();
    for (a, b) in back {
        if let Some(e) = g.find_edge(a, b) {
            g.remove_edge(e);
        }
    }
    // longest path in nodes, Kahn order (acyclic now)
    let n = g.node_count();
    let mut indeg: Vec<usize> = vec![0; n];
    for e in g.edge_indices() {
        if let Some((_, b)) = g.edge_endpoints(e) {
            indeg[b.index()] += 1;
        }
    }
    let mut best: Vec<u32> = vec![1; n];
    let mut ready: Vec<NodeIndex> = g.node_indices().filter(|v| indeg[v.index()] == 0).collect();
    while let Some(v) = ready.pop() {
        let here = best[v.index()];
        for w in g.neighbors(v) {
            let i = w.index();
            best[i] = best[i].max(here + 1);
            indeg[i] -= 1;
            if indeg[i] == 0 {
                ready.push(w);
            }
        }
    }
    Depth {
        depth: best.into_iter().max().unwrap_or(0),
        cycle,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hop(from: u32, to: u32, sent: usize, received: usize) -> Hop {
        Hop {
            from,
            to,
            sent: (sent, 0),
            received: (received, 0),
        }
    }

    #[test]
    fn line_pipeline_is_p_minus_1() {
        // rank r receives at event 0 (r > 0), sends at event 1
        let hops: Vec<Hop> = (0..4).map(|r| hop(r, r + 1, 1, 0)).collect();
        assert_eq!(
            chain_depth(&hops),
            Depth {
                depth: 4,
                cycle: false
            }
        );
    }

    #[test]
    fn shift_does_not_chain() {
        // every rank sends at event 0 and receives at event 1
        let hops: Vec<Hop> = (0..4).map(|r| hop(r, r + 1, 0, 1)).collect();
        assert_eq!(chain_depth(&hops).depth, 1);
    }

    #[test]
    fn grid_wavefront_is_px_plus_py_minus_2() {
        let (px, py) = (3u32, 4u32);
        let mut hops = Vec::new();
        for y in 0..py {
            for x in 0..px {
                let r = y * px + x;
                // receives at events 0, 1; sends at events 2, 3
                if x + 1 < px {
                    hops.push(hop(r, r + 1, 2, 0));
                }
                if y + 1 < py {
                    hops.push(hop(r, r + px, 3, 1));
                }
            }
        }
        assert_eq!(chain_depth(&hops).depth, px + py - 2);
    }

    #[test]
    fn ring_started_by_rank_0() {
        // rank 0 sends first then receives from P-1; the others receive then send
        let p = 5;
        let mut hops: Vec<Hop> = (1..p - 1).map(|r| hop(r, r + 1, 1, 0)).collect();
        hops.push(hop(0, 1, 0, 0));
        hops.push(hop(p - 1, 0, 1, 1));
        assert_eq!(
            chain_depth(&hops),
            Depth {
                depth: p,
                cycle: false
            }
        );
    }

    #[test]
    fn inconsistent_cycle_is_broken() {
        // both receive before sending to each other: impossible in a real run
        let hops = vec![hop(0, 1, 1, 0), hop(1, 0, 1, 0)];
        let d = chain_depth(&hops);
        assert!(d.cycle);
        assert_eq!(d.depth, 2);
    }
}
