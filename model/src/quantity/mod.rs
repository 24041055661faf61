//! Fitting one measured per-site quantity across runs as a function of the run parameters:
//! the APT's expression as the hypothesis where the source gave one (checked as is, then with a
//! fitted scale factor), candidate terms otherwise, the PMNF search as the last resort.
//! Costs with the source's work (`scaled`) under a floor (`floor`), power laws of counts
//! (`monomial`) and branch probabilities (`probability`) have their own files.

mod floor;
mod monomial;
mod probability;
#[cfg(test)]
mod probability_tests;
mod scaled;
#[cfg(test)]
mod scaled_tests;
#[cfg(test)]
mod tests;

use serde::Serialize;
use symbolic::fit::{self, FitOptions, FitResult, Weighting};
use symbolic::Expr;

use crate::machine::Bound;
use monomial::fit_monomial;

pub use floor::Floor;
pub use probability::{fit_probability, share_moves_with, share_unexplained};
pub use scaled::fit_scaled;

/// Where a fitted quantity's expression came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Origin {
    /// The source's expression matched every measurement as is.
    Source,
    /// The source's expression times a fitted factor (w_i, or a count off by a constant factor).
    SourceScaled,
    /// Least squares over candidate terms (no source expression, or it did not fit).
    Regression,
    /// Extra-P style PMNF search.
    Pmnf,
    /// One run only or a constant: the measured mean.
    Constant,
}

impl Origin {
    pub fn by_regression(self) -> bool {
        matches!(self, Origin::Regression | Origin::Pmnf)
    }
}

/// A fitted quantity with its band.
#[derive(Debug, Clone, Serialize)]
pub struct Fitted {
    pub expr: Expr,
    #[serde(skip)]
    pub lo: Expr,
    #[serde(skip)]
    pub hi: Expr,
    pub origin: Origin,
    pub r2: f64,
    /// Largest |relative residual| over the runs.
    pub max_rel_err: f64,
    pub points: usize,
}

impl Fitted {
    /// Holds the law at P = `most` beyond it (`min(P, most)`, in the band too), where it is
    /// a law in P; whether it was.
    pub fn held_in_p(&mut self, most: f64) -> bool {
        if most.is_nan() || most <= 0.0 || !self.expr.contains_var("P") {
            return false;
        }
        let cap = Expr::min(Expr::var("P"), Expr::num(most));
        self.expr = self.expr.subs("P", &cap);
        self.lo = self.lo.subs("P", &cap);
        self.hi = self.hi.subs("P", &cap);
        true
    }

    pub fn constant(v: f64) -> Fitted {
        let e = Expr::num(v);
        Fitted {
            expr: e.clone(),
            lo: e.clone(),
            hi: e,
            origin: Origin::Constant,
            r2: 1.0,
            max_rel_err: 0.0,
            points: 0,
        }
    }
    pub fn at(&self, b: Bound) -> &Expr {
        match b {
            Bound::Min => &self.lo,
            Bound::Avg => &self.expr,
            Bound::Max => &self.hi,
        }
    }
}

/// Data for one quantity: parameter names (the order of `points` rows) and values.
#[derive(Debug, Clone, Default)]
pub struct Samples {
    pub params: Vec<String>,
    pub points: Vec<Vec<f64>>,
    pub values: Vec<f64>,
}

impl Samples {
    /// No samples yet, over these parameters.
    pub fn new(params: Vec<String>) -> Self {
        Samples {
            params,
            ..Default::default()
        }
    }

    /// Adds one sample: the parameters' values (in `params` order) and the measured value.
    pub fn push(&mut self, point: Vec<f64>, value: f64) {
        debug_assert_eq!(point.len(), self.params.len());
        self.points.push(point);
        self.values.push(value);
    }

    /// Keeps only the samples whose value passes `keep`, in their order.
    /// The samples over parameter `name` alone (the others dropped); `None` without it.
    pub fn only(&self, name: &str) -> Option<Samples> {
        let k = self.params.iter().position(|v| v == name)?;
        let mut out = Samples::new(vec![name.to_string()]);
        for (x, v) in self.points.iter().zip(&self.values) {
            out.push(vec![*x.get(k)?], *v);
        }
        Some(out)
    }

    pub fn retain(&mut self, mut keep: impl FnMut(f64) -> bool) {
        let keep: Vec<bool> = self.values.iter().map(|v| keep(*v)).collect();
        let mut flags = keep.iter();
        self.points.retain(|_| *flags.next().unwrap_or(&false));
        let mut flags = keep.iter();
        self.values.retain(|_| *flags.next().unwrap_or(&false));
    }
}

