//! Phases lined up across runs by identity (their sorted site set), so `model` can fit depth,
//! processor counts, sizes and counts as functions of the run parameters. Phases of different
//! runs that share a site are one series (its id is built from the union of the sites): at
//! P = 2 a 2-D wavefront has no east-west messages and its phase has only the north-south
//! sites, yet it is the same phase.
//!
//! Kind across runs: a run is only evidence when the phase is `determinate` there (some
//! processor both sends and receives); the pipeline verdict wins when determinate runs
//! disagree (a receive-before-send seen once is a pipeline), and `conflict` records it. When no
//! run is determinate (e.g. only P = 2 runs) the runs' own default, synchronous, stays. A star
//! (one hub serving the others) is one wherever three or more processors took part and no such
//! run saw a pipeline; on two processors it cannot be told from a pipeline.

use std::collections::{BTreeMap, BTreeSet};

use petgraph::unionfind::UnionFind;
use serde::{Deserialize, Serialize};

use crate::phases::phase_id;
use crate::{Phase, PhaseKind, RunSummary};

/// One run's view of one phase.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunPoint {
    pub config: String,
    pub params: BTreeMap<String, f64>,
    pub np: u32,
    pub phase: Phase,
}

/// One phase across runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PhaseSeries {
    pub id: String,
    pub sites: Vec<u32>,
    pub kind: PhaseKind,
    /// Determinate runs disagree on synchronous vs pipeline.
    pub conflict: bool,
    /// Runs in the order given; runs without this phase are listed in `missing`.
    pub points: Vec<RunPoint>,
    pub missing: Vec<String>,
}

/// Every phase seen in any run.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Series {
    pub phases: Vec<PhaseSeries>,
}

impl Series {
    /// `runs`: (config id, parameters without P, P, the run's summary).
    pub fn from_runs(runs: &[(String, BTreeMap<String, f64>, u32, RunSummary)]) -> Series {
        let items: Vec<(usize, &Phase)> = runs
            .iter()
            .enumerate()
            .flat_map(|(i, r)| r.3.phases.iter().map(move |p| (i, p)))
            .collect();
        let mut uf = UnionFind::<usize>::new(items.len());
        let mut owner: BTreeMap<u32, usize> = BTreeMap::new();
        for (k, (_, p)) in items.iter().enumerate() {
            for s in &p.sites {
                match owner.get(s) {
                    Some(&o) => {
                        uf.union(o, k);
                    }
                    None => {
                        owner.insert(*s, k);
                    }
                }
            }
        }
        let mut groups: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
        for k in 0..items.len() {
            groups.entry(uf.find(k)).or_default().push(k);
        }
        let mut phases: Vec<PhaseSeries> = Vec::new();
        for ks in groups.values() {
            let sites: BTreeSet<u32> = ks
                .iter()
                .filter_map(|&k| items.get(k))
                .flat_map(|(_, p)| p.sites.clone())
                .collect();
            let sites: Vec<u32> = sites.into_iter().collect();
            let mut s = PhaseSeries {
                id: phase_id(&sites),
                sites,
                kind: PhaseKind::Synchronous,
                conflict: false,
                points: Vec::new(),
                missing: Vec::new(),
            };
            for &(i, p) in ks.iter().filter_map(|&k| items.get(k)) {
                if s.points.is_empty() {
                    s.kind = p.kind.clone();
                }
                if let Some((config, params, np, _)) = runs.get(i) {
                    s.points.push(RunPoint {
                        config: config.clone(),
                        params: params.clone(),
                        np: *np,
                        phase: p.clone(),
                    });
                }
            }
            phases.push(s);
        }
        phases.sort_by_key(|s| {
            (
                s.points.iter().map(|p| p.phase.order).min(),
                s.sites.clone(),
            )
        });
        for s in &mut phases {
            // a star's hub and one worker are a two-processor chain: such points say
            // "asynchronous", star or pipeline
            let det: Vec<&PhaseKind> = s
                .points
                .iter()
                .filter(|p| p.phase.determinate)
                .map(|p| &p.phase.kind)
                .collect();
            let either =
                |p: &RunPoint| p.phase.kind == PhaseKind::Pipeline && p.phase.processors.len() < 3;
            let wide: Vec<&PhaseKind> = s
                .points
                .iter()
                .filter(|p| p.phase.determinate && !either(p))
                .map(|p| &p.phase.kind)
                .collect();
            if let Some(first) = det.first() {
                s.conflict = wide.iter().any(|k| Some(k) != wide.first());
                s.kind = if wide.contains(&&PhaseKind::Pipeline) {
                    PhaseKind::Pipeline
                } else if wide.contains(&&PhaseKind::Star) {
                    PhaseKind::Star
                } else if det.contains(&&PhaseKind::Pipeline) {
                    PhaseKind::Pipeline
                } else {
                    (*first).clone()
                };
            }
            s.missing = runs
                .iter()
                .filter(|(c, ..)| !s.points.iter().any(|p| &p.config == c))
                .map(|(c, ..)| c.clone())
                .collect();
        }
        Series { phases }
    }
}
