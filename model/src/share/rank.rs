//! A condition on the rank (with P and constants): its share of the ranks that reach it as a
//! closed form in P, each candidate checked by counting the condition exactly at many P.

use std::collections::BTreeSet;

use symbolic::{Atom, Expr};

use super::comparison::Comparison;
use super::{Context, Outer};

/// Ranks counted for the closed forms: every P up to 64 and the traced ones up to 2^14.
pub(super) fn rank_grid(traced: &[i64]) -> Vec<i64> {
    let mut ps: BTreeSet<i64> = (1..=64).collect();
    ps.extend(traced.iter().copied().filter(|p| (1..=1 << 14).contains(p)));
    ps.into_iter().collect()
}

/// How a condition's quotients of the rank are read: apt writes an integer division exact
/// (`rank/dims(P, 2, 1)`), the program truncates it (the grid row, `floor(rank/dims(P, 2, 1))`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Division {
    /// As the program divides integers ([`Comparison::truncating`]).
    Truncating,
    /// As apt writes it; only where that differs from [`Division::Truncating`] (a quotient
    /// the program takes as a real, `(double)rank / py`).
    Exact,
}

/// The mean over the ranks that reach the IF (those where every enclosing arm that reads the
/// rank is taken as the path to it says) of conditions `all` on the rank, P and constants
/// that must all hold (a conjunction), with their quotients of the rank read as `div` says;
/// beside it, whether some enclosing arm reads the rank.
pub(super) fn rank_share(
    all: &[Comparison],
    outer: &[Outer],
    ctx: &Context<'_>,
    traced: &[i64],
    div: Division,
) -> Option<(Expr, bool)> {
    let rank = apt::params::RANK;
    let on_rank = |v: &BTreeSet<String>| v.iter().all(|x| x == rank || x == "P");
    if all.is_empty() || !all.iter().all(|c| on_rank(&c.vars())) {
        return None;
    }
    let mut guards: Vec<(Comparison, bool)> = Vec::new();
    for o in outer {
        match o {
            Outer::If {
                cond,
                symbolic,
                vars,
                taken,
            } if vars.contains(rank) => {
                if !symbolic {
                    return None;
                }
                let g = Comparison::parse(cond)?.subs(ctx.consts);
                if !on_rank(&g.vars()) {
                    return None;
                }
                guards.push((g, *taken));
            }
            // a loop whose count differs between ranks weighs their evaluations unequally
            Outer::Loop { trip, .. } => {
                if trip.expr().is_some_and(|t| t.contains_var(rank)) {
                    return None;
                }
            }
            Outer::If { .. } => {}
        }
    }
    let mut truncates = false;
    let mut read = |c: &Comparison| match c.truncating(rank) {
        Some(t) if div == Division::Truncating => {
            truncates = true;
            t
        }
        Some(_) => {
            truncates = true;
            c.clone()
        }
        None => c.clone(),
    };
    let all: Vec<Comparison> = all.iter().map(&mut read).collect();
    let guards: Vec<(Comparison, bool)> = guards.iter().map(|(g, t)| (read(g), *t)).collect();
    if div == Division::Exact && !truncates {
        return None;
    }
    let conds: Vec<&Comparison> = all.iter().chain(guards.iter().map(|(g, _)| g)).collect();
    let mut ks: Vec<Expr> = vec![Expr::int(2)];
    for k in conds.iter().flat_map(|g| g.divisors_of(rank)) {
        // a whole constant, or an extent in P (`rank mod dims(P, 2, 1)`: a grid column)
        let usable = match k.as_const() {
            Some(v) => v.fract() == 0.0 && (2.0..=64.0).contains(&v),
            None => k.vars().iter().all(|v| v == "P"),
        };
        if usable && !ks.contains(&k) {
            ks.push(k);
        }
    }
    // every extent of a grid the conditions read (`floor(rank/dims(P, 2, 1)) >= 1`, a grid
    // row below the first, is counted through dims(P, 2, 1) itself)
    for g in &conds {
        for k in grid_extents(&g.lhs).into_iter().chain(grid_extents(&g.rhs)) {
            if !ks.contains(&k) {
                ks.push(k);
            }
        }
    }
    let grid = rank_grid(traced);
    // extents that divide P wherever counted (a grid's): P/K is whole, no rounding needed
    let exact: Vec<Expr> = ks
        .iter()
        .filter(|k| k.as_const().is_none() && divides_p(k, &grid))
        .cloned()
        .collect();
    let mut reach = Vec::with_capacity(grid.len());
    let mut take = Vec::with_capacity(grid.len());
    for &p in &grid {
        let (mut n, mut t) = (0i64, 0i64);
        for r in 0..p {
            let at = |v: &str| match v {
                "P" => Some(p as f64),
                x if x == rank => Some(r as f64),
                _ => None,
            };
            let mut reached = true;
            for (g, taken) in &guards {
                reached &= g.holds(&at)? == *taken;
            }
            if reached {
                n += 1;
                let mut holds = true;
                for c in &all {
                    holds &= c.holds(&at)?;
                }
                t += i64::from(holds);
            }
        }
        reach.push(n);
        take.push(t);
    }
    let reached: Vec<usize> = (0..grid.len()).filter(|&k| reach[k] > 0).collect();
    if reached.is_empty() {
        return None;
    }
    let guarded = !guards.is_empty();
    if reached.iter().all(|&k| take[k] == reach[k]) {
        return Some((Expr::one(), guarded));
    }
    if take.iter().all(|&t| t == 0) {
        return Some((Expr::zero(), guarded));
    }
    let cands = rank_counts(&ks, &exact);
    let pick = |want: &[i64]| {
        cands
            .iter()
            .find(|e| {
                grid.iter().zip(want).all(|(&p, &w)| {
                    e.eval(&|v| (v == "P").then_some(p as f64))
                        .is_ok_and(|x| (x - w as f64).abs() < 1e-9)
                })
            })
            .cloned()
    };
    let (num, den) = (pick(&take)?, pick(&reach)?);
    let den = if reach.contains(&0) {
        Expr::max(den, Expr::one())
    } else {
        den
    };
    Some((num / den, guarded))
}

