/* edge.c: C constructs the instrumenter must rewrite without changing what the program computes:
 * unbraced and empty loop bodies, nested unbraced loops, if/else-if/else chains without braces,
 * do-while, for(;;) with break, a loop inside a switch, return and goto from inside loops, calls in expressions and in unbraced
 * branches, MPI calls inside conditions and with empty argument lists. Prints one checksum. */
#include <mpi.h>
#include <stdio.h>

static long acc;

static void bump(long v) { acc += v; }

static int twice(int x) { return 2 * x; }

/* returns from inside two loops */
static int find(int n, int target)
{
    int i, j;
    for (i = 0; i < n; i++)
        for (j = 0; j < n; j++)
            if (i * n + j == target)
                return i * 1000 + j;
    return -1;
}

/* leaves two loops with goto; a goto to a label inside the loop stays in it */
static int first_over(int n, int limit)
{
    int i, j, hit = -1;
    for (i = 0; i < n; i++) {
        for (j = 0; j < n; j++) {
            if (j == 1) goto next;
            if (i * j > limit) { hit = i * 100 + j; goto done; }
        next:
            ;
        }
    }
done:
    return hit;
}

int main(int argc, char **argv)
{
    int rank, size, i, j, k = 0, n = 7;
    long s = 0;
    double buf[4] = {1, 2, 3, 4};
    MPI_Status st;

    if (MPI_Init(&argc, &argv) != MPI_SUCCESS) return 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (i = 0; i < n; i++) s += i;
    for (i = 0; i < n; i++)
        for (j = 0; j < i; j++)
            s += j;
    for (i = 0; i < 5; i++);
    s += i;
    if (rank == 0) for (i = 0; i < 3; i++) bump(i);
    else if (rank == 1) bump(10);
    else bump(twice(20));
    if (rank >= 0)
        s += twice(3) + twice(4);
    while (k < 10) k += 3;
    do k--; while (k > 4);
    do { k += 2; } while (k < 9);
    for (;;) { if (++k > 20) break; }
    s += k + find(n, 17) + find(n, 99) + first_over(n, 12);
    if (size > 1) {
        if (rank == 0)
            MPI_Send(buf, 4, MPI_DOUBLE, 1, 5, MPI_COMM_WORLD);
        else if (rank == 1) MPI_Recv(buf, 4, MPI_DOUBLE, 0, 5, MPI_COMM_WORLD, &st);
    }
    switch (rank % 3) {
    case 0:
        for (i = 0; i < 3; i++) s += i;
        break;
    case 1:
        s += 7;
        break;
    default:
        s -= 1;
    }
    for (i = 0; i < 4; i++) {
        if (i == 2) continue;
        s += (long)buf[i];
    }
    if (MPI_Barrier(MPI_COMM_WORLD) != MPI_SUCCESS) return 2;
    MPI_Allreduce(MPI_IN_PLACE, &s, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) printf("edge checksum=%ld acc=%ld\n", s, acc);
    MPI_Finalize();
    return 0;
}
