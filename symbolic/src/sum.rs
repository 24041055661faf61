//! Closed-form sums Σ_{i=lo}^{hi} body(i) for bodies polynomial in `i` (Faulhaber, degree ≤ 3):
//! trip counts of triangular loop nests; and sums over a geometric sequence of values
//! ([`sum_geometric`]): the work nested in `for (len = 2; len <= n; len *= 2)`.

use crate::expr::{Atom, Expr};
use crate::rational::Rational;

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

/// Σ_{var=lo}^{hi} body; `None` when `body` is neither a polynomial of degree ≤ 3 in `var`
/// (negative or fractional powers, or `var` inside log2/max/min/ceil/floor) nor periodic in it
/// ([`sum_periodic`]).
pub fn sum_over(body: &Expr, var: &str, lo: &Expr, hi: &Expr) -> Option<Expr> {
    sum_polynomial(body, var, lo, hi).or_else(|| sum_periodic(body, var, lo, hi))
}

/// Every `floor` atom of `e` whose argument mentions `var`, nested ones too, each once.
fn floors_of(e: &Expr, var: &str, out: &mut Vec<Atom>) {
    for t in e.terms() {
        for (a, _) in t.factors() {
            if matches!(a, Atom::Floor(_)) && a.args().iter().any(|x| x.contains_var(var)) {
                if !out.contains(a) {
                    out.push(a.clone());
                }
            } else {
                for x in a.args() {
                    floors_of(x, var, out);
                }
            }
        }
    }
}

/// `floor(var/m + c)`'s period `m` (an integer ≥ 2) and offset `c` (free of `var`).
fn period(a: &Atom, var: &str) -> Option<(i64, Expr)> {
    let Atom::Floor(x) = a else { return None };
    let target = Atom::Var(var.to_string());
    let mut step = None;
    let mut rest = Expr::zero();
    for t in x.terms() {
        match t.factors() {
            [(v, q)] if *v == target && q.is_integer() && q.numer() == 1 => {
                step = Some(t.coef());
            }
            f if f
                .iter()
                .any(|(a, _)| *a == target || a.args().iter().any(|y| y.contains_var(var))) =>
            {
                return None;
            }
            _ => rest = rest + crate::canon::term_expr(t.coef(), t.factors().to_vec()),
        }
    }
    let m = 1.0 / step?;
    let r = m.round();
    ((m - r).abs() <= 1e-9 * m.abs() && (2.0..=64.0).contains(&r)).then_some((r as i64, rest))
}

/// Σ_{var=lo}^{hi} of a body where `var` appears only through residues `mod(var + c, m)`
/// (written `var + c − m·floor((var + c)/m)`: a red-black sweep's `DO I = MOD(J + IT, 2) + 2,
/// N − 1, 2` summed over J): the trip count over `m` times the body's sum over one period, each
/// residue once. Exact when the trip count is a multiple of the period, within one period's
/// spread of the body otherwise. Every such floor must share the period `m` and differ in
/// offset by whole numbers, so that one residue fixes them all; `None` otherwise, or when
/// `var` remains once they are fixed.
fn sum_periodic(body: &Expr, var: &str, lo: &Expr, hi: &Expr) -> Option<Expr> {
    let mut floors = Vec::new();
    floors_of(body, var, &mut floors);
    let first = floors.first()?;
    let (m, c0) = period(first, var)?;
    // each floor's offset from the first, in whole steps
    let mut shifts = Vec::new();
    for f in &floors {
        let (mf, c) = period(f, var)?;
        let d = (c - c0.clone()).as_const()? * m as f64;
        if mf != m || (d - d.round()).abs() > 1e-9 {
            return None;
        }
        shifts.push(d.round() as i64);
    }
    let mut period_sum = Expr::zero();
    for r in 0..m {
        // at var + c0 ≡ r (mod m): floor((var + c)/m) = (var + c − residue)/m
        let mut b = body.clone();
        for (f, d) in floors.iter().zip(&shifts) {
            let Atom::Floor(x) = f else { return None };
            let residue = (r + d).rem_euclid(m) as f64;
            b = b.replace_atom(f, &(x.as_ref().clone() - Expr::num(residue / m as f64)));
        }
        if b.contains_var(var) {
            return None;
        }
        period_sum = period_sum + b;
    }
    let trips = hi - lo + Expr::one();
    Some(trips * period_sum / Expr::int(m))
}

