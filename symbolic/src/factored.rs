//! A reading form of a sum: common factors pulled out of groups of terms, so that a model's
//! structure shows — `ITERS*(N/P*(5.9e-10 + 5.4e-10*log2(P)) + 3.9e-6) + 6.9e-7` rather than
//! six flat terms each repeating `ITERS` and `N/P`.
//!
//! Greedy: the factor (an atom with the sign of its exponent) that most terms share is pulled
//! out with every other factor its group has in common, then the group and the rest are
//! factored again; ties go to the choice that prints shortest. The text still parses back to
//! the same expression (for the exact form, `parse(e.factored_exact()) == e`).

use crate::expr::{Atom, Coef, Expr, Term};
use crate::print::{term_degree, Printer};
use crate::rational::Rational;

/// A group `common·(inner)` or a single term.
enum Part {
    Term(Term),
    /// `common` has coefficient ±1; `inner` is factored in turn.
    Group {
        common: Term,
        inner: Vec<Part>,
    },
}

/// Ties in the greedy choice are settled by printing each; more than this many are not tried.
const MAX_TIES: usize = 4;

/// Exponent of `a` in `t` when its sign matches `positive`.
fn exponent(t: &Term, a: &Atom, positive: bool) -> Option<Rational> {
    t.factors
        .iter()
        .find(|(b, q)| b == a && q.is_negative() != positive)
        .map(|(_, q)| *q)
}

/// Every (atom, sign) of `terms` shared by at least two of them, most shared first.
fn candidates(terms: &[Term]) -> Vec<(Atom, bool, usize)> {
    let mut seen: Vec<(Atom, bool, usize)> = Vec::new();
    for t in terms {
        for (a, q) in &t.factors {
            let pos = !q.is_negative();
            match seen.iter_mut().find(|(b, p, _)| b == a && *p == pos) {
                Some(e) => e.2 += 1,
                None => seen.push((a.clone(), pos, 1)),
            }
        }
    }
    seen.retain(|c| c.2 >= 2);
    // stable: among equals, the atom met first (terms come in display order)
    seen.sort_by_key(|c| std::cmp::Reverse(c.2));
    seen
}

/// The monomial all of `terms` share: each common (atom, sign) at its smallest magnitude.
fn common(terms: &[Term]) -> Term {
    let factors = terms[0]
        .factors
        .iter()
        .filter_map(|(a, q)| {
            let pos = !q.is_negative();
            terms[1..]
                .iter()
                .map(|t| exponent(t, a, pos))
                .try_fold(*q, |m, e| e.map(|e| if e.abs() < m.abs() { e } else { m }))
                .map(|m| (a.clone(), m))
        })
        .collect();
    Term {
        factors,
        coef: Coef(1.0),
    }
}

/// `t / m` for a monomial `m` that divides `t`.
fn divide(t: &Term, m: &Term) -> Term {
    let factors = t
        .factors
        .iter()
        .filter_map(|(a, q)| {
            let d = m.factors.iter().find(|(b, _)| b == a).map(|(_, e)| *e);
            match d {
                None => Some((a.clone(), *q)),
                Some(e) => q
                    .checked_add(-e)
                    .filter(|r| !r.is_zero())
                    .map(|r| (a.clone(), r)),
            }
        })
        .collect();
    Term {
        factors,
        coef: t.coef,
    }
}

/// Greedy grouping; at the top of each call, ties among the most shared factors are tried
/// (`branch`) and the shortest print kept.
fn group(terms: Vec<Term>, p: &Printer, branch: bool) -> Vec<Part> {
    let cands = candidates(&terms);
    let Some(best) = cands.first().map(|c| c.2) else {
        return terms.into_iter().map(Part::Term).collect();
    };
    let tied: Vec<&(Atom, bool, usize)> = cands.iter().take_while(|c| c.2 == best).collect();
    let choose = |(a, pos, _): &(Atom, bool, usize)| {
        let (with, rest): (Vec<Term>, Vec<Term>) = terms
            .iter()
            .cloned()
            .partition(|t| exponent(t, a, *pos).is_some());
        let mut common = common(&with);
        let mut inner: Vec<Term> = with.iter().map(|t| divide(t, &common)).collect();
        if inner.iter().all(|t| t.coef.0 < 0.0) {
            common.coef = Coef(-1.0);
            for t in &mut inner {
                t.coef = Coef(-t.coef.0);
            }
        }
        let mut parts = vec![Part::Group {
            common,
            inner: group(inner, p, false),
        }];
        parts.extend(group(rest, p, false));
        parts
    };
    if !branch || tied.len() == 1 {
        return choose(tied[0]);
    }
    tied.into_iter()
        .take(MAX_TIES)
        .map(|c| {
            let parts = choose(c);
            (print(p, &parts).len(), parts)
        })
        .min_by_key(|(len, _)| *len)
        .map(|(_, parts)| parts)
        .unwrap_or_default()
}

