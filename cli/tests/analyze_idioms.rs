//! `augur profile` + `augur analyze` under SMPI on a small program written the way application
//! codes are: the halo exchange in a helper routine (two Sendrecvs, MPI_PROC_NULL beyond the
//! ends), dot products through MPI_Allreduce in another helper, and work on rank 0 alone that
//! the others wait for at a broadcast. Each idiom once defeated the model (a 25-70x T, a
//! pipeline of depth 2, collectives missing from the report, rank-0 work divided by P).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::print_stderr,
    clippy::panic
)]

mod common;
use common::{native_model, need, smpi_model};

const SOURCE: &str = r#"#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define NMAX 4096

static double x[NMAX + 2], y[NMAX + 2];

static void exchange(double *v, int n, int up, int down)
{
    MPI_Sendrecv(&v[1], 1, MPI_DOUBLE, up, 1, &v[n + 1], 1, MPI_DOUBLE, down, 1,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Sendrecv(&v[n], 1, MPI_DOUBLE, down, 2, &v[0], 1, MPI_DOUBLE, up, 2,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

static double dot(const double *a, const double *b, int n)
{
    double local = 0.0, global = 0.0;
    int i;
    for (i = 1; i <= n; i++)
        local += a[i] * b[i];
    MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    return global;
}

int main(int argc, char **argv)
{
    int rank, nprocs, n, iters, it, i, j, up, down;
    double alpha = 0.0, extra;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    n = atoi(argv[1]) / nprocs;
    iters = atoi(argv[2]);
    up = rank > 0 ? rank - 1 : MPI_PROC_NULL;
    down = rank < nprocs - 1 ? rank + 1 : MPI_PROC_NULL;
    for (i = 0; i < n + 2; i++) {
        x[i] = (double)(rank * n + i) / (double)(n * nprocs);
        y[i] = 0.0;
    }
    for (it = 0; it < iters; it++) {
        exchange(x, n, up, down);
        for (i = 1; i <= n; i++)
            y[i] = 0.5 * x[i] + 0.25 * (x[i - 1] + x[i + 1]);
        alpha = dot(x, y, n);
        extra = 0.0;
        if (rank == 0) {
            for (j = 0; j < 20 * n * nprocs; j++)
                extra += 1e-9 * (double)(j % 7);
        }
        MPI_Bcast(&extra, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        for (i = 1; i <= n; i++)
            x[i] = y[i] / (alpha + 1.0) + extra;
    }
    if (rank == 0)
        printf("idioms %d %d %.6e\n", n * nprocs, iters, x[1]);
    MPI_Finalize();
    return 0;
}
"#;

#[test]
fn helper_routines_proc_null_ends_collectives_and_rank_zero_work() {
    let tmp = tempfile::tempdir().unwrap();
    let m = smpi_model(
        tmp.path(),
        "idioms.c",
        SOURCE,
        "2,4,8",
        &["N=1024,2048"],
        &["{N}", "200"],
    );
    let phases = m["phases"].as_array().unwrap();
    let of = |k: &str| phases.iter().filter(|p| p["kind"] == k).collect::<Vec<_>>();
    // the two Sendrecvs: two loosely synchronous exchanges, one message per rank each time
    // the helper runs (not every message of the run in one occurrence)
    let sync = of("synchronous");
    assert!(of("pipeline").is_empty(), "{phases:#?}");
    assert_eq!(sync.len(), 2, "{phases:#?}");
    for p in &sync {
        assert_eq!(p["msgs"], 1.0, "{p:#}");
    }
    // Allreduce and Bcast are phases of the report
    assert_eq!(of("collective").len(), 2, "{phases:#?}");
    // rank 0's loop (20·N iterations, every other rank waits for it at the Bcast) is charged
    // whole: with it divided by P the fitted T would miss the P = 8 runs by about 2x
    let rows = m["validation"].as_array().expect("validation rows");
    assert_eq!(rows.len(), 6, "{:#}", m["validation"]);
    common::assert_fits_runs(&m, 0.75..1.33, "");
}

const CART: &str = r#"#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int nprocs, rank, n, iters, it, i, nx, ny, up, down;
    int dims[2] = {0, 0}, periods[2] = {0, 0};
    double *row, *ghost, s = 0.0;
    MPI_Comm cart;
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    n = atoi(argv[1]);
    iters = atoi(argv[2]);
    MPI_Dims_create(nprocs, 2, dims);
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
    MPI_Comm_rank(cart, &rank);
    MPI_Cart_shift(cart, 0, 1, &up, &down);
    nx = n / dims[0];
    ny = n / dims[1];
    row = calloc((size_t)ny, sizeof(double));
    ghost = calloc((size_t)ny, sizeof(double));
    for (it = 0; it < iters; it++) {
        MPI_Sendrecv(row, ny, MPI_DOUBLE, down, 1, ghost, ny, MPI_DOUBLE, up, 1, cart,
                     MPI_STATUS_IGNORE);
        for (i = 0; i < ny; i++)
            row[i] = 0.5 * row[i] + 0.25 * ghost[i] + 1e-3 * (double)nx;
    }
    for (i = 0; i < ny; i++)
        s += row[i];
    if (rank == 0)
        printf("cart %d %d %.3e\n", n, iters, s);
    free(row);
    free(ghost);
    MPI_Finalize();
    return 0;
}
"#;

const HALO4: &str = r#"#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

/* A 2-D block halo on a Cart grid: four Isends and Irecvs to neighbours that may be
 * MPI_PROC_NULL, blocks of n/dims[k] with the remainder on the last row and column. */
int main(int argc, char **argv)
{
    int nprocs, rank, n, iters, it, i, j, nx, ny, nreq;
    int dims[2] = {0, 0}, periods[2] = {0, 0}, coords[2], north, south, west, east;
    double *u, *w, *e, *rw, *re;
    MPI_Comm cart;
    MPI_Request req[8];
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    n = atoi(argv[1]);
    iters = atoi(argv[2]);
    MPI_Dims_create(nprocs, 2, dims);
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
    MPI_Comm_rank(cart, &rank);
    MPI_Cart_coords(cart, rank, 2, coords);
    MPI_Cart_shift(cart, 0, 1, &north, &south);
    MPI_Cart_shift(cart, 1, 1, &west, &east);
    nx = n / dims[0];
    ny = n / dims[1];
    if (coords[0] == dims[0] - 1)
        nx += n % dims[0];
    if (coords[1] == dims[1] - 1)
        ny += n % dims[1];
    u = calloc((size_t)(nx + 2) * (ny + 2), sizeof(double));
    w = calloc((size_t)nx, sizeof(double));
    e = calloc((size_t)nx, sizeof(double));
    rw = calloc((size_t)nx, sizeof(double));
    re = calloc((size_t)nx, sizeof(double));
    for (it = 0; it < iters; it++) {
        nreq = 0;
        for (i = 0; i < nx; i++) {
            w[i] = u[(i + 1) * (ny + 2) + 1];
            e[i] = u[(i + 1) * (ny + 2) + ny];
        }
        MPI_Irecv(&u[1], ny, MPI_DOUBLE, north, 0, cart, &req[nreq++]);
        MPI_Irecv(&u[(nx + 1) * (ny + 2) + 1], ny, MPI_DOUBLE, south, 1, cart, &req[nreq++]);
        MPI_Irecv(rw, nx, MPI_DOUBLE, west, 2, cart, &req[nreq++]);
        MPI_Irecv(re, nx, MPI_DOUBLE, east, 3, cart, &req[nreq++]);
        MPI_Isend(&u[(ny + 2) + 1], ny, MPI_DOUBLE, north, 1, cart, &req[nreq++]);
        MPI_Isend(&u[nx * (ny + 2) + 1], ny, MPI_DOUBLE, south, 0, cart, &req[nreq++]);
        MPI_Isend(w, nx, MPI_DOUBLE, west, 3, cart, &req[nreq++]);
        MPI_Isend(e, nx, MPI_DOUBLE, east, 2, cart, &req[nreq++]);
        MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);
        for (i = 1; i <= nx; i++)
            for (j = 1; j <= ny; j++)
                u[i * (ny + 2) + j] = 0.5 * u[i * (ny + 2) + j] + 1e-3 * (rw[i - 1] + re[i - 1]);
    }
    if (rank == 0)
        printf("halo4 %d %d %.3e\n", n, iters, u[ny + 3]);
    free(u);
    free(w);
    free(e);
    free(rw);
    free(re);
    MPI_Finalize();
    return 0;
}
"#;

const FACE_LOOP: &str = r#"#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

/* Each face of a 2-D block in turn from one Isend in a loop over the dimensions: rows of
 * ny doubles to the north/south neighbour, columns of nx to the west/east. */
int main(int argc, char **argv)
{
    int nprocs, rank, n, iters, it, d, i, nr;
    int dims[2] = {0, 0}, periods[2] = {0, 0}, lo[2], hi[2], len[2];
    double *out[2], *in[2];
    MPI_Comm cart;
    MPI_Request req[8];
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    n = atoi(argv[1]);
    iters = atoi(argv[2]);
    MPI_Dims_create(nprocs, 2, dims);
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
    MPI_Comm_rank(cart, &rank);
    for (d = 0; d < 2; d++)
        MPI_Cart_shift(cart, d, 1, &lo[d], &hi[d]);
    len[0] = n / dims[1];
    len[1] = n / dims[0];
    for (d = 0; d < 2; d++) {
        out[d] = calloc((size_t)len[d], sizeof(double));
        in[d] = calloc((size_t)len[d], sizeof(double));
    }
    for (it = 0; it < iters; it++) {
        nr = 0;
        for (d = 0; d < 2; d++) {
            MPI_Irecv(in[d], len[d], MPI_DOUBLE, lo[d], d, cart, &req[nr++]);
            MPI_Isend(out[d], len[d], MPI_DOUBLE, hi[d], d, cart, &req[nr++]);
        }
        MPI_Waitall(nr, req, MPI_STATUSES_IGNORE);
        for (d = 0; d < 2; d++)
            for (i = 0; i < len[d]; i++)
                out[d][i] = 0.5 * out[d][i] + 0.25 * in[d][i];
    }
    if (rank == 0)
        printf("faces %d %d %.3e\n", n, iters, out[0][0]);
    MPI_Finalize();
    return 0;
}
"#;

/// Trial 13's 3-D halo sent every face from one Isend in a loop over the dimensions: the
/// exchange's size was the site's mean over its faces (and over the boundary ranks that send
/// fewer), no law the grid gives, fitted `15.49*N^2/P + 426.7`. The exchange waits for its
/// largest message: the site's largest, one of the grid's faces.
#[test]
fn a_site_sending_each_face_in_turn_is_sized_by_its_largest() {
    let tmp = tempfile::tempdir().unwrap();
    let m = smpi_model(
        tmp.path(),
        "faces.c",
        FACE_LOOP,
        "4,8,16",
        &["N=512,1024"],
        &["{N}", "10"],
    );
    let sizes: Vec<&serde_json::Value> = m["quantities"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|q| q["what"] == "bytes" && q["source"] != "8")
        .collect();
    assert_eq!(sizes.len(), 1, "{:#}", m["quantities"]);
    assert_eq!(sizes[0]["expr"], "8*N/smpi_dims(P, 2, 1)", "{:#}", sizes[0]);
}

/// Trial 12's Jacobi: its loops over a block's rows (`nx`, the remainder on the last row of
/// the grid: unresolved in the source) fitted `0.8047*N/sqrt(P)` while the messages of the same
/// rows were `8*N/smpi_dims(P, 2, 1)`; and the messages per rank, 1, 2, 3, 4 at P = 2..16 on
/// the grid, fitted `log2(P)`: 6 messages at P = 64 from four Isends. The loops take the grid's
/// extents where those give every traced count, and the messages stay within the four sends.
/// Its MPI_Cart_create, untraced, had its time (16 ms on the last rank at P = 64 under SMPI)
/// in no term of T: it is traced now, a collective charged at its traced time per call.
#[test]
fn a_cart_halos_loops_take_the_grid_and_its_messages_stay_four() {
    let tmp = tempfile::tempdir().unwrap();
    let m = smpi_model(
        tmp.path(),
        "halo4.c",
        HALO4,
        "2,4,8,16",
        &["N=256,512"],
        &["{N}", "10"],
    );
    let qs = m["quantities"].as_array().unwrap();
    let trip_at = |line: u64| {
        qs.iter()
            .find(|q| q["what"] == "trip" && q["line"] == line)
            .unwrap_or_else(|| panic!("no trip at line {line}: {qs:#?}"))
    };
    assert_eq!(
        trip_at(37)["expr"],
        "N/smpi_dims(P, 2, 0)",
        "{:#}",
        trip_at(37)
    );
    assert_eq!(
        trip_at(51)["expr"],
        "N/smpi_dims(P, 2, 1)",
        "{:#}",
        trip_at(51)
    );
    // the grid's creation is a collective of its own, charged at its traced time per call
    // (SMPI's MPI_Cart_create costs 10 ms at P = 256, unseen before it was traced)
    let phases = m["phases"].as_array().unwrap();
    assert!(
        phases
            .iter()
            .any(|p| p["kind"] == "collective" && p["lines"] == serde_json::json!([19])),
        "{phases:#?}"
    );
    let call = qs
        .iter()
        .find(|q| q["what"] == "call" && q["line"] == 19)
        .unwrap_or_else(|| panic!("no traced cost for MPI_Cart_create: {qs:#?}"));
    // a law in P alone: the grid's creation moves none of the program's data
    let per_call = symbolic::parse(call["expr"].as_str().unwrap()).unwrap();
    assert!(!per_call.contains_var("N"), "{call:#}");
    let at16 = per_call
        .eval(&|name| (name == "P").then_some(16.0).or(Some(512.0)))
        .unwrap();
    assert!(at16 > 0.0, "{call:#}");
    // messages per rank: a law (1, 2, 3, 4 at P = 2..16), never above the four sends
    let msgs: Vec<&serde_json::Value> = qs.iter().filter(|q| q["what"] == "msgs").collect();
    assert_eq!(msgs.len(), 1, "{qs:#?}");
    for q in msgs {
        let e = symbolic::parse(q["expr"].as_str().unwrap()).unwrap();
        for p in [64.0, 1024.0, 1e6] {
            let v = e
                .eval(&|name| (name == "P").then_some(p).or(Some(512.0)))
                .unwrap();
            assert!(v <= 4.0 + 1e-9, "{q:#} at P = {p}: {v}");
        }
    }
    // the Irecv/Isend/Waitall exchange costs what the sheet's nonblocking exchange measured:
    // under SMPI its four messages each way of 1 KiB take 4-5 µs, the transfers side by side
    // (this halo alone, simulated without computation: 4.3 µs per exchange at P = 16), where
    // four blocking sends and receives were charged 15 µs (trial 22, E1)
    the_halo_costs_one_nonblocking_exchange(phases);
}

/// The halo's exchange per occurrence at N = 512, P = 16 (1 KiB messages) under SMPI: 3 to
/// 7 µs, one nonblocking exchange of four messages each way, not four blocking receives'.
fn the_halo_costs_one_nonblocking_exchange(phases: &[serde_json::Value]) {
    let halo = phases
        .iter()
        .find(|p| p["kind"] == "synchronous")
        .unwrap_or_else(|| panic!("no exchange: {phases:#?}"));
    let cost = symbolic::parse(halo["cost"].as_str().unwrap())
        .unwrap()
        .eval(&|name| match name {
            "P" => Some(16.0),
            "N" => Some(512.0),
            _ => None,
        })
        .unwrap();
    assert!(
        (3e-6..7e-6).contains(&cost),
        "{cost} s per exchange: {halo:#}"
    );
}

/// A halo posting its receives and sending with blocking MPI_Sends to them costs the
/// nonblocking exchange too: under SMPI the sends are detached and the transfers run side by
/// side (4.3 µs per exchange at P = 16, as with Isends), where four blocking receives' cost
/// was 15 µs.
#[test]
fn posted_receives_with_blocking_sends_cost_the_nonblocking_exchange() {
    let tmp = tempfile::tempdir().unwrap();
    let mut src = HALO4.to_string();
    for (isend, send) in [
        (
            "MPI_Isend(&u[(ny + 2) + 1], ny, MPI_DOUBLE, north, 1, cart, &req[nreq++]);",
            "MPI_Send(&u[(ny + 2) + 1], ny, MPI_DOUBLE, north, 1, cart);",
        ),
        (
            "MPI_Isend(&u[nx * (ny + 2) + 1], ny, MPI_DOUBLE, south, 0, cart, &req[nreq++]);",
            "MPI_Send(&u[nx * (ny + 2) + 1], ny, MPI_DOUBLE, south, 0, cart);",
        ),
        (
            "MPI_Isend(w, nx, MPI_DOUBLE, west, 3, cart, &req[nreq++]);",
            "MPI_Send(w, nx, MPI_DOUBLE, west, 3, cart);",
        ),
        (
            "MPI_Isend(e, nx, MPI_DOUBLE, east, 2, cart, &req[nreq++]);",
            "MPI_Send(e, nx, MPI_DOUBLE, east, 2, cart);",
        ),
    ] {
        assert!(src.contains(isend), "{isend}");
        src = src.replace(isend, send);
    }
    let m = smpi_model(
        tmp.path(),
        "halo4s.c",
        &src,
        "2,4,8,16",
        &["N=256,512"],
        &["{N}", "10"],
    );
    let phases = m["phases"].as_array().unwrap();
    the_halo_costs_one_nonblocking_exchange(phases);
}

/// Sizes from MPI_Dims_create's grid: the message is n/dims[1] doubles, dims[1] the exact
/// extent of the grid the runs' library makes, and the report says which library's rule it
/// took. Under SMPI 9 ranks are a 9 x 1 grid (Open MPI's 3 x 3 gave 8*N/3 bytes at P = 9, so the
/// source's size failed the traces and a regression stood in).
#[test]
fn dims_create_grid_sizes_come_from_the_source_with_a_note() {
    let tmp = tempfile::tempdir().unwrap();
    let m = smpi_model(
        tmp.path(),
        "cart.c",
        CART,
        "4,9,16",
        &["N=512,1024"],
        &["{N}", "20"],
    );
    let bytes = m["quantities"]
        .as_array()
        .unwrap()
        .iter()
        .find(|q| q["what"] == "bytes" && q["source"] != "8")
        .unwrap_or_else(|| panic!("{:#}", m["quantities"]));
    assert_eq!(bytes["source"], "8*N/smpi_dims(P, 2, 1)", "{bytes:#}");
    assert_eq!(bytes["origin"], "source", "{bytes:#}");
    let warnings = m["warnings"].as_array().unwrap();
    assert!(
        warnings
            .iter()
            .any(|w| w.as_str().unwrap().contains("MPI_Dims_create")),
        "{warnings:#?}"
    );
}

const ENDS: &str = r#"#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int nprocs, rank, n, iters, it, j;
    double a = 0.0, b = 0.0;
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    n = atoi(argv[1]);
    iters = atoi(argv[2]);
    for (it = 0; it < iters; it++) {
        if (rank == 0) {
            for (j = 0; j < n; j++)
                a += 1e-9 * (double)(j % 5);
        }
        if (rank == nprocs - 1) {
            for (j = 0; j < n; j++)
                b += 1e-9 * (double)(j % 3);
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }
    if (rank == 0)
        printf("ends %d %d %.3e\n", n, iters, a + b);
    MPI_Finalize();
    return 0;
}
"#;

/// Work on the first and on the last rank, one after the other in the source, each rank doing
/// one of them: the barrier waits for the slower, max(A, B), not A + B (each IF's slower arm
/// added up would put the fitted T 2x above every run).
#[test]
fn consecutive_rank_ifs_cost_the_slowest_ranks_arms() {
    let tmp = tempfile::tempdir().unwrap();
    let m = smpi_model(
        tmp.path(),
        "ends.c",
        ENDS,
        "2,4,8",
        &["N=20000,40000"],
        &["{N}", "50"],
    );
    let rows = m["validation"].as_array().expect("validation rows");
    assert_eq!(rows.len(), 6, "{:#}", m["validation"]);
    common::assert_fits_runs(&m, 0.75..1.33, &format!("T = {}", m["t"]));
}

const SPLIT: &str = r#"#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int nprocs, rank, iters, it;
    double x = 1.0, y, row_sum = 0.0, all_sum = 0.0;
    MPI_Comm row;
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    iters = atoi(argv[1]);
    MPI_Comm_split(MPI_COMM_WORLD, rank / 2, rank, &row);
    for (it = 0; it < iters; it++) {
        MPI_Allreduce(&x, &row_sum, 1, MPI_DOUBLE, MPI_SUM, row);
        MPI_Allreduce(&row_sum, &all_sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        x = all_sum / (double)nprocs;
        for (y = 1.0; y > 1e-3; y *= 0.5)
            x += 1e-9;
    }
    if (rank == 0)
        printf("split %d %.3e\n", iters, x);
    MPI_Comm_free(&row);
    MPI_Finalize();
    return 0;
}
"#;

/// A collective on a communicator split into pairs spans 2 ranks, not P: its processors come
/// from the split's colour (`rank / 2`: `min(P, 2)`), which the traced sizes confirm. A loop whose count the source does not give
/// and that every run repeated the same number of times is warned about.
#[test]
fn a_collective_on_a_split_communicator_spans_its_group() {
    let tmp = tempfile::tempdir().unwrap();
    let m = smpi_model(
        tmp.path(),
        "split.c",
        SPLIT,
        "4,8,16",
        &["ITERS=50,100"],
        &["{ITERS}"],
    );
    let procs: Vec<(u64, &str)> = m["phases"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["kind"] == "collective")
        .map(|p| {
            (
                p["lines"][0].as_u64().unwrap(),
                p["processors"].as_str().unwrap(),
            )
        })
        .collect();
    // the split itself over MPI_COMM_WORLD, then the row's allreduce and the world's
    assert_eq!(
        procs,
        [(14, "P"), (16, "min(P, 2)"), (17, "P")],
        "{:#}",
        m["phases"]
    );
    // the halving loop runs 10 times in every run, a count the source does not give: said
    let warnings = m["warnings"].as_array().unwrap();
    assert!(
        warnings.iter().any(|w| w
            .as_str()
            .unwrap()
            .contains("unresolved in the source and the same in every run")),
        "{warnings:#?}"
    );
}

const SWITCH: &str = r#"#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int n, method, i, it;
    double s = 0.0;
    MPI_Init(&argc, &argv);
    n = atoi(argv[1]);
    method = atoi(argv[2]);
    for (it = 0; it < 40; it++) {
        switch (method) {
        case 1:
            for (i = 0; i < n; i++)
                s += 1e-9 * i;
            break;
        case 2:
            for (i = 0; i < 2 * n; i++)
                s += 1e-9 * i;
            break;
        default:
            break;
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }
    printf("%g\n", s);
    MPI_Finalize();
    return 0;
}
"#;

/// A switch on an input parameter: each case is a comparison of it, whose value per run is
/// the arm's probability (the traces have no arm counts for a switch): T follows METHOD and N.
#[test]
fn a_switch_on_a_parameter_weights_its_cases_by_the_source() {
    let tmp = tempfile::tempdir().unwrap();
    let m = smpi_model(
        tmp.path(),
        "sw.c",
        SWITCH,
        "2,4",
        // a case runs 0.5-2 ms: at 0.1 ms a loaded host's timer noise misfit a run by 28%
        &["N=500000,1000000", "METHOD=1,2"],
        &["{N}", "{METHOD}"],
    );
    let t = symbolic::parse(m["t"].as_str().unwrap()).unwrap();
    assert!(t.vars().contains("METHOD") && t.vars().contains("N"), "{t}");
    let branches: Vec<&serde_json::Value> = m["quantities"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|q| q["what"] == "branch")
        .collect();
    assert_eq!(branches.len(), 2, "{branches:#?}");
    // each case's weight is 1 at its own METHOD and 0 at the other, whatever the host's speed
    for b in branches {
        assert_eq!(b["origin"], "source", "{b:#}");
        let case = match b["source"].as_str().unwrap() {
            "METHOD == 1" => 1.0,
            "METHOD == 2" => 2.0,
            other => panic!("a branch {other}"),
        };
        let weight = symbolic::parse(b["expr"].as_str().unwrap()).unwrap();
        for method in [1.0, 2.0] {
            let w = weight
                .eval(&|name| (name == "METHOD").then_some(method))
                .unwrap();
            assert_eq!(
                w,
                f64::from(u8::from(method == case)),
                "{b:#} at METHOD={method}"
            );
        }
    }
    // a weight of 1/2 per case would miss METHOD=1 by +50% and METHOD=2 by -25%
    common::assert_fits_runs(&m, 0.75..1.33, &format!("T = {t}"));
}

const DRAINED: &str = r#"#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

/* A pipelined sweep that drains every iteration: rank r waits for r-1's boundary value of this
 * sweep, relaxes its block, passes its own on, then all ranks agree on a residual. */
int main(int argc, char **argv)
{
    int nprocs, rank, n, sweeps, s, i;
    double *u, left = 0.0, res, all;
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    n = atoi(argv[1]) / nprocs;
    sweeps = atoi(argv[2]);
    u = calloc((size_t)n + 1, sizeof(double));
    for (s = 0; s < sweeps; s++) {
        if (rank > 0)
            MPI_Recv(&left, 1, MPI_DOUBLE, rank - 1, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        res = 0.0;
        u[0] = 0.5 * (u[0] + left);
        for (i = 1; i < n; i++) {
            u[i] = 0.5 * (u[i] + u[i - 1]) + 1e-3;
            res += u[i];
        }
        if (rank < nprocs - 1)
            MPI_Send(&u[n - 1], 1, MPI_DOUBLE, rank + 1, 5, MPI_COMM_WORLD);
        MPI_Allreduce(&res, &all, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }
    if (rank == 0)
        printf("drained %d %d %.6e\n", n * nprocs, sweeps, all);
    free(u);
    MPI_Finalize();
    return 0;
}
"#;

/// Trial 4: a pipeline whose loop ends every iteration with an Allreduce drains and refills
/// every iteration: its fill is charged per sweep, not once (T stays flat in P at fixed N
/// instead of falling as 1/P; the model missed the runs by up to 86%).
#[test]
fn a_pipeline_that_drains_every_iteration_refills_every_iteration() {
    let tmp = tempfile::tempdir().unwrap();
    let m = smpi_model(
        tmp.path(),
        "drained.c",
        DRAINED,
        "2,4,8",
        &["N=65536,262144"],
        &["{N}", "20"],
    );
    a_pipeline_fitting_its_runs(&m, 6, 0.85..1.18);
}

/// A model with a pipeline phase whose every traced run's fitted/measured T is within `ratio`.
fn a_pipeline_fitting_its_runs(m: &serde_json::Value, runs: usize, ratio: std::ops::Range<f64>) {
    let phases = m["phases"].as_array().unwrap();
    assert!(
        phases.iter().any(|p| p["kind"] == "pipeline"),
        "{phases:#?}"
    );
    let rows = m["validation"].as_array().expect("validation rows");
    assert_eq!(rows.len(), runs, "{:#}", m["validation"]);
    for r in rows {
        let x = r["fitted"].as_f64().unwrap() / r["measured"].as_f64().unwrap();
        assert!(ratio.contains(&x), "{r:#}\nT = {}", m["t"]);
    }
}

const STREAMED: &str = r#"#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define NCOL 4096

/* A wavefront swept several times with nothing between the sweeps: rank 0 starts the next
 * sweep's first block while the last ranks still work on this one's, so the pipeline fills
 * once for the whole stream of blocks. */
static double u[NCOL + 1];

int main(int argc, char **argv)
{
    int nprocs, rank, nblk, sweeps, s, b, i, k;
    double edge[64];
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    nblk = atoi(argv[1]);
    sweeps = atoi(argv[2]);
    for (i = 0; i < 64; i++)
        edge[i] = 0.0;
    for (s = 0; s < sweeps; s++) {
        for (b = 0; b < nblk; b++) {
            if (rank > 0)
                MPI_Recv(edge, 64, MPI_DOUBLE, rank - 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            for (k = 0; k < 64; k++)
                for (i = 1; i <= NCOL; i++)
                    u[i] = 0.5 * (u[i] + u[i - 1]) + 1e-3 * edge[k];
            for (k = 0; k < 64; k++)
                edge[k] = u[NCOL] + k;
            if (rank < nprocs - 1)
                MPI_Send(edge, 64, MPI_DOUBLE, rank + 1, 3, MPI_COMM_WORLD);
        }
    }
    if (rank == nprocs - 1)
        printf("streamed %d %d %.6e\n", nblk, sweeps, u[NCOL]);
    MPI_Finalize();
    return 0;
}
"#;

/// Trial 15's wavefront: sweeps with nothing between them do not drain the pipeline, so its
/// fill is charged once per run, not per sweep (charged per sweep, T grew 4x from 1 to 4
/// sweeps where the runs grew 1.84x, and the optimal block size came out at a third).
#[test]
fn a_pipeline_streamed_through_sweeps_fills_once() {
    let tmp = tempfile::tempdir().unwrap();
    let m = smpi_model(
        tmp.path(),
        "streamed.c",
        STREAMED,
        "2,4,8",
        &["NBLK=8", "SWEEPS=1,4"],
        &["{NBLK}", "{SWEEPS}"],
    );
    // the fill, (P - 1) stages, charged 4 times at 4 sweeps of 8 blocks: +54% at P = 8
    a_pipeline_fitting_its_runs(&m, 6, 0.8..1.25);
}

const REVERSED: &str = r#"#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define NCOL 4096

/* A line solve swept several times: each sweep eliminates forward, rank 0 to P-1, block by
 * block, then substitutes back, P-1 to 0. The backward pipeline starts at the rank where the
 * forward one ends, and the next sweep's forward one at the rank where the backward one ends:
 * each sweep fills both. */
static double u[NCOL + 1];

static void relax(double *edge, double w)
{
    int i, k;
    for (k = 0; k < 32; k++)
        for (i = 1; i <= NCOL; i++)
            u[i] = 0.5 * (u[i] + u[i - 1]) + w * edge[k];
    for (k = 0; k < 64; k++)
        edge[k] = u[NCOL] + k;
}

int main(int argc, char **argv)
{
    int nprocs, rank, nblk, sweeps, s, b, i;
    double edge[64];
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    nblk = atoi(argv[1]);
    sweeps = atoi(argv[2]);
    for (i = 0; i < 64; i++)
        edge[i] = 0.0;
    for (s = 0; s < sweeps; s++) {
        for (b = 0; b < nblk; b++) {
            if (rank > 0)
                MPI_Recv(edge, 64, MPI_DOUBLE, rank - 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            relax(edge, 1e-3);
            if (rank < nprocs - 1)
                MPI_Send(edge, 64, MPI_DOUBLE, rank + 1, 3, MPI_COMM_WORLD);
        }
        for (b = 0; b < nblk; b++) {
            if (rank < nprocs - 1)
                MPI_Recv(edge, 64, MPI_DOUBLE, rank + 1, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            relax(edge, -1e-3);
            if (rank > 0)
                MPI_Send(edge, 64, MPI_DOUBLE, rank - 1, 4, MPI_COMM_WORLD);
        }
    }
    if (rank == 0)
        printf("reversed %d %d %.6e\n", nblk, sweeps, u[NCOL]);
    MPI_Finalize();
    return 0;
}
"#;

/// Trial 16's line solve: a sweep's forward pipeline and its backward one drain each other
/// (each starts where the other ends), so both fill every sweep (charged once per run, P = 64
/// was predicted 46-55% low).
#[test]
fn pipelines_that_reverse_each_other_fill_every_iteration() {
    let tmp = tempfile::tempdir().unwrap();
    let m = smpi_model(
        tmp.path(),
        "reversed.c",
        REVERSED,
        "2,4,8",
        &["NBLK=8", "SWEEPS=1,4"],
        &["{NBLK}", "{SWEEPS}"],
    );
    // the two fills, (P - 1) stages each, charged once at 4 sweeps of 8 blocks: -35% at P = 8
    a_pipeline_fitting_its_runs(&m, 6, 0.8..1.25);
}

/// `update(x, y, n)` rewrites `x` in place: called as `update(a, b, n)` after `a` was sent it
/// rewrites the sent buffer, as `update(b, a, n)` it does not.
fn helper_shift(call: &str) -> String {
    format!(
        r#"#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static double a[65536], b[65536];

static void update(double *x, const double *y, int m)
{{
    int i;
    for (i = 0; i < m; i++)
        x[i] = 0.75 * x[i] + 0.5 * y[i];
}}

int main(int argc, char **argv)
{{
    int nprocs, rank, n, iters, it;
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    n = atoi(argv[1]) / nprocs;
    iters = atoi(argv[2]);
    for (it = 0; it < iters; it++) {{
        if (rank < nprocs - 1)
            MPI_Send(a, n, MPI_DOUBLE, rank + 1, 7, MPI_COMM_WORLD);
        {call};
        if (rank > 0)
            MPI_Recv(b, n, MPI_DOUBLE, rank - 1, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }}
    if (rank == 0)
        printf("helper shift %d %.3e\n", n, a[0]);
    MPI_Finalize();
    return 0;
}}
"#
    )
}

/// Trial 4: the loop that rewrites the sent buffer sits in a helper routine (as in most real
/// codes). Its cost gets the sheet's rewrite floor through the call's arguments, as the same
/// loop written inline does; with the received array as the written argument it gets none.
#[test]
fn a_helper_routine_that_rewrites_the_sent_buffer_gets_the_floor() {
    need("mpicc");
    let floored = |call: &str| -> bool {
        let tmp = tempfile::tempdir().unwrap();
        let m = native_model(
            tmp.path(),
            "helper_shift.c",
            &helper_shift(call),
            "1,2",
            &["N=16384,65536"],
            &["{N}", "200"],
        );
        let update = m["compute"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["line"] == 10)
            .cloned()
            .expect("the helper's loop at line 10");
        update["cost"].as_str().unwrap().contains("max(")
    };
    assert!(floored("update(a, b, n)"));
    assert!(!floored("update(b, a, n)"));
}

const HALO2D: &str = r#"#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int nprocs, rank, n, iters, it, i, nx, ny, north, south, west, east, nreq;
    int dims[2] = {0, 0}, periods[2] = {1, 1};
    double *rows, *cols, *in, s = 0.0;
    MPI_Request req[8];
    MPI_Comm cart;
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    n = atoi(argv[1]);
    iters = atoi(argv[2]);
    MPI_Dims_create(nprocs, 2, dims);
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
    MPI_Comm_rank(cart, &rank);
    MPI_Cart_shift(cart, 0, 1, &north, &south);
    MPI_Cart_shift(cart, 1, 1, &west, &east);
    nx = n / dims[0];
    ny = n / dims[1];
    rows = calloc((size_t)ny, sizeof(double));
    cols = calloc((size_t)nx, sizeof(double));
    in = calloc((size_t)(2 * (nx + ny)), sizeof(double));
    for (it = 0; it < iters; it++) {
        nreq = 0;
        MPI_Irecv(in, ny, MPI_DOUBLE, north, 1, cart, &req[nreq++]);
        MPI_Irecv(in + ny, ny, MPI_DOUBLE, south, 2, cart, &req[nreq++]);
        MPI_Irecv(in + 2 * ny, nx, MPI_DOUBLE, west, 3, cart, &req[nreq++]);
        MPI_Irecv(in + 2 * ny + nx, nx, MPI_DOUBLE, east, 4, cart, &req[nreq++]);
        MPI_Isend(rows, ny, MPI_DOUBLE, south, 1, cart, &req[nreq++]);
        MPI_Isend(rows, ny, MPI_DOUBLE, north, 2, cart, &req[nreq++]);
        MPI_Isend(cols, nx, MPI_DOUBLE, east, 3, cart, &req[nreq++]);
        MPI_Isend(cols, nx, MPI_DOUBLE, west, 4, cart, &req[nreq++]);
        MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);
        for (i = 0; i < ny; i++)
            rows[i] = 0.5 * rows[i] + 0.25 * in[i];
        for (i = 0; i < nx; i++)
            cols[i] = 0.5 * cols[i] + 0.25 * in[2 * ny + i];
    }
    for (i = 0; i < ny; i++)
        s += rows[i];
    if (rank == 0)
        printf("halo %d %d %.3e\n", n, iters, s);
    free(rows);
    free(cols);
    free(in);
    MPI_Finalize();
    return 0;
}
"#;

/// The one point-to-point phase's size per message in `m`'s report.
fn the_size_per_message(m: &serde_json::Value) -> &serde_json::Value {
    let bytes: Vec<&serde_json::Value> = m["quantities"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|q| q["what"] == "bytes")
        .collect();
    assert_eq!(bytes.len(), 1, "{bytes:#?}");
    bytes[0]
}

/// A 2-D halo's four directions posted together: its rows are n/dims[1] doubles, its columns
/// n/dims[0], 2x apart on the 4 x 2 grid of P = 8. The exchange costs its larger message, as
/// the source gives both (one site's law scaled to the mean fitted 7.45*N/dims(P, 2, 1)).
#[test]
fn a_halo_of_rows_and_columns_costs_its_larger_message() {
    let tmp = tempfile::tempdir().unwrap();
    let m = smpi_model(
        tmp.path(),
        "halo2d.c",
        HALO2D,
        "2,8",
        &["N=1024,2048"],
        &["{N}", "20"],
    );
    let bytes = the_size_per_message(&m);
    assert_eq!(
        bytes["source"], "max(8*N/smpi_dims(P, 2, 0), 8*N/smpi_dims(P, 2, 1))",
        "{bytes:#}"
    );
    assert_eq!(bytes["origin"], "source", "{bytes:#}");
}

const FACES3D: &str = r#"#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int nprocs, rank, n, iters, it, i, lo, hi, nx, ny, nz;
    int dims[3] = {0, 0, 0}, periods[3] = {1, 1, 1};
    double *u, s = 0.0;
    MPI_Comm cart;
    MPI_Datatype face;
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    n = atoi(argv[1]);
    iters = atoi(argv[2]);
    MPI_Dims_create(nprocs, 3, dims);
    MPI_Cart_create(MPI_COMM_WORLD, 3, dims, periods, 0, &cart);
    MPI_Comm_rank(cart, &rank);
    MPI_Cart_shift(cart, 0, 1, &lo, &hi);
    nx = n / dims[0];
    ny = n / dims[1];
    nz = n / dims[2];
    int len[1] = {ny * nz}, disp[1] = {0};
    MPI_Type_indexed(1, len, disp, MPI_DOUBLE, &face);
    MPI_Type_commit(&face);
    u = calloc((size_t)((nx + 2) * ny * nz), sizeof(double));
    for (it = 0; it < iters; it++) {
        MPI_Sendrecv(u + ny * nz, 1, face, hi, 1, u, 1, face, lo, 1, cart, MPI_STATUS_IGNORE);
        for (i = ny * nz; i < (nx + 1) * ny * nz; i++)
            u[i] = 0.5 * u[i] + 1e-3;
    }
    for (i = 0; i < ny * nz; i++)
        s += u[i];
    if (rank == 0)
        printf("faces %d %d %.3e\n", n, iters, s);
    MPI_Type_free(&face);
    free(u);
    MPI_Finalize();
    return 0;
}
"#;

/// A face sent as an indexed type augur does not size (a subarray it does, since trial 26):
/// the traced sizes give it, and among
/// the hypotheses the source's 3-D grid offers, the face n²/(dims[1]·dims[2]) fits every run
/// exactly (a free search made a six-level law of N, log2 N and P of it), with a warning that
/// names the datatype; and no advice to classify an exchange of Sendrecvs.
#[test]
fn an_unsized_face_takes_the_grids_face_with_a_warning() {
    let tmp = tempfile::tempdir().unwrap();
    let m = smpi_model(
        tmp.path(),
        "faces.c",
        FACES3D,
        "2,4,8",
        &["N=24,48"],
        &["{N}", "5"],
    );
    let bytes = the_size_per_message(&m);
    assert_eq!(
        bytes["expr"], "8*N^2/(smpi_dims(P, 3, 1)*smpi_dims(P, 3, 2))",
        "{bytes:#}"
    );
    let warnings = m["warnings"].as_array().unwrap();
    assert!(
        warnings.iter().any(|w| {
            let w = w.as_str().unwrap();
            w.contains("size per message") && w.contains("derived datatype `face`")
        }),
        "{warnings:#?}"
    );
    // the x extent is 2 in every run, but a Sendrecv posts its send with its receive: no
    // question of pipeline or not to ask the user to profile for
    assert!(
        !warnings
            .iter()
            .any(|w| w.as_str().unwrap().contains("cannot be told")),
        "{warnings:#?}"
    );
}

const TILES: &str = r#"#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int nprocs, rank, n, nb, l0, l, i, hi;
    double s = 0.0, *a;
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    n = atoi(argv[1]);
    nb = atoi(argv[2]);
    a = calloc((size_t)n, sizeof(double));
    for (l0 = 0; l0 < n; l0 += nb) {
        hi = l0 + nb < n ? l0 + nb : n;
        for (l = l0; l < hi; l++)
            for (i = 0; i < 2000; i++)
                a[l] += 1e-9 * (double)(i % 7);
        MPI_Allreduce(MPI_IN_PLACE, &s, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }
    if (rank == 0)
        printf("tile %d %d %.3e\n", n, nb, a[0] + s);
    free(a);
    MPI_Finalize();
    return 0;
}
"#;

/// Tiles of NB lines, the last one short: the tile loop's count is in the enclosing loop's
/// variable (`min(N, NB + l0) - l0`), and its mean per entry is apt's total over the tiles
/// divided by their count, exact on every run (it was fitted by regression).
#[test]
fn a_tile_loops_mean_trip_comes_from_the_source_total() {
    let tmp = tempfile::tempdir().unwrap();
    let m = smpi_model(
        tmp.path(),
        "tile.c",
        TILES,
        "2",
        &["N=100,250", "NB=8,16"],
        &["{N}", "{NB}"],
    );
    let trip = m["quantities"]
        .as_array()
        .unwrap()
        .iter()
        .find(|q| q["what"] == "trip" && q["line"] == 17)
        .unwrap_or_else(|| panic!("{:#}", m["quantities"]));
    assert_eq!(trip["origin"], "source", "{trip:#}");
    assert_eq!(trip["expr"], "N/(floor(N/NB - 1/NB) + 1)", "{trip:#}");
}

const FFT: &str = r#"#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <math.h>

int main(int argc, char **argv)
{
    int n, nloc, len, s, k, rank, nprocs;
    double *re, *im, sum = 0, tot;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    n = atoi(argv[1]);
    nloc = n / nprocs;
    re = malloc(nloc * sizeof(double));
    im = malloc(nloc * sizeof(double));
    for (k = 0; k < nloc; k++) {
        re[k] = (double)(k % 7);
        im[k] = 0.0;
    }
    for (len = 2; len <= nloc; len <<= 1) {
        double ang = 2 * M_PI / len;
        for (s = 0; s < nloc; s += len) {
            for (k = 0; k < len / 2; k++) {
                double wr = cos(ang * k), wi = sin(ang * k);
                double ur = re[s + k], ui = im[s + k];
                double vr = re[s + k + len / 2] * wr - im[s + k + len / 2] * wi;
                double vi = re[s + k + len / 2] * wi + im[s + k + len / 2] * wr;
                re[s + k] = ur + vr;
                im[s + k] = ui + vi;
                re[s + k + len / 2] = ur - vr;
                im[s + k + len / 2] = ui - vi;
            }
        }
    }
    for (k = 0; k < nloc; k++)
        sum += re[k] * re[k] + im[k] * im[k];
    MPI_Allreduce(&sum, &tot, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("fft %d %.6e\n", n, tot);
    MPI_Finalize();
    return 0;
}
"#;

/// Trial 27's FFT: the butterflies nested in `for (len = 2; len <= nloc; len <<= 1)` were
/// unresolved and fitted `0.6791*N^(1/3) + 3.611`. Their work comes from the source, summed
/// over the levels, and the nested loops' trips per entry are the source's means (the
/// butterflies' weighed by the blocks of each level).
#[test]
fn an_ffts_levels_are_summed_from_the_source() {
    let tmp = tempfile::tempdir().unwrap();
    let m = smpi_model(tmp.path(), "fft.c", FFT, "2,4", &["N=4096,16384"], &["{N}"]);
    let site = m["compute"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["line"] == 21)
        .unwrap_or_else(|| panic!("{:#}", m["compute"]));
    assert_eq!(site["work"], "0.5*N*floor(log2(N) - log2(P))/P", "{site:#}");
    for (line, expr) in [
        (
            23,
            "N/(P*floor(log2(N) - log2(P))) - 1/floor(log2(N) - log2(P))",
        ),
        (24, "0.5*N*floor(log2(N) - log2(P))/(N - P)"),
    ] {
        let trip = m["quantities"]
            .as_array()
            .unwrap()
            .iter()
            .find(|q| q["what"] == "trip" && q["line"] == line)
            .unwrap_or_else(|| panic!("{:#}", m["quantities"]));
        assert_eq!(trip["origin"], "source", "{trip:#}");
        assert_eq!(trip["expr"], expr, "{trip:#}");
    }
}

const COLD: &str = r#"#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

/* A pipelined sweep over NB blocks whose work array is first touched by the first block:
 * every stage's first block runs cold (page faults), the later ones warm. */
int main(int argc, char **argv)
{
    int nprocs, rank, n, nb, b, i;
    double *a, left = 0.0;
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    n = atoi(argv[1]);
    nb = atoi(argv[2]);
    a = malloc((size_t)n * sizeof(double));
    for (b = 0; b < nb; b++) {
        if (rank > 0)
            MPI_Recv(&left, 1, MPI_DOUBLE, rank - 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (i = 0; i < n; i++)
            a[i] = (b == 0 ? 0.0 : a[i]) * 0.5 + left + 1e-3 * i;
        if (rank < nprocs - 1)
            MPI_Send(&a[n - 1], 1, MPI_DOUBLE, rank + 1, 3, MPI_COMM_WORLD);
    }
    if (rank == nprocs - 1)
        printf("cold %d %d %.6e\n", n, nb, a[n - 1]);
    free(a);
    MPI_Finalize();
    return 0;
}
"#;

/// Trial 5's wavefront: a pipeline's fill waits for every stage's first block, which runs
/// cold where it first touches its data (596 µs against 372 µs); charged at the steady stage
/// the K = 16 runs were −14..−45%. The first block's excess is measured and charged once.
#[test]
fn a_pipelines_cold_first_blocks_are_charged_to_its_fill() {
    let tmp = tempfile::tempdir().unwrap();
    let m = smpi_model(
        tmp.path(),
        "cold.c",
        COLD,
        "2,4,8",
        &["N=400000,800000"],
        &["{N}", "6"],
    );
    let cold = quantities_of(&m, "cold");
    assert_eq!(cold.len(), 1, "{:#}", m["quantities"]);
    let t = m["t"].as_str().unwrap();
    // the runs' fitted/measured on an idle host: 0.91..1.02 with the cold first blocks,
    // 0.83..1.07 at the steady stage cost; under the whole suite's load one run alone has
    // fallen to 0.76 (CI, stop 15: a loaded host slows that run, not the model). The cold
    // term is what `cold.len()` checks; the ratios check a sane model: the middle run within
    // 18% and none as far off as trial 5's uncharged fill (0.55 at K = 16); stop 17 saw it
    // fail once more inside this file's whole run (its other tests load the host meanwhile)
    // and pass alone and in the next whole run
    let mut ratios: Vec<f64> = m["validation"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["fitted"].as_f64().unwrap() / r["measured"].as_f64().unwrap())
        .collect();
    ratios.sort_by(f64::total_cmp);
    let median = ratios[ratios.len() / 2];
    assert!(
        (0.82..1.22).contains(&median) && ratios.iter().all(|r| (0.6..1.6).contains(r)),
        "{ratios:?}\nT = {t}"
    );
}

const PAGE_ROWS: &str = r#"#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define W 512

/* N/P rows of W doubles (a 4 KiB page each), calloc'd: a pipeline streams blocks of NB
 * columns down the ranks, and the first block touches every row's page once. */
int main(int argc, char **argv)
{
    int nprocs, rank, n, nb, rows, b, i, j;
    double *a, left[W] = {0};
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    n = atoi(argv[1]);
    nb = atoi(argv[2]);
    rows = n / nprocs;
    a = calloc((size_t)rows * W, sizeof(double));
    for (b = 0; b < W / nb; b++) {
        if (rank > 0)
            MPI_Recv(left, nb, MPI_DOUBLE, rank - 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (i = 0; i < rows; i++)
            for (j = b * nb; j < (b + 1) * nb; j++)
                a[(size_t)i * W + j] = a[(size_t)i * W + j] * 0.5 + left[j - b * nb] + 1e-3 * i;
        if (rank < nprocs - 1)
            MPI_Send(&a[(size_t)(rows - 1) * W + b * nb], nb, MPI_DOUBLE, rank + 1, 3,
                     MPI_COMM_WORLD);
    }
    if (rank == nprocs - 1)
        printf("page %d %d %.6e\n", n, nb, a[(size_t)(rows - 1) * W + W - 1]);
    free(a);
    MPI_Finalize();
    return 0;
}
"#;

/// Trial 21's pipelined Thomas solver: each stage's first block touches a page per row (N/P
/// pages, 16x the later blocks here) whatever the block's width NB, and the stage works on
/// N·NB/P. The share of the whole stage did not explain the excesses, so nothing was charged
/// and no one was told (P = 64 −59..−70%; here the residual took 7e-4·P and P = 32 was
/// +109..+125%). The excess is a share of the rows, charged to the fill.
#[test]
fn a_first_block_touching_a_page_per_row_is_charged_by_the_rows() {
    let tmp = tempfile::tempdir().unwrap();
    let m = smpi_model(
        tmp.path(),
        "page.c",
        PAGE_ROWS,
        "2,4,8",
        &["N=4096,8192", "NB=16,64"],
        &["{N}", "{NB}"],
    );
    let cold = quantities_of(&m, "cold");
    assert_eq!(cold.len(), 1, "{:#}", m["quantities"]);
    let e = symbolic::parse(cold[0]["expr"].as_str().unwrap()).unwrap();
    let at = |nb: f64, p: f64| {
        e.eval(&|v| match v {
            "N" => Some(4096.0),
            "NB" => Some(nb),
            "P" => Some(p),
            _ => None,
        })
        .unwrap()
    };
    // the rows' pages, not the block's width
    assert!((at(16.0, 4.0) / at(64.0, 4.0) - 1.0).abs() < 1e-9, "{e}");
    assert!((at(16.0, 8.0) / at(16.0, 4.0) - 0.5).abs() < 1e-9, "{e}");
    let warnings = m["warnings"].as_array().unwrap();
    assert!(
        !warnings
            .iter()
            .any(|w| w.as_str().unwrap().contains("first block runs")),
        "{warnings:#?}"
    );
}

const COMM_SPLIT: &str = r#"#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

/* A setup routine splits the ranks into two communicators, the work reduces over one. */
typedef struct { int rank, p; MPI_Comm row; } pg_t;

static void setup(pg_t *g)
{
    MPI_Comm_size(MPI_COMM_WORLD, &g->p);
    MPI_Comm_rank(MPI_COMM_WORLD, &g->rank);
    MPI_Comm_split(MPI_COMM_WORLD, g->rank % 2, g->rank, &g->row);
}

int main(int argc, char **argv)
{
    pg_t g;
    int n, i;
    double s = 0, t;
    MPI_Init(&argc, &argv);
    n = atoi(argv[1]);
    setup(&g);
    for (i = 0; i < n; i++)
        s += 1.0 / (i + 1.0);
    MPI_Allreduce(&s, &t, 1, MPI_DOUBLE, MPI_SUM, g.row);
    if (g.rank == 0)
        printf("%g\n", t);
    MPI_Finalize();
    return 0;
}
"#;

/// Trial 22's SUMMA: a communicator's creation, a collective the machine sheet does not list,
/// was costed from its measured time per call and listed in the phase table with its share of
/// T, and left out of T (a constant took its place).
#[test]
fn a_collective_the_sheet_does_not_list_is_in_t_at_its_measured_cost() {
    let tmp = tempfile::tempdir().unwrap();
    let m = smpi_model(
        tmp.path(),
        "split.c",
        COMM_SPLIT,
        "2,4,8",
        &["N=100000,200000"],
        &["{N}"],
    );
    let split = m["phases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["lines"] == serde_json::json!([12]))
        .unwrap_or_else(|| panic!("{:#}", m["phases"]));
    // every term of the phase's total is in T (its constant among T's others): T's term of
    // each monomial at least the phase's, its constant at least the phase's
    let cost = symbolic::parse(split["total"].as_str().unwrap()).unwrap();
    let t = symbolic::parse(m["t"].as_str().unwrap()).unwrap();
    assert!(!cost.is_zero(), "{:#}", split);
    let coef_in = |e: &symbolic::Expr, mono: &symbolic::Expr| -> f64 {
        e.terms()
            .iter()
            .filter(|x| x.monomial() == *mono)
            .map(symbolic::Term::coef)
            .sum()
    };
    for term in cost.terms() {
        let mono = term.monomial();
        assert!(
            coef_in(&t, &mono) >= term.coef() * (1.0 - 1e-9),
            "{cost}'s {mono} not in T = {t}"
        );
    }
}

/// The model's fitted quantities of one kind (`cold`, `msgs`, …).
fn quantities_of<'a>(m: &'a serde_json::Value, what: &str) -> Vec<&'a serde_json::Value> {
    m["quantities"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|q| q["what"] == what)
        .collect()
}

const FIRST_TOUCH: &str = r#"#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

/* K steps over a calloc'd array of N/P doubles, each ended by an allreduce: the first step
 * first-touches the array (a page fault per 4 KiB page), the later ones do not. */
int main(int argc, char **argv)
{
    int nprocs, rank, n, k, it, i;
    double *a, local, sum = 0.0;
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    n = atoi(argv[1]) / nprocs;
    k = atoi(argv[2]);
    a = calloc((size_t)n, sizeof(double));
    for (it = 0; it < k; it++) {
        for (i = 0; i < n; i++)
            a[i] = a[i] * 0.5 + 1e-3 * i;
        local = a[n - 1];
        MPI_Allreduce(&local, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }
    if (rank == 0)
        printf("touch %d %d %.6e\n", n, k, sum);
    free(a);
    MPI_Finalize();
    return 0;
}
"#;

/// Trial 11 (ft, cg): a computation whose first entry first-touches its data costs several
/// times the later ones; averaged into the cost per entry it was charged K times, and the
/// model missed K = 2 by −79% and K = 200 by +95%. The first entry's excess is measured and
/// charged once per run, the cost per entry fitted to the entries after it.
#[test]
fn a_cold_first_entry_is_charged_once_not_per_entry() {
    let tmp = tempfile::tempdir().unwrap();
    let m = smpi_model(
        tmp.path(),
        "touch.c",
        FIRST_TOUCH,
        "2,4",
        &["N=800000", "K=2,8,32"],
        &["{N}", "{K}"],
    );
    let cold: Vec<&serde_json::Value> = m["quantities"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|q| q["what"] == "cold" && q["line"] == 18)
        .collect();
    assert_eq!(cold.len(), 1, "{:#}", m["quantities"]);
    // the first touch costs more than a steady pass: the excess charged once is above the cost
    // per entry, both measured in the same runs (a ratio a loaded host moves little)
    let per_entry = m["compute"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["line"] == 18)
        .unwrap_or_else(|| panic!("{:#}", m["compute"]));
    let at = |e: &serde_json::Value, p: f64| {
        symbolic::parse(e.as_str().unwrap())
            .unwrap()
            .eval(&|v| match v {
                "N" => Some(800000.0),
                "P" => Some(p),
                _ => Some(8.0),
            })
            .unwrap()
    };
    for p in [2.0, 4.0] {
        let (excess, steady) = (at(&cold[0]["expr"], p), at(&per_entry["cost"], p));
        assert!(
            excess > steady,
            "P = {p}: cold {excess:e} s, per entry {steady:e} s"
        );
    }
    let t = m["t"].as_str().unwrap();
    // K = 2 and K = 32 both within reach: 0.98..1.02 on an idle host; with the suite's other
    // tests beside it four runs at once fell to 0.70..0.75 (host load, not the model); charged
    // per entry, the fitted T was 0.28 of the K = 2 runs and 1.22 of the K = 32 runs
    let ratios: Vec<(String, f64)> = m["validation"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let x = r["fitted"].as_f64().unwrap() / r["measured"].as_f64().unwrap();
            (r["config"].as_str().unwrap().to_string(), x)
        })
        .collect();
    eprintln!("fitted/measured: {ratios:?}");
    assert!(
        ratios.iter().all(|(_, r)| (0.5..2.0).contains(r)),
        "{ratios:?}\nT = {t}"
    );
}

const IMBALANCED: &str = r#"#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

/* Rank-dependent load: rank r does (1 + r % 3) units of n, then all meet at a barrier. */
int main(int argc, char **argv)
{
    int rank, n, it, i, m;
    double s = 0.0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    n = atoi(argv[1]);
    m = n + (n * rank) % (3 * n);
    for (it = 0; it < 10; it++) {
        for (i = 0; i < m; i++)
            s += 1e-9 * i;
        MPI_Barrier(MPI_COMM_WORLD);
    }
    printf("%g\n", s);
    MPI_Finalize();
    return 0;
}
"#;

/// Trial 9: a work the source gives in the rank (`N + mod(N*rank, 3*N)`) was fitted at its
/// mean over the ranks, the slowest rank's excess became a log2(P) law of the rate, and nothing
/// named the imbalance. The work is the slowest rank's, reported, with a warning.
#[test]
fn a_rank_dependent_work_is_the_slowest_ranks_with_a_warning() {
    let tmp = tempfile::tempdir().unwrap();
    let m = smpi_model(
        tmp.path(),
        "imb.c",
        IMBALANCED,
        "2,4,8",
        &["N=200000,400000"],
        &["{N}"],
    );
    let work: Vec<&serde_json::Value> = m["quantities"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|q| q["what"] == "work")
        .collect();
    assert!(
        work.iter().any(|q| q["source"]
            .as_str()
            .unwrap()
            .ends_with("the most over rank = 0..P-1")),
        "{work:#?}"
    );
    let warnings = m["warnings"].as_array().unwrap();
    assert!(
        warnings.iter().any(|w| {
            let w = w.as_str().unwrap();
            w.contains("its work depends on the rank") && w.contains("the slowest rank does")
        }),
        "{warnings:#?}"
    );
}

const NEIGHBOUR_LIST: &str = r#"#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

/* A 2-D halo posted in loops over the neighbours a rank found on its Cart grid: 1 to 4 of
 * them, by where the rank sits. */
int main(int argc, char **argv)
{
    int nprocs, rank, n, iters, it, i, k, lo, hi, nnbr = 0, nreq;
    int dims[2] = {0, 0}, periods[2] = {0, 0}, nbr[4];
    double *u, *halo;
    MPI_Comm cart;
    MPI_Request req[8];
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    n = atoi(argv[1]);
    iters = atoi(argv[2]);
    MPI_Dims_create(nprocs, 2, dims);
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
    MPI_Comm_rank(cart, &rank);
    MPI_Cart_shift(cart, 0, 1, &lo, &hi);
    if (lo != MPI_PROC_NULL) nbr[nnbr++] = lo;
    if (hi != MPI_PROC_NULL) nbr[nnbr++] = hi;
    MPI_Cart_shift(cart, 1, 1, &lo, &hi);
    if (lo != MPI_PROC_NULL) nbr[nnbr++] = lo;
    if (hi != MPI_PROC_NULL) nbr[nnbr++] = hi;
    u = calloc((size_t)n, sizeof(double));
    halo = calloc((size_t)4 * n, sizeof(double));
    for (it = 0; it < iters; it++) {
        nreq = 0;
        for (k = 0; k < nnbr; k++)
            MPI_Irecv(&halo[k * n], n, MPI_DOUBLE, nbr[k], 0, cart, &req[nreq++]);
        for (k = 0; k < nnbr; k++)
            MPI_Isend(u, n, MPI_DOUBLE, nbr[k], 0, cart, &req[nreq++]);
        MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);
        for (i = 0; i < n; i++)
            u[i] = 0.5 * u[i] + 0.125 * (halo[i] + halo[n + i]);
    }
    if (rank == 0)
        printf("nbr %d %.3e\n", nnbr, u[0]);
    MPI_Finalize();
    return 0;
}
"#;

/// Trial 14's Jacobi found its neighbours in a list (`if (lo != MPI_PROC_NULL) nbr[n++] =
/// lo;`) and posted its halo in loops over it: their trip counts (1, 2, 2.5, 3 on average at P
/// = 2..16) and the messages per rank (1, 2, 3, 4) were fitted as laws of P alone, log2(P),
/// 0.8054*sqrt(P), 10 to 26 neighbours at P = 1024. Both are the grid's neighbour counts, exact
/// at every traced P and bounded beyond: the mean over the ranks, and the most a rank has.
#[test]
fn a_loop_over_a_ranks_grid_neighbours_counts_them_on_the_grid() {
    let tmp = tempfile::tempdir().unwrap();
    let m = smpi_model(
        tmp.path(),
        "nbrlist.c",
        NEIGHBOUR_LIST,
        "2,4,8,16",
        &["N=512"],
        &["{N}", "10"],
    );
    let qs = m["quantities"].as_array().unwrap();
    let law = |what: &str, line: u64| {
        let q = qs
            .iter()
            .find(|q| q["what"] == what && q["line"] == line)
            .unwrap_or_else(|| panic!("no {what} at line {line}: {qs:#?}"));
        (
            symbolic::parse(q["expr"].as_str().unwrap()).unwrap(),
            q.clone(),
        )
    };
    let at = |e: &symbolic::Expr, p: f64| {
        e.eval(&|name| (name == "P").then_some(p).or(Some(512.0)))
            .unwrap()
    };
    // SimGrid's grids: 2 x 1, 2 x 2, 4 x 2, 4 x 4, then 8 x 8 and 32 x 32
    let (trip, q) = law("trip", 31);
    for (p, mean) in [
        (2.0, 1.0),
        (4.0, 2.0),
        (8.0, 2.5),
        (16.0, 3.0),
        (64.0, 3.5),
        (1024.0, 3.875),
    ] {
        assert!((at(&trip, p) - mean).abs() < 1e-9, "P = {p}: {q:#}");
    }
    let (msgs, q) = law("msgs", 32);
    for (p, most) in [
        (2.0, 1.0),
        (4.0, 2.0),
        (8.0, 3.0),
        (16.0, 4.0),
        (64.0, 4.0),
        (1024.0, 4.0),
    ] {
        assert!((at(&msgs, p) - most).abs() < 1e-9, "P = {p}: {q:#}");
    }
}

const TREE_REDUCE: &str = r#"#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define NV 8

/* A reduction to rank 0 written by hand over a binomial tree: a rank with bit `mask` set
 * sends its partial sums to rank - mask and is done; the others add what rank + mask sends. */
int main(int argc, char **argv)
{
    int nprocs, rank, iters, it, mask, i;
    double r[NV], tmp[NV];
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    iters = atoi(argv[1]);
    for (it = 0; it < iters; it++) {
        for (i = 0; i < NV; i++)
            r[i] = rank + i + it;
        for (mask = 1; mask < nprocs; mask *= 2) {
            if (rank & mask) {
                MPI_Send(r, NV, MPI_DOUBLE, rank - mask, 7, MPI_COMM_WORLD);
                break;
            }
            if (rank + mask < nprocs) {
                MPI_Recv(tmp, NV, MPI_DOUBLE, rank + mask, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                for (i = 0; i < NV; i++)
                    r[i] += tmp[i];
            }
        }
    }
    if (rank == 0)
        printf("sum %.3e\n", r[0]);
    MPI_Finalize();
    return 0;
}
"#;

/// Trial 14's hand-written binomial tree: its longest chain of messages, 1, 1, 2 at P = 2..4
/// (a rank receives from its subtree before it sends up), was fitted `0.4118*P`. It is
/// floor(log2(P)), exact at every P, powers of two or not.
#[test]
fn a_binomial_trees_depth_is_its_longest_chain() {
    let tmp = tempfile::tempdir().unwrap();
    let m = smpi_model(
        tmp.path(),
        "tree.c",
        TREE_REDUCE,
        "2,3,4,6,8",
        &["ITERS=10"],
        &["{ITERS}"],
    );
    let phases = m["phases"].as_array().unwrap();
    let tree: Vec<&serde_json::Value> = phases.iter().filter(|p| p["kind"] == "pipeline").collect();
    assert_eq!(tree.len(), 1, "{phases:#?}");
    assert_eq!(tree[0]["depth"], "floor(log2(P))", "{:#}", tree[0]);
}

const FOLD: &str = r#"#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

/* The fold before a recursive doubling: each odd rank hands its block to the even rank below
 * it, one way, every step. */
int main(int argc, char **argv)
{
    int nprocs, rank, n, steps, s, i;
    double *x;
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    n = atoi(argv[1]);
    steps = atoi(argv[2]);
    x = calloc((size_t)n, sizeof(double));
    for (s = 0; s < steps; s++) {
        for (i = 0; i < n; i++)
            x[i] += 1.0;
        if (rank % 2 == 1)
            MPI_Send(x, n, MPI_DOUBLE, rank - 1, 7, MPI_COMM_WORLD);
        else if (rank + 1 < nprocs)
            MPI_Recv(x, n, MPI_DOUBLE, rank + 1, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    if (rank == 0)
        printf("fold %d %.6e\n", n, x[0]);
    free(x);
    MPI_Finalize();
    return 0;
}
"#;

/// Trial 17: a one-way pairwise exchange traced at P = 4 and 6 is pairwise by construction;
/// analyze says so rather than ask for runs at P >= 3 it already has.
#[test]
fn a_pairwise_phase_traced_beyond_two_ranks_is_named_pairwise() {
    let tmp = tempfile::tempdir().unwrap();
    let m = smpi_model(
        tmp.path(),
        "fold.c",
        FOLD,
        "2,4,6",
        &["N=1024,4096"],
        &["{N}", "10"],
    );
    let warnings = common::warnings(&m);
    assert!(
        warnings
            .iter()
            .any(|w| w.contains("pairwise at every traced P (up to 6)")),
        "{warnings:#?}"
    );
    assert!(
        !warnings.iter().any(|w| w.contains("profile at P >= 3")),
        "{warnings:#?}"
    );
}

const COARSE: &str = r#"#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

/* A pipeline over NB blocks whose stages hand on two kinds of message: each block's last
 * value after the block, and the whole row's last value after the last block, which the next
 * rank needs before its first block (as a 2-D sweep's east column): that hop waits for all NB
 * blocks of the rank before. */
int main(int argc, char **argv)
{
    int nprocs, rank, n, nb, len, b, i;
    double *a, left = 0.0, edge = 0.0;
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    n = atoi(argv[1]);
    nb = atoi(argv[2]);
    len = n / nb;
    a = calloc((size_t)n, sizeof(double));
    for (b = 0; b < nb; b++) {
        if (b == 0 && rank > 0)
            MPI_Recv(&edge, 1, MPI_DOUBLE, rank - 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (rank > 0)
            MPI_Recv(&left, 1, MPI_DOUBLE, rank - 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (i = b * len; i < (b + 1) * len; i++)
            a[i] = 0.5 * a[i] + left + 1e-3 * edge;
        if (rank < nprocs - 1)
            MPI_Send(&a[(b + 1) * len - 1], 1, MPI_DOUBLE, rank + 1, 2, MPI_COMM_WORLD);
        if (b == nb - 1 && rank < nprocs - 1)
            MPI_Send(&a[n - 1], 1, MPI_DOUBLE, rank + 1, 1, MPI_COMM_WORLD);
    }
    if (rank == nprocs - 1)
        printf("coarse %d %d %.6e\n", n, nb, a[n - 1]);
    free(a);
    MPI_Finalize();
    return 0;
}
"#;

/// Trial 18's wavefront: a pipeline whose east hops wait for a whole tile of blocks, its south
/// hops for one; the fill charges one stage a hop, and `expr solve` sent the user to a block
/// size 1.8x slower than the best. The model says so.
#[test]
fn a_pipeline_whose_hops_are_not_alike_is_named() {
    let tmp = tempfile::tempdir().unwrap();
    let m = smpi_model(
        tmp.path(),
        "coarse.c",
        COARSE,
        "2,3,4",
        &["N=65536", "NB=4,16"],
        &["{N}", "{NB}"],
    );
    let warnings = m["warnings"].as_array().unwrap();
    let named: Vec<&str> = warnings
        .iter()
        .filter_map(|w| w.as_str())
        .filter(|w| w.contains("a pipeline whose hops are not alike"))
        .collect();
    assert_eq!(named.len(), 1, "{warnings:#?}");
    // the block's send (line 28) against the row's (line 30), NB per row
    assert!(
        named[0].contains(
            "sends at line 28 up to 16 times as often as at line 30 (4 to 16 over the traced runs), so each of the chain's P - 1 hops along line 30's messages waits for NB blocks"
        ),
        "{}",
        named[0]
    );
    // charged: the ranks' rows of N run one after another and T grows with P; charged one
    // block a hop, it fell with P at NB = 16
    let t = symbolic::parse(m["t"].as_str().unwrap()).unwrap();
    let at = |p: f64| {
        t.eval(&|v| match v {
            "N" => Some(65536.0),
            "NB" => Some(16.0),
            "P" => Some(p),
            _ => None,
        })
        .unwrap()
    };
    assert!(at(16.0) > 3.0 * at(4.0), "T = {t}");
}

const ROWSUM: &str = r#"#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int nprocs, n, iters, it, i, dims[2] = {0, 0}, periods[2] = {1, 1}, keep[2] = {1, 0};
    double s, t = 0.0, *a;
    MPI_Comm grid, row;
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    n = atoi(argv[1]);
    iters = atoi(argv[2]);
    MPI_Dims_create(nprocs, 2, dims);
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &grid);
    MPI_Cart_sub(grid, keep, &row);
    a = malloc(sizeof(double) * (size_t)n);
    for (i = 0; i < n; i++)
        a[i] = i;
    for (it = 0; it < iters; it++) {
        s = 0.0;
        for (i = 0; i < n; i++)
            s += a[i] * 1e-3;
        MPI_Allreduce(&s, &t, 1, MPI_DOUBLE, MPI_SUM, row);
    }
    printf("rowsum %g\n", t);
    free(a);
    MPI_Finalize();
    return 0;
}
"#;

/// Trial 26: the Allreduce on a row of a 2-D grid (MPI_Cart_sub) spans the grid's first
/// extent, as the source says; it was fitted from the traced group sizes alone
/// (`1.356*sqrt(P) - 0.3219`).
#[test]
fn a_cart_sub_rows_collective_spans_the_kept_extent() {
    let tmp = tempfile::tempdir().unwrap();
    let m = smpi_model(
        tmp.path(),
        "rowsum.c",
        ROWSUM,
        "1,2,4,8",
        &["N=4096"],
        &["{N}", "5"],
    );
    let allreduce = phase_calling(&m, ROWSUM, "MPI_Allreduce");
    assert_eq!(
        allreduce["processors"], "smpi_dims(P, 2, 0)",
        "{allreduce:#}"
    );
}

/// The phase of model `m` whose calls include the first line of `src` that holds `call`.
fn phase_calling<'m>(m: &'m serde_json::Value, src: &str, call: &str) -> &'m serde_json::Value {
    let line = src.lines().position(|l| l.contains(call)).unwrap() as u64 + 1;
    let phases = m["phases"].as_array().unwrap();
    phases
        .iter()
        .find(|p| {
            p["lines"]
                .as_array()
                .unwrap()
                .iter()
                .any(|x| x.as_u64() == Some(line))
        })
        .unwrap_or_else(|| panic!("{phases:#?}"))
}

/// Trial 26: the Allreduce on the communicator `MPI_Comm_split` makes of the even and the odd
/// ranks spans `ceil(P/2)` of them, as the colour says (it was fitted `0.3885*P + 0.4331` from
/// the traced group sizes alone); P = 3 splits unevenly.
#[test]
fn a_comm_split_collective_spans_the_colours_group() {
    let src = ROWSUM
        .replace(
            "    MPI_Dims_create(nprocs, 2, dims);\n    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &grid);\n    MPI_Cart_sub(grid, keep, &row);\n",
            "    MPI_Comm_rank(MPI_COMM_WORLD, &rank);\n    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &row);\n",
        )
        .replace("int nprocs,", "int rank, nprocs,");
    assert!(src.contains("MPI_Comm_split"), "{src}");
    let tmp = tempfile::tempdir().unwrap();
    let m = smpi_model(
        tmp.path(),
        "halfsum.c",
        &src,
        "1,2,3,4,8",
        &["N=4096"],
        &["{N}", "5"],
    );
    let allreduce = phase_calling(&m, &src, "MPI_Allreduce");
    assert_eq!(allreduce["processors"], "ceil(0.5*P)", "{allreduce:#}");
}

const BLOCKS: &str = r#"#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

/* A block distribution with a remainder: the first mod(n, p) ranks hold one more. */
int main(int argc, char **argv)
{
    int rank, p, n, nloc, it, i;
    double s = 0.0, t;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    n = atoi(argv[1]);
    nloc = n / p + (rank < n % p ? 1 : 0);
    for (it = 0; it < 20; it++) {
        for (i = 0; i < nloc; i++)
            s += 1e-9 * i;
        MPI_Allreduce(&s, &t, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }
    printf("%g\n", t);
    MPI_Finalize();
    return 0;
}
"#;

/// Trial 27: a block distribution's count `floor(N/P) + [rank < mod(N, P)]` is the source's in
/// every run as its mean over the ranks, which the traces hold: the trip is the source's law,
/// not "filled by regression".
#[test]
fn a_block_distributions_trip_is_the_sources_mean_over_ranks() {
    let tmp = tempfile::tempdir().unwrap();
    let m = smpi_model(
        tmp.path(),
        "blocks.c",
        BLOCKS,
        "2,3,4",
        &["N=100000,200000"],
        &["{N}"],
    );
    let line = BLOCKS.lines().position(|l| l.contains("i < nloc")).unwrap() as u64 + 1;
    let trip = m["quantities"]
        .as_array()
        .unwrap()
        .iter()
        .find(|q| q["what"] == "trip" && q["line"] == line)
        .unwrap_or_else(|| panic!("{:#}", m["quantities"]));
    assert!(
        trip["source"]
            .as_str()
            .unwrap()
            .ends_with(", mean over rank = 0..P-1"),
        "{trip:#}"
    );
    assert_eq!(trip["origin"], "source", "{trip:#}");
    assert_eq!(trip["expr"], "N/P", "{trip:#}");
    let warnings = common::warnings(&m);
    assert!(
        !warnings
            .iter()
            .any(|w| w.starts_with("trip") && w.contains("filled by regression")),
        "{warnings:#?}"
    );
}
