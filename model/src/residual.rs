//! The part of the measured T that the composed model does not explain, fitted over the runs
//! as `c·(executions of a loop body)` plus one of `c0`, `c'·P`, `c''·executions·log2(P)` (the
//! laws in P only from runs at two P or more), with non-negative coefficients, kept only when
//! it clearly improves the fit. Rows are weighted by
//! 1/T (relative error), through a pseudo-parameter holding the measured T.

use symbolic::fit::{fit_terms, FitOptions, Weighting};
use symbolic::Expr;

use crate::observe::RunObs;
use crate::quantity::{Fitted, Origin};

/// (score, terms, (coefficient, standard error) per term, R²).
type Candidate = (f64, Vec<Expr>, Vec<(f64, f64)>, f64);

const TCOL: &str = "T_measured";

fn rel_err(model: &[f64], runs: &[RunObs]) -> f64 {
    model
        .iter()
        .zip(runs)
        .map(|(m, r)| ((m - r.time) / r.time).abs())
        .sum::<f64>()
        / runs.len().max(1) as f64
}

/// Mean |y_i − ŷ_i| over the points, each ŷ_i from the terms refitted without point i; `None`
/// when some refit fails.
fn loo_abs_error(
    terms: &[Expr],
    names: &[&str],
    points: &[Vec<f64>],
    values: &[f64],
    opts: &FitOptions,
) -> Option<f64> {
    let mut sum = 0.0;
    for i in 0..points.len() {
        let (mut p, mut v) = (points.to_vec(), values.to_vec());
        let (row, y) = (p.remove(i), v.remove(i));
        let r = fit_terms(terms, names, &p, &v, opts).ok()?;
        let pred = r
            .expr
            .eval(&|n| names.iter().position(|x| *x == n).map(|k| row[k]))
            .ok()?;
        sum += (y - pred).abs();
    }
    Some(sum / points.len() as f64)
}

/// The residual's candidate laws: a constant, and per loop its body's executions alone or with
/// a constant; laws in P (c'·P, executions with P or with executions·log2(P)) only from runs at
/// two P or more: at one P such a law is a constant under another name, and grows without
/// evidence beyond it.
fn hypotheses(loops: &[(u32, Expr)], runs: &[RunObs]) -> Vec<Vec<Expr>> {
    let mut ps: Vec<usize> = runs.iter().map(RunObs::p).collect();
    ps.sort_unstable();
    ps.dedup();
    let in_p = ps.len() > 1;
    let mut hyps: Vec<Vec<Expr>> = vec![vec![Expr::one()]];
    if in_p {
        hyps.push(vec![Expr::var("P")]);
        hyps.push(vec![Expr::one(), Expr::var("P")]);
    }
    // waiting that grows with the processor count per execution of a loop body (chains of
    // partners in a neighbour exchange lengthen with the grid's extent)
    let lg = Expr::var("P").log2();
    for (_, occ) in loops {
        hyps.push(vec![occ.clone()]);
        hyps.push(vec![occ.clone(), Expr::one()]);
        if in_p {
            hyps.push(vec![occ.clone(), Expr::var("P")]);
            hyps.push(vec![occ.clone(), occ.clone() * lg.clone()]);
        }
    }
    hyps
}

