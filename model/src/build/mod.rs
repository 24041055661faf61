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

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use apt::{Apt, Attr, Node, NodeData, ParamOrigin};
use serde::Serialize;
use symbolic::Expr;

use crate::machine::{Bound, CollectiveOp, Machine};
use crate::observe::RunObs;
use crate::phases::{self, Phase, PhaseKind};
use crate::quantity::{fit_quantity, Fitted, Floor, QuantityOptions, Samples};

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
    pub inside_phase: Option<usize>,
    #[serde(flatten)]
    pub fit: Fitted,
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
}

struct Ctx<'a> {
    /// Every APT node by site id.
    nodes: BTreeMap<u32, &'a Node>,
    machine: &'a Machine,
    trips: BTreeMap<u32, Fitted>,
    probs: BTreeMap<u32, Fitted>,
    compute: BTreeMap<u32, Fitted>,
    /// Phase index → (per occurrence [lo,avg,hi], fill, anchor).
    phase_cost: BTreeMap<usize, PhaseCost>,
    /// Anchor site → phase indices, program order.
    anchored: BTreeMap<u32, Vec<usize>>,
    /// COMM sites accounted by a phase, compute sites inside a phase.
    excluded: BTreeSet<u32>,
    routines: BTreeMap<String, &'a Node>,
    p2p_default: [Expr; 3],
    overlap_pair: BTreeMap<usize, usize>,
    /// Collective call site → cost per call [lo, avg, hi] at its fitted size.
    coll_cost: BTreeMap<u32, [Expr; 3]>,
    /// IF sites whose arms ranks take differently (the condition reads the rank, or ranks'
    /// traced arm frequencies differ): costed as the slower arm, not the frequency-weighted mean.
    rank_split: BTreeSet<u32>,
    /// How each (run, rank) at the largest traced P took each rank-split IF (absent: never
    /// evaluated it): consecutive such IFs cost the slowest rank's sum of arms, not each IF's
    /// slower arm added up.
    rank_arms: BTreeMap<u32, BTreeMap<(usize, usize), Took>>,
    /// Recursive routines and their executions per call from outside their cycle.
    recursion: BTreeMap<String, crate::recursion::Recursive>,
}

/// How one rank took an IF in one run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Took {
    Then,
    Else,
    /// Both arms at different times: its cost is not one arm's.
    Both,
}

/// [`Ctx::rank_arms`] of the runs at the largest traced P.
fn rank_arms(
    split: &BTreeSet<u32>,
    runs: &[RunObs],
) -> BTreeMap<u32, BTreeMap<(usize, usize), Took>> {
    let p_max = runs.iter().map(|r| r.ranks.len()).max().unwrap_or(0);
    let mut out: BTreeMap<u32, BTreeMap<(usize, usize), Took>> = BTreeMap::new();
    for (ri, r) in runs
        .iter()
        .enumerate()
        .filter(|(_, r)| r.ranks.len() == p_max)
    {
        for (k, rank) in r.ranks.iter().enumerate() {
            for &site in split {
                let t = rank.branches.get(&(site, 0)).copied().unwrap_or(0);
                let e = rank.branches.get(&(site, 1)).copied().unwrap_or(0);
                let took = match (t > 0, e > 0) {
                    (true, false) => Took::Then,
                    (false, true) => Took::Else,
                    (true, true) => Took::Both,
                    (false, false) => continue,
                };
                out.entry(site).or_default().insert((ri, k), took);
            }
        }
    }
    out
}

