//! `augur profile` + `augur analyze` under SMPI on a recursive V-cycle written the way
//! multigrid codes are: `cycle(l)` smooths its level, exchanges a halo whose size halves per
//! level, recurses to `l + 1` and smooths again; the coarsest level smooths longer and
//! returns early. The recursive call once cost nothing (T was one level's work and a
//! regression term stood in for the rest), and the statements after the early return were
//! counted on the coarsest level too (+25% on every run).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::print_stderr,
    clippy::panic
)]

mod common;
use common::smpi_model;

const VCYCLE: &str = r#"#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define NMAX 65536

static double u[NMAX + 2];
static int rank, nprocs, nlevels, up, down;

static void smooth(int n, int sweeps)
{
    for (int s = 0; s < sweeps; s++) {
        MPI_Sendrecv(&u[1], 1, MPI_DOUBLE, up, 1, &u[n + 1], 1, MPI_DOUBLE, down, 1,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (int i = 1; i <= n; i++)
            u[i] = 0.5 * u[i] + 0.25 * (u[i - 1] + u[i + 1]);
    }
}

static void cycle(int l, int n)
{
    if (l == nlevels - 1) {
        smooth(n, 8);
        return;
    }
    smooth(n, 2);
    cycle(l + 1, n / 2);
    smooth(n, 2);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    int n = atoi(argv[1]) / nprocs, ncycles = atoi(argv[2]);
    nlevels = atoi(argv[3]);
    up = rank > 0 ? rank - 1 : MPI_PROC_NULL;
    down = rank < nprocs - 1 ? rank + 1 : MPI_PROC_NULL;
    for (int i = 0; i < n + 2; i++)
        u[i] = (double)(rank * n + i);
    for (int c = 0; c < ncycles; c++)
        cycle(0, n);
    if (rank == 0)
        printf("vcycle %d %d %.6e\n", n * nprocs, nlevels, u[1]);
    MPI_Finalize();
    return 0;
}
"#;

/// The cycle runs NLEVELS times per call from main, counted in the runs; the coarsest level
/// smooths 8 times and nothing after its early return.
#[test]
fn a_recursive_cycle_costs_every_level() {
    let tmp = tempfile::tempdir().unwrap();
    let m = smpi_model(
        tmp.path(),
        "vcycle.c",
        VCYCLE,
        "2,4",
        &["N=65536,131072", "NLEVELS=2,4"],
        &["{N}", "20", "{NLEVELS}"],
    );
    let calls = m["quantities"]
        .as_array()
        .unwrap()
        .iter()
        .find(|q| q["what"] == "calls")
        .unwrap_or_else(|| panic!("{:#}", m["quantities"]));
    assert_eq!(calls["expr"], "NLEVELS", "{calls:#}");
    let warnings = m["warnings"].as_array().unwrap();
    assert!(
        warnings
            .iter()
            .any(|w| w.as_str().unwrap().contains("`cycle`")
                && w.as_str().unwrap().contains("recursive")),
        "{warnings:#?}"
    );
    let rows = m["validation"].as_array().expect("validation rows");
    assert_eq!(rows.len(), 8, "{:#}", m["validation"]);
    for r in rows {
        let ratio = r["fitted"].as_f64().unwrap() / r["measured"].as_f64().unwrap();
        assert!((0.85..1.18).contains(&ratio), "{r:#}");
    }
    // where the time goes counts every level too: the smoothing's and the halo's totals, in
    // `smooth` under the recursive `cycle`, are most of T at every run (they were counted
    // for the outside call and the recursive call site once each: 2 levels of NLEVELS)
    let total = |e: &serde_json::Value, r: &serde_json::Value| {
        let e = symbolic::parse(e.as_str().unwrap()).unwrap();
        e.eval(&|v| r["params"][v].as_f64()).unwrap()
    };
    let t = symbolic::parse(m["t"].as_str().unwrap()).unwrap();
    for r in rows {
        let at = t.eval(&|v| r["params"][v].as_f64()).unwrap();
        let phases: f64 = m["phases"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|p| p["kind"] != "collective")
            .map(|p| total(&p["total"], r))
            .sum();
        let compute: f64 = m["compute"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|c| c["total"].is_string())
            .map(|c| total(&c["total"], r))
            .sum();
        let share = (phases + compute) / at;
        assert!((0.7..1.05).contains(&share), "{share} of T at {r:#}");
    }
}
