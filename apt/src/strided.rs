//! Sums of a trip count over an enclosing loop whose step is not ±1 (`do l0 = 1, nlines,
//! nb`; `for (i0 = 0; i0 < n; i0 += B)`), including the tile idiom whose inner loop runs to
//! `min(l0 + nb - 1, nlines)`: that clamp is the full tile on every iteration but the last,
//! and the end of the range on the last, so the inner trips add up to the range's length
//! (trial 7 item 11).
use symbolic::{Atom, Expr};

use crate::rules::trip_count;
use crate::value::Val;
use crate::Attr;

/// The iteration number of the strided loop inside the sum: not a name a program can
/// declare, so it never meets a program symbol.
const K: &str = "#k";

/// Why a sum over a strided loop has no closed form.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StridedError {
    /// The loop's trip count is not an expression (zero step).
    Trip(String),
    /// The summand is not a polynomial in the iteration number (after the tile clamps).
    NoClosedForm,
}

/// Σ of `body` over `var = lo, lo + step, …, ≤ hi` (Fortran semantics). The step is taken
/// as pointing down to `hi` when it is a negative constant or a single negated term (`-nb`,
/// a symbol being taken as positive), up otherwise. With `var = lo + step·k`, `k = 0 … T −
/// 1` (`T` the loop's trip count), a summand polynomial in `var` sums in closed form.
/// Upward, a clamp `min(var + step + c, hi + c + d)` (`d` 0 or 1, `c` free of `var`), the
/// end of a tile, takes its first argument on the first `T − 1` iterations and its second
/// on the last one (the last tile starts at most `hi` and ends past it): those parts are
/// summed apart. Downward its mirror, the start of a tile `max(var + step + c, hi + c − d)`
/// (`do ie = n, 1, -nb; ib = max(ie - nb + 1, 1)`), is treated alike: every tile but the
/// last reaches `step` below its end, the last stops at `hi`. Exact for loops that run at
/// least once.
pub fn sum_strided(
    body: &Expr,
    var: &str,
    lo: &Expr,
    hi: &Expr,
    step: &Expr,
) -> Result<Expr, StridedError> {
    let trip = match trip_count(
        &Val::Known(lo.clone()),
        &Val::Known(hi.clone()),
        &Val::Known(step.clone()),
    ) {
        Attr::Expr(t) => t,
        Attr::Unresolved(r) => return Err(StridedError::Trip(r)),
        _ => return Err(StridedError::Trip("step is an MPI constant".into())),
    };
    let at = |k: &Expr| lo + &(step * k);
    let k = Expr::var(K);
    let clamps = tile_clamps(body, var, hi, step, is_downward(step));
    if clamps.is_empty() {
        let s = symbolic::sum_over(
            &body.subs(var, &at(&k)),
            K,
            &Expr::zero(),
            &(&trip - Expr::one()),
        )
        .ok_or(StridedError::NoClosedForm)?;
        return closed(s);
    }
    let mut full = body.clone();
    let mut last = body.clone();
    for (atom, inner, end) in &clamps {
        full = full.replace_atom(atom, inner);
        last = last.replace_atom(atom, end);
    }
    let before_last = symbolic::sum_over(
        &full.subs(var, &at(&k)),
        K,
        &Expr::zero(),
        &(&trip - Expr::int(2)),
    )
    .ok_or(StridedError::NoClosedForm)?;
    let last = last.subs(var, &at(&(&trip - Expr::one())));
    closed(before_last + last)
}

/// A sum still holding `var` or the iteration number (inside an atom `sum_over` let
/// through: it refuses those) has no closed form.
fn closed(s: Expr) -> Result<Expr, StridedError> {
    if s.contains_var(K) {
        Err(StridedError::NoClosedForm)
    } else {
        Ok(s)
    }
}

/// Whether `step` points down: a negative constant, or one term with a negative
/// coefficient (`-nb`; a symbolic step is taken as positive, as its mirror `nb` is).
fn is_downward(step: &Expr) -> bool {
    match step.as_const() {
        Some(c) => c < 0.0,
        None => matches!(step.terms(), [t] if t.coef() < 0.0),
    }
}

