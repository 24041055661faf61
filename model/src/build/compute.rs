//! Stage 3 of the build: the cost per entry of every computation phase, fitted to the traced
//! times as a factor of the source's work (or the work the counters measured) where there is
//! one, under the floor a rewrite of sent data sets, and with the step where a simulator's
//! compute threshold drops short bursts.

use std::collections::{BTreeMap, BTreeSet};

use apt::{Attr, LoopNode, Node, NodeData};
use symbolic::Expr;

use super::cold;
use super::env::{row, source_expr, Env, Notes};
use super::phase_context::PhaseContext;
use super::tree::leaf_loops;
use super::{ComputeReport, QuantityReport};
use crate::quantity::{fit_quantity, Fitted, Samples};

/// The computation phases' costs per entry by site, and their reports (not yet told which
/// phase each runs inside).
pub(super) struct Computation {
    pub(super) compute: BTreeMap<u32, Fitted>,
    pub(super) reports: Vec<ComputeReport>,
    /// The excess of a cold first entry, seconds, charged once per run ([`cold`]).
    pub(super) cold: BTreeMap<u32, Fitted>,
    /// The computations no run reached, charged nothing.
    pub(super) unreached: Vec<super::Unreached>,
}

/// Fits every computation phase the runs traced, after the trip counts (`trips`) it may be
/// measured against.
pub(super) fn fit_computation(
    env: &Env<'_>,
    sites: &super::sites::SiteFits,
    pc: &PhaseContext,
    notes: &mut Notes,
) -> Computation {
    let trips = &sites.trips;
    let mut out = Computation {
        compute: BTreeMap::new(),
        reports: Vec::new(),
        cold: BTreeMap::new(),
        unreached: Vec::new(),
    };
    let mut typical = BTreeMap::new();
    for n in env.nodes.values() {
        let site = n.site.0;
        let NodeData::Loop(l) = &n.data else {
            continue;
        };
        if !l.compute {
            continue;
        }
        let CostFit {
            charged: f,
            w,
            work,
            typical: t,
        } = if let Some((fit, cold)) = steady_and_cold(env, n, l, trips, pc, notes) {
            out.cold.insert(site, cold);
            fit
        } else {
            let Some((s, traced)) = compute_samples(env, site, pc, PerEntry::All, notes) else {
                // code the runs never reached (an arm of a parameter's value they did not
                // have): no time to charge (trial 28: a METHOD the runs did not use cost 0)
                let missed = super::Unreached {
                    site,
                    line: n.line,
                    file: env.file_of(site),
                    work: l
                        .work
                        .as_ref()
                        .map_or_else(|| "unresolved".into(), Attr::text),
                };
                notes.warnings.push(format!(
                    "computation at {} (site {site}, work {}) ran in no run: T charges it nothing, so where it runs (a branch or parameter value the runs did not take) T is low; profile a configuration that runs it",
                    missed.at(),
                    missed.work,
                ));
                out.unreached.push(missed);
                continue;
            };
            if s.values.is_empty() {
                let mut f = Fitted::constant(0.0);
                f.points = traced;
                CostFit {
                    charged: f.clone(),
                    w: None,
                    work: None,
                    typical: f,
                }
            } else {
                fit_compute(env, n, l, &s, trips, pc, notes)
            }
        };
        typical.insert(site, t);
        loose_fit_warning(env, site, &f, out.cold.get(&site), work.as_ref(), notes);
        out.reports.push(ComputeReport {
            site,
            line: n.line,
            file: env.file_of(site),
            work: match (&l.work, &work) {
                (Some(a), _) if a.expr().is_some() => a.text(),
                (_, Some(w)) => format!("{w} (from counters)"),
                (a, None) => a.as_ref().map_or_else(|| "unresolved".into(), Attr::text),
            },
            w,
            cost: f.expr.clone(),
            detours: None,
            stretch_with: Vec::new(),
            inside_phase: None,
            total: None,
            fit: f.clone(),
        });
        out.compute.insert(site, f);
    }
    add_noise(env, pc, &sites.probs, &typical, &mut out);
    out
}

