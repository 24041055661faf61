//! Branch probabilities: a share fitted by absolute least squares over laws in P (then in the
//! other parameters it moves with), clamped to [0, 1], and why a share no law fits is none.

use std::collections::BTreeMap;

use symbolic::fit::{self, FitOptions, Weighting};
use symbolic::Expr;

use super::{from_fit, tidy, Fitted, Origin, Samples};

/// A probability: absolute least squares over the candidate term lists (values near 0 make
/// relative weighting ill-conditioned), clamped to [0, 1] when evaluated through `min`/`max`.
pub fn fit_probability(s: &Samples, candidates: &[Vec<Expr>]) -> Fitted {
    let n = s.values.len();
    let mean = s.values.iter().sum::<f64>() / n.max(1) as f64;
    let params: Vec<&str> = s.params.iter().map(String::as_str).collect();
    let opts = FitOptions {
        weighting: Weighting::Absolute,
        ..Default::default()
    };
    let clamp = |e: &Expr| Expr::min(Expr::one(), Expr::max(Expr::zero(), e.clone()));
    if s.values.iter().all(|v| (v - mean).abs() < 1e-9) {
        let mut f = Fitted::constant(mean);
        f.points = n;
        return f;
    }
    // the caller's laws (in P) first; then, for a share that moves with another parameter,
    // laws in it (`l == nlevels - 1` over a recursion through the levels: 1/NLEVELS)
    let fitted = fit::select(candidates, &params, &s.points, &s.values, &opts)
        .ok()
        .filter(|r| r.r2 > 0.99)
        .or_else(|| {
            let laws = param_laws(s);
            fit::select(&laws, &params, &s.points, &s.values, &opts)
                .ok()
                .filter(|r| r.r2 > 0.99)
        });
    match fitted {
        Some(r) => {
            let mut f = from_fit(&r, Origin::Regression, n);
            f.expr = tidy(&f.expr);
            // the law itself clamped where it leaves [0, 1] (`2 - 2/P` from P = 1, 2 is 1.99
            // at P = 256): at the traced extremes of each parameter, P also at 1e6 (models are
            // read at larger P than traced, seldom at smaller)
            let corners = corners(s);
            if corners.iter().any(|row| {
                f.expr
                    .eval(&|v| params.iter().position(|x| *x == v).map(|k| row[k]))
                    .is_ok_and(|x| !(-1e-9..=1.0 + 1e-9).contains(&x))
            }) {
                f.expr = clamp(&f.expr);
            }
            f.lo = clamp(&f.lo);
            f.hi = clamp(&f.hi);
            f
        }
        None => {
            let mut f = Fitted::constant(mean);
            f.points = n;
            f.origin = Origin::Regression;
            f.r2 = 0.0;
            f
        }
    }
}

/// Shares traced equal to this are one share (they are ratios of counts).
const SHARE_TOL: f64 = 1e-6;

/// Shares within this part of the largest of them are one share drawn by chance
/// ([`share_unexplained`]).
const SHARE_NOISE: f64 = 0.02;

/// The parameters a traced share changes with: two runs that differ in it alone trace
/// different shares, or, where no two runs differ in it alone, the mean shares at its values
/// differ.
pub fn share_moves_with(s: &Samples) -> Vec<String> {
    let n = s.values.len();
    let mut out = Vec::new();
    for (k, name) in s.params.iter().enumerate() {
        let (mut paired, mut moved) = (false, false);
        for i in 0..n {
            for j in i + 1..n {
                let only_k = s.points[i]
                    .iter()
                    .zip(&s.points[j])
                    .enumerate()
                    .all(|(m, (a, b))| (m == k) != (a == b));
                if only_k {
                    paired = true;
                    moved |= (s.values[i] - s.values[j]).abs() > SHARE_TOL;
                }
            }
        }
        if !paired {
            let means: Vec<f64> = means_by(s, k).into_iter().map(|(_, m)| m).collect();
            moved = means.iter().any(|m| (m - means[0]).abs() > SHARE_TOL);
        }
        if moved {
            out.push(name.clone());
        }
    }
    out
}