/// How hard to try.
#[derive(Debug, Clone)]
pub struct QuantityOptions {
    /// Relative tolerance for accepting the source's expression unchanged.
    pub exact_tol: f64,
    /// Parameters that may appear inverted in PMNF terms (strong scaling).
    pub inverse_params: Vec<String>,
}

impl Default for QuantityOptions {
    fn default() -> Self {
        QuantityOptions {
            exact_tol: 0.02,
            inverse_params: vec!["P".into()],
        }
    }
}

/// A coefficient's bound `c + sign·e` (`e` its standard error), 0 where the sum cancels to
/// rounding (a coefficient as uncertain as itself: `6.4e-40*N^2/P^2` in a printed bound), or
/// where the bound is rounding beside the fit's largest coefficient `largest` (an exact fit's
/// constant, `log2(P - 2.69e-16)`).
pub(crate) fn bound(c: f64, e: f64, sign: f64, largest: f64) -> f64 {
    let b = c + sign * e;
    if b.abs() <= 1e-9 * c.abs().max(e) || b.abs() <= 1e-14 * largest {
        0.0
    } else {
        b
    }
}

fn from_fit(r: &FitResult, origin: Origin, n: usize) -> Fitted {
    // a coefficient the data cannot bound (as many terms as points: no residual degrees of
    // freedom, stderr NaN) is known only to its order of magnitude: ± itself
    let largest = r.coeffs.iter().map(|c| c.coef.abs()).fold(0.0, f64::max);
    let band = |sign: f64| -> Expr {
        r.coeffs
            .iter()
            .map(|c| {
                let e = if c.stderr.is_finite() {
                    c.stderr
                } else {
                    c.coef.abs()
                };
                &c.term * Expr::num(bound(c.coef, e, sign, largest))
            })
            .sum()
    };
    let max_rel_err = r
        .rel_residuals
        .iter()
        .filter(|v| v.is_finite())
        .fold(0.0f64, |m, v| m.max(v.abs()));
    Fitted {
        expr: r.expr.clone(),
        lo: band(-1.0),
        hi: band(1.0),
        origin,
        r2: r.r2,
        max_rel_err,
        points: n,
    }
}

fn eval_at(e: &Expr, params: &[String], row: &[f64]) -> Option<f64> {
    let v = e
        .eval(&|name| params.iter().position(|p| p == name).map(|i| row[i]))
        .ok()?;
    v.is_finite().then_some(v)
}

/// Rounds coefficients within 1e-6 relative of a multiple of 1/2 (depths like `P - 1`, `P/2`).
fn tidy(e: &Expr) -> Expr {
    let big = e.terms().iter().fold(0.0f64, |m, t| m.max(t.coef().abs()));
    e.terms()
        .iter()
        .filter(|t| t.coef().abs() > 1e-9 * big)
        .map(|t| {
            let c = t.coef();
            let r = (c * 2.0).round() / 2.0;
            let c = if r != 0.0 && ((c - r) / r).abs() < 1e-6 {
                r
            } else {
                c
            };
            t.monomial() * Expr::num(c)
        })
        .sum()
}

/// A count the source bounds by `cap` (a loop that may exit early: `while (it < maxit &&
/// …)`, a counted loop with a break): the cap where every run reached it; else `min(cap, f)`
/// with `f` fitted to the runs that stopped short of it (the cap did not bind there, so they
/// show the law of the early exit). All runs at the cap say nothing about the early exit:
/// the cap is the count.
pub fn fit_capped(s: &Samples, cap: &Expr, o: &QuantityOptions) -> Fitted {
    let caps: Vec<Option<f64>> = s
        .points
        .iter()
        .map(|r| eval_at(cap, &s.params, r))
        .collect();
    let at_cap = |i: usize| caps[i].is_some_and(|c| s.values[i] >= c * (1.0 - 1e-9) - 1e-9);
    let mut free = s.clone();
    let mut i = 0;
    free.retain(|_| {
        let keep = !at_cap(i);
        i += 1;
        keep
    });
    if free.values.is_empty() {
        let mut f = Fitted::constant(0.0).with_source(cap.clone());
        f.points = s.values.len();
        return f;
    }
    let f = fit_quantity(&free, None, &[], true, o).counting();
    let bound = |e: &Expr| Expr::min(cap.clone(), e.clone());
    Fitted {
        expr: bound(&f.expr),
        lo: bound(&f.lo),
        hi: bound(&f.hi),
        points: s.values.len(),
        ..f
    }
}

