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
    // from the profile on (taken only before the comparison, the profile ran beside the native
    // test's ranks and its span read 1.7 ms for 0.87)
    let _one_at_a_time = common::host_lock();
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
        // the profile builds the instrumented binary and checks it runs; the spans compared
        // below are of runs interleaved with the program as written: on stop 30's host whole
        // simulations of either binary came out at 0.9 or at 1.4-1.5 ms, in spells of seconds,
        // and the profile's fastest of 3 fell in a slow spell the later runs missed
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
    // What the model reads: a trace's span from MPI_Init to the last event, on the slowest rank.
    let span = || {
        trace::read_run(&traces)
            .unwrap()
            .iter()
            .map(|t| {
                let last = t
                    .mpi_calls()
                    .map(|(c, _)| c.end.wtime)
                    .fold(t.header.init_wtime, f64::max);
                last - t.header.init_wtime
            })
            .fold(0.0, f64::max)
    };
    let (mut a, mut b, mut spans) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..9 {
        // interleaved, so that a slow spell of the shared host hits both alike; 9 of each, as
        // the slow spells above took all 5 of one binary's runs once
        a.push(simulated(4, &hostfile, &plain, &args, &traces));
        b.push(simulated(4, &hostfile, &instrumented, &args, &traces));
        spans.push(span());
    }
    // the tracer's overhead: host noise only ever adds simulated time (SMPI charges the host's
    // compute bursts), so each binary's least disturbed run is compared (a loaded suite moved
    // one median of 3 by +20%)
    let least = |v: &[f64]| v.iter().copied().fold(f64::INFINITY, f64::min);
    let (plain_min, instr_min) = (least(&a), least(&b));
    let ratio = instr_min / plain_min;
    let plain_t = median(a);
    eprintln!(
        "simulated (least of 9): uninstrumented {plain_min:.6} s, instrumented {instr_min:.6} s, \
         ratio {ratio:.3}; uninstrumented median {plain_t:.6} s"
    );

    let span = least(&spans);
    eprintln!("traced span (init .. finalize), least of 9: {span:.6} s");

    assert!(
        (ratio - 1.0).abs() < TOLERANCE,
        "instrumented run simulates to {instr_min} s, uninstrumented {plain_min} s"
    );
    assert!(
        (span / plain_min - 1.0).abs() < TOLERANCE,
        "traced span {span} s against uninstrumented {plain_min} s"
    );
}

/// Nearest-centre labelling (written for this test): each rank labels its N/P points against
/// K centres by a routine with a loop, called once per point, then the centres' sums are
/// reduced. Each call is ~0.1 µs: a phase of its own, entered N/P times between two reductions.
const PER_POINT: &str = r#"#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#define D 4

static int closest(const double *x, const double *c, int k)
{
    int best = 0;
    double bd = 1e300;
    for (int j = 0; j < k; j++) {
        double s = (x[0] - c[j * D]) * (x[0] - c[j * D]) + (x[1] - c[j * D + 1]) * (x[1] - c[j * D + 1])
                 + (x[2] - c[j * D + 2]) * (x[2] - c[j * D + 2]) + (x[3] - c[j * D + 3]) * (x[3] - c[j * D + 3]);
        if (s < bd) { bd = s; best = j; }
    }
    return best;
}

