//! `cpg`: communication phase graphs (seed 004 §3, Figure 2) built from one run's traces.
//!
//! [`Cpg::build`] matches every send with its receive ([`matching`]), links their call sites
//! in a petgraph graph, takes connected components as phases, and describes each phase
//! ([`Phase`]): send/receive lists, whether a processor receives before it sends (pipeline) or
//! not (loosely synchronous), the pipeline's chain depth, its APT ancestor, the computation
//! phases executed inside it (seed 004 §4.1), message sizes and counts. Collectives are
//! phases of their own, one per call site. [`Dependence`] relates consecutive phases under one
//! ancestor (RL(gᵢ) ∩ SL(gᵢ₊₁) ≠ ∅). Phase identity is the sorted set of its sites, stable
//! across runs; [`series`] lines phases up across runs for fitting.
//!
//! Two documented extensions of Figure 2 ([`CpgOptions`]):
//! - requests completed by one multi-request wait (`MPI_Waitall`) join one phase: an
//!   isend/irecv exchange with both neighbours is one operation, not two shifts;
//! - p2p components under the same ancestor where a processor's first send in one follows a
//!   receive in the other are one wavefront phase (2-D sweeps: the east-west and north-south
//!   messages form one pipeline of depth Px+Py-2, not two).
//!
//! Nothing here produces formulas: `model` fits the quantities across runs.

pub mod depth;
pub mod matching;
pub mod overlap;
pub mod phases;
pub mod render;
pub mod series;
pub mod sites;

#[cfg(test)]
mod synth;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

pub use phases::{Cpg, Link};
pub use series::{PhaseSeries, RunPoint, Series};
pub use sites::{SiteInfo, SiteTree};

/// Errors of the CPG construction (bad inputs only; odd traces give warnings instead).
#[derive(Debug, thiserror::Error)]
pub enum CpgError {
    #[error("no rank traces in the run")]
    Empty,
    #[error("rank traces disagree: {0}")]
    Ranks(String),
    #[error("apt.json: {0}")]
    AptJson(String),
}

/// Options of [`Cpg::build`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CpgOptions {
    /// Requests completed together by one Waitall link their sites (one phase).
    pub join_completions: bool,
    /// Merge p2p components that feed each other under one ancestor (wavefronts).
    pub merge_wavefronts: bool,
}

impl Default for CpgOptions {
    fn default() -> Self {
        CpgOptions {
            join_completions: true,
            merge_wavefronts: true,
        }
    }
}

/// How a phase communicates.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PhaseKind {
    /// Loosely synchronous: no processor receives in the phase before its first send.
    Synchronous,
    /// Asynchronous (a processor receives before it sends): a pipeline with a chain depth.
    Pipeline,
    /// Asynchronous through one hub: every message goes to or from one processor, which
    /// serves two or more others (a master and its workers, a dynamic task farm). The chain
    /// through the hub is not a stage sequence: the workers run side by side.
    Star,
    /// One collective call site; `op` is the MPI function name.
    Collective { op: String },
}

impl PhaseKind {
    pub fn name(&self) -> String {
        match self {
            PhaseKind::Synchronous => "synchronous".into(),
            PhaseKind::Pipeline => "pipeline".into(),
            PhaseKind::Star => "star".into(),
            PhaseKind::Collective { op } => format!("collective {op}"),
        }
    }
}

/// min / mean / max of a sample (all zero for an empty sample).
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct Stats {
    pub count: u64,
    pub min: f64,
    pub mean: f64,
    pub max: f64,
}

impl Stats {
    pub fn of(values: impl IntoIterator<Item = f64>) -> Stats {
        let mut s = Stats {
            count: 0,
            min: f64::INFINITY,
            mean: 0.0,
            max: f64::NEG_INFINITY,
        };
        let mut sum = 0.0;
        for v in values {
            s.count += 1;
            sum += v;
            s.min = s.min.min(v);
            s.max = s.max.max(v);
        }
        if s.count == 0 {
            return Stats::default();
        }
        s.mean = sum / s.count as f64;
        s
    }
}