#[derive(Debug, Clone)]
struct PhaseCost {
    per: [Expr; 3],
    fill: [Expr; 3],
    /// Loosely synchronous (or collective): it drains a pipeline sharing its loop.
    synchronous: bool,
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

fn row(r: &RunObs, params: &[String]) -> Vec<f64> {
    params
        .iter()
        .map(|p| r.params.get(p).copied().unwrap_or(0.0))
        .collect()
}

/// The APT attribute as an expression over the fit parameters only (constants substituted).
fn source_expr(a: &Attr, consts: &BTreeMap<String, Expr>, params: &[String]) -> Option<Expr> {
    let e = a.expr()?.subs_all(consts);
    e.vars().iter().all(|v| params.contains(v)).then_some(e)
}

fn parent_paths(apt: &Apt) -> BTreeMap<u32, Vec<u32>> {
    fn go(n: &Node, path: &mut Vec<u32>, out: &mut BTreeMap<u32, Vec<u32>>) {
        path.push(n.site.0);
        out.insert(n.site.0, path.clone());
        for c in n.children.iter().chain(&n.else_children) {
            go(c, path, out);
        }
        path.pop();
    }
    let mut out = BTreeMap::new();
    for r in &apt.routines {
        go(r, &mut Vec::new(), &mut out);
    }
    out
}

/// Whether a phase communicates at P, as a factor: 1, or — when the runs in which it costs the
/// critical processor time (`on`, [`phases::critical_runs`]) are exactly those from some
/// processor count up (no peers at P = 1, no east-west neighbours on a 1 × 2 grid, one of two
/// north-south neighbours on a 2 × 2 grid) — `min(1, max(0, (P − P0)/(P1 − P0)))`, P0 the
/// largest P without it, P1 the smallest with it.
fn presence(runs: &[RunObs], on: &BTreeSet<usize>) -> Expr {
    let p = |r: &RunObs| r.p() as f64;
    let absent = runs
        .iter()
        .enumerate()
        .filter(|(i, _)| !on.contains(i))
        .map(|(_, r)| p(r))
        .fold(f64::NAN, f64::max);
    let present = on
        .iter()
        .filter_map(|i| runs.get(*i))
        .map(p)
        .fold(f64::NAN, f64::min);
    if absent.is_nan() || present.is_nan() || absent >= present {
        return Expr::one();
    }
    let ramp = (Expr::var("P") - Expr::num(absent)) / Expr::num(present - absent);
    Expr::min(Expr::one(), Expr::max(Expr::zero(), ramp))
}

/// Sites of the loops below `n` (or `n` itself) that hold no loop: their iterations, summed,
/// count the innermost bodies a computation phase executes.
fn leaf_loops(n: &Node) -> Vec<u32> {
    fn go(n: &Node, out: &mut Vec<u32>) -> bool {
        let mut has_loop = false;
        for c in n.children.iter().chain(&n.else_children) {
            has_loop |= go(c, out);
        }
        let is_loop = matches!(n.data, NodeData::Loop(_));
        if is_loop && !has_loop {
            out.push(n.site.0);
        }
        is_loop || has_loop
    }
    let mut out = Vec::new();
    go(n, &mut out);
    out
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

/// The collective a COMM node performs, if it is one (the machine sheet names them as the APT
/// spells MPI operations).
fn collective_op(c: &apt::CommFacts) -> Option<CollectiveOp> {
    sheet_op(c).map(|s| s.op)
}

/// The data-sheet collective a call is costed as: itself, or for a collective the sheet does not
/// list, its regular counterpart (`MPI_Allgatherv` as `allgather` at the traced mean count,
/// `MPI_Ibcast` as `bcast` charged at the call).
#[derive(Debug, Clone, Copy)]
struct SheetOp {
    op: CollectiveOp,
    /// The traced/source size is all a rank sends (`Alltoallv`); the sheet's is per pair.
    per_pair: bool,
    /// Costed as another operation: said in a warning.
    stand_in: bool,
}

fn sheet_op(c: &apt::CommFacts) -> Option<SheetOp> {
    sheet_op_named(&format!("{:?}", c.op))
}

/// [`sheet_op`] by the operation's name (`Allgatherv`).
fn sheet_op_named(name: &str) -> Option<SheetOp> {
    if let Ok(op) = name.parse() {
        return Some(SheetOp {
            op,
            per_pair: false,
            stand_in: false,
        });
    }
    let (op, per_pair) = match name {
        "Allgatherv" | "Iallgather" => (CollectiveOp::Allgather, false),
        "Gatherv" | "Igather" => (CollectiveOp::Gather, false),
        "Scatterv" | "Iscatter" => (CollectiveOp::Scatter, false),
        "Alltoallv" => (CollectiveOp::Alltoall, true),
        "Ialltoall" => (CollectiveOp::Alltoall, false),
        "Ibcast" => (CollectiveOp::Bcast, false),
        "Ireduce" => (CollectiveOp::Reduce, false),
        // a reduce-scatter or a prefix reduction moves the whole vector like an allreduce
        "Iallreduce" | "ReduceScatter" | "ReduceScatterBlock" | "Scan" | "Exscan" => {
            (CollectiveOp::Allreduce, false)
        }
        "Ibarrier" => (CollectiveOp::Barrier, false),
        _ => return None,
    };
    Some(SheetOp {
        op,
        per_pair,
        stand_in: true,
    })
}

/// The size the sheet's cost of `s` takes, from a call's size.
fn sheet_bytes(s: SheetOp, bytes: &Expr, group: &Expr) -> Expr {
    if s.per_pair {
        bytes.clone() / group.clone()
    } else {
        bytes.clone()
    }
}

/// Parameters the runs varied, that T does not depend on, though two runs differing only in
/// that parameter differ in measured time by more than 10%: the time went somewhere the APT
/// does not follow (a loop built with GOTO, array syntax, a bound read from input the source
/// analysis lost), and T will not extrapolate in it.
///
/// Also: a parameter every run took at one value that T does not mention.
///
/// `blame`: per parameter, the branches that test it with a share fitted without it
/// ([`crate::share::fitted_without`]), named as the cause instead.
fn missing_params(
    t: &Expr,
    runs: &[RunObs],
    params: &[String],
    blame: &BTreeMap<String, String>,
) -> Vec<String> {
    let in_t = t.vars();
    let mut out = Vec::new();
    for x in params {
        let values: BTreeSet<u64> = runs
            .iter()
            .filter_map(|r| r.params.get(x).map(|v| v.to_bits()))
            .collect();
        if x == "P" && runs.len() > 1 && values.len() == 1 {
            let v = values.iter().next().map_or(0.0, |b| f64::from_bits(*b));
            out.push(format!(
                "every run had P = {v}: how the fitted quantities (work per entry, message sizes, branch shares, depths) change with P is not seen, only what the source and the machine sheet say; predictions at other P are not validated (profile at two or more P)"
            ));
            continue;
        }
        if runs.len() > 1 && values.len() == 1 && !in_t.contains(x) {
            // (where the source gives a law in it, a trip count, T has it from there)
            let v = values.iter().next().map_or(0.0, |b| f64::from_bits(*b));
            out.push(format!(
                "{x} took one value ({v}) in every run and the source gives no law in it: T does not depend on {x}; predictions at other {x} are not valid (profile at two or more values)"
            ));
            continue;
        }
        if x == "P" || in_t.contains(x) {
            continue;
        }
        let others = |r: &RunObs| -> Vec<(String, u64)> {
            r.params
                .iter()
                .filter(|(k, _)| *k != x)
                .map(|(k, v)| (k.clone(), v.to_bits()))
                .collect()
        };
        let mut worst: Option<(f64, &RunObs, &RunObs)> = None;
        for (i, a) in runs.iter().enumerate() {
            for b in &runs[i + 1..] {
                if a.params.get(x) == b.params.get(x) || others(a) != others(b) {
                    continue;
                }
                let d = (a.time - b.time).abs() / a.time.min(b.time).max(f64::MIN_POSITIVE);
                if worst.is_none_or(|(w, _, _)| d > w) {
                    worst = Some((d, a, b));
                }
            }
        }
        let Some((d, a, b)) = worst.filter(|(d, _, _)| *d > 0.1) else {
            continue;
        };
        let cause = blame.get(x).map_or(
            "the work it scales is in code the source analysis does not follow (see `augur apt` warnings: GOTO loops, array syntax, bounds read into arrays)",
            String::as_str,
        );
        out.push(format!(
            "{x} varies across the runs and the time with it ({} {:.4e} s, {} {:.4e} s: {:.0}% apart), but T does not depend on {x}: {cause}; predictions at other {x} are not valid",
            a.config,
            a.time,
            b.config,
            b.time,
            100.0 * d
        ));
    }
    out
}

/// A size fitted by regression with a negative term (`9.275*N/sqrt(P) - 21`) goes below zero
/// outside the traced range, where a message cost must not: clamped at 0.
fn non_negative(f: Fitted) -> Fitted {
    let signed = |e: &Expr| e.terms().iter().any(|t| t.coef() < 0.0);
    if !f.origin.by_regression() || !(signed(&f.expr) || signed(&f.lo) || signed(&f.hi)) {
        return f;
    }
    let clamp = |e: &Expr| Expr::max(e.clone(), Expr::zero());
    Fitted {
        expr: clamp(&f.expr),
        lo: clamp(&f.lo),
        hi: clamp(&f.hi),
        ..f
    }
}

/// Whether some run executed a loop, computation or call under `n`'s arms (an IF whose arms
/// ran though no arm count was recorded: its arms were not marked).
fn ran_under(n: &Node, runs: &[RunObs]) -> bool {
    fn sites(n: &Node, out: &mut Vec<u32>) {
        for c in n.children.iter().chain(&n.else_children) {
            out.push(c.site.0);
            sites(c, out);
        }
    }
    let mut under = Vec::new();
    sites(n, &mut under);
    runs.iter().flat_map(|r| &r.ranks).any(|k| {
        under.iter().any(|s| {
            k.loops.get(s).is_some_and(|(e, _)| *e > 0)
                || k.entries.get(s).is_some_and(|v| !v.is_empty())
                || k.calls.get(s).is_some_and(|c| *c > 0)
        })
    })
}

/// The 0/1 value of a comparison `lhs op rhs` of integer-valued sides (`METHOD == 1`,
/// `K < N`), as an expression: with d = rhs − lhs, `<` is min(1, max(0, d)), `<=` is
/// min(1, max(0, d + 1)), `==` is 1 − min(1, max(d, −d)) and `!=` its complement. None for
/// anything else (a compound condition, a side that does not parse). Beside it, whether both
/// sides are polynomials with integer coefficients (then it is exact for integer parameters;
/// `N / 2 == 3` is not, C divides integers).
fn indicator(cond: &str) -> Option<(Expr, bool)> {
    let ops = ["==", "!=", "<=", ">=", "<", ">"];
    let (op, at) = ops
        .iter()
        .find_map(|op| cond.find(op).map(|at| (*op, at)))?;
    let (l, r) = (&cond[..at], &cond[at + op.len()..]);
    if ops.iter().any(|o| r.contains(o)) || l.contains("&&") || l.contains("||") {
        return None;
    }
    let (l, r) = (
        symbolic::parse(l.trim()).ok()?,
        symbolic::parse(r.trim()).ok()?,
    );
    let integral = |e: &Expr| {
        e.terms().iter().all(|t| {
            t.coef().fract() == 0.0
                && t.factors().iter().all(|(a, q)| {
                    matches!(a, symbolic::Atom::Var(_)) && q.is_integer() && !q.is_negative()
                })
        })
    };
    let exact = integral(&l) && integral(&r);
    let clamp = |x: Expr| Expr::min(Expr::one(), Expr::max(Expr::zero(), x));
    let abs = |x: Expr| Expr::max(x.clone(), Expr::zero() - x);
    let e = match op {
        "<" => clamp(r - l),
        "<=" => clamp(r - l + Expr::one()),
        ">" => clamp(l - r),
        ">=" => clamp(l - r + Expr::one()),
        "==" => Expr::one() - Expr::min(Expr::one(), abs(r - l)),
        _ => Expr::min(Expr::one(), abs(r - l)),
    };
    Some((e, exact))
}

/// One value per run that traced phase `g`.
fn phase_samples(
    g: &Phase,
    runs: &[RunObs],
    params: &[String],
    f: &dyn Fn(&phases::PhaseRun) -> f64,
) -> Samples {
    let mut s = Samples::new(params.to_vec());
    for (ri, pr) in &g.runs {
        s.push(row(&runs[*ri], params), f(pr));
    }
    s
}

/// A point-to-point phase's size per message in the source: the first of its sites that
/// gives one.
fn send_source(
    g: &Phase,
    nodes: &BTreeMap<u32, &Node>,
    consts: &BTreeMap<String, Expr>,
    params: &[String],
) -> Option<Expr> {
    g.sites
        .iter()
        .find_map(|s| match nodes.get(s).map(|n| &n.data) {
            Some(NodeData::Comm(c)) => c
                .bytes
                .as_ref()
                .and_then(|b| source_expr(b, consts, params)),
            _ => None,
        })
}

/// The computation phases below `anchor`: in its routine, and through the calls below it in
/// their routines (each with the outermost call it is reached through, whose arguments name
/// what it writes in the anchor's routine).
fn compute_below(anchor: &Node, routines: &BTreeMap<&str, &Node>) -> Vec<(u32, Option<u32>)> {
    fn go(
        n: &Node,
        via: Option<u32>,
        routines: &BTreeMap<&str, &Node>,
        stack: &mut Vec<String>,
        out: &mut Vec<(u32, Option<u32>)>,
    ) {
        for c in n.children.iter().chain(&n.else_children) {
            match &c.data {
                NodeData::Loop(l) if l.compute => out.push((c.site.0, via)),
                NodeData::Call { callee, .. } => {
                    if let Some(r) = routines.get(callee.as_str()) {
                        if !stack.contains(callee) {
                            stack.push(callee.clone());
                            go(r, via.or(Some(c.site.0)), routines, stack, out);
                            stack.pop();
                        }
                    }
                }
                _ => go(c, via, routines, stack, out),
            }
        }
    }
    let mut out = Vec::new();
    go(anchor, None, routines, &mut Vec::new(), &mut out);
    out
}

/// A count per occurrence of a phase (messages per rank, a computation's entries inside it)
/// that changes beyond the traced processor counts: a law of the parameters fitted to the runs.
/// Such counts vary where the phase's anchor sits above the loops that repeat it — a
/// master/worker farm's sites meet at the IF choosing each rank's role, so one occurrence
/// holds every task (NTASKS/(P - 1) per worker). `None` (the caller keeps the largest run's
/// count) when the runs at the two largest P all give one whole number: a count that grows
/// only at small P (a grid's neighbours: 1 on a 1 × 2 grid, 2 from 2 × 2 up) has settled.
fn varying_count(s: &Samples, qopts: &QuantityOptions) -> Option<Fitted> {
    let pi = s.params.iter().position(|v| v == "P");
    let mut ps: Vec<f64> = s
        .points
        .iter()
        .filter_map(|x| pi.and_then(|i| x.get(i).copied()))
        .collect();
    ps.sort_by(f64::total_cmp);
    ps.dedup();
    let top: Vec<f64> = ps.iter().rev().take(2).copied().collect();
    let settled: Vec<f64> = s
        .points
        .iter()
        .zip(&s.values)
        .filter(|(x, _)| pi.is_none_or(|i| x.get(i).is_some_and(|p| top.contains(p))))
        .map(|(_, v)| *v)
        .collect();
    let first = settled.first()?.round();
    if settled.iter().all(|v| (v - first).abs() < 0.25) {
        return None;
    }
    Some(fit_quantity(s, None, &[], true, qopts))
}

/// The dimensions of the process grids the source builds with `MPI_Dims_create` over all
/// ranks: the `d` of every `dims(P, d, k)` in a loop's trip or a message's size or peer.
fn process_grids(apt: &Apt) -> BTreeSet<u32> {
    fn walk(e: &Expr, out: &mut BTreeSet<u32>) {
        for t in e.terms() {
            for (a, _) in t.factors() {
                if let symbolic::Atom::Dims { n, d, .. } = a {
                    if **n == Expr::var("P") {
                        out.insert(*d);
                    }
                }
                for x in a.args() {
                    walk(x, out);
                }
            }
        }
    }
    let mut out = BTreeSet::new();
    for n in apt.nodes() {
        let attrs: Vec<&Attr> = match &n.data {
            NodeData::Loop(l) => vec![&l.trip],
            NodeData::Comm(c) => [&c.bytes, &c.peer, &c.source, &c.recv_bytes]
                .into_iter()
                .flatten()
                .collect(),
            _ => Vec::new(),
        };
        for e in attrs.into_iter().filter_map(Attr::expr) {
            walk(e, &mut out);
        }
    }
    out
}

/// A wavefront's depth across the one process grid of the source (`Σ dims(P, d, k) - d`), or
/// none when it has no grid or several.
fn grid_depth(grids: &BTreeSet<u32>) -> Option<Expr> {
    let [d] = grids.iter().copied().collect::<Vec<_>>()[..] else {
        return None;
    };
    let p = Expr::var("P");
    let sum: Option<Expr> = (0..d).map(|k| Expr::dims(&p, d, k)).sum();
    Some(sum? - Expr::num(f64::from(d)))
}

/// IF sites whose arms ranks take differently: the condition mentions the rank, or in some
/// run the fraction of evaluations that took the IF arm differs by more than a half between
/// two ranks (a condition on a rank the source analysis could not see, e.g. `d->rank == 0`).
fn rank_split(nodes: &BTreeMap<u32, &Node>, runs: &[RunObs]) -> BTreeSet<u32> {
    nodes
        .values()
        .filter_map(|n| match &n.data {
            NodeData::If(i) => Some((n.site.0, i)),
            _ => None,
        })
        .filter(|(site, i)| {
            i.vars.contains("rank")
                || runs.iter().any(|r| {
                    let fracs = r.ranks.iter().filter_map(|k| {
                        let t = k.branches.get(&(*site, 0)).copied().unwrap_or(0);
                        let f = k.branches.get(&(*site, 1)).copied().unwrap_or(0);
                        (t + f > 0).then(|| t as f64 / (t + f) as f64)
                    });
                    let (lo, hi) = fracs.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), x| {
                        (lo.min(x), hi.max(x))
                    });
                    hi - lo > 0.5
                })
        })
        .map(|(site, _)| site)
        .collect()
}

