/* Computing library calls as implicit loops: a local sort of NLOC keys, copies, a search and
 * a fill inside a loop, each a site counting the routine's work. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp(const void *a, const void *b) {
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    int nloc = atoi(argv[1]), rank, i, sum = 0, total = 0;
    int *keys = malloc(nloc * sizeof(int)), *copy = malloc(nloc * sizeof(int));
    unsigned int seed = 12345;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (i = 0; i < nloc; i++) {
        seed = seed * 1103515245u + 12345u + (unsigned)rank;
        keys[i] = (int)(seed >> 8);
    }
    qsort(keys, nloc, sizeof(int), cmp);
    memcpy(copy, keys, nloc * sizeof(int));
    bsearch(&keys[nloc / 2], keys, nloc, sizeof(int), cmp);
    for (i = 0; i < 3; i++)
        memset(copy, 0, nloc * sizeof(int));
    for (i = 1; i < nloc; i++)
        sum += keys[i - 1] <= keys[i];
    MPI_Allreduce(&sum, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("ordered pairs %d\n", total);
    free(keys);
    free(copy);
    MPI_Finalize();
    return 0;
}
