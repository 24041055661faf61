//! The model's view of the communication phases: a thin adapter over the `cpg` crate, which
//! owns matching, phases, synchronous/pipeline classification, depth, ancestors, overlapped
//! computation and dependences (DESIGN.md). Each run's `cpg::RunSummary` is built when the run
//! is loaded ([`crate::observe::load_runs`]); here `cpg::Series` lines the phases up across
//! runs and each series becomes a [`Phase`] with, per run index, the quantities `build` fits.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use crate::observe::RunObs;

/// A series' kind as the model reports it (collectives carry their operation in `cpg`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum PhaseKind {
    Synchronous,
    Pipeline,
    /// A hub serving the other processors (master/worker, a task farm): asynchronous like a
    /// pipeline, but its workers run side by side rather than in stages.
    Star,
    Collective,
}

impl From<&cpg::PhaseKind> for PhaseKind {
    fn from(k: &cpg::PhaseKind) -> Self {
        match k {
            cpg::PhaseKind::Synchronous => PhaseKind::Synchronous,
            cpg::PhaseKind::Pipeline => PhaseKind::Pipeline,
            cpg::PhaseKind::Star => PhaseKind::Star,
            cpg::PhaseKind::Collective { .. } => PhaseKind::Collective,
        }
    }
}

/// One phase as seen in one run (read off that run's `cpg::Phase`).
#[derive(Debug, Clone, Default)]
pub struct PhaseRun {
    /// The phase's id in this run (its sites there), for the run's dependences.
    pub id: String,
    pub senders: BTreeSet<u32>,
    pub receivers: BTreeSet<u32>,
    /// Processors taking part.
    pub processors: u32,
    /// The communicator's size (a collective on a split communicator: the group's, not P).
    pub comm_size: u32,
    /// Longest chain in hops (0 when `cpg` reports none: a determinate synchronous phase).
    pub depth: u32,
    /// Messages (sends, or collective calls) per rank: the largest count over ranks.
    pub max_msgs_per_rank: u64,
    /// Mean bytes per message.
    pub bytes: f64,
    /// The largest bytes per message by sending site: a loosely synchronous exchange waits for
    /// its largest message, and one site may send several sizes (a loop over a 3-D grid's
    /// dimensions sending each face in turn; trial 13).
    pub site_bytes: BTreeMap<u32, f64>,
    /// Messages per sending processor by the sending site, over the run.
    pub site_sends: BTreeMap<u32, f64>,
    /// A pipeline's longest chain, its hops by the site that sent each.
    pub chain_sites: BTreeMap<u32, u32>,
    pub messages: u64,
    /// Computation-phase site → its entries inside the phase per processor that ran it there
    /// (cpg's overlap occurrences over processors).
    pub inside: BTreeMap<u32, f64>,
    /// Computation-phase site → the most entries one processor made inside the phase (cpg's
    /// `most_occurrences`; 0 in traces analysed before it was kept).
    pub inside_most: BTreeMap<u32, f64>,
    /// The computation inside the phase, over its sites: a processor's first occurrence and
    /// the mean occurrence, seconds (cpg's `first_wall_mean`, `wall_mean`; 0 where cpg has none).
    pub first_stage: f64,
    pub stage: f64,
    /// Collectives: the slowest processor's mean seconds per call (cpg's `call_seconds.max`).
    pub call_seconds: f64,
    /// Neighbourhood collectives: the most messages one processor posts each way per call.
    pub neighbours: f64,
}

impl PhaseRun {
    /// Messages of the phase's busiest sending site per message of `site`, per sending
    /// processor: the blocks a processor passes on before it sends one from `site` (1 for the
    /// busiest). None where `site` sends nothing in this run.
    pub fn blocks_per_message(&self, site: u32) -> Option<f64> {
        let own = self.site_sends.get(&site).copied().filter(|s| *s > 0.0)?;
        let busiest = self.site_sends.values().copied().fold(0.0, f64::max);
        Some(busiest / own)
    }
}

