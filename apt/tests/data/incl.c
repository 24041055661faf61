#include <mpi.h>
#include "incl_ops.c"
int main(int argc, char **argv) {
    double a[100];
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    scale(a, 100);
    if (rank == 0)
        exchange(a, 100, 1);
    MPI_Finalize();
    return 0;
}