/// A computation's cost per entry.
struct CostFit {
    /// What T charges per entry before the host's detours ([`add_noise`]).
    charged: Fitted,
    /// Seconds per innermost iteration when the work is known.
    w: Option<f64>,
    /// The work per entry.
    work: Option<Expr>,
    /// The fit to the runs' cost per entry, without the compute threshold's step: how long
    /// the host computes, charged or not.
    typical: Fitted,
}

/// Warns when a computation's cost per entry follows its fitted law loosely (R² below 0.9,
/// over three runs or more) and that moves T: in some run the slowest rank's time there and
/// what T charges for its entries (`f` each, the cold first entry's excess once) differ by over
/// 10% of the run's time. Trial 11's sor initialisation, fitted per column at R² 0.77, was
/// taken without a word; a loose fit of a loop that is a sliver of T says nothing worth one.
fn loose_fit_warning(
    env: &Env<'_>,
    site: u32,
    f: &Fitted,
    cold: Option<&Fitted>,
    work: Option<&Expr>,
    notes: &mut Notes,
) {
    if f.points < 3 || f.r2 >= 0.9 || !f.r2.is_finite() {
        return;
    }
    let at = |e: &Expr, r: &crate::observe::RunObs| {
        e.eval(&|v| r.params.get(v).copied()).unwrap_or(f64::NAN)
    };
    let worst = env
        .runs
        .iter()
        .filter_map(|r| {
            let (count, measured) = r
                .ranks
                .iter()
                .filter_map(|k| k.compute(site))
                .max_by(|a, b| a.1.total_cmp(&b.1))?;
            let charged = at(&f.expr, r) * count as f64 + cold.map_or(0.0, |c| at(&c.expr, r));
            let off = (charged - measured) / r.time;
            let each = measured / (count.max(1) as f64);
            off.is_finite().then_some((r, measured, charged, off, each))
        })
        .max_by(|a, b| a.3.abs().total_cmp(&b.3.abs()));
    let Some((run, measured, charged, off, each)) = worst.filter(|w| w.3.abs() > 0.1) else {
        return;
    };
    // entries in stretches that reached the threshold were charged, however short each was
    let threshold = env
        .machine
        .compute_threshold
        .filter(|t| run.compute_mean_stretch(site).is_none_or(|m| m < *t));
    let cause = loose_cause(threshold, charged, measured, each);
    let law = work.map_or_else(
        || "its fitted law".to_string(),
        |w| format!("its work ({w})"),
    );
    notes.warnings.push(format!(
        "computation at {} (site {site}): its cost per entry follows {law} loosely (R² {:.2} over {} runs), and that moves T: at {} its slowest rank spent {measured:.3e} s there, T charges {charged:.3e} s ({:+.0}% of the run's time); {cause}",
        env.at(site),
        f.r2,
        f.points,
        run.config,
        100.0 * off
    ));
}

/// Why a computation's traced time and what T charges for it differ ([`loose_fit_warning`]).
/// A simulator drops bursts under its threshold: a time charged where the traced run shows
/// less, at entries under the threshold, may be entries the run was not charged for (trial
/// 18's FFT: 0.5 µs bit reversals split off by the phase markers), not a law that charges too
/// much.
fn loose_cause(threshold: Option<f64>, charged: f64, measured: f64, each: f64) -> String {
    match threshold.filter(|t| *t > 0.0) {
        Some(t) if charged > measured && each < t => format!(
            "its entries there took {each:.2e} s each, under the simulator's compute threshold ({t:.0e} s): the traced run was not charged for those it dropped, where the program without augur's markers may run them inside a larger burst that is"
        ),
        _ => "something the law lacks (cache or first-touch effects, data-dependent work, a disturbed run) is in its times".to_string(),
    }
}

/// Which entries a computation's cost per entry is taken over.
#[derive(Clone, Copy, PartialEq)]
enum PerEntry {
    All,
    /// The entries after each processor's first ([`steady_and_cold`]).
    Steady,
}

