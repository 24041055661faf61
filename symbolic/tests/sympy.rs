//! `to_python()` must be valid sympy: when python3 with sympy is installed, sympy evaluates each
//! printed expression at a point and must agree with our evaluation (skipped, with a note, when
//! sympy is absent).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stderr)]

use std::process::Command;
use symbolic::parse;

#[test]
fn python_output_evaluates_identically_in_sympy() {
    let has_sympy = Command::new("python3")
        .args(["-c", "import sympy"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_sympy {
        eprintln!("note: python3/sympy not installed; sympy check skipped");
        return;
    }
    let cases = [
        "N^2/(P*K) + K*log2(P) + 3*sqrt(N/P)",
        "N*sqrt(N/P) - 2e-6*N^(2/3)*log2(N)^2",
        "max(N/P, K, 3) + min(N, P^2) + ceil(N/P) + floor(K/3)",
        "1/(N + 1)^2 + (N + P)^(1/3) + ln(N) + log10(P)",
        "1/(max(N, P)*(N + 1)) - 0.5/sqrt(P + 1)",
        "N/dims(P, 2, 0) + dims(P, 2, 1) - 2 + K*dims(P, 3, 0)*dims(P, 3, 2)",
        "dims(P + 60, 3, 1) + N/dims(2*P, 2, 0)",
        // at P = 12 the two libraries split 36 and 144 differently (9 x 4 and 6 x 6, …)
        "smpi_dims(P + 24, 2, 0) + N/smpi_dims(3*P, 2, 1) + smpi_dims(12*P, 3, 0) + dims(P + 24, 2, 0)",
        // printed as Mod(K, dims(P, 2, 1)) and 2*Mod(N + 1, P)
        "K - dims(P, 2, 1)*floor(K/dims(P, 2, 1)) + 2*(N + 1) - 2*P*floor((N + 1)/P)",
    ];
    let (n, p, k) = (1000.0, 12.0, 37.0);
    let mut script =
        String::from("from sympy import *\nN, P, K = symbols('N P K', positive=True)\n");
    let mut want = Vec::new();
    let helpers = parse(cases[5]).unwrap().python_helpers();
    assert!(!helpers.is_empty());
    script.push_str(helpers);
    for c in cases {
        let e = parse(c).unwrap();
        script.push_str(&format!(
            "print(float(({}).subs({{N: {n}, P: {p}, K: {k}}}).evalf(30)))\n",
            e.to_python()
        ));
        want.push(
            e.eval(&|v| match v {
                "N" => Some(n),
                "P" => Some(p),
                "K" => Some(k),
                _ => None,
            })
            .unwrap(),
        );
    }
    let out = Command::new("python3")
        .args(["-c", &script])
        .output()
        .expect("python3");
    assert!(
        out.status.success(),
        "sympy rejected the output:\n{}\n{}",
        script,
        String::from_utf8_lossy(&out.stderr)
    );
    let got: Vec<f64> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| l.trim().parse().unwrap())
        .collect();
    assert_eq!(got.len(), want.len());
    for ((g, w), c) in got.iter().zip(&want).zip(cases) {
        assert!((g - w).abs() <= 1e-9 * w.abs(), "{c}: sympy {g} vs {w}");
    }
}
