//! Positive real roots of g(K) = 0 for one variable: closed form when g groups into two powers of
//! K, quadratic/cubic in K^g, else sign-change bracketing on a log grid refined by Brent's method.

use crate::canon;
use crate::expr::{Atom, Expr};
use crate::rational::Rational;
use std::collections::BTreeMap;

/// How a root (and so a candidate optimum) was found.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Method {
    /// C₁K^e₁ + C₂K^e₂ = 0 ⇒ K = (−C₂/C₁)^(1/(e₁−e₂)).
    TwoPower,
    /// Quadratic in K^g (closed form).
    Quadratic,
    /// Cubic in K^g (Cardano, numeric).
    Cubic,
    /// Brent's method on a bracketed sign change.
    Brent,
    /// Where two arguments of a `max`/`min` meet.
    Breakpoint,
    /// An end of the search range.
    Boundary,
    /// The lowest exact T on a grid over the range: T has a `floor`/`ceil` in the variable
    /// and its relaxed form's stationary point is not where the exact T is least.
    Scan,
}

impl std::fmt::Display for Method {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Method::TwoPower => "closed form (two powers of the variable)",
            Method::Quadratic => "closed form (quadratic)",
            Method::Cubic => "cubic (Cardano)",
            Method::Brent => "numeric (Brent)",
            Method::Breakpoint => "max/min breakpoint",
            Method::Boundary => "range boundary",
            Method::Scan => {
                "scan of the exact T (its relaxed form's stationary point is not its minimum)"
            }
        })
    }
}

#[derive(Clone, Debug)]
pub(crate) struct Root {
    pub k: f64,
    pub method: Method,
    pub closed: Option<Expr>,
}

/// Coefficients of g grouped by the exponent of `var`; `None` when `var` occurs other than as a
/// plain power factor.
pub(crate) fn power_groups(g: &Expr, var: &str) -> Option<BTreeMap<Rational, Expr>> {
    let target = Atom::Var(var.to_string());
    let mut groups: BTreeMap<Rational, Expr> = BTreeMap::new();
    for t in g.terms() {
        let mut e = Rational::ZERO;
        let mut rest = Vec::with_capacity(t.factors().len());
        for (a, q) in t.factors() {
            if *a == target {
                e = *q;
            } else if a.args().iter().any(|x| x.contains_var(var)) {
                return None;
            } else {
                rest.push((a.clone(), *q));
            }
        }
        let c = canon::term_expr(t.coef(), rest);
        let slot = groups.entry(e).or_default();
        *slot = &*slot + c;
    }
    groups.retain(|_, c| !c.is_zero());
    Some(groups)
}

fn rat_gcd(a: Rational, b: Rational) -> Rational {
    fn igcd(mut a: i64, mut b: i64) -> i64 {
        while b != 0 {
            (a, b) = (b, a % b);
        }
        a.abs()
    }
    let num = igcd(
        a.numer().wrapping_mul(b.denom()),
        b.numer().wrapping_mul(a.denom()),
    );
    let den = a.denom().wrapping_mul(b.denom());
    Rational::new(num, den).unwrap_or(Rational::ONE)
}

