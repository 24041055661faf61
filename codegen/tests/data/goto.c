/* Loops built from goto: a post-test iteration loop with an exchange, a pre-test loop left
   early by a jump to the statement after it, a goto loop inside a for loop, and one left by
   return in a function. */
#include <mpi.h>
#include <stdio.h>

static int find(int n) {
  int k = 0;
scan:
  if (k >= n) goto none;
  k++;
  MPI_Barrier(MPI_COMM_WORLD);
  if (k == 2) return k;
  goto scan;
none:
  return -1;
}

int main(int argc, char **argv) {
  int rank, np, it = 0, niter = 6, k = 0, m = 0, j;
  double a, b;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  a = rank;
again:
  it++;
  MPI_Sendrecv(&a, 1, MPI_DOUBLE, (rank + 1) % np, it, &b, 1, MPI_DOUBLE,
               (rank + np - 1) % np, it, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  a = 0.5 * (a + b);
  if (it < niter) goto again;
top:
  if (k >= niter) goto done;
  k++;
  if (k == 4) {
    goto done;
  }
  MPI_Barrier(MPI_COMM_WORLD);
  goto top;
done:
  for (j = 1; j <= 3; j++) {
    k = 0;
  inner:
    k++;
    m++;
    MPI_Barrier(MPI_COMM_WORLD);
    if (k < j) goto inner;
  }
  k = find(5);
  if (rank == 0) printf("%d %d %d %g\n", it, k, m, a);
  MPI_Finalize();
  return 0;
}