/// Executions of a site on one rank from the counters (loops: iterations; IF: arm taken;
/// routines: calls from every call site naming them, none for the main program).
fn executions(r: &crate::observe::RankObs, n: &Node, nodes: &BTreeMap<u32, &Node>) -> Option<f64> {
    let s = n.site.0;
    match &n.data {
        NodeData::Loop(_) => r.loops.get(&s).map(|(_, it)| *it as f64),
        NodeData::If(_) => r.branches.get(&(s, 0)).map(|c| *c as f64),
        NodeData::Call { .. } => r.calls.get(&s).map(|c| *c as f64),
        NodeData::Routine { name, .. } => nodes
            .values()
            .filter(|c| matches!(&c.data, NodeData::Call { callee, .. } if callee == name))
            .filter_map(|c| r.calls.get(&c.site.0))
            .map(|c| *c as f64)
            .reduce(|a, b| a + b),
        _ => None,
    }
}

/// Builds the model from `runs` (all of them: the caller holds out runs for validation).
pub fn build(
    apt: &Apt,
    main: &str,
    runs: &[RunObs],
    machine: &Machine,
    qopts: &QuantityOptions,
) -> Built {
    let params = fit_params(runs);
    let grids = process_grids(apt);
    // branch sites whose share changes with a parameter no law fits (warned as such)
    let mut unexplained: BTreeSet<u32> = BTreeSet::new();
    let consts: BTreeMap<String, Expr> = apt
        .params
        .iter()
        .filter_map(|p| match p.origin {
            ParamOrigin::Constant { default } if !params.contains(&p.name) => {
                Some((p.name.clone(), Expr::num(default)))
            }
            _ => None,
        })
        .collect();
    let nodes: BTreeMap<u32, &Node> = apt.nodes().into_iter().map(|n| (n.site.0, n)).collect();
    // where a site is, for reports: its file when not the main source, and `file:line`
    let main_dir = apt.file.parent().map(Path::to_path_buf).unwrap_or_default();
    let file_of = |s: u32| -> Option<String> {
        let f = Path::new(nodes.get(&s)?.file.as_ref()?);
        Some(f.strip_prefix(&main_dir).unwrap_or(f).display().to_string())
    };
    let at = |s: u32| -> String {
        let line = nodes.get(&s).map_or(0, |n| n.line);
        file_of(s).map_or_else(|| format!("line {line}"), |f| format!("{f}:{line}"))
    };
    let mut warnings = Vec::new();
    let mut quantities = Vec::new();
    let samples_of = |f: &dyn Fn(&RunObs) -> Option<f64>| -> Samples {
        let mut s = Samples::new(params.clone());
        for r in runs {
            if let Some(v) = f(r).filter(|v| v.is_finite()) {
                s.push(row(r, &params), v);
            }
        }
        s
    };

    // loops and branches
    let mut trips = BTreeMap::new();
    let mut probs = BTreeMap::new();
    let mut compute = BTreeMap::new();
    let mut compute_rep = Vec::new();
    let outer = crate::share::enclosing(apt);
    let share_ctx = crate::share::Context {
        consts: &consts,
        params: &params,
        fortran: crate::share::is_fortran(apt),
    };
    for n in nodes.values() {
        let site = n.site.0;
        match &n.data {
            NodeData::Loop(l) => {
                let s = samples_of(&|r| {
                    r.loop_totals(site)
                        .filter(|(c, _)| *c > 0)
                        .map(|(c, it)| it as f64 / c as f64)
                });
                let src = source_expr(&l.trip, &consts, &params);
                if s.values.is_empty() {
                    if let Some(e) = src {
                        trips.insert(
                            site,
                            Fitted {
                                lo: e.clone(),
                                hi: e.clone(),
                                ..Fitted::constant(0.0)
                            }
                            .with_expr(e),
                        );
                    }
                    continue;
                }
                let cap = l
                    .cap
                    .as_ref()
                    .and_then(|c| source_expr(c, &consts, &params));
                let f = match (&src, &cap) {
                    (None, Some(c)) => crate::quantity::fit_capped(&s, c, qopts),
                    _ => fit_quantity(&s, src.as_ref(), &[], true, qopts),
                };
                // the source's count in a parameter the runs never set (a program argument
                // left at its default): T holds the traced value, and should say so
                if let (None, Some(e)) = (&src, l.trip.expr()) {
                    let unset: Vec<String> = e
                        .subs_all(&consts)
                        .vars()
                        .into_iter()
                        .filter(|v| !params.contains(v) && v != "P" && v != apt::params::RANK)
                        .collect();
                    if !unset.is_empty() && f.expr.vars().is_empty() {
                        warnings.push(format!(
                            "trip count at {} is {} in the source, but no run set {}: T holds it at the traced {}; profile with --param {}=… to have it in T",
                            at(site),
                            l.trip.text(),
                            unset.join(", "),
                            f.expr,
                            unset[0]
                        ));
                    }
                }
                quantities.push(QuantityReport {
                    what: "trip".into(),
                    site,
                    line: n.line,
                    file: file_of(site),
                    source: match (&src, &cap) {
                        (None, Some(c)) => format!("{} (at most {c})", l.trip.text()),
                        _ => l.trip.text(),
                    },
                    fit: f.clone(),
                });
                trips.insert(site, f);
            }
            NodeData::If(i) => {
                let s = samples_of(&|r| {
                    let (t, f) = (r.branch_total(site, 0), r.branch_total(site, 1));
                    (t + f > 0).then(|| t as f64 / (t + f) as f64)
                });
                let src = if i.cond.is_empty() {
                    "unresolved".to_string()
                } else {
                    i.cond.clone()
                };
                // a condition on run parameters alone is its own probability, 0 or 1 per run:
                // taken when it matches every traced share, or when the traces have none (an
                // arm codegen could not mark)
                let ind = (i.unresolved.is_none() && i.vars.iter().all(|v| params.contains(v)))
                    .then(|| indicator(&i.cond))
                    .flatten()
                    // with no traced share to check it against, only a comparison of integer
                    // polynomials (no C integer division the symbolic sides would make exact)
                    .filter(|(_, integral)| *integral || !s.values.is_empty())
                    .map(|(e, _)| e);
                if let Some(e) = ind.filter(|e| {
                    s.points.iter().zip(&s.values).all(|(row, v)| {
                        let at =
                            |name: &str| s.params.iter().position(|p| p == name).map(|k| row[k]);
                        e.eval(&at).is_ok_and(|x| (x - v).abs() <= 1e-9)
                    })
                }) {
                    let f = Fitted {
                        expr: e.clone(),
                        lo: e.clone(),
                        hi: e,
                        origin: crate::quantity::Origin::Source,
                        points: s.values.len(),
                        ..Fitted::constant(0.0)
                    };
                    quantities.push(QuantityReport {
                        what: "branch".into(),
                        site,
                        line: n.line,
                        file: file_of(site),
                        source: src,
                        fit: f.clone(),
                    });
                    probs.insert(site, f);
                    continue;
                }
                // a condition on the rank, or on a loop index through `mod`: its mean over the
                // ranks or the iterations, where it gives every traced share
                let derived = outer
                    .get(&site)
                    .filter(|_| i.unresolved.is_none())
                    .and_then(|o| crate::share::source_share(&i.cond, o, &share_ctx, &s));
                if let Some(d) = derived {
                    let f = Fitted {
                        lo: d.expr.clone(),
                        hi: d.expr.clone(),
                        points: s.values.len(),
                        ..Fitted::constant(0.0)
                    }
                    .with_expr(d.expr);
                    quantities.push(QuantityReport {
                        what: "branch".into(),
                        site,
                        line: n.line,
                        file: file_of(site),
                        source: format!("{src}, mean over {}", d.over),
                        fit: f.clone(),
                    });
                    probs.insert(site, f);
                    continue;
                }
                if s.values.is_empty() && ran_under(n, runs) {
                    warnings.push(format!(
                        "branch at {} (site {site}): no run recorded which arm it took (`{}`), so its arms are not charged",
                        at(site),
                        src
                    ));
                }
                if s.values.is_empty() {
                    continue;
                }
                let inv_p = Expr::var("P").powi(-1);
                // 1/sqrt(P): edges of a square-ish process grid
                let inv_sqrt_p = Expr::var("P").sqrt().powi(-1);
                let cands = vec![
                    vec![Expr::one()],
                    vec![Expr::one(), inv_p],
                    vec![Expr::one(), inv_sqrt_p],
                ];
                // simplest law first: with few processor counts several fit exactly
                let mut f = crate::quantity::fit_probability(&s, &cands[..2]);
                if f.r2 < 0.99 {
                    f = crate::quantity::fit_probability(&s, &cands);
                }
                if let Some(why) = crate::quantity::share_unexplained(&s, &f) {
                    warnings.push(format!(
                        "branch at {} (site {site}, `{}`): {why}",
                        at(site),
                        src
                    ));
                    unexplained.insert(site);
                }
                quantities.push(QuantityReport {
                    what: "branch".into(),
                    site,
                    line: n.line,
                    file: file_of(site),
                    source: src,
                    fit: f.clone(),
                });
                probs.insert(site, f);
            }
            _ => {}
        }
    }
    let found: Vec<Phase> = phases::find(runs);
    // computation inside a pipeline runs once per hop on successive processors (the chain pays
    // the typical processor); elsewhere the processors meet at every exchange or collective, so
    // the slowest one sets the pace
    let in_pipeline: BTreeSet<u32> = found
        .iter()
        .filter(|g| g.kind == PhaseKind::Pipeline)
        .flat_map(|g| g.overlapped.iter().copied())
        .collect();
    // a computation phase that repeats with a communication phase some runs lack (P = 1: under
    // the phase's APT ancestor) may cost differently where the phase communicates: the data it
    // touches was just sent or received, and its cache lines move between cores
    let threshold = machine.compute_threshold.filter(|t| *t > 0.0);
    let simulated = runs.iter().any(|r| r.smpi);
    let critical = phases::critical_runs(&found);
    let presences: Vec<Expr> = critical.iter().map(|on| presence(runs, on)).collect();
    let paths = parent_paths(apt);
    let routines: BTreeMap<&str, &Node> = apt
        .routines
        .iter()
        .filter_map(|r| match &r.data {
            NodeData::Routine { name, .. } => Some((name.as_str(), r)),
            _ => None,
        })
        .collect();
    // the size per message of each point-to-point phase: the source's expression where it
    // has one, fitted to the traced sizes (costed below, and the size of a rewrite here)
    let mut phase_bytes: BTreeMap<usize, (Option<Expr>, Fitted)> = BTreeMap::new();
    for (gi, g) in found.iter().enumerate() {
        if g.kind != PhaseKind::Collective {
            let src = send_source(g, &nodes, &consts, &params);
            let f = non_negative(fit_quantity(
                &phase_samples(g, runs, &params, &|pr| pr.bytes),
                src.as_ref(),
                &[],
                true,
                qopts,
            ));
            phase_bytes.insert(gi, (src, f));
        }
    }
    let mut communicating: BTreeMap<u32, Expr> = BTreeMap::new();
    // a loop under a point-to-point phase that may rewrite data one of the phase's sends has
    // just given to another core: the sheet's least time for that, at that send's size, where
    // the phase communicates, is a floor of its cost
    let mut floors: BTreeMap<u32, Floor> = BTreeMap::new();
    for (gi, g) in found.iter().enumerate() {
        let Some(anchor) = g.ancestor.filter(|_| g.kind != PhaseKind::Collective) else {
            continue;
        };
        let Some(anchor_node) = nodes.get(&anchor) else {
            continue;
        };
        let below = compute_below(anchor_node, &routines);
        let ramp = &presences[gi];
        if ramp.as_const().is_none() {
            for (site, _) in &below {
                communicating.entry(*site).or_insert_with(|| ramp.clone());
            }
        }
        let Some(rw) = &machine.point_to_point.rewrite else {
            continue;
        };
        // the phase's sends in the anchor's routine (names elsewhere are another scope's),
        // each with its floor: the whole table (it rises and falls with the size, so the
        // traced sizes' regimes extended would not give it at other sizes)
        let home = paths.get(&anchor).and_then(|p| p.first());
        let sends: Vec<(&apt::CommFacts, [Expr; 3])> = g
            .sites
            .iter()
            .filter(|s| paths.get(s).and_then(|p| p.first()) == home)
            .filter_map(|s| match nodes.get(s).map(|n| &n.data) {
                Some(NodeData::Comm(c)) if c.buffer.is_some() => {
                    let own = c
                        .bytes
                        .as_ref()
                        .and_then(|b| source_expr(b, &consts, &params));
                    let floor = BOUNDS.map(|b| {
                        let m = own
                            .clone()
                            .or_else(|| phase_bytes.get(&gi).map(|(_, f)| f.at(b).clone()))
                            .unwrap_or_else(Expr::zero);
                        ramp * rw.piecewise(b, &m, &Expr::int(2), 0.0, f64::MAX)
                    });
                    Some((c, floor))
                }
                _ => None,
            })
            .collect();
        for (site, via) in &below {
            let Some(NodeData::Loop(l)) = nodes.get(site).map(|n| &n.data) else {
                continue;
            };
            let rewrites = |c: &apt::CommFacts| match via {
                None => apt::may_rewrite(l, c),
                Some(call) => apt::call_may_rewrite(apt, apt::SiteId(*call), c),
            };
            let rewritten: Vec<&(&apt::CommFacts, [Expr; 3])> =
                sends.iter().filter(|(c, _)| rewrites(c)).collect();
            if rewritten.is_empty() {
                continue;
            }
            // proven: the writes are known and name a buffer sent from its start (a row sent
            // from the middle of an array the loop writes elsewhere is only a candidate)
            let known = match via {
                None => l.writes.is_some(),
                Some(call) => apt
                    .call_writes
                    .get(&apt::SiteId(*call))
                    .is_some_and(|w| w.is_ok()),
            };
            let proven = known
                && rewritten.iter().any(|(c, _)| {
                    c.buffer_from_start && matches!(c.buffer, Some(apt::SendBuffer::Named(_)))
                });
            let mut bounds = rewritten[0].1.clone();
            for (_, f) in &rewritten[1..] {
                bounds = BOUNDS.map(|b| Expr::max(bounds[bidx(b)].clone(), f[bidx(b)].clone()));
            }
            let floor = match floors.remove(site) {
                Some(old) => Floor {
                    bounds: BOUNDS
                        .map(|b| Expr::max(old.bounds[bidx(b)].clone(), bounds[bidx(b)].clone())),
                    proven: old.proven || proven,
                },
                None => Floor { bounds, proven },
            };
            floors.insert(*site, floor);
        }
    }
    // computation phases, after the trip counts they may be measured against
    for n in nodes.values() {
        let site = n.site.0;
        match &n.data {
            NodeData::Loop(l) if l.compute => {
                let mut s = samples_of(&|r| {
                    if in_pipeline.contains(&site) {
                        r.compute_totals(site)
                            .filter(|(c, _)| *c > 0)
                            .map(|(c, t)| t / c as f64)
                    } else {
                        r.compute_occurrence_max(site)
                            .or_else(|| r.compute_max_per_entry(site))
                    }
                });
                if s.values.is_empty() {
                    continue;
                }
                // a simulator that drops short bursts (SMPI's smpi/cpu-threshold) recorded
                // nothing, or a deferred part, for entries below its threshold: those runs
                // say what the simulator dropped, not what the work costs
                let traced = s.values.len();
                if let Some(t) = threshold.filter(|_| simulated) {
                    s.retain(|v| v >= t);
                    let below = traced - s.values.len();
                    if s.values.is_empty() {
                        warnings.push(format!(
                            "computation at {} (site {site}) is shorter than the machine's compute threshold ({t:e} s) in every run: not charged",
                            at(site)
                        ));
                    } else if below > 0 {
                        warnings.push(format!(
                            "computation at {} (site {site}): {below} of {traced} runs below the machine's compute threshold ({t:e} s) left out of its fit",
                            at(site)
                        ));
                    }
                }
                let (f, w, work) = if s.values.is_empty() {
                    let mut f = Fitted::constant(0.0);
                    f.points = traced;
                    (f, None, None)
                } else {
                    let work = l
                        .work
                        .as_ref()
                        .and_then(|w| source_expr(w, &consts, &params))
                        .or_else(|| {
                            // unresolved bounds: the work per entry the counters measured, as a
                            // law of the parameters; else the product of the fitted trip counts
                            let leaves = leaf_loops(n);
                            let ws = samples_of(&|r| {
                                let entries = r.compute_totals(site)?.0;
                                let mut sum = 0u64;
                                for l in &leaves {
                                    sum += r.loop_totals(*l)?.1;
                                }
                                (entries > 0 && sum > 0).then(|| sum as f64 / entries as f64)
                            });
                            if leaves.is_empty() || ws.values.len() < s.values.len() {
                                return measured_work(n, &trips, &consts, &params);
                            }
                            let f = fit_quantity(&ws, None, &[], true, qopts);
                            quantities.push(QuantityReport {
                                what: "work".into(),
                                site,
                                line: n.line,
                                file: file_of(site),
                                source: "unresolved (counted)".into(),
                                fit: f.clone(),
                            });
                            Some(f.expr)
                        });
                    // the outer loop's trip count, when the nest has inner loops: a candidate
                    // cost per outer iteration
                    let outer = (!leaf_loops(n).contains(&site))
                        .then(|| {
                            source_expr(&l.trip, &consts, &params)
                                .or_else(|| trips.get(&site).map(|f| f.expr.clone()))
                        })
                        .flatten();
                    let f = match &work {
                        Some(w) => crate::quantity::fit_scaled(
                            &s,
                            w,
                            outer.as_ref(),
                            communicating.get(&site),
                            &if in_pipeline.contains(&site) {
                                Expr::one()
                            } else {
                                Expr::var("P")
                            },
                            floors.get(&site),
                        ),
                        None => fit_quantity(&s, None, &[], false, qopts),
                    };
                    let w = match (&work, f.origin) {
                        // w_i: the fitted coefficient of the work's first varying term over
                        // that term's coefficient in the work (the fit may add a constant)
                        // (of the law under a floor, `max(law, floor)`)
                        (Some(w), crate::quantity::Origin::SourceScaled) => {
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
                        _ => None,
                    };
                    // a burst of its own below the threshold is not charged: the step where the
                    // cost reaches it. A burst shared with other computation is charged whole, so
                    // the step is only for sites whose entries are, all but a few (the last
                    // iteration runs into the code after the loop), between two MPI calls.
                    let f = match threshold {
                        Some(t)
                            if runs
                                .iter()
                                .all(|r| r.compute_alone(site).is_none_or(|a| a >= 0.9)) =>
                        {
                            let step =
                                |e: &Expr| e * &Expr::min((e / &Expr::num(t)).floor(), Expr::one());
                            Fitted {
                                expr: step(&f.expr),
                                lo: step(&f.lo),
                                hi: step(&f.hi),
                                ..f
                            }
                        }
                        _ => f,
                    };
                    (f, w, work)
                };
                compute_rep.push(ComputeReport {
                    site,
                    line: n.line,
                    file: file_of(site),
                    work: match (&l.work, &work) {
                        (Some(a), _) if a.expr().is_some() => a.text(),
                        (_, Some(w)) => format!("{w} (from counters)"),
                        (a, None) => a.as_ref().map_or_else(|| "unresolved".into(), Attr::text),
                    },
                    w,
                    cost: f.expr.clone(),
                    inside_phase: None,
                    fit: f.clone(),
                });
                compute.insert(site, f);
            }
            _ => {}
        }
    }
    for q in &quantities {
        // a branch share no law fits has its own warning, which says more
        if q.what == "branch" && unexplained.contains(&q.site) {
            continue;
        }
        if q.fit.origin.by_regression() && q.fit.points > 0 {
            warnings.push(format!(
                "{} at {} (site {}) filled by regression: {}",
                q.what,
                at(q.site),
                q.site,
                q.fit.expr
            ));
        } else if q.fit.origin == crate::quantity::Origin::Constant
            && q.fit.points > 1
            && q.source.starts_with("unresolved")
        {
            // a data-dependent count (a convergence loop) that happened not to vary
            warnings.push(format!(
                "{} at {} (site {}) is unresolved in the source and the same in every run: taken as the measured {}; if it depends on the data or on a parameter the runs did not vary, T does not follow it",
                q.what,
                at(q.site),
                q.site,
                q.fit.expr
            ));
        }
    }

    // phases
    let mut anchored: BTreeMap<u32, Vec<usize>> = BTreeMap::new();
    let mut excluded = BTreeSet::new();
    let mut phase_rep = Vec::new();
    let mut phase_cost = BTreeMap::new();
    let mut coll_cost: BTreeMap<u32, [Expr; 3]> = BTreeMap::new();
    for (gi, g) in found.iter().enumerate() {
        let by = |f: &dyn Fn(&phases::PhaseRun) -> f64| phase_samples(g, runs, &params, f);
        let procs_c = vec![
            vec![Expr::var("P")],
            vec![Expr::var("P"), Expr::one()],
            vec![Expr::one()],
        ];
        let procs = fit_quantity(
            &by(&|pr| f64::from(pr.processors)),
            None,
            &procs_c,
            true,
            qopts,
        );
        let line = |s: u32| nodes.get(&s).map_or(0, |n| n.line);
        let first = g.sites.iter().next().copied().unwrap_or(0);
        // the size per message: the source's expression when it has one, and its report
        let bytes_report = |src: Option<Expr>, f: Fitted| -> (Fitted, QuantityReport) {
            let rep = QuantityReport {
                what: "bytes".into(),
                site: first,
                line: line(first),
                file: file_of(first),
                source: src.map_or_else(|| "unresolved".into(), |e| e.to_string()),
                fit: f.clone(),
            };
            (f, rep)
        };
        let fit_bytes = |src: Option<Expr>| -> (Fitted, QuantityReport) {
            let f = non_negative(fit_quantity(
                &by(&|pr| pr.bytes),
                src.as_ref(),
                &[],
                true,
                qopts,
            ));
            bytes_report(src, f)
        };
        // the message sizes the runs measured choose the protocol regimes the cost spans
        let (d_lo, d_hi) = g
            .runs
            .values()
            .fold((f64::INFINITY, 0.0f64), |(lo, hi), pr| {
                (lo.min(pr.bytes), hi.max(pr.bytes))
            });
        if g.kind == PhaseKind::Collective {
            // one call site: costed where the tree meets it (`Ctx::node`), at the size the
            // source gives or, where it gives none, the size the runs measured; reported with
            // the other phases
            let Some(c) = nodes.get(&first).and_then(|n| match &n.data {
                NodeData::Comm(c) => Some(c),
                _ => None,
            }) else {
                continue;
            };
            let src = c
                .bytes
                .as_ref()
                .and_then(|b| source_expr(b, &consts, &params));
            let (bytes, rep) = fit_bytes(src);
            quantities.push(rep);
            let op = sheet_op(c);
            let cost = op.and_then(|s| machine.collective(s.op).map(|cm| (s, cm)));
            match (op, &cost) {
                (_, None) => warnings.push(format!(
                    "collective {:?} at {} (site {first}): the machine sheet has no cost for it; not charged",
                    c.op,
                    at(first)
                )),
                (Some(s), Some(_)) if s.stand_in => warnings.push(format!(
                    "collective {:?} at {} (site {first}): the machine sheet has no cost for it; costed as {}{}",
                    c.op,
                    at(first),
                    s.op.name(),
                    if s.per_pair {
                        " with the traced size shared evenly among the ranks of its communicator"
                    } else {
                        " at the traced size"
                    }
                )),
                _ => {}
            }
            // the ranks one call spans: the communicator's size as traced (a row of a split
            // communicator is not P), P where the traces have none
            let group = if g.runs.values().all(|pr| pr.comm_size > 0) {
                let c = vec![
                    vec![Expr::var("P")],
                    vec![Expr::var("P").sqrt()],
                    vec![Expr::one()],
                    vec![Expr::var("P"), Expr::one()],
                ];
                fit_quantity(&by(&|pr| f64::from(pr.comm_size)), None, &c, true, qopts)
            } else {
                let p = Expr::var("P");
                Fitted {
                    expr: p.clone(),
                    lo: p.clone(),
                    hi: p,
                    origin: crate::quantity::Origin::Source,
                    ..Fitted::constant(0.0)
                }
            };
            let per = BOUNDS.map(|b| {
                cost.as_ref().map_or(Expr::zero(), |(s, cm)| {
                    let (lo, hi) = if s.per_pair {
                        // the regimes the measured sizes reach per pair at the traced P
                        let ps = g
                            .runs
                            .keys()
                            .map(|r| f64::from(runs[*r].cpg.world_size.max(1)));
                        let (p_lo, p_hi) = ps.fold((f64::INFINITY, 1.0f64), |(lo, hi), p| {
                            (lo.min(p), hi.max(p))
                        });
                        (d_lo.min(d_hi) / p_hi, d_hi / p_lo.min(p_hi))
                    } else {
                        (d_lo.min(d_hi), d_hi)
                    };
                    cm.piecewise(
                        b,
                        &sheet_bytes(*s, bytes.at(b), group.at(b)),
                        group.at(b),
                        lo,
                        hi,
                    )
                })
            });
            // a sheet law with a negative constant goes below 0 at P = 1, where one rank's
            // collective costs nothing: clamped there only
            let per = per.map(|e| {
                let at_one = e.eval(&|v| Some(if v == "P" { 1.0 } else { 1024.0 }));
                if at_one.is_ok_and(|x| x < 0.0) {
                    Expr::max(e, Expr::zero())
                } else {
                    e
                }
            });
            coll_cost.insert(first, per.clone());
            phase_cost.insert(
                gi,
                PhaseCost {
                    per: per.clone(),
                    fill: BOUNDS.map(|_| Expr::zero()),
                    synchronous: true,
                },
            );
            phase_rep.push(PhaseReport {
                id: gi,
                kind: g.kind,
                sites: vec![first],
                ancestor: first,
                ancestor_line: line(first),
                ancestor_file: file_of(first),
                processors: group.expr.clone(),
                depth: None,
                bytes: bytes.expr.clone(),
                msgs: 1.0,
                cost: per[1].clone(),
                fill: None,
                total: Expr::zero(),
                overlapped: Vec::new(),
                runs_seen: g.runs.len(),
                overlaps_with: None,
            });
            continue;
        }
        // the APT ancestor is cpg's (nearest common non-COMM ancestor of the sites)
        let Some(anchor) = g.ancestor else {
            warnings.push(format!(
                "phase {gi} (sites {:?}) has no APT ancestor (sites not in the APT?): not costed",
                g.sites
            ));
            continue;
        };
        let anchor_node = nodes.get(&anchor).copied();
        excluded.extend(g.sites.iter().copied());
        excluded.extend(g.overlapped.iter().copied());
        if g.runs.len() == 1 {
            warnings.push(format!(
                "phase {gi} (sites {:?}) seen in one run only: its size and depth are not fitted",
                g.sites
            ));
        }
        if !g.determinate {
            warnings.push(format!(
                "phase {gi} ({}): in no traced run does a processor both send and receive in it (chains of two ranks), so a pipeline cannot be told from a loosely synchronous exchange; costed as {}, unverified beyond the traced P: profile at P >= 3 (e.g. under SMPI) to classify it",
                at(anchor),
                match g.kind {
                    PhaseKind::Pipeline => "a pipeline",
                    _ => "loosely synchronous",
                }
            ));
        }
        let largest = g
            .runs
            .iter()
            .max_by_key(|(ri, _)| runs[**ri].p())
            .map(|(ri, pr)| (*ri, pr));
        // anchor executions per run (the most any rank made)
        let occ_of = |ri: usize| -> f64 {
            anchor_node
                .and_then(|n| {
                    runs[ri]
                        .ranks
                        .iter()
                        .filter_map(|r| executions(r, n, &nodes))
                        .reduce(f64::max)
                })
                .unwrap_or(1.0)
                .max(1.0)
        };
        let per_occ = |f: &dyn Fn(&phases::PhaseRun) -> Option<f64>| {
            let mut s = Samples::new(params.clone());
            for (ri, pr) in &g.runs {
                if let Some(v) = f(pr) {
                    s.push(row(&runs[*ri], &params), v / occ_of(*ri));
                }
            }
            s
        };
        // messages per rank per occurrence, at the largest run
        let msgs = largest
            .map(|(ri, pr)| (pr.max_msgs_per_rank as f64 / occ_of(ri)).round())
            .filter(|m| *m >= 1.0)
            .unwrap_or(1.0);
        let msgs_law = varying_count(&per_occ(&|pr| Some(pr.max_msgs_per_rank as f64)), qopts);
        let (bytes, rep) = match phase_bytes.remove(&gi) {
            Some((src, f)) => bytes_report(src, f),
            None => fit_bytes(send_source(g, &nodes, &consts, &params)),
        };
        quantities.push(rep);
        let depth = (g.kind == PhaseKind::Pipeline).then(|| {
            let mut cands = vec![
                vec![Expr::var("P"), Expr::one()],
                vec![Expr::var("P")],
                vec![Expr::var("P").sqrt(), Expr::one()],
                vec![Expr::var("P").log2(), Expr::one()],
                vec![Expr::one()],
            ];
            // on the program's process grid a wavefront crosses every extent (Px + Py - 2)
            // or one of them: the source's hypothesis, which log2(P) would otherwise match
            // at P = 4, 8, 16 and miss beyond
            let hyp = grid_depth(&grids);
            if let Some(d) = grids.iter().next() {
                for k in 0..*d {
                    if let Some(x) = Expr::dims(&Expr::var("P"), *d, k) {
                        cands.insert(0, vec![x, Expr::one()]);
                    }
                }
            }
            let d = fit_quantity(
                &by(&|pr| f64::from(pr.depth)),
                hyp.as_ref(),
                &cands,
                true,
                qopts,
            );
            quantities.push(QuantityReport {
                what: "depth".into(),
                site: first,
                line: line(first),
                file: file_of(first),
                source: hyp
                    .as_ref()
                    .map_or_else(|| "measured".into(), |h| format!("{h} (the grid's)")),
                fit: d.clone(),
            });
            d
        });
        // W: computation inside the phase, one interval's (a pipeline's stage) and per
        // occurrence (the entries a processor makes inside one occurrence, usually one each)
        let entries: BTreeMap<u32, Fitted> = g
            .overlapped
            .iter()
            .filter_map(|&c| {
                let n = varying_count(&per_occ(&|pr| pr.inside.get(&c).copied()), qopts)?;
                quantities.push(QuantityReport {
                    what: "entries".into(),
                    site: c,
                    line: line(c),
                    file: file_of(c),
                    source: "measured: per occurrence of the phase, per processor".into(),
                    fit: n.clone(),
                });
                Some((c, n))
            })
            .collect();
        let w: [Expr; 3] = BOUNDS.map(|b| {
            g.overlapped
                .iter()
                .filter_map(|c| compute.get(c).map(|f: &Fitted| f.at(b).clone()))
                .sum()
        });
        let w_occ: [Expr; 3] = BOUNDS.map(|b| {
            g.overlapped
                .iter()
                .filter_map(|c| {
                    let per = compute.get(c)?.at(b).clone();
                    Some(
                        entries
                            .get(c)
                            .map_or(per.clone(), |n| per * n.at(b).clone()),
                    )
                })
                .sum()
        });
        let pp = &machine.point_to_point;
        let m = |b: Bound| bytes.at(b).clone();
        let sub = |cm: &crate::machine::CostModel, b: Bound| -> Expr {
            cm.piecewise(b, &m(b), &Expr::int(2), d_lo.min(d_hi), d_hi)
        };
        let k = msgs_law
            .as_ref()
            .map_or(Expr::num(msgs), |f| f.expr.clone());
        if let Some(f) = &msgs_law {
            quantities.push(QuantityReport {
                what: "msgs".into(),
                site: first,
                line: line(first),
                file: file_of(first),
                source: "measured: per occurrence of the phase, per rank".into(),
                fit: f.clone(),
            });
        }
        let presence = presences[gi].clone();
        let mut per = [Expr::zero(), Expr::zero(), Expr::zero()];
        let mut fill = [Expr::zero(), Expr::zero(), Expr::zero()];
        for b in BOUNDS {
            let (tau, s, r) = (
                sub(&pp.tau, b),
                sub(&pp.send_overhead, b),
                sub(&pp.recv_overhead, b),
            );
            let i = bidx(b);
            // communication costs only where the phase exists; its computation always runs
            let (tau, s, r) = (&presence * tau, &presence * s, &presence * r);
            match g.kind {
                PhaseKind::Synchronous => {
                    // Above the eager limit a send posted before the receiver's computation
                    // waits for it (rendezvous): τ + W instead of max(τ, W), a step in m where
                    // the runs' sizes straddle the limit.
                    let eager = Expr::max(tau.clone(), w_occ[i].clone());
                    let rdv = tau + w_occ[i].clone();
                    let wait = match pp.eager_limit {
                        Some(_) if machine.rendezvous(d_lo.min(d_hi)) => rdv,
                        Some(e) if machine.rendezvous(d_hi) => {
                            let step =
                                Expr::min(Expr::one(), (m(b) / Expr::num(e as f64 + 1.0)).floor());
                            eager.clone() + step * (rdv - eager)
                        }
                        _ => eager,
                    };
                    per[i] = wait + &k * (s + r);
                }
                _ => {
                    let o = &presence * Expr::num(pp.o);
                    per[i] = &k * (s.clone() + r.clone() + o) + w_occ[i].clone();
                    let d = depth.as_ref().map_or(Expr::zero(), |d| d.at(b).clone());
                    fill[i] = d * (tau + s + r + w[i].clone());
                }
            }
        }
        anchored.entry(anchor).or_default().push(gi);
        phase_cost.insert(
            gi,
            PhaseCost {
                per: per.clone(),
                fill: fill.clone(),
                synchronous: g.kind != PhaseKind::Pipeline,
            },
        );
        phase_rep.push(PhaseReport {
            id: gi,
            kind: g.kind,
            sites: g.sites.iter().copied().collect(),
            ancestor: anchor,
            ancestor_line: line(anchor),
            ancestor_file: file_of(anchor),
            processors: procs.expr.clone(),
            depth: depth.map(|d| d.expr),
            bytes: bytes.expr.clone(),
            msgs,
            cost: per[1].clone(),
            fill: (g.kind == PhaseKind::Pipeline).then(|| fill[1].clone()),
            total: Expr::zero(),
            overlapped: g.overlapped.iter().copied().collect(),
            runs_seen: g.runs.len(),
            overlaps_with: None,
        });
    }
    for c in &mut compute_rep {
        c.inside_phase = found.iter().position(|g| g.overlapped.contains(&c.site));
    }
    // overlap of consecutive phases at one anchor: cpg's dependence (RL(g_i) ∩ SL(g_i+1) = ∅)
    // at the largest run both share
    let mut overlap_pair = BTreeMap::new();
    for list in anchored.values() {
        let mut i = 0;
        while i + 1 < list.len() {
            if phases::independent(runs, &found[list[i]], &found[list[i + 1]]) {
                overlap_pair.insert(list[i], list[i + 1]);
                i += 2;
            } else {
                i += 1;
            }
        }
    }
    for p in &mut phase_rep {
        p.overlaps_with = overlap_pair.get(&p.id).copied().or_else(|| {
            overlap_pair
                .iter()
                .find(|(_, v)| **v == p.id)
                .map(|(k, _)| *k)
        });
    }

    let mut routines = BTreeMap::new();
    for r in &apt.routines {
        if let NodeData::Routine { name, .. } = &r.data {
            routines.insert(name.clone(), r);
        }
    }
    let p2p_default =
        BOUNDS.map(|b| Expr::num(machine.point_to_point.send_overhead.eval_bound(2.0, 0.0, b)));
    let recursion = crate::recursion::find(apt, runs, &params, qopts);
    for (name, r) in &recursion {
        quantities.push(QuantityReport {
            what: "calls".into(),
            site: r.site,
            line: nodes.get(&r.site).map_or(0, |n| n.line),
            file: file_of(r.site),
            source: format!("measured: executions of `{name}` per call from outside its recursion"),
            fit: r.per_call.clone(),
        });
        warnings.push(format!(
            "routine `{name}` ({}) is recursive: a call from outside its recursion costs {} executions of its body (counted in the runs, R² {:.2}), each at the trip counts and work of the mean execution (the recursion's levels together), not level by level",
            at(r.site),
            r.per_call.expr,
            r.per_call.r2,
        ));
    }
    let mut ctx = Ctx {
        nodes: nodes.clone(),
        machine,
        trips,
        probs,
        compute,
        phase_cost,
        anchored,
        excluded,
        routines,
        p2p_default,
        overlap_pair,
        coll_cost,
        rank_arms: BTreeMap::new(),
        rank_split: rank_split(&nodes, runs),
        recursion,
    };
    ctx.rank_arms = rank_arms(&ctx.rank_split, runs);
    let mut t = BOUNDS.map(|b| {
        ctx.routines.get(main).map_or(Expr::zero(), |r| {
            let (v, f) = ctx.node(r, b, &mut Vec::new());
            v + f
        })
    });
    // What the phase and computation costs leave unexplained (tracer and sequential code
    // outside computation phases, waiting the phase formulas miss; seed 004 §5.3) as a
    // function of how often each loop body runs.
    let loops: Vec<(u32, Expr)> = nodes
        .values()
        .filter(|n| {
            matches!(&n.data, NodeData::Loop(l) if !l.compute) && ctx.trips.contains_key(&n.site.0)
        })
        .map(|n| (n.site.0, ctx.occurrences(n.site.0, &paths, main)))
        .collect();
    if let Some((fit, extra)) = crate::residual::fit_residual(&t[1], &loops, runs, &params) {
        quantities.push(QuantityReport {
            what: "overhead".into(),
            site: 0,
            line: 0,
            file: file_of(0),
            source: "outside computation phases".into(),
            fit: fit.clone(),
        });
        let grows = fit.expr.terms().iter().any(|t| !t.is_constant());
        warnings.push(if grows && fit.r2 < 0.5 {
            format!(
                "time outside computation phases and the phase formulas filled by regression: {} — weakly supported (R² {:.2} over the runs' residuals): it improves held-out error here but its growth beyond the traced range is a guess",
                fit.expr, fit.r2
            )
        } else {
            format!(
                "time outside computation phases and the phase formulas filled by regression: {}",
                fit.expr
            )
        });
        for (i, b) in BOUNDS.iter().enumerate() {
            t[i] = t[i].clone() + fit.at(*b).clone();
        }
        let _ = extra;
    }
    let branches: Vec<(u32, &apt::IfNode, &Expr)> = quantities
        .iter()
        .filter(|q| q.what == "branch")
        .filter_map(|q| match nodes.get(&q.site).map(|n| &n.data) {
            Some(NodeData::If(i)) => Some((q.site, i, &q.fit.expr)),
            _ => None,
        })
        .collect();
    let blame = crate::share::fitted_without(&branches, &params, &at);
    warnings.extend(missing_params(&t[1], runs, &params, &blame));
    // phase totals: occurrences × cost + fill, occurrences = product of enclosing trips × probs
    for p in &mut phase_rep {
        let occ = ctx.occurrences(p.ancestor, &paths, main);
        let pc = &ctx.phase_cost[&p.id];
        p.total =
            occ * pc.per[1].clone() + ctx.fills(p.ancestor, &paths, main) * pc.fill[1].clone();
    }
    Built {
        t,
        phases: phase_rep,
        compute: compute_rep,
        quantities,
        warnings,
    }
}

impl Fitted {
    fn with_expr(mut self, e: Expr) -> Fitted {
        self.expr = e;
        self.origin = crate::quantity::Origin::Source;
        self
    }
}

impl Ctx<'_> {
    fn trip(&self, n: &Node, b: Bound) -> Expr {
        match self.trips.get(&n.site.0) {
            Some(f) => f.at(b).clone(),
            None => Expr::zero(),
        }
    }

    /// Σ over `nodes` of (cost per execution, pipeline fill still to be charged).
    ///
    /// Consecutive rank-split IFs with no communication in them (`if (rank == 0) A;
    /// if (rank == P - 1) B;`) cost together what the slowest rank's arms add up to, as the
    /// ranks at the largest traced P took them, not each IF's slower arm added up.
    fn sum(&self, nodes: &[Node], b: Bound, stack: &mut Vec<String>) -> (Expr, Expr) {
        let (mut v, mut f) = (Expr::zero(), Expr::zero());
        let mut i = 0;
        while i < nodes.len() {
            let run = nodes[i..]
                .iter()
                .take_while(|n| self.quiet_split(n, &mut Vec::new()))
                .count();
            if run >= 2 {
                if let Some((gv, gf)) = self.split_group(&nodes[i..i + run], b, stack) {
                    v = v + gv;
                    f = f + gf;
                    i += run;
                    continue;
                }
            }
            let (cv, cf) = self.node(&nodes[i], b, stack);
            v = v + cv;
            f = f + cf;
            i += 1;
        }
        (v, f)
    }

    /// A rank-split IF with no communication anywhere under it (calls followed).
    fn quiet_split(&self, n: &Node, seen: &mut Vec<String>) -> bool {
        matches!(n.data, NodeData::If(_))
            && self.rank_split.contains(&n.site.0)
            && self.rank_arms.contains_key(&n.site.0)
            && self.quiet(n, seen)
    }

    /// No communication, and no phase anchored, anywhere under `n` (calls followed).
    fn quiet(&self, n: &Node, seen: &mut Vec<String>) -> bool {
        if self.anchored.contains_key(&n.site.0) {
            return false;
        }
        match &n.data {
            NodeData::Comm(_) => false,
            NodeData::Call { callee, .. } => {
                if seen.contains(callee) {
                    return true;
                }
                seen.push(callee.clone());
                self.routines
                    .get(callee)
                    .is_none_or(|r| self.quiet(r, seen))
            }
            _ => n
                .children
                .iter()
                .chain(&n.else_children)
                .all(|c| self.quiet(c, seen)),
        }
    }

    /// The IFs of `group` together: the largest, over the (run, rank)s at the largest traced
    /// P, of the arms that rank took; `None` when some rank took both arms of one of them.
    fn split_group(
        &self,
        group: &[Node],
        b: Bound,
        stack: &mut Vec<String>,
    ) -> Option<(Expr, Expr)> {
        let mut arms = Vec::new();
        let (mut per, mut fill, mut once_all) = (Expr::zero(), Expr::zero(), Expr::zero());
        for n in group {
            let (p, once) = self.anchored(n.site.0, b);
            let (tv, tf) = self.sum(&n.children, b, stack);
            let (ev, ef) = self.sum(&n.else_children, b, stack);
            per = per + p;
            fill = Expr::max(fill, Expr::max(tf, ef));
            once_all = once_all + once;
            arms.push((n.site.0, tv, ev));
        }
        let fill = fill + once_all;
        let samples: BTreeSet<(usize, usize)> = arms
            .iter()
            .filter_map(|(s, _, _)| self.rank_arms.get(s))
            .flat_map(|m| m.keys().copied())
            .collect();
        let mut combos: BTreeSet<Vec<Option<Took>>> = BTreeSet::new();
        for key in samples {
            let combo: Vec<Option<Took>> = arms
                .iter()
                .map(|(s, _, _)| self.rank_arms.get(s).and_then(|m| m.get(&key)).copied())
                .collect();
            if combo.contains(&Some(Took::Both)) {
                return None;
            }
            combos.insert(combo);
        }
        let costs: Vec<Expr> = combos
            .iter()
            .map(|combo| {
                combo
                    .iter()
                    .zip(&arms)
                    .fold(Expr::zero(), |acc, (took, (_, tv, ev))| match took {
                        Some(Took::Then) => acc + tv.clone(),
                        Some(Took::Else) => acc + ev.clone(),
                        _ => acc,
                    })
            })
            .collect();
        Some((Expr::max_of(costs) + per, fill))
    }

    /// Phases anchored at `site`: (per occurrence, one-time), overlapping pairs as max.
    fn anchored(&self, site: u32, b: Bound) -> (Expr, Expr) {
        let Some(list) = self.anchored.get(&site) else {
            return (Expr::zero(), Expr::zero());
        };
        let i = bidx(b);
        let (mut per, mut once) = (Expr::zero(), Expr::zero());
        let mut skip = BTreeSet::new();
        for g in list {
            if skip.contains(g) {
                continue;
            }
            let c = &self.phase_cost[g];
            match self
                .overlap_pair
                .get(g)
                .and_then(|h| self.phase_cost.get(h).map(|d| (h, d)))
            {
                Some((h, d)) => {
                    skip.insert(*h);
                    per = per + Expr::max(c.per[i].clone(), d.per[i].clone());
                    once = once + Expr::max(c.fill[i].clone(), d.fill[i].clone());
                }
                None => {
                    per = per + c.per[i].clone();
                    once = once + c.fill[i].clone();
                }
            }
        }
        (per, once)
    }

    /// Cost of one execution of `n`, and the pipeline fill it leaves to its enclosing loop.
    ///
    /// A pipeline is filled once for the stream of blocks its enclosing loop feeds through it,
    /// not once per block (seed 004 §4.2): a fill rises through IFs, calls and routines to the
    /// innermost enclosing loop, which charges it once per execution of the loop — unless the
    /// loop body also synchronises every iteration (a collective or a synchronous phase), which
    /// drains the pipeline, so each iteration refills it. A fill that reaches the top is charged
    /// once. Branch arms' fills are not weighted by the branch probability: rank-dependent
    /// conditions split processors, not time, so the slower arm's fill is what the run waits for.
    fn node(&self, n: &Node, b: Bound, stack: &mut Vec<String>) -> (Expr, Expr) {
        let site = n.site.0;
        let (per, once) = self.anchored(site, b);
        match &n.data {
            NodeData::Routine { .. } => {
                let (v, f) = self.sum(&n.children, b, stack);
                (v + per, f + once)
            }
            NodeData::Loop(l) if l.compute => {
                if self.excluded.contains(&site) {
                    (Expr::zero(), Expr::zero())
                } else {
                    let v = self
                        .compute
                        .get(&site)
                        .map_or(Expr::zero(), |f| f.at(b).clone());
                    (v, Expr::zero())
                }
            }
            NodeData::Loop(_) => {
                let (v, f) = self.sum(&n.children, b, stack);
                let trip = self.trip(n, b);
                // a pipeline anchored here refills every iteration when each ends with all
                // processors synchronised
                let (inner, outer) = if self.drains_all(n) {
                    (once, Expr::zero())
                } else {
                    (Expr::zero(), once)
                };
                if self.drains(n) {
                    (trip * (v + per + f + inner) + outer, Expr::zero())
                } else {
                    (trip * (v + per + inner) + f + outer, Expr::zero())
                }
            }
            NodeData::If(_) => {
                let p = self
                    .probs
                    .get(&site)
                    .map_or(Expr::zero(), |f| f.at(b).clone());
                let (tv, tf) = self.sum(&n.children, b, stack);
                let (ev, ef) = self.sum(&n.else_children, b, stack);
                let v = if self.rank_split.contains(&site) {
                    // ranks take different arms: the run waits for the slower arm of those some
                    // rank takes (an arm no rank takes, p = 0 or 1, costs nothing). Some rank
                    // takes an arm taken by a share x of all evaluations when x·P, the ranks'
                    // summed shares, is not 0: 1/P (rank 0's arm) is always taken, 1 − 1/P
                    // (the others') from P = 2 on.
                    let some = |x: Expr| match x.as_const() {
                        Some(c) => Expr::num(if c > 1e-6 { 1.0 } else { 0.0 }),
                        None => {
                            Expr::min(Expr::one(), (x * Expr::var("P") * Expr::num(1e6)).floor())
                        }
                    };
                    Expr::max(some(p.clone()) * tv, some(Expr::one() - p) * ev)
                } else {
                    p.clone() * tv + (Expr::one() - p) * ev
                };
                (v + per, Expr::max(tf, ef) + once)
            }
            NodeData::Call { callee, .. } => {
                if stack.contains(callee) {
                    return (Expr::zero(), Expr::zero());
                }
                // a phase whose sites span routines anchors at the call site
                let Some(r) = self.routines.get(callee) else {
                    return (per, once);
                };
                stack.push(callee.clone());
                let (v, f) = self.node(r, b, stack);
                stack.pop();
                // a recursive routine entered from outside its cycle runs its body that many
                // times (the calls back into it inside the cycle cost nothing above)
                let v = match self.recursion.get(callee) {
                    Some(rec) if stack.last().is_none_or(|c| !rec.cycle.contains(c)) => {
                        v * rec.per_call.at(b).clone()
                    }
                    _ => v,
                };
                (v + per, f + once)
            }
            NodeData::Comm(c) => {
                if self.excluded.contains(&site) {
                    return (Expr::zero(), Expr::zero());
                }
                let v = match sheet_op(c) {
                    Some(_) if self.coll_cost.contains_key(&site) => {
                        self.coll_cost[&site][bidx(b)].clone()
                    }
                    Some(s) => {
                        let Some(cost) = self.machine.collective(s.op) else {
                            return (Expr::zero(), Expr::zero());
                        };
                        let bytes = c
                            .bytes
                            .as_ref()
                            .and_then(Attr::expr)
                            .map(|e| sheet_bytes(s, e, &Expr::var("P")))
                            .unwrap_or_else(Expr::zero);
                        // one regime: the size at a nominal 1024 for every parameter
                        let d = bytes.eval(&|_| Some(1024.0)).unwrap_or(0.0);
                        cost.piecewise(b, &bytes, &Expr::var("P"), d, d)
                    }
                    None => self.p2p_default[bidx(b)].clone(),
                };
                (v, Expr::zero())
            }
        }
    }

    /// Whether every iteration of loop `n` synchronises its processors: its body (through IFs,
    /// not into nested loops or calls) holds a collective or a synchronous phase's anchor.
    fn drains(&self, n: &Node) -> bool {
        self.synchronises(n, true)
    }

    /// Whether every iteration of loop `n` ends with all its processors synchronised: its
    /// body (through IFs) holds a collective. A pipeline anchored at `n` itself then drains
    /// and refills every iteration; a synchronous exchange between neighbours does not drain
    /// it.
    fn drains_all(&self, n: &Node) -> bool {
        self.synchronises(n, false)
    }

    /// [`Self::drains`] (`exchanges`: a synchronous phase's anchor counts) or
    /// [`Self::drains_all`] (collectives only).
    fn synchronises(&self, n: &Node, exchanges: bool) -> bool {
        fn walk(c: &Ctx<'_>, nodes: &[Node], exchanges: bool) -> bool {
            nodes.iter().any(|m| {
                let sync_anchor = exchanges
                    && c.anchored.get(&m.site.0).is_some_and(|l| {
                        l.iter()
                            .any(|g| c.phase_cost.get(g).is_some_and(|pc| pc.synchronous))
                    });
                let collective =
                    matches!(&m.data, NodeData::Comm(cm) if collective_op(cm).is_some());
                sync_anchor
                    || collective
                    || (matches!(m.data, NodeData::If(_))
                        && (walk(c, &m.children, exchanges)
                            || walk(c, &m.else_children, exchanges)))
            })
        }
        walk(self, &n.children, exchanges)
    }

    /// Occurrences of a phase anchored at `site`: product of enclosing loop trips (and the
    /// anchor's own, when it is a loop and `own` is set) and branch probabilities, up to the
    /// routine, times the routine's own executions (Σ over its call sites) unless it is main.
    fn occurrences(&self, site: u32, paths: &BTreeMap<u32, Vec<u32>>, main: &str) -> Expr {
        self.executions_of(site, true, paths, main, &mut Vec::new())
    }

    fn executions_of(
        &self,
        site: u32,
        own: bool,
        paths: &BTreeMap<u32, Vec<u32>>,
        main: &str,
        stack: &mut Vec<String>,
    ) -> Expr {
        let by_site = &self.nodes;
        let path = paths.get(&site).map(Vec::as_slice).unwrap_or(&[]);
        let mut e = Expr::one();
        for (k, s) in path.iter().enumerate() {
            if let Some(n) = by_site.get(s) {
                match &n.data {
                    NodeData::Loop(_) if own || *s != site => e = e * self.trip(n, Bound::Avg),
                    NodeData::If(_) if *s != site => {
                        let p = self.probs.get(s).map_or(Expr::one(), |f| f.expr.clone());
                        // the path goes on through the arm taken with share p, or the other
                        let next = path.get(k + 1);
                        let other = n.else_children.iter().any(|c| Some(&c.site.0) == next);
                        e = e * if other { Expr::one() - p } else { p };
                    }
                    _ => {}
                }
            }
        }
        let routine = path
            .first()
            .and_then(|r| by_site.get(r))
            .and_then(|n| match &n.data {
                NodeData::Routine { name, .. } => Some(name.clone()),
                _ => None,
            });
        match routine {
            Some(r) if r != main && !stack.contains(&r) => {
                stack.push(r.clone());
                let calls: Expr = by_site
                    .values()
                    .filter(|n| matches!(&n.data, NodeData::Call { callee, .. } if *callee == r))
                    .map(|n| self.executions_of(n.site.0, true, paths, main, stack))
                    .sum();
                stack.pop();
                e * calls
            }
            _ => e,
        }
    }

    /// How often a pipeline anchored at `site` is filled: once per execution of the innermost
    /// loop that encloses it (or of the anchor, when the anchor is a loop), per iteration when
    /// that loop's body synchronises every iteration — as `node` charges it.
    fn fills(&self, site: u32, paths: &BTreeMap<u32, Vec<u32>>, main: &str) -> Expr {
        let by_site = &self.nodes;
        let path = paths.get(&site).map(Vec::as_slice).unwrap_or(&[]);
        let consumer = path
            .iter()
            .rev()
            .filter_map(|s| by_site.get(s))
            .find(|n| matches!(&n.data, NodeData::Loop(l) if !l.compute));
        match consumer {
            Some(l) if (l.site.0 != site && self.drains(l)) || self.drains_all(l) => {
                self.executions_of(l.site.0, true, paths, main, &mut Vec::new())
            }
            Some(l) => self.executions_of(l.site.0, false, paths, main, &mut Vec::new()),
            None => self.executions_of(site, false, paths, main, &mut Vec::new()),
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn load(prog: &str) -> Vec<RunObs> {
        crate::observe::testdata_runs(prog, "smpi-c")
    }

    /// A wavefront over MPI_Dims_create's grid: the depth hypothesis is Px + Py - 2 in the
    /// grid's extents (log2(P) matches P = 4, 8, 16 and misses beyond: 2·5 - 2 = 8 at P = 32,
    /// where the 8 x 4 grid gives 10); a program without a grid has none.
    #[test]
    fn a_process_grid_gives_the_wavefront_depth() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("wave.c");
        std::fs::write(
            &path,
            r#"#include <mpi.h>
#include <stdlib.h>
int main(int argc, char **argv) {
    int size, dims[2] = {0, 0}, n = atoi(argv[1]), i;
    double a[4096];
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Dims_create(size, 2, dims);
    for (i = 0; i < n / dims[0]; i++) a[i] = 0.0;
    MPI_Finalize();
    return 0;
}
"#,
        )
        .unwrap();
        let apt = apt::load(&path, &Default::default(), &Default::default())
            .unwrap()
            .1;
        let grids = process_grids(&apt);
        assert_eq!(grids, BTreeSet::from([2]));
        let d = grid_depth(&grids).unwrap();
        assert_eq!(d.to_string(), "dims(P, 2, 0) + dims(P, 2, 1) - 2");
        let at = |p: f64| d.eval(&|v| (v == "P").then_some(p)).unwrap();
        assert_eq!(
            [at(4.0), at(8.0), at(16.0), at(32.0)],
            [2.0, 4.0, 6.0, 10.0]
        );
        assert_eq!(grid_depth(&BTreeSet::new()), None);
        assert_eq!(grid_depth(&BTreeSet::from([2, 3])), None);
    }

    #[test]
    fn a_regression_size_with_a_negative_term_is_clamped_at_zero() {
        let e = Expr::num(9.275) * Expr::var("N") / Expr::var("P").sqrt() - Expr::num(21.0);
        let f = Fitted {
            origin: crate::quantity::Origin::Regression,
            ..Fitted::constant(0.0).with_expr(e.clone())
        };
        let g = non_negative(f);
        let at = |n: f64| {
            g.expr
                .eval(&|v| Some(if v == "N" { n } else { 64.0 }))
                .unwrap()
        };
        assert_eq!(at(8.0), 0.0);
        assert!((at(1024.0) - (9.275 * 128.0 - 21.0)).abs() < 1e-9);
        // the source's own expression is left alone
        let src = Fitted::constant(0.0).with_expr(e.clone());
        assert_eq!(non_negative(src).expr, e);
    }

    /// A comparison of integer parameters is its own 0/1 value; compound ones are not read.
    #[test]
    fn a_comparison_is_an_indicator() {
        let at = |c: &str, m: f64, k: f64| {
            indicator(c)
                .unwrap()
                .0
                .eval(&|v| Some(if v == "M" { m } else { k }))
                .unwrap()
        };
        for (c, m, k, want) in [
            ("M == 1", 1.0, 0.0, 1.0),
            ("M == 1", 2.0, 0.0, 0.0),
            ("M != 1", 3.0, 0.0, 1.0),
            ("M < K", 3.0, 4.0, 1.0),
            ("M < K", 4.0, 4.0, 0.0),
            ("M <= K", 4.0, 4.0, 1.0),
            ("M > K", 5.0, 4.0, 1.0),
            ("M >= K", 3.0, 4.0, 0.0),
        ] {
            assert_eq!(at(c, m, k), want, "{c} at M={m}, K={k}");
        }
        assert!(indicator("M == 1").unwrap().1);
        // C divides integers: N/2 == 3 at N = 7 is true, the symbolic side is 3.5
        assert!(!indicator("N/2 == 3").unwrap().1);
        assert!(indicator("M == 1 || M == 2").is_none());
        assert!(indicator("rank").is_none());
    }

    /// Collectives the sheet does not list are costed as their regular counterparts, an
    /// Alltoallv's size (all a rank sends) shared among the P ranks; point-to-point is not one.
    #[test]
    fn unlisted_collectives_stand_in_for_their_counterparts() {
        let s = sheet_op_named("Allreduce").unwrap();
        assert!(s.op == CollectiveOp::Allreduce && !s.stand_in && !s.per_pair);
        let s = sheet_op_named("Allgatherv").unwrap();
        assert!(s.op == CollectiveOp::Allgather && s.stand_in && !s.per_pair);
        let s = sheet_op_named("Alltoallv").unwrap();
        assert!(s.op == CollectiveOp::Alltoall && s.per_pair);
        let b = sheet_bytes(s, &(Expr::num(8.0) * Expr::var("N")), &Expr::var("P"));
        assert_eq!(b, Expr::num(8.0) * Expr::var("N") / Expr::var("P"));
        assert_eq!(sheet_op_named("Ibcast").unwrap().op, CollectiveOp::Bcast);
        assert!(sheet_op_named("Send").is_none() && sheet_op_named("Waitall").is_none());
    }

    /// The recorded shift runs vary ITERS (20, 100) and their time with it: a T without ITERS
    /// is flagged, naming two runs that differ only in ITERS; a T with it, or a parameter the
    /// time does not follow, is not.
    #[test]
    fn a_varied_parameter_missing_from_t_is_flagged() {
        let runs = load("shift");
        let params = fit_params(&runs);
        assert_eq!(params, ["ITERS", "N", "P"]);
        let t = Expr::var("N") / Expr::var("P");
        let w = missing_params(&t, &runs, &params, &BTreeMap::new());
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(w[0].starts_with("ITERS varies across the runs"), "{}", w[0]);
        assert!(
            w[0].contains("ITERS=20") && w[0].contains("ITERS=100"),
            "{}",
            w[0]
        );
        let t = Expr::var("ITERS") * Expr::var("N") / Expr::var("P");
        assert!(missing_params(&t, &runs, &params, &BTreeMap::new()).is_empty());
        // the runs at ITERS = 20 only: ITERS took one value; fine when T has it from the source
        let some: Vec<RunObs> = runs
            .into_iter()
            .filter(|r| r.params.get("ITERS") == Some(&20.0))
            .collect();
        assert!(missing_params(&t, &some, &params, &BTreeMap::new()).is_empty());
        let t = Expr::var("N") / Expr::var("P");
        let w = missing_params(&t, &some, &params, &BTreeMap::new());
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(w[0].starts_with("ITERS took one value (20)"), "{}", w[0]);
        // the runs at one P: said, since no fit saw P
        let one_p: Vec<RunObs> = some
            .into_iter()
            .filter(|r| r.params.get("P") == Some(&16.0))
            .collect();
        assert!(one_p.len() > 1);
        let t = Expr::var("ITERS") * Expr::var("N") / Expr::var("P");
        let w = missing_params(&t, &one_p, &params, &BTreeMap::new());
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(w[0].starts_with("every run had P = 16"), "{}", w[0]);
    }
}
