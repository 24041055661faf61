#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

typedef void (*kernel_fn)(double *, int);

static void smooth(double *a, int n)
{
    int i;
    for (i = 1; i < n - 1; i++)
        a[i] = 0.5 * (a[i - 1] + a[i + 1]);
}

static void scale(double *a, int n)
{
    int i;
    for (i = 0; i < n; i++)
        a[i] = a[i] * 0.5;
}

static void shift(double *a, int n)
{
    int i;
    for (i = n - 1; i > 0; i--)
        a[i] = a[i - 1];
}

static void apply(kernel_fn k, double *a, int n)
{
    k(a, n);
}

int main(int argc, char **argv)
{
    int rank, n, nsteps, kind, step, i;
    double a[64], s;
    kernel_fn kernel, per_rank;
    kernel_fn table[3] = {smooth, scale, shift};

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    n = atoi(argv[1]);
    nsteps = atoi(argv[2]);
    kind = atoi(argv[3]);
    kernel = kind == 0 ? smooth : scale;
    per_rank = table[rank % 3];
    for (i = 0; i < 64; i++)
        a[i] = i;
    for (step = 0; step < nsteps; step++) {
        kernel(a, n);
        per_rank(a, n);
        apply(shift, a, n);
        MPI_Allreduce(&a[1], &s, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }
    if (rank == 0)
        printf("%.3f\n", s);
    MPI_Finalize();
    return 0;
}