/// The (positive, log, negative) growth of a part: that of its most dominant term.
fn degree(part: &Part) -> (f64, f64, f64) {
    match part {
        Part::Term(t) => term_degree(t),
        Part::Group { common, inner } => {
            let c = term_degree(common);
            inner
                .iter()
                .map(degree)
                .map(|d| (c.0 + d.0, c.1 + d.1, c.2 + d.2))
                .fold(
                    (f64::NEG_INFINITY, 0.0, 0.0),
                    |a, b| if b.0 > a.0 { b } else { a },
                )
        }
    }
}

fn is_constant(part: &Part) -> bool {
    matches!(part, Part::Term(t) if t.is_constant())
}

fn negative(part: &Part) -> bool {
    match part {
        Part::Term(t) => t.coef.0 < 0.0,
        Part::Group { common, .. } => common.coef.0 < 0.0,
    }
}

/// A part without its sign.
fn body(p: &Printer, part: &Part) -> String {
    match part {
        Part::Term(t) => p.term_abs(t),
        Part::Group { common, inner } => {
            let c = p.term_abs(common);
            let s = print(p, inner);
            // `1/P*(…)` reads better as `(…)/P`
            match c.strip_prefix("1/") {
                Some(den) => format!("({s})/{den}"),
                None => format!("{c}*({s})"),
            }
        }
    }
}

/// Parts as a sum, most dominant first and constants last.
fn print(p: &Printer, parts: &[Part]) -> String {
    let mut order: Vec<(usize, &Part)> = parts.iter().enumerate().collect();
    order.sort_by(|(ia, a), (ib, b)| {
        let (da, db) = (degree(a), degree(b));
        is_constant(a)
            .cmp(&is_constant(b))
            .then(db.0.total_cmp(&da.0))
            .then(db.1.total_cmp(&da.1))
            .then(da.2.total_cmp(&db.2))
            .then(ia.cmp(ib))
    });
    let mut out = String::new();
    for (i, (_, part)) in order.iter().enumerate() {
        let sign = match (i, negative(part)) {
            (0, false) => "",
            (0, true) => "-",
            (_, false) => " + ",
            (_, true) => " - ",
        };
        out.push_str(sign);
        out.push_str(&body(p, part));
    }
    if out.is_empty() {
        out.push('0');
    }
    out
}

pub(crate) fn factored(e: &Expr, p: &Printer) -> String {
    let terms: Vec<Term> = crate::print::display_order(e)
        .into_iter()
        .cloned()
        .collect();
    print(p, &group(terms, p, true))
}

impl Expr {
    /// Text for reading, with common factors pulled out of groups of terms (4 significant
    /// digits; parses back to this expression up to that rounding).
    pub fn factored(&self) -> String {
        Printer::reading(false).expr(self)
    }

    /// As [`Expr::factored`] with full-precision coefficients: `parse(e.factored_exact()) == e`
    /// up to floating-point rounding of the regrouped coefficients.
    pub fn factored_exact(&self) -> String {
        Printer::reading(true).expr(self)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use crate::parse;

    fn f(s: &str) -> String {
        parse(s).unwrap().factored()
    }

    #[test]
    fn pulls_out_shared_factors() {
        assert_eq!(f("a*x + b*x + c"), "x*(a + b) + c");
        assert_eq!(
            f("2*I*N/P + 3*I*N*log2(P)/P + 5*I + 7"),
            "I*(N/P*(3*log2(P) + 2) + 5) + 7"
        );
        assert_eq!(f("3*x + 4"), "3*x + 4");
        assert_eq!(f("0"), "0");
    }

    #[test]
    fn negative_groups_carry_their_sign() {
        assert_eq!(f("x - a*y - b*y"), "-y*(a + b) + x");
    }

    #[test]
    fn reparses_to_the_same_expression() {
        for s in [
            "-1.711e-10*I*N*min(max(P - 1, 0), 1)*min(floor(1.221e-4*N/P), 1)/P \
             - 1.324e-7*I*min(max(P - 1, 0), 1)*min(floor(1.221e-4*N/P), 1) \
             + 8.466e-10*I*N*min(max(P - 1, 0), 1)/P + 5.366e-10*I*N*log2(P)/P \
             + 3.888e-6*I*min(max(P - 1, 0), 1) + 5.94e-10*I*N/P + 1.383e-9*N*log2(P)/P \
             + 2.791e-7*P + 8.618e-9*N/P + 6.876e-7",
            "N^2/(P*K) + K*log2(P) + 3*sqrt(N/P) + 2*N/(P*K)",
            "x^-2*y + x^-1*y + (x + 1)^-2*y",
        ] {
            let e = parse(s).unwrap();
            let back = parse(&e.factored_exact()).unwrap();
            for (a, b) in [(2.0, 3.0), (64.0, 1e4), (7.0, 5.0)] {
                let env = |v: &str| match v {
                    "P" | "x" => Some(a),
                    "K" => Some(8.0),
                    _ => Some(b),
                };
                let (u, w) = (e.eval(&env).unwrap(), back.eval(&env).unwrap());
                assert!(
                    (u - w).abs() <= 1e-12 * u.abs().max(1e-30),
                    "{s}: {u} vs {w}"
                );
            }
        }
    }
}
