//! Closed-form sums Σ_{i=lo}^{hi} body(i) for bodies polynomial in `i` (Faulhaber, degree ≤ 3):
//! trip counts of triangular loop nests.

use crate::expr::{Atom, Expr};

/// `S_k(n) = Σ_{i=1}^{n} i^k` for k = 0..=3.
fn faulhaber(k: i64, n: &Expr) -> Expr {
    let n1 = n + Expr::one();
    match k {
        0 => n.clone(),
        1 => n * &n1 * Expr::num(0.5),
        2 => n * &n1 * (Expr::int(2) * n + Expr::one()) / Expr::int(6),
        _ => (n * &n1 * Expr::num(0.5)).powi(2),
    }
}

/// Σ_{var=lo}^{hi} body; `None` when `body` is not a polynomial of degree ≤ 3 in `var`
/// (negative or fractional powers, or `var` inside log2/max/min/ceil/floor).
pub fn sum_over(body: &Expr, var: &str, lo: &Expr, hi: &Expr) -> Option<Expr> {
    let target = Atom::Var(var.to_string());
    let mut coeffs: [Expr; 4] = Default::default();
    for t in body.terms() {
        let mut k = 0i64;
        let mut rest = Vec::new();
        for (a, q) in t.factors() {
            if *a == target {
                if !q.is_integer() || q.numer() < 0 || q.numer() > 3 {
                    return None;
                }
                k = q.numer();
            } else {
                if a.args().iter().any(|x| x.contains_var(var)) {
                    return None;
                }
                rest.push((a.clone(), *q));
            }
        }
        let c = crate::canon::term_expr(t.coef(), rest);
        let slot = usize::try_from(k).ok()?;
        coeffs[slot] = &coeffs[slot] + c;
    }
    let below = lo - Expr::one();
    let mut out = Expr::zero();
    for (k, c) in coeffs.iter().enumerate() {
        if c.is_zero() {
            continue;
        }
        let k = k as i64;
        out = out + c * (faulhaber(k, hi) - faulhaber(k, &below));
    }
    Some(out)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::parse;

    #[test]
    fn triangular_and_cubic_sums_match_brute_force() {
        for (body, lo, hi) in [
            ("1", "1", "N"),
            ("i", "1", "N"),
            ("N - i", "i0 + 1", "N"),
            ("i^3 + 2*i^2*P", "2", "N"),
        ] {
            let b = parse(body).unwrap();
            let s = sum_over(&b, "i", &parse(lo).unwrap(), &parse(hi).unwrap()).unwrap();
            for n in [5.0, 9.0] {
                let (i0, p) = (1.0, 3.0);
                let lo_v = parse(lo)
                    .unwrap()
                    .eval(&|v| if v == "i0" { Some(i0) } else { None })
                    .unwrap();
                let mut brute = 0.0;
                let mut i = lo_v;
                while i <= n {
                    brute += b
                        .eval(&|v| match v {
                            "i" => Some(i),
                            "N" => Some(n),
                            "P" => Some(p),
                            _ => None,
                        })
                        .unwrap();
                    i += 1.0;
                }
                let got = s
                    .eval(&|v| match v {
                        "N" => Some(n),
                        "P" => Some(p),
                        "i0" => Some(i0),
                        _ => None,
                    })
                    .unwrap();
                assert!(
                    (got - brute).abs() < 1e-9 * brute.abs().max(1.0),
                    "{body}: {got} vs {brute}"
                );
            }
        }
        assert_eq!(
            sum_over(
                &parse("log2(i)").unwrap(),
                "i",
                &Expr::one(),
                &Expr::var("N")
            ),
            None
        );
        assert_eq!(
            sum_over(&parse("1/i").unwrap(), "i", &Expr::one(), &Expr::var("N")),
            None
        );
    }
}
