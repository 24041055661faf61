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
