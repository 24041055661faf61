//! A point-to-point phase's cost (seed 004 §4): a loosely synchronous exchange costs
//! `max(τ(m), W) + k(s + r)` per occurrence (τ + W above the eager limit; an exchange of
//! posted receives completed by waits `max(wire(m, k), W) + k·post + wait(m, k)` from
//! the sheet's nonblocking exchange where it measured one), a pipeline
//! `k(s + r + o) + W` per occurrence plus a fill of `D(τ(m) + s + r + W)`, a star (a hub and its
//! workers) the same per occurrence plus `2(τ(m) + s + r)` (a task out, the last answer back),
//! with τ, s, r costed only where the phase communicates; its counts per occurrence from the
//! runs, measured against its anchor's executions.

use std::collections::BTreeMap;

use apt::Node;
use symbolic::Expr;

use super::cold;
use super::compose::{Ends, PhaseCost};
use super::costs::PhaseFit;
use super::env::{row, Notes};
use super::phase_context::{send_source, PhaseContext};
use super::tree::{executions, grid_depth};
use super::{bidx, PhaseReport, QuantityReport, BOUNDS};
use crate::machine::Bound;
use crate::phases::{self, PhaseKind};
use crate::quantity::{fit_quantity, Fitted, Samples};

/// The cost of point-to-point phase `pf` with the computation inside it (`compute`): its
/// anchor, cost and report; its sizes, depth and counts are reported. None, with a warning,
/// when it has no APT ancestor.
pub(super) fn cost_exchange(
    pf: &PhaseFit<'_>,
    pc: &PhaseContext,
    compute: &BTreeMap<u32, Fitted>,
    notes: &mut Notes,
) -> Option<(u32, PhaseCost, PhaseReport)> {
    let (env, g, gi, first) = (pf.env, pf.g, pf.gi, pf.first);
    // all ranks, all but one row or column of a square grid (trial 14's Cannon skew: P - sqrt(P)
    // where it was fitted 0.8205*P - 1.288), all but one row or column of the program's grid
    let p = Expr::var("P");
    let mut procs_c = vec![
        vec![p.clone()],
        vec![&p - &p.sqrt()],
        vec![p.clone(), Expr::one()],
        vec![Expr::one()],
    ];
    for g in &env.grids {
        for x in g.extents() {
            procs_c.insert(1, vec![&p - &x]);
        }
    }
    // every rank in every run that traced the phase: P, also where those runs had one P
    // (trial 26: an exchange absent at P = 1, traced at P = 2 only, read "2 processors")
    let all_ranks = pf.g.runs.iter().all(|(ri, pr)| {
        env.runs
            .get(*ri)
            .is_some_and(|r| r.params.get("P").copied() == Some(f64::from(pr.processors)))
    });
    let procs = if all_ranks {
        Fitted {
            expr: p.clone(),
            lo: p.clone(),
            hi: p.clone(),
            r2: 1.0,
            max_rel_err: 0.0,
            points: pf.g.runs.len(),
            ..Fitted::constant(0.0)
        }
    } else {
        fit_quantity(
            &pf.by(&|pr| f64::from(pr.processors)),
            None,
            &procs_c,
            true,
            env.qopts,
        )
    };
    // the APT ancestor is cpg's (nearest common non-COMM ancestor of the sites)
    let Some(anchor) = g.ancestor else {
        notes.warnings.push(format!(
            "phase {gi} (sites {:?}) has no APT ancestor (sites not in the APT?): not costed",
            g.sites
        ));
        return None;
    };
    let anchor_node = env.nodes.get(&anchor).copied();
    if g.runs.len() == 1 {
        notes.warnings.push(format!(
            "phase {gi} (sites {:?}) seen in one run only: its size and depth are not fitted",
            g.sites
        ));
    }
    // a Sendrecv posts its send with its receive: no processor receives before it sends, so
    // a phase of Sendrecvs alone is loosely synchronous whatever the chains' length
    let sendrecvs = g.sites.iter().all(|s| {
        matches!(
            env.nodes.get(s).map(|n| &n.data),
            Some(apt::NodeData::Comm(c))
                if matches!(c.op, frontend::MpiOp::Sendrecv | frontend::MpiOp::SendrecvReplace)
        )
    });
    // traced at P >= 3 and still pairs (recursive doubling's fold: rank r with r + 2^k, one
    // way): pairwise by construction, loosely synchronous at every P (trial 17 was told to
    // profile at P >= 3 with P = 6, 12 and 16 traced)
    let pairs_at_p3 = g
        .runs
        .iter()
        .filter(|(ri, _)| env.runs[**ri].p() >= 3)
        .all(|(_, r)| r.senders.is_disjoint(&r.receivers) && r.depth <= 1)
        && g.runs.keys().any(|ri| env.runs[*ri].p() >= 3);
    if !g.determinate && !sendrecvs && pairs_at_p3 {
        notes.warnings.push(format!(
            "phase {gi} ({}): pairwise at every traced P (up to {}): each processor only sends or only receives in it, so no chain forms; costed as {}",
            env.at(anchor),
            g.runs.keys().map(|ri| env.runs[*ri].p()).max().unwrap_or(0),
            match g.kind {
                PhaseKind::Pipeline | PhaseKind::Star => "a pipeline",
                _ => "loosely synchronous",
            }
        ));
    } else if !g.determinate && !sendrecvs {
        let grid = if env.grids.is_empty() {
            ""
        } else {
            " (on the process grid: at a P whose extent along this exchange's axis is 3 or more)"
        };
        notes.warnings.push(format!(
            "phase {gi} ({}): in no traced run does a processor both send and receive in it (chains of two ranks), so a pipeline cannot be told from a loosely synchronous exchange; costed as {}, unverified beyond the traced P: profile at P >= 3 (e.g. under SMPI){grid} to classify it",
            env.at(anchor),
            match g.kind {
                PhaseKind::Pipeline | PhaseKind::Star => "a pipeline",
                _ => "loosely synchronous",
            }
        ));
    }
    let occ = Occurrences { pf, anchor_node };
    let largest = g
        .runs
        .iter()
        .max_by_key(|(ri, _)| env.runs[**ri].p())
        .map(|(ri, pr)| (*ri, pr));
    // messages per rank per occurrence, at the largest run
    let msgs = largest
        .map(|(ri, pr)| (pr.max_msgs_per_rank as f64 / occ.of(ri)).round())
        .filter(|m| *m >= 1.0)
        .unwrap_or(1.0);
    // a law in P stays within what the source can send (trial 12: a 4-neighbour halo's
    // counts 1, 2, 3, 4 at P = 2..16 fitted log2(P), 6 messages at P = 64)
    let msgs_law = varying_count(env, &occ.per(&|pr| Some(pr.max_msgs_per_rank as f64))).map(|f| {
        match sends_per_occurrence(pf, anchor) {
            Some(most) if most >= msgs => capped_at(f, most),
            _ => f,
        }
    });
    let (bytes, rep) = match pc.phase_bytes.get(&gi).cloned() {
        Some((src, f)) => pf.bytes_report(src, f),
        None => pf.fit_bytes(send_source(g, &env.nodes, &env.consts, &env.params)),
    };
    notes.quantities.push(rep);
    let pf = &pf.reaching(&bytes.expr);
    let depth = (g.kind == PhaseKind::Pipeline).then(|| fit_depth(pf, notes));
    let coarse = if g.kind == PhaseKind::Pipeline {
        coarse_hops(pf, anchor, notes)
    } else {
        Vec::new()
    };
    let ins = inside(&occ, compute, notes);
    let k = msgs_law
        .as_ref()
        .map_or(Expr::num(msgs), |f| f.expr.clone());
    if let Some(f) = &msgs_law {
        notes.quantities.push(QuantityReport {
            what: "msgs".into(),
            site: first,
            line: pf.line(first),
            file: env.file_of(first),
            source: "measured: per occurrence of the phase, per rank".into(),
            fit: f.clone(),
        });
    }
    let mut cost = occurrence_cost(pf, &pc.presences[gi], &bytes, &k, depth.as_ref(), &ins);
    // each coarse hop on the chain waits for the blocks between two of its messages, where
    // the fill charged one stage
    for (hops, blocks) in &coarse {
        for b in BOUNDS {
            let i = bidx(b);
            let extra =
                hops.at(b).clone() * (blocks.at(b).clone() - Expr::one()) * ins.w[i].clone();
            cost.fill[i] = cost.fill[i].clone() + extra;
        }
    }
    if let Some(d) = depth.as_ref() {
        if let Some(e) = cold_excess(&occ, &ins.w[1], notes) {
            cost.cold = BOUNDS.map(|b| d.at(b).clone() * e.at(b).clone());
        }
    }
    let report = PhaseReport {
        id: gi,
        kind: g.kind,
        sites: g.sites.iter().copied().collect(),
        ancestor: anchor,
        ancestor_line: pf.line(anchor),
        ancestor_file: env.file_of(anchor),
        lines: pf.lines(g.sites.iter().copied()),
        lines_at: pf.lines_at(g.sites.iter().copied()),
        processors: procs.expr.clone(),
        depth: depth.map(|d| d.expr),
        bytes: bytes.expr.clone(),
        msgs,
        cost: cost.per[1].clone(),
        fill: matches!(g.kind, PhaseKind::Pipeline | PhaseKind::Star).then(|| cost.fill[1].clone()),
        total: Expr::zero(),
        overlapped: g.overlapped.iter().copied().collect(),
        runs_seen: g.runs.len(),
        overlaps_with: None,
    };
    Some((anchor, cost, report))
}