int main(int argc, char **argv)
{
    int rank, p;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    int n = atoi(argv[1]), k = atoi(argv[2]), iters = atoi(argv[3]);
    int nloc = n / p;
    double *x = malloc(sizeof(double) * nloc * D);
    double *c = malloc(sizeof(double) * k * D);
    double *sum = malloc(sizeof(double) * k * D), *gsum = malloc(sizeof(double) * k * D);
    for (int i = 0; i < nloc * D; i++) x[i] = (double)((i * 7919 + rank * 104729) % 1000) / 10.0;
    for (int i = 0; i < k * D; i++) c[i] = (double)((i * 131) % 1000) / 10.0;
    for (int it = 0; it < iters; it++) {
        for (int i = 0; i < k * D; i++) sum[i] = 0.0;
        for (int i = 0; i < nloc; i++) {
            int j = closest(&x[i * D], c, k);
            sum[j * D] += x[i * D];
        }
        MPI_Allreduce(sum, gsum, k * D, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        for (int i = 0; i < k * D; i++) c[i] = 0.5 * (c[i] + gsum[i] / n);
    }
    if (rank == 0) printf("%f\n", c[0]);
    MPI_Finalize();
    return 0;
}
"#;

/// Trial 19's k-means: a routine with a loop called once per point is a phase entered per
/// point, and the markers' own part of each piece of the program between two of them (~75 ns)
/// ran in its simulated time: k-means itself (N=80000, K=32, D=8, P=4) simulated to 3.5x its
/// uninstrumented time on the test VM, 1.25x with that part taken off. This program at K = 128,
/// 256 does ~200-400 ns of work per call, as k-means; at K = 32 (~50 ns) the part taken off is
/// most of each piece and its error most of the run (0.5-1.5x, 2-29% LOO on this host from one
/// profile to the next), which the probe check says. The ratio measured is printed.
///
/// And its entries, each under SMPI's compute threshold (1 µs) but run in a burst of many
/// between two reductions, are charged: before, the model dropped them as "shorter than the
/// machine's compute threshold in every run" and T missed the runs by 40-60%.
#[test]
fn a_routine_called_per_point_is_timed_and_charged() {
    let tmp = tempfile::tempdir().unwrap();
    let m = common::smpi_model(
        tmp.path(),
        "label.c",
        PER_POINT,
        "2,4",
        &["N=16000,32000", "K=128,256", "ITERS=10"],
        &["{N}", "{K}", "{ITERS}"],
    );
    // the per-point routine's loop: charged, growing with K
    let closest = m["compute"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["line"] == 10)
        .unwrap_or_else(|| panic!("no computation at line 10: {:#}", m["compute"]));
    let cost = closest["cost"].as_str().unwrap();
    assert!(cost.contains('K'), "closest's cost per entry: {cost}");
    let warnings = m["warnings"].to_string();
    assert!(
        !warnings.contains("computation at line 10 (site 1) is shorter"),
        "{warnings}"
    );
    // measured: 6.7% (max 15%); 27-60% per run with the entries dropped
    let rows = m["validation"].as_array().unwrap();
    let mean = rows
        .iter()
        .map(|v| v["loo_error"].as_f64().unwrap().abs())
        .sum::<f64>()
        / rows.len() as f64;
    // judged where the model does not say the host disturbed the runs (in a suite beside
    // another test's simulations one repetition set read 0.205, 0.122 and 0.103 s)
    assert!(
        mean < 0.15 || common::host_disturbed(&m),
        "leave-one-out mean |error| {mean}: {rows:#?}"
    );

    // the profile timed the program as written at its longest run of the most ranks (what
    // SimGrid charges it grows with them), on the simulated clock
    let probe = common::manifest(&tmp.path().join("label.augur"))
        .probe
        .unwrap();
    assert_eq!(
        (probe.config.as_str(), probe.clock.as_str()),
        ("ITERS=10,K=256,N=32000,P=4", "simulated")
    );

    // and the instrumented build simulates close to the original
    let src = tmp.path().join("label.c");
    let build = tmp.path().join("label.augur").join("build");
    let plain = tmp.path().join("label-plain");
    let cc = Command::new("smpicc")
        .args(["-O2", "-o"])
        .arg(&plain)
        .arg(&src)
        .output()
        .expect("run smpicc");
    assert!(
        cc.status.success(),
        "{}",
        String::from_utf8_lossy(&cc.stderr)
    );
    let traces = tmp.path().join("traces");
    let hostfile = build.join("hosts.txt");
    let args = ["16000", "256", "10"];
    let _one_at_a_time = common::host_lock();
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for _ in 0..5 {
        a.push(simulated(4, &hostfile, &plain, &args, &traces));
        b.push(simulated(
            4,
            &hostfile,
            &build.join("label"),
            &args,
            &traces,
        ));
    }
    let least = |v: &[f64]| v.iter().copied().fold(f64::INFINITY, f64::min);
    let ratio = least(&b) / least(&a);
    eprintln!(
        "simulated (least of 5): uninstrumented {:.6} s, instrumented {:.6} s, ratio {ratio:.3}",
        least(&a),
        least(&b)
    );
    // the markers' part is an estimate, taken off every piece: its error is a share of the
    // markers, not of the work (measured: 0.5-1.5x at K = 32, where a piece is ~25 ns of work
    // beside ~75 ns of markers; 1.25x for k-means)
    assert!(
        (0.5..2.0).contains(&ratio),
        "instrumented/uninstrumented {ratio}"
    );
}

/// Natively the per-point routine's markers still cost about its work (~50 ns per point:
/// 1.4x with its entries recorded as runs, 2-3x before), and the profile's check says so, as do
/// analyze and predict: trial 19's k-means ran 16x longer instrumented and nothing said it.
#[test]
fn the_markers_part_of_a_native_run_is_measured_and_said() {
    need("mpicc");
    // its ranks take both cores: beside the atm2d comparison, in a full suite, the least of 5
    // instrumented SMPI runs there read 60% above the least of 5 uninstrumented ones (alone:
    // 0.89-0.99)
    let _one_at_a_time = common::host_lock();
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("label.c");
    std::fs::write(&src, PER_POINT).unwrap();
    let runs = tmp.path().join("label.augur");
    let o = common::run(&[
        "profile",
        src.to_str().unwrap(),
        "--out",
        runs.to_str().unwrap(),
        "--np",
        "1",
        "--param",
        "N=400000",
        "--param",
        "K=32",
        // the fastest of 3 of each, the program as written and instrumented: in a full suite
        // one uninstrumented run read 1.17 s against 0.84 s traced, and the markers' share 5%
        "--repeat",
        "3",
        "--",
        "{N}",
        "{K}",
        "10",
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{err}");
    let probe = common::manifest(&runs).probe.unwrap();
    eprintln!("{probe:?}");
    assert_eq!(probe.clock, "wall");
    assert!(probe.share() > 0.15, "{probe:?}");
    assert!(err.contains("warning: augur's markers add"), "{err}");
    let o = common::run(&[
        "analyze",
        src.to_str().unwrap(),
        "--runs",
        runs.to_str().unwrap(),
        "--json",
    ]);
    let m: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(
        m["warnings"].to_string().contains("augur's markers add"),
        "{:#}",
        m["warnings"]
    );
    // and predict says it wherever T is evaluated (trial 21: 13x, and predict silent)
    let model = runs.join("model.json");
    let o = common::run(&[
        "predict",
        model.to_str().unwrap(),
        "--at",
        "N=800000,K=32,P=4",
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("warning: at N=800000,K=32,P=4: augur's markers add"),
        "{err}"
    );
}
