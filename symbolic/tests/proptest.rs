//! Property tests over generated expressions covering every atom kind: exact text round-trip,
//! canonical form preserves value, compiled evaluation agrees, derivatives match central
//! finite differences away from kinks.
//!
//! Contract under test: simplification assumes bases of powers are non-negative (variables are
//! positive reals), so points where the unsimplified tree raises a negative value to a power,
//! takes log2 of a non-positive value, or rounds a value next to an integer are skipped.
#![allow(clippy::unwrap_used)]

use proptest::prelude::*;
use symbolic::{parse, Compiled, Expr, Rational};

#[derive(Clone, Debug)]
enum Ast {
    Num(f64),
    Var(usize),
    Add(Box<Ast>, Box<Ast>),
    Sub(Box<Ast>, Box<Ast>),
    Mul(Box<Ast>, Box<Ast>),
    Div(Box<Ast>, Box<Ast>),
    Pow(Box<Ast>, i64, i64),
    Sqrt(Box<Ast>),
    Log2(Box<Ast>),
    Ln(Box<Ast>),
    Max(Box<Ast>, Box<Ast>),
    Min(Box<Ast>, Box<Ast>),
    Ceil(Box<Ast>),
    Floor(Box<Ast>),
    /// `dims(ceil(x), d, k)`: the argument made whole, as a rank count is
    Dims(Box<Ast>, u32, u32),
    /// `dims(ceil(x), d, 0) ⋯ dims(ceil(x), d, d-1)`, which is `ceil(x)`
    Grid(Box<Ast>, u32),
}

const VARS: [&str; 3] = ["x", "y", "z"];

fn ast() -> impl Strategy<Value = Ast> {
    let leaf = prop_oneof![
        (1i32..6).prop_map(|n| Ast::Num(f64::from(n))),
        prop::sample::select(vec![0.5, 2.5, 0.125, 3.75]).prop_map(Ast::Num),
        (0usize..3).prop_map(Ast::Var),
        (0usize..3).prop_map(Ast::Var),
    ];
    leaf.prop_recursive(4, 24, 2, |inner| {
        let b = |a: Ast| Box::new(a);
        prop_oneof![
            (inner.clone(), inner.clone()).prop_map(move |(x, y)| Ast::Add(b(x), b(y))),
            (inner.clone(), inner.clone()).prop_map(move |(x, y)| Ast::Sub(b(x), b(y))),
            (inner.clone(), inner.clone()).prop_map(move |(x, y)| Ast::Mul(b(x), b(y))),
            (inner.clone(), inner.clone()).prop_map(move |(x, y)| Ast::Div(b(x), b(y))),
            (
                inner.clone(),
                prop::sample::select(vec![
                    (-2, 1),
                    (-1, 1),
                    (-1, 2),
                    (1, 3),
                    (2, 3),
                    (3, 2),
                    (2, 1),
                    (3, 1)
                ])
            )
                .prop_map(move |(x, (n, d))| Ast::Pow(b(x), n, d)),
            inner.clone().prop_map(move |x| Ast::Sqrt(b(x))),
            inner.clone().prop_map(move |x| Ast::Log2(b(x))),
            inner.clone().prop_map(move |x| Ast::Ln(b(x))),
            (inner.clone(), inner.clone()).prop_map(move |(x, y)| Ast::Max(b(x), b(y))),
            (inner.clone(), inner.clone()).prop_map(move |(x, y)| Ast::Min(b(x), b(y))),
            inner.clone().prop_map(move |x| Ast::Ceil(b(x))),
            inner.clone().prop_map(move |x| Ast::Floor(b(x))),
            (
                inner.clone(),
                prop::sample::select(vec![(1, 0), (2, 0), (2, 1), (3, 0), (3, 1), (3, 2)])
            )
                .prop_map(move |(x, (d, k))| Ast::Dims(b(x), d, k)),
            (inner.clone(), 2u32..4).prop_map(move |(x, d)| Ast::Grid(b(x), d)),
        ]
    })
}