impl Fitted {
    /// A count's law held at zero where it could go below (a fitted law in a parameter beyond
    /// the runs: trial jac's convergence loop, `N^(1/3)*log2(N)^2*(1.061 - 7.931*TOL)`
    /// iterations from runs at TOL = 0.05 and 0.1, made T negative from TOL = 0.134 on). The
    /// source's expressions are kept as they are. Used for the law below a cap (a loop that
    /// exits early, whose count follows the program's data and parameters such as a
    /// tolerance); a free count's law (`1.203*N/sqrt(P) - 2.621`) also becomes the work of the
    /// computations inside it, whose fits take its terms apart, and is left as it is.
    pub fn counting(mut self) -> Fitted {
        if self.origin == Origin::Source {
            return self;
        }
        let held = |e: &Expr| {
            if e.lower_bound_with(&|_| 1.0) < 0.0 {
                Expr::max(e.clone(), Expr::zero())
            } else {
                e.clone()
            }
        };
        self.expr = held(&self.expr);
        self.lo = held(&self.lo);
        self.hi = held(&self.hi);
        self
    }

    /// The source's expression, exact: no band.
    fn with_source(mut self, e: Expr) -> Fitted {
        self.lo = e.clone();
        self.hi = e.clone();
        self.expr = e;
        self.origin = Origin::Source;
        self
    }
}

/// The laws in P a collective's startup takes (seed 002 §3: c + s·f(p)), up to a sort of
/// the ranks' keys, p·log2(p): the candidates of [`fit_law`] for a cost in P alone, such as a
/// communicator's creation.
pub fn startup_laws() -> Vec<Vec<Expr>> {
    let p = Expr::var("P");
    vec![
        vec![Expr::one()],
        vec![p.log2(), Expr::one()],
        vec![p.clone(), Expr::one()],
        vec![&p * &p.log2(), Expr::one()],
    ]
}

/// Fits `s` with the one of `candidates` (lists of terms) whose coefficients are all
/// non-negative and whose leave-one-out error is least, a simpler law preferred unless a
/// richer one is 1% better; never a free PMNF search, and the mean where no candidate fits.
/// For a cost the runs measure with noise at a few values of each parameter (a communicator's
/// creation, timed at P = 4, 9 and 16, took `7.11e-11*P^3*log2(P)^2` from the free search:
/// 0.67 ms a call at P = 64 where SMPI takes 23 µs).
pub fn fit_law(s: &Samples, candidates: &[Vec<Expr>], o: &QuantityOptions) -> Fitted {
    let n = s.values.len();
    let mean = s.values.iter().sum::<f64>() / n.max(1) as f64;
    let constant = || {
        let mut f = Fitted::constant(mean);
        f.points = n;
        f
    };
    if n < 2 {
        return constant();
    }
    let params: Vec<&str> = s.params.iter().map(String::as_str).collect();
    let opts = FitOptions {
        weighting: Weighting::Relative,
        inverse_params: o.inverse_params.clone(),
        ..Default::default()
    };
    let mut best: Option<FitResult> = None;
    for h in candidates {
        let Ok(r) = fit::fit_terms(h, &params, &s.points, &s.values, &opts) else {
            continue;
        };
        if r.coeffs.iter().any(|c| c.coef < 0.0) || !r.loo_rel_error.is_finite() {
            continue;
        }
        let better = best.as_ref().is_none_or(|b| {
            let (rl, bl) = (r.loo_rel_error, b.loo_rel_error);
            match r.coeffs.len().cmp(&b.coeffs.len()) {
                std::cmp::Ordering::Less => rl <= bl * 1.01,
                std::cmp::Ordering::Greater => rl < bl * 0.99,
                std::cmp::Ordering::Equal => rl < bl,
            }
        });
        if better {
            best = Some(r);
        }
    }
    best.map_or_else(constant, |r| from_fit(&r, Origin::Regression, n))
}

