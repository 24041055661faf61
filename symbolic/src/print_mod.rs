//! `mod(a, b)` for the printers: C's `%` and Fortran's `MOD` reach the canonical form as
//! `a - b*floor(a/b)` (kept: differentiation, evaluation and fitting see only floor), which
//! reads badly (`-floor(rank/dims(P, 2, 1))*dims(P, 2, 1) + rank >= 1`). The printers find that
//! shape among a sum's terms and show it as `mod(rank, dims(P, 2, 1))`, `rank \bmod d`,
//! `Mod(rank, d)`; `parse` reads `mod(a, b)` back to the same canonical terms.
//!
//! Exact by construction: a candidate `k*(a - b*floor(a/b))` is rebuilt with the constructors
//! and replaces terms of the sum only when every rebuilt term is one of them, bit for bit; the
//! identity `a mod b = a - b*floor(a/b)` (floored modulo, as sympy's `Mod`) holds for all reals.

use crate::canon;
use crate::expr::{Atom, Coef, Expr, Term};
use crate::rational::Rational;

/// One `k*mod(a, b)` folded out of a sum.
pub(crate) struct Mod {
    pub(crate) a: Expr,
    pub(crate) b: Expr,
}

/// The placeholder variable standing for the `i`-th folded `mod` while the rest prints (not
/// an identifier, so no variable's name; after the letters, so `N + mod(rank, d)`).
pub(crate) fn placeholder(i: usize) -> String {
    format!("~{i}~")
}

/// `e` with each `k*(a - b*floor(a/b))` among its terms replaced by `k·placeholder(i)`, and
/// the `(a, b)` of each; `None` when there is none.
pub(crate) fn fold(e: &Expr) -> Option<(Expr, Vec<Mod>)> {
    let has_floor = |e: &Expr| {
        e.terms.iter().any(|t| {
            t.factors
                .iter()
                .any(|(a, q)| matches!(a, Atom::Floor(_)) && *q == Rational::ONE)
        })
    };
    if !has_floor(e) {
        return None;
    }
    let mut cur = e.clone();
    let mut mods = Vec::new();
    loop {
        let floors: Vec<Atom> = floors(&cur);
        let Some((next, m)) = floors
            .iter()
            .find_map(|f| fold_one(&cur, f, &placeholder(mods.len())))
        else {
            break;
        };
        cur = next;
        mods.push(m);
    }
    (!mods.is_empty()).then_some((cur, mods))
}

/// The distinct `floor` atoms at exponent 1 among the terms, in storage order.
fn floors(e: &Expr) -> Vec<Atom> {
    let mut out: Vec<Atom> = Vec::new();
    for t in &e.terms {
        for (a, q) in &t.factors {
            if matches!(a, Atom::Floor(_)) && *q == Rational::ONE && !out.contains(a) {
                out.push(a.clone());
            }
        }
    }
    out
}

/// `k*(a - b*floor(a/b))` with `floor(a/b)` the atom `f`, taken out of `e` as `k·name`.
fn fold_one(e: &Expr, f: &Atom, name: &str) -> Option<(Expr, Mod)> {
    let Atom::Floor(x) = f else { return None };
    // -b·k: the cofactor of floor(x) over the terms where it occurs once
    let cofactor: Expr = canon::from_terms(
        e.terms
            .iter()
            .filter(|t| t.factors.iter().any(|(a, q)| a == f && *q == Rational::ONE))
            .flat_map(|t| {
                let rest = t.factors.iter().filter(|(a, _)| a != f).cloned().collect();
                canon::term_expr(t.coef.0, rest).terms
            })
            .collect(),
    );
    let bk = canon::scale(&cofactor, -1.0);
    let ak = canon::mul(x, &bk);
    if bk.is_zero() || ak.is_zero() {
        return None;
    }
    for k in multipliers(&ak, &bk) {
        let (a, b) = (divided(&ak, k), divided(&bk, k));
        let whole = canon::scale(
            &canon::sub(&a, &canon::mul(&b, &canon::floor(&canon::div(&a, &b)))),
            k,
        );
        if !whole.terms.iter().all(|t| e.terms.contains(t))
            || !whole
                .terms
                .iter()
                .any(|t| t.factors.iter().any(|(g, _)| g == f))
        {
            continue;
        }
        let rest: Vec<Term> = e
            .terms
            .iter()
            .filter(|t| !whole.terms.contains(t))
            .cloned()
            .collect();
        let folded = canon::add(&Expr { terms: rest }, &canon::scale(&Expr::var(name), k));
        return Some((folded, Mod { a, b }));
    }
    None
}