/// A computation phase executed inside a communication phase (seed 004 §4.1): between a send
/// and the next receive of the phase (synchronous) or a receive and the next send (pipeline)
/// on the same processor.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Overlap {
    /// Site of the computation phase (a compute LOOP of the APT).
    pub site: u32,
    /// Entries of the computation phase inside such intervals, all processors.
    pub occurrences: u64,
    /// Processors that executed it inside the phase.
    pub processors: u32,
    /// The most entries one processor made inside the phase: a task farm's busiest worker,
    /// whose tasks the farm waits for (`occurrences / processors` is the mean worker's).
    #[serde(default)]
    pub most_occurrences: u64,
    /// Mean thread CPU time per occurrence, seconds.
    pub cpu_mean: f64,
    /// Mean elapsed time per occurrence, seconds (MPI_Wtime, so simulated time under SMPI).
    pub wall_mean: f64,
    /// Mean over the processors of their first occurrence's elapsed time, seconds: a
    /// pipeline's fill waits for each stage's first block, which may run cold (its data first
    /// touched there) where the later blocks run at `wall_mean`.
    #[serde(default)]
    pub first_wall_mean: f64,
}

/// One communication phase of one run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Phase {
    /// Stable id from the sites: `g4_7`.
    pub id: String,
    /// Call sites, sorted: the identity of the phase across runs.
    pub sites: Vec<u32>,
    pub kind: PhaseKind,
    /// Whether this run can tell synchronous from pipeline: some processor both sends and
    /// receives in the phase. (A pipeline on 2 processors looks like a shift.)
    pub determinate: bool,
    /// Connected components of the site graph merged into this phase (1 unless a wavefront).
    pub components: u32,
    /// APT ancestor: nearest common non-COMM ancestor of the sites.
    pub ancestor: Option<u32>,
    /// Program order of the first site (pre-order index in the APT).
    pub order: u32,
    /// Processors taking part (collectives: those that called it).
    pub processors: Vec<u32>,
    /// SL(g): processors that send. Collectives: empty.
    pub senders: Vec<u32>,
    /// RL(g): processors that receive. Collectives: empty.
    pub receivers: Vec<u32>,
    /// Processors that receive before their first send (the evidence for a pipeline).
    pub async_processors: Vec<u32>,
    /// Messages (p2p) or calls (collectives, summed over processors).
    pub messages: u64,
    /// Distinct (sender, receiver) pairs.
    pub pairs: u64,
    /// Bytes per message (collectives: per call and processor, as the trace records it).
    pub bytes: Stats,
    /// Point-to-point: bytes per message by the sending call site (sizes of one site are one
    /// kind of message; a halo's rows and columns are two).
    #[serde(default)]
    pub site_bytes: BTreeMap<u32, Stats>,
    /// Point-to-point: how many processors send from each call site (its messages per sender
    /// are `site_bytes[site].count` over this).
    #[serde(default)]
    pub site_senders: BTreeMap<u32, u32>,
    /// Stars: the hub every message goes to or comes from.
    #[serde(default)]
    pub hub: Option<u32>,
    /// Messages sent per sender (collectives: calls per processor).
    pub per_processor: Stats,
    /// Messages per (sender, receiver) pair: how many times the pattern repeats.
    pub instances: Stats,
    /// Longest chain of messages (pipelines and indeterminate phases): P-1 for a line.
    pub depth: Option<u32>,
    /// One longest chain's hops by the site that sent each ([`depth::Depth::by_site`]).
    #[serde(default)]
    pub chain_sites: BTreeMap<u32, u32>,
    /// Communicator size (largest seen).
    pub comm_size: i32,
    /// Intervals of the phase's kind (send→recv, recv→send) over all processors.
    pub intervals: u64,
    pub compute: Vec<Overlap>,
    /// Collectives: each processor's mean seconds per call (its wait for the others included);
    /// `max` is what the slowest processor spends. Point-to-point phases: empty.
    #[serde(default)]
    pub call_seconds: Stats,
    /// Neighbourhood collectives: the most messages one processor's call posts each way (its
    /// topology's neighbours); 0 for the others.
    #[serde(default)]
    pub neighbours: u32,
}

/// Whether two consecutive phases under one ancestor depend on each other.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Dependence {
    pub ancestor: u32,
    pub first: String,
    pub second: String,
    /// RL(first) ∩ SL(second) ≠ ∅ (collectives: their processors are both lists).
    pub dependent: bool,
    /// |RL(first) ∩ SL(second)|.
    pub shared: u64,
}

/// The serialisable result for one run.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct RunSummary {
    pub world_size: u32,
    /// Phases in program order.
    pub phases: Vec<Phase>,
    pub dependences: Vec<Dependence>,
    /// Calls or halves addressed to MPI_PROC_NULL, per site, all ranks.
    pub proc_null: std::collections::BTreeMap<u32, u64>,
    pub unmatched_sends: std::collections::BTreeMap<u32, u64>,
    pub unmatched_recvs: std::collections::BTreeMap<u32, u64>,
    pub warnings: Vec<String>,
}
#[cfg(test)]
mod tests;
