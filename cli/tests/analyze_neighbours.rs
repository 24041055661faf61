//! `augur profile` + `augur analyze` natively on a 2-D periodic halo exchange by
//! MPI_Neighbor_alltoall (written for this test). Trial 29: the call had no cost in the machine
//! sheet, so its traced time per call was fitted freely over N, P and the steps, and T blew up
//! beyond the runs. The tracer records the messages each call posts each way (4 on a 2-D
//! Cartesian grid) and the model costs the call as the sheet's nonblocking exchange of that
//! many messages of the block's size: a cost in N alone. (SimGrid 3.32 does not implement
//! neighbourhood collectives: native runs only.)
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::print_stderr,
    clippy::panic
)]

mod common;

const SOURCE: &str = r#"#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define NMAX 1024

static double u[NMAX + 2][NMAX + 2], v[NMAX + 2][NMAX + 2];
static double sbuf[4 * NMAX], rbuf[4 * NMAX];

int main(int argc, char **argv)
{
    int rank, nprocs, n, steps, step, i, j, dims[2] = {0, 0}, periods[2] = {1, 1};
    double local, total;
    MPI_Comm grid;
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    n = atoi(argv[1]);
    steps = atoi(argv[2]);
    if (n < 1 || n > NMAX)
        MPI_Abort(MPI_COMM_WORLD, 2);
    MPI_Dims_create(nprocs, 2, dims);
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &grid);
    MPI_Comm_rank(grid, &rank);
    for (i = 0; i < n + 2; i++)
        for (j = 0; j < n + 2; j++)
            u[i][j] = (double)((rank * 31 + i * 7 + j) % 17);
    for (step = 0; step < steps; step++) {
        /* the order of MPI_Cart_shift's neighbours: -x, +x, -y, +y */
        for (j = 0; j < n; j++) {
            sbuf[j] = u[1][j + 1];
            sbuf[n + j] = u[n][j + 1];
            sbuf[2 * n + j] = u[j + 1][1];
            sbuf[3 * n + j] = u[j + 1][n];
        }
        MPI_Neighbor_alltoall(sbuf, n, MPI_DOUBLE, rbuf, n, MPI_DOUBLE, grid);
        for (j = 0; j < n; j++) {
            u[0][j + 1] = rbuf[j];
            u[n + 1][j + 1] = rbuf[n + j];
            u[j + 1][0] = rbuf[2 * n + j];
            u[j + 1][n + 1] = rbuf[3 * n + j];
        }
        for (i = 1; i <= n; i++)
            for (j = 1; j <= n; j++)
                v[i][j] = 0.25 * (u[i - 1][j] + u[i + 1][j] + u[i][j - 1] + u[i][j + 1]);
        for (i = 1; i <= n; i++)
            for (j = 1; j <= n; j++)
                u[i][j] = v[i][j];
    }
    local = 0.0;
    for (i = 1; i <= n; i++)
        for (j = 1; j <= n; j++)
            local += u[i][j];
    MPI_Reduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("halo %d %d %d %.6e\n", nprocs, n, steps, total);
    MPI_Comm_free(&grid);
    MPI_Finalize();
    return 0;
}
"#;

#[test]
fn a_neighbourhood_alltoall_is_costed_as_an_exchange_with_each_neighbour() {
    common::need("mpicc");
    let tmp = tempfile::tempdir().unwrap();
    let m = common::native_model(
        tmp.path(),
        "halo.c",
        SOURCE,
        "1,2",
        &["N=200,400", "STEPS=50,100"],
        &["{N}", "{STEPS}"],
    );
    let warnings: Vec<&str> = m["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w.as_str().unwrap())
        .collect();
    let said: Vec<&&str> = warnings
        .iter()
        .filter(|w| w.starts_with("collective NeighborAlltoall at line 35 (site "))
        .collect();
    assert_eq!(said.len(), 1, "{warnings:#?}");
    assert!(
        said[0].contains(
            "costed as the nonblocking exchange of a message each way with each of its neighbours (4, traced)"
        ),
        "{}",
        said[0]
    );
    // the traced count, fitted: 4 at every P (the grid's four sides, periodic)
    let k: Vec<&serde_json::Value> = m["quantities"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|q| q["what"] == "neighbours")
        .collect();
    assert_eq!(k.len(), 1, "{:#}", m["quantities"]);
    assert_eq!(
        (k[0]["line"].as_u64(), k[0]["expr"].as_str()),
        (Some(35), Some("4"))
    );
    // no traced time per call stands in for it
    assert!(
        !m["quantities"]
            .as_array()
            .unwrap()
            .iter()
            .any(|q| q["what"] == "call" && q["line"] == 35),
        "{:#}",
        m["quantities"]
    );
    // its cost per call: the sheet's, in the block's size alone
    let phase = m["phases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["ancestor_line"] == 35)
        .unwrap_or_else(|| panic!("no phase at line 35: {:#}", m["phases"]));
    assert_eq!(phase["kind"], "collective", "{phase:#}");
    assert_eq!(phase["bytes"], "8*N", "{phase:#}");
    let cost = phase["cost"].as_str().unwrap();
    assert!(
        cost.contains('N') && !cost.contains('P') && !cost.contains("STEPS"),
        "{cost}"
    );
}
