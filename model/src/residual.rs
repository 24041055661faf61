//! The part of the measured T that the composed model does not explain, fitted over the runs
//! as `c·(executions of a loop body)` plus one of `c0`, `c'·P`, `c''·executions·log2(P)`, with
//! non-negative coefficients, kept only when it clearly improves the fit. Rows are weighted by
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
    let mut hyps: Vec<Vec<Expr>> = vec![
        vec![Expr::one()],
        vec![Expr::var("P")],
        vec![Expr::one(), Expr::var("P")],
    ];
    // waiting that grows with the processor count per execution of a loop body (chains of
    // partners in a neighbour exchange lengthen with the grid's extent)
    let lg = Expr::var("P").log2();
    for (_, occ) in loops {
        hyps.push(vec![occ.clone()]);
        hyps.push(vec![occ.clone(), Expr::one()]);
        hyps.push(vec![occ.clone(), Expr::var("P")]);
        hyps.push(vec![occ.clone(), occ.clone() * lg.clone()]);
    }
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
    let band = |sign: f64| -> Expr {
        terms
            .iter()
            .zip(&coefs)
            .map(|(t, (c, s))| t * Expr::num((c + sign * s).max(0.0)))
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
