//! Least-squares fitting of measured values onto candidate terms, with model selection by
//! leave-one-out cross-validation on relative error (as Extra-P does), and a PMNF search.
//!
//! Points are rows of parameter values in the order of `params`; every term is an expression
//! over those parameters. Terms are used as given: include `1` for a constant.

mod lsq;
mod pmnf;
#[cfg(test)]
mod tests;

pub use pmnf::{search_pmnf, PMNF_EXPONENTS, PMNF_LOG_EXPONENTS};

use crate::{Compiled, EvalError, Expr};
use serde::Serialize;

/// How residuals are weighted in the least-squares objective.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Weighting {
    /// Minimise relative residuals (y − ŷ)/y: right for timings spanning orders of magnitude.
    #[default]
    Relative,
    /// Ordinary least squares.
    Absolute,
}

/// Options for fitting and search (config struct, no bool parameters).
#[derive(Clone, Debug)]
pub struct FitOptions {
    pub weighting: Weighting,
    /// PMNF: single-parameter terms kept per parameter before combining parameters.
    pub top_per_param: usize,
    /// PMNF: parameters whose terms may also decrease, X^-a·log2(X)^b (strong scaling in P:
    /// `N^2/P`); Extra-P's sets are non-negative only.
    pub inverse_params: Vec<String>,
}

