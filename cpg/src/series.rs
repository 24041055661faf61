//! Phases lined up across runs by identity (their sorted site set), so `model` can fit depth,
//! processor counts, sizes and counts as functions of the run parameters.
//!
//! Kind across runs: a run is only evidence when the phase is `determinate` there (some
//! processor both sends and receives); the pipeline verdict wins when determinate runs
//! disagree (a receive-before-send seen once is a pipeline), and `conflict` records it. When no
//! run is determinate (e.g. only P = 2 runs) the runs' own default, synchronous, stays.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

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
        let mut by_id: BTreeMap<(u32, String), PhaseSeries> = BTreeMap::new();
        for (config, params, np, sum) in runs {
            for p in &sum.phases {
                let s = by_id.entry((p.order, p.id.clone())).or_insert_with(|| PhaseSeries {
                    id: p.id.clone(),
                    sites: p.sites.clone(),
                    kind: p.kind.clone(),
                    conflict: false,
                    points: Vec::new(),
                    missing: Vec::new(),
                });
                s.points.push(RunPoint { config: config.clone(), params: params.clone(), np: *np, phase: p.clone() });
            }
        }
        let mut phases: Vec<PhaseSeries> = by_id.into_values().collect();
        for s in &mut phases {
            let det: Vec<&PhaseKind> = s.points.iter().filter(|p| p.phase.determinate).map(|p| &p.phase.kind).collect();
            if let Some(first) = det.first() {
                s.conflict = det.iter().any(|k| k != first);
                s.kind = if det.contains(&&PhaseKind::Pipeline) { PhaseKind::Pipeline } else { (*first).clone() };
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