/// A computation outside pipelines whose first entry the runs agree is cold
/// ([`cold::runs_agree`], and worth 1% of the runs' time on average): its cost per entry fitted
/// to the entries after the first, and the first entry's excess as a share of it (reported,
/// charged once per run: [`cold::once`]). None, adding nothing to `notes`, when the runs do
/// not show one.
fn steady_and_cold(
    env: &Env<'_>,
    n: &Node,
    l: &LoopNode,
    trips: &BTreeMap<u32, Fitted>,
    pc: &PhaseContext,
    notes: &mut Notes,
) -> Option<(CostFit, Fitted)> {
    let site = n.site.0;
    if pc.in_pipeline.contains(&site) {
        return None;
    }
    // entries of differing counts (a multigrid's levels, the finest first): the first entry
    // costs more for its count, not for data first touched there
    if super::varying::spread(env, &leaf_loops(n)).is_some() {
        return None;
    }
    let mut excess = Samples::new(env.params.clone());
    let (mut ratios, mut shares) = (Vec::new(), Vec::new());
    for r in env.runs {
        if r.compute_totals(site).is_none_or(|(c, _)| c == 0) {
            continue;
        }
        // every run that traced it entered it twice or more, or its runs cannot be split
        let (first, steady) = r
            .compute_first_entry(site, noisy(env, site, pc))
            .filter(|(_, s)| *s > 0.0)?;
        ratios.push(first / steady - 1.0);
        excess.push(row(r, &env.params), (first - steady).max(0.0));
        shares.push((first - steady).max(0.0) / r.time);
    }
    let share = shares.iter().sum::<f64>() / shares.len().max(1) as f64;
    if !cold::runs_agree(&ratios) || share < 0.01 {
        return None;
    }
    let mut scratch = Notes::default();
    let (s, _) = compute_samples(env, site, pc, PerEntry::Steady, &mut scratch)?;
    if s.values.is_empty() {
        return None;
    }
    let fit = fit_compute(env, n, l, &s, trips, pc, &mut scratch);
    let cold = cold::once(&excess, &fit.charged.expr)?;
    notes.append(scratch);
    notes.quantities.push(QuantityReport {
        what: "cold".into(),
        site,
        line: n.line,
        file: env.file_of(site),
        source: "measured: the first entry less the steady cost per entry, seconds (its data first touched there; charged once per run, the cost per entry fitted to the entries after it)".into(),
        fit: cold.clone(),
    });
    Some((fit, cold))
}

/// The traced seconds per entry of computation `site` (a pipeline's mean, elsewhere the
/// slowest processor's) over the entries `which` says, without the runs a simulator's compute
/// threshold made say nothing, and how many runs traced it. None when no run did.
fn compute_samples(
    env: &Env<'_>,
    site: u32,
    pc: &PhaseContext,
    which: PerEntry,
    notes: &mut Notes,
) -> Option<(Samples, usize)> {
    let typical = noisy(env, site, pc);
    let per_entry = |r: &crate::observe::RunObs| {
        if which == PerEntry::Steady {
            r.compute_first_entry(site, typical)
                .map(|(_, steady)| steady)
        } else if pc.in_pipeline.contains(&site) {
            r.compute_totals(site)
                .filter(|(c, _)| *c > 0)
                .map(|(c, t)| t / c as f64)
        } else if typical {
            r.compute_occurrence_typical(site)
                .or_else(|| r.compute_max_per_entry(site))
        } else {
            r.compute_occurrence_max(site)
                .or_else(|| r.compute_max_per_entry(site))
        }
    };
    let mut s = env.samples_of(&per_entry);
    if s.values.is_empty() {
        return None;
    }
    // a simulator that drops short bursts (SMPI's smpi/cpu-threshold) recorded
    // nothing, or a deferred part, for entries below its threshold: those runs
    // say what the simulator dropped, not what the work costs. Entries whose
    // stretches between two MPI calls reach the threshold (a routine called per
    // point between two reductions) say what was charged, however short each is
    let traced = s.values.len();
    let threshold = env.machine.compute_threshold.filter(|t| *t > 0.0);
    let simulated = env.runs.iter().any(|r| r.smpi);
    if let Some(t) = threshold.filter(|_| simulated) {
        s = env.samples_of(&|r| {
            per_entry(r).filter(|v| *v >= t || r.compute_mean_stretch(site).is_some_and(|m| m >= t))
        });
        let below = traced - s.values.len();
        if s.values.is_empty() {
            notes.warnings.push(format!(
                "computation at {} (site {site}) is shorter than the machine's compute threshold ({t:e} s) in every run: not charged",
                env.at(site)
            ));
        } else if below > 0 {
            notes.warnings.push(format!(
                "computation at {} (site {site}): {below} of {traced} runs below the machine's compute threshold ({t:e} s) left out of its fit",
                env.at(site)
            ));
        }
    }
    Some((s, traced))
}

