//! What the model needs from one traced run, condensed from the per-rank traces: per-site loop,
//! branch and call counters, computation-phase entries with their cost, the run's communication
//! phase graph summary (built by `cpg` against the run directory's apt.json), and the measured
//! time of the run.
//!
//! Clocks: natively a phase's cost is its thread-CPU time (meaningful when ranks are
//! oversubscribed) and the run's time is host wall from MPI_Init to the trailer; under SMPI both
//! are simulated time (`MPI_Wtime`), the measure the simulated run itself is charged with.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use trace::{Event, Manifest, RankTrace, RunDir};

use crate::error::ModelError;

/// Per-rank counters.
#[derive(Debug, Clone, Default)]
pub struct RankObs {
    /// Loop site → (entries, iterations).
    pub loops: BTreeMap<u32, (u64, u64)>,
    /// Loop site → (fewest, most) iterations of one entry: a trip that differs between the
    /// entries of one run (a level's size in a multigrid V-cycle) shows here.
    pub loop_span: BTreeMap<u32, (u64, u64)>,
    /// (IF site, arm) → times recorded (arm 0 = condition true).
    pub branches: BTreeMap<(u32, i32), u64>,
    /// Call site → calls.
    pub calls: BTreeMap<u32, u64>,
    /// Computation-phase site → entries that were a burst of their own: the rank's events just
    /// before and after are MPI calls (or the trace's ends), no other traced computation.
    pub alone: BTreeMap<u32, u64>,
    /// Computation-phase site → the cost of each entry, in order; a run of brief entries the
    /// runtime recorded as one (`trace::Phase::entries` > 1) is one element, their sum, with
    /// its count in `runs`.
    pub entries: BTreeMap<u32, Vec<f64>>,
    /// Computation-phase site → (index in `entries`, entries it stands for) of each run of
    /// more than one entry; sites without runs have none.
    pub runs: BTreeMap<u32, Vec<(usize, u32)>>,
    /// Computation-phase site → for each entry, how many MPI calls the rank had made before
    /// it: entries with the same count ran between the same two calls (a row FFT called for
    /// every row between two transposes), where no other rank waits for any one of them.
    pub between: BTreeMap<u32, Vec<u32>>,
    /// Seconds from MPI_Init to the end of the trace.
    pub elapsed: f64,
}

impl RankObs {
    /// A computation phase's (entries, seconds of cost) on this rank.
    pub fn compute(&self, site: u32) -> Option<(u64, f64)> {
        self.entries
            .get(&site)
            .map(|e| (self.count_from(site, 0), e.iter().sum()))
    }

    /// Entries of a computation phase from its `from`-th recorded element on, runs counted
    /// whole.
    fn count_from(&self, site: u32, from: usize) -> u64 {
        let recorded = self.entries.get(&site).map_or(0, Vec::len);
        let extra: u64 = self
            .runs
            .get(&site)
            .into_iter()
            .flatten()
            .filter(|(k, _)| *k >= from)
            .map(|(_, n)| u64::from(*n) - 1)
            .sum();
        recorded.saturating_sub(from) as u64 + extra
    }

    /// The computation sites this rank ran between the same two MPI calls, each set with how
    /// many stretches it was (an entry whose MPI calls were not counted a set of its own).
    pub fn stretch_sites(&self) -> BTreeMap<BTreeSet<u32>, usize> {
        let mut by: BTreeMap<u32, BTreeSet<u32>> = BTreeMap::new();
        let mut out: BTreeMap<BTreeSet<u32>, usize> = BTreeMap::new();
        for (site, costs) in &self.entries {
            match self.between.get(site).filter(|b| b.len() == costs.len()) {
                Some(between) => {
                    for b in between {
                        by.entry(*b).or_default().insert(*site);
                    }
                }
                None => *out.entry(BTreeSet::from([*site])).or_insert(0) += costs.len(),
            }
        }
        for sites in by.into_values() {
            *out.entry(sites).or_insert(0) += 1;
        }
        out
    }

