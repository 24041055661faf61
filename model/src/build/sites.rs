//! Stage 1 of the build: the trip count of every loop and the share of every IF's first arm,
//! each from the source where it gives one that matches the runs (a trip count, a comparison
//! of run parameters, a mean over the ranks or a loop's iterations), fitted to the traced
//! counts otherwise.

use std::collections::{BTreeMap, BTreeSet};

use apt::{IfNode, LoopNode, Node, NodeData};
use symbolic::Expr;

use super::env::{Env, Notes};
use super::QuantityReport;
use crate::observe::RunObs;
use crate::quantity::{fit_quantity, Fitted, Samples};

/// The fitted loop trip counts and branch shares, by site.
pub(super) struct SiteFits {
    pub(super) trips: BTreeMap<u32, Fitted>,
    pub(super) probs: BTreeMap<u32, Fitted>,
    /// Branch sites whose share changes with a parameter no law fits (warned as such).
    pub(super) unexplained: BTreeSet<u32>,
}

/// Fits every loop's trip count and every IF's share, in site order; reports each fit and
/// warns where the source's count holds a parameter no run set or no run recorded an arm.
pub(super) fn fit_sites(env: &Env<'_>, notes: &mut Notes) -> SiteFits {
    let mut fits = SiteFits {
        trips: BTreeMap::new(),
        probs: BTreeMap::new(),
        unexplained: BTreeSet::new(),
    };
    let outer = crate::share::enclosing(env.apt);
    let share_ctx = crate::share::Context {
        consts: &env.consts,
        params: &env.params,
        fortran: crate::share::is_fortran(env.apt),
    };
    for n in env.nodes.values() {
        let site = n.site.0;
        match &n.data {
            NodeData::Loop(l) => {
                if let Some(f) = fit_trip(env, n, l, notes) {
                    fits.trips.insert(site, f);
                }
            }
            NodeData::If(i) => {
                let s = env.samples_of(&|r| {
                    let (t, f) = (r.branch_total(site, 0), r.branch_total(site, 1));
                    (t + f > 0).then(|| t as f64 / (t + f) as f64)
                });
                let src = if i.cond.is_empty() {
                    "unresolved".to_string()
                } else {
                    i.cond.clone()
                };
                let from_source = source_branch(env, i, &s, &src, outer.get(&site), &share_ctx);
                let f = match from_source {
                    Some(q) => Some(q),
                    None => fit_branch(env, n, &s, &src, notes, &mut fits.unexplained),
                };
                if let Some((f, source)) = f {
                    notes.quantities.push(QuantityReport {
                        what: "branch".into(),
                        site,
                        line: n.line,
                        file: env.file_of(site),
                        source,
                        fit: f.clone(),
                    });
                    fits.probs.insert(site, f);
                }
            }
            _ => {}
        }
    }
    fits
}

