/* Hybrid MPI+OpenMP loops: the instrumented program must compile with -fopenmp and count
   every loop exactly with several threads (codegen/tests/openmp.rs). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, size, n, i, j, k, step;
    double s = 0.0, t = 0.0, *a;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    n = atoi(argv[1]);
    a = malloc((size_t)n * n * sizeof(double));
#pragma omp parallel for private(j)
    for (i = 0; i < n; i++)                 /* fill */
        for (j = 0; j < n; j++)             /* fill row */
            a[i * n + j] = (i + j + rank) % 5;
#pragma omp parallel private(k)
    {
#pragma omp for nowait
        for (i = 0; i < n; i++)             /* shared */
            for (k = 0; k < 3; k++)         /* shared inner */
                a[i * n + k] += 0.5;
    }
    for (step = 0; step < 3; step++) {      /* steps */
#ifdef _OPENMP
        #pragma omp parallel for reduction(+:s) \
            private(j) schedule(dynamic, 3) /* rows */
#endif
        for (i = 0; i < n; i++) {           /* triangle */
            if (i % 2 == 0) {
                for (j = 0; j <= i; j++)    /* triangle row */
                    s += a[i * n + j];
            }
        }
#pragma omp simd reduction(+:t)
        for (k = 0; k < n; k++)             /* simd */
            t += a[k];
#pragma GCC ivdep
        for (k = 0; k < n; k++)             /* ivdep */
            a[k] = a[k] * 0.5 + 1.0;
        MPI_Allreduce(MPI_IN_PLACE, &s, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }
    if (rank == 0)
        printf("%.1f %.3f\n", s, t);
    free(a);
    MPI_Finalize();
    return 0;
}
