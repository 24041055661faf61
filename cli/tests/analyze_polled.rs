//! `augur profile` + `augur analyze` on a halo exchange polled with MPI_Testall between chunks
//! of the interior's update (trial 26). Before the tracer wrapped MPI_Testall every request of
//! the exchange was unknown to it (an anomaly each) and the exchange was in no phase; once it
//! was, the interior's cost per entry was fitted 50x low: the ranks' stretches between MPI calls
//! were cut at different chunks (the Testall done after the first chunk on one rank, the
//! second on another), and the median over ranks of each stretch took one chunk for a hundred.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::print_stderr,
    clippy::panic
)]

mod common;
use common::{native_model, need};

const SOURCE: &str = r#"/* Overlap: post a halo exchange, compute the interior in chunks while polling MPI_Testall,
 * then finish the boundary. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static double interior(double *a, int lo, int hi)
{
    double s = 0.0;
    for (int i = lo; i < hi; i++) {
        a[i] = 0.5 * a[i] + 0.25 * (a[i - 1] + a[i + 1]);
        s += a[i];
    }
    return s;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int n = atoi(argv[1]), iters = atoi(argv[2]), chunk = 1024;
    double *a = calloc(n + 2, sizeof(double));
    for (int i = 1; i <= n; i++) a[i] = (double)(i % 17);
    int left = rank > 0 ? rank - 1 : MPI_PROC_NULL;
    int right = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
    double total = 0.0;
    long polls = 0;
    for (int it = 0; it < iters; it++) {
        MPI_Request req[4];
        MPI_Irecv(&a[0], 1, MPI_DOUBLE, left, 0, MPI_COMM_WORLD, &req[0]);
        MPI_Irecv(&a[n + 1], 1, MPI_DOUBLE, right, 1, MPI_COMM_WORLD, &req[1]);
        MPI_Isend(&a[1], 1, MPI_DOUBLE, left, 1, MPI_COMM_WORLD, &req[2]);
        MPI_Isend(&a[n], 1, MPI_DOUBLE, right, 0, MPI_COMM_WORLD, &req[3]);
        int done = 0, lo = 2;
        while (lo < n) {
            int hi = lo + chunk < n ? lo + chunk : n;
            total += interior(a, lo, hi);
            lo = hi;
            if (!done) {
                MPI_Testall(4, req, &done, MPI_STATUSES_IGNORE);
                polls++;
            }
        }
        if (!done)
            MPI_Waitall(4, req, MPI_STATUSES_IGNORE);
        total += interior(a, 1, 2) + interior(a, n, n + 1);
    }
    double sum;
    MPI_Allreduce(&total, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("total %g polls %ld\n", sum, polls);
    free(a);
    MPI_Finalize();
    return 0;
}
"#;

#[test]
fn a_polled_exchange_is_a_phase_and_its_chunks_cost_what_they_ran() {
    need("mpicc");
    let tmp = tempfile::tempdir().unwrap();
    let m = native_model(
        tmp.path(),
        "polled.c",
        SOURCE,
        "1,2",
        &["N=100000,200000", "ITERS=10,20"],
        &["{N}", "{ITERS}"],
    );
    let warnings = common::warnings(&m);
    assert!(
        !warnings
            .iter()
            .any(|w| w.contains("does not wrap") || w.contains("anomalies")),
        "{warnings:#?}"
    );
    // the exchange is one phase of its four calls, completed by the Testall
    let line_of = |text: &str| SOURCE.lines().position(|l| l.contains(text)).unwrap() as u64 + 1;
    let calls: Vec<u64> = [
        "MPI_Irecv(&a[0]",
        "MPI_Irecv(&a[n + 1]",
        "MPI_Isend(&a[1]",
        "MPI_Isend(&a[n]",
    ]
    .iter()
    .map(|c| line_of(c))
    .collect();
    let phases = m["phases"].as_array().unwrap();
    let exchange = phases
        .iter()
        .find(|p| {
            let lines: Vec<u64> = p["lines"]
                .as_array()
                .unwrap()
                .iter()
                .filter_map(serde_json::Value::as_u64)
                .collect();
            calls.iter().all(|c| lines.contains(c))
        })
        .unwrap_or_else(|| panic!("{phases:#?}"));
    // traced at P = 2 only (at P = 1 every peer is MPI_PROC_NULL), by all the ranks: P, not 2
    assert_eq!(exchange["processors"], "P", "{exchange:#}");
    // the interior's update costs per element about what the initialisation does (a few ns
    // each: 3.2e-9 against 3.0e-9 to 5.6e-9 s here), not a tenth or a fiftieth of it (2.4e-10
    // and 1.8e-9 s were fitted before the stretches' entries were compared)
    let w = |text: &str| {
        let line = line_of(text);
        m["compute"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["line"].as_u64() == Some(line))
            .unwrap_or_else(|| panic!("no computation at line {line}: {:#?}", m["compute"]))["w"]
            .as_f64()
            .unwrap()
    };
    let (interior, init) = (
        w("for (int i = lo; i < hi; i++)"),
        w("for (int i = 1; i <= n; i++) a[i]"),
    );
    assert!(
        interior > 0.45 * init && interior < 3.0 * init,
        "interior {interior:e} s per element, initialisation {init:e}"
    );
}
