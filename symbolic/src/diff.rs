//! Exact differentiation. `max`/`min` that depend on the variable are split into branches
//! (each with the conditions under which it is active); `ceil`/`floor` are differentiated through
//! their relaxed form `ceil(u) ≈ u`, and `dims(n, d, k)` (a step function of `n`, like them)
//! through the balanced grid `n^(1/d)`; the result is then flagged `relaxed`.

use crate::canon;
use crate::expr::{Atom, Expr, Term};
use std::fmt;

/// `lhs ≥ rhs`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
pub struct Cond {
    pub lhs: Expr,
    pub rhs: Expr,
}

impl Cond {
    /// Whether the condition holds at a point, with a relative tolerance for ties.
    pub fn holds(
        &self,
        lookup: &dyn Fn(&str) -> Option<f64>,
        rel_tol: f64,
    ) -> Result<bool, crate::EvalError> {
        let (l, r) = (self.lhs.eval(lookup)?, self.rhs.eval(lookup)?);
        Ok(l - r >= -rel_tol * l.abs().max(r.abs()).max(1e-300))
    }
}

impl fmt::Display for Cond {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if f.alternate() {
            write!(f, "{:#} >= {:#}", self.lhs, self.rhs)
        } else {
            write!(f, "{} >= {}", self.lhs, self.rhs)
        }
    }
}

/// One branch of a piecewise expression: `expr` where every condition holds.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Piece {
    pub conds: Vec<Cond>,
    pub expr: Expr,
}

/// A derivative: one piece per active-branch combination of the `max`/`min` atoms involved.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Derivative {
    pub pieces: Vec<Piece>,
    /// True when a `ceil`/`floor` depending on the variable was differentiated as its argument
    /// (or a `dims(n, d, k)` as `n^(1/d)`).
    pub relaxed: bool,
}

impl Derivative {
    /// The single expression when the derivative is not piecewise.
    pub fn as_expr(&self) -> Option<&Expr> {
        match self.pieces.as_slice() {
            [p] if p.conds.is_empty() => Some(&p.expr),
            _ => None,
        }
    }

    /// Value of the first piece whose conditions hold at the point.
    pub fn eval(
        &self,
        lookup: &dyn Fn(&str) -> Option<f64>,
    ) -> Result<Option<f64>, crate::EvalError> {
        for p in &self.pieces {
            let mut ok = true;
            for c in &p.conds {
                ok &= c.holds(lookup, 1e-12)?;
            }
            if ok {
                return p.expr.eval(lookup).map(Some);
            }
        }
        Ok(None)
    }
}

impl fmt::Display for Derivative {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, p) in self.pieces.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            if f.alternate() {
                write!(f, "{:#}", p.expr)?;
            } else {
                write!(f, "{}", p.expr)?;
            }
            if !p.conds.is_empty() {
                let c: Vec<String> = p
                    .conds
                    .iter()
                    .map(|c| {
                        if f.alternate() {
                            format!("{c:#}")
                        } else {
                            c.to_string()
                        }
                    })
                    .collect();
                write!(f, "    if {}", c.join(", "))?;
            }
        }
        Ok(())
    }
}

/// Upper bound on the number of branches enumerated (further max/min stay unsplit).
const MAX_PIECES: usize = 256;

fn find_extremum(e: &Expr, var: &str) -> Option<Atom> {
    for t in &e.terms {
        for (a, _) in &t.factors {
            let args = a.args();
            if !args.iter().any(|x| x.contains_var(var)) {
                continue;
            }
            for x in &args {
                if let Some(found) = find_extremum(x, var) {
                    return Some(found);
                }
            }
            if matches!(a, Atom::Max(_) | Atom::Min(_)) {
                return Some(a.clone());
            }
        }
    }
    None
}

