//! Indicators for reading: a model switches a cost on past a threshold with
//! `min(floor(x), 1)` (a compute burst under the simulator's threshold, a message past the
//! eager limit), clamps a share with `min(max(x, 0), 1)` and tests `x != 0` with
//! `min(max(x, -x), 1)`, and `x == 0` with `max(0, min(1 - x, 1 + x))`. Printed as they are
//! these hide what they mean; the reading printers show `[N/P >= 8192]`, `clamp(x, 0, 1)`,
//! `[M != 1]` and `[P == 1]` instead, only where that is the same
//! value for every argument the model can give them (see [`step`]).

use crate::canon;
use crate::expr::{Atom, Coef, Expr, Term};
use crate::print::Printer;

/// An indicator recognised in an atom.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Step {
    /// `[lhs >= at]`
    AtLeast(Expr, f64),
    /// `[lhs <= at]`
    AtMost(Expr, f64),
    /// `[lhs != at]`
    Not(Expr, f64),
    /// `[lhs == at]`
    Eq(Expr, f64),
    /// `clamp(x, 0, 1)`
    Clamp(Expr),
}

/// The indicator `a` is, if it is one.
///
/// `min(floor(x), 1)` with `x = Σ kᵢ·Xᵢ + c`, every `kᵢ > 0` and `0 ≤ c < 1`: where `x ≥ 0`,
/// `floor(x)` is 0 below 1 and at least 1 from there, so the min is exactly `[x ≥ 1]`, i.e.
/// `[Σ kᵢ·Xᵢ ≥ 1 − c]`, printed with the leading term's coefficient divided out. `x ≥ 0` holds
/// for a single positive monomial (the model's parameters are positive; its logarithms are
/// of counts ≥ 1) and, for a sum, where [`canon::lower_bound`] proves it (a compute cost over
/// the threshold: `floor(e/θ)` with `e ≥ 0`). A floor that can go negative (`c < 0`, a
/// negative term) is left as it is: its min is then below 0 where the bracket says 0.
pub(crate) fn step(a: &Atom) -> Option<Step> {
    if let Atom::Max(args) = a {
        return equality(args);
    }
    let Atom::Min(args) = a else { return None };
    let [one, f] = args.as_slice() else {
        return None;
    };
    if one.as_const() != Some(1.0) {
        return None;
    }
    if let Some(Atom::Max(m)) = f.as_atom() {
        if let [zero, x] = m.as_slice() {
            if zero.as_const() == Some(0.0) {
                return Some(Step::Clamp(x.clone()));
            }
        }
        // min(max(x, -x), 1) = [x != 0] for integer x; `x = V - c` reads `[V != c]`
        if let [a, b] = m.as_slice() {
            // (an indicator only for integer x: integer coefficients)
            let integral = a.terms.iter().all(|t| t.coef.0.fract() == 0.0);
            if integral && (a.clone() + b.clone()).is_zero() {
                let (lhs, rhs) = test_of(a);
                return Some(Step::Not(lhs, rhs));
            }
        }
    }
    let Some(Atom::Floor(x)) = f.as_atom() else {
        return None;
    };
    let (c, var): (Vec<&Term>, Vec<&Term>) = x.terms.iter().partition(|t| t.is_constant());
    let c = c.first().map_or(0.0, |t| t.coef.0);
    if var.is_empty() || var.iter().any(|t| t.coef.0 <= 0.0) || !(0.0..1.0).contains(&c) {
        return None;
    }
    if var.len() > 1 && canon::lower_bound(x) < 0.0 {
        return None;
    }
    let lead = crate::print::display_order(x)
        .first()
        .map_or(1.0, |t| t.coef.0);
    let at = (1.0 - c) / lead;
    // divided, not scaled by 1/lead: the leading coefficient becomes exactly 1
    let lhs = canon::from_terms(
        var.into_iter()
            .map(|t| Term {
                factors: t.factors.clone(),
                coef: Coef(t.coef.0 / lead),
            })
            .collect(),
    );
    // `[1/P >= 5e-7]` reads as `[P <= 2e6]`
    if let [t] = lhs.terms.as_slice() {
        if t.factors.iter().all(|(_, q)| q.is_negative()) {
            let inv = canon::term_expr(
                1.0,
                t.factors.iter().map(|(a, q)| (a.clone(), -*q)).collect(),
            );
            return Some(Step::AtMost(inv, 1.0 / at));
        }
    }
    Some(Step::AtLeast(lhs, at))
}

/// `max(0, min(1 - x, 1 + x))` = `[x == 0]` for integer x (integer coefficients).
fn equality(args: &[Expr]) -> Option<Step> {
    let [a, b] = args else { return None };
    let m = match (a.as_const(), b.as_const()) {
        (Some(0.0), _) => b,
        (_, Some(0.0)) => a,
        _ => return None,
    };
    let Some(Atom::Min(mm)) = m.as_atom() else {
        return None;
    };
    let [p, q] = mm.as_slice() else { return None };
    if !(p.clone() + q.clone() - Expr::int(2)).is_zero() {
        return None;
    }
    let x = q.clone() - Expr::one();
    if x.as_const().is_some() || x.terms.iter().any(|t| t.coef.0.fract() != 0.0) {
        return None;
    }
    let (lhs, rhs) = test_of(&x);
    Some(Step::Eq(lhs, rhs))
}

