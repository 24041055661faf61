//! Fits every per-site quantity across the runs and composes T(V) bottom-up over the APT as in
//! seed 004 §4: ROUTINE sums, LOOP multiplies by its trip count, IF weights by the branch
//! probability, CALL takes the callee; communication phases are costed at their APT ancestor
//! (synchronous `max(τ(m), W) + k(s + r)`, pipeline fill `D(τ(m) + s + r + W)` once plus
//! `k(s + r + o) + W` per occurrence), consecutive phases without a processor dependence
//! overlap (max), computation run inside a phase is counted only there; collectives take the
//! machine sheet's form at (P, bytes).
//!
//! Depth convention: D counts hops of the longest chain (P − 1 for a chain through P ranks, as
//! seed 004 §3 reports), so the fill is D stages (the seed's `D − 1` counts processors).

mod cold;
mod collective;
mod compose;
mod compute;
mod costs;
mod diagnose;
mod env;
mod exchange;
#[cfg(test)]
mod noise_tests;
mod phase_context;
mod reach;
mod sheet;
pub(crate) mod sites;
#[cfg(test)]
mod test_support;
#[cfg(test)]
mod tests;
mod tree;
mod varying;
#[cfg(test)]
mod varying_tests;

use std::collections::{BTreeMap, BTreeSet};

use apt::{Apt, NodeData};
use serde::Serialize;
use symbolic::Expr;

use crate::machine::{Bound, Machine};
use crate::observe::RunObs;
use crate::phases::PhaseKind;
use crate::quantity::{Fitted, QuantityOptions};

use compose::{rank_arms, Ctx};
use env::{Env, Notes};

/// A fitted per-site quantity, for the report.
#[derive(Debug, Clone, Serialize)]
pub struct QuantityReport {
    /// `trip`, `branch`, `work`, `bytes`, `depth`, `msgs`.
    pub what: String,
    pub site: u32,
    pub line: u32,
    /// The file of `line` when it is not the main source (another source of the program, or
    /// an included file), relative to the main source's directory.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// The source's expression or `unresolved (…)`.
    pub source: String,
    #[serde(flatten)]
    pub fit: Fitted,
}

/// A computation phase no run reached (an arm of a parameter's value the runs did not have):
/// T charges it nothing, and `predict` names it where asked about such a value.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
pub struct Unreached {
    pub site: u32,
    pub line: u32,
    /// As [`QuantityReport::file`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// Innermost iterations per entry, from the source (or `unresolved`).
    pub work: String,
}

impl Unreached {
    /// `file:line`, or `line N` in the main file.
    pub fn at(&self) -> String {
        match &self.file {
            Some(f) => format!("{f}:{}", self.line),
            None => format!("line {}", self.line),
        }
    }
}

/// A computation phase with its fitted cost.
#[derive(Debug, Clone, Serialize)]
pub struct ComputeReport {
    pub site: u32,
    pub line: u32,
    /// As [`QuantityReport::file`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// Innermost iterations per entry, from the source (or `unresolved (…)`).
    pub work: String,
    /// Seconds per innermost iteration (the fitted factor of `work`), when the source gave it.
    pub w: Option<f64>,
    /// Seconds per entry as a function of the parameters.
    pub cost: Expr,
    /// The host's detours in `cost`, where this site carries its stretch's ([`crate::noise`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detours: Option<Detours>,
    /// The other computations charged with it in one stretch (between the same two MPI calls).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub stretch_with: Vec<u32>,
    pub inside_phase: Option<usize>,
    /// Seconds of T it takes outside the phases (entries × cost), for a computation inside
    /// none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total: Option<Expr>,
    #[serde(flatten)]
    pub fit: Fitted,
}

/// The longest detour a stretch's ranks meet, charged per entry of the stretch's carrier:
/// `law(expected) / per_stretch`.
#[derive(Debug, Clone, Serialize)]
pub struct Detours {
    /// M: the detours expected among the ranks in one stretch (ranks × rate × its seconds).
    pub expected: Expr,
    /// The carrier's entries per stretch.
    pub per_stretch: Expr,
    /// Seconds per entry: the part of the carrier's cost that the detours are.
    pub cost: Expr,
}