    /// A computation phase's entries from the `skip`-th on, summed over each stretch between
    /// two MPI calls, in order; each entry a stretch of its own where the rank's MPI calls
    /// were not counted.
    fn stretches(&self, site: u32, skip: usize) -> Vec<f64> {
        self.counted_stretches(site, skip)
            .into_iter()
            .map(|(c, _)| c)
            .collect()
    }

    /// [`Self::stretches`] with the entries each holds (a run of brief entries recorded as
    /// one counted whole).
    fn counted_stretches(&self, site: u32, skip: usize) -> Vec<(f64, u64)> {
        let Some(costs) = self.entries.get(&site) else {
            return Vec::new();
        };
        let costs = costs.get(skip..).unwrap_or(&[]);
        let runs: BTreeMap<usize, u32> = self
            .runs
            .get(&site)
            .into_iter()
            .flatten()
            .copied()
            .collect();
        let entries = |k: usize| u64::from(runs.get(&(k + skip)).copied().unwrap_or(1));
        let Some(between) = self
            .between
            .get(&site)
            .and_then(|b| b.get(skip..))
            .filter(|b| b.len() == costs.len())
        else {
            return costs
                .iter()
                .enumerate()
                .map(|(k, &c)| (c, entries(k)))
                .collect();
        };
        let mut out: Vec<(f64, u64)> = Vec::new();
        for (k, (&c, &b)) in costs.iter().zip(between).enumerate() {
            match out.last_mut() {
                Some(last) if k > 0 && between[k - 1] == b => {
                    last.0 += c;
                    last.1 += entries(k);
                }
                _ => out.push((c, entries(k))),
            }
        }
        out
    }
}

/// One traced configuration.
#[derive(Debug, Clone)]
pub struct RunObs {
    pub config: String,
    /// Problem parameters and `P`.
    pub params: BTreeMap<String, f64>,
    pub smpi: bool,
    pub ranks: Vec<RankObs>,
    /// The run's communication phases, matching and dependences (`cpg::Cpg::build`).
    pub cpg: cpg::RunSummary,
    /// Measured T: the slowest rank's time from MPI_Init to finalize.
    pub time: f64,
    /// Repetitions the profile ran of this configuration (`--repeat`), 1 when it ran once.
    pub repeated: u32,
}

impl RunObs {
    pub fn p(&self) -> usize {
        self.ranks.len()
    }
    /// Σ over ranks of a loop site's (entries, iterations).
    pub fn loop_totals(&self, site: u32) -> Option<(u64, u64)> {
        let mut found = false;
        let (mut c, mut s) = (0u64, 0u64);
        for r in &self.ranks {
            if let Some((rc, rs)) = r.loops.get(&site) {
                found = true;
                c += rc;
                s += rs;
            }
        }
        found.then_some((c, s))
    }
    /// The (fewest, most) iterations of one entry of a loop site over the ranks' entries.
    pub fn loop_span(&self, site: u32) -> Option<(u64, u64)> {
        self.ranks
            .iter()
            .filter_map(|r| r.loop_span.get(&site))
            .copied()
            .reduce(|a, b| (a.0.min(b.0), a.1.max(b.1)))
    }
    /// Σ over ranks of a branch arm's count.
    pub fn branch_total(&self, site: u32, arm: i32) -> u64 {
        self.ranks
            .iter()
            .filter_map(|r| r.branches.get(&(site, arm)))
            .sum()
    }
    /// The largest cost per entry of a computation phase over the ranks that entered it: what
    /// the critical processor pays when the ranks differ (coherence misses on data just sent,
    /// imbalance, noise).
    pub fn compute_max_per_entry(&self, site: u32) -> Option<f64> {
        self.ranks
            .iter()
            .filter_map(|r| r.compute(site))
            .filter(|(c, _)| *c > 0)
            .map(|(c, t)| t / c as f64)
            .reduce(f64::max)
    }
    /// The mean over occurrences of the largest cost over the ranks of a computation phase's
    /// k-th entry: what a loosely synchronous step waits for when each occurrence's slowest
    /// rank differs (noise). `None` unless every rank that entered it entered it equally often.
    ///
    /// Entries a rank runs one after another between two MPI calls are one occurrence, summed:
    /// the others wait for the slowest rank's whole stretch, not for the slowest of each entry
    /// (the maximum of each of a row FFT's N/P calls over P ranks grew with log2(P) where the
    /// stretches' did not; trial 14).
    pub fn compute_occurrence_max(&self, site: u32) -> Option<f64> {
        self.occurrence_max(site, 0)
    }