/// `x` (integer, linear in what it tests) as `lhs` against a constant: `V - c` is `V` and `c`,
/// the side whose leading term is positive.
fn test_of(x: &Expr) -> (Expr, f64) {
    let neg = x.clone() * Expr::num(-1.0);
    let x = if x
        .terms
        .iter()
        .find(|t| !t.is_constant())
        .is_some_and(|t| t.coef.0 > 0.0)
    {
        x
    } else {
        &neg
    };
    let (c, v): (Vec<&Term>, Vec<&Term>) = x.terms.iter().partition(|t| t.is_constant());
    // `+ 0.0`: no constant term is 0, not -0 (`[mod(ITERS, 2) == -0]`)
    let rhs = -c.first().map_or(0.0, |t| t.coef.0) + 0.0;
    let lhs = Expr {
        terms: v.into_iter().cloned().collect(),
    };
    (lhs, rhs)
}

impl Printer {
    /// A threshold: a whole number of up to 6 significant digits as it is (`8192`,
    /// `2000000`), any other as the coefficients print (`2.353e10`, not `23534949400`, the
    /// ratio of two rounded measurements).
    fn threshold(&self, at: f64) -> String {
        let r = at.round();
        let whole = r != 0.0 && (at - r).abs() <= 1e-9 * at.abs() && r.abs() < 1e15;
        let digits = format!("{}", r.abs()).trim_end_matches('0').len();
        if whole && digits <= 6 {
            self.number(at)
        } else {
            self.number_sig4(at)
        }
    }

    /// An indicator in this printer's style (text or LaTeX).
    pub(crate) fn step(&self, s: &Step) -> String {
        let latex = self.is_latex();
        let bracket = |lhs: &Expr, op: &str, at: f64| {
            let (op, open, close) = match (latex, op) {
                (false, _) => (op, "[", "]"),
                (true, ">=") => ("\\geq", "\\left[", "\\right]"),
                (true, "==") => ("=", "\\left[", "\\right]"),
                (true, "<=") => ("\\leq", "\\left[", "\\right]"),
                (true, _) => ("\\neq", "\\left[", "\\right]"),
            };
            format!(
                "{open}{} {op} {}{close}",
                self.expr(lhs),
                self.threshold(at)
            )
        };
        match s {
            Step::AtLeast(l, at) => bracket(l, ">=", *at),
            Step::AtMost(l, at) => bracket(l, "<=", *at),
            Step::Not(l, at) => bracket(l, "!=", *at),
            Step::Eq(l, at) => bracket(l, "==", *at),
            Step::Clamp(x) if latex => {
                format!(
                    "\\operatorname{{clamp}}\\left({}, 0, 1\\right)",
                    self.expr(x)
                )
            }
            Step::Clamp(x) => format!("clamp({}, 0, 1)", self.expr(x)),
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::panic)]
mod tests {
    use super::*;
    use crate::parse;

    fn step_of(s: &str) -> Option<Step> {
        parse(s).unwrap().as_atom().and_then(step)
    }

    /// A compute-threshold step `min(floor(e/θ), 1)` over a cost `e` of several terms is a
    /// bracket too (it printed as `min(floor(…), 1)` in `where` before).
    #[test]
    fn a_threshold_on_a_sum_is_a_bracket() {
        let s =
            step_of("min(floor(4.249e-11*N^2*min(N^2, 16777216)/P + 6.999e-4*N^2/P), 1)").unwrap();
        let Step::AtLeast(lhs, at) = &s else {
            panic!("{s:?}")
        };
        assert!((at - 1.0 / 4.249e-11).abs() <= 1e-6 * at, "{at}");
        assert_eq!(lhs.to_string(), "N^2*min(N^2, 16777216)/P + 1.647e7*N^2/P");
        // exact: 0 below the threshold, 1 from it on
        let x =
            parse("min(floor(4.249e-11*N^2*min(N^2, 16777216)/P + 6.999e-4*N^2/P), 1)").unwrap();
        for (n, p) in [(8.0, 64.0), (64.0, 4.0), (40.0, 1.0), (4096.0, 1024.0)] {
            let env = |v: &str| match v {
                "N" => Some(n),
                _ => Some(p),
            };
            let bracket = f64::from(lhs.eval(&env).unwrap() >= *at);
            assert_eq!(x.eval(&env).unwrap(), bracket, "N={n} P={p}");
        }
    }

    /// Trial 18's farm: the serial arm `if (nprocs == 1)`.
    #[test]
    fn an_equality_is_a_bracket() {
        let e = parse("max(0, min(2 - P, P))").unwrap();
        assert_eq!(
            e.as_atom().and_then(step),
            Some(Step::Eq(parse("P").unwrap(), 1.0))
        );
        for p in [1.0, 2.0, 3.0, 64.0] {
            assert_eq!(e.eval(&|_| Some(p)).unwrap(), f64::from(p == 1.0));
        }
        assert_eq!(
            Printer::reading(false).step(&step_of("max(0, min(2 - P, P))").unwrap()),
            "[P == 1]"
        );
        // a fraction in the test: not an indicator
        assert_eq!(step_of("max(0, min(2 - 0.5*P, 0.5*P))"), None);
        // against 0: printed 0, not -0 (trial, stop 32: `[mod(ITERS, 2) == -0]`)
        let even = "max(min(-mod(ITERS, 2) + 1, mod(ITERS, 2) + 1), 0)";
        assert_eq!(
            Printer::reading(false).step(&step_of(even).unwrap()),
            "[mod(ITERS, 2) == 0]"
        );
    }

    #[test]
    fn only_what_is_0_or_1_is_a_bracket() {
        assert_eq!(
            step_of("min(floor(5e-4*N/P), 1)"),
            Some(Step::AtLeast(parse("N/P").unwrap(), 2000.0))
        );
        // negative below the threshold: not an indicator
        assert_eq!(step_of("min(floor(0.5*N - 3.5), 1)"), None);
        assert_eq!(step_of("min(floor(N/P - 1e-3*M), 1)"), None);
        // a log can be negative: no proof for a sum with one
        assert_eq!(step_of("min(floor(1e-3*N + 1e-3*log2(N)), 1)"), None);
    }
}
