// pipeline: one-way pipeline, the right half of seed 004 Fig. 1.
// Every rank but the first receives its left neighbour's block, computes on
// it, then every rank but the last sends its block to the right. Ranks 1..P-2
// receive before they send, so the CPG must call this phase a pipeline whose
// longest processor chain is 0 -> 1 -> ... -> P-1.
// Twin of ../shift/shift.c: identical text except the send/recv order.
// args: N ITERS   (N divisible by P, N/P <= NMAX; small: 4096 20)
// expect: loop trip ITERS
// expect: loop trip N/P
// expect: message bytes 8*N/P
// expect: phase pipeline
// expect: pipeline depth P-1
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define NMAX 65536
#define TAG 7

static double a[NMAX];
static double b[NMAX];

int main(int argc, char **argv)
{
    int nprocs, rank, n, iters, nlocal, it, i;
    double local, total;
    MPI_Status status;

    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (argc < 3) {
        if (rank == 0)
            fprintf(stderr, "usage: pipeline N ITERS\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    n = atoi(argv[1]);
    iters = atoi(argv[2]);
    nlocal = n / nprocs;
    if (nlocal < 1 || nlocal > NMAX || nlocal * nprocs != n) {
        if (rank == 0)
            fprintf(stderr, "pipeline: N must be a multiple of P with N/P <= %d\n", NMAX);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }

    for (i = 0; i < nlocal; i++) {
        a[i] = (double)(rank * nlocal + i + 1) / (double)n;
        b[i] = 0.0;
    }

    for (it = 0; it < iters; it++) {
        if (rank > 0)
            MPI_Recv(b, nlocal, MPI_DOUBLE, rank - 1, TAG, MPI_COMM_WORLD, &status);
        for (i = 0; i < nlocal; i++) {
            a[i] = 0.75 * a[i] + 0.5 * b[i];
        }
        if (rank < nprocs - 1)
            MPI_Send(a, nlocal, MPI_DOUBLE, rank + 1, TAG, MPI_COMM_WORLD);
    }

    local = 0.0;
    for (i = 0; i < nlocal; i++) {
        local = local + a[i] * (double)(i + 1);
    }
    MPI_Reduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("pipeline P=%d N=%d ITERS=%d checksum=%.6E\n", nprocs, n, iters, total);
    MPI_Finalize();
    return 0;
}