/// A count that rounds: `c·⌈t⌉` or `c·⌊t⌋` (and with a constant) for `t` a square root, a
/// cube root or the base-2 logarithm of one parameter, where one gives every run exactly (to
/// 1e-9). A process grid a program computes itself (`while (q*q < size) q++`: ⌈√P⌉ − 1
/// iterations; its rows ⌈√P⌉ ranks) is such a count, which smooth laws meet at the traced P
/// only by chance (trial rd: `-8*log2(P)/P + 5` iterations, 5 at P = 256 for 15; rows of
/// `0.1538*P + 1.577` ranks, 41 for 16).
fn rounded(s: &Samples, opts: &FitOptions) -> Option<Fitted> {
    let n = s.values.len();
    if n < 3 {
        return None;
    }
    let mut hyps = Vec::new();
    for (j, name) in s.params.iter().enumerate() {
        // three values at least: through two, every law c·f + c0 passes exactly
        let mut seen: Vec<u64> = s.points.iter().map(|r| r[j].to_bits()).collect();
        seen.sort_unstable();
        seen.dedup();
        if s.points.iter().any(|r| r[j] < 1.0) || seen.len() < 3 {
            continue;
        }
        let x = Expr::var(name);
        let third = x.pow(symbolic::Rational::new(1, 3).unwrap_or(symbolic::Rational::ZERO));
        for t in [x.sqrt(), third, x.log2()] {
            for r in [t.ceil(), t.floor()] {
                hyps.push(vec![r.clone()]);
                hyps.push(vec![r, Expr::one()]);
            }
        }
    }
    if hyps.is_empty() {
        return None;
    }
    let params: Vec<&str> = s.params.iter().map(String::as_str).collect();
    let exact: Vec<FitResult> = hyps
        .iter()
        .filter_map(|h| fit::fit_terms(h, &params, &s.points, &s.values, opts).ok())
        .filter(|r| {
            r.coeffs.iter().all(|c| c.coef.is_finite())
                && s.points.iter().zip(&s.values).all(|(row, y)| {
                    eval_at(&r.expr, &s.params, row)
                        .is_some_and(|v| (v - y).abs() <= 1e-9 * y.abs().max(1.0))
                })
        })
        .collect();
    // the fewest terms first (a bare rounded term before one with a constant), then the order
    // tried: square root, cube root, logarithm; ceiling before floor
    let best = exact.iter().min_by_key(|r| r.coeffs.len())?;
    let mut f = from_fit(best, Origin::Regression, n);
    f.expr = tidy(&f.expr);
    f.lo = f.expr.clone();
    f.hi = f.expr.clone();
    Some(f)
}

