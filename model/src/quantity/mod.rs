//! Fitting one measured per-site quantity across runs as a function of the run parameters:
//! the APT's expression as the hypothesis where the source gave one (checked as is, then with a
//! fitted scale factor), candidate terms otherwise, the PMNF search as the last resort.

use std::collections::BTreeMap;

use serde::Serialize;
use symbolic::fit::{self, FitOptions, FitResult, Weighting};
use symbolic::{Expr, Rational};

use crate::machine::Bound;

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

fn from_fit(r: &FitResult, origin: Origin, n: usize) -> Fitted {
    // a coefficient the data cannot bound (as many terms as points: no residual degrees of
    // freedom, stderr NaN) is known only to its order of magnitude: ± itself
    let band = |sign: f64| -> Expr {
        r.coeffs
            .iter()
            .map(|c| {
                let e = if c.stderr.is_finite() {
                    c.stderr
                } else {
                    c.coef.abs()
                };
                &c.term * Expr::num(c.coef + sign * e)
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
    let f = fit_quantity(&free, None, &[], true, o);
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
    /// The source's expression, exact: no band.
    fn with_source(mut self, e: Expr) -> Fitted {
        self.lo = e.clone();
        self.hi = e.clone();
        self.expr = e;
        self.origin = Origin::Source;
        self
    }
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
    if !candidates.is_empty() {
        if let Ok(r) = fit::select(candidates, &params, &s.points, &s.values, &opts) {
            let mut f = from_fit(&r, Origin::Regression, n);
            if integral {
                f.expr = tidy(&f.expr);
            }
            if f.max_rel_err <= 0.25 {
                return f;
            }
        }
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
    if let Some((f, _)) = monomial.as_ref().filter(|(f, _)| f.max_rel_err <= 0.25) {
        return f.clone();
    }
    match fit::search_pmnf(&params, &s.points, &s.values, &opts) {
        // the one-term law unless the free search predicts held-out runs clearly better
        Ok(r)
            if monomial
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

/// `c·Π v^e` (and `c·Π v^e + c0`) for positive data: exponents from least squares on the logs,
/// rounded to halves, then the coefficients refitted; the variant with the smaller
/// leave-one-out error wins (returned beside the fit). Exponents in thirds (a 3-D grid) and
/// P − 1 for P (master/worker) are tried too and win only with a 4x smaller held-out error. None when the data are not all positive
/// or nothing varies.
fn fit_monomial(s: &Samples, opts: &FitOptions) -> Option<(Fitted, f64)> {
    let n = s.values.len();
    if n < 2 || s.values.iter().any(|v| *v <= 0.0 || !v.is_finite()) {
        return None;
    }
    let vary: Vec<usize> = (0..s.params.len())
        .filter(|&j| {
            let first = s.points.first().map_or(0.0, |r| r[j]);
            s.points.iter().all(|r| r[j] > 0.0) && s.points.iter().any(|r| r[j] != first)
        })
        .collect();
    if vary.is_empty() {
        return None;
    }
    // log y = a + Σ e_j log x_j by normal equations (k ≤ a handful of parameters); P also
    // as P − 1 (the workers of a master/worker code) when every run has P ≥ 2
    let p_col = s.params.iter().position(|p| p == "P");
    let shifts: &[bool] = match p_col {
        Some(c) if vary.contains(&c) && s.points.iter().all(|r| r[c] >= 2.0) => &[false, true],
        _ => &[false],
    };
    let params: Vec<&str> = s.params.iter().map(String::as_str).collect();
    // (plain: halves of P itself; the thirds and P − 1 variants must predict held-out runs
    // clearly better, a process grid's rounding favours them by chance otherwise)
    let (mut plain, mut other): (Vec<FitResult>, Vec<FitResult>) = (Vec::new(), Vec::new());
    for &shift in shifts {
        let x_of = |row: &[f64], j: usize| {
            if shift && Some(j) == p_col {
                row[j] - 1.0
            } else {
                row[j]
            }
        };
        let k = vary.len() + 1;
        let mut ata = vec![vec![0.0f64; k]; k];
        let mut aty = vec![0.0f64; k];
        for (row, y) in s.points.iter().zip(&s.values) {
            let mut x = vec![1.0];
            x.extend(vary.iter().map(|&j| x_of(row, j).ln()));
            for a in 0..k {
                aty[a] += x[a] * y.ln();
                for b in 0..k {
                    ata[a][b] += x[a] * x[b];
                }
            }
        }
        let Some(sol) = solve_small(ata, aty) else {
            continue;
        };
        // exponents in halves (N/sqrt(P) of a 2-D grid) or thirds (a 3-D one)
        for den in [2i64, 3] {
            let mut term = Expr::one();
            for (i, &j) in vary.iter().enumerate() {
                let e = (sol[i + 1] * den as f64).round() as i64;
                if e != 0 {
                    let base = if shift && Some(j) == p_col {
                        Expr::var(&s.params[j]) - Expr::one()
                    } else {
                        Expr::var(&s.params[j])
                    };
                    term = term * base.pow(Rational::new(e, den)?);
                }
            }
            if term == Expr::one() {
                continue;
            }
            let fits = if !shift && den == 2 {
                &mut plain
            } else {
                &mut other
            };
            fits.extend(
                [vec![term.clone()], vec![term, Expr::one()]]
                    .iter()
                    .filter_map(|h| fit::fit_terms(h, &params, &s.points, &s.values, opts).ok())
                    .filter(|r| r.coeffs.first().is_some_and(|c| c.coef > 0.0)),
            );
        }
    }
    let best = match (least_loo(&plain), least_loo(&other)) {
        (Some(p), Some(o)) if o.loo_rel_error < 0.25 * p.loo_rel_error => o,
        (Some(p), _) => p,
        (None, o) => o?,
    };
    let mut f = from_fit(best, Origin::Regression, n);
    f.expr = tidy(&f.expr);
    Some((f, best.loo_rel_error))
}

/// Gaussian elimination with partial pivoting on a small dense system.
fn solve_small(mut a: Vec<Vec<f64>>, mut b: Vec<f64>) -> Option<Vec<f64>> {
    let k = b.len();
    for c in 0..k {
        let piv = (c..k).max_by(|&i, &j| a[i][c].abs().total_cmp(&a[j][c].abs()))?;
        if a[piv][c].abs() < 1e-12 {
            return None;
        }
        a.swap(c, piv);
        b.swap(c, piv);
        for r in c + 1..k {
            let f = a[r][c] / a[c][c];
            let (top, bottom) = a.split_at_mut(r);
            for (x, y) in bottom[0][c..].iter_mut().zip(&top[c][c..]) {
                *x -= f * y;
            }
            b[r] -= f * b[c];
        }
    }
    let mut x = vec![0.0; k];
    for r in (0..k).rev() {
        let acc: f64 = (r + 1..k).map(|cc| a[r][cc] * x[cc]).sum();
        x[r] = (b[r] - acc) / a[r][r];
    }
    x.iter().all(|v| v.is_finite()).then_some(x)
}

/// The monomial of `w` that is largest at the samples' largest value (the work's dominant term,
/// without the lower-order terms a source bound adds, e.g. `N^2/P` of `N^2/P + 2*N + 4`).
fn leading_term(s: &Samples, w: &Expr) -> Expr {
    let Some(row) = s
        .values
        .iter()
        .enumerate()
        .max_by(|a, b| a.1.total_cmp(b.1))
        .and_then(|(i, _)| s.points.get(i))
    else {
        return w.clone();
    };
    let at = |e: &Expr| {
        e.eval(&|n| s.params.iter().position(|x| x == n).map(|k| row[k]))
            .unwrap_or(0.0)
            .abs()
    };
    w.terms()
        .iter()
        .map(|t| t.monomial())
        .filter(|m| m.as_const().is_none())
        .max_by(|a, b| at(a).total_cmp(&at(b)))
        .unwrap_or_else(|| w.clone())
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

/// A cost per entry with the source's work expression `w`: `c·w`, plus, when it fits clearly
/// better (leave-one-out), a fixed per-entry overhead `c0` and a cost per iteration of the
/// nest's outer loop `c1·outer` (the outer loop's own trip count: loop overhead, and what the
/// body does once per outer iteration, e.g. a first touch of a new row of a 2-D array). Never a
/// free PMNF search: timings of small loops are noisy, and free terms would extrapolate that
/// noise.
///
/// A cost per element that grows linearly with the volume swept between two entries of one
/// rank, `c2·w·min(w·sharers, V)` (`w` its dominant term, `V` the largest volume traced), is a
/// candidate too: the first-order effect of data outgrowing a shared cache, which a constant
/// cost per element cannot follow.
/// `sharers` is how many ranks sweep their data in that time: `P` where the ranks meet at every
/// exchange (each runs its loop between two of another's), `1` inside a pipeline (a rank runs
/// its next block while most others wait for theirs).
///
/// `communicating`, for a computation phase inside a communication phase that only some runs
/// have, is that phase's presence ramp (0 where it does not communicate, 1 where it does): then
/// `c·w + c2·w·ramp` is a candidate too, a cost per element that differs where the data the loop
/// touches also moves between processors (a sender rewriting the block its receiver just read
/// pays for the cache lines coming back), so that P = 1 and P ≥ 2 get each their own.
///
/// `floor`, for a loop that may rewrite data a send of its phase has just given to another
/// core, is the least time that takes by the machine sheet: the cost is `max(law, floor)` (see
/// [`floored`]) where the source shows the loop writes what is sent, and that is a candidate
/// beside the others where the source cannot tell.
pub fn fit_scaled(
    s: &Samples,
    w: &Expr,
    outer: Option<&Expr>,
    communicating: Option<&Expr>,
    sharers: &Expr,
    floor: Option<&Floor>,
) -> Fitted {
    let n = s.values.len();
    let params: Vec<&str> = s.params.iter().map(String::as_str).collect();
    let opts = FitOptions {
        weighting: Weighting::Relative,
        ..Default::default()
    };
    let mut hyps = vec![vec![w.clone()], vec![w.clone(), Expr::one()]];
    // the outer trip count is a term of its own only when no term of `w` already has its shape
    if let Some(o) = outer.filter(|o| {
        o.as_const().is_none()
            && o.terms().len() == 1
            && w.terms()
                .iter()
                .all(|t| t.monomial() != o.terms()[0].monomial())
    }) {
        let o = o.terms()[0].monomial();
        hyps.push(vec![w.clone(), o.clone()]);
        hyps.push(vec![w.clone(), o, Expr::one()]);
    }
    // a cost per element that grows with the volume swept between two entries of one rank:
    // ranks share the node's last-level cache (under SMPI, every rank runs on the one host), and
    // once their data outgrows it each element comes from memory (stencil on this host: 1.62 ns
    // per element at N = 2048, 2.82 ns at 4096)
    // per element, never beyond the largest volume the runs swept: past it the data may already
    // come from memory, where the cost per element stops growing, and a line through the traced
    // points would not
    let lead = leading_term(s, w);
    let swept = &lead * sharers;
    let most = s
        .points
        .iter()
        .filter_map(|row| {
            swept
                .eval(&|n| params.iter().position(|x| *x == n).map(|k| row[k]))
                .ok()
        })
        .fold(f64::NAN, f64::max);
    if most.is_finite() && most > 0.0 {
        let volume = &lead * &Expr::min(swept, Expr::num(most));
        hyps.push(vec![w.clone(), volume.clone()]);
        hyps.push(vec![w.clone(), volume, Expr::one()]);
    }
    // the slowest of the ranks at each occurrence (the per-occurrence maximum is what the
    // samples hold outside pipelines): with noise of an exponential tail its expectation grows
    // with the logarithm of the number of ranks
    if sharers.as_const().is_none() {
        let spread = w * &sharers.log2();
        hyps.push(vec![w.clone(), spread.clone()]);
        hyps.push(vec![w.clone(), spread, Expr::one()]);
    }
    let laws = hyps.clone();
    if let Some(ramp) = communicating {
        let moved = w * ramp;
        hyps.push(vec![w.clone(), moved.clone()]);
        hyps.push(vec![w.clone(), moved, Expr::one()]);
    }
    let ok = |r: &FitResult| r.coeffs.iter().all(|c| c.coef >= 0.0);
    let fits: Vec<FitResult> = hyps
        .iter()
        .filter_map(|h| fit::fit_terms(h, &params, &s.points, &s.values, &opts).ok())
        .filter(ok)
        .collect();
    let best = least_loo(&fits);
    if let Some(fl) = floor {
        match floored(s, &laws, &opts, fl) {
            Some((law, f)) if fl.proven || best.is_none_or(|b| loo_score(&law) < loo_score(b)) => {
                return f;
            }
            _ => {}
        }
    }
    match best {
        Some(r) => from_fit(r, Origin::SourceScaled, n),
        None => {
            let mean = s.values.iter().sum::<f64>() / n.max(1) as f64;
            let mut f = Fitted::constant(mean);
            f.points = n;
            f
        }
    }
}

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
fn floored(
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

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    /// A share fitted from P = 1, 2 as `2 - 2/P` reads 1.99 at P = 256: the law is clamped to
    /// [0, 1]; one that stays inside is left as it is.
    #[test]
    fn a_fitted_share_stays_a_share() {
        let mut s = Samples::new(vec!["N".into(), "P".into()]);
        for n in [64.0, 128.0] {
            s.push(vec![n, 1.0], 0.0);
            s.push(vec![n, 2.0], 1.0);
        }
        let c = vec![
            vec![Expr::one(), Expr::var("P").powi(-1)],
            vec![Expr::var("P").powi(-1)],
        ];
        let f = fit_probability(&s, &c);
        let at = |p: f64| {
            f.expr
                .eval(&|v| Some(if v == "P" { p } else { 64.0 }))
                .unwrap()
        };
        assert!(
            (at(2.0) - 1.0).abs() < 1e-9 && at(1.0).abs() < 1e-9,
            "{}",
            f.expr
        );
        assert!((at(256.0) - 1.0).abs() < 1e-9, "{}", f.expr);
        let mut t = Samples::new(vec!["P".into()]);
        for p in [2.0, 4.0, 8.0] {
            t.push(vec![p], 1.0 - 1.0 / p);
        }
        let g = fit_probability(&t, &c);
        assert!(!g.expr.to_string().contains("min("), "{}", g.expr);
    }

    /// The mg2d branch shares over N, NLEVELS, P (one NCYCLES), from `share`.
    fn levels(share: impl Fn(f64, f64) -> f64) -> Samples {
        let mut s = Samples::new(["N", "NCYCLES", "NLEVELS", "P"].map(String::from).to_vec());
        for n in [256.0, 512.0, 1024.0] {
            for l in [3.0, 5.0] {
                for p in [2.0, 4.0, 8.0, 16.0] {
                    s.push(vec![n, 4.0, l, p], share(l, p));
                }
            }
        }
        s
    }

    fn in_p() -> Vec<Vec<Expr>> {
        vec![
            vec![Expr::one()],
            vec![Expr::one(), Expr::var("P").powi(-1)],
        ]
    }

    /// trial 6 item 5: `l == nlevels - 1` in a V-cycle recursing through NLEVELS levels is
    /// taken in 1/NLEVELS of its evaluations (1/3, 1/5 traced): a law in NLEVELS, not their
    /// mean 0.2667 with R² 0.
    #[test]
    fn a_share_that_moves_with_a_parameter_is_a_law_in_it() {
        let s = levels(|l, _| 1.0 / l);
        assert_eq!(share_moves_with(&s), ["NLEVELS"]);
        let f = fit_probability(&s, &in_p());
        assert!(f.r2 > 0.99, "{} R² {}", f.expr, f.r2);
        let at = |l: f64, p: f64| {
            f.expr
                .eval(&|v| match v {
                    "NLEVELS" => Some(l),
                    "P" => Some(p),
                    _ => Some(512.0),
                })
                .unwrap()
        };
        for (l, p) in [(7.0, 16.0), (2.0, 1024.0), (10.0, 2.0)] {
            assert!((at(l, p) - 1.0 / l).abs() < 1e-6, "{} at {l}, {p}", f.expr);
        }
        assert!(share_unexplained(&s, &f).is_none());
        // one over both (a rank and a level)
        let h = fit_probability(&levels(|l, p| 1.0 / (l * p)), &in_p());
        assert!(h.r2 > 0.99, "{}", h.expr);
        assert!(
            h.expr.contains_var("NLEVELS") && h.expr.contains_var("P"),
            "{}",
            h.expr
        );
        // a share in P alone is left to the caller's laws, not a law in N
        let q = fit_probability(&levels(|_, p| 1.0 - 1.0 / p), &in_p());
        assert!(
            !q.expr.contains_var("N") && !q.expr.contains_var("NLEVELS"),
            "{}",
            q.expr
        );
    }

    /// trial 6 item 5: a share that moves with a parameter and fits no law is their mean,
    /// and the warning says what it changes with.
    #[test]
    fn a_constant_share_that_explains_nothing_names_what_it_moves_with() {
        // floor-like in NLEVELS, and noisy in P: no law fits
        let s = levels(|l, p| if l > 4.0 { 0.6 } else { 0.2 } + 0.2 * (p.log2() % 2.0));
        let f = fit_probability(&s, &in_p());
        assert!(f.r2 < 0.99 && f.expr.as_const().is_some(), "{}", f.expr);
        let why = share_unexplained(&s, &f).unwrap();
        assert!(why.contains("changes with NLEVELS, P"), "{why}");
        assert!(
            why.contains("at NLEVELS=3") && why.contains("at NLEVELS=5"),
            "{why}"
        );
        assert!(!why.contains("at N="), "{why}");
        // a share that does not move: nothing to say
        let flat = levels(|_, _| 0.25);
        assert!(share_unexplained(&flat, &fit_probability(&flat, &in_p())).is_none());
    }

    fn samples(f: impl Fn(f64, f64) -> f64) -> Samples {
        let mut s = Samples::new(vec!["N".into(), "P".into()]);
        for n in [64.0, 128.0, 256.0] {
            for p in [2.0, 4.0, 8.0, 16.0] {
                s.push(vec![n, p], f(n, p));
            }
        }
        s
    }

    #[test]
    fn a_capped_count_is_the_cap_or_the_law_of_the_runs_below_it() {
        // CG-like: min(MAXIT, 1.875 N - 1) iterations
        let mut s = Samples::new(vec!["MAXIT".into(), "N".into()]);
        for n in [32.0, 64.0, 128.0] {
            for m in [100.0, 200.0] {
                s.push(vec![m, n], f64::min(m, 1.875 * n - 1.0));
            }
        }
        let cap = Expr::var("MAXIT");
        let f = fit_capped(&s, &cap, &QuantityOptions::default());
        let at = |m: f64, n: f64| {
            f.expr
                .eval(&|v| Some(if v == "MAXIT" { m } else { n }))
                .unwrap()
        };
        // (the law is fitted to three runs below the cap: within 2%)
        assert!((at(5000.0, 32.0) / 59.0 - 1.0).abs() < 0.02, "{}", f.expr);
        assert!((at(200.0, 1024.0) - 200.0).abs() < 1e-9, "{}", f.expr);
        assert!(
            (at(5000.0, 1024.0) / 1919.0 - 1.0).abs() < 0.02,
            "{}",
            f.expr
        );
        assert_eq!(f.points, 6);
        // every run at its cap: the cap, exactly
        let mut all = Samples::new(vec!["MAXIT".into(), "N".into()]);
        for m in [10.0, 20.0] {
            all.push(vec![m, 64.0], m);
        }
        let g = fit_capped(&all, &cap, &QuantityOptions::default());
        assert_eq!(g.expr, cap);
        assert_eq!(g.origin, Origin::Source);
    }

    /// A count that two runs differing only in NSTEPS measure the same has no law in NSTEPS,
    /// however the free search would like to use it.
    #[test]
    fn a_parameter_the_count_does_not_follow_stays_out_of_its_law() {
        let mut s = Samples::new(vec!["N".into(), "NSTEPS".into(), "P".into()]);
        for n in [32.0, 48.0, 64.0] {
            for steps in [10.0, 20.0] {
                for p in [1.0, 2.0, 4.0, 8.0, 16.0] {
                    // a 3-D face: (N / cbrt P)^2 rounded, plus a constant halo
                    let v = (n / f64::cbrt(p)).floor().powi(2) + 6.0;
                    s.push(vec![n, steps, p], v);
                }
            }
        }
        let f = fit_quantity(&s, None, &[], true, &QuantityOptions::default());
        assert!(!f.expr.vars().contains("NSTEPS"), "{}", f.expr);
        let inert = without_inert(&s).unwrap();
        assert_eq!(inert.params, ["N", "P"]);
        // a parameter with no pair of runs differing in it alone is kept
        let mut t = Samples::new(vec!["N".into(), "P".into()]);
        t.push(vec![32.0, 1.0], 5.0);
        t.push(vec![64.0, 2.0], 5.0);
        assert!(without_inert(&t).is_none());
    }

    /// A loop that rewrites the block it has just sent: its law at P = 1, the sheet's floor
    /// (which falls with the size past 128 KiB) where that is slower, at P = 2. The floor, not a
    /// cost per element fitted to two runs, predicts the third.
    #[test]
    fn a_floor_from_the_sheet_governs_the_runs_it_exceeds() {
        let floor_of = |bound: f64| -> [Expr; 3] {
            let e = symbolic::parse(&format!(
                "{bound}*min(1, max(0, P - 1))*N/P*(1.5e-9 - 0.7e-9*min(1, floor(N/P/16385)))"
            ))
            .unwrap();
            [&e * Expr::num(0.98), e.clone(), &e * Expr::num(1.02)]
        };
        let floor = Floor {
            bounds: floor_of(1.0),
            proven: true,
        };
        let law = |n: f64, p: f64| 0.6e-9 * n / p;
        let at =
            |e: &Expr, n: f64, p: f64| e.eval(&|v| Some(if v == "N" { n } else { p })).unwrap();
        let mut all = Samples::new(vec!["N".into(), "P".into()]);
        let mut held = Samples::new(vec!["N".into(), "P".into()]);
        for n in [16384.0, 32768.0, 65536.0] {
            for p in [1.0, 2.0] {
                let y = law(n, p).max(at(&floor.bounds[1], n, p));
                all.push(vec![n, p], y);
                if !(n == 65536.0 && p == 2.0) {
                    held.push(vec![n, p], y);
                }
            }
        }
        let w = symbolic::parse("N/P").unwrap();
        let ramp = symbolic::parse("min(1, max(0, P - 1))").unwrap();
        let f = fit_scaled(&all, &w, None, Some(&ramp), &Expr::var("P"), Some(&floor));
        assert!(f.expr.to_string().starts_with("max("), "{}", f.expr);
        for (n, p) in [
            (16384.0, 1.0),
            (65536.0, 1.0),
            (32768.0, 2.0),
            (65536.0, 2.0),
        ] {
            let want = law(n, p).max(at(&floor.bounds[1], n, p));
            assert!(
                (at(&f.expr, n, p) / want - 1.0).abs() < 0.01,
                "{n},{p}: {}",
                f.expr
            );
            assert!(at(&f.lo, n, p) <= at(&f.expr, n, p) && at(&f.expr, n, p) <= at(&f.hi, n, p));
        }
        // the run past the fall, held out: the floor predicts it; a cost per element fitted
        // to the two P = 2 runs before the fall does not
        let (n, p) = (65536.0, 2.0);
        let want = at(&floor.bounds[1], n, p);
        let g = fit_scaled(&held, &w, None, Some(&ramp), &Expr::var("P"), Some(&floor));
        assert!((at(&g.expr, n, p) / want - 1.0).abs() < 0.01, "{}", g.expr);
        let h = fit_scaled(&held, &w, None, Some(&ramp), &Expr::var("P"), None);
        assert!(at(&h.expr, n, p) / want > 1.3, "{}", h.expr);
        // where the source cannot tell whether the loop rewrites what was sent, the floor is
        // only a candidate: runs that never come near it keep their law
        let maybe = Floor {
            bounds: floor_of(0.1),
            proven: false,
        };
        let mut plain = Samples::new(vec!["N".into(), "P".into()]);
        for n in [16384.0, 32768.0, 65536.0] {
            for p in [1.0, 2.0] {
                plain.push(vec![n, p], law(n, p));
            }
        }
        let k = fit_scaled(&plain, &w, None, Some(&ramp), &Expr::var("P"), Some(&maybe));
        assert!(!k.expr.to_string().contains("max("), "{}", k.expr);
        // and a floor the runs do follow is taken even when not proven
        let both = Floor {
            bounds: floor.bounds.clone(),
            proven: false,
        };
        let j = fit_scaled(&all, &w, None, Some(&ramp), &Expr::var("P"), Some(&both));
        assert!(j.expr.to_string().starts_with("max("), "{}", j.expr);
    }

    /// A proven floor stays where no traced run reaches it (it may govern other sizes), and
    /// where every run is governed by it the law is still fitted (to all runs: an upper bound)
    /// and the floor kept; an unproven one in those cases is dropped, and a floor that does
    /// not evaluate is no floor.
    #[test]
    fn a_proven_floor_is_kept_where_the_runs_cannot_judge_it() {
        let w = symbolic::parse("N/P").unwrap();
        let floor_at = |k: f64| -> [Expr; 3] {
            let e = symbolic::parse(&format!("{k}*min(1, max(0, P - 1))*N/P")).unwrap();
            [e.clone(), e.clone(), e]
        };
        let samples = |f: &dyn Fn(f64, f64) -> f64, ps: &[f64]| {
            let mut s = Samples::new(vec!["N".into(), "P".into()]);
            for n in [16384.0, 32768.0, 65536.0] {
                for &p in ps {
                    s.push(vec![n, p], f(n, p));
                }
            }
            s
        };
        let at =
            |e: &Expr, n: f64, p: f64| e.eval(&|v| Some(if v == "N" { n } else { p })).unwrap();
        // a floor a tenth of the law: proven, kept (and the law rules the runs)
        let law = |n: f64, p: f64| 1e-9 * n / p;
        let low = samples(&law, &[1.0, 2.0]);
        for proven in [true, false] {
            let fl = Floor {
                bounds: floor_at(1e-10),
                proven,
            };
            let f = fit_scaled(&low, &w, None, None, &Expr::var("P"), Some(&fl));
            assert_eq!(f.expr.to_string().starts_with("max("), proven, "{}", f.expr);
            assert!((at(&f.expr, 65536.0, 2.0) / law(65536.0, 2.0) - 1.0).abs() < 1e-6);
        }
        // every run governed (no P = 1 run): the floor is kept under a proven floor
        let floor = |n: f64, p: f64| 2e-9 * n / p;
        let high = samples(&floor, &[2.0, 4.0]);
        let fl = Floor {
            bounds: floor_at(2e-9),
            proven: true,
        };
        let f = fit_scaled(&high, &w, None, None, &Expr::var("P"), Some(&fl));
        assert!(f.expr.to_string().starts_with("max("), "{}", f.expr);
        assert!(at(&f.expr, 65536.0, 4.0) >= floor(65536.0, 4.0) * (1.0 - 1e-9));
        // a floor that does not evaluate (a parameter the runs do not have)
        let bad = Floor {
            bounds: [Expr::var("Q"), Expr::var("Q"), Expr::var("Q")],
            proven: true,
        };
        let g = fit_scaled(&low, &w, None, None, &Expr::var("P"), Some(&bad));
        assert!(!g.expr.to_string().contains("max("), "{}", g.expr);
    }

    #[test]
    fn a_fit_from_one_run_has_a_finite_band() {
        let mut s = Samples::new(vec!["N".into(), "P".into()]);
        s.push(vec![64.0, 4.0], 3e-3);
        // a computation's cost per entry scaled by its work, N/P: one coefficient, one point
        let w = Expr::var("N") / Expr::var("P");
        let f = fit_scaled(&s, &w, None, None, &Expr::var("P"), None);
        let at = |e: &Expr| {
            e.eval(&|n| Some(if n == "N" { 128.0 } else { 8.0 }))
                .unwrap()
        };
        let (lo, mid, hi) = (at(&f.lo), at(&f.expr), at(&f.hi));
        assert!(lo.is_finite() && mid.is_finite() && hi.is_finite(), "{f:?}");
        assert!(lo <= mid && mid <= hi, "{lo} {mid} {hi}");
    }

    #[test]
    fn retain_keeps_points_and_values_together() {
        let mut s = samples(|n, p| n / p);
        s.retain(|v| v >= 16.0);
        assert_eq!(s.values.len(), s.points.len());
        assert_eq!(s.values.len(), 9); // 2 + 3 + 4 of the 12 (N / P with N = 64, 128, 256)
        for (pt, v) in s.points.iter().zip(&s.values) {
            assert_eq!(pt[0] / pt[1], *v);
            assert!(*v >= 16.0);
        }
    }

    #[test]
    fn source_expression_accepted_or_scaled() {
        let src = symbolic::parse("N/P").unwrap();
        let o = QuantityOptions::default();
        let f = fit_quantity(&samples(|n, p| n / p), Some(&src), &[], false, &o);
        assert_eq!(f.origin, Origin::Source);
        let g = fit_quantity(&samples(|n, p| 3e-9 * n / p), Some(&src), &[], false, &o);
        assert_eq!(g.origin, Origin::SourceScaled);
        assert!((g.expr.terms()[0].coef() - 3e-9).abs() < 1e-15);
    }

    #[test]
    fn scaled_cost_adds_a_cost_per_outer_iteration_when_it_earns_it() {
        let w = symbolic::parse("N^2/P").unwrap();
        let outer = symbolic::parse("N").unwrap();
        // 3 ns per element plus 2 us per row (a page fault on each new row)
        let f = fit_scaled(
            &samples(|n, p| 3e-9 * n * n / p + 2e-6 * n),
            &w,
            Some(&outer),
            None,
            &Expr::var("P"),
            None,
        );
        let row = f.expr.terms().iter().find(|t| t.monomial() == outer);
        assert!(
            row.is_some_and(|t| (t.coef() - 2e-6).abs() < 1e-9),
            "{}",
            f.expr
        );
        // without a per-row cost the plain form wins
        let g = fit_scaled(
            &samples(|n, p| 3e-9 * n * n / p),
            &w,
            Some(&outer),
            None,
            &Expr::var("P"),
            None,
        );
        assert_eq!(g.expr.terms().len(), 1, "{}", g.expr);
    }

    fn at_np(e: &Expr, n: f64, p: f64) -> f64 {
        e.eval(&|x| match x {
            "N" => Some(n),
            "P" => Some(p),
            _ => None,
        })
        .unwrap()
    }

    #[test]
    fn scaled_cost_follows_a_cost_per_element_that_grows_with_the_swept_volume() {
        let w = symbolic::parse("N^2/P + 2*N + 4").unwrap();
        // 1.6 ns per element, plus 0.2 ns per element per 10^4 elements swept by all ranks (at
        // N = 256, 1.3 ns: the data no longer fits)
        let cost = |n: f64, p: f64| (n * n / p + 2.0 * n + 4.0) * (1.6e-9 + 0.2e-9 * n * n / 1e4);
        let f = fit_scaled(&samples(cost), &w, None, None, &Expr::var("P"), None);
        let at = |n: f64, p: f64| at_np(&f.expr, n, p);
        // between the traced sizes it follows the growth
        let rel = at(192.0, 4.0) / cost(192.0, 4.0) - 1.0;
        assert!(rel.abs() < 0.05, "{rel} {}", f.expr);
        // beyond them the cost per element stays at the largest traced volume's
        let per = |n: f64, c: f64| c / (n * n / 4.0 + 2.0 * n + 4.0);
        let rel = per(512.0, at(512.0, 4.0)) / per(256.0, cost(256.0, 4.0)) - 1.0;
        assert!(rel.abs() < 0.05, "{rel} {}", f.expr);
    }

    #[test]
    fn slowest_rank_per_occurrence_grows_with_log2_of_the_ranks() {
        let w = symbolic::parse("N^2/P").unwrap();
        // the slowest of P ranks, noise of an exponential tail: 10% more per doubling
        let cost = |n: f64, p: f64| 2e-9 * n * n / p * (1.0 + 0.1 * p.log2());
        let f = fit_scaled(&samples(cost), &w, None, None, &Expr::var("P"), None);
        let rel = at_np(&f.expr, 256.0, 256.0) / cost(256.0, 256.0) - 1.0;
        assert!(rel.abs() < 1e-6, "{rel} {}", f.expr);
        // inside a pipeline (one rank at a time) no such term is offered
        let g = fit_scaled(&samples(cost), &w, None, None, &Expr::one(), None);
        assert!(!g.expr.to_string().contains("log2"), "{}", g.expr);
    }

    #[test]
    fn scaled_cost_per_element_differs_where_the_phase_communicates() {
        let mut s = Samples::new(vec!["N".into(), "P".into()]);
        // a sender's update: 0.6 ns per element alone (P = 1), 1.2 ns at P = 2
        for n in [16384.0, 32768.0, 65536.0] {
            for (p, c) in [(1.0, 0.6e-9), (2.0, 1.2e-9)] {
                s.push(vec![n, p], c * n / p);
            }
        }
        let w = symbolic::parse("N/P").unwrap();
        let ramp = symbolic::parse("min(1, max(0, P - 1))").unwrap();
        let f = fit_scaled(&s, &w, None, Some(&ramp), &Expr::var("P"), None);
        let at = |n: f64, p: f64| at_np(&f.expr, n, p);
        for (p, c) in [(1.0, 0.6e-9), (2.0, 1.2e-9)] {
            let rel = at(32768.0, p) / (c * 32768.0 / p) - 1.0;
            assert!(rel.abs() < 1e-6, "P = {p}: {rel} {}", f.expr);
        }
        // without the ramp one cost per element cannot serve both (at P = 1, 2 the log2(P)
        // spread outside pipelines is the ramp itself, so this is a pipeline's site)
        let g = fit_scaled(&s, &w, None, None, &Expr::one(), None);
        assert!(g.max_rel_err > 0.1, "{}", g.expr);
    }

    #[test]
    fn counters_fit_one_power_law() {
        let o = QuantityOptions::default();
        let f = fit_quantity(&samples(|n, p| n / p), None, &[], true, &o);
        assert_eq!(f.expr.to_string(), "N/P");
        // a process grid's x extent N/Px, Px the largest divisor of P not above sqrt(P): no
        // power law is exact; the one-term law in sqrt(P) is exact at square P
        let px = |p: f64| {
            (1..=p as u64)
                .filter(|d| d * d <= p as u64 && (p as u64).is_multiple_of(*d))
                .max()
        };
        let g = fit_quantity(
            &samples(|n, p| n / px(p).unwrap_or(1) as f64),
            None,
            &[],
            true,
            &o,
        );
        let t = g.expr.terms();
        assert!(g.expr.to_string().contains("N/sqrt(P)"), "{}", g.expr);
        assert!(t.len() <= 2, "{}", g.expr);
    }

    /// A worker's share N/(P − 1) and a 3-D block's edge N/cbrt(P) are exact laws of their own,
    /// not the nearest law in halves of P.
    #[test]
    fn counters_in_p_minus_1_and_cube_roots() {
        let o = QuantityOptions::default();
        let f = fit_quantity(&samples(|n, p| n / (p - 1.0)), None, &[], true, &o);
        let at =
            |e: &Expr, n: f64, p: f64| e.eval(&|v| Some(if v == "N" { n } else { p })).unwrap();
        assert!(
            (at(&f.expr, 1024.0, 64.0) - 1024.0 / 63.0).abs() < 1e-6,
            "{}",
            f.expr
        );
        let mut s = Samples::new(vec!["N".into(), "P".into()]);
        for n in [32.0, 48.0, 64.0] {
            for p in [1.0, 8.0, 27.0, 64.0] {
                s.push(vec![n, p], n / f64::cbrt(p));
            }
        }
        let g = fit_quantity(&s, None, &[], true, &o);
        assert!((at(&g.expr, 96.0, 512.0) - 12.0).abs() < 1e-6, "{}", g.expr);
    }

    #[test]
    fn depth_regression_is_tidy() {
        let cands = vec![
            vec![Expr::one()],
            vec![Expr::var("P"), Expr::one()],
            vec![Expr::var("P")],
        ];
        let f = fit_quantity(
            &samples(|_, p| p - 1.0),
            None,
            &cands,
            true,
            &QuantityOptions::default(),
        );
        assert_eq!(f.expr.to_string(), "P - 1");
        assert!(f.origin.by_regression());
    }
}