    /// [`Self::compute_occurrence_max`] over the entries from the `skip`-th on.
    fn occurrence_max(&self, site: u32, skip: usize) -> Option<f64> {
        let (seqs, n) = self.occurrences(site, skip)?;
        let sum: f64 = (0..seqs[0].len())
            .map(|k| seqs.iter().map(|s| s[k]).fold(0.0, f64::max))
            .sum();
        Some(sum / n as f64)
    }

    /// The ranks' stretches of a computation phase from its `skip`-th entry on, one sequence
    /// per rank that entered it, all of one length, and the entries they hold; `None` unless
    /// every rank that entered it entered it equally often, more than `skip` times, and each
    /// rank's k-th stretch holds as many entries as every other's: stretches cut where the
    /// ranks' MPI calls fall differently (trial 26: a halo polled with MPI_Testall between
    /// chunks of the interior, done after the first chunk on one rank and the second on
    /// another) are not one step's work, and the median over ranks of their sums took one
    /// chunk for a hundred.
    fn occurrences(&self, site: u32, skip: usize) -> Option<(Vec<Vec<f64>>, usize)> {
        let entered: Vec<&RankObs> = self
            .ranks
            .iter()
            .filter(|r| r.entries.contains_key(&site))
            .collect();
        let n = entered.first()?.count_from(site, 0) as usize;
        if n <= skip || entered.iter().any(|r| r.count_from(site, 0) as usize != n) {
            return None;
        }
        let counted: Vec<Vec<(f64, u64)>> = entered
            .iter()
            .map(|r| r.counted_stretches(site, skip))
            .collect();
        let shape: Vec<u64> = counted[0].iter().map(|(_, e)| *e).collect();
        if counted
            .iter()
            .any(|s| s.len() != shape.len() || s.iter().zip(&shape).any(|((_, e), f)| e != f))
        {
            return None;
        }
        let seqs: Vec<Vec<f64>> = counted
            .into_iter()
            .map(|s| s.into_iter().map(|(c, _)| c).collect())
            .collect();
        Some((seqs, n - skip))
    }

    /// A computation phase's cost per entry as a step that synchronises its ranks pays it
    /// without the host's detours, which [`crate::noise`] charges by the number of ranks: the
    /// mean over occurrences of the (lower) median over the ranks' stretches, times how much slower
    /// the slowest rank runs as a rule (the largest over the ranks of the median over
    /// occurrences of its stretch relative to the occurrence's median: a rank with more work
    /// every time, not one a detour met once). `None` as [`Self::compute_occurrence_max`].
    pub fn compute_occurrence_typical(&self, site: u32) -> Option<f64> {
        self.occurrence_typical(site, 0)
    }

    /// [`Self::compute_occurrence_typical`] over the entries from the `skip`-th on.
    fn occurrence_typical(&self, site: u32, skip: usize) -> Option<f64> {
        let (seqs, n) = self.occurrences(site, skip)?;
        let m = seqs[0].len();
        let medians: Vec<f64> = (0..m)
            .map(|k| median(seqs.iter().map(|s| s[k]).collect()))
            .collect();
        let slowest = seqs
            .iter()
            .filter_map(|s| {
                let ratios: Vec<f64> = s
                    .iter()
                    .zip(&medians)
                    .filter(|(_, m)| **m > 0.0)
                    .map(|(x, m)| x / m)
                    .collect();
                (!ratios.is_empty()).then(|| median(ratios))
            })
            .fold(1.0, f64::max);
        Some(medians.iter().sum::<f64>() * slowest / n as f64)
    }

