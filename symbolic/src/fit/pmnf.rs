//! PMNF search (Extra-P's performance model normal form): Σ c·X^a·log2(X)^b per parameter,
//! single-parameter terms ranked on slices of the data where the other parameters are fixed,
//! then combined across parameters as products and sums.

use super::{fit_terms, select, FitError, FitOptions, FitResult};
use crate::{Expr, Rational};
use std::collections::BTreeMap;

/// Extra-P's exponent set for `a` as (numerator, denominator).
pub const PMNF_EXPONENTS: [(i64, i64); 20] = [
    (0, 1),
    (1, 4),
    (1, 3),
    (1, 2),
    (2, 3),
    (3, 4),
    (4, 5),
    (1, 1),
    (5, 4),
    (4, 3),
    (3, 2),
    (5, 3),
    (7, 4),
    (2, 1),
    (9, 4),
    (7, 3),
    (5, 2),
    (8, 3),
    (11, 4),
    (3, 1),
];

/// Extra-P's exponent set for the logarithm.
pub const PMNF_LOG_EXPONENTS: [i64; 3] = [0, 1, 2];

/// The single-parameter terms of `params[j]`: Extra-P's ([`all_terms`]), or only `X` (and
/// `1/X` when `inverse`) where the data hold fewer than three values of it: two values fit
/// every law `c0 + c1·f(X)` exactly, so none but the simplest is supported (trial 16: a native
/// model from P = 1, 2 carried `1.455e-7*P^2`).
///
/// A parameter whose every value lies strictly between 0 and 1 (a tolerance, a time step, a
/// fraction) enters through its reciprocal `Y = 1/X`: Extra-P's terms assume a size that grows
/// from 1, and `X^a·log2(X)^b` below 1 shrinks, turns negative, or blows up in its logarithm. A
/// convergence loop's count grows as the tolerance tightens, like `log2(1/TOL)` or `1/TOL`;
/// from two tolerances a line in TOL falls through zero just beyond them (trial jac: 43 and 99
/// iterations at TOL = 0.1 and 0.05 gave `1.061 - 7.931*TOL`, none from TOL = 0.134 on).
fn single_terms(params: &[&str], j: usize, points: &[Vec<f64>], inverse: bool) -> Vec<Expr> {
    let mut seen: Vec<u64> = points.iter().map(|p| p[j].to_bits()).collect();
    seen.sort_unstable();
    seen.dedup();
    let x = Expr::var(params[j]);
    let fraction = points.iter().all(|p| p[j] > 0.0 && p[j] < 1.0);
    if fraction {
        let y = x.pow(Rational::new(-1, 1).unwrap_or(Rational::ZERO));
        if seen.len() < 3 {
            return vec![y];
        }
        return terms_of(&y, false);
    }
    if seen.len() >= 3 {
        return all_terms(params[j], inverse);
    }
    let mut out = vec![x.clone()];
    if inverse {
        out.push(x.pow(Rational::new(-1, 1).unwrap_or(Rational::ZERO)));
    }
    out
}

/// All non-constant single-parameter terms X^a·log2(X)^b (and X^-a·log2(X)^b when `inverse`).
fn all_terms(param: &str, inverse: bool) -> Vec<Expr> {
    terms_of(&Expr::var(param), inverse)
}

/// Extra-P's terms `x^a·log2(x)^b` of the expression `x` (and `x^-a·log2(x)^b` when `inverse`).
fn terms_of(x: &Expr, inverse: bool) -> Vec<Expr> {
    let lx = x.log2();
    let mut out = Vec::new();
    for sign in if inverse {
        [1, -1].as_slice()
    } else {
        [1].as_slice()
    } {
        for (n, d) in PMNF_EXPONENTS {
            for b in PMNF_LOG_EXPONENTS {
                if n == 0 && (b == 0 || *sign < 0) {
                    continue;
                }
                let a = Rational::new(sign * n, d).unwrap_or(Rational::ZERO);
                out.push(x.pow(a) * lx.powi(b));
            }
        }
    }
    out
}

/// Key of the other parameters' values, to group points into slices along `param`.
fn slice_key(point: &[f64], skip: usize) -> Vec<u64> {
    point
        .iter()
        .enumerate()
        .filter(|(i, _)| *i != skip)
        .map(|(_, v)| v.to_bits())
        .collect()
}