/// A phase's counts per occurrence: per run, over its anchor's executions (the most any rank
/// made).
struct Occurrences<'a, 'p> {
    pf: &'a PhaseFit<'p>,
    anchor_node: Option<&'p Node>,
}

impl Occurrences<'_, '_> {
    /// The anchor's executions in run `ri` (at least 1).
    fn of(&self, ri: usize) -> f64 {
        let env = self.pf.env;
        self.anchor_node
            .and_then(|n| {
                env.runs[ri]
                    .ranks
                    .iter()
                    .filter_map(|r| executions(r, n, &env.nodes))
                    .reduce(f64::max)
            })
            .unwrap_or(1.0)
            .max(1.0)
    }

    /// `f` per occurrence, one sample per run that traced the phase and gives it.
    fn per(&self, f: &dyn Fn(&phases::PhaseRun) -> Option<f64>) -> Samples {
        let env = self.pf.env;
        let mut s = Samples::new(env.params.clone());
        for (ri, pr) in &self.pf.g.runs {
            if let Some(v) = f(pr) {
                s.push(row(&env.runs[*ri], &env.params), v / self.of(*ri));
            }
        }
        s
    }
}

/// A pipeline's depth, fitted to the traced depths with the source's process grid as the
/// hypothesis, and reported.
fn fit_depth(pf: &PhaseFit<'_>, notes: &mut Notes) -> Fitted {
    let (env, first) = (pf.env, pf.first);
    // on the program's process grid a wavefront crosses every extent (Px + Py - 2)
    // or one of them: the source's hypothesis, which log2(P) would otherwise match
    // at P = 4, 8, 16 and miss beyond
    let hyp = grid_depth(&env.grids);
    let d = fit_chain_samples(env, &pf.by(&|pr| f64::from(pr.depth)), hyp.as_ref());
    notes.quantities.push(QuantityReport {
        what: "depth".into(),
        site: first,
        line: pf.line(first),
        file: env.file_of(first),
        source: hyp
            .as_ref()
            .map_or_else(|| "measured".into(), |h| format!("{h} (the grid's)")),
        fit: d.clone(),
    });
    d
}

