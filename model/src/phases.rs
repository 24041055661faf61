//! Communication phases across runs, after seed 004 §3 (Figure 2): sends matched to receives
//! (per sender, receiver and tag in order, as MPI's non-overtaking rule guarantees), an edge
//! between their call sites, phases = connected components of sites over *all* runs (so a
//! phase keeps one identity while P and N vary), and per run the send/receive lists, pairs,
//! the async flag (a rank receives in the phase before its first send there → pipeline), the
//! longest chain depth, message sizes and the computation sites run inside the phase.
//! Each collective site is a phase of its own kind.
//!
//! This is the interim phase finder of the `model` crate; the `cpg` crate is meant to replace
//! it with the same outputs.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use serde::Serialize;

use crate::observe::{Ev, RunObs};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum PhaseKind {
    Synchronous,
    Pipeline,
    Collective,
}

/// One phase as seen in one run.
#[derive(Debug, Clone, Default)]
pub struct PhaseRun {
    pub senders: BTreeSet<u32>,
    pub receivers: BTreeSet<u32>,
    pub pairs: BTreeSet<(u32, u32)>,
    pub asynchronous: bool,
    /// Longest chain of distinct ranks along `pairs`, in hops.
    pub depth: u32,
    /// Messages (sends, or collective calls) per rank: the largest count over ranks.
    pub max_msgs_per_rank: u64,
    /// Mean bytes per message.
    pub bytes: f64,
    pub messages: u64,
}

#[derive(Debug, Clone)]
pub struct Phase {
    pub sites: BTreeSet<u32>,
    pub kind: PhaseKind,
    /// Collectives: the operation.
    pub op: Option<trace::Op>,
    /// Index into the run list → what this phase did in that run.
    pub runs: BTreeMap<usize, PhaseRun>,
    /// Computation-phase sites executed between the phase's calls (sync: send → receive;
    /// pipeline: receive → send), over all runs.
    pub overlapped: BTreeSet<u32>,
}

struct Dsu(BTreeMap<u32, u32>);

impl Dsu {
    fn find(&mut self, x: u32) -> u32 {
        let mut r = x;
        while let Some(&p) = self.0.get(&r) {
            if p == r {
                break;
            }
            r = p;
        }
        self.0.insert(x, r);
        r
    }
    fn union(&mut self, a: u32, b: u32) {
        let (ra, rb) = (self.find(a), self.find(b));
        if ra != rb {
            self.0.insert(ra.max(rb), ra.min(rb));
        }
    }
}

/// Matched (send site, recv site, sender, receiver) of one run.
fn matches(run: &RunObs) -> Vec<(u32, u32, u32, u32)> {
    // (src, dst, tag) → FIFO of send sites
    let mut sends: BTreeMap<(u32, u32, i32), VecDeque<u32>> = BTreeMap::new();
    for (r, obs) in run.ranks.iter().enumerate() {
        for e in &obs.events {
            if let Ev::Send { site, peer, tag, .. } = e {
                sends.entry((r as u32, *peer, *tag)).or_default().push_back(*site);
            }
        }
    }
    let mut out = Vec::new();
    for (r, obs) in run.ranks.iter().enumerate() {
        for e in &obs.events {
            if let Ev::Recv { site, peer, tag, .. } = e {
                if let Some(s) = sends.get_mut(&(*peer, r as u32, *tag)).and_then(VecDeque::pop_front) {
                    out.push((s, *site, *peer, r as u32));
                }
            }
        }
    }
    out
}

