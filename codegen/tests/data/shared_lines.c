/* Several statements on one line, each with markers of its own: two loops, two calls. */
#include <mpi.h>
#include <stdio.h>

static void bump(int *k) { *k += 1; }

int main(int argc, char **argv)
{
    int i, k = 0, rank, n = 8;
    double a[8], b[8], s = 0.0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (i = 0; i < n; i++) a[i] = i; for (i = 0; i < n; i++) b[i] = 2 * i;
    bump(&k); bump(&k);
    for (i = 0; i < n; i++) s += a[i] * b[i];
    MPI_Allreduce(MPI_IN_PLACE, &s, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("k=%d s=%.1f\n", k, s);
    MPI_Finalize();
    return 0;
}
