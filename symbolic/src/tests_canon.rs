//! Table tests for the canonical form: what each rewrite rule must produce.
#![allow(clippy::unwrap_used)]

use crate::{parse, Expr, Rational};

fn check(input: &str, expected: &str) {
    let e = parse(input).unwrap();
    assert_eq!(e.to_string(), expected, "input: {input}");
    let back = parse(&e.to_text_exact()).unwrap();
    assert_eq!(back, e, "round trip of {input}: {}", e.to_text_exact());
}

#[test]
fn rewrite_rules() {
    check("2*N*K/P + N*K/P", "3*K*N/P");
    check("log2(N*P^2)", "log2(N) + 2*log2(P)");
    check("N*sqrt(N/P)", "N^(3/2)/sqrt(P)");
    check("max(max(N, 3), max(P, 5))", "max(N, P, 5)");
    check("min(N, min(P, 2), 7)", "min(N, P, 2)");
    check("max(2*N, N)", "2*N");
    check("max(3, 4)", "4");
    check("x*x + x", "x^2 + x");
    check("(N + 1)^2", "N^2 + 2*N + 1");
    check("(N+1)^(1/2) * (N+1)^(1/2)", "N + 1");
    check(
        "N^2/(P*K) + K*log2(P) + 3*sqrt(N/P)",
        "N^2/(K*P) + K*log2(P) + 3*sqrt(N)/sqrt(P)",
    );
    check("ln(N)", "0.6931*log2(N)");
    check("log2(8*N)", "log2(N) + 3");
    check("log2(2*N + 2)", "log2(N + 1) + 1");
    check("ceil(N/P + 3)", "ceil(N/P) + 3");
    check("ceil(floor(N))", "floor(N)");
    check("N - N", "0");
    check("0.1 + 0.2 - 0.3", "0");
    check("1/(N+1) + 2/(N+1)", "3/(N + 1)");
    check("sqrt(N^2 + N*P)", "sqrt(N)*sqrt(N + P)");
    check("-N^2", "-N^2");
    check("2^10", "1024");
    check("N**2", "N^2");
    check("log(N, 2)", "log2(N)");
}

#[test]
fn constructors_match_parser() {
    let n = Expr::var("N");
    let p = Expr::var("P");
    let k = Expr::var("K");
    let built = &n.powi(2) / (&p * &k) + &k * p.log2();
    assert_eq!(built, parse("N^2/(P*K) + K*log2(P)").unwrap());
    assert_eq!(
        n.pow(Rational::new(3, 2).unwrap()),
        parse("N*sqrt(N)").unwrap()
    );
    assert_eq!(Expr::max(n.clone(), p.clone()), parse("max(P, N)").unwrap());
    assert_eq!(Expr::ln(&n), parse("ln(N)").unwrap());
    assert_eq!(Expr::log10(&n), parse("log10(N)").unwrap());
    assert_eq!(n.ceil(), parse("ceil(N)").unwrap());
    assert_eq!(Expr::zero(), parse("N*0").unwrap());
    assert!(parse("N - N").unwrap().is_zero());
}

#[test]
fn queries() {
    let e = parse("N^2/(P*K) + K*log2(P) + max(N/P, rank)").unwrap();
    assert_eq!(
        e.vars().into_iter().collect::<Vec<_>>(),
        ["K", "N", "P", "rank"]
    );
    assert!(e.contains_var("rank"));
    assert!(!e.contains_var("Q"));
    let s = e.subs("K", &parse("N/P").unwrap());
    assert_eq!(s, parse("N + N*log2(P)/P + max(N/P, rank)").unwrap());
    let v = e
        .eval(&|v| match v {
            "N" => Some(1024.0),
            "P" => Some(16.0),
            "K" => Some(128.0),
            "rank" => Some(1.0),
            _ => None,
        })
        .unwrap();
    assert!((v - (512.0 + 512.0 + 64.0)).abs() < 1e-9);
    let err = e.eval(&|_| None).unwrap_err();
    assert!(err.to_string().contains("unknown variable"));
    assert_eq!(parse("3*2").unwrap().as_const(), Some(6.0));
    assert_eq!(parse("N").unwrap().as_const(), None);
}