/// A computation's cost per entry from its samples `s`: (the fit, the seconds per innermost
/// iteration when the work is known, the work per entry).
fn fit_compute(
    env: &Env<'_>,
    n: &Node,
    l: &LoopNode,
    s: &Samples,
    trips: &BTreeMap<u32, Fitted>,
    pc: &PhaseContext,
    notes: &mut Notes,
) -> CostFit {
    let site = n.site.0;
    let work = work_of(env, n, l, s.values.len(), trips, notes);
    // the outer loop's trip count, when the nest has inner loops: a candidate
    // cost per outer iteration
    let outer = (!leaf_loops(n).contains(&site))
        .then(|| {
            env.source(&l.trip)
                .or_else(|| trips.get(&site).map(|f| f.expr.clone()))
        })
        .flatten();
    // and, in a nest of three loops or more, the entries into its innermost loops: each
    // entry's start-up (trial 14's Cannon: a block product costs 0.56 ns per multiply-add at
    // 288 x 288, 0.9 at 36 x 36, fitted as a cost growing with log2(P), 70% of T)
    let entries = innermost_entries(env, n, trips).filter(|e| Some(e) != outer.as_ref());
    let per: Vec<Expr> = outer.into_iter().chain(entries).collect();
    let f = match &work {
        Some(w) => crate::quantity::fit_scaled(
            s,
            w,
            &per,
            pc.communicating.get(&site),
            &if pc.in_pipeline.contains(&site) {
                Expr::one()
            } else {
                Expr::var("P")
            },
            pc.floors.get(&site),
        ),
        None => fit_quantity(s, None, &[], false, env.qopts),
    };
    let w = work.as_ref().and_then(|w| per_iteration(w, &f));
    CostFit {
        charged: below_threshold(env, site, f.clone()),
        w,
        work,
        typical: f,
    }
}

/// Whether computation `site` is fitted to its typical cost and charged the host's detours
/// apart ([`with_noise`]): when the machine's sheet measured them, outside pipelines (whose
/// stages pay their mean cost; a detour delays one stage, not every rank).
fn noisy(env: &Env<'_>, site: u32, pc: &PhaseContext) -> bool {
    env.noise.is_some() && !pc.in_pipeline.contains(&site)
}

