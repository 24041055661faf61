#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, method, nsteps, step, i;
    double s = 0.0, t;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    method = atoi(argv[1]);
    nsteps = atoi(argv[2]);
    for (step = 0; step < nsteps; step++) {
        switch (rank % 3) {
        case 0:
            for (i = 0; i < 100; i++)
                s += i;
            break;
        case 1:
        case 2:
            for (i = 0; i < 200; i++)
                s += 0.5 * i;
            break;
        default:
            s = 0.0;
            break;
        }
        switch (method) {
        case 1:
            MPI_Barrier(MPI_COMM_WORLD);
            break;
        case 2:
            for (i = 0; i < 10; i++)
                s += 1.0;
            break;
        }
        switch (step % 2) {
        default:
            for (i = 0; i < 3; i++)
                s += 2.0;
            break;
        }
    }
    MPI_Allreduce(&s, &t, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%.1f\n", t);
    MPI_Finalize();
    return 0;
}
