/* Loops and branches nested in computation phases, left by break, goto, return: their exits and
 * arms accumulate in the phase and are flushed at each exit of the phase. Rank 0's loop records
 * (count, sum, min, max), branch and call counts are checked by hand in tests/phase_exits.rs. */
#include <mpi.h>
#include <stdio.h>
static double sq(int n); static void bump(double *s, int k); /* leaves, after main */
static double a[8][16];

/* returns from inside the nest at i == t, j == 3 */
static int find(int t)
{
    int i, j;
    for (i = 0; i < 8; i++) {
        for (j = 0; j < 4 + i; j++) {
            if (i == t && j == 3)
                return i * 10 + j;
            a[i][j] += 1.0;
        }
    }
    return -1;
}

int main(int argc, char **argv)
{
    int rank, i, j, k, r, hit = 0;
    double s = 0.0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (i = 0; i < 5; i++)
        for (j = 0; j <= i; j++)
            s += i * j;
    for (k = 0; k < 3; k++) {
        for (i = 0; i < 4; i++) {
            if (i == k + 1)
                break;
            for (j = 0; j < 2 * i + 1; j++)
                s += k + j;
        }
    }
    for (i = 0; i < 4; i++) {
        for (j = 0; j < 6; j++) {
            if (i == 2 && j == 4)
                goto out;
            s += j;
        }
    }
out:
    for (r = 0; r < 2; r++)
        hit += find(2 - r);
    /* branches in the nest (marked: a loop in an arm or after it): a continue, a switch (a
     * default added), else if / else, an arm never taken (no record) */
    for (i = 0; i < 4; i++) {
        for (j = 0; j < 5; j++) {
            if (j == 0)
                continue;
            switch (j % 3) {
            case 0:
                for (k = 0; k < 2; k++)
                    s += k;
                break;
            case 1:
                for (k = 0; k < 1; k++)
                    s += 2;
                break;
            }
            if (j < i) {
                for (k = 0; k < j; k++)
                    s += k;
            } else if (j == i) {
                s -= 1;
            } else {
                for (k = 0; k < 1; k++)
                    s += 0.5;
            }
            if (j > 100)
                for (k = 0; k < 1; k++)
                    s = -1;
        }
    }
    /* leaf calls in a nest: a statement, two in an expression, one in a condition, one in an
     * arm taken 3 times; a single loop of leaf calls */
    for (i = 0; i < 3; i++) {
        for (j = 0; j < 4; j++) {
            bump(&s, j);
            s += sq(j) + sq(i);
            if (sq(j) > 4.0)
                s += 1;
            if (j == i)
                bump(&s, 1);
        }
    }
    for (r = 0; r < 5; r++)
        s += sq(r);
    MPI_Allreduce(MPI_IN_PLACE, &s, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("s=%.1f hit=%d\n", s, hit);
    MPI_Finalize();
    return 0;
}

static double sq(int n)
{
    return (double)n * n;
}

static void bump(double *s, int k)
{
    *s += k;
}
