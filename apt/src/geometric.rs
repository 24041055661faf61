//! Geometric loops (trial 8 item 5): a while loop (a C `for` without a constant step included)
//! whose counter every iteration multiplies or divides by a constant `c > 1` against a bound
//! the loop does not change: `for (mask = 1; mask < nprocs; mask <<= 1)`, `v *= 3`,
//! `m = 2*m` in a Fortran `do while (m < n)`, `for (s = n; s > 0; s >>= 1)`, `v /= 2`.
//!
//! The trip counts follow the integer semantics exactly (a unit test runs the loops and
//! compares): with `R` the ratio the counter must cover,
//! - up, `v < L`: ⌈log_c(L/v0)⌉; `v <= L`: ⌊log_c(L/v0)⌋ + 1;
//! - down, real `v > L`: ⌈log_c(v0/L)⌉; `v >= L`: ⌊log_c(v0/L)⌋ + 1;
//! - down, integer division (`v /= c`, `v >>= k`: `v_k = ⌊v0/c^k⌋` for `v0 ≥ 0`): `v > L` is
//!   `v ≥ L + 1`, so ⌊log_c(v0/(L + 1))⌋ + 1; `v >= L`: ⌊log_c(v0/L)⌋ + 1; `v != 0` is `v > 0`.
//!
//! Each is the count of k ≥ 0 meeting the test when the counter starts inside its range
//! (v0 > 0; a counter starting past its bound gives 0 or a negative count, as a counted loop
//! with lo > hi does). `log_c x = log2(x)/log2(c)` is exact in floating point only for c a power
//! of two and a ratio whose denominator is a constant power of two; elsewhere a margin of
//! 1e-12 inside the rounding keeps exact powers of c on the right side (exact for ratios up to
//! about 1e11).
use frontend::{BinOp, Program, SrcExpr, SrcExprKind, While};
use symbolic::{Atom, Expr, Rational};

use crate::cap;
use crate::procs::ProcFacts;

/// A recognised geometric loop.
#[derive(Debug, Clone, PartialEq)]
pub struct Geometric<'w> {
    /// The counter.
    pub var: String,
    /// The bound it is tested against (`None`: `v != 0`, a bound of 0).
    pub limit: Option<&'w SrcExpr>,
    /// Multiplied each iteration (else divided).
    pub up: bool,
    /// The test includes the bound (`<=`, `>=`).
    pub inclusive: bool,
    /// The constant factor, > 1.
    pub factor: f64,
    /// Division truncates (an integer counter).
    pub int_div: bool,
    /// The condition has other conjuncts (they may end it early).
    pub more_conjuncts: bool,
}

/// Below this, a value is taken as an integer when choosing the exact rounding.
const MARGIN: f64 = 1e-12;

impl Geometric<'_> {
    /// The trip from the counter's entry value `v0` and the bound's value `bound`.
    pub fn trip(&self, v0: &Expr, bound: &Expr) -> Expr {
        let (num, den, ceil) = match (self.up, self.int_div, self.inclusive) {
            (true, _, strict) => (bound.clone(), v0.clone(), !strict),
            (false, false, strict) => (v0.clone(), bound.clone(), !strict),
            (false, true, false) => (v0.clone(), bound + Expr::one(), false),
            (false, true, true) => (v0.clone(), bound.clone(), false),
        };
        let k = self.factor.log2();
        let exact = is_pow2(self.factor) && den.as_const().is_some_and(is_pow2);
        let log = (num / den).log2() / Expr::num(k);
        let margin = if exact { 0.0 } else { MARGIN };
        if ceil {
            (log - Expr::num(margin)).ceil()
        } else {
            (log + Expr::num(margin)).floor() + Expr::one()
        }
    }
}

/// The values a geometric loop's counter takes in its body: `start·ratio^j` for j = 0 ..
/// trip − 1 (`ratio` < 1 for a counter divided each iteration). The body's work summed over
/// them ([`Values::sum`]) has a closed form for a factor that is a power of 2.
#[derive(Debug, Clone, PartialEq)]
pub struct Values {
    pub start: Expr,
    pub ratio: f64,
    pub trip: Expr,
}

impl Values {
    /// The counter's values, for a loop whose trip is `trip` from the entry value `start`.
    pub fn of(g: &Geometric<'_>, start: Expr, trip: Expr) -> Values {
        Values {
            start,
            ratio: if g.up { g.factor } else { 1.0 / g.factor },
            trip,
        }
    }

