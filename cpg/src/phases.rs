//! The CPG of one run: the site graph (petgraph, one node per call site that carried a matched
//! message, one edge per linked pair of sites), its connected components as phases (Fig. 2
//! steps 2–5), the wavefront merge, and the per-phase description of [`crate::Phase`].
//!
//! Classification (step 3): a processor is *async* when, in its own order, a receive of the
//! phase takes effect before its first send of the phase. "Takes effect" is the blocking
//! receive or the wait that completed an Irecv — an Irecv posted before the send but waited
//! after it does not make a pipeline. Sendrecv sends before it receives. The phase is a
//! pipeline when any processor is async, loosely synchronous otherwise; `determinate` says
//! whether any processor both sends and receives (else the run cannot tell the two apart).

use std::collections::{BTreeMap, BTreeSet};

use petgraph::graph::{NodeIndex, UnGraph};
use petgraph::unionfind::UnionFind;
use serde::{Deserialize, Serialize};
use trace::RankTrace;

use crate::depth::{chain_depth, Hop};
use crate::matching::{match_run, Dir, Matching, Pos};
use crate::overlap::{rank_phases, OverlapScan};
use crate::{CpgError, CpgOptions, Dependence, Phase, PhaseKind, RunSummary, SiteTree, Stats};

/// An edge of the site graph. Message edges go from the send site (first endpoint) to the
/// receive site (second endpoint).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Link {
    /// `count` matched messages of `bytes` bytes in total.
    Message { count: u64, bytes: i64 },
    /// Requests of the two sites completed together by one Waitall, `count` times.
    Completion { count: u64 },
}

/// The communication phase graph of one run.
#[derive(Debug, Clone)]
pub struct Cpg {
    graph: UnGraph<u32, Link>,
    summary: RunSummary,
}

impl Cpg {
    /// Builds the CPG of one run: `traces` are the ranks of one world (any order).
    pub fn build(
        traces: &[RankTrace],
        tree: &SiteTree,
        opts: &CpgOptions,
    ) -> Result<Cpg, CpgError> {
        let world = check_ranks(traces)?;
        let by_rank: BTreeMap<u32, &RankTrace> = traces
            .iter()
            .filter_map(|t| u32::try_from(t.header.rank).ok().map(|r| (r, t)))
            .collect();
        let m = match_run(traces);
        let mut matched: BTreeSet<(u32, usize)> = BTreeSet::new();
        for msg in &m.messages {
            matched.insert((msg.from, msg.send));
            matched.insert((msg.to, msg.recv));
        }
        let graph = site_graph(&m, &matched, opts);
        let comps = components(&graph);
        let groups = if opts.merge_wavefronts {
            merge_wavefronts(&comps, &m, &matched, tree)
        } else {
            comps.iter().map(|c| vec![c.clone()]).collect()
        };
        let mut warnings = Vec::new();
        let mut phases: Vec<Phase> = groups
            .iter()
            .map(|g| {
                let sites: BTreeSet<u32> = g.iter().flatten().copied().collect();
                let cs = u32::try_from(g.len()).unwrap_or(u32::MAX);
                describe_p2p(&sites, cs, &m, &matched, &by_rank, tree, &mut warnings)
            })
            .collect();
        phases.extend(collectives(&m, tree));
        phases.sort_by(|a, b| (a.order, &a.sites).cmp(&(b.order, &b.sites)));
        for p in &phases {
            for s in &p.sites {
                if tree.get(*s).is_none() {
                    warnings.push(format!(
                        "site {s} of phase {} is not in the APT (traces from another version?)",
                        p.id
                    ));
                }
            }
        }
        let dependences = dependences(&phases);
        let mut proc_null = BTreeMap::new();
        let (mut incomplete, mut unknown) = (0, 0);
        for r in &m.ranks {
            for (s, n) in &r.proc_null {
                *proc_null.entry(*s).or_insert(0) += n;
            }
            incomplete += r.incomplete;
            unknown += r.unknown_peer;
        }
        for (s, n) in &m.unmatched_sends {
            warnings.push(format!("site {s}: {n} send(s) without a matching receive"));
        }
        for (s, n) in &m.unmatched_recvs {
            warnings.push(format!("site {s}: {n} receive(s) without a matching send"));
        }
        if incomplete > 0 {
            warnings.push(format!("{incomplete} receive request(s) never completed through a traced wait: not matched"));
        }
        if unknown > 0 {
            warnings.push(format!(
                "{unknown} call(s) with a peer that could not be translated to a world rank"
            ));
        }
        let summary = RunSummary {
            world_size: world,
            phases,
            dependences,
            proc_null,
            unmatched_sends: m.unmatched_sends.clone(),
            unmatched_recvs: m.unmatched_recvs.clone(),
            warnings,
        };
        Ok(Cpg { graph, summary })
    }

