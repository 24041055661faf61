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
use symbolic::Expr;

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
            more_conjuncts,
        })
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