/// A count of chain hops per run (`samples`), fitted across the runs with `hyp` as the
/// hypothesis and the laws a chain follows as candidates: lines, square and logarithmic
/// shapes, binomial trees and the program's process grid's extents.
fn fit_chain_samples(env: &super::env::Env<'_>, samples: &Samples, hyp: Option<&Expr>) -> Fitted {
    let mut cands = vec![
        vec![Expr::var("P"), Expr::one()],
        vec![Expr::var("P")],
        vec![Expr::var("P").sqrt(), Expr::one()],
        vec![Expr::var("P").log2(), Expr::one()],
        // a binomial tree's longest chain (a reduction's: 1, 1, 2 at P = 2..4, trial 14's
        // fitted 0.4118*P) and its rounds
        vec![Expr::var("P").log2().floor()],
        vec![Expr::var("P").log2().ceil()],
        vec![Expr::one()],
    ];
    if let Some(g) = env.grids.iter().next() {
        for x in g.extents() {
            cands.insert(0, vec![x, Expr::one()]);
        }
    }
    fit_quantity(samples, hyp, &cands, true, env.qopts)
}

/// How much longer a pipeline stage's first block runs than its later ones where its data is
/// first touched there (trial 5's wavefront, 596 µs against 372 µs): the fill waits for the
/// first block of every stage on the chain, once per run. The excess per run (first − mean,
/// seconds) as a share of the stage `w`, kept (and reported) when the runs agree on it: the
/// first block slower by over 10% in four of five runs and by 15% on average, and the share
/// explaining the excesses (R² ≥ 0.5); None otherwise.
fn cold_excess(occ: &Occurrences<'_, '_>, w: &Expr, notes: &mut Notes) -> Option<Fitted> {
    let (pf, env) = (occ.pf, occ.pf.env);
    let mut s = Samples::new(env.params.clone());
    let mut ratios = Vec::new();
    // the most the excess weighs in a run: once per hop of the chain, of the run's time
    let mut weight = 0.0f64;
    for (ri, pr) in &pf.g.runs {
        if pr.stage > 0.0 && pr.first_stage > 0.0 {
            let excess = (pr.first_stage - pr.stage).max(0.0);
            ratios.push(pr.first_stage / pr.stage - 1.0);
            s.push(row(&env.runs[*ri], &env.params), excess);
            let run = &env.runs[*ri];
            weight = weight.max(excess * f64::from(pr.depth.max(1)) / run.time.max(1e-300));
        }
    }
    // charged D times, an excess that does not follow the stage moved the testdata
    // pipelines' P <= 8 → P predictions 4-5 points the wrong way: [`cold::share_of`] drops it
    if !cold::runs_agree(&ratios) {
        return None;
    }
    let fit = cold::share_of(&s, w).or_else(|| cold::share_of_extent(&s, w, &ratios));
    let Some(fit) = fit else {
        // the fill waits for every stage's first block: an excess that follows no law of the
        // work is left out of T, and said where it weighs 1% of a run (trial 21's Thomas
        // solver lost 60-70% at P = 64 to one that went unnamed; testdata's pipeline's first
        // blocks, 2.7 µs more at most, are nothing to say)
        if weight < 0.01 {
            return None;
        }
        let mean = ratios.iter().sum::<f64>() / ratios.len() as f64;
        let most = s.values.iter().copied().fold(0.0, f64::max);
        notes.warnings.push(format!(
            "phase {} ({}): a stage's first block runs {:.1}x as long as its later ones on average (its data first touched, or its caches cold after what ran before), {:.4e} s more at most, in a way that follows neither its work nor an extent of it: not charged, though the fill waits for it at every stage of the chain; T may fall short at larger P (profile more sizes, so that a law can be fitted)",
            pf.gi,
            pf.g.ancestor.map_or_else(|| env.at(pf.first), |a| env.at(a)),
            1.0 + mean,
            most
        ));
        return None;
    };
    notes.quantities.push(QuantityReport {
        what: "cold".into(),
        site: pf.first,
        line: pf.line(pf.first),
        file: env.file_of(pf.first),
        source: "measured: a stage's first block less its mean, seconds (the fill waits for each stage's first block; charged once per run)".into(),
        fit: fit.clone(),
    });
    Some(fit)
}