/// Charges each stretch of [`noisy`] computation (what its ranks run between two MPI calls)
/// the longest detour its ranks meet ([`crate::noise`]): over `R` ranks computing `W` seconds
/// each, `law(R·rate·W)`, `R` = 1 where one rank ran it in every run, else P times the shares
/// of the IFs on its path that ranks take differently ([`ranks_running`]: an LU's pivot search
/// under `if (mod(k - 1, P) == rank)` is one rank's, while the others wait for it). Computations
/// the runs show between the same two MPI calls are one stretch ([`Stretches::groups`]), `W` the
/// sum of their `typical` costs times their entries per stretch, and its detour is charged
/// per entry of the one present in the most stretches, divided by its entries per stretch.
/// Detours lift a burst over a compute threshold, so they are charged whole.
fn add_noise(
    env: &Env<'_>,
    pc: &PhaseContext,
    probs: &BTreeMap<u32, Fitted>,
    typical: &BTreeMap<u32, Fitted>,
    out: &mut Computation,
) {
    let (Some(law), Some(host)) = (&env.noise, &env.machine.noise) else {
        return;
    };
    let stretches = Stretches::of(env.runs);
    let split = super::tree::rank_split(&env.nodes, env.runs);
    for group in stretches.groups() {
        let sites: Vec<u32> = group
            .into_iter()
            .filter(|s| noisy(env, *s, pc) && typical.contains_key(s))
            .collect();
        // from the runs where ranks wait for each other: at P = 1 a loop with no MPI call
        // in it runs as one stretch
        let per_stretch = |site: u32| -> Option<Expr> {
            let ks = env.samples_of(&|r| {
                (r.p() > 1)
                    .then(|| r.compute_entries_per_stretch(site))
                    .flatten()
            });
            if ks.values.is_empty() {
                None
            } else if ks.values.iter().all(|k| (k - 1.0).abs() < 0.01) {
                Some(Expr::one())
            } else {
                // a stretch holds one entry at least, wherever the fitted law goes
                let k = super::phase_context::fit_whole_count(env, &ks, None).expr;
                Some(Expr::max(k, Expr::one()))
            }
        };
        let ks: Vec<(u32, Expr)> = sites
            .iter()
            .filter_map(|s| per_stretch(*s).map(|k| (*s, k)))
            .collect();
        let Some((carrier, k)) = ks
            .iter()
            .max_by_key(|(s, _)| (stretches.holding(&[*s]), std::cmp::Reverse(*s)))
            .cloned()
        else {
            continue;
        };
        let alone = env.runs.iter().all(|r| {
            r.ranks
                .iter()
                .filter(|k| sites.iter().any(|s| k.entries.contains_key(s)))
                .count()
                <= 1
        });
        let ranks = if alone {
            Expr::one()
        } else {
            ranks_running(env, probs, &split, carrier)
        };
        let expected = |pick: &dyn Fn(&Fitted) -> &Expr| -> Expr {
            let w: Expr = ks.iter().map(|(s, k)| k * pick(&typical[s])).sum();
            &ranks * Expr::num(host.rate()) * w
        };
        let noise = |m: &Expr| law.expr(m) * k.powi(-1);
        let m = expected(&|f| &f.expr);
        // no time the runs showed (every entry under a simulator's threshold): none to meet
        if m.is_zero() {
            continue;
        }
        let (e, lo, hi) = (
            noise(&m),
            noise(&expected(&|f| &f.lo)),
            noise(&expected(&|f| &f.hi)),
        );
        if let Some(f) = out.compute.get_mut(&carrier) {
            f.expr = if env.detour_symbols {
                &f.expr + Expr::var(&detour_symbol(carrier)) * k.powi(-1)
            } else {
                &f.expr + &e
            };
            f.lo = &f.lo + &lo;
            f.hi = &f.hi + &hi;
            if let Some(r) = out.reports.iter_mut().find(|r| r.site == carrier) {
                r.cost = f.expr.clone();
                r.fit = f.clone();
                r.detours = Some(super::Detours {
                    expected: m,
                    per_stretch: k.clone(),
                    cost: e,
                });
                r.stretch_with = sites.iter().copied().filter(|s| *s != carrier).collect();
            }
        }
    }
}

/// The ranks that run `site` at once: P times the share of each IF on its path whose arms
/// ranks take differently (`split`), the arm's share where the path goes through its else.
fn ranks_running(
    env: &Env<'_>,
    probs: &BTreeMap<u32, Fitted>,
    split: &std::collections::BTreeSet<u32>,
    site: u32,
) -> Expr {
    let mut ranks = Expr::var("P");
    let Some(path) = env.paths.get(&site).and_then(|p| p.first()) else {
        return ranks;
    };
    for (k, s) in path.iter().enumerate() {
        if *s == site || !split.contains(s) {
            continue;
        }
        let (Some(n), Some(p)) = (env.nodes.get(s), probs.get(s)) else {
            continue;
        };
        ranks = ranks * super::tree::arm_share(n, path.get(k + 1), p.expr.clone());
    }
    ranks
}

/// The symbol T's display gives the longest detour of the stretch `carrier` carries.
pub(super) fn detour_symbol(carrier: u32) -> String {
    format!("D{carrier}")
}

/// The sets of computation sites the runs' ranks ran between the same two MPI calls, with
/// how many stretches each set was, over every rank of every run.
pub(super) struct Stretches(BTreeMap<BTreeSet<u32>, usize>);

