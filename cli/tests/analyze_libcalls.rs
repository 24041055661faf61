//! `augur profile` + `augur analyze` under SMPI on a parallel sample sort, written the way a
//! new user's was: a local qsort of NLOC keys from an LCG, an MPI_Alltoall of bucket counts,
//! an MPI_Alltoallv of the keys and a P-way merge. The qsort is a computation site of its own
//! whose work is NLOC*log2(NLOC) from the source; with its time in the overhead residual (which
//! does not follow NLOC*log2(NLOC)) the model missed the runs by 62-65% at NLOC = 200000.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::print_stderr,
    clippy::panic
)]

mod common;
use common::smpi_model;

const SORT: &str = r#"#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int cmp(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    int nloc, nprocs, rank, i, p, total, best, *keys, *out, *recv, *scount, *rcount, *sdisp,
        *rdisp, *head;
    unsigned int seed;
    long long check = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    nloc = atoi(argv[1]);
    keys = malloc(nloc * sizeof(int));
    scount = calloc(nprocs, sizeof(int));
    rcount = malloc(nprocs * sizeof(int));
    sdisp = malloc(nprocs * sizeof(int));
    rdisp = malloc(nprocs * sizeof(int));
    head = malloc(nprocs * sizeof(int));
    seed = 2654435761u * (unsigned)(rank + 1);
    for (i = 0; i < nloc; i++) {
        seed = seed * 1664525u + 1013904223u;
        keys[i] = (int)(seed >> 8);
    }
    qsort(keys, nloc, sizeof(int), cmp);
    for (i = 0; i < nloc; i++)
        scount[(long long)keys[i] * nprocs >> 24]++;
    MPI_Alltoall(scount, 1, MPI_INT, rcount, 1, MPI_INT, MPI_COMM_WORLD);
    sdisp[0] = 0;
    rdisp[0] = 0;
    for (p = 1; p < nprocs; p++) {
        sdisp[p] = sdisp[p - 1] + scount[p - 1];
        rdisp[p] = rdisp[p - 1] + rcount[p - 1];
    }
    total = rdisp[nprocs - 1] + rcount[nprocs - 1];
    recv = malloc((total + 1) * sizeof(int));
    out = malloc((total + 1) * sizeof(int));
    MPI_Alltoallv(keys, scount, sdisp, MPI_INT, recv, rcount, rdisp, MPI_INT, MPI_COMM_WORLD);
    for (p = 0; p < nprocs; p++)
        head[p] = rdisp[p];
    for (i = 0; i < total; i++) {
        best = -1;
        for (p = 0; p < nprocs; p++)
            if (head[p] < rdisp[p] + rcount[p] && (best < 0 || recv[head[p]] < recv[head[best]]))
                best = p;
        out[i] = recv[head[best]];
        head[best]++;
    }
    for (i = 1; i < total; i++)
        check += out[i - 1] <= out[i];
    if (rank == 0)
        printf("sorted %d %lld\n", total, check);
    MPI_Finalize();
    return 0;
}
"#;

/// The qsort is a computation site whose work comes from the source (n*log2(n)), and the
/// fitted T follows every run
#[test]
fn a_local_qsort_is_a_timed_site_with_its_n_log_n_work() {
    let tmp = tempfile::tempdir().unwrap();
    let m = smpi_model(
        tmp.path(),
        "ssort.c",
        SORT,
        "2,4",
        &["NLOC=100000,200000,400000"],
        &["{NLOC}"],
    );
    let compute = m["compute"].as_array().expect("compute sites");
    let sort = compute
        .iter()
        .find(|c| c["line"] == 32)
        .unwrap_or_else(|| panic!("no compute site at the qsort's line: {compute:#?}"));
    let work = sort["work"].as_str().unwrap();
    assert!(work.contains("log2(NLOC)"), "{sort:#}");
    let origin = sort["origin"].as_str().unwrap();
    assert!(origin == "source" || origin == "source_scaled", "{sort:#}");
    // no longer named as a library call whose time is in the overhead fit
    let warnings = m["warnings"].as_array().unwrap();
    assert!(
        warnings
            .iter()
            .all(|w| !w.as_str().unwrap().contains("qsort")),
        "{warnings:#?}"
    );
    // the Alltoallv's traced size is all a rank sends: a size per call, shared among the
    // ranks by its cost, not "per message" (trial 21)
    let sizes: Vec<&str> = warnings
        .iter()
        .filter_map(|w| w.as_str())
        .filter(|w| w.starts_with("size per"))
        .collect();
    assert!(
        !sizes.is_empty()
            && sizes.iter().all(|w| w.starts_with(
                "size per call (all a rank sends, shared among the ranks by the cost) at line 45"
            )),
        "{warnings:#?}"
    );
    let rows = m["validation"].as_array().expect("validation rows");
    assert_eq!(rows.len(), 6, "{:#}", m["validation"]);
    // Under SMPI the host's qsort of the same keys takes 12.4 ms per rank at P = 2 and 8.6 ms
    // at P = 4 (NLOC = 100000, repeatable; a host effect the runs' structure cannot show), so
    // the fitted T sits at 0.78-0.82 of the P = 2 runs and 1.12 of the P = 4 runs. The bound
    // is the defect's: with the qsort's time in the residual the model missed by 62-65%.
    for r in rows {
        let ratio = r["fitted"].as_f64().unwrap() / r["measured"].as_f64().unwrap();
        eprintln!("{r}");
        assert!((0.7..1.43).contains(&ratio), "{r:#}\nT = {}", m["t"]);
    }
}