/// Per sending site of a pipeline, the fewest and most messages of its busiest site per
/// message of this one over the runs where two sites or more send ([`phases::PhaseRun::blocks_per_message`]).
fn blocks_per_message_by_site(g: &phases::Phase) -> BTreeMap<u32, (f64, f64)> {
    let mut per_site: BTreeMap<u32, (f64, f64)> = BTreeMap::new();
    for pr in g.runs.values().filter(|pr| pr.site_sends.len() >= 2) {
        for &site in pr.site_sends.keys() {
            let Some(e) = pr.blocks_per_message(site) else {
                continue;
            };
            let r = per_site.entry(site).or_insert((e, e));
            *r = (r.0.min(e), r.1.max(e));
        }
    }
    per_site
}

/// A pipeline stage's messages per block: its sites that send once a block in every run (a
/// 2-D wavefront's south and east: 2), at least 1. A site sending less often is a coarse
/// hop's ([`coarse_hops`]), charged on the hops along it.
fn stage_messages(pf: &PhaseFit<'_>) -> Expr {
    let n = fine_sites(&blocks_per_message_by_site(pf.g)).len().max(1);
    Expr::num(n as f64)
}

/// The sites that send about once per block in every run.
fn fine_sites(per_site: &BTreeMap<u32, (f64, f64)>) -> Vec<u32> {
    per_site
        .iter()
        .filter(|(_, (_, most))| *most < 1.5)
        .map(|(s, _)| *s)
        .collect()
}