/// One phase across runs (`cpg::PhaseSeries`).
#[derive(Debug, Clone)]
pub struct Phase {
    pub sites: BTreeSet<u32>,
    pub kind: PhaseKind,
    /// APT ancestor (nearest common non-COMM ancestor) at the run with the most sites, largest P.
    pub ancestor: Option<u32>,
    /// Index into the run list → what this phase did in that run.
    pub runs: BTreeMap<usize, PhaseRun>,
    /// Computation-phase sites executed inside the phase, over all runs.
    pub overlapped: BTreeSet<u32>,
    /// Whether some run had a processor that both sends and receives in the phase; if none
    /// did (a chain of two ranks), pipeline and loosely synchronous cannot be told apart.
    pub determinate: bool,
}

/// The phases of all runs, in program order of their first appearance.
pub fn find(runs: &[RunObs]) -> Vec<Phase> {
    let input: Vec<(String, BTreeMap<String, f64>, u32, cpg::RunSummary)> = runs
        .iter()
        .map(|r| {
            let mut params = r.params.clone();
            params.remove("P");
            (r.config.clone(), params, r.cpg.world_size, r.cpg.clone())
        })
        .collect();
    let index: BTreeMap<&str, usize> = runs
        .iter()
        .enumerate()
        .map(|(i, r)| (r.config.as_str(), i))
        .collect();
    cpg::Series::from_runs(&input)
        .phases
        .into_iter()
        .map(|s| {
            let mut runs_of = BTreeMap::new();
            let mut overlapped = BTreeSet::new();
            let mut best: Option<(usize, u32, Option<u32>)> = None;
            for pt in &s.points {
                let Some(&ri) = index.get(pt.config.as_str()) else {
                    continue;
                };
                let g = &pt.phase;
                overlapped.extend(g.compute.iter().map(|o| o.site));
                let key = (g.sites.len(), pt.np);
                if best.is_none_or(|(n, p, _)| key > (n, p)) {
                    best = Some((key.0, key.1, g.ancestor));
                }
                runs_of.insert(
                    ri,
                    PhaseRun {
                        id: g.id.clone(),
                        senders: g.senders.iter().copied().collect(),
                        receivers: g.receivers.iter().copied().collect(),
                        processors: u32::try_from(g.processors.len()).unwrap_or(u32::MAX),
                        comm_size: u32::try_from(g.comm_size).unwrap_or(0),
                        depth: g.depth.unwrap_or(0),
                        max_msgs_per_rank: g.per_processor.max.max(0.0).round() as u64,
                        call_seconds: g.call_seconds.max.max(0.0),
                        neighbours: f64::from(g.neighbours),
                        bytes: g.bytes.mean,
                        site_bytes: g.site_bytes.iter().map(|(s, b)| (*s, b.max)).collect(),
                        chain_sites: g.chain_sites.clone(),
                        site_sends: g
                            .site_bytes
                            .iter()
                            .filter_map(|(s, b)| {
                                let n = *g.site_senders.get(s)?;
                                (n > 0).then(|| (*s, b.count as f64 / f64::from(n)))
                            })
                            .collect(),
                        messages: g.messages,
                        inside: g
                            .compute
                            .iter()
                            .map(|o| {
                                (
                                    o.site,
                                    o.occurrences as f64 / f64::from(o.processors.max(1)),
                                )
                            })
                            .collect(),
                        inside_most: g
                            .compute
                            .iter()
                            .map(|o| (o.site, o.most_occurrences as f64))
                            .collect(),
                        first_stage: g.compute.iter().map(|o| o.first_wall_mean).sum(),
                        stage: g.compute.iter().map(|o| o.wall_mean).sum(),
                    },
                );
            }
            Phase {
                sites: s.sites.iter().copied().collect(),
                kind: PhaseKind::from(&s.kind),
                ancestor: best.and_then(|b| b.2),
                runs: runs_of,
                overlapped,
                determinate: s.points.iter().any(|pt| pt.phase.determinate),
            }
        })
        .collect()
}