fn longest_chain(pairs: &BTreeSet<(u32, u32)>) -> u32 {
    let mut adj: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
    for &(a, b) in pairs {
        if a != b {
            adj.entry(a).or_default().push(b);
        }
    }
    let nodes: BTreeSet<u32> = pairs.iter().flat_map(|&(a, b)| [a, b]).collect();
    // memoised DFS; a cycle (exchange) caps the chain at the node count
    let mut memo: BTreeMap<u32, u32> = BTreeMap::new();
    let mut on_stack = BTreeSet::new();
    let mut cyclic = false;
    fn go(
        n: u32,
        adj: &BTreeMap<u32, Vec<u32>>,
        memo: &mut BTreeMap<u32, u32>,
        on: &mut BTreeSet<u32>,
        cyclic: &mut bool,
    ) -> u32 {
        if let Some(&d) = memo.get(&n) {
            return d;
        }
        if !on.insert(n) {
            *cyclic = true;
            return 0;
        }
        let mut best = 0;
        for &m in adj.get(&n).map(Vec::as_slice).unwrap_or(&[]) {
            best = best.max(1 + go(m, adj, memo, on, cyclic));
        }
        on.remove(&n);
        memo.insert(n, best);
        best
    }
    let mut best = 0;
    for &n in &nodes {
        best = best.max(go(n, &adj, &mut memo, &mut on_stack, &mut cyclic));
    }
    if cyclic {
        best.min(nodes.len().saturating_sub(1) as u32)
    } else {
        best
    }
}