/// A pipeline whose sending sites pass on different numbers of blocks (trial 18's wavefront:
/// a block's row south after each block, the tile's column east after the last of N/(Py·KB)
/// blocks): each hop along the coarse site waits for all the blocks between two of its
/// messages, where the fill charges one stage a hop. A site is coarse where a processor sends
/// from the busiest site about once per message of its own in no run, half as often or less in
/// some (how much less may follow the parameters), while another site is the busiest in every
/// run. For each coarse site: its hops on the longest chain and its blocks per message, fitted
/// across the runs (the anchor loop's trip count the hypothesis: a message per pass) and
/// reported, with a warning naming it.
fn coarse_hops(pf: &PhaseFit<'_>, anchor: u32, notes: &mut Notes) -> Vec<(Fitted, Fitted)> {
    let (env, g) = (pf.env, pf.g);
    // per site: the fewest and most messages of the busiest site per message of this one
    let per_site = blocks_per_message_by_site(g);
    let fine = fine_sites(&per_site);
    if fine.is_empty() {
        return Vec::new();
    }
    let anchor_trip = env.nodes.get(&anchor).and_then(|n| match &n.data {
        apt::NodeData::Loop(l) => l.trip.expr().cloned(),
        _ => None,
    });
    let mut out = Vec::new();
    for (&site, &(fewest, most)) in per_site.iter().filter(|(_, (_, most))| *most >= 2.0) {
        // over the runs where the site sends in this phase (at P = 2 a pipeline's two kinds of
        // message may be two phases: no processor both receives one and sends the other)
        let mut on_chain = Samples::new(env.params.clone());
        let mut per_message = Samples::new(env.params.clone());
        for (ri, pr) in &g.runs {
            let Some(e) = pr.blocks_per_message(site) else {
                continue;
            };
            let at = row(&env.runs[*ri], &env.params);
            let n = pr.chain_sites.get(&site).copied().unwrap_or(0);
            on_chain.push(at.clone(), f64::from(n));
            per_message.push(at, e);
        }
        // the hops along one axis of the program's grid: that extent less one
        let axis = env
            .grids
            .iter()
            .flat_map(|g| g.extents())
            .map(|x| x - Expr::one())
            .find(|h| {
                on_chain.points.iter().zip(&on_chain.values).all(|(pt, y)| {
                    h.eval(&|v| env.params.iter().position(|p| p == v).map(|k| pt[k]))
                        .is_ok_and(|v| (v - y).abs() < 1e-9)
                })
            });
        let hops = fit_chain_samples(env, &on_chain, axis.as_ref());
        let blocks = fit_quantity(&per_message, anchor_trip.as_ref(), &[], true, env.qopts);
        for (what, fit, source) in [
            (
                "hops",
                &hops,
                "measured: hops of the longest chain sent from here",
            ),
            (
                "blocks",
                &blocks,
                "measured: messages of the pipeline's busiest site per message sent from here",
            ),
        ] {
            notes.quantities.push(QuantityReport {
                what: what.into(),
                site,
                line: pf.line(site),
                file: env.file_of(site),
                source: source.into(),
                fit: fit.clone(),
            });
        }
        let times = if most - fewest < 0.5 {
            format!("{fewest:.0} in each")
        } else {
            format!("{fewest:.0} to {most:.0}")
        };
        notes.warnings.push(format!(
            "phase {} ({}): a pipeline whose hops are not alike: a processor sends at {} up to {most:.0} times as often as at {} ({times} over the traced runs), so each of the chain's {} hops along {}'s messages waits for {} blocks; the fill charges them so (the stage was measured per block)",
            pf.gi,
            env.at(anchor),
            fine.iter().map(|s| env.at(*s)).collect::<Vec<_>>().join(", "),
            env.at(site),
            hops.expr,
            env.at(site),
            blocks.expr,
        ));
        out.push((hops, blocks));
    }
    out
}