fn build(a: &Ast) -> Expr {
    match a {
        Ast::Num(c) => Expr::num(*c),
        Ast::Var(i) => Expr::var(VARS[*i]),
        Ast::Add(x, y) => build(x) + build(y),
        Ast::Sub(x, y) => build(x) - build(y),
        Ast::Mul(x, y) => build(x) * build(y),
        Ast::Div(x, y) => build(x) / build(y),
        Ast::Pow(x, n, d) => build(x).pow(Rational::new(*n, *d).unwrap()),
        Ast::Sqrt(x) => build(x).sqrt(),
        Ast::Log2(x) => build(x).log2(),
        Ast::Ln(x) => Expr::ln(&build(x)),
        Ast::Max(x, y) => Expr::max(build(x), build(y)),
        Ast::Min(x, y) => Expr::min(build(x), build(y)),
        Ast::Ceil(x) => build(x).ceil(),
        Ast::Floor(x) => build(x).floor(),
        Ast::Dims(x, d, k) => Expr::dims(&build(x).ceil(), *d, *k).unwrap(),
        Ast::Grid(x, d) => {
            let n = build(x).ceil();
            (0..*d).map(|k| Expr::dims(&n, *d, k).unwrap()).product()
        }
    }
}

/// A reference `MPI_Dims_create` (Open MPI's rule, written out again): prime factors, largest
/// first, each to the smallest extent; extents largest first.
fn reference_dims(n: u64, d: u32) -> Vec<u64> {
    let mut primes = Vec::new();
    let mut rest = n;
    for p in 2..=n {
        if p * p > rest {
            break;
        }
        while rest.is_multiple_of(p) {
            primes.push(p);
            rest /= p;
        }
    }
    if rest > 1 {
        primes.push(rest);
    }
    let mut bins = vec![1u64; d as usize];
    for p in primes.into_iter().rev() {
        let i = (0..bins.len()).min_by_key(|&i| (bins[i], i)).unwrap();
        bins[i] *= p;
    }
    bins.sort_by(|a, b| b.cmp(a));
    bins
}

