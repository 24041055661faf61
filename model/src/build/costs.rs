//! Stage 4 of the build: the cost of every communication phase per occurrence (and a
//! pipeline's fill), at the APT ancestor it is charged at, and which consecutive phases at one
//! anchor overlap. Collectives are costed in `collective`, exchanges and pipelines in
//! `exchange`; this file runs them over the phases and holds what both fit.

use std::collections::{BTreeMap, BTreeSet};

use symbolic::Expr;

use super::collective::cost_collective;
use super::compose::{Inside, PhaseCost};
use super::env::{Env, Notes};
use super::exchange::cost_exchange;
use super::phase_context::{non_negative, phase_samples, PhaseContext};
use super::{PhaseReport, QuantityReport};
use crate::phases::{self, Phase, PhaseKind};
use crate::quantity::{fit_quantity, Fitted, Samples};

/// Every phase's cost and report, and where the tree meets them.
pub(super) struct PhaseCosts {
    /// Anchor site → phase indices, program order.
    pub(super) anchored: BTreeMap<u32, Vec<usize>>,
    /// COMM sites accounted by a phase, compute sites inside a phase.
    pub(super) excluded: BTreeSet<u32>,
    /// [`super::compose::Ctx::inside`].
    pub(super) inside: BTreeMap<u32, Vec<Inside>>,
    pub(super) reports: Vec<PhaseReport>,
    /// Phase index → cost per occurrence and fill.
    pub(super) cost: BTreeMap<usize, PhaseCost>,
    /// Collective call site → cost per call [lo, avg, hi] at its fitted size.
    pub(super) coll_cost: BTreeMap<u32, [Expr; 3]>,
}

/// One phase being costed, with what both kinds of phase fit from its runs.
pub(super) struct PhaseFit<'p> {
    pub(super) env: &'p Env<'p>,
    pub(super) g: &'p Phase,
    pub(super) gi: usize,
    /// Its first site: where its sizes are reported.
    pub(super) first: u32,
    /// The least and largest message size the runs measured: they choose the protocol
    /// regimes the cost spans.
    pub(super) d_lo: f64,
    pub(super) d_hi: f64,
}

impl<'p> PhaseFit<'p> {
    fn new(env: &'p Env<'p>, g: &'p Phase, gi: usize) -> PhaseFit<'p> {
        let (d_lo, d_hi) = g
            .runs
            .values()
            .fold((f64::INFINITY, 0.0f64), |(lo, hi), pr| {
                (lo.min(pr.bytes), hi.max(pr.bytes))
            });
        PhaseFit {
            env,
            g,
            gi,
            first: g.sites.iter().next().copied().unwrap_or(0),
            d_lo,
            d_hi,
        }
    }

    /// This phase with its size range widened to where the model will be used: `bytes` (the
    /// fitted size per message) at the largest traced run with P 64 times larger, or one other
    /// parameter 16 times larger. A size that grows with P (a reduce-scatter's vector of 256·P
    /// bytes, traced up to 512 B) reaches the sheet's large-message regimes there instead of
    /// carrying the small-message law to any size; a size the parameters do not move adds no
    /// regime.
    pub(super) fn reaching(&self, bytes: &Expr) -> PhaseFit<'p> {
        let env = self.env;
        let (mut lo, mut hi) = (self.d_lo, self.d_hi);
        let largest = self
            .g
            .runs
            .keys()
            .map(|ri| &env.runs[*ri])
            .max_by(|a, b| a.p().cmp(&b.p()).then(a.time.total_cmp(&b.time)));
        if let Some(run) = largest {
            for scaled in &env.params {
                let k = if scaled == "P" { 64.0 } else { 16.0 };
                let at = |v: &str| {
                    run.params
                        .get(v)
                        .map(|x| if v == scaled { x * k } else { *x })
                };
                if let Ok(d) = bytes.eval(&at) {
                    if d.is_finite() && d >= 0.0 {
                        lo = lo.min(d);
                        hi = hi.max(d);
                    }
                }
            }
        }
        PhaseFit {
            env,
            g: self.g,
            gi: self.gi,
            first: self.first,
            d_lo: lo,
            d_hi: hi,
        }
    }