/// The extents `dims(n, d, j)`, j = 0..d-1, of every grid `dims(n, d, k)` with `n` in P alone
/// that `e` reads (inside rounding too), in order of first appearance.
pub(super) fn grid_extents(e: &Expr) -> Vec<Expr> {
    pub(super) fn walk(e: &Expr, out: &mut Vec<Expr>) {
        for t in e.terms() {
            for (a, _) in t.factors() {
                match a {
                    Atom::Dims { n, d, rule, .. } if n.vars().iter().all(|v| v == "P") => {
                        for j in 0..*d {
                            if let Some(k) = Expr::dims_by(*rule, n, *d, j) {
                                if !out.contains(&k) {
                                    out.push(k);
                                }
                            }
                        }
                    }
                    Atom::Dims { n, .. } | Atom::Log2(n) | Atom::Ceil(n) | Atom::Floor(n) => {
                        walk(n, out)
                    }
                    Atom::Pow(b) => walk(b, out),
                    Atom::Max(args) | Atom::Min(args) => args.iter().for_each(|x| walk(x, out)),
                    Atom::Var(_) => {}
                }
            }
        }
    }
    let mut out = Vec::new();
    walk(e, &mut out);
    out
}

/// Whether P/K is a whole number at every P of `grid` (a grid extent: the extents' product is P).
pub(super) fn divides_p(k: &Expr, grid: &[i64]) -> bool {
    let q = Expr::var("P") / k.clone();
    grid.iter().all(|&p| {
        q.eval(&|v| (v == "P").then_some(p as f64))
            .is_ok_and(|x| x >= 1.0 - 1e-9 && (x - x.round()).abs() < 1e-9)
    })
}

/// Closed forms a count of ranks takes, simplest first: 1, P − c, min(P, 2); for each extent
/// K that divides P (`exact`: a process grid's) the ranks of one grid column or row and the
/// others, P/K and P − P/K, then K and P − K, then those off both edges, max(P − 2P/K, 0), max(P − 2K, 0);
/// and for each divisor K the ranks of one residue, ceil((P − c)/K) and floor((P − c)/K), and
/// the others.
pub(super) fn rank_counts(ks: &[Expr], exact: &[Expr]) -> Vec<Expr> {
    let p = Expr::var("P");
    let zero_floor = |e: Expr| Expr::max(e, Expr::zero());
    let mut out = vec![
        Expr::one(),
        p.clone(),
        p.clone() - Expr::one(),
        zero_floor(p.clone() - Expr::int(2)),
        Expr::min(p.clone(), Expr::int(2)),
    ];
    // P/K first: a share 1/K or 1 − 1/K reads better than K/P (the grid's other extents
    // are tried as K too)
    for k in exact {
        let per = p.clone() / k.clone();
        out.extend([per.clone(), p.clone() - per]);
    }
    for k in exact {
        out.extend([k.clone(), p.clone() - k.clone()]);
    }
    for k in exact {
        let per = p.clone() / k.clone();
        out.extend([
            zero_floor(p.clone() - Expr::int(2) * per),
            zero_floor(p.clone() - Expr::int(2) * k.clone()),
        ]);
    }
    let mut others = Vec::new();
    for k in ks {
        for c in 0..=2 {
            let x = (p.clone() - Expr::int(c)) / k.clone();
            for e in [x.ceil(), x.floor()] {
                // floor((1 - 2)/2) is -1 at P = 1, where no rank is counted
                let e = if c == 2 { zero_floor(e) } else { e };
                others.push(p.clone() - e.clone());
                out.push(e);
            }
        }
    }
    out.extend(others);
    out
}