    /// A computation phase's entries per stretch (entries a rank runs between two MPI calls),
    /// over the ranks that entered it; `None` when none did.
    pub fn compute_entries_per_stretch(&self, site: u32) -> Option<f64> {
        let (mut entries, mut stretches) = (0u64, 0usize);
        for r in self.ranks.iter().filter(|r| r.entries.contains_key(&site)) {
            entries += r.count_from(site, 0);
            stretches += r.stretches(site, 0).len();
        }
        (stretches > 0).then(|| entries as f64 / stretches as f64)
    }

    /// A computation phase's first entry apart from the rest: (the slowest rank's first entry,
    /// the steady cost per entry over the entries after it, as [`Self::compute_occurrence_max`]
    /// takes it, or [`Self::compute_occurrence_typical`] when `typical`, or the slowest rank's
    /// mean when the ranks entered it unequally often). `None` unless every rank that entered
    /// it did so twice or more.
    pub fn compute_first_entry(&self, site: u32, typical: bool) -> Option<(f64, f64)> {
        let seqs: Vec<(&RankObs, &Vec<f64>)> = self
            .ranks
            .iter()
            .filter_map(|r| r.entries.get(&site).map(|s| (r, s)))
            .filter(|(_, s)| !s.is_empty())
            .collect();
        // the first entry is a record of its own (the runtime starts runs after a site's
        // first entries)
        if seqs.is_empty()
            || seqs
                .iter()
                .any(|(r, s)| s.len() < 2 || r.count_from(site, 0) < 2)
        {
            return None;
        }
        let first = seqs.iter().map(|(_, s)| s[0]).fold(0.0, f64::max);
        let by = if typical {
            Self::occurrence_typical
        } else {
            Self::occurrence_max
        };
        let steady = by(self, site, 1).unwrap_or_else(|| {
            seqs.iter()
                .map(|(r, s)| s[1..].iter().sum::<f64>() / r.count_from(site, 1) as f64)
                .fold(0.0, f64::max)
        });
        Some((first, steady))
    }
    /// The share of a computation phase's entries, over all ranks, that were a burst of their
    /// own (between two MPI calls); `None` when no rank entered it.
    pub fn compute_alone(&self, site: u32) -> Option<f64> {
        let (mut all, mut alone) = (0u64, 0u64);
        for r in &self.ranks {
            if let Some((c, _)) = r.compute(site) {
                all += c;
                alone += r.alone.get(&site).copied().unwrap_or(0);
            }
        }
        (all > 0).then(|| alone as f64 / all as f64)
    }
    /// The mean over all ranks' stretches of a computation phase (its entries run one after
    /// another between two MPI calls, summed; [`RankObs::stretches`]); `None` when no rank
    /// entered it. Under SMPI an entry's cost is what the simulated clock moved across it, and
    /// the runtime charges pieces under the compute threshold in lumps once the interval since
    /// the last MPI call reaches it: a stretch over the threshold spans many lumps and its
    /// entries' costs add up to what was charged (a routine called once per point between two
    /// reductions; trial 19's k-means), where one short entry after a long computation shows 0
    /// and its lump lands in a later entry (atm2d's pack at LAMBDA = 32).
    pub fn compute_mean_stretch(&self, site: u32) -> Option<f64> {
        let (mut n, mut sum) = (0usize, 0.0);
        for r in &self.ranks {
            let s = r.stretches(site, 0);
            n += s.len();
            sum += s.iter().sum::<f64>();
        }
        (n > 0).then(|| sum / n as f64)
    }
    /// Σ over ranks of a computation phase's (entries, seconds).
    pub fn compute_totals(&self, site: u32) -> Option<(u64, f64)> {
        let mut found = false;
        let (mut c, mut s) = (0u64, 0.0);
        for r in &self.ranks {
            if let Some((rc, rs)) = r.compute(site) {
                found = true;
                c += rc;
                s += rs;
            }
        }
        found.then_some((c, s))
    }
}