    pub fn phases(&self) -> &[Phase] {
        &self.summary.phases
    }

    pub fn phase(&self, id: &str) -> Option<&Phase> {
        self.summary.phases.iter().find(|p| p.id == id)
    }

    pub fn phase_of_site(&self, site: u32) -> Option<&Phase> {
        self.summary
            .phases
            .iter()
            .find(|p| p.sites.binary_search(&site).is_ok())
    }

    pub fn dependences(&self) -> &[Dependence] {
        &self.summary.dependences
    }

    pub fn summary(&self) -> &RunSummary {
        &self.summary
    }

    pub fn into_summary(self) -> RunSummary {
        self.summary
    }

    /// The site graph: node weight = site id.
    pub fn graph(&self) -> &UnGraph<u32, Link> {
        &self.graph
    }
}

fn check_ranks(traces: &[RankTrace]) -> Result<u32, CpgError> {
    let first = traces.first().ok_or(CpgError::Empty)?;
    let world = first.header.world_size;
    let mut seen = BTreeSet::new();
    for t in traces {
        if t.header.world_size != world {
            return Err(CpgError::Ranks(format!(
                "world size {} in rank {} but {world} in rank {}",
                t.header.world_size, t.header.rank, first.header.rank
            )));
        }
        if t.header.rank < 0 || t.header.rank >= world || !seen.insert(t.header.rank) {
            return Err(CpgError::Ranks(format!(
                "rank {} twice or outside 0..{world}",
                t.header.rank
            )));
        }
    }
    if seen.len() != usize::try_from(world).unwrap_or(usize::MAX) {
        return Err(CpgError::Ranks(format!(
            "{} rank trace(s) for a world of {world}",
            seen.len()
        )));
    }
    u32::try_from(world).map_err(|_| CpgError::Ranks(format!("world size {world}")))
}

fn site_graph(
    m: &Matching,
    matched: &BTreeSet<(u32, usize)>,
    opts: &CpgOptions,
) -> UnGraph<u32, Link> {
    let mut msgs: BTreeMap<(u32, u32), (u64, i64)> = BTreeMap::new();
    for msg in &m.messages {
        if let (Some(s), Some(r)) = (m.action(msg.from, msg.send), m.action(msg.to, msg.recv)) {
            let e = msgs.entry((s.site, r.site)).or_default();
            e.0 += 1;
            e.1 = e.1.saturating_add(msg.bytes);
        }
    }
    let mut joins: BTreeMap<(u32, u32), u64> = BTreeMap::new();
    if opts.join_completions {
        for r in &m.ranks {
            let mut groups: BTreeMap<usize, BTreeSet<u32>> = BTreeMap::new();
            for (k, a) in r.p2p.iter().enumerate() {
                if let (Some(j), true) = (a.join, matched.contains(&(r.rank, k))) {
                    groups.entry(j).or_default().insert(a.site);
                }
            }
            for sites in groups.values() {
                let v: Vec<u32> = sites.iter().copied().collect();
                for w in v.windows(2) {
                    if let [a, b] = w {
                        *joins.entry((*a, *b)).or_default() += 1;
                    }
                }
            }
        }
    }
    let mut g = UnGraph::default();
    let sites: BTreeSet<u32> = msgs.keys().flat_map(|&(a, b)| [a, b]).collect();
    let idx: BTreeMap<u32, NodeIndex> = sites.iter().map(|&s| (s, g.add_node(s))).collect();
    for ((a, b), (count, bytes)) in msgs {
        if let (Some(&x), Some(&y)) = (idx.get(&a), idx.get(&b)) {
            g.add_edge(x, y, Link::Message { count, bytes });
        }
    }
    for ((a, b), count) in joins {
        if let (Some(&x), Some(&y)) = (idx.get(&a), idx.get(&b)) {
            g.add_edge(x, y, Link::Completion { count });
        }
    }
    g
}