/// W: computation inside the phase, one interval's (a pipeline's stage) and per occurrence
/// (the entries a processor makes inside one occurrence, usually one each, reported where
/// they vary); and the most entries of one computation per occurrence (a farm worker's
/// tasks), 1 where none varies.
fn inside(occ: &Occurrences<'_, '_>, compute: &BTreeMap<u32, Fitted>, notes: &mut Notes) -> Inside {
    let (pf, env) = (occ.pf, occ.pf.env);
    let g = pf.g;
    let star = g.kind == PhaseKind::Star;
    let entries: BTreeMap<u32, Fitted> = g
        .overlapped
        .iter()
        .filter_map(|&c| {
            let n = varying_count(env, &occ.per(&|pr| pr.inside.get(&c).copied()))?;
            let (n, source) = match star.then(|| busiest(occ, c, &n)).flatten() {
                Some(most) => (
                    most,
                    "measured: the busiest processor's, per occurrence of the phase (the farm waits for it)",
                ),
                None => (n, "measured: per occurrence of the phase, per processor"),
            };
            notes.quantities.push(QuantityReport {
                what: "entries".into(),
                site: c,
                line: pf.line(c),
                file: env.file_of(c),
                source: source.into(),
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
    let tasks: [Expr; 3] = BOUNDS.map(|b| {
        let laws: Vec<Expr> = entries.values().map(|n| n.at(b).clone()).collect();
        if laws.is_empty() {
            Expr::one()
        } else {
            Expr::max_of(laws)
        }
    });
    Inside { w, w_occ, tasks }
}

/// A task farm's busiest worker's entries of computation `c` per occurrence, where the runs
/// kept them: whole tasks, so `ceil` of the mean worker's law `mean` where the runs follow it
/// (trial 21's farm at 1.6 tasks per worker: the farm waits for the workers with 2, −37%
/// charged at the mean), else fitted on their own. None for traces without them.
fn busiest(occ: &Occurrences<'_, '_>, c: u32, mean: &Fitted) -> Option<Fitted> {
    let s = occ.per(&|pr| pr.inside_most.get(&c).copied().filter(|n| *n > 0.0));
    if s.values.len() < occ.pf.g.runs.len() {
        return None;
    }
    let whole = mean.expr.ceil();
    let f = super::phase_context::fit_whole_count(occ.pf.env, &s, Some(&whole));
    Some(at_least_none(no_worse_than_mean(f, &s)))
}

/// A count that may fall below 0 ([`may_fall_below_zero`]) held at 0 there (trial 29: a farm's
/// hub refills `NTASK - P + 1` times, fitted from runs with NTASK >= P - 1, was -191 at P =
/// 256 with 64 tasks).
fn at_least_none(f: Fitted) -> Fitted {
    if ![&f.expr, &f.lo, &f.hi].into_iter().any(may_fall_below_zero) {
        return f;
    }
    super::phase_context::held_at_zero(f)
}

/// [`inside`]'s computation inside a phase, at each bound.
struct Inside {
    /// One interval's (a pipeline's stage).
    w: [Expr; 3],
    /// One occurrence's.
    w_occ: [Expr; 3],
    /// The most entries of one computation in an occurrence.
    tasks: [Expr; 3],
}

/// The cost per occurrence and the fill of a point-to-point phase at each bound, from its size
/// per message, `k` messages per rank per occurrence, its depth (pipelines), the computation
/// inside it ([`Inside`]) and where it communicates (`presence`).
fn occurrence_cost(
    pf: &PhaseFit<'_>,
    presence: &Expr,
    bytes: &Fitted,
    k: &Expr,
    depth: Option<&Fitted>,
    ins: &Inside,
) -> PhaseCost {
    let stage_messages = stage_messages(pf);
    let nonblocking = nonblocking_sheet(pf);
    let (w, w_occ, tasks) = (&ins.w, &ins.w_occ, &ins.tasks);
    let machine = pf.env.machine;
    let (d_lo, d_hi) = (pf.d_lo, pf.d_hi);
    let pp = &machine.point_to_point;
    let m = |b: Bound| bytes.at(b).clone();
    let sub = |cm: &crate::machine::CostModel, b: Bound| -> Expr {
        cm.piecewise(b, &m(b), &Expr::int(2), d_lo.min(d_hi), d_hi)
    };
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
        let (tau, s, r) = (presence * tau, presence * s, presence * r);
        match pf.g.kind {
            PhaseKind::Synchronous if let Some(nb) = nonblocking => {
                // posted receives completed by waits: the exchange as the sheet measured it,
                // its transfers overlapping the computation between posts and wait (a 2-D
                // halo under SMPI: four messages each way take one exchange's 4-5 µs, where
                // four blocking receives were charged 15 µs; trial 22 E1)
                let x = nb.exchange(k, b, &m(b), d_lo.min(d_hi), d_hi);
                per[i] = Expr::max(presence * x.wire, w_occ[i].clone())
                    + presence * x.posts
                    + presence * x.wait;
            }
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
                per[i] = wait + k * (s + r);
            }
            PhaseKind::Star => {
                // the workers run side by side, each its tasks back to back, while the hub
                // serves one message after another: the farm takes the longer of the hub's
                // service and a worker's tasks, each with its round trip to the hub (trial
                // 15: their sum was charged, +26% and +53% at P = 64 and 32); the run waits
                // for the first task's way out and the last answer's way back, no stage
                let o = presence * Expr::num(pp.o);
                let service = k * (s.clone() + r.clone() + o.clone());
                // a task's way out and its answer's way back are a message each, each with
                // its sender's and receiver's overhead (trial 18: one of each charged, the
                // farm with one worker was −38% where the receive overhead is 3.6 µs)
                let trip = Expr::int(2) * (tau.clone() + s.clone() + r.clone()) + o;
                per[i] = Expr::max(service, w_occ[i].clone() + tasks[i].clone() * trip);
                fill[i] = Expr::int(2) * (tau + s + r);
            }
            _ => {
                let o = presence * Expr::num(pp.o);
                per[i] = k * (s.clone() + r.clone() + o) + w_occ[i].clone();
                let d = depth.map_or(Expr::zero(), |d| d.at(b).clone());
                // each hop: the block's way to the next stage, which receives every message
                // of the block (a wavefront's from the north and from the west) before it
                // computes, and sends every one after (trial 22's 2-D sweep: one of each
                // charged, −27..−40% at P = 64..128)
                fill[i] = d * (tau + stage_messages.clone() * (s + r) + w[i].clone());
            }
        }
    }
    PhaseCost {
        per,
        fill,
        cold: BOUNDS.map(|_| Expr::zero()),
        synchronous: pf.g.kind == PhaseKind::Synchronous,
        ends: match pf.g.kind {
            PhaseKind::Pipeline => {
                pf.g.runs
                    .iter()
                    .map(|(&run, r)| (run, Ends::of(&r.senders, &r.receivers)))
                    .collect()
            }
            _ => BTreeMap::new(),
        },
    }
}

/// The sheet's nonblocking exchange where phase `pf` is one and the sheet measured it: its
/// receives are posted (`MPI_Irecv`) and a wait completes them, its sends are any
/// point-to-point send. Under SMPI a halo's blocking sends to posted receives cost what its
/// Isends do (4.3 µs per exchange of four messages each way at P = 16 and 64, either way;
/// below 64 KiB a send is detached), and natively a blocking eager send copies what an Isend
/// and its share of the wait do. A phase with a blocking receive or a Sendrecv is costed by
/// the blocking overheads.
fn nonblocking_sheet<'m>(pf: &PhaseFit<'m>) -> Option<&'m crate::machine::Nonblocking> {
    use frontend::MpiOp;
    let nb = pf.env.machine.point_to_point.nonblocking.as_ref()?;
    let op = |s: &u32| match pf.env.nodes.get(s).map(|n| &n.data) {
        Some(apt::NodeData::Comm(c)) => Some(c.op),
        _ => None,
    };
    let posted = pf.g.sites.iter().any(|s| op(s) == Some(MpiOp::Irecv));
    let all = pf.g.sites.iter().all(|s| {
        op(s).is_some_and(|o| {
            o == MpiOp::Irecv
                || (o.sends() && !matches!(o, MpiOp::Sendrecv | MpiOp::SendrecvReplace))
        })
    });
    (posted && all).then_some(nb)
}

