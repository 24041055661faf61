//! The floor of a computation's cost: a loop that rewrites data a send has just given to
//! another core cannot run faster than the machine sheet's rewrite time, so its cost is
//! `max(law, floor)`, the law fitted to the runs the floor does not govern.

use symbolic::fit::{self, FitOptions, FitResult};
use symbolic::Expr;

use super::{from_fit, loo_score, Fitted, Origin, Samples};

/// The least time per entry of a loop that rewrites data a send has just given to another core
/// (the machine sheet's `rewrite` at the message size, 0 where the phase does not
/// communicate), bounds min, avg, max.
#[derive(Debug, Clone)]
pub struct Floor {
    pub bounds: [Expr; 3],
    /// The source shows the loop writes what the send sent (else it only may: unknown writes
    /// or an unknown buffer).
    pub proven: bool,
}

/// The cost per entry `max(law, floor)` of a loop that cannot run faster than `floor`: each
/// law of `laws` fitted to the runs it governs (where it comes out at or above the floor; a run
/// the floor governs says nothing about the law), alternating until that set settles, from the
/// runs where the floor is under half the measured cost. The law with the least leave-one-out
/// error of `max(law, floor)`, that fit (its `loo_rel_error` that of the max) and the cost.
/// An unproven floor (a candidate) that comes within half of no run is no candidate: `None`.
/// A proven one stays even then (it may govern sizes the runs did not reach); where it
/// governs every run, the law is fitted to the runs above it, else to all (what the runs say
/// of the law is then only that it is no larger). `None` also when no law has non-negative
/// coefficients on every subset, or the floor does not evaluate.
pub(super) fn floored(
    s: &Samples,
    laws: &[Vec<Expr>],
    opts: &FitOptions,
    floor: &Floor,
) -> Option<(FitResult, Fitted)> {
    let params: Vec<&str> = s.params.iter().map(String::as_str).collect();
    let at = |e: &Expr, i: usize| {
        e.eval(&|n| params.iter().position(|x| *x == n).map(|k| s.points[i][k]))
            .unwrap_or(f64::NAN)
    };
    let n = s.values.len();
    let fl: Vec<f64> = (0..n).map(|i| at(&floor.bounds[1], i)).collect();
    if fl.iter().any(|f| !f.is_finite())
        || (!floor.proven && (0..n).all(|i| fl[i] < 0.5 * s.values[i]))
    {
        return None;
    }
    let fit_on = |law: &[Expr], idx: &[usize]| -> Option<FitResult> {
        // start from the runs the floor clearly does not govern: a law fitted to runs the floor
        // does govern could claim them (a term that grows where the phase communicates)
        let from = |keep: &dyn Fn(usize) -> bool| -> Vec<usize> {
            idx.iter().copied().filter(|&i| keep(i)).collect()
        };
        let mut set = from(&|i| fl[i] <= 0.5 * s.values[i]);
        if floor.proven && set.len() < law.len() {
            set = from(&|i| fl[i] < s.values[i]);
            if set.len() < law.len() {
                set = idx.to_vec();
            }
        }
        for _ in 0..8 {
            if set.len() < law.len() {
                return None;
            }
            let pts: Vec<Vec<f64>> = set.iter().map(|&i| s.points[i].clone()).collect();
            let vals: Vec<f64> = set.iter().map(|&i| s.values[i]).collect();
            let r = fit::fit_terms(law, &params, &pts, &vals, opts).ok()?;
            if r.coeffs
                .iter()
                .any(|c| !(c.coef >= 0.0 && c.coef.is_finite()))
            {
                return None;
            }
            let next: Vec<usize> = idx
                .iter()
                .copied()
                .filter(|&i| at(&r.expr, i) >= fl[i])
                .collect();
            if next == set {
                return Some(r);
            }
            set = next;
        }
        None
    };
    let all: Vec<usize> = (0..n).collect();
    let mut best: Option<(f64, FitResult)> = None;
    for law in laws {
        let Some(mut r) = fit_on(law, &all) else {
            continue;
        };
        let mut loo = 0.0;
        for (i, (&y, &f)) in s.values.iter().zip(&fl).enumerate() {
            let rest: Vec<usize> = all.iter().copied().filter(|&j| j != i).collect();
            let Some(ri) = fit_on(law, &rest) else {
                loo = f64::INFINITY;
                break;
            };
            loo += (y - at(&ri.expr, i).max(f)).abs() / y.abs().max(f64::MIN_POSITIVE);
        }
        r.loo_rel_error = loo / n.max(1) as f64;
        let score = loo_score(&r);
        if loo.is_finite() && best.as_ref().is_none_or(|(b, _)| score < *b) {
            best = Some((score, r));
        }
    }
    let (_, r) = best?;
    let pred: Vec<f64> = (0..n).map(|i| at(&r.expr, i).max(fl[i])).collect();
    let mean = s.values.iter().sum::<f64>() / n.max(1) as f64;
    let ss_tot: f64 = s.values.iter().map(|y| (y - mean).powi(2)).sum();
    let ss_res: f64 = s
        .values
        .iter()
        .zip(&pred)
        .map(|(y, p)| (y - p).powi(2))
        .sum();
    let law = from_fit(&r, Origin::SourceScaled, n);
    let f = Fitted {
        expr: Expr::max(law.expr, floor.bounds[1].clone()),
        lo: Expr::max(law.lo, floor.bounds[0].clone()),
        hi: Expr::max(law.hi, floor.bounds[2].clone()),
        r2: if ss_tot > 0.0 {
            1.0 - ss_res / ss_tot
        } else if ss_res == 0.0 {
            1.0
        } else {
            0.0
        },
        max_rel_err: s
            .values
            .iter()
            .zip(&pred)
            .map(|(y, p)| ((y - p) / y).abs())
            .filter(|v| v.is_finite())
            .fold(0.0, f64::max),
        ..law
    };
    Some((r, f))
}