    /// Σ of `body` over the values of `sym`. Two things are taken as exact that are exact for
    /// the sizes such loops are written for (an FFT's or a reduction tree's powers of 2):
    /// - the counter's last value is its bound (the trip's `floor(log2(N))` read as
    ///   `log2(N)`: the bound is the start times a power of the factor);
    /// - the counter divides the parameter terms of a quotient that is truncated
    ///   (`floor(N/len - 1/len) + 1`, the blocks of a `for (s = 0; s < n; s += len)`, is
    ///   `N/len`).
    ///
    /// `Err` with the reason where neither gives a closed form (a factor not a power of 2,
    /// the counter inside a log2 or a min).
    pub fn sum(&self, body: &Expr, sym: &str) -> Result<Expr, String> {
        let k = self.ratio.log2();
        if k.fract() != 0.0 || k == 0.0 {
            return Err(format!(
                "no closed form for the sum over `{sym}`: its factor is not a power of 2"
            ));
        }
        let no_form = || format!("no closed form for the sum over `{sym}`");
        let body = divisible_quotients(body, sym).ok_or_else(no_form)?;
        // r^trip, with the trip's roundings dropped
        let r_pow = self.trip_power_of_2().ok_or_else(no_form)?.powi(k as i64);
        symbolic::sum_geometric(&body, sym, &self.start, self.ratio, &self.trip, &r_pow)
            .ok_or_else(no_form)
    }

    /// 2^trip with its floors and ceilings dropped: each `c·log2(E)` gives `E^c`, a constant
    /// `c` gives 2^c; `None` for any other term.
    fn trip_power_of_2(&self) -> Option<Expr> {
        let mut t = self.trip.clone();
        while let Some((a, x)) = rounding(&t, None) {
            t = t.replace_atom(&a, &x);
        }
        let mut out = Expr::one();
        for term in t.terms() {
            let c = term.coef();
            match term.factors() {
                [] => {
                    let c = if (c - c.round()).abs() < 1e-9 {
                        c.round()
                    } else {
                        c
                    };
                    out = out * Expr::num(c.exp2());
                }
                [(Atom::Log2(e), q)] if *q == Rational::from_f64(1.0)? => {
                    out = out * e.pow(Rational::from_f64(c)?);
                }
                _ => return None,
            }
        }
        Some(out)
    }
}

/// The first floor or ceiling atom in `e` (one whose argument mentions `var`, when given), with
/// its argument.
fn rounding(e: &Expr, var: Option<&str>) -> Option<(Atom, Expr)> {
    for t in e.terms() {
        for (a, _) in t.factors() {
            match a {
                Atom::Floor(x) | Atom::Ceil(x) if var.is_none_or(|v| x.contains_var(v)) => {
                    return Some((a.clone(), (**x).clone()));
                }
                _ => {
                    for x in a.args() {
                        if let Some(found) = rounding(x, var) {
                            return Some(found);
                        }
                    }
                }
            }
        }
    }
    None
}

/// `e` with each floor/ceiling of a quotient by `var` taken exactly as if `var` divided its
/// parameter terms: `floor(X/var + c/var + k) = X/var + k + floor(c/var)`, with `floor(c/var)`
/// = −1 for −1 ≤ c < 0 and 0 for 0 ≤ c ≤ 1 (`var` ≥ 1), likewise `ceil`. `None` for another
/// constant part (a non-integer `k`, |c| > 1).
fn divisible_quotients(e: &Expr, var: &str) -> Option<Expr> {
    let mut e = e.clone();
    let over = Atom::Var(var.to_string());
    while let Some((a, x)) = rounding(&e, Some(var)) {
        let (mut rest, mut k, mut c) = (Expr::zero(), 0.0, 0.0);
        for t in x.terms() {
            match t.factors() {
                [] => k += t.coef(),
                [(v, q)] if *v == over && *q == Rational::from_f64(-1.0)? => c += t.coef(),
                _ => rest = rest + Expr::num(t.coef()) * t.monomial(),
            }
        }
        if k.fract() != 0.0 || c.abs() > 1.0 {
            return None;
        }
        let up = matches!(a, Atom::Ceil(_));
        let part = match (up, c) {
            (false, c) if c < 0.0 => -1.0,
            (true, c) if c > 0.0 => 1.0,
            _ => 0.0,
        };
        e = e.replace_atom(&a, &(rest + Expr::num(k + part)));
    }
    Some(e)
}

fn is_pow2(x: f64) -> bool {
    x >= 1.0 && x.fract() == 0.0 && x < 9.0e15 && (x as u64).is_power_of_two()
}

