//! Accuracy of `augur analyze` models on the recorded testdata runs, three tables: leave-one-out
//! on the native Open MPI runs; extrapolation in P inside the recorded SMPI runs (model from runs
//! at P ≤ PMAX, predicting every recorded run above PMAX); and the issue-5 check, a model from the
//! smpi-c runs at P ≤ 16 predicting each full SMPI run at P = 64 and 256 recorded by
//! `scripts/record-large.sh` (testdata/<prog>/runs/smpi-large/results.json). Each table has rows
//! (program, set, configuration, measured, predicted, error) and a summary per program and set;
//! `--csv FILE` also writes the raw rows.
//!
//! `cargo run --release -p augur --example accuracy [-- --pmax 8] [--csv out.csv]`
#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use model::machine::Machine;
use model::observe::RunObs;
use model::{analyze, AnalyzeOptions, ModelFile};

/// The issue-5 training cut: models for the large runs see only runs at P ≤ this.
const LARGE_TRAIN_PMAX: f64 = 16.0;

struct Row {
    program: String,
    set: String,
    config: String,
    measured: f64,
    predicted: f64,
    /// For large runs: whether the training runs hold the same problem sizes (else the model
    /// also extrapolates in them). Always true for the other tables.
    sizes_traced: bool,
    /// T's band at the run (`ModelFile::predict`: beyond the traced P widened by the scaling
    /// check's error), where the table shows it.
    band: Option<(f64, f64)>,
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
    let mut large = Vec::new();
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
        let (lowered, tree) = apt::load(
            &src,
            &fopts,
            &apt::AptOptions {
                arg_names,
                ..Default::default()
            },
        )?;
        let Some(main) = lowered.program.main_proc().map(|p| p.name.clone()) else {
            continue;
        };
        // Models from a subset of runs, built as `augur analyze` builds them (validation off:
        // it only fills the LOO table, not T).
        let fit = |runs: &[RunObs], m: &Machine| -> ModelFile {
            let opts = AnalyzeOptions {
                no_validation: true,
                ..Default::default()
            };
            analyze(&tree, &main, &name, runs, m, &opts)
        };
        for (set, machine) in [("mpi-c", "this-openmpi-shm"), ("smpi-c", "smpi-reference")] {
            let dir = root.join(&name).join("runs").join(set);
            let Ok((manifest, runs, _)) = model::observe::load_runs(&dir) else {
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
                        sizes_traced: true,
                        band: None,
                    });
                }
                continue;
            }
            let (train, test): (Vec<&RunObs>, Vec<&RunObs>) = runs
                .iter()
                .partition(|r| r.params.get("P").is_some_and(|p| *p <= pmax));
            let mf = fit(&train.into_iter().cloned().collect::<Vec<_>>(), &m);
            for r in test {
                rows.push(Row {
                    program: name.clone(),
                    set: format!("{set} P<={pmax}→P"),
                    config: r.config.clone(),
                    measured: r.time,
                    predicted: predict(&mf, &r.params),
                    sizes_traced: true,
                    band: None,
                });
            }
            let results = root.join(&name).join("runs/smpi-large/results.json");
            let Some(recorded) = load_large(&results) else {
                eprintln!("{name}: no smpi-large runs ({})", results.display());
                continue;
            };
            if recorded.sha256 != manifest.source_hash.trim_start_matches("sha256:") {
                eprintln!(
                    "{name}: smpi-large runs and {set} runs come from different versions of {c}"
                );
            }
            let train: Vec<RunObs> = runs
                .iter()
                .filter(|r| r.params.get("P").is_some_and(|p| *p <= LARGE_TRAIN_PMAX))
                .cloned()
                .collect();
            let mf = fit(&train, &m);
            for (config, params, measured) in recorded.runs {
                let sizes_traced = train.iter().any(|r| same_sizes(&r.params, &params));
                large.push(Row {
                    program: name.clone(),
                    set: format!("{set} P<=16→large"),
                    config,
                    measured,
                    predicted: predict(&mf, &params),
                    sizes_traced,
                    band: mf.predict(&params).ok().map(|(lo, _, hi)| (lo, hi)),
                });
            }
        }
    }
    println!(
        "Recorded runs: native leave-one-out, SMPI extrapolation in P within the recorded runs"
    );
    print_table(&rows, false);
    println!(
        "\nModel from smpi-c runs at P <= 16 -> full SMPI runs at P = 64, 256 \
         (testdata/<prog>/runs/smpi-large, scripts/record-large.sh)"
    );
    print_table(&large, true);
    if let Some(path) = opt("--csv") {
        let mut text = String::from("program,set,config,measured,predicted,sizes_traced\n");
        for r in rows.iter().chain(&large) {
            text.push_str(&format!(
                "{},{},\"{}\",{},{},{}\n",
                r.program, r.set, r.config, r.measured, r.predicted, r.sizes_traced
            ));
        }
        std::fs::write(Path::new(&path), text)?;
    }
    Ok(())
}