/// Positive roots of `g` in `var` within `(lo, hi)`; `lookup` gives the other variables.
pub(crate) fn positive_roots(
    g: &Expr,
    var: &str,
    lookup: &dyn Fn(&str) -> Option<f64>,
    lo: f64,
    hi: f64,
) -> Result<Vec<Root>, crate::EvalError> {
    let inside =
        |k: f64| k.is_finite() && k > 0.0 && k >= lo * (1.0 - 1e-12) && k <= hi * (1.0 + 1e-12);
    if let Some(groups) = power_groups(g, var) {
        let mut coeffs: Vec<(Rational, Expr, f64)> = Vec::with_capacity(groups.len());
        for (e, c) in groups {
            let v = c.eval(lookup)?;
            coeffs.push((e, c, v));
        }
        coeffs.retain(|(_, _, v)| *v != 0.0);
        match coeffs.len() {
            0 | 1 => return Ok(Vec::new()),
            2 => {
                let (e2, c2, v2) = &coeffs[0];
                let (e1, c1, v1) = &coeffs[1];
                let ratio = -v2 / v1;
                let Some(inv) = Rational::ONE.checked_div(e1.add_lossy(-*e2)) else {
                    return Ok(Vec::new());
                };
                if ratio <= 0.0 {
                    return Ok(Vec::new());
                }
                let k = inv.pow_f64(ratio);
                let closed = (-c2 / c1).pow(inv);
                let check = closed
                    .eval(lookup)
                    .ok()
                    .filter(|x| (x - k).abs() <= 1e-9 * k.abs());
                return Ok(if inside(k) {
                    vec![Root {
                        k,
                        method: Method::TwoPower,
                        closed: check.map(|_| closed),
                    }]
                } else {
                    Vec::new()
                });
            }
            _ => {
                let m = coeffs[0].0;
                let mut step = Rational::ZERO;
                for (e, _, _) in &coeffs[1..] {
                    let s = e.add_lossy(-m);
                    step = if step.is_zero() { s } else { rat_gcd(step, s) };
                }
                let degrees: Option<Vec<usize>> = coeffs
                    .iter()
                    .map(|(e, _, _)| {
                        e.add_lossy(-m)
                            .checked_div(step)
                            .filter(|d| d.is_integer())
                            .and_then(|d| usize::try_from(d.numer()).ok())
                    })
                    .collect();
                if let Some(deg) = degrees.filter(|d| d.iter().all(|&x| x <= 3)) {
                    let mut a = [0.0f64; 4];
                    let mut sym: [Expr; 4] = Default::default();
                    for ((_, c, v), d) in coeffs.iter().zip(&deg) {
                        a[*d] = *v;
                        sym[*d] = c.clone();
                    }
                    let inv = Rational::ONE.checked_div(step).unwrap_or(Rational::ONE);
                    let top = deg.iter().copied().max().unwrap_or(0);
                    let mut out = Vec::new();
                    if top == 2 {
                        for (u, sign) in quadratic(a[2], a[1], a[0]) {
                            let k = if u > 0.0 { inv.pow_f64(u) } else { f64::NAN };
                            if !inside(k) {
                                continue;
                            }
                            let disc =
                                (&sym[1] * &sym[1] - Expr::int(4) * &sym[2] * &sym[0]).sqrt();
                            let u_sym =
                                (-&sym[1] + Expr::num(sign) * disc) / (Expr::int(2) * &sym[2]);
                            let closed = u_sym.pow(inv);
                            let check = closed
                                .eval(lookup)
                                .ok()
                                .filter(|x| (x - k).abs() <= 1e-6 * k.abs());
                            out.push(Root {
                                k,
                                method: Method::Quadratic,
                                closed: check.map(|_| closed),
                            });
                        }
                    } else {
                        for u in cubic(a[3], a[2], a[1], a[0]) {
                            let k = if u > 0.0 { inv.pow_f64(u) } else { f64::NAN };
                            if inside(k) {
                                out.push(Root {
                                    k,
                                    method: Method::Cubic,
                                    closed: None,
                                });
                            }
                        }
                    }
                    return Ok(out);
                }
            }
        }
    }
    numeric_roots(g, var, lookup, lo, hi)
}

/// Real roots of a·u² + b·u + c with the sign of the square root used (numerically stable).
fn quadratic(a: f64, b: f64, c: f64) -> Vec<(f64, f64)> {
    let d = b * b - 4.0 * a * c;
    if d < 0.0 || a == 0.0 {
        return Vec::new();
    }
    let s = d.sqrt();
    vec![((-b + s) / (2.0 * a), 1.0), ((-b - s) / (2.0 * a), -1.0)]
}

/// Real roots of a·u³ + b·u² + c·u + d (trigonometric / Cardano form).
fn cubic(a: f64, b: f64, c: f64, d: f64) -> Vec<f64> {
    if a == 0.0 {
        return quadratic(b, c, d).into_iter().map(|(u, _)| u).collect();
    }
    let (b, c, d) = (b / a, c / a, d / a);
    let p = c - b * b / 3.0;
    let q = 2.0 * b * b * b / 27.0 - b * c / 3.0 + d;
    let shift = -b / 3.0;
    let disc = q * q / 4.0 + p * p * p / 27.0;
    if disc > 0.0 {
        let s = disc.sqrt();
        vec![(-q / 2.0 + s).cbrt() + (-q / 2.0 - s).cbrt() + shift]
    } else if p == 0.0 {
        vec![shift]
    } else {
        let r = (-p / 3.0).sqrt();
        let phi = ((3.0 * q) / (2.0 * p * r)).clamp(-1.0, 1.0).acos() / 3.0;
        (0..3)
            .map(|k| {
                2.0 * r * (phi - 2.0 * std::f64::consts::PI * f64::from(k) / 3.0).cos() + shift
            })
            .collect()
    }
}

