//! Stage 2 of the build: what the communication phases tell the computation fits before any
//! phase is costed — which phases there are, where each communicates (a ramp in P), each
//! point-to-point phase's size per message, and the computation loops that may rewrite data a
//! phase has just sent, with the machine's least time for that as a floor of their cost.

use std::collections::{BTreeMap, BTreeSet};

use apt::{CommFacts, LoopNode, Node, NodeData};
use symbolic::Expr;

use super::env::{row, source_expr, Env};
use super::tree::compute_below;
use super::{bidx, BOUNDS};
use crate::machine::CostModel;
use crate::observe::RunObs;
use crate::phases::{self, Phase, PhaseKind};
use crate::quantity::{fit_quantity, Fitted, Floor, Origin, Samples};

/// The phases the runs show and what the computation fits take from them.
pub(super) struct PhaseContext {
    pub(super) found: Vec<Phase>,
    /// Computation sites inside a pipeline: costed at the typical processor, not the slowest.
    pub(super) in_pipeline: BTreeSet<u32>,
    /// Per phase, [`presence`] of its critical runs.
    pub(super) presences: Vec<Expr>,
    /// Per point-to-point phase: the source's size per message, if any, and the fitted one.
    pub(super) phase_bytes: BTreeMap<usize, (Option<Expr>, Fitted)>,
    /// Computation sites below a phase that communicates only from some P up, with its ramp.
    pub(super) communicating: BTreeMap<u32, Expr>,
    /// Computation loops that may rewrite a phase's sent data, with the floor of their cost.
    pub(super) floors: BTreeMap<u32, Floor>,
}

/// Finds the phases in the runs and derives what [`PhaseContext`] holds.
pub(super) fn phase_context(env: &Env<'_>) -> PhaseContext {
    let found: Vec<Phase> = phases::find(env.runs);
    // computation inside a pipeline runs once per hop on successive processors (the chain pays
    // the typical processor); elsewhere the processors meet at every exchange or collective, so
    // the slowest one sets the pace
    let in_pipeline: BTreeSet<u32> = found
        .iter()
        .filter(|g| matches!(g.kind, PhaseKind::Pipeline | PhaseKind::Star))
        .flat_map(|g| g.overlapped.iter().copied())
        .collect();
    let critical = phases::critical_runs(&found);
    let presences: Vec<Expr> = critical.iter().map(|on| presence(env.runs, on)).collect();
    // the size per message of each point-to-point phase: the source's expression where it
    // has one, fitted to the traced sizes (costed below, and the size of a rewrite here)
    let mut phase_bytes: BTreeMap<usize, (Option<Expr>, Fitted)> = BTreeMap::new();
    for (gi, g) in found.iter().enumerate() {
        if g.kind != PhaseKind::Collective {
            let together = g.kind == PhaseKind::Synchronous;
            let src = if together {
                largest_send_source(g, &env.nodes, &env.consts, &env.params)
            } else {
                send_source(g, &env.nodes, &env.consts, &env.params)
            };
            let samples = phase_samples(g, env.runs, &env.params, &|pr| {
                if together {
                    pr.site_bytes.values().copied().fold(pr.bytes, f64::max)
                } else {
                    pr.bytes
                }
            });
            let f = non_negative(fit_whole_count(env, &samples, src.as_ref()));
            phase_bytes.insert(gi, (src, f));
        }
    }
    let mut pc = PhaseContext {
        found,
        in_pipeline,
        presences,
        phase_bytes,
        communicating: BTreeMap::new(),
        floors: BTreeMap::new(),
    };
    ramps_and_floors(env, &mut pc);
    pc
}

