//! Under SimGrid SMPI the tracer's own work must not become simulated compute time: the same
//! program, instrumented by `augur profile` and not, must simulate to the same time.
//!
//! ATM2D (C, LAMBDA=64 STEPS=20, P=4: 120 tiny pack/unpack phases per rank between Sendrecvs),
//! simulated time as printed by `--cfg=smpi/display-timing:yes` ("Simulated time: X seconds"),
//! median of 3 runs each, measured on the 2-core test VM:
//! - runtime before the fix (markers and wrappers ran with SMPI's bench on, MPI_Wtime in phase
//!   markers): uninstrumented 0.000657 s, instrumented 0.001028 s (+56 %);
//! - runtime with the SMPI bench control: uninstrumented 0.000655 s, instrumented 0.000682 s
//!   (+4 %; the same comparison at P=16 gives -2 % .. +6 %, run-to-run noise is about 3 %).
//!
//! The tolerance (35 %) is below the old +56 % and above the host's noise: on this shared
//! 2-core VM the least of 5 runs of the same uninstrumented binary was 0.000662 s in one
//! invocation of this test and 0.000761 s (+15 %) in the next (session 9, a quiet machine),
//! and the instrumented/uninstrumented ratio of least-of-5s came out 1.02, 1.15 and 1.20 in
//! three invocations, and 1.29 once at the end of the whole suite (stop 17; 0.88, 1.07 and
//! 1.09 alone right after): a whole launch is now and then slower, as the native data sheet's
//! point-to-point launches are.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::print_stderr
)]

use std::path::{Path, PathBuf};
use std::process::Command;
use trace::RunDir;

mod common;
use common::need;

fn testdata(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../testdata")
        .join(rel)
}

/// Simulated seconds of one SMPI run, from SimGrid's own end-of-simulation report.
fn simulated(np: u32, hostfile: &Path, exe: &Path, args: &[&str], trace_dir: &Path) -> f64 {
    let platform = testdata("platform/cluster.xml");
    let out = Command::new("smpirun")
        .args(["-np", &np.to_string(), "-platform"])
        .arg(&platform)
        .arg("-hostfile")
        .arg(hostfile)
        .args([
            "--cfg=smpi/host-speed:1Gf",
            "--cfg=smpi/display-timing:yes",
            "--log=root.thres:warning",
            "--log=smpi_utils.thres:info",
        ])
        .arg(exe)
        .args(args)
        .env("AUGUR_TRACE_DIR", trace_dir)
        .output()
        .expect("run smpirun");
    let text =
        String::from_utf8_lossy(&out.stderr).into_owned() + &String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "smpirun failed:\n{text}");
    let at = text
        .find("Simulated time: ")
        .unwrap_or_else(|| panic!("no simulated time reported:\n{text}"));
    text[at + "Simulated time: ".len()..]
        .split_whitespace()
        .next()
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("unreadable simulated time:\n{text}"))
}

/// See the module doc: below the +56 % this test was written against, above the noise.
const TOLERANCE: f64 = 0.35;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

#[test]
fn instrumented_atm2d_simulates_like_the_original() {
    need("smpicc");
    need("smpirun");
    let tmp = tempfile::tempdir().unwrap();
    let src = testdata("atm2d/atm2d.c");
    let platform = testdata("platform/cluster.xml");
    let out = tmp.path().join("atm2d.augur");
    let o = Command::new(env!("CARGO_BIN_EXE_augur"))
        .arg("profile")
        .arg(&src)
        .arg("--out")
        .arg(&out)
        .args(["--launcher", "smpirun", "--platform"])
        .arg(&platform)
        .args(["--np", "4", "--param", "LAMBDA=64", "--param", "STEPS=20"])
        // the kept traces are the fastest repetition's: the span below is the least of 3, as
        // the simulated times compared with it are (one run alone moves by up to ~20% when the
        // host is busy)
        .args(["--repeat", "3"])
        .output()
        .expect("run augur profile");
    assert!(
        o.status.success(),
        "augur profile failed:\n{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    let build = out.join("build");
    let instrumented = build.join("atm2d");
    let hostfile = build.join("hosts.txt");
    let plain = tmp.path().join("atm2d-plain");
    let cc = Command::new("smpicc")
        .args(["-O2", "-o"])
        .arg(&plain)
        .arg(&src)
        .arg("-lm")
        .output()
        .expect("run smpicc");
    assert!(
        cc.status.success(),
        "{}",
        String::from_utf8_lossy(&cc.stderr)
    );

    let traces = tmp.path().join("traces");
    let args = ["64", "20"];
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for _ in 0..5 {
        // interleaved, so that a slow spell of the shared host hits both alike
        a.push(simulated(4, &hostfile, &plain, &args, &traces));
        b.push(simulated(4, &hostfile, &instrumented, &args, &traces));
    }
    // the tracer's overhead: host noise only ever adds simulated time (SMPI charges the host's
    // compute bursts), so each binary's least disturbed run is compared (a loaded suite moved
    // one median of 3 by +20%)
    let least = |v: &[f64]| v.iter().copied().fold(f64::INFINITY, f64::min);
    let (plain_min, instr_min) = (least(&a), least(&b));
    let ratio = instr_min / plain_min;
    let plain_t = median(a);
    eprintln!(
        "simulated (least of 5): uninstrumented {plain_min:.6} s, instrumented {instr_min:.6} s, \
         ratio {ratio:.3}; uninstrumented median {plain_t:.6} s"
    );

    // What the model reads: the trace's span from MPI_Init to the last event, on the slowest rank.
    let ranks = RunDir::at(&out).read_run("LAMBDA=64,STEPS=20,P=4").unwrap();
    let span = ranks
        .iter()
        .map(|t| {
            let last = t
                .mpi_calls()
                .map(|(c, _)| c.end.wtime)
                .fold(t.header.init_wtime, f64::max);
            last - t.header.init_wtime
        })
        .fold(0.0, f64::max);
    eprintln!("traced span (init .. finalize) {span:.6} s");

    assert!(
        (ratio - 1.0).abs() < TOLERANCE,
        "instrumented run simulates to {instr_min} s, uninstrumented {plain_min} s"
    );
    assert!(
        (span / plain_min - 1.0).abs() < TOLERANCE,
        "traced span {span} s against uninstrumented {plain_min} s"
    );
}
