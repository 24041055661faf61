//! Computation inside a communication phase (seed 004 §4.1): a computation phase w counts for
//! phase g when a processor executes it between two consecutive communication events of g —
//! a send then a receive for a synchronous phase, a receive then a send for a pipeline —
//! `t(c1) < t(w) < t(c2)` with the same processor, decided here by event order on that
//! processor (no clock comparison). Only outermost computation phases (nesting depth 0) count,
//! so nested markers are not counted twice. Times: thread CPU, and elapsed `MPI_Wtime` (the
//! simulated clock under SMPI; host monotonic time where `MPI_Wtime` is NaN).

use std::collections::{BTreeMap, BTreeSet};

use trace::{Event, RankTrace};

use crate::matching::{Dir, Pos};
use crate::Overlap;

/// Per-site accumulation over processors.
#[derive(Debug, Default)]
struct Acc {
    occurrences: u64,
    /// Entries by processor.
    processors: BTreeMap<u32, u64>,
    cpu_ns: f64,
    wall_s: f64,
    /// Elapsed time of each processor's first occurrence, summed over processors.
    first_wall_s: f64,
}

/// The computation phases of one rank with their event index, outermost only.
pub fn rank_phases(t: &RankTrace) -> Vec<(usize, &trace::Phase)> {
    t.events
        .iter()
        .enumerate()
        .filter_map(|(i, e)| match e {
            Event::Phase(p) if p.depth == 0 => Some((i, p)),
            _ => None,
        })
        .collect()
}

/// Accumulates the overlapped computation of one phase.
#[derive(Debug, Default)]
pub struct OverlapScan {
    sites: BTreeMap<u32, Acc>,
    pub intervals: u64,
}

impl OverlapScan {
    /// Adds one processor: `events` are its actions in the phase, in order; `first` is the
    /// direction opening an interval (Send for synchronous phases, Recv for pipelines).
    pub fn add(
        &mut self,
        rank: u32,
        events: &[(Dir, Pos)],
        phases: &[(usize, &trace::Phase)],
        first: Dir,
    ) {
        let mut seen: BTreeSet<u32> = BTreeSet::new();
        for w in events.windows(2) {
            let (&(d1, p1), &(d2, p2)) = match w {
                [a, b] => (a, b),
                _ => continue,
            };
            if d1 != first || d2 == first {
                continue;
            }
            self.intervals += 1;
            let lo = phases.partition_point(|(i, _)| *i <= p1.0);
            let hi = phases.partition_point(|(i, _)| *i < p2.0);
            for (_, ph) in phases.get(lo..hi).unwrap_or(&[]) {
                let a = self.sites.entry(ph.site).or_default();
                // a run of brief entries recorded as one counts as its entries
                a.occurrences += u64::from(ph.entries.max(1));
                *a.processors.entry(rank).or_default() += u64::from(ph.entries.max(1));
                a.cpu_ns += ph.cpu_ns as f64;
                let wall = ph.end.wtime - ph.start.wtime;
                let wall = if wall.is_finite() {
                    wall
                } else {
                    ph.end.mono_ns.saturating_sub(ph.start.mono_ns) as f64 * 1e-9
                };
                a.wall_s += wall;
                if seen.insert(ph.site) {
                    a.first_wall_s += wall;
                }
            }
        }
    }

    pub fn finish(self) -> Vec<Overlap> {
        self.sites
            .into_iter()
            .map(|(site, a)| {
                let n = a.occurrences.max(1) as f64;
                Overlap {
                    site,
                    occurrences: a.occurrences,
                    processors: u32::try_from(a.processors.len()).unwrap_or(u32::MAX),
                    most_occurrences: a.processors.values().copied().max().unwrap_or(0),
                    cpu_mean: a.cpu_ns / n * 1e-9,
                    wall_mean: a.wall_s / n,
                    first_wall_mean: a.first_wall_s / a.processors.len().max(1) as f64,
                }
            })
            .collect()
    }
}