/// A communication phase with its cost per occurrence.
#[derive(Debug, Clone, Serialize)]
pub struct PhaseReport {
    pub id: usize,
    pub kind: PhaseKind,
    pub sites: Vec<u32>,
    /// Site and line of the APT ancestor.
    pub ancestor: u32,
    pub ancestor_line: u32,
    /// As [`QuantityReport::file`], for `ancestor_line`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ancestor_file: Option<String>,
    /// Lines of its MPI calls (`sites`), ascending, once each: where to look when the
    /// ancestor is a routine holding several phases.
    pub lines: Vec<u32>,
    /// `lines` as `file:line`, when some call is in a file other than the main one (a
    /// program of several files); empty otherwise.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub lines_at: Vec<String>,
    pub processors: Expr,
    pub depth: Option<Expr>,
    pub bytes: Expr,
    /// Messages per rank per occurrence.
    pub msgs: f64,
    /// Cost of one occurrence (pipelines: the steady part), seconds.
    pub cost: Expr,
    /// Pipelines: the one-time fill.
    pub fill: Option<Expr>,
    /// Seconds of T spent in this phase, as an expression (occurrences × cost + fill).
    pub total: Expr,
    /// Computation-phase sites inside.
    pub overlapped: Vec<u32>,
    pub runs_seen: usize,
    /// Phases it overlaps with (no processor dependence, same ancestor, consecutive).
    pub overlaps_with: Option<usize>,
}

/// Result of one build.
#[derive(Debug, Clone)]
pub struct Built {
    pub t: [Expr; 3],
    pub phases: Vec<PhaseReport>,
    pub compute: Vec<ComputeReport>,
    pub quantities: Vec<QuantityReport>,
    pub warnings: Vec<String>,
    /// The computations no run reached.
    pub unreached: Vec<Unreached>,
}

fn bidx(b: Bound) -> usize {
    match b {
        Bound::Min => 0,
        Bound::Avg => 1,
        Bound::Max => 2,
    }
}
const BOUNDS: [Bound; 3] = [Bound::Min, Bound::Avg, Bound::Max];

/// Parameter names the fits use: the runs' problem parameters and P.
pub fn fit_params(runs: &[RunObs]) -> Vec<String> {
    let mut s: BTreeSet<String> = BTreeSet::new();
    for r in runs {
        s.extend(r.params.keys().cloned());
    }
    s.into_iter().collect()
}

/// Builds the model from `runs` (all of them: the caller holds out runs for validation).
///
/// The stages, in order (each adds its reports and warnings in turn): per-site trip counts and
/// branch shares ([`sites`]); the phases and what they tell the computation fits
/// ([`phase_context`]); computation costs ([`compute`]); warnings on the fits so far; phase
/// costs and overlaps ([`costs`]); recursion; the composition of T over the tree
/// ([`compose`]); the residual, the parameters T misses and each phase's total
/// ([`diagnose`]).
pub fn build(
    apt: &Apt,
    main: &str,
    runs: &[RunObs],
    machine: &Machine,
    qopts: &QuantityOptions,
) -> Built {
    build_in(Env::new(apt, main, runs, machine, qopts), None)
}

/// T with each stretch's detours a symbol `D<site>` (the law's closed form, `a₁·M/(M + b₁) +
/// …`, written out at every stretch made T unreadable: trial 27's `2098/s2 + 2791/s3`), and
/// each symbol's M, the detours expected among its ranks, with the computation's line: for
/// reading only. `built` is the model of the same runs, whose residual the display takes as it
/// is. `None` where T charges no detours, or where the symbols' T, the law put back, is not
/// `built`'s at every run (a decision of the build that read a cost's value).
pub fn named_detours(
    apt: &Apt,
    main: &str,
    runs: &[RunObs],
    machine: &Machine,
    qopts: &QuantityOptions,
    built: &Built,
) -> Option<NamedDetours> {
    let law = Env::new(apt, main, runs, machine, qopts).noise?;
    let named: Vec<(String, Expr, u32)> = built
        .compute
        .iter()
        .filter_map(|c| {
            let d = c.detours.as_ref()?;
            Some((compute::detour_symbol(c.site), d.expected.clone(), c.line))
        })
        .collect();
    if named.is_empty() {
        return None;
    }
    let mut env = Env::new(apt, main, runs, machine, qopts);
    env.detour_symbols = true;
    let residual = built
        .quantities
        .iter()
        .find(|q| q.what == "overhead")
        .map(|q| q.fit.expr.clone());
    let t = build_in(env, Some(residual.unwrap_or_else(Expr::zero))).t[1].clone();
    let mut back = BTreeMap::new();
    for (name, m, _) in &named {
        back.insert(name.clone(), law.expr(m));
    }
    // the symbols are per entry of a stretch's carrier over its entries per stretch: the law
    // put back is the law's own, which the build's T charged
    let full = t.subs_all(&back);
    let same = runs.iter().all(|r| {
        let at = |e: &Expr| {
            e.eval(&|v| {
                r.params
                    .get(v)
                    .copied()
                    .or_else(|| (v == "P").then(|| r.p() as f64))
            })
        };
        match (at(&full), at(&built.t[1])) {
            (Ok(a), Ok(b)) => (a - b).abs() <= 1e-6 * b.abs().max(1e-12),
            _ => false,
        }
    });
    same.then_some((t, named))
}