impl Stretches {
    pub(super) fn of(runs: &[crate::observe::RunObs]) -> Stretches {
        let mut sets: BTreeMap<BTreeSet<u32>, usize> = BTreeMap::new();
        for k in runs.iter().flat_map(|r| &r.ranks) {
            for (set, n) in k.stretch_sites() {
                *sets.entry(set).or_insert(0) += n;
            }
        }
        Stretches(sets)
    }

    /// The stretches that hold every one of `sites`.
    fn holding(&self, sites: &[u32]) -> usize {
        self.0
            .iter()
            .filter(|(set, _)| sites.iter().all(|s| set.contains(s)))
            .map(|(_, n)| n)
            .sum()
    }

    /// The sites grouped: two are together when most stretches of each hold both (a loop's
    /// last entry running into the code after it does not join them); a site with no such
    /// partner is a group of its own. In site order.
    pub(super) fn groups(&self) -> Vec<BTreeSet<u32>> {
        let sites: BTreeSet<u32> = self.0.keys().flatten().copied().collect();
        let mut groups: Vec<BTreeSet<u32>> = Vec::new();
        for s in sites {
            let alone = self.holding(&[s]);
            let joins = |g: &BTreeSet<u32>| {
                g.iter()
                    .any(|t| 2 * self.holding(&[s, *t]) > alone.max(self.holding(&[*t])))
            };
            let (joined, mut rest): (Vec<_>, Vec<_>) =
                std::mem::take(&mut groups).into_iter().partition(joins);
            let mut merged = BTreeSet::from([s]);
            for g in joined {
                merged.extend(g);
            }
            rest.push(merged);
            groups = rest;
        }
        groups.sort();
        groups
    }
}

/// Entries into the innermost loops of the nest at `n` per entry of `n`, from the trip counts
/// (the source's, else the fitted ones): the trip count of `n` times the sum over its loops
/// below of theirs, an innermost loop entered once. None where a trip count is unknown or
/// depends on an enclosing loop's variable, or the nest has fewer than three levels (there the
/// outer trip count is the same candidate).
fn innermost_entries(env: &Env<'_>, n: &Node, trips: &BTreeMap<u32, Fitted>) -> Option<Expr> {
    fn loops_below<'n>(n: &'n Node, out: &mut Vec<&'n Node>) {
        for c in n.children.iter().chain(&n.else_children) {
            match c.data {
                NodeData::Loop(_) => out.push(c),
                _ => loops_below(c, out),
            }
        }
    }
    fn entries(
        env: &Env<'_>,
        n: &Node,
        trips: &BTreeMap<u32, Fitted>,
        vars: &mut Vec<String>,
    ) -> Option<(Expr, usize)> {
        let NodeData::Loop(l) = &n.data else {
            return None;
        };
        let mut below = Vec::new();
        loops_below(n, &mut below);
        if below.is_empty() {
            return Some((Expr::one(), 1));
        }
        let trip = env
            .source(&l.trip)
            .or_else(|| trips.get(&n.site.0).map(|f| f.expr.clone()))?;
        if vars.iter().any(|v| trip.contains_var(v)) {
            return None;
        }
        vars.extend(l.var.clone());
        let mut sum = Expr::zero();
        let mut depth = 0;
        for c in below {
            let (e, d) = entries(env, c, trips, vars)?;
            sum = sum + e;
            depth = depth.max(d);
        }
        Some((trip * sum, depth + 1))
    }
    let (e, depth) = entries(env, n, trips, &mut Vec::new())?;
    (depth >= 3).then_some(e)
}