/// Connected components as sorted site sets, ordered by their smallest site.
fn components(g: &UnGraph<u32, Link>) -> Vec<BTreeSet<u32>> {
    let mut uf = UnionFind::<usize>::new(g.node_count());
    for e in g.edge_indices() {
        if let Some((a, b)) = g.edge_endpoints(e) {
            uf.union(a.index(), b.index());
        }
    }
    let mut by_root: BTreeMap<usize, BTreeSet<u32>> = BTreeMap::new();
    for n in g.node_indices() {
        if let Some(&s) = g.node_weight(n) {
            by_root.entry(uf.find(n.index())).or_default().insert(s);
        }
    }
    let mut out: Vec<BTreeSet<u32>> = by_root.into_values().collect();
    out.sort();
    out
}

/// First send (a send to `MPI_PROC_NULL` included) and first receive position of each
/// processor that moved data in a set of sites.
type Firsts = (BTreeMap<u32, Pos>, BTreeMap<u32, Pos>);

fn firsts(sites: &BTreeSet<u32>, m: &Matching, matched: &BTreeSet<(u32, usize)>) -> Firsts {
    let (mut fs, mut fr): Firsts = Default::default();
    for r in &m.ranks {
        for (k, a) in r.p2p.iter().enumerate() {
            if !sites.contains(&a.site) || !matched.contains(&(r.rank, k)) {
                continue;
            }
            let slot = if a.dir == Dir::Send { &mut fs } else { &mut fr };
            let e = slot.entry(r.rank).or_insert(a.at);
            *e = (*e).min(a.at);
        }
        // a send to MPI_PROC_NULL is where a boundary processor executed its send
        for (site, at) in &r.null_sends {
            if sites.contains(site) && (fr.contains_key(&r.rank) || fs.contains_key(&r.rank)) {
                let e = fs.entry(r.rank).or_insert(*at);
                *e = (*e).min(*at);
            }
        }
    }
    (fs, fr)
}

/// Whether some processor's first send in X ∪ Y is preceded by a receive of the other set.
fn feeds(x: &Firsts, y: &Firsts) -> bool {
    let ranks: BTreeSet<u32> = x.0.keys().chain(y.0.keys()).copied().collect();
    ranks.into_iter().any(|r| {
        let (sx, sy) = (x.0.get(&r), y.0.get(&r));
        let (s, other_recv) = match (sx, sy) {
            (Some(a), Some(b)) if a <= b => (a, y.1.get(&r)),
            (Some(_), Some(b)) => (b, x.1.get(&r)),
            (Some(a), None) => (a, y.1.get(&r)),
            (None, Some(b)) => (b, x.1.get(&r)),
            (None, None) => return false,
        };
        other_recv.is_some_and(|rv| rv < s)
    })
}

/// Groups components into phases: components under one ancestor that feed each other are
/// one wavefront (repeated until no more merge).
fn merge_wavefronts(
    comps: &[BTreeSet<u32>],
    m: &Matching,
    matched: &BTreeSet<(u32, usize)>,
    tree: &SiteTree,
) -> Vec<Vec<BTreeSet<u32>>> {
    let anc: Vec<Option<u32>> = comps
        .iter()
        .map(|c| tree.ancestor(&c.iter().copied().collect::<Vec<_>>()))
        .collect();
    let mut fi: Vec<Firsts> = comps.iter().map(|c| firsts(c, m, matched)).collect();
    let mut uf = UnionFind::<usize>::new(comps.len());
    loop {
        let mut changed = false;
        for a in 0..comps.len() {
            for b in a + 1..comps.len() {
                let (ra, rb) = (uf.find(a), uf.find(b));
                if ra == rb || anc[a].is_none() || anc[a] != anc[b] {
                    continue;
                }
                let (Some(xa), Some(xb)) = (fi.get(ra), fi.get(rb)) else {
                    continue;
                };
                if feeds(xa, xb) {
                    let merged = merge_firsts(xa, xb);
                    uf.union(ra, rb);
                    if let Some(slot) = fi.get_mut(uf.find(ra)) {
                        *slot = merged;
                    }
                    changed = true;
                }
            }
        }
        if !changed {
            break;
        }
    }
    let mut groups: BTreeMap<usize, Vec<BTreeSet<u32>>> = BTreeMap::new();
    for (i, c) in comps.iter().enumerate() {
        groups.entry(uf.find(i)).or_default().push(c.clone());
    }
    let mut out: Vec<Vec<BTreeSet<u32>>> = groups.into_values().collect();
    out.sort();
    out
}