/// Fills [`PhaseContext::communicating`] and [`PhaseContext::floors`]: a loop under a
/// point-to-point phase that may rewrite data one of the phase's sends has just given to
/// another core: the sheet's least time for that, at that send's size, where the phase
/// communicates, is a floor of its cost.
fn ramps_and_floors(env: &Env<'_>, pc: &mut PhaseContext) {
    // a computation phase that repeats with a communication phase some runs lack (P = 1: under
    // the phase's APT ancestor) may cost differently where the phase communicates: the data it
    // touches was just sent or received, and its cache lines move between cores
    let routines = env.routines();
    for (gi, g) in pc.found.iter().enumerate() {
        let Some(anchor) = g.ancestor.filter(|_| g.kind != PhaseKind::Collective) else {
            continue;
        };
        let Some(anchor_node) = env.nodes.get(&anchor) else {
            continue;
        };
        let below = compute_below(anchor_node, &routines);
        let ramp = &pc.presences[gi];
        if ramp.as_const().is_none() {
            for (site, _) in &below {
                pc.communicating
                    .entry(*site)
                    .or_insert_with(|| ramp.clone());
            }
        }
        let Some(rw) = &env.machine.point_to_point.rewrite else {
            continue;
        };
        let sends = send_floors(env, pc, gi, g, anchor, rw);
        for (site, via) in &below {
            let Some(NodeData::Loop(l)) = env.nodes.get(site).map(|n| &n.data) else {
                continue;
            };
            if let Some(floor) = rewrite_floor(env, l, *via, &sends) {
                let floor = match pc.floors.remove(site) {
                    Some(old) => Floor {
                        bounds: BOUNDS.map(|b| {
                            Expr::max(old.bounds[bidx(b)].clone(), floor.bounds[bidx(b)].clone())
                        }),
                        proven: old.proven || floor.proven,
                    },
                    None => floor,
                };
                pc.floors.insert(*site, floor);
            }
        }
    }
}

/// The sends of phase `g` (index `gi`) in the anchor's routine (names elsewhere are another
/// scope's), each with its floor: the whole rewrite table (it rises and falls with the size,
/// so the traced sizes' regimes extended would not give it at other sizes), at the send's
/// source size or the phase's fitted one, where the phase communicates.
fn send_floors<'s>(
    env: &'s Env<'_>,
    pc: &PhaseContext,
    gi: usize,
    g: &Phase,
    anchor: u32,
    rw: &CostModel,
) -> Vec<(&'s CommFacts, [Expr; 3])> {
    let ramp = &pc.presences[gi];
    let routine_of = |s: &u32| {
        env.paths
            .get(s)
            .and_then(|p| p.first())
            .and_then(|p| p.first())
    };
    let home = routine_of(&anchor);
    g.sites
        .iter()
        .filter(|s| routine_of(s) == home)
        .filter_map(|s| match env.nodes.get(s).map(|n| &n.data) {
            Some(NodeData::Comm(c)) if c.buffer.is_some() => {
                let own = c.size().and_then(|b| env.source(b));
                let floor = BOUNDS.map(|b| {
                    let m = own
                        .clone()
                        .or_else(|| pc.phase_bytes.get(&gi).map(|(_, f)| f.at(b).clone()))
                        .unwrap_or_else(Expr::zero);
                    ramp * rw.piecewise(b, &m, &Expr::int(2), 0.0, f64::MAX)
                });
                Some((c, floor))
            }
            _ => None,
        })
        .collect()
}

/// The floor of computation loop `l` (reached through the call at `via`, if any) from the
/// `sends` it may rewrite: the largest of theirs, proven when the writes are known and name a
/// buffer sent from its start (a row sent from the middle of an array the loop writes
/// elsewhere is only a candidate). None when it rewrites none of them.
fn rewrite_floor(
    env: &Env<'_>,
    l: &LoopNode,
    via: Option<u32>,
    sends: &[(&CommFacts, [Expr; 3])],
) -> Option<Floor> {
    let rewrites = |c: &CommFacts| match via {
        None => apt::may_rewrite(l, c),
        Some(call) => apt::call_may_rewrite(env.apt, apt::SiteId(call), c),
    };
    let rewritten: Vec<&(&CommFacts, [Expr; 3])> =
        sends.iter().filter(|(c, _)| rewrites(c)).collect();
    let first = rewritten.first()?;
    let known = match via {
        None => l.writes.is_some(),
        Some(call) => env
            .apt
            .call_writes
            .get(&apt::SiteId(call))
            .is_some_and(|w| w.is_ok()),
    };
    let proven = known
        && rewritten.iter().any(|(c, _)| {
            c.buffer_from_start && matches!(c.buffer, Some(apt::SendBuffer::Named(_)))
        });
    let mut bounds = first.1.clone();
    for (_, f) in &rewritten[1..] {
        bounds = BOUNDS.map(|b| Expr::max(bounds[bidx(b)].clone(), f[bidx(b)].clone()));
    }
    Some(Floor { bounds, proven })
}