/// For each phase, the runs in which it costs time on the critical processor: the processor
/// that takes part in the most synchronous phases under the phase's APT ancestor (ties broken
/// towards phases earlier in program order, so the choice is the same across runs). Per step,
/// a sequence of synchronous exchanges costs what the busiest processor does, not the sum of
/// every phase: on a 2 × 2 grid each processor has one of its two north-south and one of its
/// two east-west neighbours, so it pays for two of the four exchanges. Pipelines and
/// collectives: the runs where the phase exists. A point-to-point phase on one processor (a
/// periodic ring at P = 1 sends to itself) moves nothing between processors: not its runs.
pub fn critical_runs(found: &[Phase]) -> Vec<BTreeSet<usize>> {
    let mut out: Vec<BTreeSet<usize>> = found
        .iter()
        .map(|g| {
            g.runs
                .iter()
                .filter(|(_, pr)| g.kind == PhaseKind::Collective || pr.processors > 1)
                .map(|(ri, _)| *ri)
                .collect()
        })
        .collect();
    let mut groups: BTreeMap<u32, Vec<usize>> = BTreeMap::new();
    for (gi, g) in found.iter().enumerate() {
        if let (PhaseKind::Synchronous, Some(a)) = (g.kind, g.ancestor) {
            groups.entry(a).or_default().push(gi);
        }
    }
    for group in groups.values().filter(|g| g.len() > 1) {
        let run_ids: BTreeSet<usize> = group
            .iter()
            .flat_map(|gi| found[*gi].runs.keys().copied())
            .collect();
        for ri in run_ids {
            let takes_part = |gi: usize, rank: u32| {
                found[gi]
                    .runs
                    .get(&ri)
                    .is_some_and(|pr| pr.senders.contains(&rank) || pr.receivers.contains(&rank))
            };
            let ranks: BTreeSet<u32> = group
                .iter()
                .filter_map(|gi| found[*gi].runs.get(&ri))
                .flat_map(|pr| pr.senders.iter().chain(&pr.receivers).copied())
                .collect();
            // (phases taken part in, which ones in program order) — largest wins
            let critical = ranks
                .iter()
                .map(|&rank| {
                    let part: Vec<bool> = group.iter().map(|&gi| takes_part(gi, rank)).collect();
                    (part.iter().filter(|b| **b).count(), part)
                })
                .max();
            for (gi, on) in group.iter().zip(critical.map(|c| c.1).unwrap_or_default()) {
                if !on {
                    out[*gi].remove(&ri);
                }
            }
        }
    }
    out
}

