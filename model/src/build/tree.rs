//! Walks over the APT the build needs: each site's path from its routine, the loops and
//! computation phases below a node, the process grids the source builds, which IFs split the
//! ranks, and a site's executions from one rank's counters.

use std::collections::{BTreeMap, BTreeSet};

use apt::{Apt, Attr, Node, NodeData};
use symbolic::Expr;

use crate::observe::RunObs;

/// Each site's paths of sites from its routine down to itself, in tree order.
pub(super) type Paths = BTreeMap<u32, Vec<Vec<u32>>>;

/// [`Paths`] of the APT: one per place a site is in the tree — several where the statements
/// after an IF that may leave early are placed on each path that falls out of it.
pub(super) fn parent_paths(apt: &Apt) -> Paths {
    fn go(n: &Node, path: &mut Vec<u32>, out: &mut Paths) {
        path.push(n.site.0);
        out.entry(n.site.0).or_default().push(path.clone());
        for c in n.children.iter().chain(&n.else_children) {
            go(c, path, out);
        }
        path.pop();
    }
    let mut out = BTreeMap::new();
    for r in &apt.routines {
        go(r, &mut Vec::new(), &mut out);
    }
    out
}

/// Sites of the loops below `n` (or `n` itself) that hold no loop: their iterations, summed,
/// count the innermost bodies a computation phase executes.
pub(super) fn leaf_loops(n: &Node) -> Vec<u32> {
    fn go(n: &Node, out: &mut Vec<u32>) -> bool {
        let mut has_loop = false;
        for c in n.children.iter().chain(&n.else_children) {
            has_loop |= go(c, out);
        }
        let is_loop = matches!(n.data, NodeData::Loop(_));
        if is_loop && !has_loop {
            out.push(n.site.0);
        }
        is_loop || has_loop
    }
    let mut out = Vec::new();
    go(n, &mut out);
    out
}

/// The computation phases below `anchor`: in its routine, and through the calls below it in
/// their routines (each with the outermost call it is reached through, whose arguments name
/// what it writes in the anchor's routine).
pub(super) fn compute_below(
    anchor: &Node,
    routines: &BTreeMap<&str, &Node>,
) -> Vec<(u32, Option<u32>)> {
    fn go(
        n: &Node,
        via: Option<u32>,
        routines: &BTreeMap<&str, &Node>,
        stack: &mut Vec<String>,
        out: &mut Vec<(u32, Option<u32>)>,
    ) {
        for c in n.children.iter().chain(&n.else_children) {
            match &c.data {
                NodeData::Loop(l) if l.compute => out.push((c.site.0, via)),
                NodeData::Call { callee, .. } => {
                    if let Some(r) = routines.get(callee.as_str()) {
                        if !stack.contains(callee) {
                            stack.push(callee.clone());
                            go(r, via.or(Some(c.site.0)), routines, stack, out);
                            stack.pop();
                        }
                    }
                }
                _ => go(c, via, routines, stack, out),
            }
        }
    }
    let mut out = Vec::new();
    go(anchor, None, routines, &mut Vec::new(), &mut out);
    out
}

/// A process grid over all ranks: its dimension count and whose `MPI_Dims_create` made it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct ProcGrid {
    pub d: u32,
    pub rule: symbolic::DimsRule,
}

impl ProcGrid {
    /// Its extents `dims(P, d, k)`, k = 0..d-1.
    pub(crate) fn extents(self) -> Vec<Expr> {
        let p = Expr::var("P");
        (0..self.d)
            .filter_map(|k| Expr::dims_by(self.rule, &p, self.d, k))
            .collect()
    }
}

