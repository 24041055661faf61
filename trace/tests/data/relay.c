/* relay.c: persistent sends restarted before their messages are received. Each rank starts
 * its send to the right neighbour NMSG times (Start, Startall, Start, ...), waiting each one,
 * before it receives anything from the left; a standard send this small is detached under SMPI,
 * so every restart finds the previous message still in flight. tests/persistent.rs checks
 * that every message arrives, in order, and what the runtime records. usage: relay NMSG */
#include <stdio.h>
#include <stdlib.h>
#include "augur.h"

int main(int argc, char **argv) {
  int rank, size, nmsg = argc > 1 ? atoi(argv[1]) : 3;
  augur_MPI_Init(1, &argc, &argv);
  augur_MPI_Comm_rank(2, MPI_COMM_WORLD, &rank);
  augur_MPI_Comm_size(3, MPI_COMM_WORLD, &size);
  int left = (rank + size - 1) % size, right = (rank + 1) % size;
  double out[2], in[2];
  MPI_Request s;
  augur_MPI_Send_init(10, out, 2, MPI_DOUBLE, right, 7, MPI_COMM_WORLD, &s);
  for (int i = 0; i < nmsg; i++) {
    out[0] = rank;
    out[1] = i;
    if (i % 2 == 0) augur_MPI_Start(11, &s);
    else augur_MPI_Startall(12, 1, &s);
    augur_MPI_Wait(13, &s, MPI_STATUS_IGNORE);
  }
  for (int i = 0; i < nmsg; i++) {
    augur_MPI_Recv(14, in, 2, MPI_DOUBLE, left, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (in[0] != left || in[1] != i) {
      fprintf(stderr, "rank %d: message %d from %d reads (%g, %g)\n", rank, i, left, in[0], in[1]);
      augur_MPI_Abort(15, MPI_COMM_WORLD, 1);
    }
  }
  augur_MPI_Request_free(16, &s);
  augur_MPI_Finalize(50);
  return 0;
}