/// The mean traced share at each value of parameter `k`, by value.
fn means_by(s: &Samples, k: usize) -> Vec<(f64, f64)> {
    let mut by: BTreeMap<u64, (f64, f64, usize)> = BTreeMap::new();
    for (row, v) in s.points.iter().zip(&s.values) {
        // non-negative parameter values order as their bits do
        let e = by.entry(row[k].to_bits()).or_insert((row[k], 0.0, 0));
        e.1 += v;
        e.2 += 1;
    }
    by.into_values()
        .map(|(x, sum, c)| (x, sum / c as f64))
        .collect()
}

/// How many values parameter `x` takes in `s`.
fn distinct(s: &Samples, x: &str) -> usize {
    s.params
        .iter()
        .position(|p| p == x)
        .map_or(0, |k| means_by(s, k).len())
}

/// Laws of a share in the parameters other than P it moves with ([`share_moves_with`]),
/// simplest first: 1/X, a + b/X (X at three values or more), 1/(X·P) where P moves too, and
/// X/Y for two that move.
fn param_laws(s: &Samples) -> Vec<Vec<Expr>> {
    let moves = share_moves_with(s);
    let p_moves = moves.iter().any(|x| x == "P");
    let xs: Vec<&String> = moves.iter().filter(|x| *x != "P").collect();
    let mut laws = Vec::new();
    for x in &xs {
        let inv = Expr::var(x).powi(-1);
        laws.push(vec![inv.clone()]);
        // two terms fit any share at two values exactly: no evidence for the law
        if distinct(s, x) > 2 {
            laws.push(vec![Expr::one(), inv.clone()]);
        }
        if p_moves {
            laws.push(vec![inv / Expr::var("P")]);
        }
    }
    for x in &xs {
        for y in xs.iter().filter(|y| *y != x) {
            laws.push(vec![Expr::var(x) / Expr::var(y)]);
        }
    }
    laws
}

/// Why a share fitted as a constant that explains none of its variation (`f` from
/// [`fit_probability`] with R² below 0.99) is no law: the parameters it changes with and its
/// mean at their values (`NLEVELS: 0.3333 at 3, 0.2 at 5`); none when it moves with none.
pub fn share_unexplained(s: &Samples, f: &Fitted) -> Option<String> {
    if f.r2 >= 0.99 || !f.origin.by_regression() || f.expr.as_const().is_none() {
        return None;
    }
    // a share that moves by a few parts in a hundred moves by chance (a branch on a random
    // draw taken 0.1013 of the time at one size, 0.1014 at another: trial 27), not by a law
    let (lo, hi) = s
        .values
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| {
            (a.min(*v), b.max(*v))
        });
    if hi - lo <= SHARE_NOISE * hi.abs() {
        return None;
    }
    let moves = share_moves_with(s);
    if moves.is_empty() {
        return None;
    }
    let parts: Vec<String> = moves
        .iter()
        .filter_map(|x| {
            let k = s.params.iter().position(|p| p == x)?;
            let at: Vec<String> = means_by(s, k)
                .into_iter()
                .map(|(v, m)| format!("{} at {x}={v}", Expr::num(m)))
                .collect();
            Some(at.join(", "))
        })
        .collect();
    Some(format!(
        "the traced share changes with {} ({}) and no law in {} fits it: the constant {} is their mean, and T does not follow {} through it",
        moves.join(", "),
        parts.join("; "),
        if moves.len() == 1 { "it" } else { "them" },
        f.expr,
        moves.join(", ")
    ))
}

/// Every combination of each parameter's least and largest traced value, `P` also at 10⁶
/// (where a law in P is read far beyond the runs).
fn corners(s: &Samples) -> Vec<Vec<f64>> {
    let mut rows: Vec<Vec<f64>> = vec![Vec::new()];
    for (k, name) in s.params.iter().enumerate() {
        let (lo, hi) = s
            .points
            .iter()
            .map(|r| r[k])
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| {
                (a.min(v), b.max(v))
            });
        let mut values = vec![lo, hi];
        if name == "P" {
            values.push(1e6);
        }
        rows = rows
            .into_iter()
            .flat_map(|r| {
                values.iter().map(move |v| {
                    let mut r = r.clone();
                    r.push(*v);
                    r
                })
            })
            .collect();
    }
    rows
}
