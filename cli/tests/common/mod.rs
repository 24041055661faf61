//! Shared by the cli tests: checking the MPI tools are installed, running `augur` with its output
//! echoed, reading a manifest, and `augur analyze --json` on a scratch copy of a testdata program's
//! recorded SMPI runs (the copy keeps the tests from writing model.json into the tree).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::print_stderr,
    dead_code
)]

use std::path::{Path, PathBuf};
use std::process::Command;

pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let dst = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &dst);
        } else if e.file_name() != "model.json" {
            std::fs::copy(e.path(), dst).unwrap();
        }
    }
}

/// Runs `augur analyze --json` on a copy (under `tmp`) of the program's SMPI C runs; returns
/// the model. The copy's directory is `tmp/<program>`, where model.json is written.
pub fn analyze(program: &str, tmp: &Path) -> serde_json::Value {
    analyze_with(program, tmp, &[])
}

/// [`analyze`] with more options for `augur analyze`.
pub fn analyze_with(program: &str, tmp: &Path, extra: &[&str]) -> serde_json::Value {
    let runs = tmp.join(program);
    copy_dir(
        &root().join("testdata").join(program).join("runs/smpi-c"),
        &runs,
    );
    let src = root()
        .join("testdata")
        .join(program)
        .join(format!("{program}.c"));
    let mut argv = vec![
        "analyze",
        src.to_str().unwrap(),
        "--runs",
        runs.to_str().unwrap(),
        "--json",
    ];
    argv.extend(extra);
    let out = run(&argv);
    assert!(out.status.success());
    assert!(runs.join("model.json").exists());
    serde_json::from_slice(&out.stdout).unwrap()
}

/// A model's warnings (`analyze --json`), as text.
pub fn warnings(m: &serde_json::Value) -> Vec<&str> {
    m["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|w| w.as_str())
        .collect()
}

/// Fails the test (never skips it) when an MPI tool the suite needs is not installed.
pub fn need(tool: &str) {
    let ok = Command::new("sh")
        .arg("-c")
        .arg(format!("command -v {tool}"))
        .output()
        .map(|o| o.status.success());
    assert!(
        ok.unwrap_or(false),
        "`{tool}` not found: install openmpi-bin libopenmpi-dev gfortran libsimgrid-dev"
    );
}

/// Runs `augur ARGS`, echoing its output to the test's stderr (shown when the test fails).
pub fn run(args: &[&str]) -> std::process::Output {
    let out = Command::new(env!("CARGO_BIN_EXE_augur"))
        .args(args)
        .output()
        .expect("run augur");
    eprintln!(
        "augur {}\n--- stdout\n{}--- stderr\n{}",
        args.join(" "),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// The manifest `augur profile` wrote into `dir`.
pub fn manifest(dir: &Path) -> trace::Manifest {
    trace::RunDir::at(dir)
        .load_manifest()
        .unwrap()
        .expect("manifest.json written")
}

/// Held while a test times a program on this host, under SMPI or natively: SMPI charges
/// computation at the host's real speed and native ranks take the cores, so two profiles
/// running at once on these 2 cores slow each other's bursts and the tests that compare the
/// model with the runs see noise (the test harness runs a binary's tests in parallel; in CI a
/// native profile beside an SMPI one made a switch's runs 45% slow in all 3 repetitions).
pub fn host_lock() -> std::sync::MutexGuard<'static, ()> {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    LOCK.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Writes `source` as `tmp/<file>`, profiles it under SMPI on the testdata platform
/// (`augur profile FILE --np NP --param P… --repeat 3 -- ARGS…` into `tmp/<stem>.augur`, the
/// fastest of 3 kept, one profile on the host at a time: `host_lock`), analyses the runs and returns
/// the model (`analyze --json`). Fails the test when a step fails.
pub fn smpi_model(
    tmp: &Path,
    file: &str,
    source: &str,
    np: &str,
    params: &[&str],
    args: &[&str],
) -> serde_json::Value {
    need("smpicc");
    need("smpirun");
    let platform = root().join("testdata/platform/cluster.xml");
    let platform = platform.to_str().unwrap();
    // fastest of 3: this shared host now and then runs a whole simulation 40% slower
    let launch = [
        "--launcher",
        "smpirun",
        "--platform",
        platform,
        "--repeat",
        "3",
    ];
    let _one_at_a_time = host_lock();
    profiled_model(tmp, file, source, &launch, np, params, args)
}

/// As [`smpi_model`] under `mpirun` on this machine (the caller checks its compiler with
/// [`need`]).
pub fn native_model(
    tmp: &Path,
    file: &str,
    source: &str,
    np: &str,
    params: &[&str],
    args: &[&str],
) -> serde_json::Value {
    need("mpirun");
    let _one_at_a_time = host_lock();
    profiled_model(tmp, file, source, &[], np, params, args)
}

fn profiled_model(
    tmp: &Path,
    file: &str,
    source: &str,
    launch: &[&str],
    np: &str,
    params: &[&str],
    args: &[&str],
) -> serde_json::Value {
    let src = tmp.join(file);
    std::fs::write(&src, source).unwrap();
    let stem = Path::new(file).file_stem().unwrap().to_str().unwrap();
    let runs = tmp.join(format!("{stem}.augur"));
    let (src, runs) = (
        src.to_str().unwrap().to_string(),
        runs.to_str().unwrap().to_string(),
    );
    let mut cmd = vec!["profile", &src, "--out", &runs, "--np", np];
    cmd.extend(launch);
    for p in params {
        cmd.extend(["--param", p]);
    }
    cmd.push("--");
    cmd.extend(args);
    assert_eq!(run(&cmd).status.code(), Some(0), "profile {file}");
    let o = run(&["analyze", &src, "--runs", &runs, "--json"]);
    assert_eq!(o.status.code(), Some(0), "analyze {file}");
    serde_json::from_slice(&o.stdout).unwrap()
}

/// Whether the model says its runs' times are partly the host's: their repetitions disagreed
/// by more than 25% ("the host's speed changed while the runs ran"), or other work took cores
/// the native ranks needed ("the host was busy"). Then a misfit of a run is not the model's.
pub fn host_disturbed(m: &serde_json::Value) -> bool {
    m["warnings"].as_array().is_some_and(|w| {
        w.iter().any(|w| {
            w.as_str().is_some_and(|w| {
                w.starts_with("the host's speed changed while the runs ran")
                    || w.starts_with("the host was busy")
            })
        })
    })
}

/// Asserts that T fits every run within `range` (fitted / measured), unless the model itself
/// says the host disturbed the runs ([`host_disturbed`]): SMPI charges host time, and a full
/// suite on a shared 2-core host slowed whole configurations by 40%. `context` goes into the
/// failure message.
pub fn assert_fits_runs(m: &serde_json::Value, range: std::ops::Range<f64>, context: &str) {
    if host_disturbed(m) {
        eprintln!("the host disturbed these runs (the model says so): fit not judged");
        return;
    }
    for r in m["validation"].as_array().expect("validation rows") {
        let ratio = r["fitted"].as_f64().unwrap() / r["measured"].as_f64().unwrap();
        assert!(range.contains(&ratio), "{r:#}\n{context}");
    }
}
