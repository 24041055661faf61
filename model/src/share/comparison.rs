//! A branch condition as a comparison of two symbolic sides (`lhs op rhs`), its truth at
//! integer values of its symbols, and the divisors of its `floor`/`ceil` terms.

use std::collections::{BTreeMap, BTreeSet};

use symbolic::{Atom, Expr, Rational};

/// `lhs op rhs` with symbolic sides.
#[derive(Debug, Clone)]
pub(super) struct Comparison {
    pub(super) lhs: Expr,
    pub(super) op: Op,
    pub(super) rhs: Expr,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Op {
    Eq,
    Ne,
    Le,
    Ge,
    Lt,
    Gt,
}

impl Comparison {
    /// None for a compound condition or a side that does not parse.
    pub(super) fn parse(cond: &str) -> Option<Comparison> {
        const OPS: [(&str, Op); 6] = [
            ("==", Op::Eq),
            ("!=", Op::Ne),
            ("<=", Op::Le),
            (">=", Op::Ge),
            ("<", Op::Lt),
            (">", Op::Gt),
        ];
        if cond.contains("&&") || cond.contains("||") || cond.replace("!=", "").contains('!') {
            return None;
        }
        let (text, op, at) = OPS
            .iter()
            .find_map(|(t, op)| cond.find(t).map(|at| (*t, *op, at)))?;
        let (l, r) = (&cond[..at], &cond[at + text.len()..]);
        if OPS.iter().any(|(t, _)| r.contains(t)) {
            return None;
        }
        Some(Comparison {
            lhs: symbolic::parse(l.trim()).ok()?,
            op,
            rhs: symbolic::parse(r.trim()).ok()?,
        })
    }

    pub(super) fn subs(self, consts: &BTreeMap<String, Expr>) -> Comparison {
        Comparison {
            lhs: self.lhs.subs_all(consts),
            rhs: self.rhs.subs_all(consts),
            ..self
        }
    }

    pub(super) fn vars(&self) -> BTreeSet<String> {
        let mut v = self.lhs.vars();
        v.extend(self.rhs.vars());
        v
    }

    /// Its truth at integer values of its symbols.
    pub(super) fn holds(&self, at: &dyn Fn(&str) -> Option<f64>) -> Option<bool> {
        let d = self.rhs.eval(at).ok()? - self.lhs.eval(at).ok()?;
        const EPS: f64 = 1e-9;
        Some(match self.op {
            Op::Eq => d.abs() < EPS,
            Op::Ne => d.abs() >= EPS,
            Op::Lt => d > EPS,
            Op::Le => d > -EPS,
            Op::Gt => d < -EPS,
            Op::Ge => d < EPS,
        })
    }

    /// The comparison with each side's quotient of `x` by a divisor read as the program's
    /// integer division, which truncates (`rank / py`, C or Fortran integers: the row of a
    /// row-major grid) where apt writes it exact (`rank/py`): a side `x/K + a + w`, K a
    /// whole constant or an extent in P, `w` its whole-valued terms, reads
    /// `floor(x/K + a) + w`. None when no side divides `x`.
    pub(super) fn truncating(&self, x: &str) -> Option<Comparison> {
        let (l, r) = (truncate_side(&self.lhs, x), truncate_side(&self.rhs, x));
        if l.is_none() && r.is_none() {
            return None;
        }
        Some(Comparison {
            lhs: l.unwrap_or_else(|| self.lhs.clone()),
            op: self.op,
            rhs: r.unwrap_or_else(|| self.rhs.clone()),
        })
    }

    /// Divisors K of `floor(x/K)` or `ceil(x/K)` in either side (`floor(0.5*rank)`: 2).
    pub(super) fn divisors_of(&self, x: &str) -> Vec<Expr> {
        let mut out = Vec::new();
        for side in [&self.lhs, &self.rhs] {
            for t in side.terms() {
                for (a, _) in t.factors() {
                    if let Some(k) = divisor(a, x) {
                        if !out.contains(&k) {
                            out.push(k);
                        }
                    }
                }
            }
        }
        out
    }
}

/// K of an atom `floor(x/K + a)` or `ceil(x/K + a)`, `a` free of `x`.
pub(super) fn divisor(a: &Atom, x: &str) -> Option<Expr> {
    let (Atom::Floor(arg) | Atom::Ceil(arg)) = a else {
        return None;
    };
    let xe = Expr::var(x);
    let inv: Expr = arg
        .terms()
        .iter()
        .map(|t| t.monomial() * Expr::num(t.coef()))
        .filter(|m| m.contains_var(x))
        .map(|m| m / &xe)
        .sum();
    (!inv.is_zero() && !inv.contains_var(x)).then(|| inv.powi(-1))
}

/// `floor(x/K + a) + w` for a side `x/K + a + w` ([`Comparison::truncating`]); None where the
/// side is not linear in a bare `x` or its factor of `x` is whole (`x - K*floor(x/K)`, `2*x`).
fn truncate_side(e: &Expr, x: &str) -> Option<Expr> {
    let (mut bare, mut frac, mut whole) = (Expr::zero(), Expr::zero(), Expr::zero());
    for t in e.terms() {
        let te = t.monomial() * Expr::num(t.coef());
        let is_x = |a: &Atom| matches!(a, Atom::Var(v) if v == x);
        let direct = t.factors().iter().any(|(a, _)| is_x(a));
        let inner = t
            .factors()
            .iter()
            .any(|(a, _)| !is_x(a) && Expr::from_atom(a).contains_var(x));
        if direct {
            // `x` to a power other than 1, or also inside a rounding: not a quotient of `x`
            if inner
                || t.factors()
                    .iter()
                    .any(|(a, q)| is_x(a) && *q != Rational::ONE)
            {
                return None;
            }
            bare = bare + te;
        } else if whole_valued(t) {
            whole = whole + te;
        } else if inner {
            return None;
        } else {
            frac = frac + te;
        }
    }
    let inv = bare.clone() / Expr::var(x);
    if inv.is_zero() || inv.contains_var(x) || inv.terms().iter().all(whole_valued) {
        return None;
    }
    let k = inv.powi(-1);
    let usable = match k.as_const() {
        Some(v) => v.fract() == 0.0 && v >= 2.0,
        None => k.vars().iter().all(|v| v == "P"),
    };
    usable.then(|| (bare + frac).floor() + whole)
}

/// A term whole at whole values of its symbols: a whole coefficient times whole powers of
/// symbols, grid extents and roundings.
fn whole_valued(t: &symbolic::Term) -> bool {
    t.coef().fract() == 0.0
        && t.factors().iter().all(|(a, q)| {
            q.is_integer()
                && !q.is_negative()
                && matches!(
                    a,
                    Atom::Var(_) | Atom::Dims { .. } | Atom::Floor(_) | Atom::Ceil(_)
                )
        })
}
