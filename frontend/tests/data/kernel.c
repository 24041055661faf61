// kernel.c: a C stencil kernel written with project macros (RESTRICT comes from -D),
// for the front end's tests.
#include <mpi.h>
#include <stdlib.h>
#include "kernel.h"

INLINE void relax(double *RESTRICT u, const double *RESTRICT f, int n, int nb)
{
    int i, j, b;
    for (b = 0; b < n; b += nb) {
        for (i = b; i < b + nb && i < n; i++) {
            for (j = 1; j <= n - 2; j++) {
                u[IDX(i, j, n)] = 0.25 * (u[IDX(i, j - 1, n)] + u[IDX(i, j + 1, n)]) + f[i];
            }
        }
    }
}

int main(int argc, char **argv)
{
    int rank, size, n, iter, it;
    double *u, *f, res, gres;
    MPI_Status st;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    n = argc > 1 ? atoi(argv[1]) : 256;
    iter = strtol(argv[2], NULL, 10);
    u = malloc(sizeof(double) * n * n);
    f = malloc(sizeof(double) * n);
    for (it = 0; it < iter; it++) {
        relax(u, f, n, NB);
        if (rank > 0)
            MPI_Sendrecv(&u[n], n, MPI_DOUBLE, rank - 1, TAG_HALO, &u[0], n, MPI_DOUBLE, rank - 1,
                         TAG_HALO, MPI_COMM_WORLD, &st);
        res = u[0];
        MPI_Allreduce(&res, &gres, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        if (gres < 1e-6)
            break;
    }
    free(u);
    free(f);
    MPI_Finalize();
    return 0;
}
