/* late_pair.c: a Testall poll over two receives of which only the first can complete until the
 * poller acts. Rank 1 sends A (tag 1) at once, then B (tag 2) only after a go message from rank
 * 0, which rank 0 sends after NPOLLS MPI_Testall calls over its receives of A (site 10) and B
 * (site 11) at site 14; it then polls at site 14 until both are done. MPI lets a Testall that
 * returns flag = 0 complete nothing, but SimGrid 3.32's frees every request it finds done and
 * sets its handle to MPI_REQUEST_NULL: A's receive completes then, in a call that says nothing
 * completed. tests/polls.rs checks that each receive is completed once either way. */
#include "augur.h"
#include <stdio.h>

#define NPOLLS 50

int main(int argc, char **argv) {
  int rank, nprocs, flag = 0, i;
  double a = 0.0, b = 0.0, go = 1.0;
  MPI_Request req[2];
  MPI_Status st[2];

  augur_MPI_Init(1, &argc, &argv);
  augur_MPI_Comm_rank(2, MPI_COMM_WORLD, &rank);
  augur_MPI_Comm_size(3, MPI_COMM_WORLD, &nprocs);
  if (nprocs >= 2 && rank == 0) {
    augur_MPI_Irecv(10, &a, 1, MPI_DOUBLE, 1, 1, MPI_COMM_WORLD, &req[0]);
    augur_MPI_Irecv(11, &b, 1, MPI_DOUBLE, 1, 2, MPI_COMM_WORLD, &req[1]);
    for (i = 0; i < NPOLLS && !flag; i++) augur_MPI_Testall(14, 2, req, &flag, st);
    augur_MPI_Send(12, &go, 1, MPI_DOUBLE, 1, 3, MPI_COMM_WORLD);
    while (!flag) augur_MPI_Testall(14, 2, req, &flag, st);
    printf("late_pair %.1f %.1f\n", a, b);
  } else if (nprocs >= 2 && rank == 1) {
    a = 1.0;
    b = 2.0;
    augur_MPI_Send(20, &a, 1, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD);
    augur_MPI_Recv(21, &go, 1, MPI_DOUBLE, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    augur_MPI_Send(22, &b, 1, MPI_DOUBLE, 0, 2, MPI_COMM_WORLD);
  }
  augur_MPI_Finalize(5);
  return 0;
}