/// The process grids the source builds with `MPI_Dims_create` over all ranks: one per `d` (and
/// rule) of a `dims(P, d, k)` in a loop's trip or a message's size or peer.
pub(super) fn process_grids(apt: &Apt) -> BTreeSet<ProcGrid> {
    fn walk(e: &Expr, out: &mut BTreeSet<ProcGrid>) {
        for t in e.terms() {
            for (a, _) in t.factors() {
                if let symbolic::Atom::Dims { n, d, rule, .. } = a {
                    if **n == Expr::var("P") {
                        out.insert(ProcGrid { d: *d, rule: *rule });
                    }
                }
                for x in a.args() {
                    walk(x, out);
                }
            }
        }
    }
    let mut out: BTreeSet<ProcGrid> = apt
        .grids
        .iter()
        .map(|&(d, rule)| ProcGrid { d, rule })
        .collect();
    for n in apt.nodes() {
        let attrs: Vec<&Attr> = match &n.data {
            NodeData::Loop(l) => vec![&l.trip],
            NodeData::Comm(c) => [&c.bytes, &c.peer, &c.source, &c.recv_bytes]
                .into_iter()
                .flatten()
                .collect(),
            _ => Vec::new(),
        };
        for e in attrs.into_iter().filter_map(Attr::expr) {
            walk(e, &mut out);
        }
    }
    out
}

/// A wavefront's depth across the one process grid of the source (`Σ dims(P, d, k) - d`), or
/// none when it has no grid or several.
pub(super) fn grid_depth(grids: &BTreeSet<ProcGrid>) -> Option<Expr> {
    let [g] = grids.iter().copied().collect::<Vec<_>>()[..] else {
        return None;
    };
    let sum: Expr = g.extents().into_iter().sum();
    Some(sum - Expr::num(f64::from(g.d)))
}

/// The share of an IF's evaluations a path through it takes: `p` (the IF arm's share) where the
/// path's next site `next` is in the IF arm, `1 - p` where it is in the else arm.
pub(super) fn arm_share(n: &Node, next: Option<&u32>, p: Expr) -> Expr {
    if n.else_children.iter().any(|c| Some(&c.site.0) == next) {
        Expr::one() - p
    } else {
        p
    }
}

/// IF sites whose arms ranks take differently: the condition mentions the rank, or in some
/// run the fraction of evaluations that took the IF arm differs by more than a half between
/// two ranks (a condition on a rank the source analysis could not see, e.g. `d->rank == 0`).
pub(super) fn rank_split(nodes: &BTreeMap<u32, &Node>, runs: &[RunObs]) -> BTreeSet<u32> {
    nodes
        .values()
        .filter_map(|n| match &n.data {
            NodeData::If(i) => Some((n.site.0, i)),
            _ => None,
        })
        .filter(|(site, i)| {
            i.vars.contains("rank")
                || runs.iter().any(|r| {
                    let fracs = r.ranks.iter().filter_map(|k| {
                        let t = k.branches.get(&(*site, 0)).copied().unwrap_or(0);
                        let f = k.branches.get(&(*site, 1)).copied().unwrap_or(0);
                        (t + f > 0).then(|| t as f64 / (t + f) as f64)
                    });
                    let (lo, hi) = fracs.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), x| {
                        (lo.min(x), hi.max(x))
                    });
                    hi - lo > 0.5
                })
        })
        .map(|(site, _)| site)
        .collect()
}

/// Executions of a site on one rank from the counters (loops: iterations; IF: arm taken;
/// routines: calls from every call site naming them, none for the main program).
pub(super) fn executions(
    r: &crate::observe::RankObs,
    n: &Node,
    nodes: &BTreeMap<u32, &Node>,
) -> Option<f64> {
    let s = n.site.0;
    match &n.data {
        NodeData::Loop(_) => r.loops.get(&s).map(|(_, it)| *it as f64),
        NodeData::If(_) => r.branches.get(&(s, 0)).map(|c| *c as f64),
        NodeData::Call { .. } => r.calls.get(&s).map(|c| *c as f64),
        NodeData::Routine { name, .. } => nodes
            .values()
            .filter(|c| matches!(&c.data, NodeData::Call { callee, .. } if callee == name))
            .filter_map(|c| r.calls.get(&c.site.0))
            .map(|c| *c as f64)
            .reduce(|a, b| a + b),
        _ => None,
    }
}