impl Expr {
    /// Split into pieces free of `max`/`min` that depend on `var`, innermost first.
    pub fn branches(&self, var: &str) -> Vec<Piece> {
        let mut done = Vec::new();
        let mut todo = vec![Piece {
            conds: Vec::new(),
            expr: self.clone(),
        }];
        while let Some(p) = todo.pop() {
            let found = if done.len() + todo.len() < MAX_PIECES {
                find_extremum(&p.expr, var)
            } else {
                None
            };
            let Some(atom) = found else {
                done.push(p);
                continue;
            };
            let (args, is_max) = match &atom {
                Atom::Max(l) => (l.clone(), true),
                Atom::Min(l) => (l.clone(), false),
                _ => (Vec::new(), true),
            };
            for (i, chosen) in args.iter().enumerate().rev() {
                let mut conds = p.conds.clone();
                for (j, other) in args.iter().enumerate() {
                    if i != j {
                        conds.push(if is_max {
                            Cond {
                                lhs: chosen.clone(),
                                rhs: other.clone(),
                            }
                        } else {
                            Cond {
                                lhs: other.clone(),
                                rhs: chosen.clone(),
                            }
                        });
                    }
                }
                todo.push(Piece {
                    conds,
                    expr: p.expr.replace_atom(&atom, chosen),
                });
            }
        }
        done
    }

    /// Replace every `ceil(u)`/`floor(u)` by `u` and every `dims(n, d, k)` by `n^(1/d)`.
    pub fn relax_rounding(&self) -> Expr {
        if !self.has_rounding() {
            return self.clone();
        }
        canon::map_atoms(self, &mut |a| match a {
            Atom::Ceil(x) | Atom::Floor(x) => x.relax_rounding(),
            Atom::Dims { n, d, .. } => balanced(&n.relax_rounding(), *d),
            other => canon::rebuild_atom(other, &mut |x| x.relax_rounding()),
        })
    }

    /// As [`Expr::relax_rounding`], but a `dims(n, d, k)` only where `n` depends on `var`: the
    /// extent of a grid over a fixed P is a known whole number, kept exact when minimising in K.
    pub fn relax_rounding_in(&self, var: &str) -> Expr {
        if !self.has_rounding() {
            return self.clone();
        }
        canon::map_atoms(self, &mut |a| match a {
            Atom::Ceil(x) | Atom::Floor(x) => x.relax_rounding_in(var),
            Atom::Dims { n, d, .. } if n.contains_var(var) => {
                balanced(&n.relax_rounding_in(var), *d)
            }
            Atom::Dims { .. } => canon::atom_expr(a),
            other => canon::rebuild_atom(other, &mut |x| x.relax_rounding_in(var)),
        })
    }

    /// Whether a `ceil`, `floor` or `dims` occurs anywhere.
    pub fn has_rounding(&self) -> bool {
        self.terms.iter().any(|t| {
            t.factors.iter().any(|(a, _)| {
                matches!(a, Atom::Ceil(_) | Atom::Floor(_) | Atom::Dims { .. })
                    || a.args().iter().any(|x| x.has_rounding())
            })
        })
    }

    /// d/d`var`, piecewise through `max`/`min`, relaxed through `ceil`/`floor`.
    pub fn diff(&self, var: &str) -> Derivative {
        let mut relaxed = false;
        let pieces = self
            .branches(var)
            .into_iter()
            .map(|p| Piece {
                expr: diff_smooth(&p.expr, var, &mut relaxed),
                conds: p.conds,
            })
            .collect();
        Derivative { pieces, relaxed }
    }

    /// Derivative of an expression without `var`-dependent `max`/`min` (as produced by
    /// `branches`); any left are differentiated through their first argument.
    pub fn diff_smooth(&self, var: &str) -> Expr {
        let mut relaxed = false;
        diff_smooth(self, var, &mut relaxed)
    }
}

/// `n^(1/d)`, each extent of the balanced grid `dims(n, d, k)` relaxes to.
fn balanced(n: &Expr, d: u32) -> Expr {
    match crate::Rational::new(1, i64::from(d)) {
        Some(q) => canon::pow(n, q),
        None => Expr::num(f64::NAN),
    }
}

