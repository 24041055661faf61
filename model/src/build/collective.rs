//! A collective phase's cost: one call site, costed where the tree meets it at the machine
//! sheet's form for its operation (or a stand-in's) at the size the source gives or, where it
//! gives none, the size the runs measured, over the ranks its communicator spans.

use apt::{Attr, NodeData};
use symbolic::Expr;

use super::compose::PhaseCost;
use super::costs::PhaseFit;
use super::env::Notes;
use super::sheet::{sheet_bytes, sheet_op, SheetOp};
use super::{PhaseReport, BOUNDS};
use crate::machine::{Bound, CostModel};
use crate::quantity::{fit_quantity, Fitted};

/// The cost of collective phase `pf` per call and its report; its size is reported and an
/// operation the sheet lacks is warned about. None when its site is not a COMM node.
pub(super) fn cost_collective(
    pf: &PhaseFit<'_>,
    notes: &mut Notes,
) -> Option<(PhaseCost, PhaseReport)> {
    let (env, first) = (pf.env, pf.first);
    let c = env.nodes.get(&first).and_then(|n| match &n.data {
        NodeData::Comm(c) => Some(c),
        _ => None,
    })?;
    let src = c.size().and_then(|b| env.source(b));
    let (bytes, rep) = pf.fit_bytes(src);
    // a communicator's creation moves no data of the program's: no size to report
    if !c.op.makes_communicator() {
        notes.quantities.push(rep);
    }
    let pf = &pf.reaching(&bytes.expr);
    let op = sheet_op(c, env.machine);
    let cost = op.and_then(|s| env.machine.collective(s.op).map(|cm| (s, cm)));
    // a neighbourhood collective: a message to and from each neighbour, as the sheet's
    // point-to-point costs say (trial 29: its traced time fitted freely over N, P and the
    // steps made T blow up beyond the runs)
    let neighbours = if cost.is_none() && c.op.neighbourhood() {
        neighbours(pf, notes)
    } else {
        None
    };
    // without a sheet cost (a communicator's creation: SMPI's MPI_Comm_split takes 20 ms at
    // P = 256, O(P)), the slowest rank's traced seconds per call, as a law of the parameters
    let measured = if cost.is_none() && neighbours.is_none() {
        measured_per_call(pf, c.op.makes_communicator(), notes)
    } else {
        None
    };
    match (op, &cost) {
        (_, None) if let Some(k) = &neighbours => notes.warnings.push(format!(
            "collective {:?} at {} (site {first}): the machine sheet has no cost for it; costed as {} of a message each way with each of its neighbours ({}, traced), from the sheet's point-to-point costs",
            c.op,
            env.at(first),
            if env.machine.point_to_point.nonblocking.is_some() {
                "the nonblocking exchange"
            } else {
                "the exchange"
            },
            k.expr
        )),
        (_, None) => notes.warnings.push(match &measured {
            Some(f) => format!(
                "collective {:?} at {} (site {first}): the machine sheet has no cost for it; charged at the slowest rank's traced time per call, fitted over the runs: {}",
                c.op,
                env.at(first),
                f.expr
            ),
            None => format!(
                "collective {:?} at {} (site {first}): the machine sheet has no cost for it and the runs traced no time for it; not charged",
                c.op,
                env.at(first)
            ),
        }),
        (Some(s), Some(_)) if s.stand_in => notes.warnings.push(format!(
            "collective {:?} at {} (site {first}): the machine sheet has no cost for it; costed as {}{}",
            c.op,
            env.at(first),
            s.op.name(),
            if s.per_pair {
                " with the traced size shared evenly among the ranks of its communicator"
            } else {
                " at the traced size"
            }
        )),
        _ => {}
    }
    let group = group(
        pf,
        c.group
            .as_ref()
            .and_then(|g| env.source(&Attr::Expr(g.clone()))),
    );
    let per = BOUNDS.map(|b| match (&cost, &measured, &neighbours) {
        (Some((s, cm)), _, _) => per_call(pf, *s, cm, &bytes, &group, b),
        (None, _, Some(k)) => neighbourhood_per_call(pf, k, &bytes, b),
        (None, Some(f), None) => Expr::max(f.at(b).clone(), Expr::zero()),
        (None, None, None) => Expr::zero(),
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
    let report = PhaseReport {
        id: pf.gi,
        kind: pf.g.kind,
        sites: vec![first],
        ancestor: first,
        ancestor_line: pf.line(first),
        ancestor_file: env.file_of(first),
        lines: pf.lines([first]),
        lines_at: pf.lines_at([first]),
        processors: group.expr.clone(),
        depth: None,
        bytes: bytes.expr.clone(),
        msgs: 1.0,
        cost: per[1].clone(),
        fill: None,
        total: Expr::zero(),
        overlapped: Vec::new(),
        runs_seen: pf.g.runs.len(),
        overlaps_with: None,
    };
    let cost = PhaseCost {
        per,
        fill: BOUNDS.map(|_| Expr::zero()),
        cold: BOUNDS.map(|_| Expr::zero()),
        synchronous: true,
        ends: std::collections::BTreeMap::new(),
    };
    Some((cost, report))
}

/// The messages a neighbourhood collective posts each way, the most one processor's call
/// did, fitted over the runs and reported. None where the traces do not say (recorded before
/// the tracer kept it).
fn neighbours(pf: &PhaseFit<'_>, notes: &mut Notes) -> Option<Fitted> {
    let s = pf.by(&|pr| pr.neighbours);
    if s.values.is_empty() || s.values.iter().any(|v| *v <= 0.0) {
        return None;
    }
    let f = fit_quantity(&s, None, &[], true, pf.env.qopts);
    notes.quantities.push(super::QuantityReport {
        what: "neighbours".into(),
        site: pf.first,
        line: pf.line(pf.first),
        file: pf.env.file_of(pf.first),
        source: "traced: the messages one call posts each way (its topology's neighbours)".into(),
        fit: f.clone(),
    });
    Some(f)
}

/// A neighbourhood collective's cost per call at bound `b`: `k` messages of `bytes` each way,
/// posted together and waited for, as the sheet's nonblocking exchange costs them (Open MPI
/// posts an Irecv and an Isend per neighbour and waits for all), else its transfer and
/// `k` sends' and receives' overheads.
fn neighbourhood_per_call(pf: &PhaseFit<'_>, k: &Fitted, bytes: &Fitted, b: Bound) -> Expr {
    let pp = &pf.env.machine.point_to_point;
    let (lo, hi) = (pf.d_lo.min(pf.d_hi), pf.d_hi);
    let (d, k, two) = (bytes.at(b).clone(), k.at(b).clone(), Expr::int(2));
    let part = |cm: &CostModel| cm.piecewise(b, &d, &two, lo, hi);
    match &pp.nonblocking {
        Some(nb) => {
            let x = nb.exchange(&k, b, &d, lo, hi);
            x.wire + x.posts + x.wait
        }
        None => part(&pp.tau) + &k * (part(&pp.send_overhead) + part(&pp.recv_overhead)),
    }
}

/// A collective's cost per call from the runs: the slowest processor's mean seconds per call,
/// fitted over the runs and reported. A communicator's creation (`in_p_only`) moves none of
/// the program's data: its law is in P alone (trial 13: MPI_Cart_create's tens of µs of
/// noise fitted `1.222e-8*N^(3/4)*log2(N)^2 - …`, growing with N). None when no run traced a
/// time for it.
fn measured_per_call(pf: &PhaseFit<'_>, in_p_only: bool, notes: &mut Notes) -> Option<Fitted> {
    let mut s = pf.by(&|pr| pr.call_seconds);
    if s.values.is_empty() || s.values.iter().all(|v| *v <= 0.0) {
        return None;
    }
    // a communicator's creation: a law in P of the forms a collective's startup takes (seed
    // 002 §3: c + s·f(p)) up to a sort of the ranks' keys, p·log2(p). The free search made
    // `7.11e-11*P^3*log2(P)^2` of MPI_Comm_split's noise at P = 4, 9, 16 (0.67 ms a call at
    // P = 64 where SMPI takes 25 µs); with p² a candidate the same runs chose
    // `1.942e-8*P^2 + 1.425e-5` (94 µs at 64) over the linear law runs at 36 and 64 follow
    // (`1.847e-7*P + 1.31e-5`)
    let mut held = None;
    let f = match s.only("P").filter(|_| in_p_only) {
        Some(in_p) => {
            s = in_p;
            let mut f =
                crate::quantity::fit_law(&s, &crate::quantity::startup_laws(), pf.env.qopts);
            // a law that explains little of the traced times (a busy host's noise at P = 1, 2,
            // 4) is held at the largest traced P (trial 27: MPI_Comm_split's
            // `6.525e-5*P*log2(P) + 5.732e-5` at R² 0.23 was 60% of T at P = 64)
            let most = s
                .points
                .iter()
                .filter_map(|r| r.first().copied())
                .fold(0.0, f64::max);
            if f.r2 < crate::residual::WEAK_R2 && f.held_in_p(most) {
                held = Some((most, f.r2));
            }
            f
        }
        None => fit_quantity(&s, None, &[], false, pf.env.qopts),
    };
    notes.quantities.push(super::QuantityReport {
        what: "call".into(),
        site: pf.first,
        line: pf.line(pf.first),
        file: pf.env.file_of(pf.first),
        source: match held {
            Some((most, r2)) => format!(
                "measured: the slowest rank's seconds per call (the machine sheet has no cost for it); its law in P fits the runs weakly (R² {r2:.2}) and is held at P = {most} beyond them"
            ),
            None => "measured: the slowest rank's seconds per call (the machine sheet has no cost for it)".into(),
        },
        fit: f.clone(),
    });
    Some(f)
}

/// The ranks one call spans: the communicator's size as traced (a row of a split
/// communicator is not P), the source's where it gives one (`source`: a Cartesian
/// sub-communicator's kept extents), P where the traces have none.
fn group(pf: &PhaseFit<'_>, source: Option<Expr>) -> Fitted {
    if pf.g.runs.values().all(|pr| pr.comm_size > 0) {
        let c = vec![
            vec![Expr::var("P")],
            vec![Expr::var("P").sqrt()],
            vec![Expr::one()],
            vec![Expr::var("P"), Expr::one()],
        ];
        fit_quantity(
            &pf.by(&|pr| f64::from(pr.comm_size)),
            source.as_ref(),
            &c,
            true,
            pf.env.qopts,
        )
    } else {
        let p = Expr::var("P");
        Fitted {
            expr: p.clone(),
            lo: p.clone(),
            hi: p,
            origin: crate::quantity::Origin::Source,
            ..Fitted::constant(0.0)
        }
    }
}

/// The sheet's cost `cm` of one call at bound `b`, at the call's size over its group, in the
/// regimes the measured sizes reach (per pair at the traced P, for a per-pair stand-in).
fn per_call(
    pf: &PhaseFit<'_>,
    s: SheetOp,
    cm: &CostModel,
    bytes: &Fitted,
    group: &Fitted,
    b: crate::machine::Bound,
) -> Expr {
    let (d_lo, d_hi) = (pf.d_lo, pf.d_hi);
    let (lo, hi) = if s.per_pair {
        // the regimes the measured sizes reach per pair at the traced P
        let ps =
            pf.g.runs
                .keys()
                .map(|r| f64::from(pf.env.runs[*r].cpg.world_size.max(1)));
        let (p_lo, p_hi) = ps.fold((f64::INFINITY, 1.0f64), |(lo, hi), p| {
            (lo.min(p), hi.max(p))
        });
        (d_lo.min(d_hi) / p_hi, d_hi / p_lo.min(p_hi))
    } else {
        (d_lo.min(d_hi), d_hi)
    };
    cm.piecewise(
        b,
        &sheet_bytes(s, bytes.at(b), group.at(b)),
        group.at(b),
        lo,
        hi,
    )
}