/// Whether a phase communicates at P, as a factor: 1, or — when the runs in which it costs the
/// critical processor time (`on`, [`phases::critical_runs`]) are exactly those from some
/// processor count up (no peers at P = 1, no east-west neighbours on a 1 × 2 grid, one of two
/// north-south neighbours on a 2 × 2 grid) — `min(1, max(0, (P − P0)/(P1 − P0)))`, P0 the
/// largest P without it, P1 the smallest with it.
pub(super) fn presence(runs: &[RunObs], on: &BTreeSet<usize>) -> Expr {
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

/// A size fitted by regression with a negative term (`9.275*N/sqrt(P) - 21`) goes below zero
/// outside the traced range, where a message cost must not: clamped at 0.
pub(super) fn non_negative(f: Fitted) -> Fitted {
    let signed = |e: &Expr| e.terms().iter().any(|t| t.coef() < 0.0);
    if !f.origin.by_regression() || !(signed(&f.expr) || signed(&f.lo) || signed(&f.hi)) {
        return f;
    }
    held_at_zero(f)
}

/// `f`'s law and band, each held at 0 where it would fall below.
pub(super) fn held_at_zero(f: Fitted) -> Fitted {
    let clamp = |e: &Expr| Expr::max(e.clone(), Expr::zero());
    Fitted {
        expr: clamp(&f.expr),
        lo: clamp(&f.lo),
        hi: clamp(&f.hi),
        ..f
    }
}

/// One value per run that traced phase `g`.
pub(super) fn phase_samples(
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

/// Sizes of the blocks of the program's process grids, the hypotheses for a size per message
/// the source does not give (a derived datatype augur does not size): for each parameter X
/// other than P, an edge `X/dims(P, d, k)` and, on grids of three or more dimensions, a face
/// `X²/(dims(P, d, j)·dims(P, d, k))`.
/// A whole count per run (bytes per message, a loop's trip per entry) fitted with the source's
/// `src`, else with the process grid's faces (`N/dims(P, 2, k)`) as candidates, kept only
/// where one gives every traced count: a face that does not give each one is not the count,
/// whatever the regression's tolerance; else the free search. Trial 12: a halo's rows were
/// `8*N/smpi_dims(P, 2, 1)` while the loops over the same rows fitted `1.138*N/sqrt(P)`.
///
/// The grid's neighbour counts are candidates too ([`grid_neighbour_candidates`]): a loop over
/// the neighbours a rank found (`if (lo != MPI_PROC_NULL) nbr[n++] = lo;`), or the messages a
/// rank sends to them, counted 1, 2, 2.5, 3 at P = 2..16 where laws of P alone grow without
/// bound (trial 14: `log2(P)`, `0.8054*sqrt(P)`, 10 to 26 neighbours at P = 1024).
pub(super) fn fit_whole_count(env: &Env<'_>, s: &Samples, src: Option<&Expr>) -> Fitted {
    let faces = if src.is_none() {
        let mut c = grid_size_candidates(env);
        c.extend(grid_neighbour_candidates(env));
        c
    } else {
        Vec::new()
    };
    let f = fit_quantity(s, src, &faces, true, env.qopts);
    if !faces.is_empty() && f.origin == Origin::Regression && f.max_rel_err > 1e-6 {
        return fit_quantity(s, None, &[], true, env.qopts);
    }
    f
}

/// Neighbour counts on each process grid with extents `e`: the most a rank has (`min(e − 1,
/// 2)` per extent, an interior rank's; `min(2(e − 1), 2)` where the grid wraps around) and
/// their mean over the ranks (`2(e − 1)/e` per extent: the ends have one), which a loop's
/// iterations per entry, summed over the ranks, give.
fn grid_neighbour_candidates(env: &Env<'_>) -> Vec<Vec<Expr>> {
    let mut out = Vec::new();
    for g in &env.grids {
        let ext = g.extents();
        let sum = |f: &dyn Fn(&Expr) -> Expr| ext.iter().fold(Expr::zero(), |a, e| a + f(e));
        let less = |e: &Expr| e.clone() - Expr::one();
        out.push(vec![sum(&|e| Expr::min(less(e), Expr::int(2)))]);
        out.push(vec![sum(&|e| {
            Expr::min(Expr::int(2) * less(e), Expr::int(2))
        })]);
        out.push(vec![sum(&|e| Expr::int(2) * less(e) / e.clone())]);
    }
    out
}

fn grid_size_candidates(env: &Env<'_>) -> Vec<Vec<Expr>> {
    let mut out = Vec::new();
    for g in &env.grids {
        let (d, ext) = (g.d, g.extents());
        for x in env.params.iter().filter(|v| *v != "P") {
            let x = Expr::var(x);
            let mut faces = Vec::new();
            for (j, ej) in ext.iter().enumerate() {
                if d >= 3 {
                    for ek in &ext[j + 1..] {
                        faces.push(x.clone() * x.clone() / (ej.clone() * ek.clone()));
                    }
                } else {
                    faces.push(&x / ej);
                }
                if d >= 3 {
                    out.push(vec![&x / ej]);
                }
            }
            out.extend(faces.iter().map(|f| vec![f.clone()]));
            // one call site sending every face in turn (a loop over the dimensions): its
            // mean size is their sum over the count (trial 13: a 3-D halo's subarray faces
            // from one Isend in a loop over d fitted `15.49*N^2/P + 426.7`)
            if faces.len() >= 2 {
                out.push(vec![faces.into_iter().fold(Expr::zero(), |a, f| a + f)]);
            }
        }
    }
    out
}

/// A loosely synchronous exchange's size per message in the source: its messages travel
/// together, so the largest of its sending sites' sizes (a halo's rows or its columns, as the
/// grid's shape has it) when the source gives every one; else [`send_source`]'s.
fn largest_send_source(
    g: &Phase,
    nodes: &BTreeMap<u32, &Node>,
    consts: &BTreeMap<String, Expr>,
    params: &[String],
) -> Option<Expr> {
    let sending: BTreeSet<u32> = g
        .runs
        .values()
        .flat_map(|pr| pr.site_bytes.keys().copied())
        .collect();
    let mut sizes: Vec<Expr> = Vec::new();
    for s in &sending {
        let own = match nodes.get(s).map(|n| &n.data) {
            Some(NodeData::Comm(c)) => c.size().and_then(|b| source_expr(b, consts, params)),
            _ => None,
        };
        match own {
            Some(e) if !sizes.contains(&e) => sizes.push(e),
            Some(_) => {}
            None => return send_source(g, nodes, consts, params),
        }
    }
    match sizes.len() {
        0 => send_source(g, nodes, consts, params),
        1 => sizes.pop(),
        _ => Some(Expr::max_of(sizes)),
    }
}

/// A point-to-point phase's size per message in the source: the first of its sites that
/// gives one.
pub(super) fn send_source(
    g: &Phase,
    nodes: &BTreeMap<u32, &Node>,
    consts: &BTreeMap<String, Expr>,
    params: &[String],
) -> Option<Expr> {
    let sizes = send_sizes(g, nodes, consts, params);
    match sizes.as_slice() {
        // one size at every site that sends, or none that sends with a size (a collective's
        // contribution): the first site's
        [(_, e), rest @ ..] if rest.iter().all(|(_, x)| x == e) => Some(e.clone()),
        [] => g
            .sites
            .iter()
            .find_map(|s| match nodes.get(s).map(|n| &n.data) {
                Some(NodeData::Comm(c)) => c.size().and_then(|b| source_expr(b, consts, params)),
                _ => None,
            }),
        // sites that send different sizes (a farm's 4-byte task and 16-byte result: trial 27
        // fitted the phase's mean 9.978 against line 58's 4): no one site's is the phase's;
        // the mean of the different sizes is the hypothesis, scaled to the traced mean
        _ => mean_of_sizes(&sizes),
    }
}

/// The mean of the different sizes in `sizes`, where there are several.
pub(super) fn mean_of_sizes(sizes: &[(u32, Expr)]) -> Option<Expr> {
    let mut distinct: Vec<&Expr> = Vec::new();
    for (_, e) in sizes {
        if !distinct.contains(&e) {
            distinct.push(e);
        }
    }
    (distinct.len() > 1).then(|| {
        let n = distinct.len() as f64;
        distinct.into_iter().cloned().sum::<Expr>() / Expr::num(n)
    })
}

/// The size per message of each site of `g` that sends data, where the source gives it:
/// (site, size), in site order.
pub(super) fn send_sizes(
    g: &Phase,
    nodes: &BTreeMap<u32, &Node>,
    consts: &BTreeMap<String, Expr>,
    params: &[String],
) -> Vec<(u32, Expr)> {
    g.sites
        .iter()
        .filter_map(|s| match nodes.get(s).map(|n| &n.data) {
            Some(NodeData::Comm(c)) if c.buffer.is_some() && !c.op.is_collective() => c
                .size()
                .and_then(|b| source_expr(b, consts, params))
                .map(|e| (*s, e)),
            _ => None,
        })
        .collect()
}