fn diff_smooth(e: &Expr, var: &str, relaxed: &mut bool) -> Expr {
    let mut acc: Vec<Term> = Vec::new();
    for t in &e.terms {
        for (i, (a, q)) in t.factors.iter().enumerate() {
            let da = diff_atom(a, var, relaxed);
            if da.is_zero() {
                continue;
            }
            // q · a^(q-1) · a' · ∏_{j≠i} a_j^q_j
            let mut f = t.factors.clone();
            f[i].1 = q.add_lossy(crate::Rational::int(-1));
            let rest = canon::term_expr(t.coef.0 * q.to_f64(), f);
            acc.extend(canon::mul(&rest, &da).terms);
        }
    }
    canon::from_terms(acc)
}

fn diff_atom(a: &Atom, var: &str, relaxed: &mut bool) -> Expr {
    match a {
        Atom::Var(v) => {
            if v == var {
                Expr::one()
            } else {
                Expr::zero()
            }
        }
        Atom::Log2(x) => {
            let dx = diff_smooth(x, var, relaxed);
            if dx.is_zero() {
                return dx;
            }
            canon::div(&dx, &canon::scale(x, std::f64::consts::LN_2))
        }
        Atom::Pow(x) => diff_smooth(x, var, relaxed),
        Atom::Ceil(x) | Atom::Floor(x) => {
            let dx = diff_smooth(x, var, relaxed);
            if !dx.is_zero() {
                *relaxed = true;
            }
            dx
        }
        Atom::Dims { n, d, .. } => {
            if !n.contains_var(var) {
                return Expr::zero();
            }
            *relaxed = true;
            diff_smooth(&balanced(n, *d), var, relaxed)
        }
        Atom::Max(l) | Atom::Min(l) => l
            .first()
            .map_or_else(Expr::zero, |x| diff_smooth(x, var, relaxed)),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use crate::parse;

    fn d(e: &str, v: &str) -> String {
        parse(e).unwrap().diff(v).to_string()
    }

    #[test]
    fn rules() {
        assert_eq!(d("N^2/(P*K) + K*log2(P)", "K"), "-N^2/(K^2*P) + log2(P)");
        assert_eq!(d("log2(K)", "K"), "1.443/K");
        assert_eq!(d("sqrt(K + 1)", "K"), "0.5/sqrt(K + 1)");
        assert_eq!(d("N*P", "K"), "0");
        assert_eq!(d("max(N/P, K)", "K"), "1    if K >= N/P\n0    if N/P >= K");
        assert_eq!(
            d("min(N, K^2)", "K"),
            "2*K    if N >= K^2\n0    if K^2 >= N"
        );
        let r = parse("ceil(N/K)").unwrap().diff("K");
        assert!(r.relaxed);
        assert_eq!(r.to_string(), "-N/K^2");
        assert!(!parse("ceil(N/P)*K").unwrap().diff("K").relaxed);
        // a grid extent is a step in P: through the balanced grid P^(1/2), flagged relaxed
        let r = parse("N/dims(P, 2, 0)").unwrap().diff("P");
        assert!(r.relaxed);
        assert_eq!(r.to_string(), "-0.5*N/(sqrt(P)*dims(P, 2, 0)^2)");
        let r = parse("N/dims(P, 2, 0)").unwrap().diff("N");
        assert!(!r.relaxed);
        assert_eq!(r.to_string(), "1/dims(P, 2, 0)");
        assert_eq!(
            parse("dims(P, 3, 1)*K").unwrap().relax_rounding(),
            parse("P^(1/3)*K").unwrap()
        );
        let e = parse("dims(ceil(P/2), 2, 0)*ceil(N/K) + dims(K, 2, 1)").unwrap();
        assert_eq!(
            e.relax_rounding_in("K"),
            parse("dims(ceil(P/2), 2, 0)*N/K + sqrt(K)").unwrap()
        );
    }

    #[test]
    fn nested_extrema_enumerate_all_branches() {
        let e = parse("max(K, min(N, 2*K))").unwrap();
        assert_eq!(e.branches("K").len(), 3);
    }
}