/// The most messages a rank can send in one occurrence of the phase, by its source: one per
/// sending site, where each lies under the anchor with no loop between them (a halo's four
/// Isends: 4). None when a send sits in a loop below the anchor or outside its routine's tree
/// under it, or a persistent request is started.
fn sends_per_occurrence(pf: &PhaseFit<'_>, anchor: u32) -> Option<f64> {
    let env = pf.env;
    let mut sends = 0.0;
    for s in &pf.g.sites {
        let Some(apt::NodeData::Comm(c)) = env.nodes.get(s).map(|n| &n.data) else {
            return None;
        };
        let mut here = 1.0;
        match c.op {
            // a start sends at most the requests it starts (trial, stop 32: a halo of four
            // persistent requests started by MPI_Startall fitted 0.5*P messages per rank over
            // P = 2, 4, with no cap)
            frontend::MpiOp::Start => {}
            frontend::MpiOp::Startall => {
                here = c
                    .count
                    .as_ref()
                    .and_then(|a| env.source(a))
                    .and_then(|e| e.as_const())
                    .filter(|n| *n >= 1.0)?;
            }
            op if !op.sends() => continue,
            _ => {}
        }
        for path in env.paths.get(s)? {
            let at = path.iter().position(|x| *x == anchor)?;
            let between = &path[at + 1..path.len().saturating_sub(1)];
            if between.iter().any(|x| {
                matches!(
                    env.nodes.get(x).map(|n| &n.data),
                    Some(apt::NodeData::Loop(_))
                )
            }) {
                return None;
            }
        }
        sends += here;
    }
    (sends >= 1.0).then_some(sends)
}

/// `f` no larger than `most`, its bounds too.
fn capped_at(f: Fitted, most: f64) -> Fitted {
    let cap = |e: &Expr| Expr::min(e.clone(), Expr::num(most));
    Fitted {
        expr: cap(&f.expr),
        lo: cap(&f.lo),
        hi: cap(&f.hi),
        ..f
    }
}

