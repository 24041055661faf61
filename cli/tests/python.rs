//! The `--python` output of `augur expr` and `augur analyze` runs in `python3` (with sympy) as
//! printed: `from sympy import *`, the symbols, and the definition of `dims` (MPI_Dims_create's
//! extents) once when an expression uses it; its values agree with augur's own evaluation.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stderr)]

use std::io::Write;
use std::process::{Command, Stdio};

mod common;
use common::{copy_dir, need, root, run};

fn augur(args: &[&str]) -> String {
    let o = run(args);
    assert!(o.status.success(), "augur {args:?} failed");
    String::from_utf8(o.stdout).unwrap()
}

/// Runs `script` in python3 and returns what it printed, trimmed.
fn python(script: &str) -> String {
    let mut child = Command::new("python3")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("python3 (with sympy) is needed by this test");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(script.as_bytes())
        .unwrap();
    let o = child.wait_with_output().unwrap();
    assert!(
        o.status.success(),
        "python3 failed on:\n{script}\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout).unwrap().trim().to_string()
}

/// The printed lines with the last one (the expression) evaluated at `at` (a sympy dict).
fn evaluate_last(printed: &str, at: &str) -> f64 {
    let lines: Vec<&str> = printed.lines().collect();
    let (last, head) = lines.split_last().unwrap();
    let script = format!("{}\nprint(float(({last}).subs({at})))\n", head.join("\n"));
    python(&script).parse().unwrap()
}

#[test]
fn an_expression_with_dims_runs_in_python_as_printed() {
    need("python3");
    // dims(12, 2) = (4, 3), dims(7, 2) = (7, 1), dims(8, 3) = (2, 2, 2)
    let e = "N*dims(P, 2, 0) + dims(P, 2, 1) + dims(P*Q, 3, 2)";
    let out = augur(&["expr", "simplify", e, "--python"]);
    assert_eq!(out.matches("class dims(Function)").count(), 1, "{out}");
    assert!(out.starts_with("from sympy import *\n"), "{out}");
    assert_eq!(
        evaluate_last(&out, "{N: 3, P: 12, Q: 1}"),
        3.0 * 4.0 + 3.0 + 2.0
    );
    assert_eq!(
        evaluate_last(&out, "{N: 3, P: 7, Q: 1}"),
        3.0 * 7.0 + 1.0 + 1.0
    );
    // as augur evaluates it
    let v = augur(&["expr", "eval", e, "--at", "N=3,P=12,Q=1"]);
    assert_eq!(v.trim().parse::<f64>().unwrap(), 17.0);
    // where P is a symbol, dims stays symbolic
    let out = augur(&["expr", "simplify", "dims(P, 2, 0)", "--python"]);
    let last = out.lines().last().unwrap();
    assert_eq!(python(&format!("{out}print({last})\n")), "dims(P, 2, 0)");
}

/// A remainder prints as sympy's `Mod` (floored, as augur evaluates `a - b*floor(a/b)`) and
/// runs as printed.
#[test]
fn a_remainder_runs_in_python_as_printed() {
    need("python3");
    let e = "N - dims(P, 2, 1)*floor(N/dims(P, 2, 1)) + 3*K - 3*P*floor(K/P)";
    let out = augur(&["expr", "simplify", e, "--python"]);
    assert!(out.lines().last().unwrap().contains("Mod("), "{out}");
    for (at, sympy) in [
        ("N=17,P=12,K=5", "{N: 17, P: 12, K: 5}"),
        ("N=9,P=7,K=20", "{N: 9, P: 7, K: 20}"),
    ] {
        let want: f64 = augur(&["expr", "eval", e, "--at", at])
            .trim()
            .parse()
            .unwrap();
        assert_eq!(evaluate_last(&out, sympy), want, "{at}: {out}");
    }
}

#[test]
fn without_dims_the_python_form_stays_one_line() {
    let out = augur(&["expr", "simplify", "N^2/P + log2(P)", "--python"]);
    assert_eq!(out, "N**2/P + log(P, 2)\n");
}

#[test]
fn a_piecewise_derivative_with_dims_runs_in_python() {
    need("python3");
    let out = augur(&[
        "expr",
        "diff",
        "K*max(N/dims(P, 2, 0), K)",
        "--wrt",
        "K",
        "--python",
    ]);
    assert_eq!(out.matches("class dims(Function)").count(), 1, "{out}");
    // at P = 8 the grid is 4 x 2: N/4 = 256 >= K = 10, so d/dK = N/dims(P, 2, 0) = 256
    assert_eq!(evaluate_last(&out, "{K: 10, N: 1024, P: 8}"), 256.0);
    // K = 300 > 256: 2K
    assert_eq!(evaluate_last(&out, "{K: 300, N: 1024, P: 8}"), 600.0);
}

/// `analyze --python` is a script: T computed in Python is what `predict` gives.
#[test]
fn analyze_python_is_a_script_that_agrees_with_predict() {
    need("python3");
    let tmp = tempfile::tempdir().unwrap();
    let runs = tmp.path().join("pge1");
    copy_dir(&root().join("testdata/pge1/runs/smpi-c"), &runs);
    let src = root().join("testdata/pge1/pge1.c");
    let script = augur(&[
        "analyze",
        src.to_str().unwrap(),
        "--runs",
        runs.to_str().unwrap(),
        "--python",
    ]);
    assert!(script.starts_with("from sympy import *\n"), "{script}");
    let got: f64 = python(&format!(
        "{script}print(float(T.subs({{K: 16, N: 512, P: 64}})))\n"
    ))
    .parse()
    .unwrap();
    let p: serde_json::Value = serde_json::from_str(&augur(&[
        "predict",
        runs.join("model.json").to_str().unwrap(),
        "--at",
        "N=512,K=16,P=64",
        "--json",
    ]))
    .unwrap();
    let want = p[0]["t"].as_f64().unwrap();
    assert!(
        (got - want).abs() <= 1e-9 * want,
        "python {got} vs predict {want}"
    );
}
