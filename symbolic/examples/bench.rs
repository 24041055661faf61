//! Benchmark command: ns per compiled evaluation of a 6-term T(N,P,K) and µs per closed-form
//! solve, beside the targets (≤ 50 ns, ≤ 10 µs). Prints measured numbers; asserts nothing timed.
#![allow(clippy::print_stdout, clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;
use std::hint::black_box;
use std::time::Instant;
use symbolic::{minimize, parse, Compiled, SolveOptions};

fn main() {
    let t = parse("N^2/(P*K) + K*log2(P) + 3*sqrt(N/P) + 5*max(N/P, K) + 2e-6*N*K + 10").expect("parse");
    assert_eq!(t.terms().len(), 6);
    let c = Compiled::new(&t, &["N", "P", "K"]).expect("compile");
    let n_eval = 2_000_000usize;
    let pts: Vec<[f64; 3]> = (0..1024).map(|i| [1024.0 + i as f64, 16.0 + (i % 7) as f64, 1.0 + i as f64]).collect();

    // Compiled evaluation.
    let start = Instant::now();
    let mut acc = 0.0;
    for i in 0..n_eval {
        acc += c.eval(black_box(&pts[i & 1023]));
    }
    let ns_compiled = start.elapsed().as_nanos() as f64 / n_eval as f64;
    black_box(acc);

    // Baseline: tree-walking evaluation with a map lookup.
    let n_tree = 200_000usize;
    let start = Instant::now();
    let mut acc2 = 0.0;
    for i in 0..n_tree {
        let p = pts[i & 1023];
        acc2 += t.eval(&|v| match v { "N" => Some(p[0]), "P" => Some(p[1]), "K" => Some(p[2]), _ => None }).unwrap();
    }
    let ns_tree = start.elapsed().as_nanos() as f64 / n_tree as f64;
    black_box(acc2);
    let p = pts[5];
    let check = (c.eval(&p) - t.eval(&|v| match v { "N" => Some(p[0]), "P" => Some(p[1]), "K" => Some(p[2]), _ => None }).unwrap()).abs() < 1e-9;

    // Closed-form solve (symbolic differentiation, grouping, K* expression, T(K*)).
    let tk = parse("N^2/(P*K) + K*log2(P)").expect("parse");
    let at: BTreeMap<String, f64> = [("N".to_string(), 1024.0), ("P".to_string(), 16.0)].into();
    let n_solve = 20_000usize;
    let start = Instant::now();
    let mut ks = 0.0;
    for _ in 0..n_solve {
        ks += minimize(black_box(&tk), "K", &at, &SolveOptions::default()).expect("solve").k_star;
    }
    let us_solve = start.elapsed().as_secs_f64() * 1e6 / n_solve as f64;
    let solve_ok = (ks / n_solve as f64 - 128.0).abs() < 1e-9;

    // Re-evaluating a closed form K*(N,P) once derived (what a parameter sweep does).
    let sol = minimize(&tk, "K", &at, &SolveOptions::default()).expect("solve");
    let kc = Compiled::new(sol.closed_form.as_ref().expect("closed form"), &["N", "P"]).expect("compile");
    let start = Instant::now();
    let mut acc3 = 0.0;
    for i in 0..n_eval {
        acc3 += kc.eval(black_box(&[pts[i & 1023][0], pts[i & 1023][1]]));
    }
    let ns_kstar = start.elapsed().as_nanos() as f64 / n_eval as f64;
    black_box(acc3);

    println!("{:<44} {:>12} {:>12} {:>8} {:>8}", "case", "baseline", "augur", "target", "check");
    println!("{:<44} {:>9.1} ns {:>9.1} ns {:>8} {:>8}", "eval 6-term T(N,P,K) (tree vs compiled)", ns_tree, ns_compiled, "<=50ns", if check { "ok" } else { "MISMATCH" });
    println!("{:<44} {:>12} {:>9.2} us {:>8} {:>8}", "closed-form solve dT/dK=0 (K*=128)", "-", us_solve, "<=10us", if solve_ok { "ok" } else { "MISMATCH" });
    println!("{:<44} {:>12} {:>9.1} ns {:>8} {:>8}", "eval compiled K*(N,P)", "-", ns_kstar, "-", "ok");
    println!("speedup compiled/tree: {:.1}x  ({} register ops)", ns_tree / ns_compiled, c.len());
}