/// The `min`/`max` atoms of `body` that bound a tile of the loop over `var` (see
/// [`sum_strided`]): (atom, its value on all iterations but the last, its value on the
/// last). Upward a tile's end is a `min` (or a negated `max`), downward a tile's start is a
/// `max` (or a negated `min`: `min(nb, ie)` is `ie - max(ie - nb, 0)`, a length).
fn tile_clamps(
    body: &Expr,
    var: &str,
    hi: &Expr,
    step: &Expr,
    downward: bool,
) -> Vec<(Atom, Expr, Expr)> {
    let mut out: Vec<(Atom, Expr, Expr)> = Vec::new();
    for t in body.terms() {
        for (a, _) in t.factors() {
            let (args, negated) = match (a, downward) {
                (Atom::Min(args), false) | (Atom::Max(args), true) => (args, false),
                (Atom::Max(args), false) | (Atom::Min(args), true) => (args, true),
                _ => continue,
            };
            if out.iter().any(|(seen, _, _)| seen == a) {
                continue;
            }
            let [x, y] = args.as_slice() else { continue };
            let sign = if negated { -Expr::one() } else { Expr::one() };
            // a tile's length is its end less its start: `min(K, N - kb)` is `min(kb + K, N)
            // - kb`, so both arguments are tried as written and shifted by `var`
            let found = [Expr::zero(), Expr::var(var)].iter().find_map(|shift| {
                [(x, y), (y, x)].into_iter().find(|(inner, end)| {
                    let c = &sign * *inner + shift - Expr::var(var) - step;
                    let end = &sign * *end + shift;
                    if c.contains_var(var) || end.contains_var(var) {
                        return false;
                    }
                    let d = if downward {
                        hi + &c - &end
                    } else {
                        &end - hi - &c
                    };
                    matches!(d.as_const(), Some(d) if d == 0.0 || d == 1.0)
                })
            });
            if let Some((inner, end)) = found {
                out.push((a.clone(), inner.clone(), end.clone()));
            }
        }
    }
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::panic)]
mod tests {
    use super::*;
    use symbolic::parse;

    /// Brute force: Σ body over var = lo, lo+step, … ≤ hi at the given values.
    fn brute(body: &str, lo: &str, hi: &str, step: &str, vals: &[(&str, f64)]) -> f64 {
        let at = |v: &str, x: Option<f64>| {
            if v == "l0" && x.is_some() {
                return x;
            }
            vals.iter().find(|(n, _)| *n == v).map(|(_, x)| *x)
        };
        let g = |s: &str| parse(s).unwrap().eval(&|v| at(v, None)).unwrap();
        let (lo, hi, step) = (g(lo), g(hi), g(step));
        let b = parse(body).unwrap();
        let mut sum = 0.0;
        let mut x = lo;
        while (step > 0.0 && x <= hi) || (step < 0.0 && x >= hi) {
            sum += b.eval(&|v| at(v, Some(x))).unwrap();
            x += step;
        }
        sum
    }

    fn check(body: &str, lo: &str, hi: &str, step: &str, cases: &[&[(&str, f64)]]) -> Expr {
        let s = sum_strided(
            &parse(body).unwrap(),
            "l0",
            &parse(lo).unwrap(),
            &parse(hi).unwrap(),
            &parse(step).unwrap(),
        )
        .unwrap_or_else(|e| panic!("{body}: {e:?}"));
        for vals in cases {
            let got = s
                .eval(&|v| vals.iter().find(|(n, _)| *n == v).map(|(_, x)| *x))
                .unwrap();
            let want = brute(body, lo, hi, step, vals);
            assert!(
                (got - want).abs() < 1e-9,
                "{body} at {vals:?}: {got} vs {want} ({s})"
            );
        }
        s
    }

    #[test]
    fn fortran_tiles_add_up_to_the_range() {
        // do l0 = 1, nlines, nb; do l = l0, min(l0 + nb - 1, nlines)
        let cases: &[&[(&str, f64)]] = &[
            &[("NLINES", 10.0), ("NB", 3.0)],
            &[("NLINES", 12.0), ("NB", 4.0)],
            &[("NLINES", 7.0), ("NB", 7.0)],
            &[("NLINES", 5.0), ("NB", 9.0)],
            &[("NLINES", 1.0), ("NB", 1.0)],
        ];
        let s = check(
            "min(l0 + NB - 1, NLINES) - l0 + 1",
            "1",
            "NLINES",
            "NB",
            cases,
        );
        assert_eq!(s, parse("NLINES").unwrap());
        // the work below the tile loop: (NLOC - 1) per line
        let s = check(
            "(NLOC - 1)*(min(l0 + NB - 1, NLINES) - l0 + 1)",
            "1",
            "NLINES",
            "NB",
            &[&[("NLINES", 10.0), ("NB", 3.0), ("NLOC", 6.0)]],
        );
        assert_eq!(s, parse("NLINES*NLOC - NLINES").unwrap());
    }