    /// One value per run that traced the phase.
    pub(super) fn by(&self, f: &dyn Fn(&phases::PhaseRun) -> f64) -> Samples {
        phase_samples(self.g, self.env.runs, &self.env.params, f)
    }

    pub(super) fn line(&self, s: u32) -> u32 {
        self.env.nodes.get(&s).map_or(0, |n| n.line)
    }

    /// The lines of `sites`, ascending, once each (0 for a site the tree does not hold).
    pub(super) fn lines(&self, sites: impl IntoIterator<Item = u32>) -> Vec<u32> {
        let lines: std::collections::BTreeSet<u32> =
            sites.into_iter().map(|s| self.line(s)).collect();
        lines.into_iter().collect()
    }

    /// [`Self::lines`] as `file:line` in source order, when some site is outside the main
    /// file; empty otherwise.
    pub(super) fn lines_at(&self, sites: impl IntoIterator<Item = u32>) -> Vec<String> {
        let at: std::collections::BTreeSet<(Option<String>, u32)> = sites
            .into_iter()
            .map(|s| (self.env.file_of(s), self.line(s)))
            .collect();
        if at.iter().all(|(f, _)| f.is_none()) {
            return Vec::new();
        }
        at.into_iter()
            .map(|(f, l)| match f {
                Some(f) => format!("{f}:{l}"),
                None => format!("{}:{l}", self.env.main_name()),
            })
            .collect()
    }

    /// The size per message `f` (the source's expression `src` when it has one) and its
    /// report.
    pub(super) fn bytes_report(&self, src: Option<Expr>, f: Fitted) -> (Fitted, QuantityReport) {
        let rep = QuantityReport {
            what: "bytes".into(),
            site: self.first,
            line: self.line(self.first),
            file: self.env.file_of(self.first),
            source: match src {
                Some(e) => match self.mixed_sizes(&e) {
                    Some(mixed) => format!("{e}, between the sizes its sites send ({mixed})"),
                    None => e.to_string(),
                },
                None => self.why_unsized(),
            },
            fit: f.clone(),
        };
        (f, rep)
    }

    /// The sizes the phase's sending sites give where they differ: `4 at line 58, 16 at line
    /// 94`.
    fn mixed_sizes(&self, src: &Expr) -> Option<String> {
        let sizes = super::phase_context::send_sizes(
            self.g,
            &self.env.nodes,
            &self.env.consts,
            &self.env.params,
        );
        // only where the hypothesis is their mean (a halo's rows and columns take the larger)
        (super::phase_context::mean_of_sizes(&sizes).as_ref() == Some(src)).then(|| {
            let each: Vec<String> = sizes
                .iter()
                .map(|(s, e)| format!("{e} at line {}", self.line(*s)))
                .collect();
            each.join(", ")
        })
    }

    /// Why the source gives no size per message for the phase: the first of its sites' reasons.
    fn why_unsized(&self) -> String {
        self.g
            .sites
            .iter()
            .find_map(|s| match self.env.nodes.get(s).map(|n| &n.data) {
                Some(apt::NodeData::Comm(c)) => match c.size() {
                    Some(apt::Attr::Unresolved(why)) => Some(format!("unresolved ({why})")),
                    _ => None,
                },
                _ => None,
            })
            .unwrap_or_else(|| "unresolved".into())
    }

    /// The size per message fitted to the traced sizes, `src` the hypothesis, and its report.
    pub(super) fn fit_bytes(&self, src: Option<Expr>) -> (Fitted, QuantityReport) {
        let f = non_negative(fit_quantity(
            &self.by(&|pr| pr.bytes),
            src.as_ref(),
            &[],
            true,
            self.env.qopts,
        ));
        self.bytes_report(src, f)
    }
}

