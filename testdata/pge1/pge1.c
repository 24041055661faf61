// pge1: one-way pipelined Gaussian elimination on a ring (seed 004 §5.1.1).
// Solves N independent tridiagonal systems of N unknowns each (Thomas
// algorithm). Every system is split by rows: rank r owns rows r*N/P..(r+1)*N/P-1
// of all of them. Systems are processed in blocks of K: forward elimination
// receives the last pivot pair (c', d') of K systems from the left, eliminates
// its rows, and forwards 2K values to the right (pipeline 0 -> P-1); back
// substitution runs the other way with K values (pipeline P-1 -> 0). The block
// size K trades message count (N/K per sweep) against pipeline fill.
// args: N K   (N divisible by P and by K; small: 256 8)
// expect: loop trip N/K
// expect: loop trip K
// expect: loop trip N/P
// expect: message bytes 16*K
// expect: message bytes 8*K
// expect: pipeline depth P-1
// expect: pipeline depth P-1
// expect: checksum independent of P
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define TAG_FWD 11
#define TAG_BWD 12

int main(int argc, char **argv)
{
    int nprocs, rank, n, kb, nlocal, nblk, blk, j, s, i, g;
    double *cp, *dp, *rbuf, *sbuf;
    double cprev, dprev, xnext, bv, denom, local, total;
    MPI_Status status;

    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (argc < 3) {
        if (rank == 0)
            fprintf(stderr, "usage: pge1 N K\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    n = atoi(argv[1]);
    kb = atoi(argv[2]);
    nlocal = n / nprocs;
    if (kb < 1 || nlocal < 1 || nlocal * nprocs != n || n % kb != 0) {
        if (rank == 0)
            fprintf(stderr, "pge1: N must be a multiple of P and of K\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    nblk = n / kb;
    cp = malloc(sizeof(double) * (size_t)nlocal * (size_t)n);
    dp = malloc(sizeof(double) * (size_t)nlocal * (size_t)n);
    rbuf = malloc(sizeof(double) * 2 * (size_t)kb);
    sbuf = malloc(sizeof(double) * 2 * (size_t)kb);

    // system s, global row g: diagonal 4 + (s mod 7)/100, off-diagonals -1
    for (s = 0; s < n; s++) {
        for (i = 0; i < nlocal; i++) {
            g = rank * nlocal + i;
            dp[s * nlocal + i] = 1.0 + 0.001 * (double)((7 * g + 3 * s) % 11);
        }
    }
    for (j = 0; j < 2 * kb; j++) {
        rbuf[j] = 0.0;
    }

    // forward elimination: rank 0 starts every block with a zero pivot pair
    for (blk = 0; blk < nblk; blk++) {
        if (rank > 0)
            MPI_Recv(rbuf, 2 * kb, MPI_DOUBLE, rank - 1, TAG_FWD, MPI_COMM_WORLD, &status);
        for (j = 0; j < kb; j++) {
            s = blk * kb + j;
            bv = 4.0 + 0.01 * (double)(s % 7);
            cprev = rbuf[2 * j];
            dprev = rbuf[2 * j + 1];
            for (i = 0; i < nlocal; i++) {
                denom = bv + cprev;
                cp[s * nlocal + i] = -1.0 / denom;
                dp[s * nlocal + i] = (dp[s * nlocal + i] + dprev) / denom;
                cprev = cp[s * nlocal + i];
                dprev = dp[s * nlocal + i];
            }
            sbuf[2 * j] = cprev;
            sbuf[2 * j + 1] = dprev;
        }
        if (rank < nprocs - 1)
            MPI_Send(sbuf, 2 * kb, MPI_DOUBLE, rank + 1, TAG_FWD, MPI_COMM_WORLD);
    }

    // back substitution: x overwrites d'; the last rank starts from x = 0
    for (j = 0; j < kb; j++) {
        rbuf[j] = 0.0;
    }
    for (blk = 0; blk < nblk; blk++) {
        if (rank < nprocs - 1)
            MPI_Recv(rbuf, kb, MPI_DOUBLE, rank + 1, TAG_BWD, MPI_COMM_WORLD, &status);
        for (j = 0; j < kb; j++) {
            s = blk * kb + j;
            xnext = rbuf[j];
            for (i = nlocal - 1; i >= 0; i--) {
                dp[s * nlocal + i] = dp[s * nlocal + i] - cp[s * nlocal + i] * xnext;
                xnext = dp[s * nlocal + i];
            }
            sbuf[j] = xnext;
        }
        if (rank > 0)
            MPI_Send(sbuf, kb, MPI_DOUBLE, rank - 1, TAG_BWD, MPI_COMM_WORLD);
    }

    local = 0.0;
    for (s = 0; s < n; s++) {
        for (i = 0; i < nlocal; i++) {
            g = rank * nlocal + i;
            local = local + dp[s * nlocal + i] * (double)(g + 1);
        }
    }
    MPI_Reduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("pge1 P=%d N=%d K=%d checksum=%.6E\n", nprocs, n, kb, total);
    free(cp);
    free(dp);
    free(rbuf);
    free(sbuf);
    MPI_Finalize();
    return 0;
}