fn merge_firsts(a: &Firsts, b: &Firsts) -> Firsts {
    let mut out = a.clone();
    for (src, dst) in [(&b.0, &mut out.0), (&b.1, &mut out.1)] {
        for (&r, &p) in src {
            let e = dst.entry(r).or_insert(p);
            *e = (*e).min(p);
        }
    }
    out
}

pub(crate) fn phase_id(sites: &[u32]) -> String {
    let parts: Vec<String> = sites.iter().map(u32::to_string).collect();
    format!("g{}", parts.join("_"))
}

fn describe_p2p(
    sites: &BTreeSet<u32>,
    components: u32,
    m: &Matching,
    matched: &BTreeSet<(u32, usize)>,
    by_rank: &BTreeMap<u32, &RankTrace>,
    tree: &SiteTree,
    warnings: &mut Vec<String>,
) -> Phase {
    // per processor: its actions in the phase, in its order
    // (direction, position, addressed to MPI_PROC_NULL)
    let mut per_rank: BTreeMap<u32, Vec<(Dir, Pos, bool)>> = BTreeMap::new();
    let mut comm_size = 0;
    for r in &m.ranks {
        for (k, a) in r.p2p.iter().enumerate() {
            if sites.contains(&a.site) && matched.contains(&(r.rank, k)) {
                per_rank
                    .entry(r.rank)
                    .or_default()
                    .push((a.dir, a.at, false));
                comm_size = comm_size.max(a.comm);
            }
        }
        for (site, at) in &r.null_sends {
            if sites.contains(site) {
                if let Some(evs) = per_rank.get_mut(&r.rank) {
                    evs.push((Dir::Send, *at, true));
                }
            }
        }
    }
    let (mut senders, mut receivers, mut asyncs) = (BTreeSet::new(), BTreeSet::new(), Vec::new());
    for (&r, evs) in per_rank.iter_mut() {
        evs.sort_by_key(|e| e.1);
        // async: the processor's first send of the phase comes after a receive. A send to
        // MPI_PROC_NULL at one of the phase's sites is a send the program executed (the
        // boundary rank of an exchange, e.g. the first of two Sendrecvs): it moves nothing, so
        // it never makes the processor async, but a receive after it is not "before the send".
        let (mut received, mut sent) = (false, false);
        for &(d, _, null) in evs.iter() {
            match d {
                Dir::Recv => {
                    receivers.insert(r);
                    received = true;
                }
                Dir::Send if null => sent = true,
                Dir::Send => {
                    if senders.insert(r) && received && !sent {
                        asyncs.push(r);
                    }
                    sent = true;
                }
            }
        }
    }
    let mut hops = Vec::new();
    let mut bytes = Vec::new();
    let mut site_bytes: BTreeMap<u32, Vec<f64>> = BTreeMap::new();
    let mut site_senders: BTreeMap<u32, BTreeSet<u32>> = BTreeMap::new();
    let mut per_sender: BTreeMap<u32, u64> = BTreeMap::new();
    let mut per_pair: BTreeMap<(u32, u32), u64> = BTreeMap::new();
    for msg in &m.messages {
        let (Some(s), Some(rv)) = (m.action(msg.from, msg.send), m.action(msg.to, msg.recv)) else {
            continue;
        };
        if !sites.contains(&s.site) {
            continue;
        }
        hops.push(Hop {
            from: msg.from,
            to: msg.to,
            sent: s.at,
            received: rv.at,
            site: s.site,
        });
        bytes.push(msg.bytes as f64);
        site_bytes.entry(s.site).or_default().push(msg.bytes as f64);
        site_senders.entry(s.site).or_default().insert(msg.from);
        *per_sender.entry(msg.from).or_default() += 1;
        *per_pair.entry((msg.from, msg.to)).or_default() += 1;
    }
    let determinate = senders.intersection(&receivers).next().is_some();
    let hub = hub_of(&hops);
    let kind = if asyncs.is_empty() {
        PhaseKind::Synchronous
    } else if hub.is_some() {
        PhaseKind::Star
    } else {
        PhaseKind::Pipeline
    };
    let site_list: Vec<u32> = sites.iter().copied().collect();
    let id = phase_id(&site_list);
    let (depth, chain_sites) = if kind != PhaseKind::Synchronous || !determinate {
        // a hop weighs the busiest site's messages per message of its own site, per sender:
        // the blocks a processor passes on before it sends one
        let per_sender: BTreeMap<u32, f64> = site_bytes
            .iter()
            .filter_map(|(site, b)| {
                let n = site_senders.get(site).map_or(0, BTreeSet::len);
                (n > 0).then(|| (*site, b.len() as f64 / n as f64))
            })
            .collect();
        let busiest = per_sender.values().copied().fold(0.0, f64::max);
        let weights: BTreeMap<u32, f64> = per_sender
            .iter()
            .map(|(site, n)| (*site, busiest / n.max(1.0)))
            .collect();
        let d = chain_depth(&hops, &weights);
        if d.cycle {
            warnings.push(format!(
                "phase {id}: message chains form a cycle; depth computed without its back edges"
            ));
        }
        (Some(d.depth), d.by_site)
    } else {
        (None, BTreeMap::new())
    };
    let first = if kind != PhaseKind::Synchronous {
        Dir::Recv
    } else {
        Dir::Send
    };
    // Computation inside an occurrence of the phase lies under its anchor: a loop that runs
    // only between the anchor's executions (the rest of a time step, between one step's
    // receive and the next step's send) is not inside it, whatever the event order says.
    let anchor = tree.ancestor(&site_list);
    let mut inside: BTreeMap<u32, bool> = BTreeMap::new();
    let mut scan = OverlapScan::default();
    for (&r, evs) in &per_rank {
        if let Some(t) = by_rank.get(&r) {
            let moved: Vec<(Dir, Pos)> = evs
                .iter()
                .filter(|e| !e.2)
                .map(|&(d, at, _)| (d, at))
                .collect();
            let mut phases = rank_phases(t);
            if let Some(a) = anchor {
                phases.retain(|(_, ph)| {
                    *inside
                        .entry(ph.site)
                        .or_insert_with(|| tree.may_run_under(ph.site, a))
                });
            }
            scan.add(r, &moved, &phases, first);
        }
    }
    let intervals = scan.intervals;
    let processors: BTreeSet<u32> = senders.union(&receivers).copied().collect();
    Phase {
        id,
        order: site_list
            .iter()
            .map(|&s| tree.order(s))
            .min()
            .unwrap_or(u32::MAX),
        ancestor: anchor,
        sites: site_list,
        kind,
        determinate,
        components,
        processors: processors.into_iter().collect(),
        senders: senders.into_iter().collect(),
        receivers: receivers.into_iter().collect(),
        async_processors: asyncs,
        messages: bytes.len() as u64,
        pairs: per_pair.len() as u64,
        bytes: Stats::of(bytes),
        site_bytes: site_bytes
            .into_iter()
            .map(|(site, b)| (site, Stats::of(b)))
            .collect(),
        site_senders: site_senders
            .into_iter()
            .map(|(site, s)| (site, u32::try_from(s.len()).unwrap_or(u32::MAX)))
            .collect(),
        hub,
        per_processor: Stats::of(per_sender.values().map(|&n| n as f64)),
        instances: Stats::of(per_pair.values().map(|&n| n as f64)),
        depth,
        chain_sites,
        comm_size,
        intervals,
        compute: scan.finish(),
        call_seconds: Stats::default(),
        neighbours: 0,
    }
}