/// Costs every phase of `pc`, with the computation costs (`compute`) that run inside them.
pub(super) fn cost_phases(
    env: &Env<'_>,
    pc: &PhaseContext,
    compute: &BTreeMap<u32, Fitted>,
    notes: &mut Notes,
) -> PhaseCosts {
    let mut out = PhaseCosts {
        anchored: BTreeMap::new(),
        excluded: BTreeSet::new(),
        inside: BTreeMap::new(),
        reports: Vec::new(),
        cost: BTreeMap::new(),
        coll_cost: BTreeMap::new(),
    };
    for (gi, g) in pc.found.iter().enumerate() {
        let pf = PhaseFit::new(env, g, gi);
        if g.kind == PhaseKind::Collective {
            let Some((cost, report)) = cost_collective(&pf, notes) else {
                continue;
            };
            out.coll_cost.insert(pf.first, cost.per.clone());
            out.cost.insert(gi, cost);
            out.reports.push(report);
            continue;
        }
        let Some((anchor, cost, report)) = cost_exchange(&pf, pc, compute, notes) else {
            continue;
        };
        out.excluded.extend(g.sites.iter().copied());
        let below: BTreeSet<u32> = env
            .nodes
            .get(&anchor)
            .map(|n| {
                super::tree::compute_below(n, &env.routines())
                    .into_iter()
                    .map(|(s, _)| s)
                    .collect()
            })
            .unwrap_or_default();
        for &c in &g.overlapped {
            out.inside.entry(c).or_default().push(Inside {
                anchor,
                below: below.contains(&c),
                share: inside_share(env, g, c),
            });
        }
        out.anchored.entry(anchor).or_default().push(gi);
        out.cost.insert(gi, cost);
        out.reports.push(report);
    }
    out
}

/// The share of computation `c`'s entries that ran inside phase `g`: per run that has the
/// phase, its entries inside it per processor (`PhaseRun::inside`) against its entries per rank
/// that ran it, the mean over those runs; 1 where no run says. Trial 26: a halo exchange
/// polled with MPI_Testall between chunks of the interior, the first chunk inside the exchange
/// and the other 400 after it, charged the phase's one chunk and not the rest (5% of the
/// program's time in T, 95% in the overhead fit).
///
/// A pipeline's (and a farm's) formula charges every block's computation, on whichever rank it
/// ran: 1 for those.
fn inside_share(env: &Env<'_>, g: &Phase, c: u32) -> f64 {
    if g.kind != PhaseKind::Synchronous {
        return 1.0;
    }
    let shares: Vec<f64> = g
        .runs
        .iter()
        .filter_map(|(ri, pr)| {
            let inside = *pr.inside.get(&c)?;
            let (total, ranks) = env
                .runs
                .get(*ri)?
                .ranks
                .iter()
                .filter_map(|k| k.compute(c))
                .fold((0u64, 0u32), |(t, n), (e, _)| (t + e, n + 1));
            (total > 0).then(|| (inside * f64::from(ranks) / total as f64).min(1.0))
        })
        .collect();
    if shares.is_empty() {
        1.0
    } else {
        shares.iter().sum::<f64>() / shares.len() as f64
    }
}

/// Overlap of consecutive phases at one anchor: cpg's dependence (RL(g_i) ∩ SL(g_i+1) = ∅)
/// at the largest run both share. Each overlapping pair (first → second), and each report
/// told its partner.
pub(super) fn overlaps(
    env: &Env<'_>,
    found: &[Phase],
    anchored: &BTreeMap<u32, Vec<usize>>,
    reports: &mut [PhaseReport],
) -> BTreeMap<usize, usize> {
    let mut overlap_pair = BTreeMap::new();
    for list in anchored.values() {
        let mut i = 0;
        while i + 1 < list.len() {
            if phases::independent(env.runs, &found[list[i]], &found[list[i + 1]]) {
                overlap_pair.insert(list[i], list[i + 1]);
                i += 2;
            } else {
                i += 1;
            }
        }
    }
    for p in reports {
        p.overlaps_with = overlap_pair.get(&p.id).copied().or_else(|| {
            overlap_pair
                .iter()
                .find(|(_, v)| **v == p.id)
                .map(|(k, _)| *k)
        });
    }
    overlap_pair
}