/// Fits `s` with `source` as the hypothesis when given, else `candidates` (lists of terms),
/// else PMNF. `integral`: counts (depths), whose coefficients are tidied.
pub fn fit_quantity(
    s: &Samples,
    source: Option<&Expr>,
    candidates: &[Vec<Expr>],
    integral: bool,
    o: &QuantityOptions,
) -> Fitted {
    let n = s.values.len();
    if n == 0 {
        return Fitted::constant(0.0);
    }
    let mean = s.values.iter().sum::<f64>() / n as f64;
    let spread = s.values.iter().fold(0.0f64, |m, v| m.max((v - mean).abs()));
    let params: Vec<&str> = s.params.iter().map(String::as_str).collect();
    let opts = FitOptions {
        weighting: Weighting::Relative,
        inverse_params: o.inverse_params.clone(),
        ..Default::default()
    };
    if let Some(src) = source {
        let preds: Vec<Option<f64>> = s
            .points
            .iter()
            .map(|row| eval_at(src, &s.params, row))
            .collect();
        if preds.iter().all(Option::is_some) {
            let errs: Vec<f64> = preds
                .iter()
                .zip(&s.values)
                .map(|(p, y)| {
                    let p = p.unwrap_or(f64::NAN);
                    if *y == 0.0 {
                        p.abs()
                    } else {
                        ((p - y) / y).abs()
                    }
                })
                .collect();
            let worst = errs.iter().fold(0.0f64, |m, v| m.max(*v));
            if worst <= o.exact_tol {
                let e = src.clone();
                return Fitted {
                    expr: e.clone(),
                    lo: e.clone(),
                    hi: e,
                    origin: Origin::Source,
                    r2: 1.0,
                    max_rel_err: worst,
                    points: n,
                };
            }
        }
        if let Ok(r) = fit::fit_terms(
            std::slice::from_ref(src),
            &params,
            &s.points,
            &s.values,
            &opts,
        ) {
            if r.coeffs.first().is_some_and(|c| c.coef > 0.0) {
                let f = from_fit(&r, Origin::SourceScaled, n);
                if f.max_rel_err <= 0.25 || candidates.is_empty() {
                    return f;
                }
            }
        }
    }
    if spread <= 1e-9 * mean.abs().max(1e-300) || n == 1 {
        let mut f = Fitted::constant(mean);
        f.points = n;
        return f;
    }
    // a candidate that gives every run exactly stands; an inexact one only where no rounded
    // law does (below)
    let mut near = None;
    if !candidates.is_empty() {
        if let Ok(r) = fit::select(candidates, &params, &s.points, &s.values, &opts) {
            let mut f = from_fit(&r, Origin::Regression, n);
            if integral {
                f.expr = tidy(&f.expr);
            }
            if f.max_rel_err <= o.exact_tol || (f.max_rel_err <= 0.25 && !integral) {
                return f;
            }
            if f.max_rel_err <= 0.25 {
                near = Some(f);
            }
        }
    }
    if integral && source.is_none() {
        if let Some(f) = rounded(s, &opts) {
            return f;
        }
    }
    if let Some(f) = near {
        return f;
    }
    // A count the same in every pair of runs that differ only in one parameter does not
    // depend on it: the free searches below must not find a law in it.
    let reduced = if integral { without_inert(s) } else { None };
    let s = reduced.as_ref().unwrap_or(s);
    let params: Vec<&str> = s.params.iter().map(String::as_str).collect();
    // Counters (trip counts, sizes) are exact: a single power-law term, exponents in halves,
    // explains the usual decompositions (N/P, N/sqrt(P) for a square-ish grid, N*K) with one
    // coefficient, where a free PMNF search would chase the rounding of a process grid.
    let monomial = if integral && source.is_none() {
        fit_monomial(s, &opts)
    } else {
        None
    };
    if let Some((f, _)) = monomial
        .as_ref()
        .filter(|(f, _)| f.max_rel_err <= o.exact_tol)
    {
        return f.clone();
    }
    let pmnf = fit::search_pmnf(&params, &s.points, &s.values, &opts);
    // an inexact one-term law stands unless the free search gives every run exactly (a
    // recursive-doubling loop's log2(P) rounds, which `1.272*sqrt(P) - 0.7511` misses by 10%)
    let pmnf_exact = pmnf
        .as_ref()
        .is_ok_and(|r| from_fit(r, Origin::Pmnf, n).max_rel_err <= o.exact_tol);
    if let Some((f, _)) = monomial
        .as_ref()
        .filter(|(f, _)| f.max_rel_err <= 0.25 && !pmnf_exact)
    {
        return f.clone();
    }
    match pmnf {
        // the one-term law unless the free search predicts held-out runs clearly better
        Ok(r)
            if !pmnf_exact
                && monomial
                    .as_ref()
                    .is_some_and(|(_, loo)| *loo <= 1.5 * r.loo_rel_error) =>
        {
            monomial
                .map(|(f, _)| f)
                .unwrap_or_else(|| Fitted::constant(mean))
        }
        Ok(r) => {
            let mut f = from_fit(&r, Origin::Pmnf, n);
            if integral {
                f.expr = tidy(&f.expr);
            }
            f
        }
        Err(_) => {
            let mut f = Fitted::constant(mean);
            f.points = n;
            f
        }
    }
}

/// `s` without the parameters it provably does not depend on: each such parameter has a pair
/// of samples differing in it alone, and every such pair has equal values. None when there
/// is none to drop.
fn without_inert(s: &Samples) -> Option<Samples> {
    let same = |a: f64, b: f64| (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1e-300);
    let inert: Vec<usize> = (0..s.params.len())
        .filter(|&j| {
            let mut pairs = 0;
            for (a, (pa, va)) in s.points.iter().zip(&s.values).enumerate() {
                for (pb, vb) in s.points.iter().zip(&s.values).skip(a + 1) {
                    let only_j = pa[j] != pb[j]
                        && pa
                            .iter()
                            .zip(pb)
                            .enumerate()
                            .all(|(k, (x, y))| k == j || x == y);
                    if only_j {
                        if !same(*va, *vb) {
                            return false;
                        }
                        pairs += 1;
                    }
                }
            }
            pairs > 0
        })
        .collect();
    if inert.is_empty() {
        return None;
    }
    let keep = |j: &usize| !inert.contains(j);
    let mut out = Samples::new(
        (0..s.params.len())
            .filter(keep)
            .map(|j| s.params[j].clone())
            .collect(),
    );
    for (p, v) in s.points.iter().zip(&s.values) {
        out.push((0..p.len()).filter(keep).map(|j| p[j]).collect(), *v);
    }
    Some(out)
}

/// The fit with the least leave-one-out error, each term after the first costing 2% of it: an
/// added term must earn its place.
fn least_loo(fits: &[FitResult]) -> Option<&FitResult> {
    fits.iter()
        .min_by(|a, b| loo_score(a).total_cmp(&loo_score(b)))
}

/// A fit's leave-one-out error, each term after the first costing 2% of it.
fn loo_score(r: &FitResult) -> f64 {
    r.loo_rel_error * 1.02f64.powi(r.coeffs.len() as i32 - 1)
}
