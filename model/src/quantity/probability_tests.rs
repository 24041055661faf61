//! Tests of branch probabilities: clamped shares, laws in the parameters a share moves with.
#![allow(clippy::unwrap_used)]

use super::*;

/// A share fitted from P = 1, 2 as `2 - 2/P` reads 1.99 at P = 256: the law is clamped to
/// [0, 1]; one that stays inside is left as it is.
#[test]
fn a_fitted_share_stays_a_share() {
    let mut s = Samples::new(vec!["N".into(), "P".into()]);
    for n in [64.0, 128.0] {
        s.push(vec![n, 1.0], 0.0);
        s.push(vec![n, 2.0], 1.0);
    }
    let c = vec![
        vec![Expr::one(), Expr::var("P").powi(-1)],
        vec![Expr::var("P").powi(-1)],
    ];
    let f = fit_probability(&s, &c);
    let at = |p: f64| {
        f.expr
            .eval(&|v| Some(if v == "P" { p } else { 64.0 }))
            .unwrap()
    };
    assert!(
        (at(2.0) - 1.0).abs() < 1e-9 && at(1.0).abs() < 1e-9,
        "{}",
        f.expr
    );
    assert!((at(256.0) - 1.0).abs() < 1e-9, "{}", f.expr);
    let mut t = Samples::new(vec!["P".into()]);
    for p in [2.0, 4.0, 8.0] {
        t.push(vec![p], 1.0 - 1.0 / p);
    }
    let g = fit_probability(&t, &c);
    assert!(!g.expr.to_string().contains("min("), "{}", g.expr);
}

/// The mg2d branch shares over N, NLEVELS, P (one NCYCLES), from `share`.
fn levels(share: impl Fn(f64, f64) -> f64) -> Samples {
    let mut s = Samples::new(["N", "NCYCLES", "NLEVELS", "P"].map(String::from).to_vec());
    for n in [256.0, 512.0, 1024.0] {
        for l in [3.0, 5.0] {
            for p in [2.0, 4.0, 8.0, 16.0] {
                s.push(vec![n, 4.0, l, p], share(l, p));
            }
        }
    }
    s
}

fn in_p() -> Vec<Vec<Expr>> {
    vec![
        vec![Expr::one()],
        vec![Expr::one(), Expr::var("P").powi(-1)],
    ]
}

/// trial 6 item 5: `l == nlevels - 1` in a V-cycle recursing through NLEVELS levels is
/// taken in 1/NLEVELS of its evaluations (1/3, 1/5 traced): a law in NLEVELS, not their
/// mean 0.2667 with R² 0.
#[test]
fn a_share_that_moves_with_a_parameter_is_a_law_in_it() {
    let s = levels(|l, _| 1.0 / l);
    assert_eq!(share_moves_with(&s), ["NLEVELS"]);
    let f = fit_probability(&s, &in_p());
    assert!(f.r2 > 0.99, "{} R² {}", f.expr, f.r2);
    let at = |l: f64, p: f64| {
        f.expr
            .eval(&|v| match v {
                "NLEVELS" => Some(l),
                "P" => Some(p),
                _ => Some(512.0),
            })
            .unwrap()
    };
    for (l, p) in [(7.0, 16.0), (2.0, 1024.0), (10.0, 2.0)] {
        assert!((at(l, p) - 1.0 / l).abs() < 1e-6, "{} at {l}, {p}", f.expr);
    }
    assert!(share_unexplained(&s, &f).is_none());
    // one over both (a rank and a level)
    let h = fit_probability(&levels(|l, p| 1.0 / (l * p)), &in_p());
    assert!(h.r2 > 0.99, "{}", h.expr);
    assert!(
        h.expr.contains_var("NLEVELS") && h.expr.contains_var("P"),
        "{}",
        h.expr
    );
    // a share in P alone is left to the caller's laws, not a law in N
    let q = fit_probability(&levels(|_, p| 1.0 - 1.0 / p), &in_p());
    assert!(
        !q.expr.contains_var("N") && !q.expr.contains_var("NLEVELS"),
        "{}",
        q.expr
    );
}

/// trial 6 item 5: a share that moves with a parameter and fits no law is their mean,
/// and the warning says what it changes with.
#[test]
fn a_constant_share_that_explains_nothing_names_what_it_moves_with() {
    // floor-like in NLEVELS, and noisy in P: no law fits
    let s = levels(|l, p| if l > 4.0 { 0.6 } else { 0.2 } + 0.2 * (p.log2() % 2.0));
    let f = fit_probability(&s, &in_p());
    assert!(f.r2 < 0.99 && f.expr.as_const().is_some(), "{}", f.expr);
    let why = share_unexplained(&s, &f).unwrap();
    assert!(why.contains("changes with NLEVELS, P"), "{why}");
    assert!(
        why.contains("at NLEVELS=3") && why.contains("at NLEVELS=5"),
        "{why}"
    );
    assert!(!why.contains("at N="), "{why}");
    // a share that does not move: nothing to say
    let flat = levels(|_, _| 0.25);
    assert!(share_unexplained(&flat, &fit_probability(&flat, &in_p())).is_none());
    // trial 27: a branch on a random draw, 0.1013 at one size and 0.1014 at another, moves by
    // chance
    let drawn = levels(|l, p| 0.1013 + 1e-4 * ((l * p) % 3.0));
    let f = fit_probability(&drawn, &in_p());
    assert!(
        share_unexplained(&drawn, &f).is_none(),
        "{} R² {}",
        f.expr,
        f.r2
    );
}