/// Whether `a` and `b` (consecutive under one ancestor) have no processor dependence
/// (RL(a) ∩ SL(b) = ∅) at the largest run that has both, by that run's `cpg` dependences.
pub fn independent(runs: &[RunObs], a: &Phase, b: &Phase) -> bool {
    let shared = a
        .runs
        .keys()
        .filter(|k| b.runs.contains_key(k))
        .max_by_key(|k| runs.get(**k).map_or(0, RunObs::p));
    let Some(k) = shared else { return false };
    let (Some(ra), Some(rb), Some(run)) = (a.runs.get(k), b.runs.get(k), runs.get(*k)) else {
        return false;
    };
    run.cpg
        .dependences
        .iter()
        .any(|d| d.first == ra.id && d.second == rb.id && !d.dependent)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn load(prog: &str) -> Vec<RunObs> {
        crate::observe::testdata_runs(prog, "smpi-c")
    }

    /// Native runs (P <= 2) of the pipeline: rank 0 only sends, rank 1 only receives, so no
    /// run tells a pipeline from an exchange; the SMPI runs up to P = 16 do.
    #[test]
    fn two_rank_chains_are_indeterminate() {
        let native = crate::observe::testdata_runs("pipeline", "mpi-c");
        let p2p = |runs: &[RunObs]| -> Vec<Phase> {
            find(runs)
                .into_iter()
                .filter(|g| g.kind != PhaseKind::Collective)
                .collect()
        };
        let n = p2p(&native);
        assert_eq!(n.len(), 1);
        assert!(!n[0].determinate);
        let s = p2p(&load("pipeline"));
        assert_eq!(s.len(), 1);
        assert!(s[0].determinate);
        assert_eq!(s[0].kind, PhaseKind::Pipeline);
    }

    /// Seed 004 Fig. 1 on the recorded runs: same send and receive lists; the shift is
    /// synchronous, the pipeline a chain of depth P-1, both with the computation inside.
    #[test]
    fn shift_vs_pipeline() {
        let (sr, qr) = (load("shift"), load("pipeline"));
        let s: Vec<Phase> = find(&sr)
            .into_iter()
            .filter(|p| p.kind != PhaseKind::Collective)
            .collect();
        let q: Vec<Phase> = find(&qr)
            .into_iter()
            .filter(|p| p.kind != PhaseKind::Collective)
            .collect();
        assert_eq!(s.len(), 1);
        assert_eq!(q.len(), 1);
        assert_eq!(s[0].kind, PhaseKind::Synchronous);
        assert_eq!(q[0].kind, PhaseKind::Pipeline);
        assert!(!s[0].overlapped.is_empty() && !q[0].overlapped.is_empty());
        for (ri, pr) in &q[0].runs {
            let p = u32::try_from(qr[*ri].p()).unwrap();
            assert_eq!(pr.depth, p - 1, "{}", qr[*ri].config);
            assert_eq!(pr.processors, p);
        }
        for (ri, pr) in &s[0].runs {
            assert_eq!(pr.processors, u32::try_from(sr[*ri].p()).unwrap());
        }
    }

    /// atm2d's four halo exchanges per colour: on a 1 × 2 grid the busiest processor takes part
    /// in one, on 2 × 2 in two (one north-south and one east-west neighbour), on 2 × 4 in three,
    /// on 4 × 4 in all four.
    #[test]
    fn critical_processor_participation_on_a_grid() {
        let runs = load("atm2d");
        let found = find(&runs);
        let on = critical_runs(&found);
        let sync: Vec<usize> = (0..found.len())
            .filter(|gi| found[*gi].kind == PhaseKind::Synchronous)
            .collect();
        assert_eq!(sync.len(), 4);
        for (ri, run) in runs.iter().enumerate() {
            let counted = sync.iter().filter(|gi| on[**gi].contains(&ri)).count();
            let expect = match run.p() {
                2 => 1,
                4 => 2,
                8 => 3,
                _ => 4,
            };
            assert_eq!(counted, expect, "{}", run.config);
        }
        // a lone phase keeps every run it exists in
        let shift = load("shift");
        let f = find(&shift);
        let on = critical_runs(&f);
        for (gi, g) in f.iter().enumerate() {
            assert_eq!(on[gi], g.runs.keys().copied().collect::<BTreeSet<_>>());
        }
    }

    /// A point-to-point phase on one processor (a periodic ring at P = 1 exchanging with
    /// itself) moves nothing between processors: that run is not one where it costs time.
    #[test]
    fn a_phase_on_one_processor_is_not_critical_there() {
        let shift = load("shift");
        let mut f = find(&shift);
        let gi = f
            .iter()
            .position(|g| g.kind == PhaseKind::Synchronous)
            .unwrap();
        let (&alone, _) = f[gi].runs.iter().next().unwrap();
        f[gi].runs.get_mut(&alone).unwrap().processors = 1;
        let on = critical_runs(&f);
        assert!(!on[gi].contains(&alone));
        assert_eq!(on[gi].len(), f[gi].runs.len() - 1);
    }

    #[test]
    fn pge2_pipelines_are_independent_in_pairs() {
        let runs = load("pge2");
        let found = find(&runs);
        let pipes: Vec<&Phase> = found
            .iter()
            .filter(|p| p.kind == PhaseKind::Pipeline)
            .collect();
        assert_eq!(pipes.len(), 4);
        let pairs = pipes
            .windows(2)
            .filter(|w| w[0].ancestor == w[1].ancestor && independent(&runs, w[0], w[1]))
            .count();
        assert_eq!(pairs, 2);
    }
}
