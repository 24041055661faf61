//! `augur profile` (native Open MPI) + `augur analyze` on a C program that keeps its sizes in a
//! struct: a setup routine stores them through a pointer (`g->nx = n`, `MPI_Comm_size(…,
//! &g->np)`), the relaxation reads them through a `const struct grid *`, the iteration loop
//! runs to `g.niter`. Both trip counts come from the source (`N/P - 1`, `NITER`), so T is
//! written in N and NITER (they were opaque members, and their trips were filled by regression).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stderr)]

mod common;
use common::{native_model, need};

const SOURCE: &str = r#"/* Sizes kept in a struct, set through a pointer by a setup routine and read through a
   const pointer by the relaxation: a ring exchange and relaxation per iteration. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

struct grid {
    int nx, niter, np, rank;
};

static void setup(struct grid *g, int n, int niter)
{
    MPI_Comm_size(MPI_COMM_WORLD, &g->np);
    MPI_Comm_rank(MPI_COMM_WORLD, &g->rank);
    g->nx = n;
    g->niter = niter;
}

static void relax(const struct grid *g, double *u)
{
    int i;
    for (i = 1; i < g->nx / g->np; i++)
        u[i] = 0.5 * (u[i] + u[i - 1]) + 1e-3;
}

int main(int argc, char **argv)
{
    struct grid g;
    int it, n, niter, left, right;
    double h = 0.0, *u;
    MPI_Init(&argc, &argv);
    n = atoi(argv[1]);
    niter = atoi(argv[2]);
    setup(&g, n, niter);
    u = calloc(g.nx / g.np + 1, sizeof(double));
    right = (g.rank + 1) % g.np;
    left = (g.rank + g.np - 1) % g.np;
    for (it = 0; it < g.niter; it++) {
        MPI_Sendrecv(u, 1, MPI_DOUBLE, right, 7, &h, 1, MPI_DOUBLE, left, 7, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        u[0] = h;
        relax(&g, u);
    }
    if (g.rank == 0)
        printf("%f\n", u[1]);
    free(u);
    MPI_Finalize();
    return 0;
}
"#;

#[test]
fn sizes_kept_in_a_struct_are_parameters_of_t() {
    need("mpicc");
    let tmp = tempfile::tempdir().unwrap();
    let m = native_model(
        tmp.path(),
        "grid.c",
        SOURCE,
        "1,2",
        &["N=100000,200000", "NITER=20,40"],
        &["{N}", "{NITER}"],
    );
    let t = m["t"].as_str().unwrap();
    let vars = symbolic::parse(t).unwrap().vars();
    assert!(vars.contains("N") && vars.contains("NITER"), "T = {t}");
    let trips: Vec<(&str, &str)> = m["quantities"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|q| q["what"] == "trip")
        .map(|q| (q["source"].as_str().unwrap(), q["origin"].as_str().unwrap()))
        .collect();
    assert_eq!(trips, [("N/P - 1", "source"), ("NITER", "source")], "{m:#}");
}