/// Direct evaluation: (value, absolute rounding-error scale); `None` at fragile points.
fn eval(a: &Ast, v: &[f64; 3]) -> Option<(f64, f64)> {
    let two =
        |x: &Ast, y: &Ast| -> Option<((f64, f64), (f64, f64))> { Some((eval(x, v)?, eval(y, v)?)) };
    let pow = |b: f64, mb: f64, q: f64| -> Option<(f64, f64)> {
        if b < 0.0 || (b == 0.0 && q <= 0.0) {
            return None;
        }
        let val = b.powf(q);
        let slope = if q >= 1.0 {
            (b + mb).powf(q - 1.0)
        } else {
            b.powf(q - 1.0)
        };
        Some((val, val.abs() + q.abs() * slope * mb))
    };
    let r = match a {
        Ast::Num(c) => (*c, c.abs()),
        Ast::Var(i) => (v[*i], v[*i]),
        Ast::Add(x, y) => {
            let ((a, ma), (b, mb)) = two(x, y)?;
            (a + b, ma + mb)
        }
        Ast::Sub(x, y) => {
            let ((a, ma), (b, mb)) = two(x, y)?;
            (a - b, ma + mb)
        }
        Ast::Mul(x, y) => {
            let ((a, ma), (b, mb)) = two(x, y)?;
            (a * b, ma * b.abs() + a.abs() * mb + ma * mb)
        }
        Ast::Div(x, y) => {
            let ((a, ma), (b, mb)) = two(x, y)?;
            if b.abs() <= 1e-6 * mb.max(1.0) {
                return None;
            }
            (a / b, ma / b.abs() + a.abs() * mb / (b * b))
        }
        Ast::Pow(x, n, d) => {
            let (b, mb) = eval(x, v)?;
            // (b^2)^(1/2) simplifies to b, which assumes b ≥ 0: even powers of negatives are fragile.
            if *d == 1 && b < 0.0 && n % 2 == 0 {
                return None;
            }
            if *d == 1 && b != 0.0 && b.abs() > 1e-6 * mb {
                let q = *n as f64;
                let val = b.powi(*n as i32);
                // Expanded powers cancel: the error scale uses |b| + its own scale.
                let slope = if q >= 1.0 {
                    (b.abs() + mb).powf(q - 1.0)
                } else {
                    b.abs().powf(q - 1.0)
                };
                (val, val.abs() + q.abs() * slope * mb)
            } else {
                pow(b, mb, *n as f64 / *d as f64)?
            }
        }
        Ast::Sqrt(x) => {
            let (b, mb) = eval(x, v)?;
            pow(b, mb, 0.5)?
        }
        Ast::Log2(x) | Ast::Ln(x) => {
            let (b, mb) = eval(x, v)?;
            if b <= 1e-6 * mb.max(1.0) {
                return None;
            }
            let k = if matches!(a, Ast::Ln(_)) {
                1.0
            } else {
                1.0 / std::f64::consts::LN_2
            };
            (k * b.ln(), k * b.ln().abs() + k * mb / b)
        }
        Ast::Max(x, y) => {
            let ((a, ma), (b, mb)) = two(x, y)?;
            (a.max(b), ma.max(mb))
        }
        Ast::Min(x, y) => {
            let ((a, ma), (b, mb)) = two(x, y)?;
            (a.min(b), ma.max(mb))
        }
        Ast::Ceil(x) | Ast::Floor(x) => {
            let (b, mb) = eval(x, v)?;
            if (b - b.round()).abs() <= 1e-6 * (mb + 1.0) {
                return None;
            }
            let r = if matches!(a, Ast::Ceil(_)) {
                b.ceil()
            } else {
                b.floor()
            };
            (r, r.abs())
        }
        Ast::Dims(x, _, _) | Ast::Grid(x, _) => {
            let (b, mb) = eval(x, v)?;
            // a whole argument from 1 (the atom is NaN below), not next to a rounding step
            if (b - b.round()).abs() <= 1e-6 * (mb + 1.0) || !(1.0..=1e6).contains(&b.ceil()) {
                return None;
            }
            let n = b.ceil() as u64;
            let r = match a {
                Ast::Dims(_, d, k) => reference_dims(n, *d)[*k as usize] as f64,
                _ => n as f64,
            };
            (r, r)
        }
    };
    (r.0.is_finite() && r.1.is_finite() && r.1 < 1e12).then_some(r)
}

fn lookup(v: &[f64; 3]) -> impl Fn(&str) -> Option<f64> + '_ {
    move |name| VARS.iter().position(|n| *n == name).map(|i| v[i])
}