/// T with its detours as symbols, and each symbol's (name, M, line) ([`named_detours`]).
pub type NamedDetours = (Expr, Vec<(String, Expr, u32)>);

/// [`build`] in `env`; with `residual`, T takes that term for the residual instead of fitting
/// one ([`named_detours`], whose costs hold symbols the fit cannot evaluate).
fn build_in(env: Env<'_>, residual: Option<Expr>) -> Built {
    let (apt, main, runs, machine, qopts) = (env.apt, env.main, env.runs, env.machine, env.qopts);
    let mut notes = Notes::default();
    let sites = sites::fit_sites(&env, &mut notes);
    let pc = phase_context::phase_context(&env);
    let computation = compute::fit_computation(&env, &sites, &pc, &mut notes);
    diagnose::fit_warnings(&env, &sites.unexplained, &mut notes);
    let sized = notes.quantities.len();
    let costs = costs::cost_phases(&env, &pc, &computation.compute, &mut notes);
    diagnose::size_warnings(&env, sized, &mut notes);
    let mut compute_rep = computation.reports;
    for c in &mut compute_rep {
        c.inside_phase = pc.found.iter().position(|g| g.overlapped.contains(&c.site));
    }
    let mut phase_rep = costs.reports;
    let overlap_pair = costs::overlaps(&env, &pc.found, &costs.anchored, &mut phase_rep);
    let mut routines = BTreeMap::new();
    for r in &apt.routines {
        if let NodeData::Routine { name, .. } = &r.data {
            routines.insert(name.clone(), r);
        }
    }
    let p2p_default =
        BOUNDS.map(|b| Expr::num(machine.point_to_point.send_overhead.eval_bound(2.0, 0.0, b)));
    let recursion = diagnose::recursion(&env, qopts, &mut notes);
    let rank_split = tree::rank_split(&env.nodes, runs);
    let compute_cold = computation.cold;
    let unreached = computation.unreached;
    let mut ctx = Ctx {
        nodes: env.nodes.clone(),
        machine,
        trips: sites.trips,
        probs: sites.probs,
        compute: computation.compute,
        phase_cost: costs.cost,
        anchored: costs.anchored,
        excluded: costs.excluded,
        inside: costs.inside,
        entered: std::cell::RefCell::new(Vec::new()),
        routines,
        p2p_default,
        overlap_pair,
        coll_cost: costs.coll_cost,
        rank_arms: rank_arms(&rank_split, runs),
        rank_split,
        recursion,
        reach: BTreeMap::new(),
    };
    let outside: Vec<u32> = compute_rep
        .iter()
        .filter(|c| c.inside_phase.is_none())
        .map(|c| c.site)
        .collect();
    reach::fit_reach(&env, &mut ctx, &outside, &mut notes);
    let mut t = BOUNDS.map(|b| {
        let cold: Expr = ctx
            .phase_cost
            .values()
            .map(|c| c.cold[bidx(b)].clone())
            .chain(compute_cold.values().map(|c| c.at(b).clone()))
            .sum();
        ctx.routines.get(main).map_or(Expr::zero(), |r| {
            let (v, f) = ctx.node(r, b, &mut Vec::new());
            v + f + cold
        })
    });
    match residual {
        Some(r) => t[1] = &t[1] + &r,
        None => diagnose::residual(&env, &ctx, &env.paths, &mut t, &mut notes),
    }
    diagnose::missing_params_warnings(&env, &t[1], &mut notes);
    diagnose::phase_totals(&ctx, &env.paths, main, &mut phase_rep);
    diagnose::compute_totals(&ctx, &env.paths, main, &mut compute_rep);
    Built {
        t,
        phases: phase_rep,
        compute: compute_rep,
        quantities: notes.quantities,
        warnings: notes.warnings,
        unreached,
    }
}

impl Fitted {
    fn with_expr(mut self, e: Expr) -> Fitted {
        self.expr = e;
        self.origin = crate::quantity::Origin::Source;
        self
    }
}
