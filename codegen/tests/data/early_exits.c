/* IFs that may leave early from inside a nested IF: what follows them runs only on the
   paths that fall out of them (apt's tree and the instrumentation plan must agree). */
#include <mpi.h>

static void x(int k) { (void)k; }
static void y(int k) { (void)k; }
static void work(int k) { (void)k; }

static void step(int l, int a, int b) {
  if (a > 0) {
    if (b > 0) return;
    x(l);
  }
  y(l);
}

int main(int argc, char **argv) {
  int i, rank, n = 100;
  double v = 0.0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  step(0, rank, n);
  for (i = 0; i < n; i++) {
    if (i % 3 == 0) {
      work(i);
      if (i > 50) break;
    } else if (i % 3 == 1) {
      if (i > 70) continue;
    }
    MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    y(i);
  }
  if (rank == 0) {
    x(1);
  } else {
    if (n > 1000) {
      y(2);
      MPI_Finalize();
      return 0;
    }
    work(3);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