    #[test]
    fn c_tiles_and_constant_steps() {
        // for (i0 = 0; i0 < n; i0 += B) for (i = i0; i < min(i0 + B, n); i++)
        let s = check(
            "min(l0 + B, N) - l0",
            "0",
            "N - 1",
            "B",
            &[&[("N", 10.0), ("B", 4.0)], &[("N", 8.0), ("B", 4.0)]],
        );
        assert_eq!(s, parse("N").unwrap());
        // a constant stride, upward and downward, polynomial summands
        check("l0", "1", "N", "3", &[&[("N", 10.0)], &[("N", 12.0)]]);
        check("N - l0", "N", "1", "-2", &[&[("N", 9.0)], &[("N", 10.0)]]);
        check(
            "min(l0 + 3, N) - l0 + 1",
            "1",
            "N",
            "4",
            &[&[("N", 10.0)], &[("N", 3.0)]],
        );
    }

    #[test]
    fn remainder_blocks_add_up_to_the_range() {
        // for (kb = 0; kb < nz; kb += K) kk = min(K, nz - kb): the block's length, not its end
        let cases: &[&[(&str, f64)]] = &[
            &[("NZ", 128.0), ("K", 16.0), ("N", 3.0)],
            &[("NZ", 100.0), ("K", 16.0), ("N", 3.0)],
            &[("NZ", 5.0), ("K", 9.0), ("N", 3.0)],
        ];
        let s = check("min(K, NZ - l0)", "0", "NZ - 1", "K", cases);
        assert_eq!(s, parse("NZ").unwrap());
        // Fortran: do kb = 1, nz, k; kk = min(k, nz - kb + 1)
        let s = check("8*N*min(K, NZ - l0 + 1)", "1", "NZ", "K", cases);
        assert_eq!(s, parse("8*N*NZ").unwrap());
    }

    #[test]
    fn downward_tiles_add_up_to_the_range_like_their_mirror() {
        // do ie = nx, 1, -nb; ib = max(ie - nb + 1, 1): trial 19's LU upper sweep
        let cases: &[&[(&str, f64)]] = &[
            &[("NX", 10.0), ("NB", 3.0)],
            &[("NX", 12.0), ("NB", 4.0)],
            &[("NX", 7.0), ("NB", 7.0)],
            &[("NX", 5.0), ("NB", 9.0)],
            &[("NX", 1.0), ("NB", 1.0)],
        ];
        let s = check("8*l0 - 8*max(l0 - NB + 1, 1) + 8", "NX", "1", "-NB", cases);
        assert_eq!(s, parse("8*NX").unwrap());
        // the tile's length written as a `min`: ie - max(ie - nb, 0)
        let s = check("min(NB, l0)", "NX", "1", "-NB", cases);
        assert_eq!(s, parse("NX").unwrap());
        // C, from n - 1 down to 0: for (ie = n - 1; ie >= 0; ie -= B) ib = max(ie - B + 1, 0)
        let s = check(
            "l0 - max(l0 - B + 1, 0) + 1",
            "N - 1",
            "0",
            "-B",
            &[
                &[("N", 10.0), ("B", 4.0)],
                &[("N", 8.0), ("B", 4.0)],
                &[("N", 3.0), ("B", 5.0)],
            ],
        );
        assert_eq!(s, parse("N").unwrap());
        // a constant downward stride
        let s = check(
            "l0 - max(l0 - 3, 1) + 1",
            "N",
            "1",
            "-4",
            &[&[("N", 10.0)], &[("N", 3.0)], &[("N", 12.0)]],
        );
        assert_eq!(s, parse("N").unwrap());
    }

    #[test]
    fn clamps_that_are_not_tile_ends_have_no_closed_form() {
        // the clamp ends a tile twice as long as the step: it binds on the last two
        let r = sum_strided(
            &parse("min(l0 + 2*NB - 1, NLINES) - l0 + 1").unwrap(),
            "l0",
            &Expr::one(),
            &Expr::var("NLINES"),
            &Expr::var("NB"),
        );
        assert_eq!(r, Err(StridedError::NoClosedForm));
        // downward, a start two steps below the end binds on the last two
        let r = sum_strided(
            &parse("l0 - max(l0 - 2*NB + 1, 1) + 1").unwrap(),
            "l0",
            &Expr::var("NX"),
            &Expr::one(),
            &-Expr::var("NB"),
        );
        assert_eq!(r, Err(StridedError::NoClosedForm));
        // an upward loop's `max` is no tile start
        let r = sum_strided(
            &parse("l0 - max(l0 - NB + 1, 1) + 1").unwrap(),
            "l0",
            &Expr::one(),
            &Expr::var("NX"),
            &Expr::var("NB"),
        );
        assert_eq!(r, Err(StridedError::NoClosedForm));
        let r = sum_strided(
            &parse("log2(l0)").unwrap(),
            "l0",
            &Expr::one(),
            &Expr::var("N"),
            &Expr::int(2),
        );
        assert_eq!(r, Err(StridedError::NoClosedForm));
    }
}
