// stencil: 1-D block decomposition of a 2-D Jacobi stencil, Tomcatv-like
// (seed 003 Fig. 1). The N x N grid is split into blocks of N/P rows; each
// iteration a rank exchanges its first and last row with its neighbours
// (MPI_Irecv/MPI_Isend, then MPI_Waitall over as many requests as it posted),
// does a Jacobi update of its block, and joins an MPI_Allreduce of the squared
// residual. Fixed boundary: u = 1 above the grid, 0 elsewhere.
// args: N ITERS   (N divisible by P; small: 128 50)
// expect: loop trip ITERS
// expect: loop trip N/P
// expect: loop trip N
// expect: message bytes 8*N
// expect: phase synchronous
// expect: allreduce bytes 8 per iteration
// expect: checksum independent of P
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define TAG_UP 51     // row travelling to rank - 1
#define TAG_DOWN 52   // row travelling to rank + 1

int main(int argc, char **argv)
{
    int nprocs, rank, n, iters, nlocal, w, it, i, j, nreq;
    double *u, *v;
    double unew, diff, res, gres, local, total;
    MPI_Request req[4];

    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (argc < 3) {
        if (rank == 0)
            fprintf(stderr, "usage: stencil N ITERS\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    n = atoi(argv[1]);
    iters = atoi(argv[2]);
    nlocal = n / nprocs;
    if (nlocal < 1 || nlocal * nprocs != n) {
        if (rank == 0)
            fprintf(stderr, "stencil: N must be a multiple of P\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    // rows 0 and nlocal+1 are ghosts, columns 0 and n+1 the fixed boundary
    w = n + 2;
    u = malloc(sizeof(double) * (size_t)(nlocal + 2) * (size_t)w);
    v = malloc(sizeof(double) * (size_t)(nlocal + 2) * (size_t)w);
    for (i = 0; i < nlocal + 2; i++) {
        for (j = 0; j < w; j++) {
            u[i * w + j] = 0.0;
        }
    }
    if (rank == 0) {
        for (j = 1; j <= n; j++) {
            u[0 * w + j] = 1.0;
        }
    }

    gres = 0.0;
    for (it = 0; it < iters; it++) {
        nreq = 0;
        if (rank > 0) {
            MPI_Irecv(&u[0 * w + 1], n, MPI_DOUBLE, rank - 1, TAG_DOWN, MPI_COMM_WORLD, &req[nreq]);
            nreq = nreq + 1;
            MPI_Isend(&u[1 * w + 1], n, MPI_DOUBLE, rank - 1, TAG_UP, MPI_COMM_WORLD, &req[nreq]);
            nreq = nreq + 1;
        }
        if (rank < nprocs - 1) {
            MPI_Irecv(&u[(nlocal + 1) * w + 1], n, MPI_DOUBLE, rank + 1, TAG_UP, MPI_COMM_WORLD,
                      &req[nreq]);
            nreq = nreq + 1;
            MPI_Isend(&u[nlocal * w + 1], n, MPI_DOUBLE, rank + 1, TAG_DOWN, MPI_COMM_WORLD,
                      &req[nreq]);
            nreq = nreq + 1;
        }
        MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);

        res = 0.0;
        for (i = 1; i <= nlocal; i++) {
            for (j = 1; j <= n; j++) {
                unew = 0.25 * (u[(i - 1) * w + j] + u[(i + 1) * w + j] + u[i * w + j - 1]
                               + u[i * w + j + 1]);
                diff = unew - u[i * w + j];
                res = res + diff * diff;
                v[i * w + j] = unew;
            }
        }
        for (i = 1; i <= nlocal; i++) {
            for (j = 1; j <= n; j++) {
                u[i * w + j] = v[i * w + j];
            }
        }
        MPI_Allreduce(&res, &gres, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }

    local = 0.0;
    for (i = 1; i <= nlocal; i++) {
        for (j = 1; j <= n; j++) {
            local = local + u[i * w + j];
        }
    }
    MPI_Reduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("stencil P=%d N=%d ITERS=%d residual=%.6E checksum=%.6E\n", nprocs, n, iters, gres,
               total);
    free(u);
    free(v);
    MPI_Finalize();
    return 0;
}
