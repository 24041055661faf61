//! Accuracy of `augur analyze` models on the recorded testdata runs: leave-one-out on the native
//! Open MPI runs, and extrapolation in P on the SMPI runs (model from runs at P ≤ PMAX, predicting
//! every recorded run above PMAX). Prints the table (program, set, configuration, measured,
//! predicted, error) and a summary per set; `--csv FILE` also writes the raw rows.
//!
//! `cargo run --release -p augur --example accuracy [-- --pmax 8] [--csv out.csv]`
#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::path::{Path, PathBuf};

use model::machine::Machine;
use model::observe::RunObs;
use model::{analyze, AnalyzeOptions};

struct Row {
    program: String,
    set: String,
    config: String,
    measured: f64,
    predicted: f64,
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let argv: Vec<String> = std::env::args().collect();
    let opt = |name: &str| {
        argv.iter()
            .position(|a| a == name)
            .and_then(|i| argv.get(i + 1))
            .cloned()
    };
    let pmax: f64 = opt("--pmax").map_or(Ok(8.0), |v| v.parse())?;
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../testdata");
    let programs: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(root.join("programs.json"))?)?;
    let mut rows = Vec::new();
    for p in programs["programs"].as_array().cloned().unwrap_or_default() {
        let name = p["name"].as_str().unwrap_or("?").to_string();
        let Some(c) = p["c"].as_str() else { continue };
        let src = root.join(c);
        let arg_names: Vec<String> = p["params"]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|v| v.as_str().map(String::from))
                    .collect()
            })
            .unwrap_or_default();
        let include_dirs = src
            .parent()
            .map(|d| vec![d.to_path_buf()])
            .unwrap_or_default();
        let fopts = frontend::Options {
            include_dirs,
            ..Default::default()
        };
        let (lowered, tree) = apt::load(&src, &fopts, &apt::AptOptions { arg_names })?;
        let Some(main) = lowered.program.main_proc().map(|p| p.name.clone()) else {
            continue;
        };
        for (set, machine) in [("mpi-c", "this-openmpi-shm"), ("smpi-c", "smpi-reference")] {
            let dir = root.join(&name).join("runs").join(set);
            let Ok((_, runs, _)) = model::observe::load_runs(&dir) else {
                eprintln!("{name}/{set}: no runs");
                continue;
            };
            let m = Machine::builtin(machine).ok_or("no builtin machine")??;
            if set == "mpi-c" {
                let mf = analyze(&tree, &main, &name, &runs, &m, &AnalyzeOptions::default());
                for v in mf.validation {
                    rows.push(Row {
                        program: name.clone(),
                        set: format!("{set} LOO"),
                        config: v.config,
                        measured: v.measured,
                        predicted: v.predicted,
                    });
                }
            } else {
                let (train, test): (Vec<RunObs>, Vec<RunObs>) = runs
                    .into_iter()
                    .partition(|r| r.params.get("P").is_some_and(|p| *p <= pmax));
                let mf = analyze(
                    &tree,
                    &main,
                    &name,
                    &train,
                    &m,
                    &AnalyzeOptions {
                        no_validation: true,
                        ..Default::default()
                    },
                );
                for r in test {
                    let predicted = mf.predict(&r.params).map(|(_, t, _)| t).unwrap_or(f64::NAN);
                    rows.push(Row {
                        program: name.clone(),
                        set: format!("{set} P<={pmax}→P"),
                        config: r.config.clone(),
                        measured: r.time,
                        predicted,
                    });
                }
            }
        }
    }
    println!(
        "{:<9} {:<16} {:<26} {:>11} {:>11} {:>8}",
        "program", "set", "configuration", "measured s", "predicted s", "error"
    );
    for r in &rows {
        let e = (r.predicted - r.measured) / r.measured;
        println!(
            "{:<9} {:<16} {:<26} {:>11.4e} {:>11.4e} {:>7.1}%",
            r.program,
            r.set,
            r.config,
            r.measured,
            r.predicted,
            100.0 * e
        );
    }
    let mut sets: Vec<(String, String)> = rows
        .iter()
        .map(|r| (r.program.clone(), r.set.clone()))
        .collect();
    sets.dedup();
    println!(
        "\n{:<9} {:<16} {:>5} {:>10} {:>10} {:>10}",
        "program", "set", "runs", "mean |err|", "max |err|", "within 15%"
    );
    for (p, s) in &sets {
        let e: Vec<f64> = rows
            .iter()
            .filter(|r| &r.program == p && &r.set == s)
            .map(|r| ((r.predicted - r.measured) / r.measured).abs())
            .collect();
        let ok = e.iter().filter(|v| **v <= 0.15).count();
        let mean = e.iter().sum::<f64>() / e.len().max(1) as f64;
        let max = e.iter().fold(0.0f64, |m, v| m.max(*v));
        println!(
            "{:<9} {:<16} {:>5} {:>9.1}% {:>9.1}% {:>6}/{}",
            p,
            s,
            e.len(),
            100.0 * mean,
            100.0 * max,
            ok,
            e.len()
        );
    }
    if let Some(path) = opt("--csv") {
        let mut text = String::from("program,set,config,measured,predicted\n");
        for r in &rows {
            text.push_str(&format!(
                "{},{},\"{}\",{},{}\n",
                r.program, r.set, r.config, r.measured, r.predicted
            ));
        }
        std::fs::write(Path::new(&path), text)?;
    }
    Ok(())
}
