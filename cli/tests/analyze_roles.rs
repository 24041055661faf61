//! `augur profile` + `augur analyze` under SMPI on two exchanges whose ranks play different
//! roles, each written the way application codes are: a dynamic master/worker farm (the
//! phase's sites meet at the IF choosing each rank's role, above the loops that repeat them)
//! and a halo exchange ordered by rank parity (even ranks send first, odd ranks receive
//! first). The farm once cost one task in all (-77%), the parity exchange the whole time step
//! inside the exchange (+257..+682%).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::print_stderr,
    clippy::panic
)]

mod common;
use common::smpi_model;

const FARM: &str = r#"#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define WORK 1
#define STOP 2

static double task(int t, int size)
{
    double s = 0.0;
    for (int i = 0; i < size; i++)
        s += 1e-9 * (double)((i + t) % 7);
    return s;
}

int main(int argc, char **argv)
{
    int rank, nprocs;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    int ntasks = atoi(argv[1]), size = atoi(argv[2]);
    if (rank == 0) {
        int next = 0, active = 0;
        double total = 0.0, r;
        MPI_Status st;
        for (int w = 1; w < nprocs; w++) {
            MPI_Send(&next, 1, MPI_INT, w, next < ntasks ? WORK : STOP, MPI_COMM_WORLD);
            if (next < ntasks) {
                next++;
                active++;
            }
        }
        while (active > 0) {
            MPI_Recv(&r, 1, MPI_DOUBLE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
            total += r;
            MPI_Send(&next, 1, MPI_INT, st.MPI_SOURCE, next < ntasks ? WORK : STOP,
                     MPI_COMM_WORLD);
            if (next < ntasks)
                next++;
            else
                active--;
        }
        printf("farm %d %d %.6e\n", ntasks, size, total);
    } else {
        MPI_Status st;
        int t;
        for (;;) {
            MPI_Recv(&t, 1, MPI_INT, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
            if (st.MPI_TAG == STOP)
                break;
            double r = task(t, size);
            MPI_Send(&r, 1, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD);
        }
    }
    MPI_Finalize();
    return 0;
}
"#;

/// The workers' tasks (NTASKS/(P - 1) each) all run inside the one occurrence of the farm's
/// phase: T follows NTASKS and P through that count, fitted from the traces.
#[test]
fn a_master_worker_farm_charges_every_task_a_worker_runs() {
    let tmp = tempfile::tempdir().unwrap();
    let m = smpi_model(
        tmp.path(),
        "farm.c",
        FARM,
        "2,3,5",
        &["NTASKS=48,96", "SIZE=200000"],
        &["{NTASKS}", "{SIZE}"],
    );
    let entries = m["quantities"]
        .as_array()
        .unwrap()
        .iter()
        .find(|q| q["what"] == "entries")
        .unwrap_or_else(|| panic!("{:#}", m["quantities"]));
    let law = entries["expr"].as_str().unwrap();
    assert!(law.contains("NTASKS"), "{entries:#}");
    // the farm waits for its busiest worker, whose tasks are whole: at 1.5 tasks a worker
    // some run 2 (trial 21's farm at 1.6 tasks a worker: −37% charged at the mean)
    assert!(
        entries["source"].as_str().unwrap().contains("busiest"),
        "{entries:#}"
    );
    let law = symbolic::parse(law).unwrap();
    let at = |n: f64, p: f64| {
        law.eval(&|v| match v {
            "NTASKS" => Some(n),
            "P" => Some(p),
            _ => None,
        })
        .unwrap()
    };
    assert!((at(24.0, 17.0) - 2.0).abs() < 0.1, "{entries:#}");
    assert!((at(96.0, 5.0) - 24.0).abs() < 1.0, "{entries:#}");
    // a hub and its workers, not a chain of stages: no depth, and the run waits for the first
    // task's way out and the last answer's way back only (as a pipeline of depth 2 its fill
    // charged two tasks more than a worker runs: +4..+17% at 12..48 tasks per worker)
    let farm: Vec<_> = m["phases"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["kind"] != "collective")
        .collect();
    assert_eq!(farm.len(), 1, "{:#}", m["phases"]);
    assert_eq!(farm[0]["kind"], "star", "{:#}", farm[0]);
    // the wildcard receive is named: its order was the traced runs', not the program's
    let warnings = m["warnings"].as_array().unwrap();
    assert!(
        warnings
            .iter()
            .any(|w| w.as_str().is_some_and(|w| w.starts_with(
                "message matching or completion depends on timing (MPI_ANY_SOURCE at farm.c:"
            ))),
        "{warnings:#?}"
    );
    assert!(farm[0]["depth"].is_null(), "{:#}", farm[0]);
    // its sites send 4-byte tasks and 8-byte results: the phase's size per message is between
    // them, and says so (trial 27: the mean was fitted against the first site's 4 alone)
    let bytes = m["quantities"]
        .as_array()
        .unwrap()
        .iter()
        .find(|q| q["what"] == "bytes" && q["site"] == farm[0]["sites"][0])
        .unwrap_or_else(|| panic!("{:#}", m["quantities"]));
    let source = bytes["source"].as_str().unwrap();
    assert!(
        source.starts_with("6, between the sizes its sites send (4 at line")
            && source.contains(", 8 at line"),
        "{bytes:#}"
    );
    // a worker's `st.MPI_TAG == STOP` is taken P - 1 times in all against NTASKS: the ratio
    // of the two counts, each exact, not a mean that "no law fits" (trial 21's farm)
    let share = m["quantities"]
        .as_array()
        .unwrap()
        .iter()
        .find(|q| q["what"] == "branch" && q["source"] == "st.MPI_TAG == STOP")
        .unwrap_or_else(|| panic!("{:#}", m["quantities"]));
    let law = symbolic::parse(share["expr"].as_str().unwrap()).unwrap();
    for (n, p) in [(48.0, 2.0), (96.0, 5.0), (1000.0, 64.0)] {
        let at = |v: &str| match v {
            "NTASKS" => Some(n),
            "P" => Some(p),
            _ => None,
        };
        let want = (p - 1.0) / (n + p - 1.0);
        let got = law.eval(&at).unwrap();
        assert!(
            (got - want).abs() < 1e-3 * want,
            "{share:#}: {got} at NTASKS={n}, P={p}"
        );
    }
    assert!(
        warnings
            .iter()
            .all(|w| !w.as_str().unwrap_or("").contains("no law in")),
        "{warnings:#?}"
    );
    // the hub serves while the workers compute: the farm costs the longer of the two, not
    // their sum (trial 15: +26% and +53% at P = 64 and 32)
    let cost = farm[0]["cost"].as_str().unwrap();
    assert!(
        cost.starts_with("max(") && cost.ends_with(')'),
        "{:#}",
        farm[0]
    );
    // tasks of 200000 elements (runs of 5-40 ms; at 50000 the runs of a few ms moved by up to
    // 30% between launches on this host); one task in all, as before, was 0.02..0.85 of
    // every run; leave-one-out under the whole suite's load: 21.3% and 20.8% (alone, below
    // 20%): the ratio bounds catch the defect (its median far below 0.85), the held-out
    // bound only a broken fit
    within(&m, 6, 0.85..1.3, 0.5..2.0, 0.3);
}

/// Trial 18's farm with one worker: nothing overlaps, each task costs its compute and its round
/// trip, a message each way with the sender's and the receiver's overheads. With one of each
/// charged, short tasks ran −38% (SMPI's receive overhead is 3.6 µs a message).
#[test]
fn a_farm_with_one_worker_charges_both_ways_of_each_task() {
    let tmp = tempfile::tempdir().unwrap();
    let m = smpi_model(
        tmp.path(),
        "farm.c",
        FARM,
        "2,3",
        &["NTASKS=64,128", "SIZE=2000"],
        &["{NTASKS}", "{SIZE}"],
    );
    // the farm's own cost, not T: a regression of the time outside the phases made up for
    // the missing overheads inside the traced runs
    let farm = m["phases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["kind"] == "star")
        .unwrap_or_else(|| panic!("{:#}", m["phases"]));
    let total = symbolic::parse(farm["total"].as_str().unwrap()).unwrap();
    let two: Vec<f64> = m["validation"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["config"].as_str().is_some_and(|c| c.ends_with("P=2")))
        .map(|r| {
            let at = |v: &str| r["params"][v].as_f64();
            total.eval(&at).unwrap() / r["measured"].as_f64().unwrap()
        })
        .collect();
    assert_eq!(two.len(), 2, "{:#}", m["validation"]);
    assert!(
        two.iter().all(|r| (0.8..1.25).contains(r)),
        "{two:?}\n{farm:#}"
    );
}

/// Trial 18's farm: a serial path for one rank (`if (nprocs == 1)`, the tasks in a loop) calls
/// the workers' routine outside the farm's phase. Counted only inside the phase, T was 0 at
/// P = 1 (every such run −100%).
#[test]
fn a_farms_serial_path_for_one_rank_is_counted() {
    let serial = FARM.replacen(
        "    if (rank == 0) {\n        int next = 0",
        "    if (nprocs == 1) {\n        double total = 0.0;\n        for (int t = 0; t < ntasks; t++)\n            total += task(t, size);\n        printf(\"farm %d %d %.6e\\n\", ntasks, size, total);\n    } else if (rank == 0) {\n        int next = 0",
        1,
    );
    assert_ne!(serial, FARM);
    let tmp = tempfile::tempdir().unwrap();
    let m = smpi_model(
        tmp.path(),
        "farm.c",
        &serial,
        "1,2,4",
        &["NTASKS=48,96", "SIZE=200000"],
        &["{NTASKS}", "{SIZE}"],
    );
    let one: Vec<f64> = m["validation"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["config"].as_str().is_some_and(|c| c.ends_with("P=1")))
        .map(|r| r["fitted"].as_f64().unwrap() / r["measured"].as_f64().unwrap())
        .collect();
    assert_eq!(one.len(), 2, "{:#}", m["validation"]);
    assert!(
        one.iter().all(|r| (0.7..1.4).contains(r)),
        "{one:?}\nT = {}",
        m["t"]
    );
}

/// The traced runs' fitted/measured T: their median within `median`, every one within
/// `each` (a run disturbed by the suite's load moves alone: one SMPI run of six at 0.59 once,
/// its neighbours at 1), and the mean |error| of leave-one-out predictions under `loo`.
fn within(
    m: &serde_json::Value,
    runs: usize,
    median: std::ops::Range<f64>,
    each: std::ops::Range<f64>,
    loo: f64,
) {
    let rows = m["validation"].as_array().expect("validation rows");
    assert_eq!(rows.len(), runs, "{:#}", m["validation"]);
    let mut mean = 0.0;
    let mut ratios = Vec::new();
    for r in rows {
        let x = r["fitted"].as_f64().unwrap() / r["measured"].as_f64().unwrap();
        assert!(each.contains(&x), "{r:#}");
        ratios.push(x);
        mean += r["loo_error"].as_f64().unwrap().abs() / runs as f64;
    }
    ratios.sort_by(f64::total_cmp);
    let mid = ratios[ratios.len() / 2];
    assert!(median.contains(&mid), "median {mid}: {:#}", m["validation"]);
    assert!(mean < loo, "mean |LOO| {mean}: {:#}", m["validation"]);
}

const PARITY: &str = r#"#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define NMAX 200000

static double u[NMAX + 2], f[NMAX + 2];

static void pack(double *buf, int at)
{
    for (int k = 0; k < 4; k++)
        buf[k] = u[at] * (double)(k + 1);
}

int main(int argc, char **argv)
{
    int rank, nprocs;
    double sbuf[4], rbuf[4];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    int n = atoi(argv[1]) / nprocs, steps = atoi(argv[2]);
    for (int i = 0; i < n + 2; i++)
        u[i] = (double)(rank * n + i);
    for (int s = 0; s < steps; s++) {
        if (rank % 2 == 0) {
            if (rank + 1 < nprocs) {
                pack(sbuf, n);
                MPI_Send(sbuf, 4, MPI_DOUBLE, rank + 1, 1, MPI_COMM_WORLD);
                MPI_Recv(rbuf, 4, MPI_DOUBLE, rank + 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                u[n + 1] = rbuf[0];
            }
        } else {
            MPI_Recv(rbuf, 4, MPI_DOUBLE, rank - 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            u[0] = rbuf[0];
            pack(sbuf, 1);
            MPI_Send(sbuf, 4, MPI_DOUBLE, rank - 1, 2, MPI_COMM_WORLD);
        }
        for (int i = 1; i <= n; i++)
            f[i] = 0.25 * (u[i - 1] - 2.0 * u[i] + u[i + 1]);
        for (int i = 1; i <= n; i++)
            u[i] += f[i];
    }
    if (rank == 0)
        printf("parity %d %d %.6e\n", n * nprocs, steps, u[1]);
    MPI_Finalize();
    return 0;
}
"#;

/// Even ranks send then receive, odd ranks receive then reply: a chain of two messages
/// (a pipeline of depth 2) whose overlapped computation is the pack between the odd rank's
/// receive and reply, never the step's update loops, which run after the exchange's IF
/// (between one step's receive and the next step's send on an even rank).
#[test]
fn a_parity_ordered_exchange_does_not_count_the_step_inside_it() {
    let tmp = tempfile::tempdir().unwrap();
    let m = smpi_model(
        tmp.path(),
        "parity.c",
        PARITY,
        "2,4,8",
        &["N=80000,160000"],
        &["{N}", "50"],
    );
    let phases = m["phases"].as_array().unwrap();
    let p2p: Vec<_> = phases
        .iter()
        .filter(|p| p["kind"] != "collective")
        .collect();
    assert!(!p2p.is_empty(), "{phases:#?}");
    for p in &p2p {
        let inside = p["overlapped"].as_array().unwrap();
        assert!(inside.len() <= 1, "only the pack loop: {p:#}");
    }
    // the step counted inside the exchange put T 3-7x above every run; runs of 1-5 ms
    // move by up to 30% between launches on this host (leave-one-out 20.5% once under the
    // whole suite's load; the ratio bounds catch the defect)
    within(&m, 6, 0.8..1.3, 0.45..2.5, 0.3);
}