/// `e / k` dividing each coefficient (`k / k` is exactly 1, `k · (1/k)` need not be).
fn divided(e: &Expr, k: f64) -> Expr {
    canon::from_terms(
        e.terms
            .iter()
            .map(|t| Term {
                factors: t.factors.clone(),
                coef: Coef(t.coef.0 / k),
            })
            .collect(),
    )
}

/// The multipliers `k` to try for `k*mod(a, b)` given `k·a` and `k·b`: the coefficients'
/// common factor when they are all whole multiples of the smallest (`2*mod(rank, d)`,
/// `3e-9*mod(rank, d)`), then ±1; the sign makes `b`'s leading term positive.
fn multipliers(ak: &Expr, bk: &Expr) -> Vec<f64> {
    let sign = crate::print::display_order(bk)
        .first()
        .map_or(1.0, |t| t.coef.0.signum());
    let coefs: Vec<f64> = ak
        .terms
        .iter()
        .chain(&bk.terms)
        .map(|t| t.coef.0.abs())
        .collect();
    let m = coefs.iter().copied().fold(f64::INFINITY, f64::min);
    let whole = m.is_finite()
        && m > 0.0
        && coefs.iter().all(|c| {
            let r = c / m;
            (r - r.round()).abs() <= 1e-9 * r
        });
    let mut out = Vec::new();
    if whole && m != 1.0 {
        out.push(sign * m);
    }
    out.push(sign);
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use crate::parse;

    fn show(s: &str) -> String {
        parse(s).unwrap().to_string()
    }

    #[test]
    fn a_remainder_prints_as_mod() {
        // the APT's `rank % dims(P, 2, 1) >= 1` (west neighbour) as the trial printed it
        assert_eq!(
            show("-floor(rank/dims(P, 2, 1))*dims(P, 2, 1) + rank"),
            "mod(rank, dims(P, 2, 1))"
        );
        assert_eq!(show("i - 10*floor(i/10)"), "mod(i, 10)");
        assert_eq!(show("rank + 1 - P*floor((rank + 1)/P)"), "mod(rank + 1, P)");
        // integer multiples, a negative one, and other terms beside it
        assert_eq!(show("2*rank - 2*d*floor(rank/d)"), "2*mod(rank, d)");
        assert_eq!(show("d*floor(rank/d) - rank"), "-mod(rank, d)");
        assert_eq!(show("rank - 2*d*floor(rank/(2*d))"), "mod(rank, 2*d)");
        assert_eq!(
            show("N + rank - d*floor(rank/d) + 1"),
            "N + mod(rank, d) + 1"
        );
        // inside a function, and a floor that is not a remainder
        assert_eq!(
            show("max(rank - d*floor(rank/d), 1)"),
            "max(mod(rank, d), 1)"
        );
        assert_eq!(show("floor(rank/d)"), "floor(rank/d)");
        assert_eq!(
            show("rank - 2*d*floor(rank/d)"),
            "-2*d*floor(rank/d) + rank"
        );
    }

    #[test]
    fn mod_parses_back_to_the_same_terms() {
        for s in [
            "-floor(rank/dims(P, 2, 1))*dims(P, 2, 1) + rank",
            "2*rank - 2*d*floor(rank/d) + N",
            "3e-9*rank - 3e-9*d*floor(rank/d)",
            "0.1*rank - 0.1*d*floor(rank/d)",
            "rank + 1 - P*floor((rank + 1)/P)",
        ] {
            let e = parse(s).unwrap();
            assert_eq!(
                parse(&e.to_text_exact()).unwrap(),
                e,
                "{}",
                e.to_text_exact()
            );
            assert!(e.to_text_exact().contains("mod("), "{}", e.to_text_exact());
        }
    }

    #[test]
    fn latex_and_python_forms() {
        let e = parse("-floor(rank/dims(P, 2, 1))*dims(P, 2, 1) + rank").unwrap();
        assert_eq!(
            e.to_latex(),
            "\\mathit{rank} \\bmod \\mathrm{dims}\\left(P, 2, 1\\right)"
        );
        assert_eq!(e.to_python(), "Mod(rank, dims(P, 2, 1))");
        let e = parse("N + rank + 1 - P*floor((rank + 1)/P)").unwrap();
        assert_eq!(
            e.to_latex(),
            "N + \\left(\\left(\\mathit{rank} + 1\\right) \\bmod P\\right)"
        );
    }
}