fn point() -> impl Strategy<Value = [f64; 3]> {
    [1.5f64..8.0, 1.5f64..8.0, 1.5f64..8.0]
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|s| s.parse().ok()).unwrap_or(2000),
        ..ProptestConfig::default()
    })]

    #[test]
    fn text_round_trip_is_exact(a in ast()) {
        let e = build(&a);
        let text = e.to_text_exact();
        // Exactness is promised for finite coefficients (x/0 leaves inf/nan ones behind).
        if text.contains("inf") || text.contains("nan") {
            return Ok(());
        }
        let back = parse(&text).map_err(|err| TestCaseError::fail(format!("{text}: {err}")))?;
        prop_assert_eq!(&back, &e, "text: {}", text);
        let json = serde_json::to_string(&e).unwrap();
        prop_assert_eq!(serde_json::from_str::<Expr>(&json).unwrap(), e);
    }

    #[test]
    fn canonical_form_preserves_value(a in ast(), v in point()) {
        let Some((want, mag)) = eval(&a, &v) else { return Ok(()) };
        let e = build(&a);
        let got = e.eval(&lookup(&v)).unwrap();
        prop_assert!((got - want).abs() <= 1e-9 * (mag + want.abs()) + 1e-300,
            "{:?}\ncanonical {} = {} but tree = {} (scale {})", a, e, got, want, mag);
        let c = Compiled::new(&e, &VARS).unwrap();
        let fast = c.eval(&v);
        prop_assert!((fast - got).abs() <= 1e-12 * (mag + got.abs()) || (fast.is_nan() && got.is_nan()),
            "compiled {} vs {}", fast, got);
    }

    #[test]
    fn derivative_matches_finite_difference(a in ast(), v in point(), which in 0usize..3) {
        let var = VARS[which];
        let e = build(&a).relax_rounding();
        let Ok(f0) = e.eval(&lookup(&v)) else { return Ok(()) };
        if !f0.is_finite() || f0.abs() > 1e8 {
            return Ok(());
        }
        // Skip points within 1e-3 (relative) of a max/min kink.
        for piece in e.branches(var) {
            for c in &piece.conds {
                let (l, r) = (c.lhs.eval(&lookup(&v)).unwrap(), c.rhs.eval(&lookup(&v)).unwrap());
                if (l - r).abs() <= 1e-3 * l.abs().max(r.abs()).max(1e-3) {
                    return Ok(());
                }
            }
        }
        let d = e.diff(var).eval(&lookup(&v)).unwrap();
        let Some(d) = d else { return Ok(()) };
        let h = 1e-5 * v[which];
        let at = |x: f64| { let mut w = v; w[which] = x; let r = e.eval(&lookup(&w)).unwrap(); r };
        let (fp, fm) = (at(v[which] + h), at(v[which] - h));
        if !fp.is_finite() || !fm.is_finite() || !d.is_finite() {
            return Ok(());
        }
        let fd = (fp - fm) / (2.0 * h);
        // Two step sizes: when they disagree the stencil straddles a pole or a log singularity
        // and the finite difference itself is unreliable; otherwise extrapolate (Richardson).
        let (fp2, fm2) = (at(v[which] + 2.0 * h), at(v[which] - 2.0 * h));
        let fd2 = (fp2 - fm2) / (4.0 * h);
        if (fd - fd2).abs() > 1e-3 * (fd.abs() + 1.0) {
            return Ok(());
        }
        let fd = (4.0 * fd - fd2) / 3.0;
        prop_assert!((d - fd).abs() <= 1e-4 * (d.abs() + f0.abs() / v[which] + 1.0),
            "{:?}\nd/d{} of {} = {} but finite difference = {}", a, var, e, d, fd);
    }
}

#[test]
fn generator_covers_every_atom_kind() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut seen = std::collections::BTreeSet::new();
    let mut runner = TestRunner::deterministic();
    for _ in 0..3000 {
        let e = build(&ast().new_tree(&mut runner).unwrap().current());
        collect(&e, &mut seen);
    }
    assert_eq!(
        seen.into_iter().collect::<Vec<_>>(),
        ["ceil", "dims", "floor", "log2", "max", "min", "pow", "var"]
    );
}

fn collect(e: &Expr, seen: &mut std::collections::BTreeSet<&'static str>) {
    use symbolic::Atom;
    for t in e.terms() {
        for (a, _) in t.factors() {
            seen.insert(match a {
                Atom::Var(_) => "var",
                Atom::Log2(_) => "log2",
                Atom::Max(_) => "max",
                Atom::Min(_) => "min",
                Atom::Ceil(_) => "ceil",
                Atom::Floor(_) => "floor",
                Atom::Pow(_) => "pow",
                Atom::Dims { .. } => "dims",
            });
            for x in a.args() {
                collect(x, seen);
            }
        }
    }
}
