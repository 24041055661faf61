/* Loops that call routines: a routine that loops (directly or through another call) makes
 * its caller's loop a LOOP composed from the callee's phases; a routine without loops does
 * not. A call in a loop's header is the loop's sibling, not inside it. */
#include <mpi.h>

static double row[256];

static void sweep(double *x, int n)
{
    int i;
    for (i = 0; i < n; i++)
        x[i] = 0.5 * x[i] + 1.0;
}

static void twice(double *x, int n)
{
    sweep(x, n);
    sweep(x, n);
}

static double sq(double v) { return v * v; }

static int count(int n)
{
    int i, c = 0;
    for (i = 0; i < n; i++)
        c += i & 1;
    return c;
}

int main(int argc, char **argv)
{
    int i, j, k, n = 256;
    double s = 0.0;
    MPI_Init(&argc, &argv);
    for (i = 0; i < 8; i++)
        sweep(row, n);
    for (i = 0; i < 8; i++) {
        for (j = 0; j < n; j++)
            row[j] = sq(row[j]);
        twice(row, n);
    }
    for (i = 0; i < n; i++)
        s += sq(row[i]);
    k = 0;
    while (k < 4) {
        twice(row, n);
        k++;
    }
    for (i = 0; i < count(n); i++)
        row[i] = s;
    MPI_Allreduce(MPI_IN_PLACE, &s, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