/// [`sum_over`] for a body polynomial in `var`.
fn sum_polynomial(body: &Expr, var: &str, lo: &Expr, hi: &Expr) -> Option<Expr> {
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

/// Σ_{j=0}^{n−1} body(var = start·r^j): the body summed over a geometric loop's values, with
/// `r_pow_n` = r^n given as an expression (n is a trip count: `floor(log2(N))`, whose power of 2
/// is N only where N is one; the caller says which it takes). Each term `c·var^a` gives
/// `c·start^a·(r_pow_n^a − 1)/(r^a − 1)`, a term free of `var` gives `n·c`, a term
/// `c·log2(var)` gives `c·(n·log2(start) + log2(r)·n(n − 1)/2)` (a bitonic sort's inner levels).
/// `None` when `var` is elsewhere inside a log2/max/min/floor/ceil, `r` is not positive or is 1.
pub fn sum_geometric(
    body: &Expr,
    var: &str,
    start: &Expr,
    r: f64,
    n: &Expr,
    r_pow_n: &Expr,
) -> Option<Expr> {
    if !(r > 0.0 && r.is_finite() && r != 1.0) {
        return None;
    }
    let target = Atom::Var(var.to_string());
    let log = Atom::Log2(Box::new(Expr::var(var)));
    let one = Rational::from_f64(1.0)?;
    let mut out = Expr::zero();
    for t in body.terms() {
        let (mut a, mut logs) = (None, false);
        let mut rest = Vec::new();
        for (x, q) in t.factors() {
            if *x == target {
                a = Some(*q);
            } else if *x == log && *q == one {
                logs = true;
            } else {
                if x.args().iter().any(|y| y.contains_var(var)) {
                    return None;
                }
                rest.push((x.clone(), *q));
            }
        }
        let c = crate::canon::term_expr(t.coef(), rest);
        out = out
            + match (a, logs) {
                (None, false) => c * n,
                // Σ log2(start·r^j) = n·log2(start) + log2(r)·n(n − 1)/2
                (None, true) => {
                    c * (n * start.log2() + Expr::num(r.log2() * 0.5) * n * (n - Expr::one()))
                }
                (Some(q), false) => {
                    let ra = r.powf(q.to_f64());
                    c * start.pow(q) * (r_pow_n.pow(q) - Expr::one()) / Expr::num(ra - 1.0)
                }
                (Some(_), true) => return None,
            };
    }
    Some(out)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::panic)]
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

    /// Trial 11's sor: `DO I = MOD(J + IT, 2) + 2, N - 1, 2` has
    /// `ceil(N/2 - mod(J + IT, 2)/2) - 1` iterations; summed over J = 2..N-1 it was unresolved. Over whole periods the sum is
    /// exact; over an odd count of rows within half a row.
    #[test]
    fn a_red_black_sweep_sums_over_its_period() {
        let body = parse("ceil(0.5*N - 0.5*(it + j - 2*floor(0.5*it + 0.5*j))) - 1").unwrap();
        let s = sum_over(&body, "j", &Expr::int(2), &parse("N - 1").unwrap()).unwrap();
        assert!(!s.contains_var("j"), "{s}");
        for (n, it) in [(512.0, 1.0), (512.0, 2.0), (100.0, 7.0), (9.0, 3.0)] {
            let at = |j: f64| {
                body.eval(&|v| match v {
                    "N" => Some(n),
                    "it" => Some(it),
                    "j" => Some(j),
                    _ => None,
                })
                .unwrap()
            };
            let brute: f64 = (2..(n as i64)).map(|j| at(j as f64)).sum();
            let got = s
                .eval(&|v| match v {
                    "N" => Some(n),
                    "it" => Some(it),
                    _ => None,
                })
                .unwrap();
            // N - 2 rows: whole periods when N is even
            let tol = if n as i64 % 2 == 0 { 1e-9 } else { 0.5 + 1e-9 };
            assert!(
                (got - brute).abs() <= tol,
                "N={n} it={it}: {got} vs {brute}"
            );
        }
        // residues of different periods, or a var outside the residue, are not periodic sums
        for body in [
            "floor(j/2) + floor(j/3)",
            "j*floor(j/2)",
            "floor(j/2 + P/2)",
        ] {
            let b = parse(body).unwrap();
            assert_eq!(
                sum_over(&b, "j", &Expr::one(), &Expr::var("N")),
                None,
                "{body}"
            );
        }
    }

    /// Σ over len = 2, 4, …, N (N a power of 2) and over j = K/2, K/4, …, 1 match the loops.
    #[test]
    fn geometric_sums_match_the_loops() {
        for (body, start, r, trip, r_pow) in [
            // FFT: n/len blocks of len/2 butterflies per level
            ("N/len*len/2", "2", 2.0, "log2(N)", "N"),
            ("len + 3", "2", 2.0, "log2(N)", "N"),
            ("N/len", "1", 2.0, "log2(N) + 1", "2*N"),
            ("len^2*P", "2", 2.0, "log2(N)", "N"),
            // bitonic: log2(k) inner levels at each k = 2, 4, …, N
            ("N*log2(len) + 1", "2", 2.0, "log2(N)", "N"),
            // halving: v = N/2, N/4, …, 1
            ("len", "N/2", 0.5, "log2(N)", "1/N"),
            ("len^0.5", "N/2", 0.5, "log2(N)", "1/N"),
        ] {
            let b = parse(body).unwrap();
            let st = parse(start).unwrap();
            let s = sum_geometric(
                &b,
                "len",
                &st,
                r,
                &parse(trip).unwrap(),
                &parse(r_pow).unwrap(),
            )
            .unwrap_or_else(|| panic!("{body}"));
            for n in [8.0, 64.0, 1024.0] {
                let at = |v: &str| match v {
                    "N" => Some(n),
                    "P" => Some(3.0),
                    _ => None,
                };
                let trips = parse(trip).unwrap().eval(&at).unwrap().round() as i32;
                let mut len = st.eval(&at).unwrap();
                let mut brute = 0.0;
                for _ in 0..trips {
                    brute += b
                        .eval(&|v| if v == "len" { Some(len) } else { at(v) })
                        .unwrap();
                    len *= r;
                }
                let got = s.eval(&at).unwrap();
                assert!(
                    (got - brute).abs() < 1e-9 * brute.abs().max(1.0),
                    "{body} at {n}: {got} vs {brute}"
                );
            }
        }
        let t = parse("log2(N)").unwrap();
        let no = |body: &str| {
            sum_geometric(
                &parse(body).unwrap(),
                "len",
                &Expr::int(2),
                2.0,
                &t,
                &Expr::var("N"),
            )
        };
        assert!(
            no("len*log2(len)").is_none()
                && no("floor(N/len)").is_none()
                && no("min(len, N)").is_none()
        );
        assert!(sum_geometric(
            &Expr::var("len"),
            "len",
            &Expr::int(2),
            1.0,
            &t,
            &Expr::var("N")
        )
        .is_none());
    }
}
