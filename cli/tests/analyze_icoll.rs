//! `augur profile` + `augur analyze` under SMPI on a solver step that starts an
//! MPI_Iallreduce of its residual, updates its block while the reduction is in flight, and
//! waits for it; plus an MPI_Exscan of block offsets. Before the tracer wrapped nonblocking
//! collectives and Exscan (trial 8 item 4), analyze warned "has no runtime wrapper", the
//! reduction was in no phase and its time fell into the surrounding loop. The model charges the
//! Iallreduce whole, as the blocking allreduce (SMPI hides it under the update loop): the work
//! per iteration is large enough here for that to stay within the bound (at 200 iterations of
//! a 4096-element block per rank it alone put T 80% high at P = 8).
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

#define NMAX 524288

static double x[NMAX], y[NMAX];

int main(int argc, char **argv)
{
    int rank, nprocs, n, iters, it, i;
    long count, offset = 0;
    double local, global = 0.0, s = 0.0;
    MPI_Request req;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    n = atoi(argv[1]) / nprocs;
    iters = atoi(argv[2]);
    count = n;
    MPI_Exscan(&count, &offset, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    for (i = 0; i < n; i++) {
        x[i] = (double)(offset + i) * 1e-6;
        y[i] = 0.0;
    }
    for (it = 0; it < iters; it++) {
        local = 0.0;
        for (i = 0; i < n; i++)
            local += x[i] / (1.0 + x[i] * x[i]);
        MPI_Iallreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &req);
        for (i = 0; i < n; i++)
            y[i] = (0.5 * y[i] + 0.25 * x[i]) / (1.0 + y[i] * y[i]);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        s += global;
        for (i = 0; i < n; i++)
            x[i] = y[i] / (1.0 + global * 1e-9 + y[i] * y[i]);
    }
    if (rank == 0)
        printf("icoll %d %d %.6e\n", n * nprocs, iters, s);
    MPI_Finalize();
    return 0;
}
"#;

#[test]
fn iallreduce_overlapped_with_compute_is_a_collective_phase() {
    let tmp = tempfile::tempdir().unwrap();
    let m = smpi_model(
        tmp.path(),
        "icoll.c",
        SOURCE,
        "2,4,8",
        &["N=262144,524288"],
        &["{N}", "20"],
    );
    let warnings = m["warnings"].as_array().unwrap();
    assert!(
        !warnings
            .iter()
            .any(|w| w.as_str().unwrap().contains("does not wrap")),
        "{warnings:#?}"
    );
    // the Iallreduce and the Exscan are the phases of the report, one call per rank each
    let phases = m["phases"].as_array().unwrap();
    let coll: Vec<&serde_json::Value> = phases
        .iter()
        .filter(|p| p["kind"] == "collective")
        .collect();
    assert_eq!(coll.len(), 2, "{phases:#?}");
    assert_eq!(phases.len(), 2, "{phases:#?}");
    for p in &coll {
        assert_eq!(p["processors"], "P", "{p:#}");
    }
    let rows = m["validation"].as_array().expect("validation rows");
    assert_eq!(rows.len(), 6, "{:#}", m["validation"]);
    common::assert_fits_runs(&m, 0.75..1.33, "");
}
