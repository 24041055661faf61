//! End-to-end: `augur characterize` really compiles and runs the microbenchmark with mpirun at
//! np=2 on a couple of sizes and writes a data sheet `model::machine` loads. Skipped (with a
//! note) when mpicc/mpirun are not installed.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::print_stderr
)]

use model::machine::{CollectiveOp, Machine, Source};
use std::process::Command;

fn have(prog: &str) -> bool {
    Command::new(prog)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

#[test]
fn characterize_np2_writes_a_loadable_machine() {
    // the suite installs Open MPI (scripts/test.sh): its absence fails the test, never skips it
    assert!(
        have("mpicc") && have("mpirun"),
        "mpicc and mpirun are needed (apt-get install openmpi-bin libopenmpi-dev)"
    );
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("m.json");
    let raw = dir.path().join("m.csv");
    let o = Command::new(env!("CARGO_BIN_EXE_augur"))
        .args([
            "characterize",
            "--np",
            "2",
            "--sizes",
            "8,64,256,1024,8192,65536",
            "--coll-sizes",
            "8,512,4096",
            "--reps",
            "5",
            "--json",
            "-o",
        ])
        .arg(&out)
        .arg("--raw")
        .arg(&raw)
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "stderr: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    let summary: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let m = Machine::load(&out).unwrap();
    assert_eq!(m.measured.source, Source::Measured);
    assert_eq!(m.measured.launch_np, 2);
    assert_eq!(m.measured.group_sizes, [2]);
    // one group size leaves the collectives' laws in p open: said, and kept in the sheet
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("warning: the collectives were measured at 1 group size (2)"),
        "{err}"
    );
    assert!(
        m.description.contains("measured at 1 group size (2)"),
        "{}",
        m.description
    );
    assert_eq!(m.measured.p2p_sizes, [8, 64, 256, 1024, 8192, 65536]);
    assert!(m.measured.mpi.contains("MPI"), "{}", m.measured.mpi);
    let pp = &m.point_to_point;
    assert!(
        pp.latency > 0.0 && pp.latency < 1e-2,
        "latency {}",
        pp.latency
    );
    assert!(pp.bandwidth > 1e6, "bandwidth {}", pp.bandwidth);
    assert_eq!(summary["latency_s"].as_f64(), Some(pp.latency));
    // τ + s + r reproduces a message's one-way cost at the sizes measured: the larger of the
    // half round trip and the fresh-data stream (medians in the raw CSV), within 50% or, when
    // the machine is loaded, within the measurement's own spread (median − min), by which the
    // fit weights it. Regimes part at the eager limit (Open MPI's vader: 256 B; CI measured
    // 1 KiB at 4× 8 B, and one line through 8 B, 1 KiB and 64 KiB missed two of them), so
    // three sizes a side leave each fit a point to spare. A slow spell on a shared machine can
    // still lift every repetition at one size (seen: 1.19 µs at 1 KiB with a 0.03 µs spread,
    // against 0.6 µs at its neighbours), which a fit across sizes rightly does not follow: two
    // sizes of the six may miss, by at most 4×, and characterize names each one it misses.
    let csv = std::fs::read_to_string(&raw).unwrap();
    let row = |op: &str, bytes: u64| -> (f64, f64) {
        let f: Vec<&str> = csv
            .lines()
            .find(|l| l.starts_with(&format!("pt2pt,{op},2,{bytes},")))
            .unwrap_or_else(|| panic!("no {op} row at {bytes} B"))
            .split(',')
            .collect();
        (f[6].parse().unwrap(), f[5].parse().unwrap())
    };
    let mut misses = Vec::new();
    for b in [8u64, 64, 256, 1024, 8192, 65536] {
        let d = b as f64;
        let sum = m.tau(d) + m.send_overhead(d) + m.recv_overhead(d);
        let (pp_med, pp_min) = row("pingpong", b);
        let (fr_med, fr_min) = row("stream_fresh", b);
        let (one_way, spread) = if fr_med > pp_med {
            (fr_med, fr_med - fr_min)
        } else {
            (pp_med, pp_med - pp_min)
        };
        assert!(sum > 0.0 && one_way > 0.0, "d={d}: {sum} vs {one_way}");
        let ratio = (sum / one_way).max(one_way / sum);
        assert!(ratio <= 4.0, "d={d}: {sum} vs {one_way} (spread {spread})");
        if (sum - one_way).abs() > (0.5 * one_way).max(3.0 * spread) {
            misses.push(format!("d={d}: {sum} vs {one_way} (spread {spread})"));
            let said = format!("misses the measured one at {b} B by more than 50%");
            assert!(err.contains(&said), "{said} not in: {err}");
            assert!(m.description.contains(&said), "{}", m.description);
        }
    }
    assert!(misses.len() <= 2, "{misses:?}");
    assert_eq!(
        err.matches("one-way message cost").count(),
        misses.len(),
        "{err}"
    );
    // Open MPI's blocking sends wait for a late receive from some size on (vader: above 256 B).
    assert!(
        pp.eager_limit.is_some_and(|e| e < 65536),
        "eager limit {:?}",
        pp.eager_limit
    );
    for op in CollectiveOp::ALL {
        let c = m.collective(op).unwrap_or_else(|| panic!("no {op}"));
        assert!(c.eval(2.0, 512.0) > 0.0, "{op}");
    }
    // the nonblocking exchange is measured with the rest, at every size, and fitted: natively
    // the processor copies in the wait what the posts leave, so the exchange of one message
    // each way costs about what its blocking send and receive do
    for op in [
        "nb_post",
        "nb_exchange_1",
        "nb_exchange_8",
        "nb_wait_1",
        "nb_wait_8",
    ] {
        for b in [8u64, 1024, 65536] {
            row(op, b);
        }
    }
    assert_eq!(summary["nonblocking"], true);
    let nb = pp
        .nonblocking
        .as_ref()
        .expect("the nonblocking exchange fitted");
    let (ex, _) = row("nb_exchange_1", 1024);
    let parts = nb.post.eval(2.0, 1024.0)
        + nb.wait_first.eval(2.0, 1024.0)
        + nb.wire_first.eval(2.0, 1024.0);
    assert!(
        parts > 0.0 && (parts / ex).max(ex / parts) <= 4.0,
        "nonblocking parts {parts} against the exchange's {ex}"
    );
    // the host's detours: the one launch's selfish-detour loop of 2 s (with more ranks, every
    // point-to-point launch runs one and the fit adds them up)
    assert_eq!(
        csv.lines().filter(|l| l.starts_with("noise,span,")).count(),
        1
    );
    let noise = m.noise.as_ref().expect("the host's detours measured");
    assert!(
        (noise.seconds - 2.0).abs() < 0.05,
        "a loop of 2 s: {}",
        noise.seconds
    );
    assert!(summary["noise"]["detours_per_s"].as_f64().unwrap() >= 0.0);
    assert!(csv.starts_with("# augur_bench 1\n"));
    assert_eq!(
        csv.lines()
            .filter(|l| l.starts_with("pt2pt,pingpong,"))
            .count(),
        6
    );
}

#[test]
fn characterize_rejects_bad_options_without_running() {
    let o = Command::new(env!("CARGO_BIN_EXE_augur"))
        .args(["characterize", "--np", "1..4", "-o", "/nonexistent/x.json"])
        .output()
        .unwrap();
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("--np"));
}