/// The hub of a star: the one processor every message goes to or comes from, when it serves
/// two or more others. On two processors every exchange has such a processor, so a star needs
/// three.
fn hub_of(hops: &[Hop]) -> Option<u32> {
    let first = hops.first()?;
    let hub = [first.from, first.to]
        .into_iter()
        .find(|&h| hops.iter().all(|m| m.from == h || m.to == h))?;
    let spokes: BTreeSet<u32> = hops
        .iter()
        .map(|m| if m.from == hub { m.to } else { m.from })
        .collect();
    (spokes.len() >= 2).then_some(hub)
}

/// One phase per collective call site.
fn collectives(m: &Matching, tree: &SiteTree) -> Vec<Phase> {
    struct Acc {
        op: String,
        calls: BTreeMap<u32, u64>,
        seconds: BTreeMap<u32, f64>,
        bytes: Vec<f64>,
        neighbours: u32,
        comm: i32,
    }
    let mut by_site: BTreeMap<u32, Acc> = BTreeMap::new();
    for r in &m.ranks {
        for c in &r.coll {
            let a = by_site.entry(c.site).or_insert_with(|| Acc {
                op: c.op.mpi_name().to_string(),
                calls: BTreeMap::new(),
                seconds: BTreeMap::new(),
                bytes: Vec::new(),
                neighbours: 0,
                comm: 0,
            });
            *a.calls.entry(r.rank).or_default() += 1;
            *a.seconds.entry(r.rank).or_default() += c.seconds;
            a.bytes.push(c.bytes as f64);
            a.neighbours = a.neighbours.max(c.neighbours);
            a.comm = a.comm.max(c.comm);
        }
    }
    by_site
        .into_iter()
        .map(|(site, a)| {
            let procs: Vec<u32> = a.calls.keys().copied().collect();
            Phase {
                id: phase_id(&[site]),
                sites: vec![site],
                kind: PhaseKind::Collective { op: a.op },
                determinate: true,
                components: 1,
                ancestor: tree.ancestor(&[site]),
                order: tree.order(site),
                senders: Vec::new(),
                receivers: Vec::new(),
                async_processors: Vec::new(),
                messages: a.calls.values().sum(),
                pairs: 0,
                bytes: Stats::of(a.bytes),
                site_bytes: BTreeMap::new(),
                site_senders: BTreeMap::new(),
                hub: None,
                per_processor: Stats::of(a.calls.values().map(|&n| n as f64)),
                instances: Stats::of(a.calls.values().map(|&n| n as f64)),
                depth: None,
                chain_sites: BTreeMap::new(),
                comm_size: a.comm,
                intervals: 0,
                compute: Vec::new(),
                call_seconds: Stats::of(
                    a.calls
                        .iter()
                        .map(|(r, n)| a.seconds.get(r).copied().unwrap_or(0.0) / *n as f64),
                ),
                neighbours: a.neighbours,
                processors: procs,
            }
        })
        .collect()
}

/// Consecutive phases under one ancestor, in program order: dependent iff RL(gᵢ) ∩ SL(gᵢ₊₁) ≠ ∅.
fn dependences(phases: &[Phase]) -> Vec<Dependence> {
    let mut by_anc: BTreeMap<u32, Vec<&Phase>> = BTreeMap::new();
    for p in phases {
        if let Some(a) = p.ancestor {
            by_anc.entry(a).or_default().push(p);
        }
    }
    let lists = |p: &Phase, recv: bool| -> BTreeSet<u32> {
        let l = if matches!(p.kind, PhaseKind::Collective { .. }) {
            &p.processors
        } else if recv {
            &p.receivers
        } else {
            &p.senders
        };
        l.iter().copied().collect()
    };
    let mut out = Vec::new();
    for (anc, list) in by_anc {
        for w in list.windows(2) {
            if let [a, b] = w {
                let shared = lists(a, true).intersection(&lists(b, false)).count() as u64;
                out.push(Dependence {
                    ancestor: anc,
                    first: a.id.clone(),
                    second: b.id.clone(),
                    dependent: shared > 0,
                    shared,
                });
            }
        }
    }
    out
}
