// pge2: two-way pipelined Gaussian elimination (seed 004 §4.2 and §5.1.2).
// The N tridiagonal systems of pge1 (N unknowns each, rows split in blocks of
// N/P over the ranks), eliminated from both ends at once: the top half of the
// ranks (rank < P/2) eliminates downward 0 -> P/2-1, the bottom half upward
// P-1 -> P/2, each a pipeline over blocks of K systems with 2K-value messages.
// Ranks P/2-1 and P/2 then make two synchronous exchanges (pivot coefficients,
// then right-hand sides; N values each) and both solve the 2x2 interface system.
// Back substitution runs outward as two more pipelines with K-value messages.
// Constants (array limits, tags) live in the local header pge2c.h.
// args: N K   (N divisible by P and by K, N <= NSMAX, N/P <= NLMAX; small: 256 8)
// expect: loop trip N/K
// expect: loop trip K
// expect: loop trip N/P
// expect: message bytes 16*K
// expect: message bytes 8*N
// expect: message bytes 8*K
// expect: pipeline depth P/2-1
// expect: phase synchronous (the two interface exchanges)
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include "pge2c.h"

static double ep[NSMAX][NLMAX];   // c' (top rows) or a'' (bottom rows)
static double dp[NSMAX][NLMAX];   // d' or d'', then x
static double rbuf[2 * NSMAX], sbuf[2 * NSMAX];
static double cvec[NSMAX], dvec[NSMAX], ocvec[NSMAX], odvec[NSMAX], xedge[NSMAX];