/// A loop's trip count: the source's where no run traced the loop, else fitted to the traced
/// iterations per entry with the source's as the hypothesis (or its cap as a bound).
fn fit_trip(env: &Env<'_>, n: &Node, l: &LoopNode, notes: &mut Notes) -> Option<Fitted> {
    let site = n.site.0;
    let s = env.samples_of(&|r| {
        r.loop_totals(site)
            .filter(|(c, _)| *c > 0)
            .map(|(c, it)| it as f64 / c as f64)
    });
    let src = env.source(&l.trip).or_else(|| mean_trip(env, l));
    if s.values.is_empty() {
        return src.map(|e| {
            Fitted {
                lo: e.clone(),
                hi: e.clone(),
                ..Fitted::constant(0.0)
            }
            .with_expr(e)
        });
    }
    // a cap in the rank (`mod(rank, 4) + 1`) bounds every rank's count by its largest
    let cap = l.cap.as_ref().and_then(|c| {
        env.source(c).or_else(|| {
            let e = env.source_in_rank(c)?;
            let (most, _) = env.most_over_ranks(&e)?;
            Some(fit_quantity(&settled(&most), None, &[], true, env.qopts).expr)
        })
    });
    // a count in the rank (a block distribution's `floor(N/P) + [rank < mod(N, P)]`): the
    // traces hold its mean over the ranks, which the source gives exactly per run; fitted to
    // those exact means, the law is the source's (trial 27: `N/P` was "filled by regression")
    let ranked = src
        .is_none()
        .then(|| env.source_in_rank(&l.trip))
        .flatten()
        .and_then(|e| env.mean_over_ranks(&e))
        .filter(|m| {
            let at = |k: usize| {
                s.points
                    .get(k)
                    .and_then(|row| m.points.iter().position(|r| r == row))
            };
            (0..s.values.len()).all(|k| {
                at(k).is_some_and(|j| {
                    (m.values[j] - s.values[k]).abs() <= 1e-6 * s.values[k].abs().max(1.0)
                })
            })
        })
        .map(|m| super::phase_context::fit_whole_count(env, &m, None))
        .filter(|f| f.max_rel_err <= 1e-6);
    let from_ranks = ranked.is_some();
    let f = match (&src, &cap, ranked) {
        (None, _, Some(f)) => Fitted {
            origin: crate::quantity::Origin::Source,
            ..f
        },
        (None, Some(c), None) => crate::quantity::fit_capped(&s, c, env.qopts),
        _ => super::phase_context::fit_whole_count(env, &s, src.as_ref()),
    };
    // a count held in data that differs between entries (a multigrid level's size): its sum
    // per iteration of an enclosing loop over its entries there, where those follow laws
    let f = match (&src, &cap) {
        (None, None) if !from_ranks => super::varying::per_enclosing(
            env,
            site,
            "trip",
            &f,
            super::varying::spread(env, &[site]).as_ref(),
            &|r| r.loop_totals(site).map(|(c, it)| (it as f64, c as f64)),
            notes,
        )
        .map_or(f, |q| q.fit),
        _ => f,
    };
    // the source's count in a parameter the runs never set (a program argument
    // left at its default): T holds the traced value, and should say so
    if let (None, Some(e)) = (&src, l.trip.expr()) {
        let unset: Vec<String> = e
            .subs_all(&env.consts)
            .vars()
            .into_iter()
            .filter(|v| !env.params.contains(v) && v != "P" && v != apt::params::RANK)
            .collect();
        if !unset.is_empty() && f.expr.vars().is_empty() {
            notes.warnings.push(format!(
                "trip count at {} is {} in the source, but no run set {}: T holds it at the traced {}; profile with --param {}=… to have it in T",
                env.at(site),
                l.trip.text(),
                unset.join(", "),
                f.expr,
                unset[0]
            ));
        }
    }
    notes.quantities.push(QuantityReport {
        what: "trip".into(),
        site,
        line: n.line,
        file: env.file_of(site),
        source: match (&src, &cap) {
            _ if from_ranks => format!("{}, mean over rank = 0..P-1", l.trip.text()),
            (None, Some(c)) => format!("{} (at most {c})", l.trip.text()),
            _ => l.trip.text(),
        },
        fit: f.clone(),
    });
    Some(f)
}

/// The samples at the two largest P, where they give the same value at the same other
/// parameters (a bound that settles as P grows: the largest of `mod(rank, 4) + 1` over the
/// ranks is 2 at P = 2 and 4 from P = 4 on, which a law through every run would bend); else
/// all of them.
pub(super) fn settled(s: &Samples) -> Samples {
    let Some(pi) = s.params.iter().position(|v| v == "P") else {
        return s.clone();
    };
    let mut ps: Vec<f64> = s.points.iter().map(|x| x[pi]).collect();
    ps.sort_by(f64::total_cmp);
    ps.dedup();
    let top: Vec<f64> = ps.iter().rev().take(2).copied().collect();
    let mut out = Samples::new(s.params.clone());
    for (x, v) in s.points.iter().zip(&s.values) {
        if top.contains(&x[pi]) {
            out.push(x.clone(), *v);
        }
    }
    let others = |x: &[f64]| -> Vec<f64> {
        x.iter()
            .enumerate()
            .filter(|(k, _)| *k != pi)
            .map(|(_, v)| *v)
            .collect()
    };
    let agree = out.points.iter().zip(&out.values).all(|(x, v)| {
        out.points
            .iter()
            .zip(&out.values)
            .filter(|(y, _)| others(y) == others(x))
            .all(|(_, w)| (w - v).abs() <= 1e-9 * v.abs().max(1.0))
    });
    if ps.len() >= 3 && agree {
        out
    } else {
        s.clone()
    }
}