#[test]
fn serde_as_exact_string() {
    let e = parse("3e-6*N^2/P + 0.1234567*P + 1/3").unwrap();
    let j = serde_json::to_string(&e).unwrap();
    let back: Expr = serde_json::from_str(&j).unwrap();
    assert_eq!(back, e);
}

#[test]
fn printers() {
    let e = parse("N^2/(P*K) + K*log2(P) + 3*sqrt(N/P) + max(N, K)").unwrap();
    assert_eq!(e.to_latex(), "\\frac{N^{2}}{K P} + K \\log_2 P + \\max\\left(K, N\\right) + \\frac{3 \\cdot \\sqrt{N}}{\\sqrt{P}}");
    assert_eq!(
        e.to_python(),
        "N**2/(K*P) + K*log(P, 2) + Max(K, N) + 3*sqrt(N)/sqrt(P)"
    );
}

/// `min`/`max` drop arguments bounded past the others through floors, ceilings, maxima and
/// powers, not only plain variables; what depends on the values stays.
#[test]
fn vacuous_steps_and_bounds() {
    check("min(floor(0.01659*N^2/P + 16.58), 1)", "1");
    check("min(ceil(N/P), 1)", "min(ceil(N/P), 1)");
    check("max(floor(N + 2), 1)", "floor(N) + 2");
    check("min(max(N, 3), 2)", "2");
    check(
        "min(floor(0.5*N/P + 0.3), 1)",
        "min(floor(0.5*N/P + 0.3), 1)",
    );
    check("max(log2(P), 0)", "max(log2(P), 0)");
    check("min(sqrt(N + 4), 1)", "1");
}

/// `dims(n, d, k)`: constants fold, one dimension is `n`, the whole grid multiplies to `n`.
#[test]
fn grid_extents() {
    check("dims(8, 2, 0) * dims(8, 2, 1)", "8");
    check("dims(12, 3, 0)", "3");
    check("dims(P, 1, 0)", "P");
    check("dims(P, 2, 0)*dims(P, 2, 1)", "P");
    check("N/(dims(P, 2, 0)*dims(P, 2, 1))", "N/P");
    check("dims(P, 3, 0)*dims(P, 3, 1)*dims(P, 3, 2)", "P");
    check("dims(P, 3, 0)*dims(P, 3, 2)", "dims(P, 3, 0)*dims(P, 3, 2)");
    check("dims(P, 2, 0)^2*dims(P, 2, 1)", "P*dims(P, 2, 0)");
    check("dims(P, 2, 0)*dims(Q, 2, 1)", "dims(P, 2, 0)*dims(Q, 2, 1)");
    check("dims(P, 2, 0)/dims(P, 2, 1)", "dims(P, 2, 0)/dims(P, 2, 1)");
    check(
        "dims(P, 2, 0) + dims(P, 2, 1) - 2",
        "dims(P, 2, 0) + dims(P, 2, 1) - 2",
    );
    check("dims(N + P, 2, 0)*dims(N + P, 2, 1)", "N + P");
    // an extent is at least 1
    check("max(dims(P, 2, 1), 1)", "dims(P, 2, 1)");
    check("min(dims(P, 3, 2), 1)", "1");
    // extents do not increase with k
    check("max(dims(P, 2, 1), dims(P, 2, 0))", "dims(P, 2, 0)");
    check(
        "min(dims(P, 3, 0), dims(P, 3, 2), dims(P, 3, 1))",
        "dims(P, 3, 2)",
    );
    check(
        "max(dims(P, 2, 1), dims(Q, 2, 0))",
        "max(dims(P, 2, 1), dims(Q, 2, 0))",
    );
    // substitution re-canonicalises
    let e = parse("N/dims(P, 2, 0) + dims(P, 2, 1)").unwrap();
    assert_eq!(e.subs("P", &Expr::num(8.0)).to_string(), "0.25*N + 2");
    assert_eq!(
        e.subs("P", &parse("Q^2").unwrap()).to_string(),
        "dims(Q^2, 2, 1) + N/dims(Q^2, 2, 0)"
    );
    assert_eq!(e.vars().into_iter().collect::<Vec<_>>(), ["N", "P"]);
    assert!(e.contains_var("P"));
    assert_eq!(
        e.to_latex(),
        "\\frac{N}{\\mathrm{dims}\\left(P, 2, 0\\right)} + \\mathrm{dims}\\left(P, 2, 1\\right)"
    );
    assert_eq!(e.to_python(), "N/dims(P, 2, 0) + dims(P, 2, 1)");
    assert!(e.python_helpers().contains("class dims(Function)"));
    assert_eq!(parse("N").unwrap().python_helpers(), "");
    // values: Open MPI gives 8 ranks as 4 x 2 (not 2.83 x 2.83)
    let at = |p: f64| {
        e.eval(&|v| if v == "P" { Some(p) } else { Some(64.0) })
            .unwrap()
    };
    assert_eq!(at(8.0), 64.0 / 4.0 + 2.0);
    assert_eq!(at(7.0), 64.0 / 7.0 + 1.0);
    assert!(at(7.5).is_nan());
}