/// A count per occurrence of a phase (messages per rank, a computation's entries inside it)
/// that changes beyond the traced processor counts: a law of the parameters fitted to the runs.
/// Such counts vary where the phase's anchor sits above the loops that repeat it — a
/// master/worker farm's sites meet at the IF choosing each rank's role, so one occurrence
/// holds every task (NTASKS/(P - 1) per worker). `None` (the caller keeps the largest run's
/// count) when the runs at the two largest P all give one whole number: a count that grows
/// only at small P (a grid's neighbours: 1 on a 1 × 2 grid, 2 from 2 × 2 up) has settled.
fn varying_count(env: &super::env::Env<'_>, s: &Samples) -> Option<Fitted> {
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
    Some(no_worse_than_mean(
        super::phase_context::fit_whole_count(env, s, None),
        s,
    ))
}

/// `f`, or where it misses the samples more than their mean does (R² < 0) their mean, with
/// their least and largest as its band: such a law is no law (trial 18's wavefront: entries
/// per occurrence `0.0557*sqrt(KB)*P^(3/2)/sqrt(N)` at R² −0.42 put sqrt(KB) in T, and
/// `expr solve` gave KB* = 13 where KB = 32..128 ran 1.6x faster; with their mean, KB* = 46).
fn no_worse_than_mean(f: Fitted, s: &Samples) -> Fitted {
    if f.r2 >= 0.0 || s.values.is_empty() {
        return f;
    }
    let mean = s.values.iter().sum::<f64>() / s.values.len() as f64;
    let (lo, hi) = s
        .values
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| {
            (a.min(*v), b.max(*v))
        });
    let worst = s
        .values
        .iter()
        .map(|v| (mean - v).abs() / v.abs().max(1e-300))
        .fold(0.0, f64::max);
    Fitted {
        expr: Expr::num(mean),
        lo: Expr::num(lo),
        hi: Expr::num(hi),
        origin: crate::quantity::Origin::Regression,
        r2: 0.0,
        max_rel_err: worst,
        points: s.values.len(),
    }
}

/// Whether `e` is negative somewhere over its parameters from 1 to 10⁶ (each at 1, 2, 10³
/// and 10⁶, at most four of them: a law in more is not probed).
fn may_fall_below_zero(e: &Expr) -> bool {
    const AT: [f64; 4] = [1.0, 2.0, 1e3, 1e6];
    let vars: Vec<String> = e.vars().into_iter().collect();
    if vars.len() > 4 {
        return false;
    }
    (0..AT.len().pow(vars.len() as u32)).any(|mut k| {
        let mut point = Vec::with_capacity(vars.len());
        for _ in &vars {
            point.push(AT[k % AT.len()]);
            k /= AT.len();
        }
        e.eval(&|v| vars.iter().position(|x| x == v).map(|i| point[i]))
            .is_ok_and(|x| x < 0.0)
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    /// Trial 29's farm: the hub's refills, fitted `ceil(NTASK - P) + 1` from runs with
    /// NTASK >= P - 1, are none (not -191) at P = 256 with 64 tasks; a count that cannot fall
    /// below 0 is left as it is.
    #[test]
    fn a_count_law_that_falls_below_zero_is_held_at_none() {
        let law = |text: &str| {
            let mut f = Fitted::constant(0.0);
            f.expr = symbolic::parse(text).unwrap();
            f.lo = f.expr.clone();
            f.hi = f.expr.clone();
            f
        };
        let f = at_least_none(law("ceil(NTASK - P) + 1"));
        let at = |e: &Expr, ntask: f64, p: f64| {
            e.eval(&|v| match v {
                "NTASK" => Some(ntask),
                "P" => Some(p),
                _ => None,
            })
            .unwrap()
        };
        assert_eq!(at(&f.expr, 64.0, 256.0), 0.0);
        assert_eq!(at(&f.hi, 64.0, 16.0), 49.0);
        let kept = law("ceil(NTASK/(P - 1))");
        assert_eq!(at_least_none(kept.clone()).expr, kept.expr);
    }

    #[test]
    fn a_count_law_worse_than_the_mean_is_the_mean() {
        let mut s = Samples::new(vec!["KB".into()]);
        for (kb, v) in [(4.0, 0.5), (16.0, 0.75), (64.0, 0.5)] {
            s.push(vec![kb], v);
        }
        let mut law = Fitted::constant(0.0);
        law.expr = symbolic::parse("0.1*sqrt(KB)").unwrap();
        law.r2 = -0.42;
        let f = no_worse_than_mean(law.clone(), &s);
        assert_eq!(f.expr.as_const(), Some(0.5833333333333334));
        assert_eq!((f.lo.as_const(), f.hi.as_const()), (Some(0.5), Some(0.75)));
        assert_eq!(f.r2, 0.0);
        // a law that explains them stays
        law.r2 = 0.3;
        assert_eq!(no_worse_than_mean(law.clone(), &s).expr, law.expr);
    }
}
