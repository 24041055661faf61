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

/// One message: sender, receiver, where the sender posted it, where the receiver got it, and
/// the call site that sent it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hop {
    pub from: u32,
    pub to: u32,
    pub sent: Pos,
    pub received: Pos,
    pub site: u32,
}

/// (sender, receiver, sending site).
type Pair = (u32, u32, u32);

/// Depth and whether a cycle had to be broken.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Depth {
    pub depth: u32,
    pub cycle: bool,
    /// The chain's hops by the site that sent each: a wavefront's `Px - 1` south and `Py - 1`
    /// east hops, which may pass on different numbers of blocks.
    pub by_site: BTreeMap<u32, u32>,
}

/// The longest chain of first-instance messages (see module docs), one chain node per
/// (sender, receiver, sending site): two kinds of message between the same processors (a
/// block's value after each block, the row's after the last) are two ways along the chain.
/// Each hop weighs what its site's `weights` says (1 where it says nothing: the blocks a
/// processor passes on per message of that site), and the chain is the heaviest, the most
/// hops among the heaviest; its hop count is the depth.
pub fn chain_depth(hops: &[Hop], weights: &BTreeMap<u32, f64>) -> Depth {
    let mut first_send: BTreeMap<Pair, Pos> = BTreeMap::new();
    let mut first_recv: BTreeMap<Pair, Pos> = BTreeMap::new();
    for h in hops {
        let k = (h.from, h.to, h.site);
        let s = first_send.entry(k).or_insert(h.sent);
        *s = (*s).min(h.sent);
        let r = first_recv.entry(k).or_insert(h.received);
        *r = (*r).min(h.received);
    }
    if first_send.is_empty() {
        return Depth {
            depth: 0,
            cycle: false,
            by_site: BTreeMap::new(),
        };
    }
    let mut g: DiGraph<Pair, ()> = DiGraph::new();
    let idx: BTreeMap<Pair, NodeIndex> = first_send.keys().map(|&k| (k, g.add_node(k))).collect();
    // incoming pairs per receiving processor
    let mut into: BTreeMap<u32, Vec<(Pair, Pos)>> = BTreeMap::new();
    for (&k, &pos) in &first_recv {
        into.entry(k.1).or_default().push((k, pos));
    }
    for (&out, &sent) in &first_send {
        for &(inc, got) in into.get(&out.0).map(Vec::as_slice).unwrap_or(&[]) {
            if got < sent {
                if let (Some(&a), Some(&b)) = (idx.get(&inc), idx.get(&out)) {
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
    // heaviest path (then most hops), Kahn order (acyclic now)
    let n = g.node_count();
    let weight = |v: NodeIndex| weights.get(&g[v].2).copied().unwrap_or(1.0);
    let mut indeg: Vec<usize> = vec![0; n];
    for e in g.edge_indices() {
        if let Some((_, b)) = g.edge_endpoints(e) {
            indeg[b.index()] += 1;
        }
    }
    let mut best: Vec<(f64, u32)> = g.node_indices().map(|v| (weight(v), 1)).collect();
    let mut pred: Vec<Option<NodeIndex>> = vec![None; n];
    let heavier =
        |a: (f64, u32), b: (f64, u32)| a.0 > b.0 + 1e-9 || (a.0 >= b.0 - 1e-9 && a.1 > b.1);
    let mut ready: Vec<NodeIndex> = g.node_indices().filter(|v| indeg[v.index()] == 0).collect();
    while let Some(v) = ready.pop() {
        let here = best[v.index()];
        for w in g.neighbors(v) {
            let i = w.index();
            let via = (here.0 + weight(w), here.1 + 1);
            if heavier(via, best[i]) {
                best[i] = via;
                pred[i] = Some(v);
            }
            indeg[i] -= 1;
            if indeg[i] == 0 {
                ready.push(w);
            }
        }
    }
    // one heaviest chain, walked back from its end (the first such end in node order)
    let mut end: Option<NodeIndex> = None;
    for v in g.node_indices() {
        if end.is_none_or(|e| heavier(best[v.index()], best[e.index()])) {
            end = Some(v);
        }
    }
    let mut by_site = BTreeMap::new();
    let mut at = end;
    while let Some(v) = at {
        *by_site.entry(g[v].2).or_insert(0) += 1;
        at = pred[v.index()];
    }
    Depth {
        depth: end.map_or(0, |v| best[v.index()].1),
        cycle,
        by_site,
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
            site: 1,
        }
    }

    #[test]
    fn line_pipeline_is_p_minus_1() {
        // rank r receives at event 0 (r > 0), sends at event 1
        let hops: Vec<Hop> = (0..4).map(|r| hop(r, r + 1, 1, 0)).collect();
        assert_eq!(
            chain_depth(&hops, &BTreeMap::new()),
            Depth {
                depth: 4,
                cycle: false,
                by_site: BTreeMap::from([(1, 4)]),
            }
        );
    }

    /// Trial 18's wavefront in one dimension: each rank passes on a block's value after each
    /// of 4 blocks (site 1) and its row's after the last (site 2), which the next rank takes
    /// before its first block. The chain along site 2 is the heavier, 4 blocks a hop.
    #[test]
    fn the_heavier_kind_of_message_makes_the_chain() {
        let mut hops = Vec::new();
        for r in 0..3u32 {
            // rank r receives the row at event 0 and the blocks at 1..=4 (r > 0), sends the
            // blocks at events 10..=13 and the row at event 14
            for b in 0..4 {
                hops.push(hop(r, r + 1, 10 + b, 1 + b));
            }
            hops.push(Hop {
                site: 2,
                ..hop(r, r + 1, 14, 0)
            });
        }
        let weights = BTreeMap::from([(1, 1.0), (2, 4.0)]);
        let d = chain_depth(&hops, &weights);
        assert_eq!(d.depth, 3);
        assert_eq!(d.by_site, BTreeMap::from([(2, 3)]));
        // unweighted, the blocks' chain is as long: either may be taken, the depth is the same
        assert_eq!(chain_depth(&hops, &BTreeMap::new()).depth, 3);
    }

    #[test]
    fn shift_does_not_chain() {
        // every rank sends at event 0 and receives at event 1
        let hops: Vec<Hop> = (0..4).map(|r| hop(r, r + 1, 0, 1)).collect();
        assert_eq!(chain_depth(&hops, &BTreeMap::new()).depth, 1);
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
                    hops.push(Hop {
                        site: 7,
                        ..hop(r, r + 1, 2, 0)
                    });
                }
                if y + 1 < py {
                    hops.push(Hop {
                        site: 9,
                        ..hop(r, r + px, 3, 1)
                    });
                }
            }
        }
        let d = chain_depth(&hops, &BTreeMap::new());
        assert_eq!(d.depth, px + py - 2);
        // one longest chain: every east hop and every south hop
        assert_eq!(d.by_site, BTreeMap::from([(7, px - 1), (9, py - 1)]));
    }

    #[test]
    fn ring_started_by_rank_0() {
        // rank 0 sends first then receives from P-1; the others receive then send
        let p = 5;
        let mut hops: Vec<Hop> = (1..p - 1).map(|r| hop(r, r + 1, 1, 0)).collect();
        hops.push(hop(0, 1, 0, 0));
        hops.push(hop(p - 1, 0, 1, 1));
        assert_eq!(
            chain_depth(&hops, &BTreeMap::new()),
            Depth {
                depth: p,
                cycle: false,
                by_site: BTreeMap::from([(1, p)]),
            }
        );
    }

    #[test]
    fn inconsistent_cycle_is_broken() {
        // both receive before sending to each other: impossible in a real run
        let hops = vec![hop(0, 1, 1, 0), hop(1, 0, 1, 0)];
        let d = chain_depth(&hops, &BTreeMap::new());
        assert!(d.cycle);
        assert_eq!(d.depth, 2);
    }
}
