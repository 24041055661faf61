//! The power-law fit of a count the source does not give: `c·Π v^e` (and with a constant)
//! from least squares on the logs, exponents rounded to halves (thirds and P − 1 tried too).

use symbolic::fit::{self, FitOptions, FitResult};
use symbolic::{Expr, Rational};

use super::{from_fit, least_loo, tidy, Fitted, Origin, Samples};

/// `c·Π v^e` (and `c·Π v^e + c0`) for positive data: exponents from least squares on the logs,
/// rounded to halves, then the coefficients refitted; the variant with the smaller
/// leave-one-out error wins (returned beside the fit). Exponents in thirds (a 3-D grid) and
/// P − 1 for P (master/worker) are tried too and win only with a 4x smaller held-out error. None when the data are not all positive
/// or nothing varies.
pub(super) fn fit_monomial(s: &Samples, opts: &FitOptions) -> Option<(Fitted, f64)> {
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