/// Condenses one rank's trace.
pub fn rank_obs(t: &RankTrace) -> RankObs {
    let smpi = t.header.smpi();
    let mut o = RankObs::default();
    let mut last_wtime = t.header.init_wtime;
    let is_phase = |k: usize| matches!(t.events.get(k), Some(Event::Phase(_)));
    let mut calls = 0u32;
    for (k, e) in t.events.iter().enumerate() {
        match e {
            Event::Phase(p) => {
                let after_phase = k > 0 && is_phase(k - 1);
                // a run's entries ran next to each other: none was a burst of its own
                if !after_phase && !is_phase(k + 1) && p.entries <= 1 {
                    *o.alone.entry(p.site).or_insert(0) += 1;
                }
                if p.entries > 1 {
                    let at = o.entries.get(&p.site).map_or(0, Vec::len);
                    o.runs.entry(p.site).or_default().push((at, p.entries));
                }
                let cost = if smpi {
                    p.end.wtime - p.start.wtime
                } else {
                    p.cpu_ns as f64 * 1e-9
                };
                o.entries.entry(p.site).or_default().push(cost.max(0.0));
                o.between.entry(p.site).or_default().push(calls);
                last_wtime = last_wtime.max(p.end.wtime);
            }
            Event::Mpi { call, .. } => {
                calls += 1;
                last_wtime = last_wtime.max(call.end.wtime);
            }
        }
    }
    for a in &t.aggregates {
        match a.kind {
            trace::AggKind::Loop => {
                let ent = o.loops.entry(a.site).or_insert((0, 0));
                ent.0 += a.count;
                ent.1 += a.sum;
                if a.count > 0 {
                    let span = o.loop_span.entry(a.site).or_insert((a.min, a.max));
                    span.0 = span.0.min(a.min);
                    span.1 = span.1.max(a.max);
                }
            }
            trace::AggKind::Branch => *o.branches.entry((a.site, a.arm)).or_insert(0) += a.count,
            trace::AggKind::Call => *o.calls.entry(a.site).or_insert(0) += a.count,
            trace::AggKind::TestPending => {}
        }
    }
    o.elapsed = if smpi {
        (last_wtime - t.header.init_wtime).max(0.0)
    } else {
        t.trailer.end_mono_ns.saturating_sub(t.header.init_mono_ns) as f64 * 1e-9
    };
    o
}

#[cfg(test)]
impl RunObs {
    /// A run built by a test: its parameters (P among them) named in its configuration,
    /// `K=V` in order, its ranks and its time, simulated by no one.
    pub(crate) fn synthetic(params: &[(&str, f64)], ranks: Vec<RankObs>, time: f64) -> RunObs {
        let params: BTreeMap<String, f64> =
            params.iter().map(|(k, v)| ((*k).to_string(), *v)).collect();
        RunObs {
            config: params
                .iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect::<Vec<_>>()
                .join(","),
            params,
            smpi: false,
            ranks,
            cpg: Default::default(),
            time,
            repeated: 1,
        }
    }
}

/// The lower median of `v` (the lower of the middle two for an even count: of two ranks, the
/// one a detour did not meet); `v` not empty.
fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[(v.len() - 1) / 2]
}