/// Rank the single-parameter terms of `params[j]` by mean LOO error of `c0 + c1·t` over slices
/// with at least 3 points (falling back to all points when there are none).
fn rank_terms(
    params: &[&str],
    j: usize,
    points: &[Vec<f64>],
    values: &[f64],
    opts: &FitOptions,
) -> Vec<(f64, Expr)> {
    type Slice = (Vec<Vec<f64>>, Vec<f64>);
    let mut slices: BTreeMap<Vec<u64>, Slice> = BTreeMap::new();
    for (p, v) in points.iter().zip(values) {
        let s = slices.entry(slice_key(p, j)).or_default();
        s.0.push(vec![p[j]]);
        s.1.push(*v);
    }
    slices.retain(|_, (p, _)| p.len() >= 3);
    if slices.is_empty() {
        slices.insert(
            Vec::new(),
            (points.iter().map(|p| vec![p[j]]).collect(), values.to_vec()),
        );
    }
    let name = [params[j]];
    let inverse = opts.inverse_params.iter().any(|p| p == params[j]);
    let mut ranked: Vec<(f64, Expr)> = single_terms(params, j, points, inverse)
        .into_iter()
        .filter_map(|t| {
            let h = [Expr::one(), t.clone()];
            let mut total = 0.0;
            for (p, v) in slices.values() {
                total += fit_terms(&h, &name, p, v, opts).ok()?.loo_rel_error;
            }
            Some((total / slices.len() as f64, t))
        })
        .collect();
    ranked.sort_by(|a, b| a.0.total_cmp(&b.0));
    ranked
}

/// Search PMNF hypotheses over `params` and return the best by LOO relative error.
///
/// One parameter: `c0 + c1·X^a·log2(X)^b` over Extra-P's exponent sets (and the constant);
/// parameters in `opts.inverse_params` also get negative `a`.
/// Several: the best `opts.top_per_param` terms of each parameter, combined as one product,
/// one sum, the product plus one single term, and each single term alone (plus a constant).
pub fn search_pmnf(
    params: &[&str],
    points: &[Vec<f64>],
    values: &[f64],
    opts: &FitOptions,
) -> Result<FitResult, FitError> {
    super::check_data(params, points, values)?;
    if params.is_empty() {
        return Err(FitError::NoTerms);
    }
    let one = Expr::one();
    // a parameter with one value over the points says nothing, and its terms, constant
    // columns, crowd out the others' (trial 27: log2(N) - log2(P) - 1 over runs all at NCYC = 4
    // came out -1.08*log2(P) + 6.884, found exactly without NCYC)
    let varying: Vec<usize> = (0..params.len())
        .filter(|&j| points.iter().any(|r| r[j] != points[0][j]))
        .collect();
    if varying.is_empty() {
        return select(&[vec![one]], params, points, values, opts);
    }
    if varying.len() < params.len() {
        let names: Vec<&str> = varying.iter().map(|&j| params[j]).collect();
        let rows: Vec<Vec<f64>> = points
            .iter()
            .map(|r| varying.iter().map(|&j| r[j]).collect())
            .collect();
        return search_pmnf(&names, &rows, values, opts);
    }
    let mut hyps: Vec<Vec<Expr>> = vec![vec![one.clone()]];
    if params.len() == 1 {
        let inverse = opts.inverse_params.iter().any(|p| p == params[0]);
        hyps.extend(
            single_terms(params, 0, points, inverse)
                .into_iter()
                .map(|t| vec![one.clone(), t]),
        );
        return select(&hyps, params, points, values, opts);
    }
    let tops: Vec<Vec<Expr>> = (0..params.len())
        .map(|j| {
            rank_terms(params, j, points, values, opts)
                .into_iter()
                .take(opts.top_per_param.max(1))
                .map(|(_, t)| t)
                .collect()
        })
        .collect();
    for list in &tops {
        hyps.extend(list.iter().map(|t| vec![one.clone(), t.clone()]));
    }
    // Every choice of one term per parameter (mixed-radix counter over `tops`).
    let mut idx = vec![0usize; tops.len()];
    'outer: loop {
        let chosen: Vec<&Expr> = idx
            .iter()
            .zip(&tops)
            .filter_map(|(i, l)| l.get(*i))
            .collect();
        if chosen.len() == tops.len() {
            let product: Expr = chosen.iter().map(|t| (*t).clone()).product();
            hyps.push(vec![one.clone(), product.clone()]);
            let mut sum = vec![one.clone()];
            sum.extend(chosen.iter().map(|t| (*t).clone()));
            hyps.push(sum);
            for t in &chosen {
                hyps.push(vec![one.clone(), product.clone(), (*t).clone()]);
            }
        }
        for k in 0..idx.len() {
            idx[k] += 1;
            if idx[k] < tops[k].len() {
                continue 'outer;
            }
            idx[k] = 0;
        }
        break;
    }
    select(&hyps, params, points, values, opts)
}