int main(int argc, char **argv)
{
    int nprocs, rank, n, kb, nlocal, nblk, half, partner, row, blk, j, s, i, g;
    double eprev, dprev, bv, denom, ct, dt, ab, db, xm1, xm, local, total;
    MPI_Status status;

    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (argc < 3) {
        if (rank == 0)
            fprintf(stderr, "usage: pge2 N K\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    n = atoi(argv[1]);
    kb = atoi(argv[2]);
    nlocal = n / nprocs;
    if (kb < 1 || nlocal < 1 || nlocal * nprocs != n || n % kb != 0 || n > NSMAX
        || nlocal > NLMAX) {
        if (rank == 0)
            fprintf(stderr, "pge2: N must be a multiple of P and K, N <= %d\n", NSMAX);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    nblk = n / kb;
    half = nprocs / 2;

    for (s = 0; s < n; s++) {
        for (i = 0; i < nlocal; i++) {
            g = rank * nlocal + i;
            dp[s][i] = 1.0 + 0.001 * (double)((7 * g + 3 * s) % 11);
        }
        xedge[s] = 0.0;
    }
    for (j = 0; j < 2 * kb; j++) {
        rbuf[j] = 0.0;
    }

    // forward elimination: two pipelines toward the middle
    for (blk = 0; blk < nblk; blk++) {
        if (rank < half) {
            if (rank > 0)
                MPI_Recv(rbuf, 2 * kb, MPI_DOUBLE, rank - 1, TAG_TOP_FWD, MPI_COMM_WORLD, &status);
            for (j = 0; j < kb; j++) {
                s = blk * kb + j;
                bv = 4.0 + 0.01 * (double)(s % 7);
                eprev = rbuf[2 * j];
                dprev = rbuf[2 * j + 1];
                for (i = 0; i < nlocal; i++) {
                    denom = bv + eprev;
                    ep[s][i] = -1.0 / denom;
                    dp[s][i] = (dp[s][i] + dprev) / denom;
                    eprev = ep[s][i];
                    dprev = dp[s][i];
                }
                sbuf[2 * j] = eprev;
                sbuf[2 * j + 1] = dprev;
            }
            if (rank < half - 1)
                MPI_Send(sbuf, 2 * kb, MPI_DOUBLE, rank + 1, TAG_TOP_FWD, MPI_COMM_WORLD);
        } else {
            if (rank < nprocs - 1)
                MPI_Recv(rbuf, 2 * kb, MPI_DOUBLE, rank + 1, TAG_BOT_FWD, MPI_COMM_WORLD, &status);
            for (j = 0; j < kb; j++) {
                s = blk * kb + j;
                bv = 4.0 + 0.01 * (double)(s % 7);
                eprev = rbuf[2 * j];
                dprev = rbuf[2 * j + 1];
                for (i = nlocal - 1; i >= 0; i--) {
                    denom = bv + eprev;
                    ep[s][i] = -1.0 / denom;
                    dp[s][i] = (dp[s][i] + dprev) / denom;
                    eprev = ep[s][i];
                    dprev = dp[s][i];
                }
                sbuf[2 * j] = eprev;
                sbuf[2 * j + 1] = dprev;
            }
            if (rank > half)
                MPI_Send(sbuf, 2 * kb, MPI_DOUBLE, rank - 1, TAG_BOT_FWD, MPI_COMM_WORLD);
        }
    }

    // interface: x(m-1) + c' x(m) = d' and a'' x(m-1) + x(m) = d'' across ranks P/2-1, P/2
    if (half > 0 && (rank == half - 1 || rank == half)) {
        if (rank == half - 1) {
            partner = half;
            row = nlocal - 1;
        } else {
            partner = half - 1;
            row = 0;
        }
        for (s = 0; s < n; s++) {
            cvec[s] = ep[s][row];
            dvec[s] = dp[s][row];
        }
        MPI_Sendrecv(cvec, n, MPI_DOUBLE, partner, TAG_EXCH_C, ocvec, n, MPI_DOUBLE, partner,
                     TAG_EXCH_C, MPI_COMM_WORLD, &status);
        MPI_Sendrecv(dvec, n, MPI_DOUBLE, partner, TAG_EXCH_D, odvec, n, MPI_DOUBLE, partner,
                     TAG_EXCH_D, MPI_COMM_WORLD, &status);
        for (s = 0; s < n; s++) {
            if (rank == half - 1) {
                ct = cvec[s];
                dt = dvec[s];
                ab = ocvec[s];
                db = odvec[s];
            } else {
                ct = ocvec[s];
                dt = odvec[s];
                ab = cvec[s];
                db = dvec[s];
            }
            xm1 = (dt - ct * db) / (1.0 - ct * ab);
            xm = db - ab * xm1;
            if (rank == half - 1)
                xedge[s] = xm;
            else
                xedge[s] = xm1;
        }
    }

    // back substitution: two pipelines outward from the middle
    for (blk = 0; blk < nblk; blk++) {
        if (rank < half) {
            if (rank < half - 1) {
                MPI_Recv(rbuf, kb, MPI_DOUBLE, rank + 1, TAG_TOP_BWD, MPI_COMM_WORLD, &status);
            } else {
                for (j = 0; j < kb; j++) {
                    rbuf[j] = xedge[blk * kb + j];
                }
            }
            for (j = 0; j < kb; j++) {
                s = blk * kb + j;
                dprev = rbuf[j];
                for (i = nlocal - 1; i >= 0; i--) {
                    dp[s][i] = dp[s][i] - ep[s][i] * dprev;
                    dprev = dp[s][i];
                }
                sbuf[j] = dprev;
            }
            if (rank > 0)
                MPI_Send(sbuf, kb, MPI_DOUBLE, rank - 1, TAG_TOP_BWD, MPI_COMM_WORLD);
        } else {
            if (rank > half) {
                MPI_Recv(rbuf, kb, MPI_DOUBLE, rank - 1, TAG_BOT_BWD, MPI_COMM_WORLD, &status);
            } else {
                for (j = 0; j < kb; j++) {
                    rbuf[j] = xedge[blk * kb + j];
                }
            }
            for (j = 0; j < kb; j++) {
                s = blk * kb + j;
                dprev = rbuf[j];
                for (i = 0; i < nlocal; i++) {
                    dp[s][i] = dp[s][i] - ep[s][i] * dprev;
                    dprev = dp[s][i];
                }
                sbuf[j] = dprev;
            }
            if (rank < nprocs - 1)
                MPI_Send(sbuf, kb, MPI_DOUBLE, rank + 1, TAG_BOT_BWD, MPI_COMM_WORLD);
        }
    }

    local = 0.0;
    for (s = 0; s < n; s++) {
        for (i = 0; i < nlocal; i++) {
            g = rank * nlocal + i;
            local = local + dp[s][i] * (double)(g + 1);
        }
    }
    MPI_Reduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("pge2 P=%d N=%d K=%d checksum=%.6E\n", nprocs, n, kb, total);
    MPI_Finalize();
    return 0;
}