fn predict(mf: &ModelFile, at: &BTreeMap<String, f64>) -> f64 {
    mf.predict(at).map(|(_, t, _)| t).unwrap_or(f64::NAN)
}

/// Same values for every parameter but P.
fn same_sizes(a: &BTreeMap<String, f64>, b: &BTreeMap<String, f64>) -> bool {
    let strip = |m: &BTreeMap<String, f64>| -> Vec<(String, f64)> {
        m.iter()
            .filter(|(k, _)| k.as_str() != "P")
            .map(|(k, v)| (k.clone(), *v))
            .collect()
    };
    strip(a) == strip(b)
}

struct Large {
    sha256: String,
    /// (config, params with P, measured simulated seconds)
    runs: Vec<(String, BTreeMap<String, f64>, f64)>,
}

/// Reads results.json of record-large.sh; `None` when absent or unreadable.
fn load_large(path: &Path) -> Option<Large> {
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(path).ok()?).ok()?;
    let mut runs = Vec::new();
    for r in v["runs"].as_array()? {
        let mut params: BTreeMap<String, f64> = r["params"]
            .as_object()?
            .iter()
            .filter_map(|(k, v)| Some((k.clone(), v.as_f64()?)))
            .collect();
        params.insert("P".into(), r["np"].as_f64()?);
        let config = r["config"].as_str()?.to_string();
        runs.push((config, params, r["simulated_seconds"].as_f64()?));
    }
    Some(Large {
        sha256: v["source_sha256"].as_str()?.to_string(),
        runs,
    })
}

fn print_table(rows: &[Row], traced_column: bool) {
    let traced = |r: &Row| match (traced_column, r.sizes_traced) {
        (false, _) => String::new(),
        (true, t) => format!(
            "  {:<12} {}",
            if t { "yes" } else { "no" },
            match r.band {
                Some((lo, hi)) if (lo..=hi).contains(&r.measured) => "yes",
                Some(_) => "no",
                None => "-",
            }
        ),
    };
    println!(
        "{:<9} {:<19} {:<26} {:>11} {:>11} {:>8}{}",
        "program",
        "set",
        "configuration",
        "measured s",
        "predicted s",
        "error",
        if traced_column {
            "  sizes traced in band"
        } else {
            ""
        }
    );
    for r in rows {
        let e = (r.predicted - r.measured) / r.measured;
        println!(
            "{:<9} {:<19} {:<26} {:>11.4e} {:>11.4e} {:>7.1}%{}",
            r.program,
            r.set,
            r.config,
            r.measured,
            r.predicted,
            100.0 * e,
            traced(r)
        );
    }
    let mut sets: Vec<(String, String)> = rows
        .iter()
        .map(|r| (r.program.clone(), r.set.clone()))
        .collect();
    sets.dedup();
    println!(
        "\n{:<9} {:<19} {:>5} {:>10} {:>10} {:>10}{}",
        "program",
        "set",
        "runs",
        "mean |err|",
        "max |err|",
        "within 15%",
        if traced_column { "  in band" } else { "" }
    );
    for (p, s) in &sets {
        // NaN (no prediction) counts as a miss and as an unbounded error
        let e: Vec<f64> = rows
            .iter()
            .filter(|r| &r.program == p && &r.set == s)
            .map(|r| {
                let e = ((r.predicted - r.measured) / r.measured).abs();
                if e.is_finite() {
                    e
                } else {
                    f64::INFINITY
                }
            })
            .collect();
        let ok = e.iter().filter(|v| **v <= 0.15).count();
        let in_band = rows
            .iter()
            .filter(|r| &r.program == p && &r.set == s)
            .filter(|r| {
                r.band
                    .is_some_and(|(lo, hi)| (lo..=hi).contains(&r.measured))
            })
            .count();
        let mean = e.iter().sum::<f64>() / e.len().max(1) as f64;
        let max = e.iter().fold(0.0f64, |m, v| m.max(*v));
        println!(
            "{:<9} {:<19} {:>5} {:>9.1}% {:>9.1}% {:>6}/{}{}",
            p,
            s,
            e.len(),
            100.0 * mean,
            100.0 * max,
            ok,
            e.len(),
            if traced_column {
                format!("  {:>6}/{}", in_band, e.len())
            } else {
                String::new()
            }
        );
    }
}
