//! A branch condition as a comparison of two symbolic sides (`lhs op rhs`), its truth at
//! integer values of its symbols, and the divisors of its `floor`/`ceil` terms.

use std::collections::{BTreeMap, BTreeSet};

use symbolic::{Atom, Expr};

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