/// Returns the fitted extra term and its number of terms, or `None` when none helps.
pub fn fit_residual(
    t: &Expr,
    loops: &[(u32, Expr)],
    runs: &[RunObs],
    params: &[String],
) -> Option<(Fitted, usize)> {
    if runs.len() < 4 {
        return None;
    }
    let mut names: Vec<&str> = params.iter().map(String::as_str).collect();
    names.push(TCOL);
    let points: Vec<Vec<f64>> = runs
        .iter()
        .map(|r| {
            params
                .iter()
                .map(|p| r.params.get(p).copied().unwrap_or(0.0))
                .chain([r.time])
                .collect()
        })
        .collect();
    let at = |e: &Expr, row: &[f64]| {
        e.eval(&|n| names.iter().position(|x| *x == n).map(|i| row[i]))
            .unwrap_or(f64::NAN)
    };
    let model: Vec<f64> = points.iter().map(|row| at(t, row)).collect();
    if model.iter().any(|v| !v.is_finite()) {
        return None;
    }
    let values: Vec<f64> = model
        .iter()
        .zip(runs)
        .map(|(m, r)| (r.time - m) / r.time)
        .collect();
    let base = rel_err(&model, runs);
    let tv = Expr::var(TCOL);
    let hyps = hypotheses(loops, runs);
    let opts = FitOptions {
        weighting: Weighting::Absolute,
        ..Default::default()
    };
    let mut best: Option<Candidate> = None;
    for h in hyps {
        let scaled: Vec<Expr> = h.iter().map(|e| e / &tv).collect();
        let Ok(r) = fit_terms(&scaled, &names, &points, &values, &opts) else {
            continue;
        };
        if r.coeffs.iter().any(|c| c.coef < 0.0) {
            continue;
        }
        // mean relative error of T on held-out runs (the term refitted without each run),
        // penalised per term: a term that only bends the fit towards a few runs (a c'·P fitted
        // to host noise at P = 16 reads as 10 ms at P = 256) does not predict the others
        let Some(held_out) = loo_abs_error(&scaled, &names, &points, &values, &opts) else {
            continue;
        };
        let score = held_out * (1.0 + 0.1 * h.len() as f64);
        if best.as_ref().is_none_or(|b| score < b.0) {
            best = Some((
                score,
                h,
                r.coeffs.iter().map(|c| (c.coef, c.stderr)).collect(),
                r.r2,
            ));
        }
    }
    let (score, terms, coefs, r2) = best?;
    if score >= 0.8 * base {
        return None;
    }
    let largest = coefs.iter().map(|(c, _)| c.abs()).fold(0.0, f64::max);
    let band = |sign: f64| -> Expr {
        terms
            .iter()
            .zip(&coefs)
            .map(|(t, (c, s))| {
                t * Expr::num(crate::quantity::bound(*c, *s, sign, largest).max(0.0))
            })
            .sum()
    };
    let expr = band(0.0);
    let with: Vec<f64> = points.iter().map(|row| at(&(t + &expr), row)).collect();
    let max_rel_err = with
        .iter()
        .zip(runs)
        .map(|(m, r)| ((m - r.time) / r.time).abs())
        .fold(0.0, f64::max);
    Some((
        Fitted {
            expr,
            lo: band(-1.0),
            hi: band(1.0),
            origin: Origin::Regression,
            r2,
            max_rel_err,
            points: runs.len(),
        },
        terms.len(),
    ))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use std::collections::BTreeMap;

    use super::*;
    use crate::observe::RankObs;

    fn run(n: f64, p: usize, time: f64) -> RunObs {
        RunObs {
            config: format!("N={n},P={p}"),
            params: BTreeMap::from([("N".to_string(), n), ("P".to_string(), p as f64)]),
            smpi: true,
            ranks: vec![RankObs::default(); p],
            cpg: cpg::RunSummary::default(),
            time,
            repeated: 1,
        }
    }

    /// Runs all at P = 12 (a check set at one processor count): the unexplained time is a
    /// law in N per loop body and a constant, never c·P, which reads as a constant here and
    /// grows without evidence beyond (trial 7: 2.935e-4*P from such runs).
    #[test]
    fn runs_at_one_p_give_no_law_in_p() {
        let runs: Vec<RunObs> = [1000.0, 2000.0, 4000.0, 8000.0, 16000.0]
            .iter()
            .map(|&n| run(n, 12, 3.5e-3 + 2e-7 * n))
            .collect();
        let params = vec!["N".to_string(), "P".to_string()];
        let loops = vec![(1, Expr::var("N"))];
        let (fit, _) = fit_residual(&Expr::zero(), &loops, &runs, &params).unwrap();
        assert!(!fit.expr.vars().contains("P"), "{}", fit.expr);
        assert!(hypotheses(&loops, &runs)
            .iter()
            .flatten()
            .all(|t| !t.vars().contains("P")));
        // at several P the same residual may take a law in P
        let runs: Vec<RunObs> = [
            (1000.0, 2),
            (2000.0, 4),
            (4000.0, 8),
            (8000.0, 16),
            (16000.0, 32),
        ]
        .iter()
        .map(|&(n, p)| run(n, p, 1e-4 * p as f64 + 2e-7 * n))
        .collect();
        let (fit, _) = fit_residual(&Expr::zero(), &loops, &runs, &params).unwrap();
        assert!(fit.expr.vars().contains("P"), "{}", fit.expr);
    }
}