/// The mean trip per entry of a loop whose count the source gives in an enclosing loop's
/// variable (a tile `min(l0 + NB - 1, N) - l0 + 1`, an FFT's butterflies `len/2`): apt's
/// total over those loops (and the loops between) divided by the loop's entries there, in
/// parameters only.
fn mean_trip(env: &Env<'_>, l: &LoopNode) -> Option<Expr> {
    env.source(l.trip_mean.as_ref()?)
}

/// An IF's share from its condition, with the report's source text: the condition's own 0/1
/// value, or its mean over the ranks or a loop's iterations, where it gives every traced share
/// (`s`).
fn source_branch(
    env: &Env<'_>,
    i: &IfNode,
    s: &Samples,
    src: &str,
    outer: Option<&Vec<crate::share::Outer>>,
    share_ctx: &crate::share::Context<'_>,
) -> Option<(Fitted, String)> {
    // a condition on run parameters alone is its own probability, 0 or 1 per run:
    // taken when it matches every traced share, or when the traces have none (an
    // arm codegen could not mark)
    let ind = (i.unresolved.is_none() && i.vars.iter().all(|v| env.params.contains(v)))
        .then(|| indicator(&i.cond))
        .flatten()
        // with no traced share to check it against, only a comparison of integer
        // polynomials (no C integer division the symbolic sides would make exact)
        .filter(|(_, integral)| *integral || !s.values.is_empty())
        .map(|(e, _)| e);
    if let Some(e) = ind.filter(|e| {
        s.points.iter().zip(&s.values).all(|(row, v)| {
            let at = |name: &str| s.params.iter().position(|p| p == name).map(|k| row[k]);
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
        return Some((f, src.to_string()));
    }
    // a condition on the rank, or on a loop index through `mod`: its mean over the
    // ranks or the iterations, where it gives every traced share
    let d = outer
        .filter(|_| i.unresolved.is_none())
        .and_then(|o| crate::share::source_share(&i.cond, o, share_ctx, s))?;
    let f = Fitted {
        lo: d.expr.clone(),
        hi: d.expr.clone(),
        points: s.values.len(),
        ..Fitted::constant(0.0)
    }
    .with_expr(d.expr);
    Some((f, format!("{src}, mean over {}", d.over)))
}

/// An IF's share fitted to the traced shares `s` (a constant, or with a term in 1/P or
/// 1/sqrt(P)); none, with a warning when arms under it ran, where no run recorded an arm.
/// A share that changes with a parameter no law fits is warned about and put in
/// `unexplained`.
fn fit_branch(
    env: &Env<'_>,
    n: &Node,
    s: &Samples,
    src: &str,
    notes: &mut Notes,
    unexplained: &mut BTreeSet<u32>,
) -> Option<(Fitted, String)> {
    let site = n.site.0;
    if s.values.is_empty() && ran_under(n, env.runs) {
        notes.warnings.push(format!(
            "branch at {} (site {site}): no run recorded which arm it took (`{}`), so its arms are not charged",
            env.at(site),
            src
        ));
    }
    if s.values.is_empty() {
        return None;
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
    let mut f = crate::quantity::fit_probability(s, &cands[..2]);
    if f.r2 < 0.99 {
        f = crate::quantity::fit_probability(s, &cands);
    }
    if f.r2 < 0.99 {
        if let Some(r) = count_ratio(env, site) {
            f = r;
        }
    }
    if let Some(why) = crate::quantity::share_unexplained(s, &f) {
        notes.warnings.push(format!(
            "branch at {} (site {site}, `{}`): {why}",
            env.at(site),
            src
        ));
        unexplained.insert(site);
    }
    Some((f, src.to_string()))
}

/// A share that is a ratio of counts, each exact in the parameters: the arm taken T times and
/// the other F times, T and F counters fitted as trip counts are, the share T/(T + F) (a
/// worker's `tag == STOP`, taken P − 1 times against NTASKS; a master's `next < ntask`, NTASK
/// against P − 1: trial 21 read "no law fits it"). None unless both laws give every run within
/// the exact tolerance.
fn count_ratio(env: &Env<'_>, site: u32) -> Option<Fitted> {
    let arm = |a: i32| {
        env.samples_of(&|r| {
            let (t, f) = (r.branch_total(site, 0), r.branch_total(site, 1));
            (t + f > 0).then_some(r.branch_total(site, a) as f64)
        })
    };
    let exact = |s: &crate::quantity::Samples| {
        let f = crate::quantity::fit_quantity(s, None, &[], true, env.qopts);
        (f.max_rel_err <= env.qopts.exact_tol && s.values.len() >= 2).then_some(f)
    };
    let (taken, other) = (arm(0), arm(1));
    let (t, f) = (exact(&taken)?, exact(&other)?);
    let share = Expr::min(
        Expr::one(),
        Expr::max(
            Expr::zero(),
            t.expr.clone() / (t.expr.clone() + f.expr.clone()),
        ),
    );
    Some(Fitted {
        lo: share.clone(),
        hi: share.clone(),
        expr: share,
        origin: crate::quantity::Origin::Regression,
        r2: 1.0,
        max_rel_err: t.max_rel_err + f.max_rel_err,
        points: taken.values.len(),
    })
}

/// Whether some run executed a loop, computation or call under `n`'s arms (an IF whose arms
/// ran though no arm count was recorded: its arms were not marked).
pub(super) fn ran_under(n: &Node, runs: &[RunObs]) -> bool {
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
/// min(1, max(0, d + 1)), `==` is max(0, min(1 − d, 1 + d)) and `!=` min(1, max(d, −d)). None for
/// anything else (a compound condition, a side that does not parse). Beside it, whether both
/// sides are polynomials with integer coefficients (then it is exact for integer parameters;
/// `N / 2 == 3` is not, C divides integers).
pub(crate) fn indicator(cond: &str) -> Option<(Expr, bool)> {
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
        // one atom, max(0, 1 − |d|): as 1 − min(1, |d|) a product distributed its 1 over
        // the arm's terms (trial 18's farm: the serial arm at P == 1 read as −1394% of T)
        "==" => Expr::max(
            Expr::zero(),
            Expr::min(Expr::one() - (&r - &l), Expr::one() + (r - l)),
        ),
        _ => Expr::min(Expr::one(), abs(r - l)),
    };
    Some((e, exact))
}

/// A condition's 0/1 value as an expression: comparisons by their indicator, joined by `||`
/// (1 − Π(1 − x)), `&&` (Π x) and `!(…)` (1 − x), as the source analysis writes them. None
/// where a part does not read.
pub(crate) fn truth(cond: &str) -> Option<Expr> {
    let cond = cond.trim();
    // split at an operator outside parentheses
    let split = |op: &str| -> Option<Vec<&str>> {
        let (mut depth, mut parts, mut start) = (0i32, Vec::new(), 0);
        let bytes = cond.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            match bytes[i] {
                b'(' => depth += 1,
                b')' => depth -= 1,
                _ if depth == 0 && cond[i..].starts_with(op) => {
                    parts.push(&cond[start..i]);
                    i += op.len();
                    start = i;
                    continue;
                }
                _ => {}
            }
            i += 1;
        }
        parts.push(&cond[start..]);
        (parts.len() > 1).then_some(parts)
    };
    if let Some(parts) = split("||") {
        let none = parts
            .iter()
            .map(|p| truth(p).map(|x| Expr::one() - x))
            .collect::<Option<Vec<_>>>()?;
        return Some(Expr::one() - none.into_iter().fold(Expr::one(), |a, b| a * b));
    }
    if let Some(parts) = split("&&") {
        let all = parts.iter().map(|p| truth(p)).collect::<Option<Vec<_>>>()?;
        return Some(all.into_iter().fold(Expr::one(), |a, b| a * b));
    }
    fn inner(s: &str) -> Option<&str> {
        s.strip_prefix('(').and_then(|s| s.strip_suffix(')'))
    }
    if let Some(rest) = cond.strip_prefix('!').and_then(inner) {
        return Some(Expr::one() - truth(rest)?);
    }
    if let Some(rest) = inner(cond) {
        if let Some(x) = truth(rest) {
            return Some(x);
        }
    }
    indicator(cond).map(|(e, _)| e)
}
