//! `augur profile` + `augur analyze` under SMPI on a ring whose halo exchange uses persistent
//! requests (MPI_Recv_init/MPI_Send_init once, MPI_Startall + MPI_Waitall per step,
//! MPI_Request_free at the end). Before the runtime traced them the halo messages were in no
//! phase and every run was reported with "anomalies" (trial 3, #2).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::print_stderr,
    clippy::panic
)]

mod common;
use common::smpi_model;

const SOURCE: &str = r#"#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define HALO 4

int main(int argc, char **argv)
{
    int rank, size, n, nsteps, step, left, right, i;
    double *a, local, total;
    MPI_Request reqs[4];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    n = atoi(argv[1]) / size;
    nsteps = atoi(argv[2]);
    left = (rank - 1 + size) % size;
    right = (rank + 1) % size;
    a = malloc((n + 2 * HALO) * sizeof(double));
    for (i = 0; i < n + 2 * HALO; i++)
        a[i] = rank + i * 1.0e-3;

    MPI_Recv_init(a, HALO, MPI_DOUBLE, left, 2, MPI_COMM_WORLD, &reqs[0]);
    MPI_Recv_init(a + n + HALO, HALO, MPI_DOUBLE, right, 1, MPI_COMM_WORLD, &reqs[1]);
    MPI_Send_init(a + HALO, HALO, MPI_DOUBLE, left, 1, MPI_COMM_WORLD, &reqs[2]);
    MPI_Send_init(a + n, HALO, MPI_DOUBLE, right, 2, MPI_COMM_WORLD, &reqs[3]);
    for (step = 0; step < nsteps; step++) {
        MPI_Startall(4, reqs);
        MPI_Waitall(4, reqs, MPI_STATUSES_IGNORE);
        for (i = HALO; i < n + HALO; i++)
            a[i] = 0.25 * a[i - 1] + 0.5 * a[i] + 0.25 * a[i + 1];
    }
    local = 0.0;
    for (i = HALO; i < n + HALO; i++)
        local += a[i];
    MPI_Reduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("sum %.6e\n", total);
    for (i = 0; i < 4; i++)
        MPI_Request_free(&reqs[i]);
    free(a);
    MPI_Finalize();
    return 0;
}
"#;

#[test]
fn persistent_halo_ring_is_a_phase_without_anomalies() {
    let tmp = tempfile::tempdir().unwrap();
    let m = smpi_model(
        tmp.path(),
        "pring.c",
        SOURCE,
        "2,4,8",
        &["N=4096,8192"],
        &["{N}", "50"],
    );
    let runs = tmp.path().join("pring.augur");
    let phases = m["phases"].as_array().unwrap();
    // the Startall site (line 29) holds the ring: two messages of 4 doubles per rank and step,
    // loosely synchronous on all P ranks
    let ring: Vec<_> = phases
        .iter()
        .filter(|p| p["kind"] == "synchronous")
        .collect();
    assert_eq!(ring.len(), 1, "{phases:#?}");
    assert_eq!(ring[0]["bytes"], "32", "{:#}", ring[0]);
    assert_eq!(ring[0]["msgs"], 2.0, "{:#}", ring[0]);
    assert_eq!(ring[0]["processors"], "P", "{:#}", ring[0]);
    assert!(
        phases.iter().any(|p| p["kind"] == "collective"),
        "{phases:#?}"
    );
    let warnings = m["warnings"].as_array().unwrap();
    assert!(
        !warnings
            .iter()
            .any(|w| w.as_str().unwrap().contains("anomalies")),
        "{warnings:#?}"
    );
    // every rank's trace: the starts completed, nothing unbalanced
    for run in std::fs::read_dir(runs.join("runs")).unwrap() {
        for t in trace::read_run(&run.unwrap().path()).unwrap() {
            assert_eq!(t.trailer.anomalies, 0, "{}", t.header.rank);
        }
    }
}

/// The same halo on a chain (MPI_PROC_NULL past the ends): the busiest rank sends 1 message
/// per step at P = 2 and 2 from P = 3 on, which runs at P = 2 and 4 alone fit as 0.5*P. A
/// start sends at most the requests it starts, so the law is capped at MPI_Startall's count
/// (trial, stop 32: uncapped, the halo was 91% of T at P = 1024).
#[test]
fn a_startall_caps_the_messages_a_law_in_p_gives() {
    let tmp = tempfile::tempdir().unwrap();
    let chain = SOURCE
        .replace(
            "left = (rank - 1 + size) % size;",
            "left = rank > 0 ? rank - 1 : MPI_PROC_NULL;",
        )
        .replace(
            "right = (rank + 1) % size;",
            "right = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;",
        );
    assert_ne!(chain, SOURCE);
    let m = smpi_model(
        tmp.path(),
        "pchain.c",
        &chain,
        "2,4",
        &["N=4096,8192"],
        &["{N}", "20"],
    );
    let msgs: Vec<&str> = m["quantities"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|q| q["what"] == "msgs")
        .filter_map(|q| q["expr"].as_str())
        .collect();
    assert_eq!(msgs, ["min(0.5*P, 4)"], "{:#}", m["quantities"]);
}
