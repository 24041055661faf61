//! An expression where a set of points lies. A model's T switches costs on and off with
//! steps (`[16*K >= 1410]`: the machine's next point-to-point regime; `[N/P >= 8192]`: a
//! burst over the simulator's threshold), many of which keep one value over every run the
//! model was built from: their thresholds lie beyond the runs, where the model extrapolates
//! with the machine's data sheet. Replacing each such step by its value gives the form T has
//! where the runs are, which is the form to read; the steps replaced say where that form ends.

use std::collections::BTreeMap;

use crate::expr::{Atom, Expr};
use crate::print::Printer;
use crate::print_step::{step, Step};

/// [`Expr::within`]'s result.
#[derive(Clone, Debug, PartialEq)]
pub struct Within {
    /// The expression with every step that is constant over the points replaced by its value;
    /// equal to the original at each point.
    pub expr: Expr,
    /// The steps replaced, in the reading printer's form (`[K >= 88.19]`), each with the value
    /// (0 or 1) it has at every point and the step as it was in the expression, ordered by
    /// what they compare, then by threshold.
    pub fixed: Vec<(String, f64, Expr)>,
}

/// `min(floor(x), 1)` or `min(ceil(x), 1)`: 0 or 1 wherever x is non-negative, a step even
/// when [`step`] cannot read its threshold (a floor of several terms that may be negative).
fn unit_min(a: &Atom) -> bool {
    let Atom::Min(args) = a else { return false };
    let [one, f] = args.as_slice() else {
        return false;
    };
    one.as_const() == Some(1.0) && matches!(f.as_atom(), Some(Atom::Floor(_) | Atom::Ceil(_)))
}

/// Every atom of `e` that reads as a step, nested ones too, each once, in order of appearance.
fn steps_in(e: &Expr, out: &mut Vec<Atom>) {
    for t in e.terms() {
        for (a, _) in t.factors() {
            if (step(a).is_some() || unit_min(a)) && !out.contains(a) {
                out.push(a.clone());
            }
            for x in a.args() {
                steps_in(x, out);
            }
        }
    }
}

impl Expr {
    /// Every step of this expression (`[x >= θ]`, `min(floor(x), 1)`, `clamp(x, 0, 1)`),
    /// nested ones too, each once, in order of appearance.
    pub fn steps(&self) -> Vec<Expr> {
        let mut found = Vec::new();
        steps_in(self, &mut found);
        found.iter().map(Expr::from_atom).collect()
    }