/// Display order: an extent grows like n^(1/d), between log2(P) and P.
#[test]
fn grid_extents_order_by_growth() {
    check(
        "1 + log2(P) + dims(P, 2, 0) + P",
        "P + dims(P, 2, 0) + log2(P) + 1",
    );
    assert_eq!(
        parse("N*dims(P, 2, 1) + N*dims(P, 2, 0) + 3*N")
            .unwrap()
            .factored(),
        "N*(dims(P, 2, 0) + dims(P, 2, 1) + 3)"
    );
}

/// A caller that knows more about a variable (a processor count is at least 1) gets bounds
/// the engine alone cannot give: `sqrt(P)` is at least 1, so a step `[sqrt(P) >= 1e-6]` is 1;
/// `1 - 1/sqrt(P)` has no lower bound the rules show (it is 0 at P = 1).
#[test]
fn lower_bounds_with_what_the_caller_knows() {
    let at_least_one = |v: &str| if v == "P" { 1.0 } else { 0.0 };
    let p = Expr::var("P");
    assert_eq!(p.sqrt().lower_bound_with(&at_least_one), 1.0);
    assert!(p.sqrt().lower_bound_with(&|_| 0.0) < 1e-6);
    assert_eq!(p.log2().lower_bound_with(&at_least_one), 0.0);
    let e = Expr::num(3e-9) * Expr::var("N") + Expr::num(2e-6) * p.sqrt();
    assert_eq!(e.lower_bound_with(&at_least_one), 2e-6);
    assert_eq!(
        (Expr::one() - Expr::one() / p.sqrt()).lower_bound_with(&at_least_one),
        f64::NEG_INFINITY
    );
}

/// An extent of a grid of P ranks is at most P: `P/dims(P, 2, 0)` is at least 1 where P is,
/// so a compute step on it is 1 (trial 12: `[P/smpi_dims(P, 2, 0) >= 1e-6]` was kept).
#[test]
fn a_count_over_one_of_its_grid_extents_is_at_least_one() {
    let at_least_one = |v: &str| if v == "P" { 1.0 } else { 0.0 };
    let p = Expr::var("P");
    for rule in [crate::DimsRule::OpenMpi, crate::DimsRule::SimGrid] {
        let d0 = Expr::dims_by(rule, &p, 2, 0).unwrap();
        let e = Expr::num(3e-9) * (&p / &d0);
        assert_eq!(e.lower_bound_with(&at_least_one), 3e-9, "{e}");
        // without the count over it, an extent's inverse is only positive
        let inv = Expr::one() / &d0;
        assert_eq!(inv.lower_bound_with(&at_least_one), 0.0, "{inv}");
    }
}
