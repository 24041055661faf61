//! `augur analyze --json` snapshots, one per testdata program, on its recorded SMPI runs (C
//! source): the model's structure (phases, kinds, ancestors, depths, sizes, work, where every
//! fitted quantity came from) and its numbers in the short printer's ~4 significant digits, so
//! a change to the front end, cpg or model that moves the analysis shows up in review.
//! Regenerate after re-recording runs: `INSTA_UPDATE=always cargo test -p augur --test
//! analyze_snapshots`, then read every changed .snap before committing.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use serde_json::{json, Value};

/// An expression text re-printed short; anything else unchanged.
fn short(v: &Value) -> Value {
    match v.as_str().map(symbolic::parse) {
        Some(Ok(e)) => Value::String(e.to_string()),
        _ => v.clone(),
    }
}

/// 4 significant digits.
fn sig4(v: &Value) -> Value {
    match v.as_f64() {
        Some(x) if x != 0.0 && x.is_finite() => Value::String(format!("{x:.3e}")),
        _ => v.clone(),
    }
}

fn pick(v: &Value, keys: &[&str], exprs: &[&str]) -> Value {
    let mut o = serde_json::Map::new();
    for k in keys {
        let x = &v[*k];
        o.insert(
            (*k).to_string(),
            if exprs.contains(k) {
                short(x)
            } else {
                x.clone()
            },
        );
    }
    Value::Object(o)
}

fn digest(m: &Value) -> Value {
    let list = |k: &str, keys: &[&str], exprs: &[&str]| -> Value {
        m[k].as_array()
            .map(|a| a.iter().map(|v| pick(v, keys, exprs)).collect())
            .unwrap_or_default()
    };
    json!({
        "params": m["params"],
        "t": short(&m["t"]),
        "phases": list(
            "phases",
            &["id", "kind", "sites", "ancestor_line", "lines", "processors", "depth", "bytes", "msgs",
              "cost", "fill", "overlaps_with", "overlapped", "runs_seen"],
            &["processors", "depth", "bytes", "cost", "fill"],
        ),
        "compute": list("compute", &["site", "line", "work", "origin", "cost", "inside_phase", "stretch_with"], &["cost"]),
        // the stretches charged the host's detours: M, the detours expected among their ranks
        "detours": m["compute"].as_array().map(|a| a.iter().filter(|c| !c["detours"].is_null()).map(|c| json!({
            "site": c["site"],
            "expected": short(&c["detours"]["expected"]),
            "per_stretch": short(&c["detours"]["per_stretch"]),
        })).collect::<Vec<_>>()),
        "quantities": list("quantities", &["what", "site", "line", "source", "origin", "expr"], &["expr"]),
        "validation": m["validation"].as_array().map(|a| a.iter().map(|r| json!({
            "config": r["config"],
            "measured": sig4(&r["measured"]),
            "predicted": sig4(&r["predicted"]),
        })).collect::<Vec<_>>()),
        "scaling": {
            "trained_up_to": m["scaling"]["trained_up_to"],
            "held_at": m["scaling"]["held_at"],
            "runs": m["scaling"]["runs"].as_array().map(|a| a.iter().map(|r| json!({
                "config": r["config"],
                "measured": sig4(&r["measured"]),
                "predicted": sig4(&r["predicted"]),
            })).collect::<Vec<_>>()),
        },
        "warnings": m["warnings"],
    })
}

fn snapshot(program: &str) {
    let tmp = tempfile::tempdir().unwrap();
    let m = common::analyze(program, tmp.path());
    insta::assert_json_snapshot!(format!("analyze_{program}"), digest(&m));
}

#[test]
fn shift() {
    snapshot("shift");
}

#[test]
fn pipeline() {
    snapshot("pipeline");
}

#[test]
fn pge1() {
    snapshot("pge1");
}

#[test]
fn pge2() {
    snapshot("pge2");
}

#[test]
fn atm2d() {
    snapshot("atm2d");
}

#[test]
fn sweep() {
    snapshot("sweep");
}

#[test]
fn stencil() {
    snapshot("stencil");
}