/// Grid size for sign-change bracketing (log-spaced).
const GRID: usize = 400;

fn numeric_roots(
    g: &Expr,
    var: &str,
    lookup: &dyn Fn(&str) -> Option<f64>,
    lo: f64,
    hi: f64,
) -> Result<Vec<Root>, crate::EvalError> {
    let f = |k: f64| g.eval(&|v| if v == var { Some(k) } else { lookup(v) });
    let (llo, lhi) = (lo.max(1e-300).ln(), hi.ln());
    let mut out = Vec::new();
    let mut prev = (lo, f(lo)?);
    for i in 1..=GRID {
        let k = (llo + (lhi - llo) * i as f64 / GRID as f64).exp();
        let fk = f(k)?;
        if prev.1 == 0.0 {
            out.push(Root {
                k: prev.0,
                method: Method::Brent,
                closed: None,
            });
        } else if prev.1.is_finite()
            && fk.is_finite()
            && prev.1.signum() != fk.signum()
            && fk != 0.0
        {
            let mut err = None;
            let r = brent(
                |x| match f(x) {
                    Ok(v) => v,
                    Err(e) => {
                        err = Some(e);
                        f64::NAN
                    }
                },
                prev.0,
                k,
            );
            if let Some(e) = err {
                return Err(e);
            }
            out.push(Root {
                k: r,
                method: Method::Brent,
                closed: None,
            });
        }
        prev = (k, fk);
    }
    Ok(out)
}

/// Brent's root finder on a bracket `[a, b]` with `f(a)·f(b) < 0`.
pub(crate) fn brent(mut f: impl FnMut(f64) -> f64, a: f64, b: f64) -> f64 {
    let (mut a, mut b) = (a, b);
    let (mut fa, mut fb) = (f(a), f(b));
    if fa.abs() < fb.abs() {
        std::mem::swap(&mut a, &mut b);
        std::mem::swap(&mut fa, &mut fb);
    }
    let (mut c, mut fc) = (a, fa);
    let mut d = b - a;
    let mut bisected = true;
    for _ in 0..200 {
        if fb == 0.0 || (b - a).abs() <= 1e-14 * b.abs().max(1e-300) {
            break;
        }
        let mut s = if fa != fc && fb != fc {
            a * fb * fc / ((fa - fb) * (fa - fc))
                + b * fa * fc / ((fb - fa) * (fb - fc))
                + c * fa * fb / ((fc - fa) * (fc - fb))
        } else {
            b - fb * (b - a) / (fb - fa)
        };
        let m = (3.0 * a + b) / 4.0;
        let out_of_range = !((s > m.min(b)) && (s < m.max(b)));
        let slow = if bisected {
            (s - b).abs() >= (b - c).abs() / 2.0
        } else {
            (s - b).abs() >= (c - d).abs() / 2.0
        };
        if out_of_range || slow || !s.is_finite() {
            s = (a + b) / 2.0;
            bisected = true;
        } else {
            bisected = false;
        }
        let fs = f(s);
        d = c;
        (c, fc) = (b, fb);
        if fa * fs < 0.0 {
            (b, fb) = (s, fs);
        } else {
            (a, fa) = (s, fs);
        }
        if fa.abs() < fb.abs() {
            std::mem::swap(&mut a, &mut b);
            std::mem::swap(&mut fa, &mut fb);
        }
    }
    b
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn polynomial_helpers() {
        let mut r: Vec<f64> = cubic(1.0, -6.0, 11.0, -6.0);
        r.sort_by(f64::total_cmp);
        assert!(
            (r[0] - 1.0).abs() < 1e-9 && (r[1] - 2.0).abs() < 1e-9 && (r[2] - 3.0).abs() < 1e-9,
            "{r:?}"
        );
        let q = quadratic(1.0, -3.0, 2.0);
        assert!((q[0].0 - 2.0).abs() < 1e-12 && (q[1].0 - 1.0).abs() < 1e-12);
        let x = brent(|x| x * x - 2.0, 0.0, 3.0);
        assert!((x - 2f64.sqrt()).abs() < 1e-12);
    }
}
