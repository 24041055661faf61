//! `augur analyze` / `augur predict` on the recorded testdata runs (SMPI, deterministic
//! simulated times): the "must show" phase structure of seed 004 and a predict round trip.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::process::Command;

mod common;
use common::analyze;

fn phases<'a>(m: &'a serde_json::Value, kind: &str) -> Vec<&'a serde_json::Value> {
    m["phases"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["kind"] == kind)
        .collect()
}

#[test]
fn pge1_two_pipelines_of_depth_p_minus_1_not_overlapping() {
    let tmp = tempfile::tempdir().unwrap();
    let m = analyze("pge1", tmp.path());
    let pipes = phases(&m, "pipeline");
    assert_eq!(pipes.len(), 2, "{:#}", m["phases"]);
    for p in &pipes {
        assert_eq!(p["depth"], "P - 1");
        assert!(p["overlaps_with"].is_null());
    }
    assert!(phases(&m, "synchronous").is_empty());
}

#[test]
fn pge2_four_pipelines_overlapping_in_pairs_and_two_exchanges() {
    let tmp = tempfile::tempdir().unwrap();
    let m = analyze("pge2", tmp.path());
    let pipes = phases(&m, "pipeline");
    assert_eq!(pipes.len(), 4, "{:#}", m["phases"]);
    for p in &pipes {
        // hops of the chain through P/2 ranks (seed 004 counts P/2 processors)
        assert_eq!(p["depth"], "0.5*P - 1");
        assert!(!p["overlaps_with"].is_null(), "pipelines overlap in pairs");
    }
    assert_eq!(phases(&m, "synchronous").len(), 2);
}

#[test]
fn atm2d_four_synchronous_phases_and_quadratic_in_lambda() {
    let tmp = tempfile::tempdir().unwrap();
    let m = analyze("atm2d", tmp.path());
    assert_eq!(phases(&m, "synchronous").len(), 4, "{:#}", m["phases"]);
    assert!(phases(&m, "pipeline").is_empty());
    let t = symbolic::parse(m["t"].as_str().unwrap()).unwrap();
    // a + b·λ + c·λ²: no term of T has a power of LAMBDA other than 0, 1, 2
    let lambda = symbolic::Expr::var("LAMBDA");
    let d3 = t
        .diff_smooth("LAMBDA")
        .diff_smooth("LAMBDA")
        .diff_smooth("LAMBDA");
    assert!(d3.is_zero(), "third derivative in LAMBDA is {d3}");
    assert!(
        !t.diff_smooth("LAMBDA").diff_smooth("LAMBDA").is_zero(),
        "T has a LAMBDA^2 term: {t}"
    );
    let _ = lambda;
}

#[test]
fn predict_evaluates_the_saved_model_with_a_band() {
    let tmp = tempfile::tempdir().unwrap();
    analyze("shift", tmp.path());
    let out = Command::new(env!("CARGO_BIN_EXE_augur"))
        .args([
            "predict",
            tmp.path().join("shift/model.json").to_str().unwrap(),
            "--at",
            "N=8192,ITERS=20,P=64",
            "--json",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let (lo, t, hi) = (
        v[0]["min"].as_f64().unwrap(),
        v[0]["t"].as_f64().unwrap(),
        v[0]["max"].as_f64().unwrap(),
    );
    assert!(lo <= t && t <= hi && t > 0.0, "{v}");
    // a missing parameter is an input error naming it
    let out = Command::new(env!("CARGO_BIN_EXE_augur"))
        .args([
            "predict",
            tmp.path().join("shift/model.json").to_str().unwrap(),
            "--at",
            "N=8192,P=64",
        ])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("ITERS"));
}

fn augur(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_augur"))
        .args(args)
        .output()
        .unwrap()
}

/// Regression (trial-c #15): `cannot read x.c: No such file or directory (os error 2): No such
/// file or directory (os error 2)`.
#[test]
fn an_error_cause_is_printed_once() {
    let o = augur(&["analyze", "/nonexistent/x.c", "--runs", "/nonexistent"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(err.matches("No such file or directory").count(), 1, "{err}");
}