/// Innermost iterations per entry of computation `n`: the source's, or with unresolved bounds
/// the work per entry the counters measured, as a law of the parameters (reported), else the
/// product of the fitted trip counts. `traced`: how many runs the cost is fitted to.
fn work_of(
    env: &Env<'_>,
    n: &Node,
    l: &LoopNode,
    traced: usize,
    trips: &BTreeMap<u32, Fitted>,
    notes: &mut Notes,
) -> Option<Expr> {
    let site = n.site.0;
    if let Some(w) = l.work.as_ref().and_then(|w| env.source(w)) {
        return Some(w);
    }
    if let Some(w) = slowest_ranks_work(env, n, l, notes) {
        return Some(w);
    }
    let leaves = leaf_loops(n);
    let ws = env.samples_of(&|r| {
        let entries = r.compute_totals(site)?.0;
        let mut sum = 0u64;
        for l in &leaves {
            sum += r.loop_totals(*l)?.1;
        }
        (entries > 0 && sum > 0).then(|| sum as f64 / entries as f64)
    });
    if leaves.is_empty() || ws.values.len() < traced {
        return measured_work(n, trips, &env.consts, &env.params);
    }
    let f = super::phase_context::fit_whole_count(env, &ws, None);
    let counted = |r: &crate::observe::RunObs| -> Option<(f64, f64)> {
        let entries = r.compute_totals(site)?.0;
        let mut sum = 0u64;
        for l in &leaves {
            sum += r.loop_totals(*l)?.1;
        }
        Some((sum as f64, entries as f64))
    };
    let spread = super::varying::spread(env, &leaves);
    // a single loop's work is its trip count, whose fit said the same
    let mut said = Notes::default();
    let heard = if leaves == [site] {
        &mut said
    } else {
        &mut *notes
    };
    let f = super::varying::per_enclosing(env, site, "work", &f, spread.as_ref(), &counted, heard)
        .map_or(f, |q| q.fit);
    notes.quantities.push(QuantityReport {
        what: "work".into(),
        site,
        line: n.line,
        file: env.file_of(site),
        source: "unresolved (counted)".into(),
        fit: f.clone(),
    });
    Some(f.expr)
}

/// A work per entry the source gives in the rank (`BASE + mod(BASE*rank, 3*BASE)`, an
/// uneven split `floor(N/P) + [rank < mod(N, P)]`): the run waits for the slowest rank, whose
/// time is what the samples hold, so the work is the largest over rank = 0..P−1, evaluated at
/// each run and fitted as a law of the parameters (reported), with a warning naming the
/// imbalance where the slowest rank does 10% more than the mean. None when the work does not
/// mention the rank or a run's P is unknown.
fn slowest_ranks_work(env: &Env<'_>, n: &Node, l: &LoopNode, notes: &mut Notes) -> Option<Expr> {
    let w = env.source_in_rank(l.work.as_ref()?)?;
    let (s, worst) = env.most_over_ranks(&w)?;
    let mut f = fit_quantity(&s, None, &[], true, env.qopts);
    // the samples are the source's, exact: a law through every one of them is the source's
    // (trial 27: `N/P` for a block distribution's count was "filled by regression")
    if f.max_rel_err <= 1e-6 {
        f.origin = crate::quantity::Origin::Source;
    }
    notes.quantities.push(QuantityReport {
        what: "work".into(),
        site: n.site.0,
        line: n.line,
        file: env.file_of(n.site.0),
        source: format!("{w}, the most over rank = 0..P-1"),
        fit: f.clone(),
    });
    if let Some((ratio, at)) = worst.filter(|(x, _)| *x > 1.1) {
        notes.warnings.push(format!(
            "computation at {}: its work depends on the rank ({w}): the slowest rank does {ratio:.2}x the mean at {at}; T charges the slowest rank's work ({}), the time every rank waits for",
            env.at(n.site.0),
            f.expr
        ));
    }
    Some(f.expr)
}

/// w_i: the fitted coefficient of the work's first varying term over that term's coefficient
/// in the work `w` (the fit may add a constant), of the law under a floor, `max(law, floor)`;
/// only for a fit that scaled the work.
fn per_iteration(w: &Expr, f: &Fitted) -> Option<f64> {
    if f.origin != crate::quantity::Origin::SourceScaled {
        return None;
    }
    let laws: Vec<&Expr> = match f.expr.as_atom() {
        Some(symbolic::Atom::Max(args)) => args.iter().collect(),
        _ => vec![&f.expr],
    };
    w.terms().iter().find(|t| !t.is_constant()).and_then(|wt| {
        laws.iter().find_map(|law| {
            law.terms()
                .iter()
                .find(|t| t.monomial() == wt.monomial())
                .map(|t| t.coef() / wt.coef())
        })
    })
}