    /// This expression where `points` lie: each step (`[x >= θ]`, `[x != c]`,
    /// `clamp(x, 0, 1)`) that evaluates to the same 0 or 1 at every point is replaced by that
    /// value, until none is left; a step that varies over the points, cannot be evaluated at
    /// one of them or takes a value strictly between 0 and 1 stays. With no points nothing is
    /// replaced.
    pub fn within(&self, points: &[BTreeMap<String, f64>]) -> Within {
        let p = Printer::reading(false);
        let mut e = self.clone();
        let mut fixed = Vec::new();
        if points.is_empty() {
            return Within {
                expr: e,
                fixed: Vec::new(),
            };
        }
        // one step at a time: replacing one may simplify or remove others
        'outer: loop {
            let mut found = Vec::new();
            steps_in(&e, &mut found);
            for a in found {
                let x = Expr::from_atom(&a);
                let mut values = points.iter().map(|pt| x.eval_map(pt).ok());
                let Some(Some(v0)) = values.next() else {
                    continue;
                };
                let binary = v0 == 0.0 || v0 == 1.0;
                if binary && values.all(|v| v == Some(v0)) {
                    match step(&a) {
                        Some(s) => {
                            let (lhs, at) = match &s {
                                Step::AtLeast(l, at)
                                | Step::AtMost(l, at)
                                | Step::Not(l, at)
                                | Step::Eq(l, at) => (p.expr(l), *at),
                                Step::Clamp(x) => (p.expr(x), 0.0),
                            };
                            fixed.push((lhs, at, p.step(&s), v0, x.clone()));
                        }
                        None => {
                            let text = p.expr(&x);
                            fixed.push((text.clone(), 0.0, text, v0, x.clone()));
                        }
                    }
                    e = e.replace_atom(&a, &Expr::num(v0));
                    continue 'outer;
                }
            }
            break;
        }
        // read in order: by what is compared, then by threshold
        fixed.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.total_cmp(&b.1)));
        let fixed = fixed.into_iter().map(|(_, _, t, v, x)| (t, v, x)).collect();
        Within { expr: e, fixed }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::parse;

    fn at(pairs: &[(&str, f64)]) -> BTreeMap<String, f64> {
        pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect()
    }

    /// Regime steps beyond every point go (with their terms); a step that changes between the
    /// points stays; the result agrees with the original at each point.
    #[test]
    fn steps_constant_over_the_points_take_their_value() {
        let e = parse(
            "N*(3e-9 + 2e-10*min(floor(K/88), 1) - 4e-10*min(floor(K/176), 1)) \
             + 5e-6*min(floor(N/1024), 1) + 1e-6*P",
        )
        .unwrap();
        let pts = [
            at(&[("K", 32.0), ("N", 512.0), ("P", 2.0)]),
            at(&[("K", 64.0), ("N", 2048.0), ("P", 16.0)]),
        ];
        let w = e.within(&pts);
        assert_eq!(
            w.expr,
            parse("3e-9*N + 5e-6*min(floor(N/1024), 1) + 1e-6*P").unwrap()
        );
        assert_eq!(w.fixed.len(), 2, "{:?}", w.fixed);
        // each fixed step with the step itself, as the expression's steps hold it (for the
        // printer to say where it comes from)
        let all = e.steps();
        assert_eq!(all.len(), 3, "{all:?}");
        assert_eq!(
            w.fixed.iter().map(|f| f.2.clone()).collect::<Vec<_>>(),
            vec![
                parse("min(floor(K/88), 1)").unwrap(),
                parse("min(floor(K/176), 1)").unwrap()
            ]
        );
        assert!(w.fixed.iter().all(|f| all.contains(&f.2)));
        assert!(w
            .fixed
            .iter()
            .all(|(s, v, _)| s.starts_with("[K >= ") && *v == 0.0));
        for pt in &pts {
            let (a, b) = (e.eval_map(pt).unwrap(), w.expr.eval_map(pt).unwrap());
            assert!((a - b).abs() <= 1e-12 * a.abs(), "{a} {b}");
        }
    }

    /// A step that is 1 everywhere stays as its value; a clamp between 0 and 1 at a point is
    /// not a step there; a point missing a variable keeps the step; no points, no change.
    #[test]
    fn ones_clamps_and_unknowns() {
        let e = parse("N*min(floor(N/64), 1) + min(max(P/8 - 1, 0), 1)").unwrap();
        let w = e.within(&[at(&[("N", 128.0), ("P", 12.0)])]);
        assert_eq!(w.expr, parse("N + min(max(P/8 - 1, 0), 1)").unwrap());
        assert_eq!(
            w.fixed,
            vec![(
                "[N >= 64]".to_string(),
                1.0,
                parse("min(floor(N/64), 1)").unwrap()
            )]
        );
        let w = e.within(&[at(&[("P", 32.0)])]);
        assert_eq!(w.expr, parse("N*min(floor(N/64), 1) + 1").unwrap());
        assert_eq!(e.within(&[]).expr, e);
    }

    /// A step [`step`] cannot read (a floor of terms of both signs: no threshold in one
    /// variable) that is 1 in every run stayed in the reading form as a name; any
    /// `min(floor(x), 1)` constant over the points is its value.
    #[test]
    fn a_unit_min_of_any_floor_constant_over_the_points_is_its_value() {
        let e = parse("N^2*min(floor(N/64 - P/4), 1)/P + P").unwrap();
        let mut found = Vec::new();
        steps_in(&e, &mut found);
        assert_eq!(found.len(), 1);
        assert!(step(&found[0]).is_none());
        let pts = [
            at(&[("N", 512.0), ("P", 2.0)]),
            at(&[("N", 4096.0), ("P", 16.0)]),
        ];
        let w = e.within(&pts);
        assert_eq!(w.expr, parse("N^2/P + P").unwrap());
        let texts: Vec<(&str, f64)> = w.fixed.iter().map(|(t, v, _)| (t.as_str(), *v)).collect();
        assert_eq!(texts, [("min(floor(0.01562*N - 0.25*P), 1)", 1.0)]);
        // where the floor is 0 at one point and 1 at another it stays
        let small = [
            at(&[("N", 64.0), ("P", 16.0)]),
            at(&[("N", 4096.0), ("P", 2.0)]),
        ];
        assert_eq!(e.within(&small).expr, e);
    }
}