/// `w` as a geometric loop, when it is one. `is_int`: whether a name is an integer scalar of
/// the procedure; `invariant`: whether a bound expression keeps its value through the loop.
pub fn recognise<'w>(
    prog: &Program,
    procs: &ProcFacts,
    w: &'w While,
    is_int: &dyn Fn(&str) -> bool,
    invariant: &dyn Fn(&SrcExpr) -> bool,
) -> Option<Geometric<'w>> {
    let cond = w.cond.as_ref()?;
    let parts = cap::conjuncts(cond);
    let more_conjuncts = parts.len() > 1;
    parts.iter().find_map(|c| {
        recognise_test(prog, procs, w, c, is_int, invariant).map(|g| Geometric {
            more_conjuncts,
            ..g
        })
    })
}

/// The conjunct `c` of `w`'s condition as a geometric loop's test, when it is one
/// (`more_conjuncts` false).
pub fn recognise_test<'w>(
    prog: &Program,
    procs: &ProcFacts,
    w: &'w While,
    c: &'w SrcExpr,
    is_int: &dyn Fn(&str) -> bool,
    invariant: &dyn Fn(&SrcExpr) -> bool,
) -> Option<Geometric<'w>> {
    let (var, limit, up, inclusive) = test(c)?;
    if limit.is_some_and(|l| !invariant(l)) {
        return None;
    }
    let (factor, grows, truncating) = update(prog, procs, w, var)?;
    let int = is_int(var);
    if grows != up || (int && factor.fract() != 0.0) || (limit.is_none() && !int) {
        return None;
    }
    Some(Geometric {
        var: var.to_string(),
        limit,
        up,
        inclusive,
        factor,
        int_div: !up && (int || truncating),
        more_conjuncts: false,
    })
}

/// `v < L` (up), `v > L` (down) and their mirrors and inclusive forms, `v != 0` (down to 0):
/// the counter, the bound, up, inclusive.
fn test(e: &SrcExpr) -> Option<(&str, Option<&SrcExpr>, bool, bool)> {
    let SrcExprKind::Binary { op, lhs, rhs } = &e.kind else {
        return None;
    };
    fn var(x: &SrcExpr) -> Option<&str> {
        match &x.kind {
            SrcExprKind::Var(v) => Some(v.as_str()),
            _ => None,
        }
    }
    let (v, limit, op) = match (var(lhs), var(rhs)) {
        (Some(v), _) => (v, &**rhs, *op),
        (None, Some(v)) => {
            let mirrored = match op {
                BinOp::Lt => BinOp::Gt,
                BinOp::Le => BinOp::Ge,
                BinOp::Gt => BinOp::Lt,
                BinOp::Ge => BinOp::Le,
                other => *other,
            };
            (v, &**lhs, mirrored)
        }
        _ => return None,
    };
    match op {
        BinOp::Lt => Some((v, Some(limit), true, false)),
        BinOp::Le => Some((v, Some(limit), true, true)),
        BinOp::Gt => Some((v, Some(limit), false, false)),
        BinOp::Ge => Some((v, Some(limit), false, true)),
        BinOp::Ne if limit.as_int() == Some(0) => Some((v, None, false, false)),
        _ => None,
    }
}

/// The one update of `var`, run exactly once per iteration (as [`cap::counter_step`] asks):
/// the factor, whether it multiplies, whether it truncates (a shift).
fn update(prog: &Program, procs: &ProcFacts, w: &While, var: &str) -> Option<(f64, bool, bool)> {
    let a = cap::sole_update(prog, procs, w, var)?;
    let SrcExprKind::Binary { op, lhs, rhs } = &a.value.kind else {
        return None;
    };
    let is_var = |x: &SrcExpr| matches!(&x.kind, SrcExprKind::Var(v) if v == var);
    let number = |x: &SrcExpr| match &x.kind {
        SrcExprKind::Int(i) => Some(*i as f64),
        SrcExprKind::Real { value, .. } => Some(*value),
        _ => None,
    };
    let shift = |x: &SrcExpr| {
        x.as_int()
            .filter(|k| (1..=30).contains(k))
            .map(|k| f64::from(1u32 << k))
    };
    let (factor, grows, truncating) = match op {
        BinOp::Mul if is_var(lhs) => (number(rhs)?, true, false),
        BinOp::Mul if is_var(rhs) => (number(lhs)?, true, false),
        BinOp::Div if is_var(lhs) => (number(rhs)?, false, false),
        BinOp::Shl if is_var(lhs) => (shift(rhs)?, true, false),
        BinOp::Shr if is_var(lhs) => (shift(rhs)?, false, true),
        _ => return None,
    };
    (factor > 1.0 && factor.is_finite()).then_some((factor, grows, truncating))
}