/// Every completed run of a run directory, in manifest order, with its CPG built against the
/// directory's apt.json (the site ids the traces use). Runs whose traces cannot be read or
/// matched are skipped with a warning naming the run and the reason.
pub fn load_runs(dir: &Path) -> Result<(Manifest, Vec<RunObs>, Vec<String>), ModelError> {
    let rd = RunDir::at(dir);
    let manifest = rd.load_manifest()?.ok_or_else(|| ModelError::NoManifest {
        path: dir.to_path_buf(),
    })?;
    let apt_path = dir.join("apt.json");
    let text = std::fs::read_to_string(&apt_path).map_err(|source| ModelError::Io {
        path: apt_path.clone(),
        source,
    })?;
    let tree = cpg::SiteTree::from_json_str(&text).map_err(|e| ModelError::Apt {
        path: apt_path,
        message: e.to_string(),
    })?;
    let opts = cpg::CpgOptions::default();
    let mut runs = Vec::new();
    let mut warnings = Vec::new();
    for rec in manifest.runs.iter().filter(|r| r.status.is_ok()) {
        let traces = match rd.read_run(&rec.config) {
            Ok(t) => t,
            Err(e) => {
                warnings.push(format!("run {} skipped: {e}", rec.config));
                continue;
            }
        };
        let smpi = traces.first().is_some_and(|t| t.header.smpi());
        let anomalies: u32 = traces.iter().map(|t| t.trailer.anomalies).sum();
        if anomalies > 0 {
            warnings.push(format!("run {}: the tracer reported {anomalies} anomalies (unbalanced markers or unknown requests)", rec.config));
        }
        let graph = match cpg::Cpg::build(&traces, &tree, &opts) {
            Ok(g) => g.into_summary(),
            Err(e) => {
                warnings.push(format!("run {} skipped: {e}", rec.config));
                continue;
            }
        };
        let ranks: Vec<RankObs> = traces.iter().map(rank_obs).collect();
        let time = ranks.iter().map(|r| r.elapsed).fold(0.0, f64::max);
        let mut params = rec.params.clone();
        params.insert("P".into(), f64::from(rec.np));
        runs.push(RunObs {
            config: rec.config.clone(),
            params,
            smpi,
            ranks,
            cpg: graph,
            time,
            repeated: u32::try_from(rec.repetitions.len())
                .unwrap_or(u32::MAX)
                .max(1),
        });
    }
    if runs.is_empty() {
        return Err(ModelError::NoRuns {
            path: dir.to_path_buf(),
        });
    }
    Ok((manifest, runs, warnings))
}