impl Default for FitOptions {
    fn default() -> Self {
        FitOptions {
            weighting: Weighting::Relative,
            top_per_param: 3,
            inverse_params: Vec::new(),
        }
    }
}

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum FitError {
    #[error("no data points")]
    Empty,
    #[error("point {index} has {got} values, expected {expected} (one per parameter)")]
    Shape {
        index: usize,
        got: usize,
        expected: usize,
    },
    #[error("{points} points cannot determine {terms} coefficients: need at least as many points as terms")]
    TooFewPoints { points: usize, terms: usize },
    #[error("value or parameter at point {index} is not a finite number")]
    NonFinite { index: usize },
    #[error("term `{term}` is not finite at point {index}")]
    TermNotFinite { term: String, index: usize },
    #[error("the terms are linearly dependent on these points (e.g. a term that is constant here, or a repeated term)")]
    Singular,
    #[error("no candidate terms")]
    NoTerms,
    #[error(transparent)]
    Eval(#[from] EvalError),
}

/// One fitted term.
#[derive(Clone, Debug, Serialize)]
pub struct FitTerm {
    pub term: Expr,
    pub coef: f64,
    pub stderr: f64,
}

/// A fitted model and its quality.
#[derive(Clone, Debug, Serialize)]
pub struct FitResult {
    /// Σ coef·term.
    pub expr: Expr,
    pub coeffs: Vec<FitTerm>,
    /// Coefficient of determination on the raw values.
    pub r2: f64,
    /// Mean |y − ŷ₋ᵢ|/|y| with ŷ₋ᵢ predicted by the model refitted without point i.
    pub loo_rel_error: f64,
    /// y − ŷ per point.
    pub residuals: Vec<f64>,
    /// (y − ŷ)/y per point.
    pub rel_residuals: Vec<f64>,
    /// How many hypotheses were fitted to choose this one (1 for a plain fit).
    pub hypotheses: usize,
}

fn check_data(params: &[&str], points: &[Vec<f64>], values: &[f64]) -> Result<(), FitError> {
    if points.is_empty() || values.is_empty() {
        return Err(FitError::Empty);
    }
    if points.len() != values.len() {
        return Err(FitError::Shape {
            index: points.len().min(values.len()),
            got: 0,
            expected: params.len(),
        });
    }
    for (i, (p, v)) in points.iter().zip(values).enumerate() {
        if p.len() != params.len() {
            return Err(FitError::Shape {
                index: i,
                got: p.len(),
                expected: params.len(),
            });
        }
        if !v.is_finite() || p.iter().any(|x| !x.is_finite()) {
            return Err(FitError::NonFinite { index: i });
        }
    }
    Ok(())
}

/// Column `j` = term `j` evaluated at every point.
pub(crate) fn design(
    terms: &[Expr],
    params: &[&str],
    points: &[Vec<f64>],
) -> Result<Vec<Vec<f64>>, FitError> {
    let compiled: Vec<Compiled> = terms
        .iter()
        .map(|t| Compiled::new(t, params))
        .collect::<Result<_, _>>()?;
    let mut rows = Vec::with_capacity(points.len());
    for (i, p) in points.iter().enumerate() {
        let mut row = Vec::with_capacity(terms.len());
        for (t, c) in terms.iter().zip(&compiled) {
            let v = c.eval(p);
            if !v.is_finite() {
                return Err(FitError::TermNotFinite {
                    term: t.to_string(),
                    index: i,
                });
            }
            row.push(v);
        }
        rows.push(row);
    }
    Ok(rows)
}

/// The values' mean magnitude: what a residual at a value of 0 is measured against (1 when
/// every value is 0).
fn zero_scale(values: &[f64]) -> f64 {
    let mean = values.iter().map(|v| v.abs()).sum::<f64>() / values.len().max(1) as f64;
    if mean > 0.0 {
        mean
    } else {
        1.0
    }
}

/// Relative weights; a value of 0 has no relative error, and weighting it by `1/tiny` forced
/// every law through it (trial 21: particles sent right, 0 at P = 1, 2, fitted as `0` or
/// `P^(5/3)*log2(P)^2`): its residual counts against the values' mean magnitude.
fn weights(values: &[f64], w: Weighting) -> Vec<f64> {
    match w {
        Weighting::Absolute => vec![1.0; values.len()],
        Weighting::Relative => {
            let scale = zero_scale(values);
            let floor = scale * 1e-12;
            values
                .iter()
                .map(|v| {
                    if *v == 0.0 {
                        1.0 / scale
                    } else {
                        1.0 / v.abs().max(floor)
                    }
                })
                .collect()
        }
    }
}

/// |y − pred| relative to y, or to `scale` (the values' mean magnitude) where y is 0.
fn rel(y: f64, pred: f64, scale: f64) -> f64 {
    if y == 0.0 {
        (y - pred).abs() / scale
    } else {
        (y - pred).abs() / y.abs()
    }
}

/// Fit `values ≈ Σ c_j·terms[j]` at `points` (rows in `params` order).
pub fn fit_terms(
    terms: &[Expr],
    params: &[&str],
    points: &[Vec<f64>],
    values: &[f64],
    opts: &FitOptions,
) -> Result<FitResult, FitError> {
    check_data(params, points, values)?;
    if terms.is_empty() {
        return Err(FitError::NoTerms);
    }
    if points.len() < terms.len() {
        return Err(FitError::TooFewPoints {
            points: points.len(),
            terms: terms.len(),
        });
    }
    let x = design(terms, params, points)?;
    fit_design(terms, &x, values, opts)
}

pub(crate) fn fit_design(
    terms: &[Expr],
    x: &[Vec<f64>],
    values: &[f64],
    opts: &FitOptions,
) -> Result<FitResult, FitError> {
    let w = weights(values, opts.weighting);
    let l = lsq::solve(x, values, &w).ok_or(FitError::Singular)?;
    let n = values.len();
    let mean = values.iter().sum::<f64>() / n as f64;
    let ss_tot: f64 = values.iter().map(|v| (v - mean).powi(2)).sum();
    let residuals: Vec<f64> = values.iter().zip(&l.fitted).map(|(y, f)| y - f).collect();
    let ss_res: f64 = residuals.iter().map(|r| r * r).sum();
    let r2 = if ss_tot > 0.0 {
        1.0 - ss_res / ss_tot
    } else if ss_res == 0.0 {
        1.0
    } else {
        0.0
    };
    let scale = zero_scale(values);
    let loo_rel_error = values
        .iter()
        .zip(&l.loo_pred)
        .map(|(y, p)| {
            if p.is_nan() {
                f64::INFINITY
            } else {
                rel(*y, *p, scale)
            }
        })
        .sum::<f64>()
        / n as f64;
    let rel_residuals = values
        .iter()
        .zip(&l.fitted)
        .map(|(y, f)| if *y == 0.0 { f64::NAN } else { (y - f) / y })
        .collect();
    // a term that adds nothing the data can see (a constant of 3e-30 s beside terms of
    // 1e-5 s: trial 16's collective costs) is rounding left by the solve, not a term
    let scale = values.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    let negligible = |j: usize, c: f64| {
        let most = x.iter().fold(0.0f64, |m, row| m.max((c * row[j]).abs()));
        c != 0.0 && most < 1e-12 * scale
    };
    let coeffs: Vec<FitTerm> = terms
        .iter()
        .zip(l.coef.iter().zip(&l.stderr))
        .enumerate()
        .filter(|(j, (_, (c, _)))| !negligible(*j, **c))
        .map(|(_, (t, (c, s)))| FitTerm {
            term: t.clone(),
            coef: *c,
            stderr: *s,
        })
        .collect();
    let expr = coeffs.iter().map(|c| &c.term * Expr::num(c.coef)).sum();
    Ok(FitResult {
        expr,
        coeffs,
        r2,
        loo_rel_error,
        residuals,
        rel_residuals,
        hypotheses: 1,
    })
}

/// Fit every hypothesis (a list of terms each) and keep the one with the lowest LOO relative
/// error; ties go to the hypothesis with fewer terms, then the earlier one. Hypotheses that
/// cannot be fitted (singular, not finite, too many terms) are skipped.
pub fn select(
    hypotheses: &[Vec<Expr>],
    params: &[&str],
    points: &[Vec<f64>],
    values: &[f64],
    opts: &FitOptions,
) -> Result<FitResult, FitError> {
    check_data(params, points, values)?;
    let mut best: Option<FitResult> = None;
    let mut tried = 0;
    let mut last_err = FitError::NoTerms;
    for h in hypotheses {
        tried += 1;
        let r = match fit_terms(h, params, points, values, opts) {
            Ok(r) => r,
            Err(e) => {
                last_err = e;
                continue;
            }
        };
        let better = match &best {
            None => true,
            Some(b) => {
                // Prefer a simpler model unless the richer one is clearly better (1% relative).
                let (rl, bl) = (r.loo_rel_error, b.loo_rel_error);
                if r.coeffs.len() < b.coeffs.len() {
                    rl <= bl * 1.01
                } else if r.coeffs.len() > b.coeffs.len() {
                    rl < bl * 0.99
                } else {
                    rl < bl
                }
            }
        };
        if better {
            best = Some(r);
        }
    }
    let mut best = best.ok_or(last_err)?;
    best.hypotheses = tried;
    Ok(best)
}