/// Finds the phases of every run.
pub fn find(runs: &[RunObs]) -> Vec<Phase> {
    let mut dsu = Dsu(BTreeMap::new());
    let per_run: Vec<_> = runs.iter().map(matches).collect();
    for m in &per_run {
        for &(s, r, _, _) in m {
            dsu.union(s, r);
        }
    }
    let mut groups: BTreeMap<u32, BTreeSet<u32>> = BTreeMap::new();
    for m in &per_run {
        for &(s, r, _, _) in m {
            let root = dsu.find(s);
            groups.entry(root).or_default().extend([s, r]);
        }
    }
    let mut phases: Vec<Phase> = groups
        .into_values()
        .map(|sites| Phase { sites, kind: PhaseKind::Synchronous, op: None, runs: BTreeMap::new(), overlapped: BTreeSet::new() })
        .collect();
    // collectives: one phase per site
    let mut coll: BTreeMap<u32, trace::Op> = BTreeMap::new();
    for run in runs {
        for r in &run.ranks {
            for e in &r.events {
                if let Ev::Coll { site, op, .. } = e {
                    coll.entry(*site).or_insert(*op);
                }
            }
        }
    }
    for (site, op) in coll {
        phases.push(Phase {
            sites: BTreeSet::from([site]),
            kind: PhaseKind::Collective,
            op: Some(op),
            runs: BTreeMap::new(),
            overlapped: BTreeSet::new(),
        });
    }
    phases.sort_by_key(|p| p.sites.iter().next().copied());
    let site_phase: BTreeMap<u32, usize> =
        phases.iter().enumerate().flat_map(|(i, p)| p.sites.iter().map(move |&s| (s, i))).collect();

    for (ri, run) in runs.iter().enumerate() {
        for &(s, _, a, b) in &per_run[ri] {
            if let Some(&g) = site_phase.get(&s) {
                phases[g].runs.entry(ri).or_default().pairs.insert((a, b));
            }
        }
        for (rank, obs) in run.ranks.iter().enumerate() {
            let rank = rank as u32;
            let mut sends: BTreeMap<usize, u64> = BTreeMap::new();
            for e in &obs.events {
                let (site, is_send, bytes) = match *e {
                    Ev::Send { site, bytes, .. } => (site, true, bytes),
                    Ev::Recv { site, .. } => (site, false, 0),
                    Ev::Coll { site, bytes, .. } => (site, true, bytes),
                    Ev::Compute { .. } => continue,
                };
                let Some(&g) = site_phase.get(&site) else { continue };
                let pr = phases[g].runs.entry(ri).or_default();
                if is_send {
                    if !pr.senders.contains(&rank) && pr.receivers.contains(&rank) {
                        pr.asynchronous = true;
                    }
                    pr.senders.insert(rank);
                    *sends.entry(g).or_insert(0) += 1;
                    pr.messages += 1;
                    pr.bytes += bytes as f64;
                } else {
                    pr.receivers.insert(rank);
                }
            }
            for (g, n) in sends {
                if let Some(pr) = phases[g].runs.get_mut(&ri) {
                    pr.max_msgs_per_rank = pr.max_msgs_per_rank.max(n);
                }
            }
        }
        for p in &mut phases {
            if let Some(pr) = p.runs.get_mut(&ri) {
                if pr.messages > 0 {
                    pr.bytes /= pr.messages as f64;
                }
                pr.depth = longest_chain(&pr.pairs);
            }
        }
    }
    for p in &mut phases {
        if p.kind != PhaseKind::Collective && p.runs.values().any(|r| r.asynchronous) {
            p.kind = PhaseKind::Pipeline;
        }
    }
    // computation inside phases: between c1 and c2 of the same phase on one rank
    for run in runs {
        for obs in &run.ranks {
            let mut last: BTreeMap<usize, bool> = BTreeMap::new(); // phase → last call was a send
            let mut pending: BTreeMap<usize, Vec<u32>> = BTreeMap::new();
            for e in &obs.events {
                let (site, is_send) = match *e {
                    Ev::Send { site, .. } => (site, true),
                    Ev::Recv { site, .. } => (site, false),
                    Ev::Coll { .. } => continue,
                    Ev::Compute { site } => {
                        for (g, v) in pending.iter_mut() {
                            if last.contains_key(g) {
                                v.push(site);
                            }
                        }
                        continue;
                    }
                };
                let Some(&g) = site_phase.get(&site) else { continue };
                let between = match (phases[g].kind, last.get(&g)) {
                    (PhaseKind::Synchronous, Some(true)) => !is_send,
                    (PhaseKind::Pipeline, Some(false)) => is_send,
                    _ => false,
                };
                let seen = pending.remove(&g).unwrap_or_default();
                if between {
                    phases[g].overlapped.extend(seen);
                }
                last.insert(g, is_send);
                pending.insert(g, Vec::new());
            }
        }
    }
    phases
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(p: usize, prog: impl Fn(u32) -> Vec<Ev>) -> RunObs {
        let ranks = (0..p as u32)
            .map(|r| crate::observe::RankObs { events: prog(r), ..Default::default() })
            .collect();
        RunObs { config: format!("P={p}"), params: BTreeMap::from([("P".into(), p as f64)]), smpi: false, ranks, time: 1.0 }
    }

    /// Seed 004 Fig. 1: same send and receive lists; shift is synchronous, pipeline has depth P-1.
    #[test]
    fn shift_vs_pipeline() {
        let p = 4u32;
        let send = |r: u32| Ev::Send { site: 1, peer: r + 1, tag: 0, bytes: 8 };
        let recv = |r: u32| Ev::Recv { site: 2, peer: r - 1, tag: 0, bytes: 8 };
        let shift = run(p as usize, |r| {
            let mut v = Vec::new();
            for _ in 0..3 {
                if r < p - 1 {
                    v.push(send(r));
                }
                v.push(Ev::Compute { site: 9 });
                if r > 0 {
                    v.push(recv(r));
                }
            }
            v
        });
        let pipe = run(p as usize, |r| {
            let mut v = Vec::new();
            for _ in 0..3 {
                if r > 0 {
                    v.push(recv(r));
                }
                v.push(Ev::Compute { site: 9 });
                if r < p - 1 {
                    v.push(send(r));
                }
            }
            v
        });
        let s = find(&[shift]);
        let q = find(&[pipe]);
        assert_eq!(s.len(), 1);
        assert_eq!(q.len(), 1);
        assert_eq!(s[0].kind, PhaseKind::Synchronous);
        assert_eq!(q[0].kind, PhaseKind::Pipeline);
        let (sr, qr) = (&s[0].runs[&0], &q[0].runs[&0]);
        assert_eq!(sr.senders, qr.senders);
        assert_eq!(sr.receivers, qr.receivers);
        assert_eq!(qr.depth, p - 1);
        assert_eq!(q[0].overlapped, BTreeSet::from([9]));
        assert_eq!(s[0].overlapped, BTreeSet::from([9]));
    }

    #[test]
    fn exchange_depth_is_capped() {
        let pairs = BTreeSet::from([(0, 1), (1, 0)]);
        assert_eq!(longest_chain(&pairs), 1);
    }
}