/// The recorded runs of a testdata program (`set`: smpi-c, mpi-c, …), for the crate's tests.
#[cfg(test)]
#[allow(clippy::unwrap_used)]
pub(crate) fn testdata_runs(prog: &str, set: &str) -> Vec<RunObs> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../testdata")
        .join(prog)
        .join("runs")
        .join(set);
    load_runs(&dir).unwrap().1
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    /// One recorded run of testdata/`dir` by its configuration.
    fn recorded(prog: &str, set: &str, config: &str) -> super::RunObs {
        let runs = super::testdata_runs(prog, set);
        runs.into_iter().find(|r| r.config == config).unwrap()
    }

    /// Native shift at P = 2: the sender's update loop (it rewrites the block it just sent,
    /// whose lines the receiver's copy left shared) costs about twice the receiver's per entry,
    /// and the critical processor is the sender.
    #[test]
    fn max_per_entry_is_the_slowest_rank() {
        let run = recorded("shift", "mpi-c", "ITERS=1000,N=16384,P=2");
        let per_rank: Vec<f64> = run
            .ranks
            .iter()
            .map(|r| {
                let (c, t) = r.compute(5).unwrap();
                t / c as f64
            })
            .collect();
        let (c, t) = run.compute_totals(5).unwrap();
        let max = run.compute_max_per_entry(5).unwrap();
        assert_eq!(max, per_rank[0].max(per_rank[1]));
        assert!(per_rank[0] > 1.5 * per_rank[1], "{per_rank:?}");
        assert!(max > 1.2 * t / c as f64);
        assert_eq!(run.compute_max_per_entry(9999), None);
    }

    /// Simulated atm2d at P = 16: each step waits for the slowest rank of that step, whose
    /// relaxation costs more than the slowest rank's mean.
    #[test]
    fn occurrence_max_is_at_least_the_slowest_mean() {
        let run = recorded("atm2d", "smpi-c", "LAMBDA=256,STEPS=20,P=16");
        let occ = run.compute_occurrence_max(19).unwrap();
        let slowest = run.compute_max_per_entry(19).unwrap();
        assert!(occ > 1.05 * slowest, "{occ} vs {slowest}");
        // by hand: the mean over k of the largest k-th entry
        let seqs: Vec<&Vec<f64>> = run.ranks.iter().map(|r| &r.entries[&19]).collect();
        let n = seqs[0].len();
        let by_hand = (0..n)
            .map(|k| seqs.iter().map(|s| s[k]).fold(0.0, f64::max))
            .sum::<f64>()
            / n as f64;
        assert!((occ - by_hand).abs() <= 1e-12 * by_hand);
        assert_eq!(run.compute_occurrence_max(9999), None);
        // unpack, relaxation and pack run back to back between two exchanges: no entry of the
        // relaxation is a burst of its own
        assert_eq!(run.compute_alone(19), Some(0.0));
        assert_eq!(run.compute_alone(9999), None);
    }

    /// Entries a rank runs back to back between two MPI calls are one occurrence: the others
    /// wait for the slowest rank's stretch, not for the slowest of each entry (trial 14: a row
    /// FFT called N/P times between two transposes).
    #[test]
    fn entries_between_the_same_two_calls_are_one_occurrence() {
        let mut run = recorded("shift", "smpi-c", "ITERS=100,N=8192,P=2");
        let rank = |costs: [f64; 4], between: [u32; 4]| super::RankObs {
            entries: [(7, costs.to_vec())].into(),
            between: [(7, between.to_vec())].into(),
            ..Default::default()
        };
        // two stretches of two entries; the slowest entry alternates between the ranks
        run.ranks = vec![
            rank([1.0, 3.0, 1.0, 3.0], [0, 0, 2, 2]),
            rank([3.0, 1.0, 3.0, 1.0], [1, 1, 3, 3]),
        ];
        assert_eq!(run.compute_occurrence_max(7), Some(2.0));
        // the first entry apart, the steady part over entries 1..3: stretches (3), (1 + 3) on
        // rank 0 and (1), (3 + 1) on rank 1
        assert_eq!(
            run.compute_first_entry(7, false),
            Some((3.0, (3.0 + 4.0) / 3.0))
        );
        // an MPI call between every two entries: each entry its own occurrence
        run.ranks = vec![
            rank([1.0, 3.0, 1.0, 3.0], [0, 1, 2, 3]),
            rank([3.0, 1.0, 3.0, 1.0], [1, 2, 3, 4]),
        ];
        assert_eq!(run.compute_occurrence_max(7), Some(3.0));
        // stretches the ranks do not share in number: no occurrence to take the maximum of
        run.ranks = vec![
            rank([1.0, 3.0, 1.0, 3.0], [0, 0, 0, 0]),
            rank([3.0, 1.0, 3.0, 1.0], [1, 2, 3, 4]),
        ];
        assert_eq!(run.compute_occurrence_max(7), None);
        // trial 26: as many stretches, cut at different entries (a halo polled between chunks,
        // done after the first chunk on rank 0 and the third on rank 1): no step's work to
        // take the median of (it took rank 0's one chunk for rank 1's three), the mean per
        // entry of the slowest rank instead
        run.ranks = vec![
            rank([1.0, 1.0, 1.0, 1.0], [0, 1, 1, 1]),
            rank([1.0, 1.0, 1.0, 1.0], [0, 0, 0, 1]),
        ];
        assert_eq!(run.compute_occurrence_typical(7), None);
        assert_eq!(run.compute_occurrence_max(7), None);
        assert_eq!(run.compute_max_per_entry(7), Some(1.0));
    }

    /// A step's typical cost leaves out the detour one rank meets now and then (the noise
    /// law charges those by the number of ranks) and keeps the rank that is slower every time
    /// (more work, not a detour).
    #[test]
    fn a_steps_typical_cost_keeps_a_slow_rank_and_leaves_out_a_detour() {
        let mut run = recorded("shift", "smpi-c", "ITERS=100,N=8192,P=2");
        let rank = |costs: Vec<f64>| super::RankObs {
            between: [(7, (0..costs.len() as u32).collect())].into(),
            entries: [(7, costs)].into(),
            ..Default::default()
        };
        // four ranks of 1 s a step; in step k rank k meets a detour of 5 s
        let detoured = |r: usize| rank((0..4).map(|k| if k == r { 6.0 } else { 1.0 }).collect());
        run.ranks = (0..4).map(detoured).collect();
        assert_eq!(run.compute_occurrence_typical(7), Some(1.0));
        assert_eq!(run.compute_occurrence_max(7), Some(6.0));
        // of two ranks, the one the detour did not meet
        run.ranks = (0..2).map(detoured).collect();
        assert_eq!(run.compute_occurrence_typical(7), Some(1.0));
        // a rank with twice the work every step: the step waits for it
        run.ranks = vec![rank(vec![1.0; 4]), rank(vec![1.0; 4]), rank(vec![2.0; 4])];
        assert_eq!(run.compute_occurrence_typical(7), Some(2.0));
        // steps of differing size (a multigrid's levels) keep their sizes
        run.ranks = vec![rank(vec![4.0, 2.0, 1.0]); 3];
        assert_eq!(run.compute_occurrence_typical(7), Some(7.0 / 3.0));
        assert_eq!(run.compute_entries_per_stretch(7), Some(1.0));
        assert_eq!(
            run.ranks[0].stretch_sites(),
            [(std::collections::BTreeSet::from([7]), 3)].into()
        );
    }

    /// Trial 19's k-means: a routine called once per point is a phase entered thousands of
    /// times between two reductions, each entry far under SMPI's compute threshold, its
    /// stretches far over it.
    #[test]
    fn a_stretch_is_the_entries_between_two_calls_summed() {
        let mut run = recorded("shift", "smpi-c", "ITERS=100,N=8192,P=2");
        let rank = |costs: Vec<f64>, between: Vec<u32>| super::RankObs {
            entries: [(7, costs)].into(),
            between: [(7, between)].into(),
            ..Default::default()
        };
        // rank 0: 1000 entries of 0.2 µs between calls 0 and 1, then 10 after call 1; rank 1:
        // 10 entries, each after a call of its own
        let mut between = vec![0; 1000];
        between.extend([1; 10]);
        run.ranks = vec![
            rank(vec![2e-7; 1010], between),
            rank(vec![2e-7; 10], (0..10).collect()),
        ];
        let mean = run.compute_mean_stretch(7).unwrap();
        // (1000 + 10 + 10 entries) over 2 + 10 stretches
        assert!((mean - 1020.0 * 2e-7 / 12.0).abs() < 1e-15, "{mean}");
        assert_eq!(run.compute_mean_stretch(9999), None);
    }

    /// A run of brief entries the runtime recorded as one counts as its entries: rank 0's 4
    /// entries (the first apart, then a run of 3) read as rank 1's 4 recorded one by one.
    #[test]
    fn a_run_of_entries_counts_as_its_entries() {
        let mut run = recorded("shift", "smpi-c", "ITERS=100,N=8192,P=2");
        let r0 = super::RankObs {
            entries: [(7, vec![5.0, 3.0])].into(),
            runs: [(7, vec![(1, 3)])].into(),
            between: [(7, vec![0, 0])].into(),
            ..Default::default()
        };
        let r1 = super::RankObs {
            entries: [(7, vec![5.0, 1.0, 1.0, 1.0])].into(),
            between: [(7, vec![1, 1, 1, 1])].into(),
            ..Default::default()
        };
        assert_eq!(r0.compute(7), Some((4, 8.0)));
        assert_eq!(r1.compute(7), Some((4, 8.0)));
        run.ranks = vec![r0, r1];
        assert_eq!(run.compute_totals(7), Some((8, 16.0)));
        // one stretch each: (5 + 3) over 4 entries
        assert_eq!(run.compute_occurrence_max(7), Some(2.0));
        // the first entry apart, the steady part over the 3 after it
        assert_eq!(run.compute_first_entry(7, false), Some((5.0, 1.0)));
        assert_eq!(run.compute_max_per_entry(7), Some(2.0));
    }

    /// Simulated shift at P = 2: the update sits between MPI_Send and MPI_Recv, a burst of its
    /// own on every entry but two: rank 0's last runs into the checksum loop, and rank 1 (no
    /// send) enters its first straight from the initialisation loop.
    #[test]
    fn a_burst_of_its_own_lies_between_mpi_calls() {
        let run = recorded("shift", "smpi-c", "ITERS=100,N=8192,P=2");
        assert_eq!(run.compute_alone(5), Some(198.0 / 200.0));
    }
}