/// A burst of its own below the machine's compute threshold is not charged: the step where
/// the cost reaches it. A burst shared with other computation is charged whole, so the step is
/// only for sites whose entries are, all but a few (the last iteration runs into the code
/// after the loop), between two MPI calls, and whose cost can fall below the threshold.
fn below_threshold(env: &Env<'_>, site: u32, f: Fitted) -> Fitted {
    match env.machine.compute_threshold.filter(|t| *t > 0.0) {
        Some(t)
            if env
                .runs
                .iter()
                .all(|r| r.compute_alone(site).is_none_or(|a| a >= 0.9)) =>
        {
            // a cost that reaches the threshold at every P ≥ 1 and every positive value of
            // the other parameters (`sqrt(P)` times a coefficient above it) needs no step
            let reaches = |e: &Expr| e.lower_bound_with(&|v| if v == "P" { 1.0 } else { 0.0 }) >= t;
            let step = |e: &Expr| {
                if reaches(e) {
                    e.clone()
                } else {
                    e * &Expr::min((e / &Expr::num(t)).floor(), Expr::one())
                }
            };
            Fitted {
                expr: step(&f.expr),
                lo: step(&f.lo),
                hi: step(&f.hi),
                ..f
            }
        }
        _ => f,
    }
}

/// Work of a computation loop whose source bounds are unresolved, from the trip counts the runs
/// measured: a loop is its trip count times the work of its body (1 when the body holds no
/// loop), IF arms add up. None when some loop on the way has neither a source trip count nor a
/// fitted one.
fn measured_work(
    n: &Node,
    trips: &BTreeMap<u32, Fitted>,
    consts: &BTreeMap<String, Expr>,
    params: &[String],
) -> Option<Expr> {
    fn body(
        nodes: &[Node],
        trips: &BTreeMap<u32, Fitted>,
        consts: &BTreeMap<String, Expr>,
        params: &[String],
    ) -> Option<Expr> {
        let mut w = Expr::zero();
        let mut any = false;
        for c in nodes {
            match &c.data {
                NodeData::Loop(_) => {
                    w = w + loop_work(c, trips, consts, params)?;
                    any = true;
                }
                NodeData::If(_) => {
                    let t = body(&c.children, trips, consts, params)?;
                    let e = body(&c.else_children, trips, consts, params)?;
                    if t != Expr::one() || e != Expr::one() {
                        w = w + t + e;
                        any = true;
                    }
                }
                _ => {}
            }
        }
        Some(if any { w } else { Expr::one() })
    }
    fn loop_work(
        n: &Node,
        trips: &BTreeMap<u32, Fitted>,
        consts: &BTreeMap<String, Expr>,
        params: &[String],
    ) -> Option<Expr> {
        let NodeData::Loop(l) = &n.data else {
            return None;
        };
        let trip = source_expr(&l.trip, consts, params)
            .or_else(|| trips.get(&n.site.0).map(|f| f.expr.clone()))?;
        Some(trip * body(&n.children, trips, consts, params)?)
    }
    loop_work(n, trips, consts, params)
}

#[cfg(test)]
mod loose_tests {
    use super::loose_cause;

    #[test]
    fn a_time_under_the_simulators_threshold_is_named_as_the_cause() {
        // trial 18's FFT: 9.8 µs traced over 512 entries, 413 µs charged
        let c = loose_cause(Some(1e-6), 4.127e-4, 9.763e-6, 1.91e-8);
        assert!(c.starts_with("its entries there took 1.91e-8 s each, under the simulator's compute threshold (1e-6 s)"), "{c}");
        // natively, or charged less than traced, or entries over the threshold: the law
        for c in [
            loose_cause(None, 4.127e-4, 9.763e-6, 1.91e-8),
            loose_cause(Some(1e-6), 9.763e-6, 4.127e-4, 1.91e-8),
            loose_cause(Some(1e-6), 4.127e-4, 9.763e-5, 2e-6),
        ] {
            assert!(c.starts_with("something the law lacks"), "{c}");
        }
    }
}
